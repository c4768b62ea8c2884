package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep slurm FILE --results-dir DIR: write a SLURM job array.

// slurmArgs are the flags of sweep slurm.
type slurmArgs struct {
	file, resultsDir, partition, time, mem, binary, script string
	cpus, tasks, perTask                                   int
	extra                                                  sweepMultiFlag
}

func sweepSlurm(args []string, stdout, stderr io.Writer) error {
	a, err := parseSlurmArgs(args, stderr)
	if err != nil {
		return err
	}
	sw, err := loadSweep(a.file, stderr)
	if err != nil {
		return err
	}
	n := a.tasks
	if n == 0 {
		n = sweep.Tasks(len(sw.Runs), a.perTask, 100)
	}
	n = min(n, len(sw.Runs))
	dir, file, bin, err := slurmPaths(a)
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	opt := sweep.SlurmOptions{Binary: bin, SweepFile: file, WorkDir: wd, ResultsDir: dir, Tasks: n,
		Partition: a.partition, Time: a.time, CPUsPerTask: a.cpus, Mem: a.mem, Extra: a.extra, PlanHash: sw.PlanHash(),
		Runs: len(sw.Runs), Name: sw.Name}
	if err := opt.Check(); err != nil {
		return usageError{Err: err}
	}
	path := a.script
	if path == "" {
		path = filepath.Join(dir, "sweep.sbatch")
	}
	if c := sweep.ControlChar(path); c != "" {
		return usagef("--script: %q contains %s", path, c)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	text := sweep.SlurmScript(opt)
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
	fmt.Fprintf(stdout, "wrote %s: %d runs in %d array tasks (%s runs and %d CPU(s) each)\n", path, len(sw.Runs), n, each, a.cpus)
	q := sweep.ShellQuote
	fmt.Fprintf(stdout, "submit:  sbatch %s\nthen:    %s sweep merge %s --results %s\n", q(path), q(bin), q(dir), q(filepath.Join(dir, "results.db")))
	return nil
}

func parseSlurmArgs(args []string, stderr io.Writer) (*slurmArgs, error) {
	fs := newFlagSet("sweep slurm", "pairgossip sweep slurm FILE --results-dir DIR: write DIR/sweep.sbatch, a SLURM job array whose\n"+
		"task T runs the T-th contiguous chunk of the runs into DIR/task-T.db (one database per task: no\n"+
		"shared-file locking on network file systems). Submit it with sbatch, then merge:\n"+
		"  pairgossip sweep merge DIR --results DIR/results.db\n"+
		"The script names this binary and the sweep file by absolute path, and checks the plan hash.", stderr)
	var a slurmArgs
	fs.StringVar(&a.resultsDir, "results-dir", "", "folder for the task databases, logs and the script [required]")
	fs.StringVar(&a.partition, "partition", "", "SLURM partition (default: the cluster's default)")
	fs.StringVar(&a.time, "time", "01:00:00", "time limit of each task, HH:MM:SS or D-HH:MM:SS")
	cli.IntVar(fs, &a.cpus, "cpus-per-task", 1, "CPUs per task; the task keeps them busy with several runs at once")
	cli.IntVar(fs, &a.tasks, "tasks", 0, "number of array tasks (0: from --runs-per-task, else one per run up to 100)")
	cli.IntVar(fs, &a.perTask, "runs-per-task", 0, "runs per array task (alternative to --tasks)")
	fs.StringVar(&a.mem, "mem", "", "memory per task, e.g. 4G (default: the cluster's default)")
	fs.StringVar(&a.binary, "binary", "", "path of the pairgossip binary the job runs (default: this one)")
	fs.StringVar(&a.script, "script", "", "where to write the script (default: DIR/sweep.sbatch)")
	fs.Var(&a.extra, "sbatch", "an extra sbatch option, e.g. --sbatch=--account=proj (repeatable)")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep slurm FILE --results-dir DIR)")
	if err != nil {
		return nil, err
	}
	a.file = pos[0]
	if a.resultsDir == "" {
		return nil, usagef("--results-dir DIR is required")
	}
	if !sweep.ValidTime(a.time) {
		return nil, usagef("--time must be HH:MM:SS or D-HH:MM:SS, got %q", a.time)
	}
	if a.cpus < 1 {
		return nil, usagef("--cpus-per-task must be >= 1, got %d", a.cpus)
	}
	if a.tasks < 0 || a.perTask < 0 || (a.tasks > 0 && a.perTask > 0) {
		return nil, usagef("give --tasks N or --runs-per-task K (>= 1), not both")
	}
	return &a, nil
}

// slurmPaths returns the absolute paths the script names: the results
// folder, the sweep file and the binary (by default this one, symbolic
// links resolved).
func slurmPaths(a *slurmArgs) (dir, file, bin string, err error) {
	if dir, err = filepath.Abs(a.resultsDir); err != nil {
		return
	}
	if file, err = filepath.Abs(a.file); err != nil {
		return
	}
	bin = a.binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return
		}
		if r, err := filepath.EvalSymlinks(bin); err == nil {
			bin = r
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "", "", usagef("--binary: %v", err)
	}
	return dir, file, bin, nil
}

type sweepMultiFlag []string

func (m *sweepMultiFlag) String() string     { return strings.Join(*m, " ") }
func (m *sweepMultiFlag) Set(s string) error { *m = append(*m, s); return nil }
