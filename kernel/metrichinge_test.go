package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// metricHingeCase is one MetricHinge8 call's inputs.
type metricHingeCase struct {
	d, n, stride int
	diag         bool
	r            [8]float64
	a, x, q, lab []float64
	rows         MetricHingeRows
}

func randomMetricHinge(rng *rand.Rand, d, n, extra int, diag bool) *metricHingeCase {
	c := &metricHingeCase{d: d, n: n, stride: n + extra, diag: diag}
	c.a = make([]float64, 8*d)
	for i := range c.a {
		c.a[i] = rng.NormFloat64() / 4
	}
	c.x = make([]float64, max(0, (d-1)*c.stride+n))
	for i := range c.x {
		c.x[i] = rng.NormFloat64() / 4
	}
	c.q, c.lab = make([]float64, n), make([]float64, n)
	for j := range c.q {
		c.q[j] = 2 * rng.Float64()
		c.lab[j] = float64(rng.IntN(3))
	}
	for l := range 8 {
		c.rows.Q[l] = 2 * rng.Float64()
		c.rows.Lab[l] = float64(rng.IntN(3))
		c.r[l] = rng.Float64()
	}
	c.rows.B = []float64{2, 0.5, 1}[rng.IntN(3)]
	return c
}

// checkMetricHinge runs c in every implementation, the slices at element
// offset off of a line amid sentinels, and asks for the reference's bits,
// untouched inputs and guards.
func checkMetricHinge(t testing.TB, c *metricHingeCase, off int, desc string) {
	t.Helper()
	want := c.r
	metricHingeGeneric(&want, c.a, c.x, c.stride, c.q, c.lab, &c.rows, c.diag)
	for _, impl := range Implementations() {
		ga, gx, gq, gl := newGuarded(c.a, off), newGuarded(c.x, (off+3)%8), newGuarded(c.q, (off+5)%8), newGuarded(c.lab, (off+7)%8)
		got := c.r
		rows := c.rows
		withImpl(t, impl, func() { MetricHinge8(&got, ga.s(), gx.s(), c.stride, gq.s(), gl.s(), &rows, c.diag) })
		for l := range 8 {
			if !sameBits(got[l], want[l]) {
				t.Fatalf("%s, %s: lane %d: %v (%#x), reference %v (%#x)", impl, desc, l, got[l], math.Float64bits(got[l]), want[l], math.Float64bits(want[l]))
			}
		}
		for k, g := range []guarded{ga, gx, gq, gl} {
			if i, ok := g.intact(); !ok {
				t.Fatalf("%s, %s: slice %d written at element %d", impl, desc, k, i)
			}
		}
		if !sameSlice(ga.s(), c.a) || !sameSlice(gx.s(), c.x) || !sameSlice(gq.s(), c.q) || !sameSlice(gl.s(), c.lab) ||
			!sameSlice(rows.Q[:], c.rows.Q[:]) || !sameSlice(rows.Lab[:], c.rows.Lab[:]) || !sameBits(rows.B, c.rows.B) {
			t.Fatalf("%s, %s: an input was modified", impl, desc)
		}
	}
}

// sameSlice reports whether a and b hold the same bits.
func sameSlice(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func TestMetricHinge8(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, d := range []int{0, 1, 3, 9, 40} {
		for n := 0; n <= 130; n++ {
			for _, diag := range []bool{false, true} {
				c := randomMetricHinge(rng, d, n, rng.IntN(3), diag)
				checkMetricHinge(t, c, n%8, fmt.Sprintf("d = %d, n = %d, stride %d, diag %v", d, n, c.stride, diag))
			}
		}
	}
}

// TestMetricHinge8Special: NaN and infinite entries propagate as in the
// reference; terms exactly at the hinge's kink (h = 0) are skipped.
func TestMetricHinge8Special(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 9))
	for k, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e300, 5e-324} {
		for _, where := range []string{"a", "x", "q", "qi"} {
			c := randomMetricHinge(rng, 5, 37, 1, k%2 == 0)
			switch where {
			case "a":
				c.a[rng.IntN(len(c.a))] = v
			case "x":
				c.x[rng.IntN(len(c.x))] = v
			case "q":
				c.q[rng.IntN(len(c.q))] = v
			case "qi":
				c.rows.Q[rng.IntN(8)] = v
			}
			checkMetricHinge(t, c, k%8, fmt.Sprintf("%v in %s", v, where))
		}
	}
	// g = 0 (zero a): D = q_i + q_j, chosen so that h = 0 exactly for some
	// pairs.
	c := randomMetricHinge(rng, 4, 40, 0, true)
	clear(c.a)
	for j := range c.q {
		c.q[j] = float64(j%3) * 0.5
	}
	c.rows.Q = [8]float64{0, 0.5, 1, 1.5, 0, 0.5, 1, 1.5}
	c.rows.B = 2
	checkMetricHinge(t, c, 0, "kinks")
}

func TestMetricHinge8Long(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 10))
	c := randomMetricHinge(rng, 2, metricHingeColumns+21, 0, true)
	checkMetricHinge(t, c, 0, "two calls")
}

func TestMetricHinge8NoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 11))
	c := randomMetricHinge(rng, 9, 100, 0, true)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			r := c.r
			if a := testing.AllocsPerRun(10, func() { MetricHinge8(&r, c.a, c.x, c.stride, c.q, c.lab, &c.rows, c.diag) }); a != 0 {
				t.Errorf("%s: %v allocs per call", impl, a)
			}
		})
	}
}

func TestMetricHinge8Lengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 12))
	c := randomMetricHinge(rng, 3, 10, 0, false)
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"a", func() { MetricHinge8(&c.r, c.a[:7], c.x, c.stride, c.q, c.lab, &c.rows, false) }},
		{"lab", func() { MetricHinge8(&c.r, c.a, c.x, c.stride, c.q, c.lab[:9], &c.rows, false) }},
		{"x", func() { MetricHinge8(&c.r, c.a, c.x[:len(c.x)-1], c.stride, c.q, c.lab, &c.rows, false) }},
		{"stride", func() { MetricHinge8(&c.r, c.a, c.x, 9, c.q, c.lab, &c.rows, false) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.call()
		}()
	}
}

// FuzzMetricHinge8: byte 0 the offset (bits 0–2) and diag (bit 3), byte 1
// d (mod 12), byte 2 extra stride (mod 4), then float64s filling b, the
// rows' q, a, x, q (the column count follows from the length); labels from
// the low bits of the values' mantissas.
func FuzzMetricHinge8(f *testing.F) {
	rng := rand.New(rand.NewPCG(10, 13))
	for _, n := range []int{0, 8, 9, 17, 40} {
		b := []byte{byte(n % 16), 3, 1}
		for range 1 + 8 + 8*3 + 4*n + 3*n {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(rng.NormFloat64()))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		off, diag, d, extra := int(data[0]&7), data[0]&8 != 0, int(data[1]%12), int(data[2]%4)
		fs := fuzzFloats(data[3:])
		take := func(k int) []float64 { s := fs[:k]; fs = fs[k:]; return s }
		if len(fs) < 1+8+8*d {
			return
		}
		c := &metricHingeCase{d: d, diag: diag}
		c.rows.B = take(1)[0]
		copy(c.rows.Q[:], take(8))
		c.a = slices.Clone(take(8 * d))
		// n columns take (d−1)·(n + extra) + n (x) + n (q).
		rest := len(fs) - max(0, d-1)*extra
		n := rest / (d + 1)
		if rest < 0 {
			return
		}
		c.n, c.stride = n, n+extra
		c.x = slices.Clone(take(max(0, (d-1)*c.stride+n)))
		c.q = slices.Clone(take(n))
		c.lab = make([]float64, n)
		for j, v := range c.q {
			c.lab[j] = float64(math.Float64bits(v) & 3)
		}
		for l := range 8 {
			c.rows.Lab[l] = float64(math.Float64bits(c.rows.Q[l]) & 3)
		}
		checkMetricHinge(t, c, off, "fuzz")
	})
}

// checkMetricDist runs MetricDist8 in every implementation, the slices at
// offsets of a line amid sentinels, and asks for the reference's bits and
// untouched inputs and guards.
func checkMetricDist(t testing.TB, theta, xk, x []float64, stride, off int, desc string) {
	t.Helper()
	var want [8]float64
	metricDistGeneric(&want, theta, xk, x, stride)
	for _, impl := range Implementations() {
		gt, gk, gx := newGuarded(theta, off), newGuarded(xk, (off+3)%8), newGuarded(x, (off+5)%8)
		gd := newGuarded(make([]float64, 8*len(xk)), (off+7)%8)
		var got [8]float64
		withImpl(t, impl, func() { MetricDist8(&got, gt.s(), gk.s(), gx.s(), stride, gd.s()) })
		for l := range 8 {
			if !sameBits(got[l], want[l]) {
				t.Fatalf("%s, %s: lane %d: %v (%#x), reference %v (%#x)", impl, desc, l, got[l], math.Float64bits(got[l]), want[l], math.Float64bits(want[l]))
			}
		}
		for k, g := range []guarded{gt, gk, gx, gd} {
			if i, ok := g.intact(); !ok {
				t.Fatalf("%s, %s: slice %d written at element %d", impl, desc, k, i)
			}
		}
		if !sameSlice(gt.s(), theta) || !sameSlice(gk.s(), xk) || !sameSlice(gx.s(), x) {
			t.Fatalf("%s, %s: an input was modified", impl, desc)
		}
	}
}

func randomMetricDist(rng *rand.Rand, d, extra int) (theta, xk, x []float64, stride int) {
	stride = 8 + extra
	theta, xk = make([]float64, d*d), make([]float64, d)
	x = make([]float64, max(0, (d-1)*stride+8))
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	for i := range xk {
		xk[i] = float64(rng.IntN(3)) // repeated coordinates: δ_a = 0 often
	}
	for i := range x {
		x[i] = float64(rng.IntN(3))
	}
	return theta, xk, x, stride
}

func TestMetricDist8(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 14))
	for d := 0; d <= 45; d++ {
		for _, extra := range []int{0, 3, 100} {
			theta, xk, x, stride := randomMetricDist(rng, d, extra)
			if d%2 == 1 {
				for i := range x {
					x[i] += rng.NormFloat64()
				}
			}
			checkMetricDist(t, theta, xk, x, stride, d%8, fmt.Sprintf("d = %d, stride %d", d, stride))
		}
	}
	for k, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e300} {
		for _, where := range []int{0, 1, 2} {
			theta, xk, x, stride := randomMetricDist(rng, 7, 1)
			[][]float64{theta, xk, x}[where][rng.IntN(7)] = v
			checkMetricDist(t, theta, xk, x, stride, k%8, fmt.Sprintf("%v in slice %d", v, where))
		}
	}
	theta, xk, x, stride := randomMetricDist(rng, 9, 0)
	var out [8]float64
	delta := make([]float64, 72)
	if a := testing.AllocsPerRun(10, func() { MetricDist8(&out, theta, xk, x, stride, delta) }); a != 0 {
		t.Errorf("%v allocs per call", a)
	}
	defer func() {
		if recover() == nil {
			t.Error("short delta: no panic")
		}
	}()
	MetricDist8(&out, theta, xk, x, stride, delta[:71])
}

// FuzzMetricDist8: byte 0 the offset (bits 0–2), byte 1 d (mod 16), byte 2
// the extra stride (mod 4), then float64s filling theta, xk, x (zero if
// short; values with few distinct mantissas repeat, so δ_a = 0 occurs).
func FuzzMetricDist8(f *testing.F) {
	rng := rand.New(rand.NewPCG(12, 15))
	for _, d := range []int{1, 4, 9, 13} {
		b := []byte{byte(d), byte(d), 1}
		for range d*d + d + 9*d {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(rng.IntN(3))))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		off, d, extra := int(data[0]&7), int(data[1]%16), int(data[2]%4)
		fs := fuzzFloats(data[3:])
		stride := 8 + extra
		next := func() float64 {
			if len(fs) == 0 {
				return 0
			}
			v := fs[0]
			fs = fs[1:]
			return v
		}
		theta, xk, x := make([]float64, d*d), make([]float64, d), make([]float64, max(0, (d-1)*stride+8))
		for _, s := range [][]float64{theta, xk, x} {
			for i := range s {
				s[i] = next()
			}
		}
		checkMetricDist(t, theta, xk, x, stride, off, "fuzz")
	})
}

// checkGemm8 runs Gemm8 in every implementation, the slices amid
// sentinels, and asks for the reference's bits and untouched inputs.
func checkGemm8(t testing.TB, n int, a []float64, astride int, b []float64, bstride, d, off int, desc string) {
	t.Helper()
	want := make([]float64, 8*n)
	gemm8Generic(want, a, astride, b, bstride, d)
	for _, impl := range Implementations() {
		ga, gb, gout := newGuarded(a, off), newGuarded(b, (off+3)%8), newGuarded(make([]float64, 8*n), (off+5)%8)
		withImpl(t, impl, func() { Gemm8(gout.s(), ga.s(), astride, gb.s(), bstride, d) })
		for i, v := range gout.s() {
			if !sameBits(v, want[i]) {
				t.Fatalf("%s, %s: out[%d] = %v, reference %v", impl, desc, i, v, want[i])
			}
		}
		for k, g := range []guarded{ga, gb, gout} {
			if i, ok := g.intact(); !ok {
				t.Fatalf("%s, %s: slice %d written at element %d", impl, desc, k, i)
			}
		}
		if !sameSlice(ga.s(), a) || !sameSlice(gb.s(), b) {
			t.Fatalf("%s, %s: an input was modified", impl, desc)
		}
	}
}

func TestGemm8(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 16))
	for _, d := range []int{0, 1, 2, 9, 40} {
		for n := 0; n <= 130; n++ {
			astride, bstride := 8+rng.IntN(3)*5, n+rng.IntN(3)
			a, b := make([]float64, max(0, (d-1)*astride+8)), make([]float64, max(0, (d-1)*bstride+n))
			for i := range a {
				a[i] = rng.NormFloat64()
				if rng.IntN(4) == 0 {
					a[i] = 0
				}
			}
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			checkGemm8(t, n, a, astride, b, bstride, d, n%8, fmt.Sprintf("d = %d, n = %d", d, n))
		}
	}
	for k, v := range []float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 1e300} {
		a, b := make([]float64, 3*8), make([]float64, 3*20)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		[][]float64{a, b}[k%2][rng.IntN(20)] = v
		checkGemm8(t, 20, a, 8, b, 20, 3, k, fmt.Sprint(v))
	}
	out, a, b := make([]float64, 80), make([]float64, 40), make([]float64, 50)
	if al := testing.AllocsPerRun(10, func() { Gemm8(out, a, 8, b, 10, 5) }); al != 0 {
		t.Errorf("%v allocs per call", al)
	}
	defer func() {
		if recover() == nil {
			t.Error("short b: no panic")
		}
	}()
	Gemm8(out, a, 8, b[:49], 10, 5)
}

// FuzzGemm8: byte 0 the offset (bits 0–2), byte 1 d (mod 12), byte 2 n
// (mod 40), then float64s filling a (stride 8) and b (stride n), zero if
// short.
func FuzzGemm8(f *testing.F) {
	rng := rand.New(rand.NewPCG(14, 17))
	for _, n := range []int{1, 8, 13, 31} {
		b := []byte{byte(n), 5, byte(n)}
		for range 8*5 + 5*n {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(rng.NormFloat64()))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		off, d, n := int(data[0]&7), int(data[1]%12), int(data[2]%40)
		fs := fuzzFloats(data[3:])
		a, b := make([]float64, 8*d), make([]float64, d*n)
		for _, s := range [][]float64{a, b} {
			for i := range s {
				if len(fs) > 0 {
					s[i], fs = fs[0], fs[1:]
				}
			}
		}
		checkGemm8(t, n, a, 8, b, n, d, off, "fuzz")
	})
}
