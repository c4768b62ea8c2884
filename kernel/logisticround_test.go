package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// LogisticRound's implementations compute the exponential differently, so
// they are compared with the reference within bounds derived from a 3-ulp
// difference in g = −σ(−m) (TestLogisticRoundDerivative checks that bound
// on g itself), propagated through the round's arithmetic; counts and the
// finiteness flag must be equal. Inputs sit among sentinels as in
// TestKernels, at every length 0..130 and unaligned.

const eps = 0x1p-52

// ulp is the spacing of floats at |x|.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// nearUnderflow reports whether exp(−|m|) is within a few ulp of underflow
// to zero, where the implementations may legitimately disagree on g = 0.
func nearUnderflow(m float64) bool {
	return math.Abs(m) > 744.4 && math.Abs(m) < 745.2
}

// checkLogistic runs LogisticRound on vals = {s0, q, w, eta, m} with
// scalars c, a, bc in every implementation and compares with the reference.
func checkLogistic(t testing.TB, vals [5][]float64, c, a, bc float64, offs []int, desc string) {
	t.Helper()
	n := len(vals[4])
	var ref [5][]float64
	for i := range vals {
		ref[i] = append([]float64(nil), vals[i]...)
	}
	nzRef, finRef := logisticRoundGeneric(ref[0], ref[1], ref[2], ref[3], ref[4], c, a, bc)
	skipCount := false
	for _, m := range vals[4] {
		skipCount = skipCount || nearUnderflow(m)
	}
	names := [5]string{"s0", "q", "w", "eta", "m"}
	for _, impl := range Implementations() {
		var gs [5]guarded
		var args [5][]float64
		for i := range vals {
			gs[i] = newGuarded(vals[i], offs[i%len(offs)])
			args[i] = gs[i].s()
		}
		var nz int
		var fin bool
		withImpl(t, impl, func() { nz, fin = LogisticRound(args[0], args[1], args[2], args[3], args[4], c, a, bc) })
		for i, g := range gs {
			if j, ok := g.intact(); !ok {
				t.Fatalf("%s %s: wrote %s[%d], outside the slice (len %d)", impl, desc, names[i], j, n)
			}
		}
		for e := range n {
			for i := 0; i < 2; i++ {
				if !sameBits(args[i][e], vals[i][e]) {
					t.Fatalf("%s %s: input %s[%d] modified", impl, desc, names[i], e)
				}
			}
			gRef := ref[2][e] - vals[2][e]
			tolW := 4*eps*(math.Abs(gRef)+math.Abs(ref[2][e])) + 0x1p-1070
			tolEta := math.Abs(bc)*tolW + 4*eps*(math.Abs(a*vals[3][e])+math.Abs(bc*ref[2][e])) + 0x1p-1070
			tolM := math.Abs(c)*(math.Abs(vals[1][e])*tolW+4*eps*(math.Abs(vals[0][e])+math.Abs(ref[2][e]*vals[1][e]))) + 0x1p-1070
			for i, tol := range map[int]float64{2: tolW, 3: tolEta, 4: tolM} {
				got, want := args[i][e], ref[i][e]
				if math.IsNaN(want) || math.IsInf(want, 0) || math.IsNaN(tol) || math.IsInf(tol, 0) {
					if !sameBits(got, want) && !(math.IsInf(tol, 0) || math.IsNaN(tol)) {
						t.Fatalf("%s %s: %s[%d] = %v, reference %v", impl, desc, names[i], e, got, want)
					}
					continue
				}
				if !(math.Abs(got-want) <= tol) {
					t.Fatalf("%s %s: %s[%d] = %v, reference %v: |diff| %g > tolerance %g (m was %v)",
						impl, desc, names[i], e, got, want, math.Abs(got-want), tol, vals[4][e])
				}
			}
		}
		if nz != nzRef && !skipCount {
			t.Fatalf("%s %s: %d non-zero gradients, reference %d", impl, desc, nz, nzRef)
		}
		if fin != finRef {
			t.Fatalf("%s %s: finite = %v, reference %v", impl, desc, fin, finRef)
		}
	}
}

// marginModes generate margins: the engine's range, wide, near the
// exponential's limits, special values.
var marginModes = []mode{
	{"unit", func(r *rand.Rand) float64 { return r.NormFloat64() }},
	{"wide", func(r *rand.Rand) float64 { return 40 * r.NormFloat64() }},
	{"limits", func(r *rand.Rand) float64 { return sign(r) * (700 + 60*r.Float64()) }},
	{"spread", func(r *rand.Rand) float64 { return math.Ldexp(r.NormFloat64(), r.IntN(40)-30) }},
	{"special", func(r *rand.Rand) float64 {
		s := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1, -1, 709.78, 745.14, -745.14, 1e300, -1e300, 36.7, 37.5}
		return s[r.IntN(len(s))]
	}},
}

func randomLogisticCase(r *rand.Rand, n int, mm mode) (vals [5][]float64, c, a, bc float64) {
	for i := range vals {
		vals[i] = make([]float64, n)
	}
	for e := range n {
		vals[0][e] = 3 * r.NormFloat64()
		vals[1][e] = 10 * r.Float64()
		vals[2][e] = -r.Float64() * float64(r.IntN(50))
		vals[3][e] = r.NormFloat64()
		vals[4][e] = mm.gen(r)
	}
	tt := float64(1 + r.IntN(10000))
	c = -r.Float64() / math.Sqrt(tt)
	return vals, c, 1 - 1/tt, c / tt
}

// TestLogisticRound: every implementation against the reference, every
// length 0..130, every margin mode, aligned and unaligned.
func TestLogisticRound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for n := 0; n <= 130; n++ {
		for _, mm := range marginModes {
			for _, offs := range offsetSets {
				vals, c, a, bc := randomLogisticCase(r, n, mm)
				checkLogistic(t, vals, c, a, bc, offs, fmt.Sprintf("n=%d mode=%s offsets=%v", n, mm.name, offs))
			}
		}
	}
}

// TestLogisticRoundWidthsAgree: the avx512 kernel is the avx2 kernel's
// arithmetic eight lanes at a time (VRNDSCALEPD and VSCALEFPD round as
// VROUNDPD and the two scalings do), so its outputs have the avx2 bits, for
// every length 0..130 and margin mode.
func TestLogisticRoundWidthsAgree(t *testing.T) {
	impls := Implementations()
	if !slices.Contains(impls, "avx2") || !slices.Contains(impls, "avx512") {
		t.Skipf("needs avx2 and avx512 (have %v)", impls)
	}
	r := rand.New(rand.NewPCG(8, 12))
	for n := 0; n <= 130; n++ {
		for _, mm := range marginModes {
			vals, c, a, bc := randomLogisticCase(r, n, mm)
			var out [2][5][]float64
			var nz [2]int
			var fin [2]bool
			for x, impl := range []string{"avx2", "avx512"} {
				for i := range vals {
					out[x][i] = slices.Clone(vals[i])
				}
				o := &out[x]
				withImpl(t, impl, func() { nz[x], fin[x] = LogisticRound(o[0], o[1], o[2], o[3], o[4], c, a, bc) })
			}
			if nz[0] != nz[1] || fin[0] != fin[1] {
				t.Fatalf("n=%d %s: avx2 (%d, %v), avx512 (%d, %v)", n, mm.name, nz[0], fin[0], nz[1], fin[1])
			}
			for i := range vals {
				for e := range n {
					if !sameBits(out[0][i][e], out[1][i][e]) {
						t.Fatalf("n=%d %s: output %d[%d]: avx2 %v, avx512 %v", n, mm.name, i, e, out[0][i][e], out[1][i][e])
					}
				}
			}
		}
	}
}

// TestLogisticRoundDerivative measures g itself: with w = 0 the kernel
// leaves g in w exactly. Every implementation must be within 3 ulp of the
// reference (math.Exp) over margins from subnormal to beyond the
// exponential's range, and agree on g = 0 exactly away from the underflow
// threshold.
func TestLogisticRoundDerivative(t *testing.T) {
	var ms []float64
	for m := -800.0; m <= 800; m += 0.0625 {
		ms = append(ms, m, m+0.01171875*math.Pi)
	}
	for e := -1074; e <= 10; e += 3 {
		ms = append(ms, math.Ldexp(1, e), -math.Ldexp(1.37, e))
	}
	ms = append(ms, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		-7.45133219101941108420e+02, 7.45133219101941108420e+02, 709.782712893384, 708.3964185322641)
	n := len(ms)
	zeros := func() []float64 { return make([]float64, n) }
	ref := [5][]float64{zeros(), zeros(), zeros(), zeros(), append([]float64(nil), ms...)}
	logisticRoundGeneric(ref[0], ref[1], ref[2], ref[3], ref[4], -1, 0.5, 0.5)
	for _, impl := range Implementations() {
		got := [5][]float64{zeros(), zeros(), zeros(), zeros(), append([]float64(nil), ms...)}
		withImpl(t, impl, func() { LogisticRound(got[0], got[1], got[2], got[3], got[4], -1, 0.5, 0.5) })
		worst := 0.0
		for i, m := range ms {
			g, want := got[2][i], ref[2][i]
			if math.IsNaN(want) {
				if !math.IsNaN(g) {
					t.Fatalf("%s: g(%v) = %v, want NaN", impl, m, g)
				}
				continue
			}
			if (g == 0) != (want == 0) && !nearUnderflow(m) {
				t.Fatalf("%s: g(%v) = %v, reference %v: zero in one only", impl, m, g, want)
			}
			d := math.Abs(g-want) / ulp(want)
			if d > 3 && !(nearUnderflow(m) && math.Abs(g-want) <= 0x1p-1073) {
				t.Fatalf("%s: g(%v) = %v, reference %v: %.1f ulp apart", impl, m, g, want, d)
			}
			worst = max(worst, d)
		}
		t.Logf("%s: %d margins, worst %.2f ulp from the reference", impl, n, worst)
	}
}

// TestLogisticRoundSpecial: infinite and NaN margins, overflowing margins
// (the finiteness flag), huge weights.
func TestLogisticRoundSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name    string
		m, w    float64
		c, s, q float64
	}{
		{"m=+inf", inf, 0, -0.1, 1, 1},
		{"m=-inf", -inf, 0, -0.1, 1, 1},
		{"m=nan", nan, 0, -0.1, 1, 1},
		{"overflow", 1, -1e300, -1e10, 0, 1e10},
		{"c=inf", 1, -1, -inf, 1, 1},
		{"s0=nan", 1, 0, -0.1, nan, 1},
	} {
		for n := 1; n <= 9; n++ {
			var vals [5][]float64
			for i := range vals {
				vals[i] = make([]float64, n)
			}
			for e := range n {
				vals[0][e], vals[1][e], vals[2][e], vals[3][e], vals[4][e] = 1, 2, -1, 0.5, 0.3*float64(e)-1
			}
			k := n / 2 // one special lane, in the packed body or the tail
			vals[0][k], vals[1][k], vals[2][k], vals[4][k] = tc.s, tc.q, tc.w, tc.m
			c := -0.1
			if k == n/2 {
				c = tc.c
			}
			checkLogistic(t, vals, c, 0.9, c/10, []int{1, 2}, fmt.Sprintf("%s n=%d", tc.name, n))
		}
	}
}

func TestLogisticRoundLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic on a length mismatch")
		}
	}()
	a, b := make([]float64, 4), make([]float64, 3)
	LogisticRound(a, a, a, b, a, -1, 0.5, 0.5)
}

func TestLogisticRoundNoAlloc(t *testing.T) {
	vals, c, a, bc := randomLogisticCase(rand.New(rand.NewPCG(1, 2)), 33, marginModes[0])
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			if n := testing.AllocsPerRun(100, func() { LogisticRound(vals[0], vals[1], vals[2], vals[3], vals[4], c, a, bc) }); n != 0 {
				t.Fatalf("%s: %v allocations per call", impl, n)
			}
		})
	}
}

// FuzzLogisticRound decodes the fuzzer's bytes into one call: byte 0 the
// element offset, then c, a, bc and the five slices' elements interleaved
// (8 bytes each, little-endian); every value is folded into a range where
// the round's arithmetic cannot overflow except through the margins.
func FuzzLogisticRound(f *testing.F) {
	for _, n := range []int{1, 4, 5, 9, 17} {
		b := []byte{byte(n)}
		for i := 0; i < 3+5*n; i++ {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%7)-2.5))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1+8*3 {
			t.Skip()
		}
		off := int(data[0] & 7)
		var fs []float64
		for b := data[1:]; len(b) >= 8; b = b[8:] {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Skip()
			}
			if v != 0 {
				frac, exp := math.Frexp(v)
				v = math.Ldexp(frac, ((exp%31)+31)%31-20) // |v| < 2¹⁰
			}
			fs = append(fs, v)
		}
		c, a, bc := fs[0], fs[1], fs[2]
		fs = fs[3:]
		n := len(fs) / 5
		var vals [5][]float64
		for i := range vals {
			vals[i] = make([]float64, n)
			for e := range n {
				vals[i][e] = fs[5*e+i]
			}
		}
		checkLogistic(t, vals, c, a, bc, []int{off, off + 3}, "fuzz")
	})
}

// BenchmarkLogisticRound: one round of a pack of n nodes (ns per node in
// the metric), margins spread over the exponential's useful range, for
// every implementation; the pack is in L1 (n ≤ 64), L2 (4096) or beyond
// (131072: 5 MiB of arrays).
func BenchmarkLogisticRound(b *testing.B) {
	for _, impl := range Implementations() {
		for _, n := range []int{5, 16, 64, 256, 512, 1024, 4096, 131072} {
			b.Run(fmt.Sprintf("%s/n=%d", impl, n), func(b *testing.B) {
				r := rand.New(rand.NewPCG(3, 4))
				vals, c, a, bc := randomLogisticCase(r, n, marginModes[0])
				s0, q, w, eta, m := vals[0], vals[1], vals[2], vals[3], vals[4]
				m0 := slices.Clone(m)
				withImpl(b, impl, func() {
					for b.Loop() {
						copy(m, m0) // the same margins each time
						LogisticRound(s0, q, w, eta, m, c, a, bc)
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
			})
		}
	}
}
