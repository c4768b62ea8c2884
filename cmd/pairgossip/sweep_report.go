package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep report DB --out DIR: tables and plots of a sweep's results.

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
	if fi, err := os.Stat(*out); err == nil && !fi.IsDir() {
		// Found before the database is read, as a bad flag (exit 2).
		return usagef("--out %s: a file, not a folder (the report writes summary.csv, summary.html and the plots into a folder)", *out)
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
	for _, m := range rep.Mixed {
		fmt.Fprintln(stderr, "warning:", m)
	}
	if rep.Superseded > 0 {
		fmt.Fprintf(stderr, "warning: %d runs left out: their configurations were planned again since on other contents of their input files (an input file edited since), whose runs the report shows\n", rep.Superseded)
	}
	if err := rep.Write(*out, "pairgossip sweep report: "+filepath.Base(pos[0])); err != nil {
		return err
	}
	what := "configurations"
	if len(rep.Groups) == 1 {
		what = "configuration"
	}
	keys := strings.Join(rep.Keys, ", ")
	if keys == "" {
		keys = "no key varies"
	}
	fmt.Fprintf(stdout, "%d %s (%s; aggregated over %s)\n", len(rep.Groups), what, keys, strings.Join(rep.Over, ", "))
	for _, p := range append([]string{filepath.Join(*out, "summary.csv"), filepath.Join(*out, "summary.html")}, rep.Plots...) {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return nil
}

// sweepSplitList splits a comma-separated flag value, dropping empty items.
func sweepSplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
