package problem

import (
	"math"
	"slices"
	"testing"
)

// TestIncompleteOptimum: at a size where the exact metric optimum is
// affordable, the incomplete-U optimum on B sampled pairs is within a few
// standard errors of it, is labelled with B and its standard error, gives
// the same bits for 1 and 3 workers, and changes with the seed.
func TestIncompleteOptimum(t *testing.T) {
	p := randomProblem(t, MetricHinge, Regularizer{Kind: RegPSD}, 300, 4, 5)
	exact, err := p.Solve(OptimumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const B = 40000
	o1, err := p.Solve(OptimumOptions{Workers: 1, IncompletePairs: B, IncompleteSeed: 9})
	if err != nil {
		t.Fatal(err)
	}
	o3, err := p.Solve(OptimumOptions{Workers: 3, IncompletePairs: B, IncompleteSeed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(o1.Value) != math.Float64bits(o3.Value) || !slices.Equal(o1.Theta, o3.Theta) || o1.StdErr != o3.StdErr {
		t.Fatalf("1 and 3 workers differ: %v, %v", o1.Value, o3.Value)
	}
	if o1.Method != "incomplete-u (40000 pairs)" || !(o1.StdErr > 0) || exact.StdErr != 0 {
		t.Fatalf("method %q stderr %g (exact %q, %g)", o1.Method, o1.StdErr, exact.Method, exact.StdErr)
	}
	// The smoothing gaps (FinalMu/2 each) beside the sampling error.
	if d := math.Abs(o1.Value - exact.Value); d > 4*o1.StdErr+1e-3 {
		t.Errorf("incomplete %.6g ± %.2g, exact %.6g: %.1f standard errors", o1.Value, o1.StdErr, exact.Value, d/o1.StdErr)
	}
	// R_n at the sampled optimum is no better than the exact optimum.
	if r := p.Objective(o1.Theta); r < exact.Value-1e-3 {
		t.Errorf("R_n(θ̂) %.6g below the optimum %.6g", r, exact.Value)
	}
	o2, err := p.Solve(OptimumOptions{IncompletePairs: B, IncompleteSeed: 10})
	if err != nil {
		t.Fatal(err)
	}
	if o2.Value == o1.Value {
		t.Errorf("the seed is not used")
	}
	t.Logf("exact %.6g (%s); incomplete %.6g ± %.2g (%s), seed 10: %.6g", exact.Value, exact.Method, o1.Value, o1.StdErr, o1.Method, o2.Value)
}

// BenchmarkIncompleteOptimum: metric learning at n = 2·10⁴, d = 10 (the
// exact optimum out of reach), the incomplete-U optimum on 2^20 pairs (go
// test ./problem -run '^$' -bench IncompleteOptimum -benchtime 1x).
func BenchmarkIncompleteOptimum(b *testing.B) {
	p := randomProblem(b, MetricHinge, Regularizer{Kind: RegPSD}, 20_000, 10, 1)
	for b.Loop() {
		if _, err := p.Solve(OptimumOptions{IncompletePairs: IncompletePairs(p.N), IncompleteSeed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
