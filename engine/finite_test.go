package engine

import (
	"math"
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
