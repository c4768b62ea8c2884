package problem

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomTridiag draws a symmetric tridiagonal of order n (kind mod 3 picks
// the kind): from a Gaussian or clustered spectrum through tridiagFull, or
// raw with graded diagonals and tiny off-diagonal entries that split it.
func randomTridiag(r *rand.Rand, n, kind int) (diag, off []float64) {
	diag, off = make([]float64, n), make([]float64, n)
	switch kind % 3 {
	case 0, 1:
		l := make([]float64, n)
		vals := []float64{r.NormFloat64(), r.NormFloat64(), 0}
		for c := range l {
			if kind%3 == 0 {
				l[c] = r.NormFloat64()
			} else {
				l[c] = vals[r.IntN(3)] * (1 + 1e-14*r.NormFloat64())
			}
		}
		a := symFromSpectrum(r, l)
		tridiagFull(n, a, diag, off, make([]float64, n), make([]float64, 2*n))
	default:
		for i := range diag {
			diag[i] = r.NormFloat64() * math.Pow(10, -float64(r.IntN(8)))
			off[i] = r.NormFloat64()
			if r.IntN(5) == 0 {
				off[i] *= 1e-17
			}
		}
	}
	off[n-1] = 0
	return diag, off
}

// scaledTridiag is randomTridiag, sometimes scaled by 2^±660
// (pwkEigenvalues scales such blocks itself).
func scaledTridiag(r *rand.Rand, n, kind int) (diag, off []float64) {
	diag, off = randomTridiag(r, n, kind)
	if s := []float64{1, 1, 1, 0x1p660, 0x1p-660}[r.IntN(5)]; s != 1 {
		for i := range diag {
			diag[i] *= s
			off[i] *= s
		}
	}
	return diag, off
}

// TestPWKPairMatchesSingle: pwkPair gives each block pwkEigenvalues'
// eigenvalues, success flag and off-diagonal leftovers bit for bit, on
// pairs of random tridiagonals of unrelated orders 1..64 (so either sweep
// may be the longer, QL beside QR), including the iteration limit (a
// NaN block never converges).
func TestPWKPairMatchesSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	failed := 0 // pairs where the NaN block did not converge
	for it := 0; it < 3000; it++ {
		d1, e1 := scaledTridiag(r, 1+r.IntN(64), it)
		d2, e2 := scaledTridiag(r, 1+r.IntN(64), it/3+r.IntN(3))
		if it%97 == 0 && len(e2) > 1 {
			e2[0] = math.NaN()
		}
		w1, we1, w2, we2 := slices.Clone(d1), slices.Clone(e1), slices.Clone(d2), slices.Clone(e2)
		ok1, ok2 := pwkEigenvalues(w1, we1), pwkEigenvalues(w2, we2)
		g1, ge1, g2, ge2 := slices.Clone(d1), slices.Clone(e1), slices.Clone(d2), slices.Clone(e2)
		h1, h2 := pwkPair(g1, ge1, g2, ge2)
		if h1 != ok1 || h2 != ok2 {
			t.Fatalf("it %d: ok (%v, %v), single (%v, %v)", it, h1, h2, ok1, ok2)
		}
		if !h2 {
			failed++
		}
		for _, c := range [][2][]float64{{g1, w1}, {ge1, we1}, {g2, w2}, {ge2, we2}} {
			for i := range c[0] {
				if !sameBits(c[0][i], c[1][i]) {
					t.Fatalf("it %d: entry %d: pair %v, single %v", it, i, c[0][i], c[1][i])
				}
			}
		}
	}
	if failed == 0 {
		t.Fatal("no pair reached the iteration limit: the NaN case was not exercised")
	}
}

// BenchmarkPWK times the eigenvalues of two tridiagonals of order 40 from
// Gaussian spectra: two pwkEigenvalues calls against one pwkPair.
func BenchmarkPWK(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	d1, e1 := randomTridiag(r, 40, 0)
	d2, e2 := randomTridiag(r, 40, 0)
	w1, f1, w2, f2 := make([]float64, 40), make([]float64, 40), make([]float64, 40), make([]float64, 40)
	reset := func() {
		copy(w1, d1)
		copy(f1, e1)
		copy(w2, d2)
		copy(f2, e2)
	}
	b.Run("two-single", func(b *testing.B) {
		for b.Loop() {
			reset()
			pwkEigenvalues(w1, f1)
			pwkEigenvalues(w2, f2)
		}
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			reset()
			pwkPair(w1, f1, w2, f2)
		}
	})
}

// TestProjectPSDSelectPairMatchesSingle: ProjectPSDSelectPair is two
// ProjectPSDSelect calls bit for bit (results, positive counts, success),
// for every pair of selectCases matrices of an order (diagonal cases split
// into blocks and take the sequential path; NaN and infinite entries fail)
// at orders 1..41 (both sides of tridiagLowerMax).
func TestProjectPSDSelectPairMatchesSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for d := 1; d <= 41; d++ {
		cs := selectCases(r, d)
		nanM := make([]float64, d*d)
		nanM[r.IntN(d*d)] = math.NaN()
		cs["nan"] = nanM
		names := make([]string, 0, len(cs))
		for n := range cs {
			names = append(names, n)
		}
		slices.Sort(names)
		s1, s2, w1, w2 := NewWorkspace(d), NewWorkspace(d), NewWorkspace(d), NewWorkspace(d)
		for x, n1 := range names {
			n2 := names[(x*7+3)%len(names)]
			v1, v2 := cs[n1], cs[n2]
			want1, want2 := make([]float64, d*d), make([]float64, d*d)
			q1, k1 := s1.ProjectPSDSelect(want1, v1, -1)
			q2, k2 := s2.ProjectPSDSelect(want2, v2, -1)
			got1, got2 := make([]float64, d*d), make([]float64, d*d)
			p1, o1, p2, o2 := ProjectPSDSelectPair(w1, w2, got1, v1, got2, v2, -1)
			if p1 != q1 || o1 != k1 || p2 != q2 || o2 != k2 {
				t.Fatalf("d=%d %s/%s: pair (%d %v, %d %v), single (%d %v, %d %v)", d, n1, n2, p1, o1, p2, o2, q1, k1, q2, k2)
			}
			for i := range got1 {
				if !sameBits(got1[i], want1[i]) || !sameBits(got2[i], want2[i]) {
					t.Fatalf("d=%d %s/%s: entry %d: pair (%v, %v), single (%v, %v)", d, n1, n2, i, got1[i], got2[i], want1[i], want2[i])
				}
			}
		}
	}
}

// sameBits reports whether a and b have the same bits, or are both NaN.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// FuzzPWKPair: pwkPair against two pwkEigenvalues calls, bit for bit, on
// fuzzed pairs of tridiagonals (orders, kinds and one fuzzed entry of each).
func FuzzPWKPair(f *testing.F) {
	f.Add(uint8(10), uint8(7), uint8(0), int64(1), 0.5, 1e-300)
	f.Add(uint8(40), uint8(40), uint8(5), int64(2), math.Inf(1), 0.0)
	f.Fuzz(func(t *testing.T, n1, n2, kind uint8, seed int64, v1, v2 float64) {
		r := rand.New(rand.NewPCG(uint64(seed), 9))
		d1, e1 := scaledTridiag(r, 1+int(n1)%64, int(kind))
		d2, e2 := scaledTridiag(r, 1+int(n2)%64, int(kind>>2))
		d1[r.IntN(len(d1))], e2[r.IntN(len(e2))] = v1, v2
		w1, we1, w2, we2 := slices.Clone(d1), slices.Clone(e1), slices.Clone(d2), slices.Clone(e2)
		ok1, ok2 := pwkEigenvalues(w1, we1), pwkEigenvalues(w2, we2)
		h1, h2 := pwkPair(d1, e1, d2, e2)
		if h1 != ok1 || h2 != ok2 {
			t.Fatalf("ok (%v, %v), single (%v, %v)", h1, h2, ok1, ok2)
		}
		for _, c := range [][2][]float64{{d1, w1}, {e1, we1}, {d2, w2}, {e2, we2}} {
			for i := range c[0] {
				if !sameBits(c[0][i], c[1][i]) {
					t.Fatalf("entry %d: pair %v, single %v", i, c[0][i], c[1][i])
				}
			}
		}
	})
}
