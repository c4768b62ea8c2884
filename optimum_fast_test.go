package pairgossip

import (
	"testing"

	"github.com/pairgossip/pairgossip/problem"
)

// TestOptimumReachFast: the optimum is in reach at any n for the losses
// with the fast pair sums (logistic, squared hinge; ψ none or ℓ2²) and
// stays out of reach beyond the pair budget for the rest (the hinge, ℓ1).
func TestOptimumReachFast(t *testing.T) {
	n := 30000 // 2.25·10⁸ pairs, beyond optimumPairBudget
	x, y := make([]float64, n), make([]int32, n)
	for i := range x {
		x[i], y[i] = float64(i%97), int32(1-2*(i%2))
	}
	for _, c := range []struct {
		loss  problem.Loss
		reg   problem.Regularizer
		reach bool
	}{
		{problem.AUCLogistic, problem.Regularizer{}, true},
		{problem.AUCSquaredHinge, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.1}, true},
		{problem.AUCHinge, problem.Regularizer{}, false},
		{problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.1}, false},
	} {
		p, err := problem.New(c.loss, c.reg, 0, n, 1, x, y)
		if err != nil {
			t.Fatal(err)
		}
		why := (&Run{Problem: p}).optimumOutOfReach()
		if (why == "") != c.reach {
			t.Errorf("%v %v: out of reach %q, want in reach %v", c.loss, c.reg.Kind, why, c.reach)
		}
	}
}

// TestOptimumReachRanking: multipartite ranking with the logistic or
// squared-hinge surrogate (ψ none or ℓ2²) is in reach at any n through
// the level-by-level fast sums; the hinge surrogate is not.
func TestOptimumReachRanking(t *testing.T) {
	n := 30000
	x, y := make([]float64, n), make([]int32, n)
	for i := range x {
		x[i], y[i] = float64(i%97), int32(i%3)
	}
	for _, c := range []struct {
		name  string
		reg   problem.Regularizer
		reach bool
	}{
		{"ranking", problem.Regularizer{}, true},
		{"ranking-squared-hinge", problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.1}, true},
		{"ranking-hinge", problem.Regularizer{}, false},
		{"ranking", problem.Regularizer{Kind: problem.RegL1, Lambda: 0.1}, false},
	} {
		obj, err := problem.NewObjectiveByName(c.name, y)
		if err != nil {
			t.Fatal(err)
		}
		p, err := problem.NewObjective(obj, c.reg, n, 1, x, y)
		if err != nil {
			t.Fatal(err)
		}
		why := (&Run{Problem: p}).optimumOutOfReach()
		if (why == "") != c.reach {
			t.Errorf("%s %v: out of reach %q, want in reach %v", c.name, c.reg.Kind, why, c.reach)
		}
	}
}
