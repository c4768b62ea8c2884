package crng

import (
	"math"
	"slices"
	"testing"
)

func TestStreamIsAFunctionOfItsKey(t *testing.T) {
	a, b := New(1, 2, 3), New(1, 2, 3)
	for range 100 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("two streams with the same key differ")
		}
	}
	c, d := New(1, 2, 3), New(1, 2, 4)
	same := 0
	for range 100 {
		if c.Uint64() == d.Uint64() {
			same++
		}
	}
	if same > 0 {
		t.Errorf("streams for rows 3 and 4 agree on %d of 100 draws", same)
	}
}

// TestNormalDistribution checks moments, tail mass and a Kolmogorov–Smirnov
// statistic of 10⁶ draws spread over many streams.
func TestNormalDistribution(t *testing.T) {
	const rows, per = 100000, 10
	xs := make([]float64, 0, rows*per)
	for i := range uint64(rows) {
		s := New(7, 11, i)
		for range per {
			xs = append(xs, s.Normal())
		}
	}
	n := float64(len(xs))
	var m1, m2, m4 float64
	tail := 0
	for _, x := range xs {
		m1 += x
		m2 += x * x
		m4 += x * x * x * x
		if math.Abs(x) > zigR {
			tail++
		}
	}
	m1, m2, m4 = m1/n, m2/n, m4/n
	// Standard errors: mean 1/√n = 0.001, variance √(2/n) = 0.0014, fourth moment √(96/n) ≈ 0.01.
	if math.Abs(m1) > 0.005 || math.Abs(m2-1) > 0.007 || math.Abs(m4-3) > 0.05 {
		t.Errorf("moments: mean %v, E x² %v, E x⁴ %v", m1, m2, m4)
	}
	// P(|Z| > r) = erfc(r/√2) ≈ 2.58e-4: 258 expected, sd ≈ 16.
	if want := n * math.Erfc(zigR/math.Sqrt2); math.Abs(float64(tail)-want) > 6*math.Sqrt(want) {
		t.Errorf("%d draws beyond r, want ≈ %.0f", tail, want)
	}
	slices.Sort(xs)
	dmax := 0.0
	for i, x := range xs {
		cdf := 0.5 * math.Erfc(-x/math.Sqrt2)
		dmax = max(dmax, math.Abs(cdf-float64(i)/n), math.Abs(cdf-float64(i+1)/n))
	}
	// The 0.1% critical value of the KS statistic is 1.95/√n.
	if crit := 1.95 / math.Sqrt(n); dmax > crit {
		t.Errorf("Kolmogorov–Smirnov distance %v > %v", dmax, crit)
	}
}

func TestFloat64Range(t *testing.T) {
	s := New(0, 0, 0)
	sum := 0.0
	for range 100000 {
		u := s.Float64()
		if u < 0 || u >= 1 {
			t.Fatalf("Float64 = %v", u)
		}
		sum += u
	}
	if m := sum / 100000; math.Abs(m-0.5) > 0.005 {
		t.Errorf("mean of Float64 = %v", m)
	}
}

func TestPermIsABijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 1000, 1<<16 + 3} {
		p := NewPerm(n, 3, 9)
		seen := make([]bool, n)
		fixed := 0
		for i := range n {
			j := p.At(i)
			if j >= n || seen[j] {
				t.Fatalf("n=%d: At(%d) = %d repeats or is out of range", n, i, j)
			}
			seen[j] = true
			if j == i {
				fixed++
			}
		}
		// A random permutation has one fixed point on average.
		if n >= 1000 && fixed > 10 {
			t.Errorf("n=%d: %d fixed points", n, fixed)
		}
	}
	// Different keys give different permutations.
	a, b := NewPerm(1000, 1, 1), NewPerm(1000, 2, 1)
	diff := 0
	for i := range uint64(1000) {
		if a.At(i) != b.At(i) {
			diff++
		}
	}
	if diff < 900 {
		t.Errorf("seeds 1 and 2: only %d of 1000 images differ", diff)
	}
}

// TestPermLooksRandom: the images of the first half of [0, n) should fall
// into the first half about half the time (hypergeometric, sd ≈ √n/4).
func TestPermLooksRandom(t *testing.T) {
	const n = 1 << 20
	p := NewPerm(n, 5, 5)
	low := 0
	for i := range uint64(n / 2) {
		if p.At(i) < n/2 {
			low++
		}
	}
	if d := math.Abs(float64(low) - n/4); d > 6*math.Sqrt(n)/4 {
		t.Errorf("%d of the first half map to the first half, want ≈ %d", low, n/4)
	}
}

func BenchmarkNormal(b *testing.B) {
	s := New(1, 2, 3)
	x := 0.0
	for b.Loop() {
		x += s.Normal()
	}
	_ = x
}

func BenchmarkPermAt(b *testing.B) {
	p := NewPerm(10_000_000, 1, 2)
	i, x := uint64(0), uint64(0)
	for b.Loop() {
		x += p.At(i)
		if i++; i == p.N() {
			i = 0
		}
	}
	_ = x
}

func TestAddNormalsIsNormal(t *testing.T) {
	for _, scale := range []float64{1, 0.5} {
		a, b := New(4, 5, 6), New(4, 5, 6)
		dst := make([]float64, 100000)
		for k := range dst {
			dst[k] = float64(k % 7)
		}
		a.AddNormals(dst, scale)
		for k, v := range dst {
			if want := float64(k%7) + scale*b.Normal(); math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("scale %v: element %d = %v, want %v", scale, k, v, want)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Fatal("AddNormals and Normal leave the stream in different states")
		}
	}
}

func BenchmarkAddNormals16(b *testing.B) {
	dst := make([]float64, 16)
	i := uint64(0)
	for b.Loop() {
		s := New(1, 2, i)
		s.AddNormals(dst, 1)
		i++
	}
}

func TestKeyStreamIsNew(t *testing.T) {
	k := NewKey(3, 4)
	for i := range uint64(10) {
		a, b := New(3, 4, i), k.Stream(i)
		if a.Uint64() != b.Uint64() {
			t.Fatalf("index %d: Key.Stream differs from New", i)
		}
	}
}
