package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/filelock"
)

// hostileCase is one bad input of issue #15: the command must exit with
// code and print want on stderr (and nothing that looks like a crash).
type hostileCase struct {
	name string
	args []string
	code int
	want string
}

func checkHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: %v: exit %d, stderr %q; want exit %d and %q", c.name, c.args, code, stderr, c.code, c.want)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("%s: crashed: %s", c.name, stderr)
		}
	}
}

// TestHostileSizes: sizes that panicked or exhausted memory are refused
// before any work, naming the flag (issue #15, item 2; item 11 for
// --eval-nodes and --graph-file).
func TestHostileSizes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "never")
	edges := filepath.Join(dir, "edges.txt")
	os.WriteFile(edges, []byte("0 1\n"), 0o644)
	checkHostile(t, []hostileCase{
		{"log-points max int", []string{"run", "--iters", "100", "--log-points", "9223372036854775807", "--out", out}, 2, "--log-points must be in 1..1000000, got 9223372036854775807"},
		{"log-points 1e11", []string{"run", "--iters", "100", "--log-points", "100000000000", "--out", out}, 2, "--log-points must be in 1..1000000"},
		{"log-points above iters", []string{"run", "--iters", "100", "--log-points", "500", "--out", out}, 2, "--log-points must be <= the iterations (100), got 500"},
		{"log-points 3e9", []string{"run", "--iters", "3000000000", "--log-points", "3000000000", "--out", out}, 2, "--log-points must be in 1..1000000"},
		{"workers max int", []string{"run", "--iters", "100", "--workers", "9223372036854775807", "--out", out}, 2, "--workers must be in 0..4096, got 9223372036854775807"},
		{"workers 1e8", []string{"run", "--iters", "100", "--workers", "100000000", "--out", out}, 2, "--workers must be in 0..4096"},
		{"eval-nodes -2", []string{"run", "--eval-nodes", "-2", "--out", out}, 2, "--eval-nodes must be >= -1, got -2"},
		{"graph-file without graph file", []string{"run", "--graph-file", edges, "--out", out}, 2, `--graph-file: is only read when the graph is file, but the graph is "watts-strogatz"`},
		{"gap graph-file without graph file", []string{"gap", "--graph", "cycle", "--graph-file", edges}, 2, `--graph-file: is only read when the graph is file, but the graph is "cycle"`},
	})
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out folder")
	}
}

// TestHostilePaths: an --out or --checkpoint that cannot be written is
// refused before any work, with exit status 2 (issue #15, item 4), and a
// run refused after validation (by its data) leaves no empty --out folder
// (item 11).
func TestHostilePaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,1\n3,x,0\n"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []hostileCase{
		{"--out is a file", []string{"run", "--iters", "10", "--out", file}, 2, "--out " + file + ": is a file, not a directory"},
		{"--out under a file", []string{"run", "--iters", "10", "--out", filepath.Join(file, "sub")}, 2, file + " is a file, not a directory"},
		{"--checkpoint in a missing directory", []string{"run", "--iters", "10", "--out", out, "--checkpoint", filepath.Join(dir, "nodir", "c.ckpt")}, 2, "its directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{"--checkpoint is a directory", []string{"run", "--iters", "10", "--out", out, "--checkpoint", dir}, 2, "--checkpoint " + dir + ": is a directory, not a file"},
		{"refused by its data", []string{"run", "--data", bad, "--out", out}, 2, "bad.csv:2"},
	}
	if runtime.GOOS == "linux" {
		// /proc takes no new file, whoever the user (root included).
		cases = append(cases,
			hostileCase{"--out in /proc", []string{"run", "--iters", "2000000", "--out", "/proc/pairgossip-out"}, 2, "--out /proc/pairgossip-out: cannot write in /proc"},
			hostileCase{"--checkpoint in /proc", []string{"run", "--iters", "10", "--out", out, "--checkpoint", "/proc/c.ckpt"}, 2, "--checkpoint /proc/c.ckpt: cannot write in /proc"})
	}
	// A device, pipe or link to one as an output: refused before any work
	// and left as it was (renaming the written file over /dev/null, as
	// root, replaced it with a regular file).
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeDevice != 0 {
		linkDir := filepath.Join(dir, "linked")
		os.Mkdir(linkDir, 0o755)
		if os.Symlink(os.DevNull, filepath.Join(linkDir, "trace.csv")) == nil {
			cases = append(cases, hostileCase{"--out's trace.csv links to a device", []string{"run", "--iters", "10", "--out", linkDir}, 2,
				"--out's trace.csv: " + filepath.Join(linkDir, "trace.csv") + " (a link to " + os.DevNull + "): is a device, not a regular file"})
		}
		cases = append(cases,
			hostileCase{"--write-edges is a device", []string{"run", "--iters", "10", "--out", out, "--write-edges", os.DevNull}, 2, "--write-edges: " + os.DevNull + ": is a device, not a regular file"},
			hostileCase{"--checkpoint is a device", []string{"run", "--iters", "10", "--out", out, "--checkpoint", os.DevNull}, 2, "--checkpoint: " + os.DevNull + ": is a device, not a regular file"})
	}
	checkHostile(t, cases)
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is now %v", os.DevNull, fi.Mode())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out folder")
	}
	if os.Geteuid() != 0 { // root writes through the permissions
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		checkHostile(t, []hostileCase{
			{"read-only --out", []string{"run", "--iters", "2000000", "--out", ro}, 2, "--out " + ro + ": cannot write in " + ro + ": permission denied"},
			{"read-only --checkpoint", []string{"run", "--iters", "10", "--out", out, "--checkpoint", filepath.Join(ro, "c.ckpt")}, 2, "cannot write in " + ro},
		})
	}
}

// TestCheckpointLockAndStale: a checkpoint file another run holds is
// refused, naming its lock; the temporary file of a killed checkpoint write
// is removed with a warning (issue #15, item 9).
func TestCheckpointLockAndStale(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "c.ckpt")
	lock, err := filelock.Acquire(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	checkHostile(t, []hostileCase{
		{"checkpoint in use", []string{"run", "--iters", "10", "--no-optimum", "--out", filepath.Join(dir, "o1"), "--checkpoint", ckpt}, 2, "--checkpoint: " + ckpt + " is in use by another run"},
		{"resume in use", []string{"run", "--iters", "10", "--no-optimum", "--out", filepath.Join(dir, "o1"), "--resume", ckpt}, 2, "--resume: " + ckpt + " is in use by another run"},
	})
	lock.Unlock()
	stale := filepath.Join(dir, ".c.ckpt.tmp-4242")
	os.WriteFile(stale, make([]byte, 1<<16), 0o644)
	code, _, stderr := runCLI("run", "--iters", "10", "--log-points", "2", "--no-optimum", "--out", filepath.Join(dir, "o2"), "--checkpoint", ckpt)
	if code != 0 || !strings.Contains(stderr, "warning: removed "+stale+", the temporary file of a checkpoint write that was killed") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Errorf("no checkpoint written: %v", err)
	}
	if _, err := os.Stat(filelock.LockPath(ckpt)); err == nil {
		t.Error("the run left its lock file")
	}
}

// TestDivergedCheckpointSays: after a divergence the command names the
// checkpoint as the last good state only when this run wrote one (it did
// so before the first periodic checkpoint was due, pointing at no file or
// at another run's).
func TestDivergedCheckpointSays(t *testing.T) {
	dir := t.TempDir()
	args := func(ckpt string, extra ...string) []string {
		return append([]string{"run", "--problem", "auc-squared-hinge", "--data", "synthetic-auc", "--dim", "5", "--n", "300", "--graph", "complete",
			"--gamma-c", "1e300", "--no-optimum", "--iters", "20000", "--out", filepath.Join(dir, "o-"+filepath.Base(ckpt)), "--checkpoint", ckpt}, extra...)
	}
	none := filepath.Join(dir, "none.ckpt")
	if code, _, stderr := runCLI(args(none)...); code != 1 || !strings.Contains(stderr, "no checkpoint was written before the divergence") || strings.Contains(stderr, "last good state") {
		t.Errorf("no checkpoint due: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(none); err == nil {
		t.Error("a diverged state was saved")
	}
	// Checkpoints due every millisecond: written before the divergence
	// (whether one was is the machine's timing; the message must say
	// which).
	some := filepath.Join(dir, "some.ckpt")
	code, _, stderr := runCLI(args(some, "--checkpoint-every", "1ms")...)
	_, err := os.Stat(some)
	if written := err == nil; code != 1 || written != strings.Contains(stderr, "the last good state is in "+some) ||
		written == strings.Contains(stderr, "no checkpoint was written") {
		t.Errorf("checkpoint written %v: exit %d, %q", written, code, stderr)
	}
}

// TestMeasuredDivergence: a state whose objective overflows at a
// measurement (θ̄ finite, its terms too large), or whose θ̄ is not finite
// there, is a divergence too: status diverged, the iteration and node
// named, the measurement's record last in the trace, and the state not
// saved (it used to end as "failed", blaming the loss, and its checkpoint
// replaced the last good one). Metric learning at a huge step size
// overflows to a NaN objective (Inf − Inf) over a finite θ̄: a divergence
// too, since a built-in loss is finite wherever θ̄ is.
func TestMeasuredDivergence(t *testing.T) {
	dir := t.TempDir()
	auc := func(n, gamma string) []string {
		return []string{"--data", "synthetic-auc", "--dim", "16", "--n", n, "--iters", "3000", "--gamma-c", gamma,
			"--measure", "sampled", "--log-points", "6", "--workers", "2"}
	}
	for _, c := range []struct {
		n    string
		args []string
		want string
	}{
		{"3000", auc("3000", "7e306"), "divergence found by the measurement at iteration 122, node 2213: the objective overflows"},
		{"20000", auc("20000", "7e306"), "divergence found by the measurement at iteration 605, node 1680: theta_bar is not finite"},
		{"metric", []string{"--problem", "metric", "--data", "synthetic-metric", "--n", "200", "--gamma-c", "1e307", "--iters", "3000"},
			"divergence found by the measurement at iteration 3, node 98: the objective overflows"},
	} {
		out, ckpt := filepath.Join(dir, "o"+c.n), filepath.Join(dir, c.n+".ckpt")
		code, _, stderr := runCLI(append(append([]string{"run"}, c.args...), "--no-optimum", "--checkpoint", ckpt, "--out", out)...)
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "no checkpoint was written before the divergence") {
			t.Errorf("n = %s: exit %d, %q", c.n, code, stderr)
		}
		if _, err := os.Stat(ckpt); err == nil {
			t.Errorf("n = %s: the diverged state was saved", c.n)
		}
		raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil || !strings.Contains(string(raw), `"status": "diverged"`) {
			t.Errorf("n = %s: summary.json: %v %.200s", c.n, err, raw)
		}
		tr, _ := os.ReadFile(filepath.Join(out, "trace.csv"))
		lines := strings.Split(strings.TrimSpace(string(tr)), "\n")
		if it := strings.SplitN(lines[len(lines)-1], ",", 2)[0]; !strings.Contains(c.want, "iteration "+it+",") {
			t.Errorf("n = %s: the trace ends at iteration %s", c.n, it)
		}
	}
}

// TestJSONDiverged: --json prints the summary of a run that diverged too,
// with its status and error (issue #15, item 8).
func TestJSONDiverged(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "--problem", "auc-squared-hinge", "--graph", "complete", "--iters", "2000",
		"--gamma-c", "1e300", "--no-optimum", "--json", "--out", out)
	if code != 1 || !divergedRe.MatchString(stderr) || !strings.Contains(stderr, "(reduce --gamma-c?)") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout)
	}
	if sum["status"] != "diverged" || !divergedRe.MatchString(sum["error"].(string)) || !strings.Contains(sum["error"].(string), "--gamma-c") {
		t.Errorf("status %v, error %v", sum["status"], sum["error"])
	}
}

// TestHostileGap: gap refuses graphs over the edge limit for every family
// (not only complete), and those whose edges and eigensolver would not fit
// in memory; the closed forms need no graph (issue #15, item 3).
func TestHostileGap(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 1 << 30 }
	checkHostile(t, []hostileCase{
		{"cycle 1e9", []string{"gap", "--graph", "cycle", "--n", "1000000000"}, 2, "graph: cycle: about 1e+09 edges, more than the limit 268435456"},
		{"star 2e9", []string{"gap", "--graph", "star", "--n", "2000000000"}, 2, "graph: star: about 2e+09 edges, more than the limit"},
		{"path 2e9", []string{"gap", "--graph", "path", "--n", "2000000000"}, 2, "graph: path: about 2e+09 edges"},
		{"torus 2e9", []string{"gap", "--graph", "torus", "--n", "2000000000", "--rows", "40000", "--cols", "50000"}, 2, "graph: torus: about 4e+09 edges"},
		{"n over int32", []string{"gap", "--graph", "cycle", "--n", "3000000000"}, 2, "n must be <= 2147483647"},
		{"watts-strogatz memory", []string{"gap", "--graph", "watts-strogatz", "--n", "10000000"}, 2, "graph watts-strogatz with n = 10000000 needs about 5.59 GiB (edges, adjacency and the eigensolver's work space) but only 1 GiB is available"},
		{"erdos-renyi memory", []string{"gap", "--graph", "erdos-renyi", "--n", "100000", "--p", "0.1"}, 2, "graph erdos-renyi with n = 100000 needs about"},
		{"points per node memory", []string{"gap", "--graph", "cycle", "--n", "100000", "--points-per-node", "20"}, 2, "graph cycle with n = 100000 needs about"},
	})
	// 264 million edges in a closed form: no graph is built (the test's
	// memory limit of 1 GiB would refuse building it).
	code, stdout, stderr := runCLI("gap", "--graph", "complete", "--n", "23000", "--json")
	if code != 0 || !strings.Contains(stdout, `"undirected_edges": 264488500`) || !strings.Contains(stdout, `"method": "closed-form"`) {
		t.Errorf("complete 23000: exit %d, %s%s", code, stdout, stderr)
	}
}

// TestCSVFlags: a CSV file with a header and an id column can be used from
// the command line (--csv-header, --label-name, --drop-columns), and the
// messages name these flags, not Go API fields (issue #15, item 10).
func TestCSVFlags(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "h.csv")
	os.WriteFile(data, []byte("id,label,a,b\n101,yes,1,2\n102,no,3,1\n103,yes,2,5\n104,no,0,1\n"), 0o644)
	numeric := filepath.Join(dir, "numhead.csv")
	os.WriteFile(numeric, []byte("1,2,3\n1,2,0\n3,4,1\n5,1,0\n"), 0o644)
	svm := filepath.Join(dir, "z.svm")
	os.WriteFile(svm, []byte("1 1:1\n-1 5:1\n"), 0o644)
	out := filepath.Join(dir, "out")
	run := func(extra ...string) (int, string) {
		code, _, stderr := runCLI(append([]string{"run", "--data", data, "--graph", "complete", "--iters", "20", "--log-points", "2", "--no-optimum", "--out", out}, extra...)...)
		return code, stderr
	}
	if code, stderr := run("--label-name", "label", "--drop-columns", "id"); code != 0 {
		t.Fatalf("header with names: exit %d: %s", code, stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	var sum struct {
		Config map[string]any     `json:"config"`
		Data   struct{ N, D int } `json:"data"`
	}
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Data.N != 4 || sum.Data.D != 2 || sum.Config["label_name"] != "label" || sum.Config["drop_columns"] != "id" {
		t.Errorf("summary %+v", sum)
	}
	if code, stderr := run("--label-column", "2", "--drop-columns", "1", "--csv-header", "present"); code != 0 {
		t.Fatalf("by numbers: exit %d: %s", code, stderr)
	}
	checkHostile(t, []hostileCase{
		{"label name not in header", []string{"run", "--data", data, "--label-name", "y", "--out", out}, 2, `--label-name: no column "y" in the header (id, label, a, b)`},
		{"drop name not in header", []string{"run", "--data", data, "--label-name", "label", "--drop-columns", "ID", "--out", out}, 2, `--drop-columns: no column "ID" in the header`},
		{"names without a header", []string{"run", "--data", data, "--label-name", "label", "--csv-header", "absent", "--out", out}, 2, "need a header line, but --csv-header is absent"},
		{"both label flags", []string{"run", "--data", data, "--label-name", "label", "--label-column", "2", "--out", out}, 2, `--label-name "label" and --label-column 2 both name the label column`},
		{"header not detected", []string{"run", "--data", writeFile(t, dir, "h2.csv", "f1,0,label\n1,2,1\n3,4,0\n"), "--out", out}, 2, "h2.csv:1: column 1: cannot parse \"f1\" as a number (if line 1 is a header, give --csv-header present"},
		{"label column out of range", []string{"run", "--data", numeric, "--label-column", "9", "--out", out}, 2, "--label-column 9 is out of range: the line has 3 fields"},
		{"drop the label", []string{"run", "--data", numeric, "--drop-columns", "3", "--out", out}, 2, "--drop-columns: column 3 is the label column"},
		{"drop column 0", []string{"run", "--data", numeric, "--drop-columns", "0", "--out", out}, 2, "--drop-columns: column 0: columns are numbered from 1"},
		{"drop list with a hole", []string{"run", "--data", numeric, "--drop-columns", "1,,2", "--out", out}, 2, "--drop-columns: an empty entry"},
		{"bad header mode", []string{"run", "--data", numeric, "--csv-header", "yes", "--out", out}, 2, `--csv-header: unknown CSV header mode "yes" (valid: present, absent)`},
		{"libsvm dimension", []string{"run", "--data", svm, "--libsvm-dim", "3", "--out", out}, 2, "exceeds the dimension 3 given by --libsvm-dim"},
		{"Go syntax in CSV", []string{"run", "--data", writeFile(t, dir, "go.csv", "1,2,1\n1_000,3,0\n"), "--out", out}, 2, `go.csv:2: column 1: cannot parse "1_000" as a number (ordinary decimal numbers only`},
		{"hex float in CSV", []string{"run", "--data", writeFile(t, dir, "hex.csv", "1,2,1\n0x1p3,3,0\n"), "--out", out}, 2, `hex.csv:2: column 1: cannot parse "0x1p3" as a number`},
	})
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHugeValuesFiniteSpreads: with objectives near 1e196 (every node's
// value finite), objective_std and consensus are finite numbers in
// summary.json and trace.csv, not null and +Inf (issue #15, item 8).
func TestHugeValuesFiniteSpreads(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "--gamma-c", "1e200", "--problem", "auc-hinge", "--iters", "2000", "--no-optimum", "--json", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"objective_mean", "objective_std", "consensus"} {
		if v, ok := sum[k].(float64); !ok || v < 1e100 {
			t.Errorf("%s = %v, want a finite huge number", k, sum[k])
		}
	}
	raw, _ := os.ReadFile(filepath.Join(out, "trace.csv"))
	if strings.Contains(string(raw), "Inf") || strings.Contains(string(raw), "NaN") {
		t.Errorf("trace.csv has non-finite values:\n%s", raw)
	}
}

// TestFlagsThatDoNotApply: one rule for every parameter with a condition:
// a flag given where it does not apply is refused, saying why, before any
// work and writing nothing — as --n with breast-cancer and --graph-file
// without --graph file always were; a flag given its default is not.
func TestFlagsThatDoNotApply(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "never")
	checkHostile(t, []hostileCase{
		{"rows with watts-strogatz", []string{"run", "--rows", "3", "--out", out}, 2, `--rows: does not apply: it applies to the graph grid or torus, but the graph is "watts-strogatz"`},
		{"cols with cycle", []string{"run", "--graph", "cycle", "--cols", "3", "--out", out}, 2, `--cols: does not apply: it applies to the graph grid or torus, but the graph is "cycle"`},
		{"k with cycle", []string{"run", "--graph", "cycle", "--k", "4", "--out", out}, 2, `--k: does not apply: it applies to the graph watts-strogatz, but the graph is "cycle"`},
		{"p with grid", []string{"run", "--graph", "grid", "--p", "0.5", "--out", out}, 2, `--p: does not apply: it applies to the graph watts-strogatz or erdos-renyi, but the graph is "grid"`},
		{"graph-radius with complete", []string{"run", "--graph", "complete", "--graph-radius", "0.2", "--out", out}, 2, `--graph-radius: does not apply: it applies to the graph geometric`},
		{"gap rows with cycle", []string{"gap", "--graph", "cycle", "--rows", "3"}, 2, `--rows: does not apply: it applies to the graph grid or torus, but the graph is "cycle"`},
		{"n with breast-cancer", []string{"run", "--n", "100", "--out", out}, 2, `--n: does not apply: it sizes synthetic-auc and synthetic-metric, but the data is "breast-cancer", which has its own size`},
		{"dim with synthetic", []string{"run", "--data", "synthetic", "--problem", "metric", "--dim", "4", "--out", out}, 2, `--dim: does not apply: it sizes synthetic-auc and synthetic-metric, but the data is "synthetic", the paper's set as published`},
		{"classes with synthetic-auc", []string{"run", "--data", "synthetic-auc", "--classes", "3", "--out", out}, 2, `--classes: does not apply: synthetic-auc has 2 classes, got 3 (synthetic-metric takes more)`},
		{"lambda without l2 or l1", []string{"run", "--lambda", "0.1", "--out", out}, 2, `--lambda: does not apply: it applies to the regulariser l2 or l1, but the regulariser is none`},
		{"ball-radius without l2-ball", []string{"run", "--reg", "l2", "--ball-radius", "2", "--out", out}, 2, `--ball-radius: does not apply: it applies to the regulariser l2-ball, but the regulariser is l2`},
		{"b with auc", []string{"run", "--b", "3", "--out", out}, 2, `--b: does not apply: it is the metric-learning threshold, but the problem is auc`},
		{"label-column with breast-cancer", []string{"run", "--label-column", "2", "--out", out}, 2, `--label-column: does not apply: it applies to a CSV data file, but the data is the built-in "breast-cancer"`},
		{"labels-file with breast-cancer", []string{"run", "--labels-file", "hostile_test.go", "--out", out}, 2, `--labels-file: does not apply: it applies to a NumPy .npy data file`},
	})
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out folder")
	}
	// Defaults given explicitly (as a sweep file may) are not refused.
	if code, _, stderr := runCLI("gap", "--graph", "cycle", "--k", "5", "--p", "0.3", "--rows", "0", "--n", "10"); code != 0 {
		t.Errorf("defaults given explicitly: exit %d, %s", code, stderr)
	}
}
