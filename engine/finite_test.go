package engine

import (
	"math"
	"strings"
	"testing"
)

// TestFinite: finite is true for every row of finite values (up to ¾ of
// the largest) of length 0..130 and false as soon as one entry, at any
// position, is +Inf, −Inf or NaN.
func TestFinite(t *testing.T) {
	for n := 0; n <= 130; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i%7-3) * (math.MaxFloat64 / 4)
		}
		if !finite(v) {
			t.Fatalf("n=%d: finite row reported non-finite", n)
		}
		for pos := 0; pos < n; pos++ {
			for _, bad := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
				old := v[pos]
				v[pos] = bad
				if finite(v) {
					t.Fatalf("n=%d: %v at %d not caught", n, bad, pos)
				}
				v[pos] = old
			}
		}
	}
}

// BenchmarkFinite times finite on a d×d row of metric learning (d = 40)
// beside the one-accumulator loop it replaced:
// go test ./engine -run '^$' -bench Finite -count 5.
func BenchmarkFinite(b *testing.B) {
	v := make([]float64, 1600)
	for i := range v {
		v[i] = float64(i)
	}
	ok := true
	b.Run("four-accumulators", func(b *testing.B) {
		for b.Loop() {
			ok = ok && finite(v)
		}
	})
	b.Run("one-accumulator", func(b *testing.B) {
		for b.Loop() {
			var acc float64
			for _, x := range v {
				acc += x - x
			}
			ok = ok && acc == 0
		}
	})
	if !ok {
		b.Fatal("finite row reported non-finite")
	}
}

// TestDivergenceMessageNodeUnknown: a divergence whose node is not known
// (Node −1: over MPI ranks, when the collective naming it failed) says so,
// never "node -1".
func TestDivergenceMessageNodeUnknown(t *testing.T) {
	known := (&DivergenceError{Iter: 12, Node: 7, Field: "z (dual variable)"}).Message("--gamma-c")
	if known != "divergence at iteration 12, node 7: z (dual variable) is not finite (reduce --gamma-c?)" {
		t.Errorf("known node: %q", known)
	}
	unknown := (&DivergenceError{Iter: 12, Node: -1, Field: "z (dual variable)"}).Message("--gamma-c")
	if strings.Contains(unknown, "node -1") || !strings.Contains(unknown, "divergence at iteration 12") || !strings.Contains(unknown, "did not agree on which") {
		t.Errorf("unknown node: %q", unknown)
	}
}
