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

// TestIncompleteReach: metric learning beyond the pair budget is in reach
// as the incomplete-U optimum: SolveOptimum labels it with its pairs and
// gives its standard error, which the summary carries.
func TestIncompleteReach(t *testing.T) {
	n, d := 10000, 2 // n²(1 + d/16) pairs, beyond optimumPairBudget
	x, y := make([]float64, n*d), make([]int32, n)
	for i := range y {
		x[i*d], x[i*d+1], y[i] = float64(i%97)/97+float64(i%3), float64(i%13)/13, int32(i%3)
	}
	p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, n, d, x, y)
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Problem: p, Config: Config{NoOptimumCache: true}}
	if r.exactOutOfReach() == "" || r.optimumOutOfReach() != "" || r.incompletePairs() != 1<<20 {
		t.Fatalf("reach: exact %q, optimum %q, pairs %d", r.exactOutOfReach(), r.optimumOutOfReach(), r.incompletePairs())
	}
	o, _, err := r.SolveOptimum(problem.OptimumOptions{MaxIter: 200})
	if err != nil {
		t.Fatal(err)
	}
	if o.Method != "incomplete-u (1048576 pairs)" || !(o.StdErr > 0) || !(o.StdErr < 1e-2*o.Value) {
		t.Fatalf("method %q, value %g, stderr %g", o.Method, o.Value, o.StdErr)
	}
	// summary.json reports it as optimum_stderr (output.TestSummaryOptimumStdErr).
}
