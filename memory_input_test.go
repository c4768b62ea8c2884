package pairgossip

import (
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/problem"
)

// userObjective is a pairwise loss a program passes in (Input.Objective),
// of the given shape; its methods are never called here.
func userObjective(matrix bool, P int) problem.Objective {
	return &problem.Pairwise{Name: "user-shape", Matrix: matrix, P: P,
		Func:     func(_, _, _ []float64, _, _ int) float64 { return 0 },
		GradFunc: func(_ []float64, _ float64, _, _, _ []float64, _, _ int) bool { return false }}
}

// TestEstimateMemoryInput: the memory estimate of a run with an objective
// passed in through the API counts the objective's own shape on the
// executors of a user objective: a d×d objective is estimated as the
// similarity problem (also d×d, also a user objective), a vector of P as
// the engine's estimate for that P, and neither as the AUC problem its
// unknown name used to fall back to.
func TestEstimateMemoryInput(t *testing.T) {
	n, d, workers := 100000, 16, 2
	for _, algo := range []string{"sync", "async"} {
		cfg := DefaultConfig()
		cfg.Algorithm, cfg.Graph, cfg.Problem = algo, "cycle", "user-shape"
		fallback := EstimateMemory(cfg, n, d, workers)

		matrix := EstimateMemoryInput(cfg, Input{Objective: userObjective(true, 0)}, n, d, workers)
		sim := cfg
		sim.Problem = "similarity"
		if want := EstimateMemory(sim, n, d, workers); matrix != want {
			t.Errorf("%s: a d×d objective estimated %v, the similarity problem %v", algo, matrix, want)
		}
		if !(matrix.State > 4*fallback.State) {
			t.Errorf("%s: a d×d objective's state estimated %d B, no more than the AUC shape's %d B", algo, matrix.State, fallback.State)
		}

		P := 40
		vec := EstimateMemoryInput(cfg, Input{Objective: userObjective(false, P)}, n, d, workers)
		a, _ := engine.ParseAlgorithm(algo)
		em, err := engine.EstimateMemory(engine.Shape{N: n, D: d, P: P, Loss: problem.Custom, Edges: n},
			engine.Config{Algorithm: a, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(n)*int64(d)*8 + em.State + em.Executor; vec.State != want {
			t.Errorf("%s: an objective with P = %d estimated state %d B, the engine's estimate %d B", algo, P, vec.State, want)
		}
		if plain := EstimateMemoryInput(cfg, Input{Objective: userObjective(false, 0)}, n, d, workers); !(vec.State > plain.State) {
			t.Errorf("%s: P = %d estimated %d B, P = d %d B", algo, P, vec.State, plain.State)
		}
	}
}

// TestInputObjectiveMemoryRefusal: a run of a d×d objective passed in
// through the API that would not fit is refused before anything large is
// allocated, with its size — which the AUC shape its name fell back to
// (about a sixtieth of it) would have let through.
func TestInputObjectiveMemoryRefusal(t *testing.T) {
	n, d := 2000, 64
	x, lab := memData(n, d)
	cfg := DefaultConfig()
	cfg.Algorithm, cfg.Graph, cfg.Iters, cfg.SkipOptimum = "sync", "cycle", 10, true
	in := Input{Objective: userObjective(true, 0), X: x, N: n, D: d, Labels: lab}
	named := cfg
	named.Problem = "user-shape"
	need := EstimateMemoryInput(named, in, n, d, 1).Total()
	if old := EstimateMemory(named, n, d, 1).Total(); !(old < need/4) {
		t.Fatalf("the AUC shape is estimated at %d B, the d×d objective at %d B", old, need)
	}
	saved := availableMemory
	availableMemory = func() int64 { return need / 2 }
	defer func() { availableMemory = saved }()
	_, err := PrepareInput(cfg, in)
	if err == nil || !strings.Contains(err.Error(), "needs about") {
		t.Fatalf("want a refusal with the size, got %v", err)
	}
}
