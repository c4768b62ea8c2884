package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkLog1pSum runs Log1pSum(e, c) in every implementation, e placed at
// element offset off among sentinels, and compares with the reference:
// e unchanged, nothing written around it, the sum within
// (8 + 4n)·2⁻⁵³·Σ terms (every term is ≥ 0), NaN where the reference is.
func checkLog1pSum(t testing.TB, e []float64, c float64, off int, desc string) {
	t.Helper()
	want := log1pSumGeneric(e, c)
	tol := (8 + 4*float64(len(e))) * 0x1p-53 * math.Abs(want)
	for _, impl := range Implementations() {
		g := newGuarded(e, off)
		var got float64
		withImpl(t, impl, func() { got = Log1pSum(g.s(), c) })
		if j, ok := g.intact(); !ok {
			t.Fatalf("%s %s: wrote e[%d] or around it (len %d)", impl, desc, j, len(e))
		}
		for i, v := range g.s() {
			if !sameBits(v, e[i]) {
				t.Fatalf("%s %s: e[%d] modified", impl, desc, i)
			}
		}
		if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > tol {
			t.Fatalf("%s %s: Log1pSum = %v, reference %v (|Δ| = %g > %g)", impl, desc, got, want, math.Abs(got-want), tol)
		}
	}
}

// log1pValue draws c·e[i] over the range the AUC objective needs: zero,
// below 2⁻⁵³ (u = 1), around the switch of each formula, and large.
func log1pValue(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return math.Ldexp(r.Float64(), -60+r.IntN(10)) // u = 1 or just above
	case 2:
		return math.Exp(r.NormFloat64() * 3)
	case 3:
		return math.Ldexp(r.Float64(), r.IntN(1998)-999)
	default:
		return math.Exp(600 * r.Float64()) // e^{s_j − s_i} with |s| ≤ 300
	}
}

// TestLog1pSum: every length 0..130, at every offset in a cache line.
func TestLog1pSum(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for n := 0; n <= 130; n++ {
		for off := 0; off < 8; off++ {
			e := make([]float64, n)
			for i := range e {
				e[i] = log1pValue(r)
			}
			c := []float64{1, 0.5, math.Exp(-r.Float64() * 30), 0}[r.IntN(4)]
			checkLog1pSum(t, e, c, off, fmt.Sprintf("n=%d off=%d c=%g", n, off, c))
		}
	}
}

// TestLog1pSumTerms: one term at a time, every implementation within 4 ulp
// of the reference's term (which is within a few ulp of log1p), across
// the domain; NaN propagates.
func TestLog1pSumTerms(t *testing.T) {
	var xs []float64
	for x := 1e-300; x < 1e300; x *= 1.37 {
		xs = append(xs, x)
	}
	xs = append(xs, 0, 0x1p-53, 0x1p-52, math.Nextafter(0x1p-53, 1), 1, math.Sqrt2-1, math.Sqrt2/2-1+1, 0x1p999)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			for _, x := range xs {
				want, got := log1pSumGeneric([]float64{x}, 1), Log1pSum([]float64{x}, 1)
				if d := math.Abs(got - want); d > 4*ulp(want) {
					t.Fatalf("%s: term of x = %g: %v, reference %v (%g ulp)", impl, x, got, want, d/ulp(want))
				}
				if l := math.Log1p(x); math.Abs(want-l) > 4*ulp(l) {
					t.Fatalf("reference term of x = %g: %v, math.Log1p %v", x, want, l)
				}
			}
			if v := Log1pSum([]float64{1, math.NaN(), 2}, 1); !math.IsNaN(v) {
				t.Fatalf("%s: NaN term gives %v", impl, v)
			}
		})
	}
}

func TestLog1pSumNoAlloc(t *testing.T) {
	e := make([]float64, 100)
	for i := range e {
		e[i] = float64(i)
	}
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			if a := testing.AllocsPerRun(50, func() { sink = Log1pSum(e, 0.5) }); a != 0 {
				t.Fatalf("%s: %v allocations", impl, a)
			}
		})
	}
}

// FuzzLog1pSum decodes 8 bytes per value: the first is c, the rest e; each
// is taken as |v| with its binary exponent folded into [−500, 499], so
// that every product c·e[i] stays below 2⁹⁹⁹. Byte 0 gives the offset.
func FuzzLog1pSum(f *testing.F) {
	for _, seed := range [][]float64{{1}, {1, 0, 1, 2}, {0.5, 1e-300, 1e300, 3, 4, 5, 6, 7, 8, 9}} {
		b := []byte{3}
		for _, v := range seed {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 9 {
			t.Skip()
		}
		off := int(data[0] & 7)
		var vs []float64
		for b := data[1:]; len(b) >= 8; b = b[8:] {
			v := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(b)))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Skip()
			}
			if v != 0 {
				frac, exp := math.Frexp(v)
				v = math.Ldexp(frac, ((exp%1000)+1000)%1000-500)
			}
			vs = append(vs, v)
		}
		checkLog1pSum(t, vs[1:], vs[0], off, "fuzz")
	})
}

// BenchmarkLog1pSum: ns per term over 458 values (the Breast Cancer
// negatives) and 4096, for every implementation.
func BenchmarkLog1pSum(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, impl := range Implementations() {
		for _, n := range []int{458, 4096} {
			b.Run(fmt.Sprintf("%s/n=%d", impl, n), func(b *testing.B) {
				e := make([]float64, n)
				for i := range e {
					e[i] = math.Exp(3 * r.NormFloat64())
				}
				withImpl(b, impl, func() {
					for b.Loop() {
						sink = Log1pSum(e, 0.3)
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/term")
			})
		}
	}
}
