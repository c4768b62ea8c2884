package pairgossip

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

func execute(t *testing.T, cfg Config) *Result {
	t.Helper()
	_, res := executed(t, cfg)
	return res
}

// executed prepares and runs cfg; the run is closed when the test ends.
func executed(t *testing.T, cfg Config) (*Run, *Result) {
	t.Helper()
	return executedInput(t, cfg, Input{})
}

// executedInput is executed with what in holds.
func executedInput(t *testing.T, cfg Config, in Input) (*Run, *Result) {
	t.Helper()
	run, err := PrepareInput(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run.Close)
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return run, res
}

// TestBreastCancerConvergence: on the complete graph every algorithm's mean
// objective decreases towards the centralized optimum, and Algorithm 1
// reaches within 5% of it.
func TestBreastCancerConvergence(t *testing.T) {
	base := DefaultConfig()
	base.Graph = "complete"
	base.LogPoints = 12
	base.EvalNodes = 48

	cen := base
	cen.Algorithm, cen.Iters, cen.GammaC = "centralized", 1_000_000, 10
	rc := execute(t, cen)
	opt := rc.Optimum.Value
	if !rc.Optimum.Converged || opt <= 0 || opt > 0.01 {
		t.Fatalf("optimum %+v", rc.Optimum)
	}
	if gap := (rc.Final.ObjMean - opt) / opt; gap < 0 || gap > 0.05 {
		t.Fatalf("Algorithm 1: objective %g is %.1f%% above the optimum %g", rc.Final.ObjMean, 100*gap, opt)
	}

	r0 := 0.156586 // R_n(0) = 110378·ln2/699²
	for _, c := range []struct {
		algo, baseline string
		iters          int64
		want           float64 // final mean objective must be below
	}{
		{"sync", "gossip", 4000, 0.08},
		{"async", "gossip", 100000, 0.01},
		{"sync", "unbiased", 2000, 0.06},
		{"async", "unbiased", 100000, 0.01},
	} {
		cfg := base
		cfg.Algorithm, cfg.Baseline, cfg.Iters, cfg.SkipOptimum = c.algo, c.baseline, c.iters, true
		res := execute(t, cfg)
		first, last := res.Trace[0], res.Final
		// Gossip nodes start with y_k = x_k, a pair that never contributes,
		// so after one round θ̄ is still 0; the baseline moves at once.
		if c.baseline == "gossip" && math.Abs(first.ObjMean-r0) > 1e-5 || first.ObjMean > r0+1e-5 {
			t.Errorf("%s/%s: first objective %g, R_n(0) = %g", c.algo, c.baseline, first.ObjMean, r0)
		}
		if !(last.ObjMean < c.want) || last.ObjMean < opt {
			t.Errorf("%s/%s: final objective %g, want in [optimum %g, %g)", c.algo, c.baseline, last.ObjMean, opt, c.want)
		}
		// Mostly decreasing: the second half of the trace never climbs back above its first point.
		half := res.Trace[len(res.Trace)/2:]
		for _, r := range half[1:] {
			if r.ObjMean > half[0].ObjMean {
				t.Errorf("%s/%s: objective rises to %g at %d", c.algo, c.baseline, r.ObjMean, r.Iter)
			}
		}
	}
}

// TestPointsPerNode runs on G ⊗ K_k: 699 points on 233 physical nodes, 3 each.
func TestPointsPerNode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PointsNode, cfg.Iters, cfg.LogPoints, cfg.EvalNodes, cfg.SkipOptimum = 3, 300, 4, 16, true
	run, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if run.Graph.N != 699 || run.Graph.UndirectedEdges() != 9*466 {
		t.Fatalf("tensor graph: n=%d, %d edges", run.Graph.N, run.Graph.UndirectedEdges())
	}
	base, _ := graph.WattsStrogatz(233, 5, 0.3, 1)
	if base.UndirectedEdges() != 466 {
		t.Fatalf("base graph has %d edges", base.UndirectedEdges())
	}
	if _, err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// TestMetricLearningConverges: synthetic set, asynchronous, PSD cone.
func TestMetricLearningConverges(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Problem, cfg.Data, cfg.Reg, cfg.Graph = "metric", "synthetic", "psd", "complete"
	cfg.Algorithm, cfg.Iters, cfg.GammaC, cfg.LogPoints, cfg.EvalNodes, cfg.SkipOptimum = "async", 3000, 0.01, 6, 4, true
	res := execute(t, cfg)
	if !(res.Final.ObjMean < 0.9*res.Trace[0].ObjMean) {
		t.Fatalf("metric learning: objective %g -> %g", res.Trace[0].ObjMean, res.Final.ObjMean)
	}
}

func TestMemoryRefusal(t *testing.T) {
	saved := availableMemory
	availableMemory = func() int64 { return 1 << 30 }
	defer func() { availableMemory = saved }()
	cfg := DefaultConfig()
	cfg.Graph = "complete"
	err := checkMemory(cfg, 1_000_000, 16, 2, nil)
	if err == nil || !strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "GiB") {
		t.Fatalf("want a refusal with the size, got %v", err)
	}
	if err := checkMemory(DefaultConfig(), 699, 9, 2, nil); err != nil {
		t.Fatalf("the paper's run refused: %v", err)
	}
	est := EstimateMemory(cfg, 1_000_000, 16, 2)
	if est.Graph < 1<<40 {
		t.Fatalf("complete graph on 1e6 nodes estimated at %d bytes", est.Graph)
	}
}

// TestRegDefault: an empty regulariser is the PSD cone for metric learning
// however the loss is spelled, none otherwise, and Run.Config says so.
func TestRegDefault(t *testing.T) {
	for _, c := range []struct{ problem, want string }{{"metric", "psd"}, {"Metric", "psd"}, {"auc", "none"}} {
		cfg := DefaultConfig()
		cfg.Problem, cfg.Reg = c.problem, ""
		if got := cfg.WithDefaults().Reg; got != c.want {
			t.Errorf("%s: WithDefaults().Reg = %q, want %q", c.problem, got, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Problem, cfg.Reg, cfg.Iters, cfg.SkipOptimum = "Metric", "", 10, true
	run, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if run.Config.Reg != "psd" || run.Problem.Reg.Kind != problem.RegPSD {
		t.Fatalf("Prepare: Config.Reg %q, regulariser %s", run.Config.Reg, run.Problem.Reg.Kind)
	}
}

// TestLargeNIdenticalAcrossWorkers: a run large enough for the parallel
// set-up (synthetic data in parallel blocks, the parallel Watts–Strogatz
// generator from n = 131072, the engine's pool, the sampled measurement)
// gives the same trace, record for record and bit for bit, with 1, 2 and 8
// workers.
func TestLargeNIdenticalAcrossWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 150000")
	}
	// sampled: every row samples pairs; auto: the plan (one worker's
	// costs) and the identical-vector rule decide, never the worker count.
	for _, mode := range []string{"sampled", "auto"} {
		var ref []Record
		for _, w := range []int{1, 2, 8} {
			cfg := DefaultConfig()
			cfg.Data, cfg.N, cfg.Dim, cfg.Iters, cfg.LogPoints, cfg.Workers, cfg.SkipOptimum = "synthetic-auc", 150_000, 8, 3000, 6, w, true
			cfg.Measure = mode
			res := execute(t, cfg)
			if len(res.Trace) != 6 {
				t.Fatalf("%s, workers %d: %d records", mode, w, len(res.Trace))
			}
			if mode == "sampled" && res.Final.MeasurePairs == 0 {
				t.Fatalf("workers %d: the measurement was not sampled (pairs %d)", w, res.Final.MeasurePairs)
			}
			if ref == nil {
				ref = res.Trace
				continue
			}
			for i, r := range res.Trace {
				if r != ref[i] {
					t.Fatalf("%s, workers %d: record %d differs:\n%+v\n%+v", mode, w, i, r, ref[i])
				}
			}
		}
	}
}
