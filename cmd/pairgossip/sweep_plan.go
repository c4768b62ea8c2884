package main

import (
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/sweep"
)

// pairgossip sweep plan FILE: the runs of a sweep file and their ids.

func sweepPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep plan", "pairgossip sweep plan FILE: the number of runs of a sweep file and each run's stable id\n"+
		"(the first 16 hex digits of SHA-256 of the run's configuration JSON), in the sweep's order.", stderr)
	asJSON := fs.Bool("json", false, "print one JSON object: name, runs, plan_hash, axes, and each run's index, id, axis values and config")
	check := fs.Bool("check", false, "also prepare every run (load data, build graph) and report the first that fails")
	pos, err := sweepParseArgs(fs, args, 1, 1, "sweep file (pairgossip sweep plan FILE)")
	if err != nil {
		return err
	}
	sw, err := loadSweep(pos[0], stderr)
	if err != nil {
		return err
	}
	if *check {
		if err := sweepCheck(sw); err != nil {
			return err
		}
	}
	if *asJSON {
		_, err := stdout.Write(output.JSON(sweepPlanJSON(sw)))
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

// sweepCheck validates every run of the sweep (pairgossip's Config.Validate,
// which names the sweep key at fault), then prepares it (data, problem,
// graph), and reports the first that fails, as a usage error.
func sweepCheck(sw *sweep.Sweep) error {
	for _, r := range sw.Runs {
		cfg := sw.Resolved(r.Config)
		cfg.Workers, cfg.SkipOptimum = 1, cfg.StopAt == 0 // stop_at needs the optimum (sweep.Execute solves it)
		err := cfg.Validate()
		if err == nil {
			var run *pairgossip.Run
			if run, err = pairgossip.Prepare(cfg); err == nil {
				run.Close()
			}
		}
		if err != nil {
			return usagef("run %d (%s, id %s): %v", r.Index, strings.Join(r.Labels, " "), r.ID, sweep.KeyError(err))
		}
	}
	return nil
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

// sweepPlanJSON is what sweep plan --json prints.
func sweepPlanJSON(sw *sweep.Sweep) any {
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
	return out
}
