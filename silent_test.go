package pairgossip

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pairgossip/pairgossip/problem"
)

// nanObjective is a user loss that returns NaN for every pair (a bug a user
// makes: log of a negative number), with a well-defined gradient.
func nanObjective() *problem.Pairwise {
	return &problem.Pairwise{Name: "nan-loss", P: 3, Smooth: true,
		Contrib: func(li, lj int32) bool { return li > lj },
		Func:    func(theta, xi, xj []float64, i, j int) float64 { return math.Log(-1) },
		GradFunc: func(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
			for a := range g {
				g[a] += w * (xi[a] - xj[a])
			}
			return true
		}}
}

// TestNaNLossStops: case 7 of "Nothing silent, nothing lost". A user loss
// returning NaN stops the run at its first measurement with an error that
// says so (never "complete" with a NaN objective), and a NaN optimum is an
// error, not a value reported as converged.
func TestNaNLossStops(t *testing.T) {
	x, lab := memData(60, 3)
	cfg := DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 2000, 5, true
	run, err := PrepareInput(cfg, Input{X: x, N: 60, D: 3, Labels: lab, Objective: nanObjective()})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "NaN") || !strings.Contains(err.Error(), "iteration 1") {
		t.Fatalf("err = %v; want the NaN objective at the first measurement", err)
	}
	if len(res.Trace) != 1 || run.Sim.Iter() >= cfg.Iters {
		t.Errorf("the run went on after the NaN measurement: %d records, iteration %d", len(res.Trace), run.Sim.Iter())
	}
	if s := run.Summarize(res, err); s.Status == "complete" {
		t.Error("summary says complete")
	}

	// The optimum alone (the measurement of an objective that is finite
	// where the run measures it and NaN elsewhere is not the point here).
	cfg.SkipOptimum = false
	cfg.Iters, cfg.LogPoints = 1, 1
	obj := nanObjective()
	var optimum atomic.Bool // set once the run's only measurement is taken
	obj.Func = func(theta, xi, xj []float64, i, j int) float64 {
		if !optimum.Load() {
			return 0.5
		}
		return math.NaN()
	}
	run2, err := PrepareInput(cfg, Input{X: x, N: 60, D: 3, Labels: lab, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	defer run2.Close()
	var rec int
	res, err = run2.Execute(context.Background(), func(Record) { rec++; optimum.Store(true) })
	if err == nil || !strings.Contains(err.Error(), "optimum") || res.Optimum != nil {
		t.Fatalf("err = %v, optimum %v; want an error for the NaN optimum", err, res.Optimum)
	}
}

// TestModelSpaceCheckedFirst: case 11. CheckModelSpace refuses a model the
// disk cannot take, for a directory yet to be created too (its nearest
// existing ancestor's file system), and SaveModel writes nothing then.
func TestModelSpaceCheckedFirst(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 10, 1, true
	run, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	dir := filepath.Join(t.TempDir(), "not", "yet")
	defer func(f func(string) (uint64, bool)) { freeDisk = f }(freeDisk)
	freeDisk = func(string) (uint64, bool) { return 1 << 20, true }
	if err := run.CheckModelSpace(dir); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("CheckModelSpace = %v; want does not fit", err)
	}
	if _, err := run.SaveModel(dir); err == nil {
		t.Fatal("SaveModel wrote a model the disk cannot take")
	}
	if _, err := os.Stat(filepath.Join(dir, ModelNodesFile)); err == nil {
		t.Error("a refused model was written")
	}
	freeDisk = func(string) (uint64, bool) { return 1 << 40, true }
	if err := run.CheckModelSpace(dir); err != nil {
		t.Fatal(err)
	}
}

// TestMemoryEstimateBeforeGenerating: case 11. A generated data set too
// large for the memory (metric learning at d = 2000: n·d² of state) is
// refused by the estimate before the generator allocates its 1.6 GB.
func TestMemoryEstimateBeforeGenerating(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 1 << 30 }
	cfg := DefaultConfig()
	cfg.Problem, cfg.Data, cfg.N, cfg.Dim, cfg.Classes = "metric", "synthetic-metric", 100000, 2000, 10
	cfg.Reg = ""
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Prepare(cfg)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "needs about") {
		t.Fatalf("err = %v; want the memory estimate's refusal", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("refused after allocating %d MiB", got>>20)
	}
}
