package engine

import (
	"runtime"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// TestEstimateMemory: the estimate that the executor table gives before
// anything is allocated is within 15% (plus 256 KiB of fixed buffers and goroutine stacks) of
// what New allocates, for every executor.
func TestEstimateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 100 MB")
	}
	for _, c := range []struct {
		name     string
		loss     problem.Loss
		reg      problem.Regularizer
		algo     Algorithm
		schedule Schedule
		workers  int
		n, d     int
	}{
		{"reduced", problem.AUCLogistic, problem.Regularizer{}, Sync, ScheduleReduced, 2, 40000, 16},
		{"blocked", problem.AUCLogistic, problem.Regularizer{}, Sync, ScheduleBlocked, 2, 40000, 16},
		{"plain", problem.AUCHinge, problem.Regularizer{}, Sync, SchedulePlain, 1, 40000, 16},
		{"reference", problem.AUCHinge, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.1}, Sync, ScheduleReference, 2, 40000, 16},
		{"async", problem.AUCLogistic, problem.Regularizer{}, Async, SchedulePlain, 1, 40000, 16},
		{"async-parallel", problem.AUCLogistic, problem.Regularizer{}, Async, SchedulePlain, 2, 40000, 16},
		{"cone", problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, Sync, ScheduleReduced, 2, 3000, 12},
		{"async-cone", problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, Async, ScheduleAuto, 1, 3000, 12},
		{"async-cone-parallel", problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, Async, ScheduleAuto, 2, 5000, 12},
		{"centralized", problem.AUCLogistic, problem.Regularizer{}, Centralized, ScheduleAuto, 1, 40000, 16},
		// A user objective (problem.Custom: the user copy of the AUC
		// logistic loss) on the generic executors.
		{"generic-blocked", problem.Custom, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.01}, Sync, ScheduleBlocked, 2, 40000, 16},
		{"generic-plain", problem.Custom, problem.Regularizer{}, Sync, SchedulePlain, 2, 40000, 16},
		{"generic-async-parallel", problem.Custom, problem.Regularizer{}, Async, ScheduleAuto, 2, 40000, 16},
	} {
		var p *problem.Problem
		if c.loss == problem.Custom {
			p = asObjective(t, testProblem(t, problem.AUCLogistic, c.reg, c.n, c.d, 1), userLogistic{"user-logistic"}, nil)
		} else {
			p = testProblem(t, c.loss, c.reg, c.n, c.d, 1)
		}
		var g *graph.Graph
		if c.algo != Centralized {
			g = mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: c.n, K: 6, P: 0.2, Seed: 1})
		}
		cfg := Config{Algorithm: c.algo, Iters: 10, GammaC: 0.1, Seed: 1, Workers: c.workers, LogPoints: 1, EvalNodes: 1, Schedule: c.schedule}
		est, err := EstimateMemory(ShapeOf(p, g), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := New(p, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		// The measurement is estimated apart (the evaluator's memory is the
		// problem's): take out what another measurer of the run allocates.
		runtime.ReadMemStats(&before)
		newMeasurer(s.state, s.crew.n, s.crew.ws[0])
		runtime.ReadMemStats(&after)
		got -= int64(after.TotalAlloc - before.TotalAlloc)
		want := est.State + est.Executor
		t.Logf("%s: estimated %d B (state %d, executor %d), New allocated %d B", c.name, want, est.State, est.Executor, got)
		if d := got - want; d > want*15/100+256<<10 || -d > want*15/100+256<<10 {
			t.Errorf("%s: estimated %d B, New allocated %d B", c.name, want, got)
		}
		s.Close()
	}
}
