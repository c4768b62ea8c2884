package main

import (
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"io"

	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep status [FILE] --results DB: count the runs.

func sweepStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep status", "pairgossip sweep status [FILE] --results DB: count the runs planned in DB (or in FILE, when\n"+
		"given), and those complete, diverged, failed and pending.", stderr)
	results := fs.String("results", "", "results database")
	resultsDir := fs.String("results-dir", "", "a folder of task databases (task-*.db), counted together")
	asJSON := fs.Bool("json", false, "print one JSON object: total, complete, diverged, failed, pending, done, wall_seconds")
	failed := fs.Bool("failed", false, "also list the failed runs with their errors")
	warnings := fs.Bool("warnings", false, "also list the warnings of the complete and diverged runs (a bipartite graph,\na lost precision, an optimum not solved), as summary.json has them")
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
		sw, err := loadSweep(pos[0], stderr)
		if err != nil {
			return err
		}
		only = []string{}
		for _, r := range sw.Runs {
			only = append(only, r.ID)
		}
	}
	stores, err := openStores(paths)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	s, err := sweep.StatusOf(stores, only)
	if err != nil {
		return err
	}
	if *asJSON {
		if *failed || *warnings {
			return usagef("--json prints the counts; --failed and --warnings list lines: give them without --json")
		}
		_, err := stdout.Write(output.JSON(s))
		return err
	}
	fmt.Fprintln(stdout, sweepStatusLine(s))
	// With a sweep file, its runs only, as the counts.
	var mine map[string]bool
	if only != nil {
		mine = map[string]bool{}
		for _, id := range only {
			mine[id] = true
		}
	}
	if *failed {
		if err := printFailed(stdout, stores, mine); err != nil {
			return err
		}
	}
	if *warnings {
		return printWarnings(stdout, stores, mine)
	}
	return nil
}

// printWarnings lists the warnings of the stores' complete and diverged
// runs (of the runs in mine, when not nil).
func printWarnings(stdout io.Writer, stores []*sweep.Store, mine map[string]bool) error {
	for _, st := range stores {
		ws, err := st.RunWarnings()
		if err != nil {
			return fmt.Errorf("%s: %w", st.Path, err)
		}
		for _, w := range ws {
			if mine == nil || mine[w.ID] {
				fmt.Fprintf(stdout, "warning %s: %s\n", w.ID, w.Warning)
			}
		}
	}
	return nil
}

// printFailed lists the failed runs of the stores with their errors (of
// the runs in mine, when not nil).
func printFailed(stdout io.Writer, stores []*sweep.Store, mine map[string]bool) error {
	for _, st := range stores {
		errs, err := st.RunErrors()
		if err != nil {
			return fmt.Errorf("%s: %w", st.Path, err)
		}
		for _, e := range errs {
			if e.Status == sweep.StatusFailed && (mine == nil || mine[e.ID]) {
				fmt.Fprintf(stdout, "failed %s: %s\n", e.ID, e.Error)
			}
		}
	}
	return nil
}
