package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistMatchesRef: Dist is its reference loop (distRef) bit for bit at
// every d from 0 to 130 (past distMaxD, where it is the reference), with
// zero components of δ (whose rows are skipped: a NaN there must not
// leak), unaligned slices and random magnitudes.
func TestDistMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for d := 0; d <= 130; d++ {
		p := &Problem{D: d}
		for rep := 0; rep < 20; rep++ {
			off := rng.IntN(3)
			th := make([]float64, off+d*d)[off:]
			xi, xj := make([]float64, d+1)[1:], make([]float64, d)
			for i := range th {
				th[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
			}
			for c := 0; c < d; c++ {
				xi[c], xj[c] = rng.NormFloat64(), rng.NormFloat64()
				if rng.IntN(4) == 0 { // δ_c = 0: row c skipped
					xj[c] = xi[c]
					if rng.IntN(2) == 0 {
						th[c*d+rng.IntN(d)] = math.NaN()
					}
				}
			}
			got, want := p.Dist(th, xi, xj), distRef(d, th, xi, xj)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("d=%d rep %d: Dist %v, reference %v", d, rep, got, want)
			}
		}
	}
}

// FuzzDist: Dist against distRef on fuzzed values (d from the input).
func FuzzDist(f *testing.F) {
	f.Add(uint8(5), int64(1), 0.5, -2.0)
	f.Add(uint8(40), int64(7), 0.0, math.Inf(1))
	f.Fuzz(func(t *testing.T, dd uint8, seed int64, v0, v1 float64) {
		d := int(dd) % 131
		rng := rand.New(rand.NewPCG(uint64(seed), 3))
		th := make([]float64, d*d)
		xi, xj := make([]float64, d), make([]float64, d)
		for i := range th {
			th[i] = rng.NormFloat64()
		}
		for c := 0; c < d; c++ {
			xi[c], xj[c] = rng.NormFloat64(), rng.NormFloat64()
			if rng.IntN(3) == 0 {
				xj[c] = xi[c]
			}
		}
		if d > 0 {
			th[rng.IntN(d*d)], xi[rng.IntN(d)] = v0, v1
		}
		p := &Problem{D: d}
		got, want := p.Dist(th, xi, xj), distRef(d, th, xi, xj)
		if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
			t.Fatalf("d=%d: Dist %v, reference %v", d, got, want)
		}
	})
}

// BenchmarkDist times Dist at d = 10 and 40 beside its reference loop
// (distRef), the same bits: go test ./problem -run '^$' -bench Dist -count 5.
func BenchmarkDist(b *testing.B) {
	for _, d := range []int{10, 40} {
		p := &Problem{D: d}
		rng := rand.New(rand.NewPCG(1, 2))
		th, xi, xj := make([]float64, d*d), make([]float64, d), make([]float64, d)
		for i := range th {
			th[i] = rng.NormFloat64()
		}
		for c := range xi {
			xi[c], xj[c] = rng.NormFloat64(), rng.NormFloat64()
		}
		var sink float64
		b.Run(fmt.Sprintf("d=%d/rows4", d), func(b *testing.B) {
			for b.Loop() {
				sink += p.Dist(th, xi, xj)
			}
		})
		b.Run(fmt.Sprintf("d=%d/reference", d), func(b *testing.B) {
			for b.Loop() {
				sink += distRef(d, th, xi, xj)
			}
		})
		if sink == 1 {
			b.Log(sink)
		}
	}
}
