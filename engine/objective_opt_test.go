package engine

import (
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/problem"
)

// TestObjectivesReachOptimum: multipartite ranking (three levels, logistic
// surrogate, ψ = λ‖θ‖²) and bilinear similarity learning (a Frobenius ball)
// run by synchronous gossip on a generated set (n = 120, complete graph,
// 20000 rounds) end within 5% of their centralized optimum (problem.Solve:
// L-BFGS, Huber-FISTA). Measured: 1.0% and 3.0%. (The hinge surrogate and
// similarity with λ‖W‖²_F end about 11% and 7% above at this budget,
// whatever γ: the averaged iterate of the non-smooth objectives converges
// more slowly.)
func TestObjectivesReachOptimum(t *testing.T) {
	n, d := 120, 4
	r := rng.New(8, 1)
	x := make([]float64, n*d)
	lev := make([]int32, n)
	cls := make([]int32, n)
	w := []float64{1, -0.5, 0.8, 0.3}
	for i := 0; i < n; i++ {
		var s float64
		cls[i] = int32(i % 3)
		for a := 0; a < d; a++ {
			v := r.Normal()
			if a == int(cls[i]) {
				v += 1.5
			}
			x[i*d+a] = v
			s += w[a] * v
		}
		s += 0.5 * r.Normal()
		switch {
		case s > 0.8:
			lev[i] = 2
		case s > -0.8:
			lev[i] = 1
		}
	}
	g := mustGraph(t, graph.Spec{Kind: "complete", N: n})
	rk, _ := problem.NewRanking(problem.AUCLogistic)
	cases := []struct {
		obj    problem.Objective
		labels []int32
		reg    problem.Regularizer
		gamma  float64
	}{
		{rk, lev, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.1}, 1},
		{problem.NewSimilarity(cls), cls, problem.Regularizer{Kind: problem.RegL2Ball, Radius: 1}, 5},
	}
	for _, c := range cases {
		p, err := problem.NewObjective(c.obj, c.reg, n, d, x, c.labels)
		if err != nil {
			t.Fatal(err)
		}
		opt, err := p.Solve(problem.OptimumOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := runTrace(t, p, g, Config{Algorithm: Sync, Iters: 20000, GammaC: c.gamma, Seed: 1, Workers: 2, LogPoints: 3, EvalNodes: -1})
		final := tr[len(tr)-1].ObjMean
		rel := (final - opt.Value) / opt.Value
		t.Logf("%s %s: gossip %.6g, optimum %.6g (%s), %.2f%% above", c.obj.Info().Name, c.reg.Kind, final, opt.Value, opt.Method, 100*rel)
		if rel > 0.05 || rel < -1e-3 {
			t.Fatalf("%s %s: gossip objective %.6g is %.2f%% from the optimum %.6g", c.obj.Info().Name, c.reg.Kind, final, 100*rel, opt.Value)
		}
	}
}
