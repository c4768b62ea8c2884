package paper

import (
	"context"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/jobs"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// Progress is reported after each finished job: jobs done and in all,
// their estimated cost (seconds of work), the elapsed time, Fraction and
// ETA.
type Progress = jobs.Progress

// job is one unit of work of the pool: a simulation run, an optimum solve or
// a spectral gap. run must store its result by index, never by completion
// order, so that results do not depend on the concurrency.
type job struct {
	name string
	cost float64
	run  func(ctx context.Context) error
}

// runPool runs the jobs on at most workers cores (package jobs), longest
// estimated cost first. The first error, prefixed with its job's name,
// cancels the remaining jobs and is returned.
func runPool(ctx context.Context, list []job, workers int, onProgress func(Progress)) error {
	js := make([]jobs.Job[struct{}], len(list))
	for i, j := range list {
		js[i] = jobs.Job[struct{}]{Name: j.name, Cost: j.cost, Run: func(ctx context.Context) (struct{}, error) {
			if err := j.run(ctx); err != nil {
				return struct{}{}, fmt.Errorf("%s: %w", j.name, err) // wraps context.Canceled when interrupted
			}
			return struct{}{}, nil
		}}
	}
	opt := jobs.Options[struct{}]{Slots: workers, LongestFirst: true}
	if onProgress != nil {
		opt.OnEnd = func(p Progress, _ struct{}) { onProgress(p) }
	}
	_, err := jobs.Run(ctx, js, opt)
	return err
}

// runResult is the outcome of one simulation run.
type runResult struct {
	Seed      uint64
	Trace     []engine.Record
	EvalNodes int
	Graph     *output.GraphInfo
	Wall      time.Duration
	Err       string // divergence or other failure of the run itself
}

// simulate runs one configuration to the end. A run that diverges is not an
// error of the pipeline: it is recorded in the result and left out of the
// averages.
func simulate(ctx context.Context, cfg pairgossip.Config) (runResult, error) {
	rr := runResult{Seed: cfg.Seed}
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return rr, err
	}
	defer run.Close()
	rr.EvalNodes = len(run.Sim.EvalNodes())
	if g := run.Graph; g != nil {
		rr.Graph = &output.GraphInfo{Name: g.Name, Kind: g.Kind, N: g.N, UndirectedEdges: g.UndirectedEdges(),
			MinDegree: g.MinDegree(), MaxDegree: g.MaxDegree(), Tries: g.Tries}
	}
	res, err := run.Execute(ctx, nil)
	if res != nil {
		rr.Trace, rr.Wall = res.Trace, res.Wall
	}
	if err != nil {
		if ctx.Err() != nil {
			return rr, ctx.Err()
		}
		var de *engine.DivergenceError
		if errors.As(err, &de) {
			rr.Err = err.Error()
			return rr, nil
		}
		return rr, err
	}
	return rr, nil
}

// OptimumResult is the centralized optimum R_n(θ*) of one problem.
type OptimumResult struct {
	Problem    string       `json:"problem"`
	Title      string       `json:"title"`
	Value      output.Float `json:"value"`
	Method     string       `json:"method"`
	FinalMu    output.Float `json:"final_mu,omitempty"`
	Iterations int          `json:"iterations"`
	MaxIter    int          `json:"max_iter_per_stage"`
	Converged  bool         `json:"converged"`
	Seconds    float64      `json:"seconds"`
	// Cached: the optimum came from the cache of optima
	// (pairgossip.Run.SolveOptimum); Seconds is then the lookup's time
	// (and R_n(0)'s evaluation).
	Cached bool `json:"cached"`
	// Objective at θ = 0, for scale.
	AtZero output.Float `json:"objective_at_zero"`
}

// solveOptimum prepares the problem of cfg and solves it centrally.
func solveOptimum(ctx context.Context, key string, cfg pairgossip.Config, maxIter int) (OptimumResult, error) {
	cfg.Iters = 1
	cfg.Algorithm = "centralized"
	cfg.Baseline = "gossip"
	cfg.Graph = ""
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return OptimumResult{}, err
	}
	defer run.Close()
	if err := ctx.Err(); err != nil {
		return OptimumResult{}, err
	}
	t0 := time.Now()
	o, cached, err := run.SolveOptimum(problem.OptimumOptions{MaxIter: maxIter, Context: ctx})
	if err != nil {
		return OptimumResult{}, err
	}
	mi := maxIter
	if mi <= 0 {
		mi = 3000 // the solver's default
	}
	// R_n(0) through the batched evaluator (a Gram matrix for metric
	// learning, not n² pair distances).
	var at0 [1]float64
	run.Problem.NewEvaluator(1, 1).Eval(layout.New(1, run.Problem.P), []int{0}, at0[:], nil)
	return OptimumResult{Problem: key, Title: problemTitles[key], Value: output.Float(o.Value), Method: o.Method,
		FinalMu: output.Float(o.FinalMu), Iterations: o.Iterations, MaxIter: mi, Converged: o.Converged,
		Seconds: time.Since(t0).Seconds(), Cached: cached, AtZero: output.Float(at0[0])}, nil
}

// gapResult is one spectral gap of Table 1.
type gapResult struct {
	Value  float64
	Method string
	Tries  int
}

func spectralGap(spec graph.Spec) (gapResult, error) {
	g, err := graph.Build(spec)
	if err != nil {
		return gapResult{}, err
	}
	gp, err := graph.SpectralGap(g)
	if err != nil {
		return gapResult{}, err
	}
	return gapResult{Value: gp.Value, Method: gp.Method, Tries: g.Tries}, nil
}
