package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/lab"
	"github.com/pairgossip/pairgossip/problem"
)

func cmdMetric(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("metric", "bench metric: metric learning (Algorithm 2, or Algorithm 3 with --algo async; hinge loss, ψ = PSD cone, b = 2) on the\n"+
		"paper's synthetic set (10 classes, means in a 5-dimensional subspace), timed over rounds 1..--iters of\n"+
		"one run from θ = 0 (setup excluded). ms_per_iteration is wall time / iters; eig_per_iteration counts\n"+
		"the symmetric eigendecompositions actually done (rank1_updates_per_iteration the rank-one eigen-updates\n"+
		"done in their place). lapack says which LAPACK the build uses\n"+
		"(gonum, or openblas with -tags netlib). With --algo async, --iters counts events and ms_per_event is\n"+
		"wall time / events (eig_per_event, rank1_updates_per_event likewise).", stderr)
	algo := fs.String("algo", "sync", "sync (Algorithm 2) or async (Algorithm 3)")
	n := fs.Int("n", 1000, "nodes (one synthetic point each)")
	d := fs.Int("d", 40, "dimension (θ is d×d)")
	iters := fs.Int64("iters", 2000, "rounds timed, from the first")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the round")
	schedule := fs.String("schedule", "auto", "auto (reduced: scalar recurrences between changes of z) or reference (every node every round)")
	exact := fs.Bool("exact-psd", false, "with --schedule reference: an eigendecomposition for every node every round (no cone rescaling)")
	kind := fs.String("graph", "watts-strogatz", "graph")
	gammaC := fs.Float64("gamma-c", 0.01, "step size constant c in γ(t) = c/√t")
	seed := fs.Uint64("seed", 1, "seed of the data, graph and edge stream")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := validSize(*n, *d); err != nil {
		return err
	}
	if *iters < 1 || *workers < 1 {
		return usageError{Err: fmt.Errorf("--iters and --workers must be >= 1")}
	}
	if err := checkSize("metric", *kind, *n, *d, *workers, 1, 0); err != nil {
		return err
	}
	sc := dataset.DefaultSynthetic()
	sc.N, sc.D, sc.Seed = *n, *d, *seed
	sc.S = min(sc.S, *d)
	sc.K = min(sc.K, *n)
	ds, err := dataset.Synthetic(sc)
	if err != nil {
		return usageError{Err: err}
	}
	p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, ds.N, ds.D, ds.X, ds.Class)
	if err != nil {
		return err
	}
	g, err := buildGraph(*kind, *n, *seed)
	if err != nil {
		return err
	}
	alg, err := engine.ParseAlgorithm(*algo)
	if err != nil || alg == engine.Centralized {
		return usageError{Err: fmt.Errorf("--algo must be sync or async, got %q", *algo)}
	}
	s, err := engine.New(p, g, engine.Config{Algorithm: alg, Iters: *iters, GammaC: *gammaC, Seed: *seed,
		Workers: *workers, LogPoints: 1, EvalNodes: 16, Schedule: engine.Schedule(*schedule), ExactPSD: *exact})
	if err != nil {
		return usageError{Err: err}
	}
	defer s.Close()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	c0, t0 := processCPU(), time.Now()
	if err := s.Advance(*iters); err != nil {
		return err
	}
	el := time.Since(t0)
	cpu := (processCPU() - c0).Seconds()
	runtime.ReadMemStats(&ms1)
	all, nz := s.GradEvals()
	eigs, rank1, err := lab.EigenCounts(s)
	if err != nil {
		return err
	}
	rec := s.Measure()
	it := float64(*iters)
	out := map[string]any{
		"n": *n, "d": *d, "workers": *workers, "lapack": problem.LAPACK, "schedule": s.Schedule(), "exact_psd": *exact,
		"graph": g.Name, "iters": *iters, "gamma_c": *gammaC, "seconds": el.Seconds(),
		"ms_per_iteration":                el.Seconds() * 1e3 / it,
		"cpu_ms_per_iteration":            cpu * 1e3 / it,
		"eig_per_iteration":               float64(eigs) / it,
		"rank1_updates_per_iteration":     float64(rank1) / it,
		"nonzero_gradients_per_iteration": float64(nz) / it,
		"gradients_per_iteration":         float64(all) / it,
		"objective_mean_sampled":          rec.ObjMean,
		"allocs_per_iteration":            float64(ms1.Mallocs-ms0.Mallocs) / it,
		"gomaxprocs":                      runtime.GOMAXPROCS(0),
	}
	if alg == engine.Async {
		out["algo"] = "async"
		out["ms_per_event"] = out["ms_per_iteration"]
		out["cpu_ms_per_event"] = out["cpu_ms_per_iteration"]
		out["eig_per_event"] = out["eig_per_iteration"]
		out["rank1_updates_per_event"] = out["rank1_updates_per_iteration"]
	}
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	if alg == engine.Async {
		fmt.Fprintf(stdout, "n=%d d=%d %s, async %s schedule, %d workers, LAPACK %s: %.3g ms per event, %.2f eigendecompositions and %.2f rank-one updates per event, objective %.4g\n",
			*n, *d, g.Name, s.Schedule(), *workers, problem.LAPACK, el.Seconds()*1e3/it, out["eig_per_iteration"], out["rank1_updates_per_iteration"], rec.ObjMean)
		return nil
	}
	fmt.Fprintf(stdout, "n=%d d=%d %s, %s schedule, %d workers, LAPACK %s: %.3g ms per round, %.1f eigendecompositions and %.1f rank-one updates per round, objective %.4g\n",
		*n, *d, g.Name, s.Schedule(), *workers, problem.LAPACK, el.Seconds()*1e3/it, out["eig_per_iteration"], out["rank1_updates_per_iteration"], rec.ObjMean)
	return nil
}
