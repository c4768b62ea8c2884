package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/output"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/dataset"
)

// existingAncestor returns dir if it exists, else its nearest existing
// ancestor; an ancestor that is not a directory is an error.
func existingAncestor(dir string) (string, error) {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			return d, nil
		case err == nil:
			return "", fmt.Errorf("%s is a file, not a directory", d)
		case errors.Is(err, fs.ErrPermission):
			return "", err
		} // missing, or under a file (ENOTDIR): look higher
		up := filepath.Dir(d)
		if up == d {
			return "", err
		}
		d = up
	}
}

// probeDir creates and removes a file in the existing directory dir: the
// one test of writability that holds on every system (permissions, a
// read-only mount, ACLs, a full quota on the inode count).
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".pairgossip-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkOutDir checks, before any work, that the output directory of a flag
// can be written: it exists and takes a file, or its nearest existing
// ancestor does (it is created only once the run is ready to start, so a
// refused run leaves nothing behind).
func checkOutDir(flagName, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("%s %s: is a file, not a directory", flagName, dir)
	}
	d, err := existingAncestor(dir)
	if err == nil {
		err = probeDir(d)
	}
	if err != nil {
		return usagef("%s %s: %v", flagName, dir, err)
	}
	return nil
}

// checkOutFile checks, before any work, that the file a flag names can be
// written atomically (a temporary file in its directory, renamed over it):
// its directory exists and takes a file, and it is not a directory.
func checkOutFile(flagName, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a directory, not a file", flagName, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("%s %s: its directory %s does not exist", flagName, path, dir)
	case !st.IsDir():
		return usagef("%s %s: %s is a file, not a directory", flagName, path, dir)
	}
	if err := probeDir(dir); err != nil {
		return usagef("%s %s: %v", flagName, path, err)
	}
	return nil
}

// namedPath is a file a flag reads (input) or the command writes.
type namedPath struct {
	what  string // "--data", "--out's trace.csv", ...
	path  string
	input bool
}

// runPaths lists the files a `pairgossip run` reads and writes: the data
// file (and a .npy data set's labels file), the graph file, the checkpoint
// resumed from; the trace, summary and MPI statistics in --out, the model
// files, the checkpoint.
func runPaths(a *runArgs) []namedPath {
	var ps []namedPath
	if st, err := os.Stat(a.cfg.Data); err == nil && !st.IsDir() {
		ps = append(ps, namedPath{"--data", a.cfg.Data, true})
		if strings.EqualFold(filepath.Ext(a.cfg.Data), ".npy") {
			if lp, err := dataset.NPYLabelsPath(a.cfg.Data); err == nil {
				ps = append(ps, namedPath{"the labels file of --data", lp, true})
			}
		}
	}
	if a.cfg.LabelsFile != "" {
		ps = append(ps, namedPath{"--labels-file", a.cfg.LabelsFile, true})
	}
	if a.cfg.GraphFile != "" {
		ps = append(ps, namedPath{"--graph-file", a.cfg.GraphFile, true})
	}
	if a.resume != "" {
		ps = append(ps, namedPath{"--resume", a.resume, true})
	}
	ps = append(ps, networkInputs(a.cfg)...)
	// The files a flag names come before those put in a directory, so that
	// a clash is reported against the flag that caused it.
	if a.ckpt != "" && a.ckpt != a.resume {
		ps = append(ps, namedPath{"--checkpoint", a.ckpt, false})
	}
	if a.cfg.WriteEdges != "" {
		ps = append(ps, namedPath{"--write-edges", a.cfg.WriteEdges, false})
	}
	// --out itself: a file output of that name (--write-edges X --out X,
	// the directory not there yet) would be found only when the run ends.
	ps = append(ps, namedPath{"--out", a.out, false})
	for _, f := range runOutFiles {
		ps = append(ps, namedPath{"--out's " + f, filepath.Join(a.out, f), false})
	}
	if a.model.set {
		dir := a.model.dir
		if dir == "" {
			dir = a.out
		}
		for _, f := range []string{output.ModelNodesFile, output.ModelMeanFile} {
			ps = append(ps, namedPath{"--save-model's " + f, filepath.Join(dir, f), false})
		}
	}
	return ps
}

// networkInputs lists the files the network knobs read: --edge-stream, the
// sessions of --churn file:PATH, the weights of --activation weights:FILE
// and the edge lists of --graph-schedule's file phases.
func networkInputs(c config.Config) []namedPath {
	var ps []namedPath
	seen := map[string]bool{}
	c.MapNetworkFiles(func(p string) string {
		if !seen[p] {
			seen[p] = true
			what := "--edge-stream"
			switch {
			case strings.HasSuffix(c.Churn, ":"+p):
				what = "the sessions file of --churn"
			case strings.HasSuffix(c.Activation, ":"+p):
				what = "the weights file of --activation"
			case p != c.EdgeStream:
				what = "an edge list of --graph-schedule"
			}
			ps = append(ps, namedPath{what, p, true})
		}
		return p
	})
	return ps
}

// runOutFiles are the files `pairgossip run` writes into --out (mpi.json
// only over MPI ranks; nodes.csv only with --trace-nodes; the model files
// only with --save-model).
var runOutFiles = []string{"trace.csv", "summary.json", "mpi.json", "nodes.csv"}

// checkDistinct refuses, before any work, an output that is an input or
// another output: the same path, or the same file under another name (a
// symbolic or hard link). An output never overwrites an input, and two
// outputs never overwrite each other.
func checkDistinct(ps []namedPath) error {
	for i := range ps {
		for j := i + 1; j < len(ps); j++ {
			a, b := ps[i], ps[j]
			if (a.input && b.input) || !sameFile(a.path, b.path) {
				continue
			}
			out, other := a, b
			if a.input {
				out, other = b, a
			}
			if other.input {
				return usagef("%s %s: is %s (%s): an output never overwrites an input; write it elsewhere", flagOf(out), out.path, other.what, other.path)
			}
			return usagef("%s %s: is also %s (%s): two outputs cannot share a file", flagOf(out), out.path, other.what, other.path)
		}
	}
	return nil
}

// checkOutKinds refuses, before any work, an output file that exists and
// is not a regular file (a device such as /dev/null, a named pipe, a
// socket) or is a link whose target cannot be resolved: an output is
// written to a temporary file renamed over its target, which would replace
// the device itself (atomicfile.Target). A link to a regular file is
// written through.
func checkOutKinds(ps []namedPath) error {
	for _, p := range ps {
		if p.input || p.what == "--out" {
			continue
		}
		// A path not there, or under a file, or a directory: checkOutDir's
		// and checkOutFile's to explain.
		if fi, err := os.Lstat(p.path); err != nil || fi.IsDir() {
			continue
		}
		if _, err := atomicfile.Target(p.path); err != nil {
			return usagef("%s: %v", p.what, err)
		}
	}
	return nil
}

// flagOf is the flag that chose an output's path ("--out" for "--out's trace.csv").
func flagOf(p namedPath) string {
	if i := strings.Index(p.what, "'s "); i > 0 {
		return p.what[:i]
	}
	return p.what
}

// sameFile reports whether a and b name the same file: the same inode when
// both exist, else the same absolute path once the symbolic links of their
// directories are resolved.
func sameFile(a, b string) bool {
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return os.SameFile(sa, sb)
	}
	return canonical(a) == canonical(b)
}

// canonical is path made absolute, with the symbolic links of its nearest
// existing ancestor resolved.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for d := abs; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		up := filepath.Dir(d)
		if up == d {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = up
	}
}

// earlierRun is what --out held before a run: the files a pairgossip run
// writes there (runOutFiles and the model's) that were present, and
// whether a summary.json of a pairgossip run was among them, which says
// that they are an earlier run's.
type earlierRun struct {
	dir    string
	files  []string // base names present at the start
	ours   bool     // dir held a pairgossip summary.json
	inputs []string // this run's input files, never removed
}

// snapshotOut looks at dir before the run writes there (inputs: runPaths's
// inputs, which are never removed, whatever their names).
func snapshotOut(dir string, ps []namedPath) *earlierRun {
	e := &earlierRun{dir: dir}
	for _, p := range ps {
		if p.input {
			e.inputs = append(e.inputs, p.path)
		}
	}
	for _, f := range outOwnedFiles() {
		if st, err := os.Lstat(filepath.Join(dir, f)); err == nil && st.Mode().IsRegular() {
			e.files = append(e.files, f)
		}
	}
	e.ours = isRunSummary(filepath.Join(dir, "summary.json"))
	return e
}

// outOwnedFiles are the base names a run may write into --out.
func outOwnedFiles() []string {
	return append(append([]string(nil), runOutFiles...), output.ModelNodesFile, output.ModelMeanFile)
}

// isRunSummary reports whether path is a summary.json that a pairgossip
// run wrote (a JSON object with its status and configuration).
func isRunSummary(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var s struct {
		Status string          `json:"status"`
		Config json.RawMessage `json:"config"`
		Exec   json.RawMessage `json:"execution"`
	}
	if err := json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&s); err != nil {
		return false
	}
	return s.Status != "" && len(s.Config) > 0 && len(s.Exec) > 0
}

// removeStale removes from dir the files of an earlier run that this run
// did not write (wrote holds the base names it wrote there): a model or the
// MPI statistics left beside the new trace and summary would read as this
// run's. Only an earlier pairgossip run's files go (dir held its
// summary.json when the run began: e.ours), and never an input of this run
// (a data file named theta_bar.npy, say); another file of such a name is
// left in place with a warning. It says what it removed on stderr.
func removeStale(e *earlierRun, wrote []string, stderr io.Writer) error {
	for _, f := range e.files {
		if slices.Contains(wrote, f) {
			continue
		}
		p := filepath.Join(e.dir, f)
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		input := false
		for _, in := range e.inputs {
			input = input || sameFile(p, in)
		}
		switch {
		case input:
			fmt.Fprintf(stderr, "warning: %s, an input of this run, is in --out beside its outputs (left in place)\n", p)
			continue
		case !e.ours:
			fmt.Fprintf(stderr, "warning: %s was not written by this run, and --out held no earlier run's summary.json: left in place\n", p)
			continue
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("%s is an earlier run's and cannot be removed: %w", p, err)
		}
		fmt.Fprintf(stderr, "warning: removed %s, an earlier run's (this run wrote no %s there)\n", p, f)
	}
	return nil
}

// checkedWriter keeps the first error of the writes through it, so that a
// command checks once, at the end, that everything it printed arrived.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}
