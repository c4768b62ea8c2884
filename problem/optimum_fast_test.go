package problem

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestFastOptimum: above 2^20 pairs the L-BFGS optimum of the smooth AUC
// losses is solved on the fast pair sums; it equals the exact solve's
// within 1e-8 relative (the logistic within its bound, the squared hinge
// exactly up to rounding), names the method and its bound, and gives the
// same bits for any number of workers.
func TestFastOptimum(t *testing.T) {
	for _, c := range []struct {
		loss Loss
		reg  Regularizer
	}{
		{AUCLogistic, Regularizer{}},
		{AUCLogistic, Regularizer{Kind: RegL2Sq, Lambda: 1e-3}},
		{AUCSquaredHinge, Regularizer{}},
	} {
		p := randomProblem(t, c.loss, c.reg, 2200, 5, 3)
		if !p.FastOptimum() {
			t.Fatalf("%v: no fast optimum at %d pairs", c.loss, len(p.pos)*len(p.neg))
		}
		fast, err := p.Solve(OptimumOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		fast3, err := p.Solve(OptimumOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(fast.Value) != math.Float64bits(fast3.Value) || !slices.Equal(fast.Theta, fast3.Theta) {
			t.Fatalf("%v: 1 and 3 workers differ: %v, %v", c.loss, fast.Value, fast3.Value)
		}
		save := fastOptimumPairs
		fastOptimumPairs = math.Inf(1)
		exact, err := p.Solve(OptimumOptions{})
		fastOptimumPairs = save
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(fast.Method, "lbfgs-fast") || exact.Method != "lbfgs" || exact.ErrorBound != 0 {
			t.Fatalf("methods %q, %q", fast.Method, exact.Method)
		}
		if !(fast.ErrorBound <= 1e-9*math.Abs(fast.Value)) {
			t.Errorf("%v: bound %g at value %g", c.loss, fast.ErrorBound, fast.Value)
		}
		if math.Abs(fast.Value-exact.Value) > 1e-8*math.Abs(exact.Value) {
			t.Errorf("%v: fast optimum %.17g, exact %.17g", c.loss, fast.Value, exact.Value)
		}
		// The reported value is within the bound of R_n at its θ.
		if r := p.Objective(fast.Theta); math.Abs(r-fast.Value) > fast.ErrorBound+1e-13*r {
			t.Errorf("%v: value %.17g, R_n(θ) %.17g, bound %g", c.loss, fast.Value, r, fast.ErrorBound)
		}
		t.Logf("%v: fast %.17g (%s, %d it), exact %.17g (%d it)", c.loss, fast.Value, fast.Method, fast.Iterations, exact.Value, exact.Iterations)
	}
}

// BenchmarkFastOptimum: the L-BFGS optimum on the fast pair sums, logistic,
// d = 16, one third positives (go test ./problem -run '^$' -bench
// FastOptimum -count 5).
func BenchmarkFastOptimum(b *testing.B) {
	for _, n := range []int{20_000, 1_000_000} {
		p := randomProblem(b, AUCLogistic, Regularizer{}, n, 16, 5)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Solve(OptimumOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
