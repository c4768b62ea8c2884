package main

import (
	"context"
	"fmt"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/output"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/pairgossip/pairgossip/internal/progress"
	"github.com/pairgossip/pairgossip/paper"
)

func cmdReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reproduce", "pairgossip reproduce: run every experiment of the paper (Table 1, Figures 1–3 and the supplementary\n"+
		"metric-learning figures) on the embedded data, several seeds per setting in parallel, and write\n"+
		"DIR/report.html (self-contained: tables, figures, the paper's claims checked with the measured numbers),\n"+
		"DIR/results.json (every number the report quotes), DIR/figures/*.png|svg, DIR/table1.csv and DIR/traces/*.csv.\n\n"+
		"The full run takes about a minute on an idle 2-core machine (63 s measured, 125 CPU-seconds), longer under load; --quick runs the same pipeline at reduced size in under a minute; --long about four times the metric-learning work (3 min 11 s, 379 CPU-seconds).\n\n"+
		"Example: pairgossip reproduce --out report", stderr)
	out := fs.String("out", "report", "output directory (created if missing)")
	quick := fs.Bool("quick", false, "reduced size: small T, 2 runs, few evaluated nodes (what CI runs)")
	long := fs.Bool("long", false, "the synthetic metric-learning horizon four times longer (64 000 edge events, c = 0.03, the step-size pilot to that horizon): Fig. 3 close to the optimum, about 4× the metric-learning work")
	runs := cli.Int(fs, "runs", 0, fmt.Sprintf("seeds per setting (0: 8 for the full run, 2 with --quick; the paper uses 50; at most %d)", paper.MaxRuns))
	workers := cli.Int(fs, "workers", 0, "concurrent runs (0: all cores); results do not depend on it")
	seed := cli.Uint64(fs, "seed", 1, "base seed: run r of every setting uses seed+r; the Watts–Strogatz graph uses seed")
	asJSON := fs.Bool("json", false, "print a JSON summary (paths, wall time, claim verdicts) on stdout")
	networks := fs.Bool("networks", false, "instead of the paper's experiments, the networks part (issue #34): the AUC experiment, synchronous\n"+
		"and asynchronous, under message loss 0/0.1/0.3/0.5, churn with 10% and 30% offline, node clocks and a two-phase\n"+
		"graph, the iterations to a fixed objective against the effective gap's prediction; writes DIR/networks.html,\n"+
		"DIR/networks.json, DIR/figures/networks-* and DIR/traces/networks/ (with --quick: CI size)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *networks {
		return reproduceNetworks(*out, *quick, *long, *runs, *workers, *seed, *asJSON, stdout, stderr)
	}
	if *runs < 0 {
		return usagef("--runs must be >= 0, got %d", *runs)
	}
	if *workers < 0 {
		return usagef("--workers must be >= 0, got %d", *workers)
	}
	if *out == "" {
		return usagef("--out must not be empty")
	}
	if *quick && *long {
		return usagef("--quick and --long exclude each other")
	}
	plan := paper.FullPlan()
	switch {
	case *quick:
		plan = paper.QuickPlan()
	case *long:
		plan = paper.LongPlan()
	}
	if *runs > paper.MaxRuns {
		// Refused before anything is built: a count in the millions used
		// to build every job first and exhaust the memory.
		p := plan
		p.Runs = *runs
		cpu, mem := paper.Estimate(p)
		cores := *workers
		if cores == 0 {
			cores = runtime.GOMAXPROCS(0)
		}
		return usagef("--runs %d: at most %d seeds per setting (the paper uses 50); %d would take about %s of CPU time (%s on %d cores) and %s of memory for the runs' traces",
			*runs, paper.MaxRuns, *runs, roughDuration(cpu), roughDuration(cpu/float64(cores)), cores, roughBytes(mem))
	}
	if *runs > 0 {
		plan.Runs = *runs
	}
	// The output directory is checked before any work, as run's is.
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	ctx, stop := notifyContext(context.Background())
	defer stop()
	line := progress.NewLine(stderr)
	res, err := paper.Reproduce(ctx, paper.Options{Out: *out, Plan: plan, Workers: *workers, Seed: *seed, Progress: reproduceProgress(line)})
	line.Close()
	if err != nil {
		return err
	}
	htmlPath, jsonPath := filepath.Join(*out, "report.html"), filepath.Join(*out, "results.json")
	claims := res.AllClaims()
	if *asJSON {
		type claimSummary struct {
			ID       string `json:"id"`
			Verdict  string `json:"verdict"`
			Measured string `json:"measured"`
		}
		sum := struct {
			Report      string         `json:"report"`
			Results     string         `json:"results"`
			Mode        string         `json:"mode"`
			Runs        int            `json:"runs"`
			WallSeconds float64        `json:"wall_seconds"`
			Claims      []claimSummary `json:"claims"`
		}{htmlPath, jsonPath, plan.Mode, plan.Runs, res.WallSeconds, nil}
		for _, c := range claims {
			sum.Claims = append(sum.Claims, claimSummary{c.ID, c.Verdict, c.Measured})
		}
		_, err := stdout.Write(output.JSON(sum))
		return err
	}
	fmt.Fprintf(stdout, "reproduced %d experiments (%s plan, %d runs per setting) in %.1fs\n", len(res.Experiments), plan.Mode, plan.Runs, res.WallSeconds)
	if t := res.Experiment("table1"); t != nil && t.Table1 != nil {
		fmt.Fprintln(stdout, "Table 1 (spectral gaps; paper in brackets):")
		for _, r := range t.Table1.Rows {
			fmt.Fprintf(stdout, "  n = %4d:", r.N)
			for _, c := range r.Cells {
				fmt.Fprintf(stdout, "  %s %.3g [%.3g]", c.Graph, float64(c.Value), float64(c.Paper))
			}
			fmt.Fprintln(stdout)
		}
	}
	for _, c := range claims {
		fmt.Fprintf(stdout, "  %-40s %s\n", c.ID, c.Verdict)
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", htmlPath, jsonPath)
	return nil
}

// reproduceProgress is the status line of pairgossip reproduce (package
// progress): the jobs done, the time elapsed and left, on stderr when it is
// a terminal, at most every 200 ms.
func reproduceProgress(line *progress.Line) func(paper.Progress) {
	return func(pr paper.Progress) {
		if !line.On() {
			return
		}
		eta := "?"
		if d, ok := pr.ETA(); ok {
			eta = d.Round(time.Second).String()
		}
		text := fmt.Sprintf("%5.1f%%  job %d/%d  elapsed %s  ETA %s  (%d cores)", 100*pr.Fraction(), pr.Done, pr.Total,
			pr.Elapsed.Round(time.Second), eta, runtime.GOMAXPROCS(0))
		if pr.Done == pr.Total {
			line.Draw(text)
		} else {
			line.DrawEvery(200*time.Millisecond, text)
		}
	}
}

// roughDuration writes seconds as an order of magnitude a user reads at a
// glance (any finite value).
func roughDuration(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.0f hours", s/3600)
	case s < 2*365.25*86400:
		return fmt.Sprintf("%.0f days", s/86400)
	}
	return fmt.Sprintf("%.2g years", s/(365.25*86400))
}

// roughBytes writes a byte count with a binary unit, three digits.
func roughBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for b >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	return fmt.Sprintf("%.3g %s", b, units[u])
}

// reproduceNetworks is reproduce --networks (paper.ReproduceNetworks).
func reproduceNetworks(out string, quick, long bool, runs, workers int, seed uint64, asJSON bool, stdout, stderr io.Writer) error {
	switch {
	case long:
		return usagef("--long sizes the paper's metric-learning experiments; the networks part has --quick only")
	case runs < 0:
		return usagef("--runs must be >= 0, got %d", runs)
	case runs > paper.MaxRuns:
		return usagef("--runs %d: at most %d seeds per setting", runs, paper.MaxRuns)
	case workers < 0:
		return usagef("--workers must be >= 0, got %d", workers)
	case out == "":
		return usagef("--out must not be empty")
	}
	plan := paper.NetworksFullPlan()
	if quick {
		plan = paper.NetworksQuickPlan()
	}
	if runs > 0 {
		plan.Runs = runs
	}
	if err := checkOutDir("--out", out); err != nil {
		return err
	}
	ctx, stop := notifyContext(context.Background())
	defer stop()
	line := progress.NewLine(stderr)
	res, err := paper.ReproduceNetworks(ctx, paper.NetworksOptions{Out: out, Plan: plan, Workers: workers, Seed: seed, Progress: reproduceProgress(line)})
	line.Close()
	if err != nil {
		return err
	}
	htmlPath, jsonPath := filepath.Join(out, "networks.html"), filepath.Join(out, "networks.json")
	if asJSON {
		sum := struct {
			Report      string  `json:"report"`
			Results     string  `json:"results"`
			Mode        string  `json:"mode"`
			Runs        int     `json:"runs"`
			WallSeconds float64 `json:"wall_seconds"`
			Settings    int     `json:"settings"`
		}{htmlPath, jsonPath, plan.Mode, plan.Runs, res.WallSeconds, len(res.Settings)}
		_, err := stdout.Write(output.JSON(sum))
		return err
	}
	fmt.Fprintf(stdout, "networks: %d settings (%s plan, %d runs each) in %.1fs\n", len(res.Settings), plan.Mode, plan.Runs, res.WallSeconds)
	fmt.Fprintf(stdout, "  %-6s %-20s %10s %12s %12s %10s\n", "algo", "network", "gap ratio", "to target", "predicted", "ratio")
	for _, s := range res.Settings {
		fmt.Fprintf(stdout, "  %-6s %-20s %10.3g %12.4g %12.4g %10.3g\n", s.Algorithm, s.Label, float64(s.GapRatio), float64(s.Reach), float64(s.Predicted), float64(s.Ratio))
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", htmlPath, jsonPath)
	return nil
}
