package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip"
)

// cmdE2E times the whole job of `pairgossip run` on synthetic data:
// set-up (data, problem, graph, engine), iterations and measurements, with
// the process's peak resident memory.
func cmdE2E(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("e2e", "bench e2e: the whole job of pairgossip run --data synthetic-auc --n N --dim D --graph G\n"+
		"--algo sync --iters T (reduced schedule, 30 log-spaced measurements, no optimum), timed by part:\n"+
		"set-up (data generation, problem, graph, engine), iterations, measurements; with the process's\n"+
		"peak resident memory (VmHWM). Run one size per process: the peak is the process's.", stderr)
	n := fs.Int("n", 1_000_000, "nodes (one synthetic-auc point each)")
	d := fs.Int("d", 16, "dimension")
	iters := fs.Int64("iters", 10000, "synchronous rounds")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers (0: all cores)")
	kind := fs.String("graph", "watts-strogatz", "graph")
	seed := fs.Uint64("seed", 1, "seed of the data, graph and edge stream")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := validSize(*n, *d); err != nil {
		return err
	}
	cfg := pairgossip.DefaultConfig()
	cfg.Data, cfg.N, cfg.Dim, cfg.Graph, cfg.Iters = "synthetic-auc", *n, *d, *kind, *iters
	cfg.Seed, cfg.DataSeed, cfg.GraphSeed, cfg.Workers, cfg.SkipOptimum = *seed, *seed, *seed, *workers, true
	t0 := time.Now()
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return usageError{Err: err}
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		return err
	}
	total := time.Since(t0)
	st := run.Setup
	out := map[string]any{
		"n": *n, "d": *d, "iters": *iters, "workers": run.Sim.Workers(), "graph": run.Graph.Name,
		"schedule": string(run.Sim.Schedule()), "measurements": len(res.Trace), "eval_nodes": len(run.Sim.EvalNodes()),
		"setup_data_seconds": st.Data.Seconds(), "setup_problem_seconds": st.Problem.Seconds(),
		"setup_graph_seconds": st.Graph.Seconds(), "setup_engine_seconds": st.Engine.Seconds(),
		"setup_seconds": st.Total().Seconds(), "iterations_seconds": (res.Wall - res.Measure).Seconds(),
		"measurement_seconds": res.Measure.Seconds(), "total_seconds": total.Seconds(),
		"peak_rss_bytes": peakRSS(), "objective_mean": res.Final.ObjMean,
	}
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	fmt.Fprintf(stdout, "n=%d d=%d %s, %d workers: set-up %.2f s (data %.2f, problem %.2f, graph %.2f, engine %.2f), "+
		"%d rounds %.2f s, %d measurements %.2f s, total %.2f s, peak RSS %.2f GB\n",
		*n, *d, run.Graph.Name, run.Sim.Workers(), st.Total().Seconds(), st.Data.Seconds(), st.Problem.Seconds(),
		st.Graph.Seconds(), st.Engine.Seconds(), *iters, (res.Wall - res.Measure).Seconds(), len(res.Trace),
		res.Measure.Seconds(), total.Seconds(), float64(peakRSS())/1e9)
	return nil
}

// peakRSS returns the process's peak resident memory in bytes (VmHWM of
// /proc/self/status; 0 where there is none).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
