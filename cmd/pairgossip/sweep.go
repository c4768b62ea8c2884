package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/sweep"
)

const sweepUsage = `pairgossip sweep: parameter sweeps, run on this machine or as a SLURM job array;
results in an embedded SQLite database.

Usage:
  pairgossip sweep plan FILE [--json]         the number of runs and each run's id
  pairgossip sweep run FILE --results DB      run every run not yet done, several at a time
  pairgossip sweep slurm FILE --results-dir DIR [--partition P --time HH:MM:SS --cpus-per-task C]
                                              write DIR/sweep.sbatch, a job array (a task per chunk)
  pairgossip sweep run FILE --task-id T --tasks N --results-dir DIR
                                              what each array task runs: its chunk into DIR/task-T.db
  pairgossip sweep merge DIR|DB... --results DB   merge task databases into one (idempotent)
  pairgossip sweep status --results DB [--json]   total, complete, diverged, failed, pending
  pairgossip sweep report DB --out DIR [--metric M] [--x KEY]
                                              CSV and HTML table (mean ± std over seeds), plots
  pairgossip sweep diff DB1 DB2               compare results exactly; exit 1 on any difference
  pairgossip sweep COMMAND --help             the flags of a command

The sweep file (YAML):

  name: small                  # optional; default: the file's name
  base:                        # fixed keys (defaults: those of pairgossip run)
    problem: auc
    data: breast-cancer
    iters: 1000
  axes:                        # runs = cartesian product; first axis slowest, last fastest
    graph: [complete, watts-strogatz, cycle]   # a list of values
    algorithm: [sync, async]
    seed: {range: [1, 4]}                      # integers lo..hi inclusive ([lo, hi, step])
    gamma_c: {logspace: [0.01, 1, 5]}          # 5 values from 0.01 to 1, evenly in log
    graph_p: {linspace: [0.1, 0.5, 3]}         # 0.1, 0.3, 0.5
    regulariser:                               # a list of mappings sets several keys at once
      - {reg: none}                            # (such an axis may have any name)
      - {reg: l2, lambda: 0.01}
  optimum: true                # solve R_n(θ*) once per distinct problem (default true)

Keys (the JSON names of summary.json's config): ` + "%s" + `.
Relative data and graph_file paths are relative to the sweep file. A run's id is the
first 16 hex digits of SHA-256 of its full configuration's JSON. Unknown keys, empty
axes and values of the wrong type are rejected with FILE:LINE. Statuses: complete,
diverged (a result; not retried), failed (an error; retried by the next sweep run).
Reference: docs/sweeps.md.
`

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, sweepUsage, strings.Join(sweep.KeyNames(), ", "))
		return usagef("missing command (plan, run, slurm, merge, status, report, diff)")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "plan":
		return sweepPlan(rest, stdout, stderr)
	case "run":
		return sweepRun(rest, stdout, stderr)
	case "slurm":
		return sweepSlurm(rest, stdout, stderr)
	case "merge":
		return sweepMerge(rest, stdout, stderr)
	case "status":
		return sweepStatus(rest, stdout, stderr)
	case "report":
		return sweepReport(rest, stdout, stderr)
	case "diff":
		return sweepDiff(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			return cmdSweep([]string{rest[0], "--help"}, stdout, stderr)
		}
		fmt.Fprintf(stdout, sweepUsage, strings.Join(sweep.KeyNames(), ", "))
		return nil
	}
	return usagef("unknown sweep command %q (valid: plan, run, slurm, merge, status, report, diff)", sub)
}

// sweepParseArgs parses flags that may come before or after the positional
// arguments, and checks their number is in [lo, hi] (hi < 0: no limit).
func sweepParseArgs(fs *flag.FlagSet, args []string, lo, hi int, what string) ([]string, error) {
	var pos []string
	for {
		if err := cli.ParseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < lo {
		return nil, usagef("missing %s", what)
	}
	if hi >= 0 && len(pos) > hi {
		return nil, usagef("unexpected argument %q", pos[hi])
	}
	return pos, nil
}

func loadSweep(path string) (*sweep.Sweep, error) {
	sw, err := sweep.Load(path)
	if err != nil {
		return nil, usageError{Err: err} // a bad or missing sweep file
	}
	return sw, nil
}

func sweepAxesSummary(sw *sweep.Sweep) string {
	if len(sw.Axes) == 0 {
		return "no axes"
	}
	var parts []string
	for _, a := range sw.Axes {
		parts = append(parts, fmt.Sprintf("%s %d", a.Name, len(a.Values)))
	}
	return strings.Join(parts, " × ")
}

func sweepPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep plan", "pairgossip sweep plan FILE: the number of runs of a sweep file and each run's stable id\n"+
		"(the first 16 hex digits of SHA-256 of the run's configuration JSON), in the sweep's order.", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object: name, runs, plan_hash, axes, and each run's index, id, axis values and config")
	check := fs.Bool("check", false, "also prepare every run (load data, build graph) and report the first that fails")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep plan FILE)")
	if err != nil {
		return err
	}
	sw, err := loadSweep(pos[0])
	if err != nil {
		return err
	}
	if *check {
		for _, r := range sw.Runs {
			cfg := sw.Resolved(r.Config)
			cfg.Workers, cfg.SkipOptimum = 1, true
			run, err := pairgossip.Prepare(cfg)
			if err != nil {
				return usagef("run %d (%s, id %s): %v", r.Index, strings.Join(r.Labels, " "), r.ID, err)
			}
			run.Close()
		}
	}
	if *asJSON {
		type axis struct {
			Name   string   `json:"name"`
			Keys   []string `json:"keys"`
			Values []string `json:"values"`
		}
		type run struct {
			Index  int               `json:"index"`
			ID     string            `json:"id"`
			Axes   json.RawMessage   `json:"axes"`
			Config pairgossip.Config `json:"config"`
		}
		out := struct {
			Name     string `json:"name"`
			File     string `json:"file"`
			Runs     int    `json:"runs"`
			PlanHash string `json:"plan_hash"`
			Axes     []axis `json:"axes"`
			Plan     []run  `json:"plan"`
		}{Name: sw.Name, File: sw.File, Runs: len(sw.Runs), PlanHash: sw.PlanHash(), Axes: []axis{}, Plan: []run{}}
		for _, a := range sw.Axes {
			ax := axis{Name: a.Name, Keys: a.Keys}
			for _, v := range a.Values {
				ax.Values = append(ax.Values, v.Label)
			}
			out.Axes = append(out.Axes, ax)
		}
		for _, r := range sw.Runs {
			out.Plan = append(out.Plan, run{r.Index, r.ID, json.RawMessage(sw.LabelsJSON(r)), r.Config})
		}
		_, err := stdout.Write(pairgossip.JSON(out))
		return err
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs (%s), plan %s\n", sw.Name, len(sw.Runs), sweepAxesSummary(sw), sw.PlanHash())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "index\tid\t%s\n", strings.Join(sw.AxisNames(), "\t"))
	for _, r := range sw.Runs {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", r.Index, r.ID, strings.Join(r.Labels, "\t"))
	}
	return tw.Flush()
}

func sweepIsTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return true
		}
	}
	return false
}

func sweepDur(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

func sweepRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep run", "pairgossip sweep run FILE --results DB: run every run of the sweep that DB does not hold as\n"+
		"complete or diverged, several at a time, each written with its trace in one transaction when it\n"+
		"ends (a sweep killed at any moment and started again runs every run exactly once).\n\n"+
		"pairgossip sweep run FILE --task-id T --tasks N --results-dir DIR: run only the T-th of N contiguous\n"+
		"chunks of the runs, into DIR/task-T.db (what the script of pairgossip sweep slurm runs).", stderr)
	results := fs.String("results", "", "results database (SQLite; created if missing)")
	resultsDir := fs.String("results-dir", "", "folder of per-task databases (with --task-id and --tasks)")
	taskID := fs.Int("task-id", -1, "this task's index in [0, --tasks) (SLURM: $SLURM_ARRAY_TASK_ID)")
	tasks := fs.Int("tasks", 0, "number of tasks the runs are split into")
	cores := fs.Int("cores", 0, "cores to keep busy (0: all available)")
	jobs := fs.Int("jobs", 0, "at most this many runs at once (0: as many as the cores allow)")
	workers := fs.Int("workers", 0, "workers per run (0: chosen from the run's size: 1 for small runs,\nmore for large synchronous ones); results do not depend on it")
	rerun := fs.Bool("rerun-failed", true, "run again the runs whose last attempt failed")
	planHash := fs.String("plan-hash", "", "refuse to run unless the sweep's plan hash is this (set by the SLURM script,\nso that an edited sweep file is not run by an old job)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep run FILE --results DB)")
	if err != nil {
		return err
	}
	var dbPath string
	switch {
	case *results != "" && *resultsDir != "":
		return usagef("give --results DB or --results-dir DIR (with --task-id and --tasks), not both")
	case *results != "":
		if *taskID >= 0 || *tasks != 0 {
			return usagef("--task-id and --tasks go with --results-dir DIR (each task writes its own database)")
		}
		dbPath = *results
	case *resultsDir != "":
		if *tasks < 1 {
			return usagef("--results-dir needs --tasks N >= 1 and --task-id T")
		}
		if *taskID < 0 || *taskID >= *tasks {
			return usagef("--task-id must be in [0, %d), got %d", *tasks, *taskID)
		}
		dbPath = sweep.TaskDB(*resultsDir, *taskID)
	default:
		return usagef("--results DB is required (or --results-dir DIR with --task-id and --tasks)")
	}
	if *cores < 0 || *jobs < 0 || *workers < 0 {
		return usagef("--cores, --jobs and --workers must be >= 0")
	}
	sw, err := loadSweep(pos[0])
	if err != nil {
		return err
	}
	if *planHash != "" && *planHash != sw.PlanHash() {
		return usagef("%s has changed since the job script was written (plan %s, script expects %s); write the script again with pairgossip sweep slurm",
			sw.File, sw.PlanHash(), *planHash)
	}
	runs := sw.Runs
	if *tasks > 0 {
		runs = sweep.Share(runs, *taskID, *tasks)
	}
	st, err := sweep.Open(dbPath)
	if err != nil {
		return err
	}
	defer st.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	term := sweepIsTerminal(stderr) && !*quiet
	opt := sweep.Options{Cores: *cores, Jobs: *jobs, Workers: *workers, RerunFailed: *rerun}
	// On a terminal: one status line, redrawn at each event and every second.
	var (
		pmu     sync.Mutex
		last    *sweep.Event
		t0      = time.Now()
		started bool
	)
	draw := func() {
		e := *last
		e.Elapsed = time.Since(t0)
		eta := "?"
		if d, ok := e.ETA(); ok {
			eta = sweepDur(d)
		}
		fmt.Fprintf(stderr, "\r[%d/%d] %3.0f%%  running %d  elapsed %s  ETA %s    ", e.Done, e.Todo,
			100*e.WorkDone/max(e.WorkTodo, 1), e.Running, sweepDur(e.Elapsed), eta)
	}
	if term {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		stopTick := make(chan struct{})
		defer close(stopTick)
		go func() {
			for {
				select {
				case <-tick.C:
					pmu.Lock()
					if last != nil {
						draw()
					}
					pmu.Unlock()
				case <-stopTick:
					return
				}
			}
		}()
	}
	opt.OnEvent = func(e sweep.Event) {
		if *quiet {
			return
		}
		if term {
			pmu.Lock()
			defer pmu.Unlock()
			started = true
			last = &e
			draw()
			return
		}
		if e.Start {
			return
		}
		o := e.Outcome
		msg := o.Status
		if o.Error != "" {
			msg += ": " + o.Error
		}
		fmt.Fprintf(stderr, "[%d/%d] run %d %s (%s): %s, %s\n", e.Done, e.Todo, e.Run.Index, e.Run.ID,
			strings.Join(e.Run.Labels, " "), msg, sweepDur(o.Wall))
	}
	// Count what is already done, for the opening line.
	statuses, err := st.Statuses()
	if err != nil {
		return fmt.Errorf("%s: %w", dbPath, err)
	}
	already := 0
	for _, r := range runs {
		if s, ok := statuses[r.ID]; ok && (sweep.Done(s) || !*rerun) {
			already++
		}
	}
	share := ""
	if *tasks > 0 {
		share = fmt.Sprintf(" (task %d of %d: runs %d..%d)", *taskID, *tasks, sweepFirstIndex(runs), sweepFirstIndex(runs)+len(runs)-1)
	}
	if !*quiet {
		c := *cores
		if c == 0 {
			c = sweepDefaultCores()
		}
		fmt.Fprintf(stderr, "sweep %s: %d runs%s, %d already done, %d to run on %d cores; results in %s\n",
			sw.Name, len(runs), share, already, len(runs)-already, c, dbPath)
	}
	rep, err := sweep.Execute(ctx, sw, runs, st, opt)
	pmu.Lock()
	if term && started {
		draw()
		fmt.Fprintln(stderr)
		last = nil
	}
	pmu.Unlock()
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			fmt.Fprintf(stderr, "%d runs finished and saved; run the same command again to finish the others\n", rep.Ran)
			return context.Canceled
		}
		return err
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs%s: %d run now (%d complete, %d diverged, %d failed) in %s, %d already done; results in %s\n",
		sw.Name, len(runs), share, rep.Ran, rep.Complete, rep.Diverged, rep.Failed, sweepDur(rep.Elapsed), rep.Skipped, dbPath)
	if rep.Failed > 0 {
		return fmt.Errorf("%d runs failed (their errors: pairgossip sweep status --results %s --failed)", rep.Failed, dbPath)
	}
	return nil
}

func sweepFirstIndex(runs []sweep.Run) int {
	if len(runs) == 0 {
		return 0
	}
	return runs[0].Index
}

func sweepDefaultCores() int {
	return max(1, runtime.GOMAXPROCS(0))
}

func sweepSlurm(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep slurm", "pairgossip sweep slurm FILE --results-dir DIR: write DIR/sweep.sbatch, a SLURM job array whose\n"+
		"task T runs the T-th contiguous chunk of the runs into DIR/task-T.db (one database per task: no\n"+
		"shared-file locking on network file systems). Submit it with sbatch, then merge:\n"+
		"  pairgossip sweep merge DIR --results DIR/results.db\n"+
		"The script names this binary and the sweep file by absolute path, and checks the plan hash.", stderr)
	resultsDir := fs.String("results-dir", "", "folder for the task databases, logs and the script [required]")
	partition := fs.String("partition", "", "SLURM partition (default: the cluster's default)")
	tlimit := fs.String("time", "01:00:00", "time limit of each task, HH:MM:SS or D-HH:MM:SS")
	cpus := fs.Int("cpus-per-task", 1, "CPUs per task; the task keeps them busy with several runs at once")
	tasks := fs.Int("tasks", 0, "number of array tasks (0: from --runs-per-task, else one per run up to 100)")
	perTask := fs.Int("runs-per-task", 0, "runs per array task (alternative to --tasks)")
	mem := fs.String("mem", "", "memory per task, e.g. 4G (default: the cluster's default)")
	binary := fs.String("binary", "", "path of the pairgossip binary the job runs (default: this one)")
	script := fs.String("script", "", "where to write the script (default: DIR/sweep.sbatch)")
	var extra sweepMultiFlag
	fs.Var(&extra, "sbatch", "an extra sbatch option, e.g. --sbatch=--account=proj (repeatable)")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep slurm FILE --results-dir DIR)")
	if err != nil {
		return err
	}
	if *resultsDir == "" {
		return usagef("--results-dir DIR is required")
	}
	if !sweep.ValidTime(*tlimit) {
		return usagef("--time must be HH:MM:SS or D-HH:MM:SS, got %q", *tlimit)
	}
	if *cpus < 1 {
		return usagef("--cpus-per-task must be >= 1, got %d", *cpus)
	}
	if *tasks < 0 || *perTask < 0 || (*tasks > 0 && *perTask > 0) {
		return usagef("give --tasks N or --runs-per-task K (>= 1), not both")
	}
	for _, s := range []string{*partition, *mem} {
		if strings.ContainsAny(s, " \t\n'\"") {
			return usagef("bad value %q: no spaces or quotes", s)
		}
	}
	sw, err := loadSweep(pos[0])
	if err != nil {
		return err
	}
	n := *tasks
	if n == 0 {
		n = sweep.Tasks(len(sw.Runs), *perTask, 100)
	}
	n = min(n, len(sw.Runs))
	abs := func(p string) (string, error) {
		a, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		return a, nil
	}
	dir, err := abs(*resultsDir)
	if err != nil {
		return err
	}
	if strings.ContainsAny(dir, " \t\n") {
		return usagef("--results-dir: SLURM's #SBATCH --output cannot take a path with spaces: %q", dir)
	}
	file, err := abs(pos[0])
	if err != nil {
		return err
	}
	bin := *binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return err
		}
		if r, err := filepath.EvalSymlinks(bin); err == nil {
			bin = r
		}
	}
	if bin, err = abs(bin); err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return usagef("--binary: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	text := sweep.SlurmScript(sweep.SlurmOptions{Binary: bin, SweepFile: file, WorkDir: wd, ResultsDir: dir, Tasks: n,
		Partition: *partition, Time: *tlimit, CPUsPerTask: *cpus, Mem: *mem, Extra: extra, PlanHash: sw.PlanHash(),
		Runs: len(sw.Runs), Name: sw.Name})
	path := *script
	if path == "" {
		path = filepath.Join(dir, "sweep.sbatch")
	}
	if err := atomicfile.WriteBytes(path, []byte(text)); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o755); err != nil {
		return err
	}
	each := fmt.Sprint(len(sw.Runs) / n)
	if len(sw.Runs)%n != 0 {
		each = fmt.Sprintf("%d–%d", len(sw.Runs)/n, len(sw.Runs)/n+1)
	}
	fmt.Fprintf(stdout, "wrote %s: %d runs in %d array tasks (%s runs and %d CPU(s) each)\n", path, len(sw.Runs), n, each, *cpus)
	fmt.Fprintf(stdout, "submit:  sbatch %s\nthen:    %s sweep merge %s --results %s\n", path, bin, dir, filepath.Join(dir, "results.db"))
	return nil
}

type sweepMultiFlag []string

func (m *sweepMultiFlag) String() string     { return strings.Join(*m, " ") }
func (m *sweepMultiFlag) Set(s string) error { *m = append(*m, s); return nil }

func sweepMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep merge", "pairgossip sweep merge DIR|DB... --results DB: copy the runs of the task databases DIR/task-*.db\n"+
		"(or of the databases named) into DB, one transaction per source. A run is copied when DB lacks it\n"+
		"or holds only a failed attempt; merging again changes nothing.", stderr)
	results := fs.String("results", "", "destination database (created if missing) [required]")
	pos, err := sweepParseArgs(fs, args, 1, -1, "folder or database to merge (pairgossip sweep merge DIR --results DB)")
	if err != nil {
		return err
	}
	if *results == "" {
		return usagef("--results DB is required")
	}
	var srcs []string
	for _, p := range pos {
		fi, err := os.Stat(p)
		if err != nil {
			return usageError{Err: err}
		}
		if fi.IsDir() {
			m, err := sweep.TaskDBs(p)
			if err != nil {
				return err
			}
			if len(m) == 0 {
				return usagef("%s: no task-*.db files", p)
			}
			srcs = append(srcs, m...)
		} else {
			srcs = append(srcs, p)
		}
	}
	st, err := sweep.Open(*results)
	if err != nil {
		return err
	}
	defer st.Close()
	var added, present, conflicts int
	for _, src := range srcs {
		ms, err := st.Merge(context.Background(), src)
		if err != nil {
			return err
		}
		added += ms.Added
		present += ms.Present
		conflicts += ms.Conflicts
		fmt.Fprintf(stdout, "%s: %d runs added, %d already present\n", src, ms.Added, ms.Present)
		if ms.Conflicts > 0 {
			fmt.Fprintf(stderr, "warning: %s: %d runs differ from the copy already in %s (kept the existing one)\n", src, ms.Conflicts, *results)
		}
	}
	s, err := sweep.StatusOf([]*sweep.Store{st}, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d databases into %s: %d runs added, %d already present; %s\n", len(srcs), *results, added, present, sweepStatusLine(s))
	return nil
}

func sweepStatusLine(s sweep.Status) string {
	return fmt.Sprintf("%d runs: %d complete, %d diverged, %d failed, %d pending", s.Total, s.Complete, s.Diverged, s.Failed, s.Pending)
}

func sweepStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep status", "pairgossip sweep status [FILE] --results DB: count the runs planned in DB (or in FILE, when\n"+
		"given), and those complete, diverged, failed and pending.", stderr)
	results := fs.String("results", "", "results database")
	resultsDir := fs.String("results-dir", "", "a folder of task databases (task-*.db), counted together")
	asJSON := fs.Bool("json", false, "print one JSON object: total, complete, diverged, failed, pending, done, wall_seconds")
	failed := fs.Bool("failed", false, "also list the failed runs with their errors")
	pos, err := sweepParseArgs(fs, args, 0, 1, "")
	if err != nil {
		return err
	}
	var paths []string
	switch {
	case *results != "" && *resultsDir != "":
		return usagef("give --results DB or --results-dir DIR, not both")
	case *results != "":
		paths = []string{*results}
	case *resultsDir != "":
		if paths, err = sweep.TaskDBs(*resultsDir); err != nil {
			return err
		}
	default:
		return usagef("--results DB is required")
	}
	var only []string
	if len(pos) == 1 {
		sw, err := loadSweep(pos[0])
		if err != nil {
			return err
		}
		only = []string{}
		for _, r := range sw.Runs {
			only = append(only, r.ID)
		}
	}
	var stores []*sweep.Store
	for _, p := range paths {
		st, err := sweep.OpenExisting(p)
		if err != nil {
			return usageError{Err: err}
		}
		defer st.Close()
		stores = append(stores, st)
	}
	s, err := sweep.StatusOf(stores, only)
	if err != nil {
		return err
	}
	if *asJSON {
		_, err := stdout.Write(pairgossip.JSON(s))
		return err
	}
	fmt.Fprintln(stdout, sweepStatusLine(s))
	if *failed {
		for _, st := range stores {
			errs, err := st.RunErrors()
			if err != nil {
				return fmt.Errorf("%s: %w", st.Path, err)
			}
			for _, e := range errs {
				if e.Status == sweep.StatusFailed {
					fmt.Fprintf(stdout, "failed %s: %s\n", e.ID, e.Error)
				}
			}
		}
	}
	return nil
}

func sweepReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep report", "pairgossip sweep report DB --out DIR: a table of final metrics per configuration, aggregated\n"+
		"over seeds (mean ± sample std, complete runs only), as DIR/summary.csv and DIR/summary.html, and\n"+
		"plots DIR/METRIC-vs-X.png and .svg of a metric against a swept key, one line per combination of\n"+
		"the other swept keys. Metrics: "+strings.Join(sweep.ReportMetrics, ", ")+".", stderr)
	out := fs.String("out", "", "output folder [required]")
	metric := fs.String("metric", "objective_mean", "metric(s) to plot, comma-separated")
	x := fs.String("x", "", "swept key on the x axis (default: the first swept key that is not aggregated)")
	over := fs.String("over", "seed", "keys aggregated over, comma-separated")
	pos, err := sweepParseArgs(fs, args, 1, 1, "results database (pairgossip sweep report DB --out DIR)")
	if err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required")
	}
	st, err := sweep.OpenExisting(pos[0])
	if err != nil {
		return usageError{Err: err}
	}
	defer st.Close()
	rep, err := sweep.LoadReport(st, sweep.ReportOptions{Over: sweepSplitList(*over), Metrics: sweepSplitList(*metric), X: *x})
	if err != nil {
		return usageError{Err: err}
	}
	if err := rep.Write(*out, "pairgossip sweep report: "+filepath.Base(pos[0])); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d configurations (%s; aggregated over %s)\n", len(rep.Groups), strings.Join(rep.Keys, ", "), strings.Join(rep.Over, ", "))
	for _, p := range append([]string{filepath.Join(*out, "summary.csv"), filepath.Join(*out, "summary.html")}, rep.Plots...) {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return nil
}

func sweepSplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sweepDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep diff", "pairgossip sweep diff DB1 DB2: compare two results databases: the same runs with the same\n"+
		"status, final metrics and trace rows, compared exactly (wall times aside). Exit status 1 on any\n"+
		"difference.", stderr)
	maxLines := fs.Int("max", 20, "print at most this many differences (0: all)")
	pos, err := sweepParseArgs(fs, args, 2, 2, "two results databases (pairgossip sweep diff DB1 DB2)")
	if err != nil {
		return err
	}
	var stores [2]*sweep.Store
	for i, p := range pos {
		st, err := sweep.OpenExisting(p)
		if err != nil {
			return usageError{Err: err}
		}
		defer st.Close()
		stores[i] = st
	}
	lines, n, err := sweep.Diff(stores[0], stores[1], *maxLines)
	if err != nil {
		return err
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if n > 0 {
		return fmt.Errorf("%d differences between %s and %s", n, pos[0], pos[1])
	}
	s, err := sweep.StatusOf(stores[:1], nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "identical results (%d runs in %s)\n", s.Complete+s.Diverged+s.Failed, pos[0])
	return nil
}
