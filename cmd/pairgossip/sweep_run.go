package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/internal/progress"
	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep run FILE --results DB: run the runs not yet done.

// sweepRunArgs are the flags of sweep run.
type sweepRunArgs struct {
	file, dbPath, planHash string
	taskID, tasks          int
	cores, jobs, workers   int
	rerun, quiet           bool
	results, resultsDir    string
}

func sweepRun(args []string, stdout, stderr io.Writer) error {
	a, err := parseSweepRunArgs(args, stderr)
	if err != nil {
		return err
	}
	sw, err := loadSweep(a.file, stderr)
	if err != nil {
		return err
	}
	if a.planHash != "" && a.planHash != sw.PlanHash() {
		return usagef("%s has changed since the job script was written (plan %s, script expects %s); write the script again with pairgossip sweep slurm",
			sw.File, sw.PlanHash(), a.planHash)
	}
	runs := sw.Runs
	share := ""
	if a.tasks > 0 {
		runs = sweep.Share(runs, a.taskID, a.tasks)
		first := 0
		if len(runs) > 0 {
			first = runs[0].Index
		}
		share = fmt.Sprintf(" (task %d of %d: runs %d..%d)", a.taskID, a.tasks, first, first+len(runs)-1)
	}
	st, err := sweep.Open(a.dbPath)
	if err != nil {
		return usageError{Err: err} // a bad, corrupt or unwritable database
	}
	defer st.Close()
	if !a.quiet {
		if err := sweepRunOpening(stderr, sw, runs, st, a, share); err != nil {
			return err
		}
	}

	ctx, stop := notifyContext(context.Background())
	defer stop()
	prog := newSweepProgress(stderr, a.quiet)
	waited := false
	onWait := func(held int) {
		if !a.quiet && !waited {
			prog.note(fmt.Sprintf("waiting for %d runs that another sweep run on %s is running (its runs are taken over if it stops)", held, a.dbPath))
		}
		waited = true
	}
	rep, err := sweep.Execute(ctx, sw, runs, st, sweep.Options{Cores: a.cores, Jobs: a.jobs, Workers: a.workers,
		RerunFailed: a.rerun, OnEvent: prog.event, OnWait: onWait})
	prog.close()
	if prog.warned > 0 {
		// Even with --quiet: a warning says a result may be other than it
		// looks (a bipartite graph, a lost precision).
		fmt.Fprintf(stderr, "warning: %d of the runs ended with warnings (pairgossip sweep status --results %s --warnings lists them)\n", prog.warned, a.dbPath)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			fmt.Fprintf(stderr, "%d runs finished and saved; run the same command again to finish the others\n", rep.Ran)
			return context.Canceled
		}
		return err
	}
	others := ""
	if rep.Others > 0 {
		others = fmt.Sprintf(", %d run meanwhile by another sweep run", rep.Others)
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs%s: %d run now (%d complete, %d diverged, %d failed) in %s, %d already done%s; results in %s\n",
		sw.Name, len(runs), share, rep.Ran, rep.Complete, rep.Diverged, rep.Failed, sweepDur(rep.Elapsed), rep.Skipped, others, a.dbPath)
	if rep.Failed > 0 {
		return fmt.Errorf("%d runs failed (their errors: pairgossip sweep status --results %s --failed)", rep.Failed, a.dbPath)
	}
	return nil
}

func parseSweepRunArgs(args []string, stderr io.Writer) (*sweepRunArgs, error) {
	fs := newFlagSet("sweep run", "pairgossip sweep run FILE --results DB: run every run of the sweep that DB does not hold as\n"+
		"complete or diverged, several at a time, each written with its trace in one transaction when it\n"+
		"ends (a sweep killed at any moment and started again runs every run exactly once).\n\n"+
		"pairgossip sweep run FILE --task-id T --tasks N --results-dir DIR: run only the T-th of N contiguous\n"+
		"chunks of the runs, into DIR/task-T.db (what the script of pairgossip sweep slurm runs).", stderr)
	var a sweepRunArgs
	fs.StringVar(&a.results, "results", "", "results database (SQLite; created if missing)")
	fs.StringVar(&a.resultsDir, "results-dir", "", "folder of per-task databases (with --task-id and --tasks)")
	cli.IntVar(fs, &a.taskID, "task-id", -1, "this task's index in [0, --tasks) (SLURM: $SLURM_ARRAY_TASK_ID)")
	cli.IntVar(fs, &a.tasks, "tasks", 0, "number of tasks the runs are split into")
	cli.IntVar(fs, &a.cores, "cores", 0, "cores to keep busy (0: all available)")
	cli.IntVar(fs, &a.jobs, "jobs", 0, "at most this many runs at once (0: as many as the cores allow)")
	cli.IntVar(fs, &a.workers, "workers", 0, "workers per run (0: chosen from the run's size: 1 for small runs,\nmore for large synchronous ones); results do not depend on it")
	fs.BoolVar(&a.rerun, "rerun-failed", true, "run again the runs whose last attempt failed")
	fs.StringVar(&a.planHash, "plan-hash", "", "refuse to run unless the sweep's plan hash is this (set by the SLURM script,\nso that an edited sweep file is not run by an old job)")
	fs.BoolVar(&a.quiet, "quiet", false, "no progress on stderr")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep run FILE --results DB)")
	if err != nil {
		return nil, err
	}
	a.file = pos[0]
	switch {
	case a.results != "" && a.resultsDir != "":
		return nil, usagef("give --results DB or --results-dir DIR (with --task-id and --tasks), not both")
	case a.results != "":
		if a.taskID >= 0 || a.tasks != 0 {
			return nil, usagef("--task-id and --tasks go with --results-dir DIR (each task writes its own database)")
		}
		a.dbPath = a.results
	case a.resultsDir != "":
		if a.tasks < 1 {
			return nil, usagef("--results-dir needs --tasks N >= 1 and --task-id T")
		}
		if a.taskID < 0 || a.taskID >= a.tasks {
			return nil, usagef("--task-id must be in [0, %d), got %d", a.tasks, a.taskID)
		}
		a.dbPath = sweep.TaskDB(a.resultsDir, a.taskID)
	default:
		return nil, usagef("--results DB is required (or --results-dir DIR with --task-id and --tasks)")
	}
	if a.cores < 0 || a.jobs < 0 || a.workers < 0 {
		return nil, usagef("--cores, --jobs and --workers must be >= 0")
	}
	return &a, nil
}

// sweepRunOpening prints the opening line: the runs, those already done
// (which the restart tests look for) and the cores.
func sweepRunOpening(stderr io.Writer, sw *sweep.Sweep, runs []sweep.Run, st *sweep.Store, a *sweepRunArgs, share string) error {
	statuses, err := st.Statuses()
	if err != nil {
		return fmt.Errorf("%s: %w", a.dbPath, err)
	}
	already := 0
	for _, r := range runs {
		if s, ok := statuses[r.ID]; ok && (sweep.Done(s) || !a.rerun) {
			already++
		}
	}
	cores := a.cores
	if cores == 0 {
		cores = max(1, runtime.GOMAXPROCS(0))
	}
	fmt.Fprintf(stderr, "sweep %s: %d runs%s, %d already done, %d to run on %d cores; results in %s\n",
		sw.Name, len(runs), share, already, len(runs)-already, cores, a.dbPath)
	return nil
}

// sweepProgress reports a sweep's progress on stderr: on a terminal, one
// status line (package progress) redrawn at each event and every second;
// otherwise a line per finished run; nothing with --quiet.
type sweepProgress struct {
	w      io.Writer
	quiet  bool
	line   *progress.Line
	mu     sync.Mutex
	last   *sweep.Event // the latest event, nil before the first
	extra  string       // a note at the end of the status line
	warned int          // runs that ended with warnings
}

func newSweepProgress(stderr io.Writer, quiet bool) *sweepProgress {
	p := &sweepProgress{w: stderr, quiet: quiet, line: progress.NewLine(stderr)}
	if quiet {
		p.line = progress.NewLine(io.Discard)
	}
	p.line.Every(time.Second, p.redraw)
	return p
}

func (p *sweepProgress) event(e sweep.Event) {
	if !e.Start && e.Outcome != nil && len(e.Outcome.Warnings) > 0 {
		p.mu.Lock()
		p.warned++
		p.mu.Unlock()
	}
	switch {
	case p.quiet:
	case p.line.On():
		p.mu.Lock()
		p.last = &e
		p.mu.Unlock()
		p.redraw()
	case !e.Start && e.Outcome != nil:
		o := e.Outcome
		msg := o.Status
		if o.Error != "" {
			msg += ": " + o.Error
		}
		fmt.Fprintf(p.w, "[%d/%d] run %d %s (%s): %s, %s\n", e.Done, e.Todo, e.Run.Index, e.Run.ID,
			strings.Join(e.Run.Labels, " "), msg, sweepDur(o.Wall))
		for _, w := range o.Warnings {
			fmt.Fprintf(p.w, "  warning: %s\n", w)
		}
	}
}

// note shows a message: as a line of its own off a terminal, at the end
// of the status line on one.
func (p *sweepProgress) note(msg string) {
	if p.quiet {
		return
	}
	if p.line.On() {
		p.mu.Lock()
		p.extra = "  (" + msg + ")"
		p.mu.Unlock()
		p.redraw()
		return
	}
	fmt.Fprintln(p.w, msg)
}

// redraw draws the status line from the latest event, with the time
// elapsed now.
func (p *sweepProgress) redraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		return
	}
	e := *p.last
	e.Elapsed = p.line.Elapsed()
	eta := "?"
	if d, ok := e.ETA(); ok {
		eta = sweepDur(d)
	}
	p.line.Draw(fmt.Sprintf("[%d/%d] %3.0f%%  running %d  elapsed %s  ETA %s%s", e.Done, e.Todo,
		100*e.WorkDone/max(e.WorkTodo, 1), e.Running, sweepDur(e.Elapsed), eta, p.extra))
}

// close draws the line a last time and ends it.
func (p *sweepProgress) close() {
	p.redraw()
	p.line.Close()
}
