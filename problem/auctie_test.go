package problem

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// scanAUCSorted is aucSorted as it was, scanning past the ties (NaN
// scores, sorted first, count as it counts them).
func scanAUCSorted(posS, negS []float64) float64 {
	slices.Sort(negS)
	var twice int64
	for _, si := range posS {
		lo, _ := slices.BinarySearch(negS, si)
		hi := lo
		for hi < len(negS) && negS[hi] == si {
			hi++
		}
		twice += 2*int64(lo) + int64(hi-lo)
	}
	return float64(twice) / (2 * float64(len(posS)) * float64(len(negS)))
}

// TestAUCSortedTies: aucSorted counts ties as one half, as the pair-by-pair
// count does, with NaN scores and signed zeros among them, and in
// O(n log n) when every score ties (the scan past the ties was quadratic:
// seconds a node at θ = 0, the first measurement, for n in the tens of
// thousands).
func TestAUCSortedTies(t *testing.T) {
	brute := func(pos, neg []float64) float64 {
		var twice int64
		for _, a := range pos {
			for _, b := range neg {
				switch {
				case a > b:
					twice += 2
				case a == b:
					twice++
				}
			}
		}
		return float64(twice) / (2 * float64(len(pos)) * float64(len(neg)))
	}
	nan := math.NaN()
	for _, c := range [][2][]float64{
		{{0, 0, 1}, {0, 0, 0, -1}},
		{{1, 2, 2, 3}, {2, 2, 2, 1, 3, 3}},
		{{math.Copysign(0, -1), 0}, {0, math.Copysign(0, -1), 1}},
		{{nan, 1, 0}, {0, nan, 1, 1}},
	} {
		got := aucSorted(append([]float64(nil), c[0]...), append([]float64(nil), c[1]...))
		want := scanAUCSorted(append([]float64(nil), c[0]...), append([]float64(nil), c[1]...))
		if got != want {
			t.Errorf("%v vs %v: %v, the scan's %v", c[0], c[1], got, want)
		}
		if !math.IsNaN(c[0][0]) && got != brute(c[0], c[1]) {
			t.Errorf("%v vs %v: %v, want %v", c[0], c[1], got, brute(c[0], c[1]))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	vals := []float64{nan, -1, math.Copysign(0, -1), 0, 0.5, 1}
	for k := 0; k < 500; k++ {
		pos, neg := make([]float64, 1+r.IntN(9)), make([]float64, 1+r.IntN(9))
		for _, v := range [][]float64{pos, neg} {
			for i := range v {
				v[i] = vals[r.IntN(len(vals))]
			}
		}
		if got, want := aucSorted(slices.Clone(pos), slices.Clone(neg)), scanAUCSorted(slices.Clone(pos), slices.Clone(neg)); got != want {
			t.Fatalf("%v vs %v: %v, the scan's %v", pos, neg, got, want)
		}
	}
	n := 200000
	zeros := make([]float64, n)
	t0 := time.Now()
	if a := aucSorted(zeros[:n/2], zeros[n/2:]); a != 0.5 {
		t.Fatalf("all tied: %v", a)
	}
	// The scan: 10¹⁰ comparisons, seconds.
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("all tied at n = %d: %v", n, d)
	}
}
