package problem

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

// TestSolveCancel: a cancelled OptimumOptions.Context stops the solve within
// a fraction of one evaluation of the objective (checked at every positive
// point, or block of rows, or phase of a fast pair sum), with an error
// wrapping context.Canceled, on each solver: L-BFGS on the fast pair sums
// (logistic at n = 10⁶: the exact sums are used only below 2^20 pairs,
// where a solve ends before any cancel), FISTA over chunked pairs (hinge),
// FISTA on metric learning.
func TestSolveCancel(t *testing.T) {
	// Cancelled before it starts: nothing is solved.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := randomProblem(t, AUCLogistic, Regularizer{}, 50, 3, 1).Solve(OptimumOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: err %v", err)
	}
	if testing.Short() {
		// A problem of 10⁶ points and a latency bound in wall time: not for
		// the short runs (noasm, and arm64 under emulation, where a phase of
		// a sum takes many times longer).
		t.Skip("the cancellation latency at n = 10⁶ (seconds of set-up)")
	}
	for _, c := range []struct {
		name string
		p    func() *Problem
	}{
		{"lbfgs-fast", func() *Problem { return randomProblem(t, AUCLogistic, Regularizer{}, 1_000_000, 8, 1) }},
		{"fista-chunked", func() *Problem { return randomProblem(t, AUCHinge, Regularizer{}, 24000, 8, 1) }},
		{"fista-metric", func() *Problem { return syntheticMetric(t, 3000, 16) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p()
			ctx, cancel := context.WithCancel(context.Background())
			at := make(chan time.Time, 1)
			go func() {
				time.Sleep(50 * time.Millisecond)
				at <- time.Now()
				cancel()
			}()
			_, err := p.Solve(OptimumOptions{Context: ctx})
			took := time.Since(<-at)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			// A cancel is seen within one positive point's row or block,
			// far less than an evaluation; the bound is half of the
			// second a Ctrl-C may take, slack for a loaded machine.
			if took > 500*time.Millisecond {
				t.Errorf("the solve returned %v after the cancel", took)
			}
		})
	}
}

// TestSolveContextSameBits: a solve with a context that is never cancelled
// gives the bits of one without.
func TestSolveContextSameBits(t *testing.T) {
	for _, p := range []*Problem{
		randomProblem(t, AUCLogistic, Regularizer{}, 300, 5, 2),
		randomProblem(t, AUCHinge, Regularizer{Kind: RegL1, Lambda: 0.01}, 300, 5, 2),
		randomProblem(t, AUCSquaredHinge, Regularizer{}, 1800, 4, 2), // chunked pairs
		syntheticMetric(t, 120, 6),
	} {
		a, err := p.Solve(OptimumOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Solve(OptimumOptions{Context: context.Background()})
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(a.Value) != math.Float64bits(b.Value) || !slices.Equal(a.Theta, b.Theta) || a.Iterations != b.Iterations {
			t.Errorf("%v: with a context %v (%d iterations), without %v (%d)", p.Loss, b.Value, b.Iterations, a.Value, a.Iterations)
		}
	}
}
