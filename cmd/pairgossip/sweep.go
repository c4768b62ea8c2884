package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep: the dispatcher and the helpers its commands share. Each
// command is in its own file: sweep_plan.go, sweep_run.go, sweep_slurm.go,
// sweep_merge.go, sweep_status.go, sweep_report.go, sweep_diff.go.

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

Keys: ` + "%s" + `.
They are pairgossip run's flags with _ for - (graph_k, graph_p, graph_rows, graph_cols and
algorithm for --k, --p, --rows, --cols and --algo; pairgossip run --help says what each means),
and the names of summary.json's config but ball_radius, which it calls radius. Deprecated
spellings, still read with a warning: ` + "%s" + `.
Relative data and graph_file paths are relative to the sweep file. A run's id is the
first 16 hex digits of SHA-256 of its full configuration's JSON. Unknown keys, empty
axes and values of the wrong type are rejected with FILE:LINE. Statuses: complete,
diverged (a result; not retried), failed (an error; retried by the next sweep run).
Reference: docs/sweeps.md.
`

// sweepUsageText is the usage with the keys of the parameter table.
func sweepUsageText() string {
	return fmt.Sprintf(sweepUsage, strings.Join(sweep.KeyNames(), ", "), strings.Join(sweep.DeprecatedKeys(), ", "))
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, sweepUsageText())
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
		fmt.Fprint(stdout, sweepUsageText())
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

// loadSweep reads a sweep file and prints its warnings (deprecated keys)
// on stderr.
func loadSweep(path string, stderr io.Writer) (*sweep.Sweep, error) {
	sw, err := sweep.Load(path)
	if err != nil {
		return nil, usageError{Err: err} // a bad or missing sweep file
	}
	for _, w := range sw.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	return sw, nil
}

// sweepStatusLine: a failed run is pending too (not done: sweep run
// --rerun-failed runs it again), which the line says, as the counts would
// not add up otherwise.
func sweepStatusLine(s sweep.Status) string {
	line := fmt.Sprintf("%d runs: %d complete, %d diverged, %d failed, %d pending", s.Total, s.Complete, s.Diverged, s.Failed, s.Pending)
	if s.Failed > 0 {
		line += fmt.Sprintf(" (the %d failed among them: sweep run --rerun-failed runs them again)", s.Failed)
	}
	return line
}

// sweepDur formats a duration to a tenth of a second under a minute, to
// the second above.
func sweepDur(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// openStores opens existing results databases (a usage error when one is
// missing); the caller closes them.
func openStores(paths []string) ([]*sweep.Store, error) {
	var stores []*sweep.Store
	for _, p := range paths {
		st, err := sweep.OpenExisting(p)
		if err != nil {
			closeStores(stores)
			return nil, usageError{Err: err}
		}
		stores = append(stores, st)
	}
	return stores, nil
}

func closeStores(stores []*sweep.Store) {
	for _, st := range stores {
		st.Close()
	}
}
