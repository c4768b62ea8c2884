package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// EventLogistic's implementations differ in the margins' summation (FMA,
// lanes) and in the exponential, so its outputs are compared with the
// reference within bounds propagated from those two differences: the
// margin within the reduction tolerance, g within 3 ulp plus |g'| ≤ 1/4
// times the margin's difference, then z = z̄ + w·d and θ̄ = a·θ̄ + b·c·z.
// The swapped y are bit-identical; counts and the non-finite mask equal.

// eventCase is one call's inputs: the eight rows and the scalars.
type eventCase struct {
	rows [8][]float64 // xi, yi, zi, bi, xj, yj, zj, bj
	sc   EventScalars
}

var eventRowNames = [8]string{"xi", "yi", "zi", "bi", "xj", "yj", "zj", "bj"}

func (c eventCase) clone() eventCase {
	d := c
	for i := range c.rows {
		d.rows[i] = append([]float64(nil), c.rows[i]...)
	}
	return d
}

func checkEvent(t testing.TB, in eventCase, offs []int, desc string) {
	t.Helper()
	checkEventKind(t, in, offs, desc, false)
}

// checkEventKind is checkEvent for EventLogistic (lost false) or
// EventLogisticLost (lost true: the margins at the endpoints' own y, and
// no row but z and θ̄ changes).
func checkEventKind(t testing.TB, in eventCase, offs []int, desc string, lost bool) {
	t.Helper()
	n := len(in.rows[2])
	ref := in.clone()
	r := ref.rows
	refImpl, call, name := eventLogisticGeneric, EventLogistic, "EventLogistic"
	if lost {
		refImpl, call, name = eventLostGeneric, EventLogisticLost, "EventLogisticLost"
	}
	desc = name + " " + desc
	nzRef, badRef := refImpl(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], &ref.sc)
	// Per endpoint: the margin's tolerance, the reference margin.
	var tolW [2]float64
	skipCount := false
	for e := 0; e < 2; e++ {
		x, y, z := in.rows[4*e], in.rows[5-4*e], in.rows[2+4*e] // its x, new y, old z
		if lost {
			y = in.rows[1+4*e] // its own
		}
		var m, s float64
		for a := range n {
			v := float64((x[a] - y[a]) * float64(in.sc.CPrev[e]*z[a]))
			m += v
			s += math.Abs(v)
		}
		g := negSigmoid(m)
		skipCount = skipCount || nearUnderflow(m)
		tolW[e] = math.Abs(in.sc.P[e])*(0.25*tolerance(n, s)+4*eps*math.Abs(g)) + 0x1p-1070
	}
	for _, impl := range Implementations() {
		var gs [8]guarded
		var a [8][]float64
		for i := range in.rows {
			gs[i] = newGuarded(in.rows[i], offs[i%len(offs)])
			a[i] = gs[i].s()
		}
		sc := in.sc
		var nz, bad int
		withImpl(t, impl, func() { nz, bad = call(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], &sc) })
		for i, g := range gs {
			if j, ok := g.intact(); !ok {
				t.Fatalf("%s %s: wrote %s[%d], outside the slice (len %d)", impl, desc, eventRowNames[i], j, n)
			}
		}
		for e := 0; e < 2; e++ {
			x, y, z, bar := 4*e, 1+4*e, 2+4*e, 3+4*e
			for k := range n {
				if !sameBits(a[y][k], ref.rows[y][k]) || !sameBits(a[x][k], in.rows[x][k]) {
					t.Fatalf("%s %s: %s or %s[%d] differs from the reference", impl, desc, eventRowNames[x], eventRowNames[y], k)
				}
				d := math.Abs(ref.rows[x][k] - ref.rows[y][k])
				tz := tolW[e]*d + 4*eps*math.Abs(ref.rows[z][k]) + 0x1p-1070
				cb := math.Abs(in.sc.B[e] * in.sc.C[e])
				tb := cb*tz + 4*eps*(math.Abs(in.sc.A[e]*in.rows[bar][k])+cb*math.Abs(ref.rows[z][k])) + 0x1p-1070
				for _, c := range []struct {
					i   int
					tol float64
				}{{z, tz}, {bar, tb}} {
					got, want := a[c.i][k], ref.rows[c.i][k]
					if math.IsNaN(c.tol) || math.IsInf(c.tol, 0) || math.IsNaN(want) || math.IsInf(want, 0) {
						continue // overflowed: only the flags are compared
					}
					if !(math.Abs(got-want) <= c.tol) {
						t.Fatalf("%s %s: %s[%d] = %v, reference %v: |diff| %g > tolerance %g",
							impl, desc, eventRowNames[c.i], k, got, want, math.Abs(got-want), c.tol)
					}
				}
			}
		}
		if nz != nzRef && !skipCount {
			t.Fatalf("%s %s: %d non-zero weights, reference %d", impl, desc, nz, nzRef)
		}
		if bad != badRef {
			t.Fatalf("%s %s: non-finite mask %b, reference %b", impl, desc, bad, badRef)
		}
	}
}

func randomEvent(r *rand.Rand, n int, scale float64) eventCase {
	var c eventCase
	for i := range c.rows {
		c.rows[i] = make([]float64, n)
		for k := range c.rows[i] {
			c.rows[i][k] = scale * r.NormFloat64()
		}
	}
	for e := 0; e < 2; e++ {
		cnt := float64(1 + r.IntN(5000))
		c.sc.CPrev[e] = -r.Float64() * 3
		if r.IntN(4) > 0 {
			c.sc.P[e] = 1 + 10*r.Float64()
		}
		c.sc.C[e] = -r.Float64() * 3
		c.sc.A[e], c.sc.B[e] = 1-1/cnt, 1/cnt
	}
	return c
}

// TestEventLogistic: every implementation against the reference at every
// length 0..130, aligned and not, margins small and saturating.
func TestEventLogistic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 130; n++ {
		for _, scale := range []float64{1, 30, 1e-3} {
			for _, offs := range offsetSets {
				checkEvent(t, randomEvent(r, n, scale), offs, fmt.Sprintf("n=%d scale=%g offsets=%v", n, scale, offs))
			}
		}
	}
}

// TestEventLogisticSpecial: non-finite rows and scalars raise the mask of
// the endpoint they reach; a non-contributing endpoint ignores a NaN margin
// (EventLogistic and EventLogisticLost).
func TestEventLogisticSpecial(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for x := 0; x < 2*9; x++ {
		n, lost := 1+x%9, x >= 9
		for _, tc := range []struct {
			name string
			set  func(c *eventCase)
		}{
			{"z_i=inf", func(c *eventCase) { c.rows[2][n/2] = math.Inf(1) }},
			{"x_j=nan", func(c *eventCase) { c.rows[4][n-1] = math.NaN() }},
			{"c_j=inf", func(c *eventCase) { c.sc.C[1] = math.Inf(-1) }},
			{"nan margin, p=0", func(c *eventCase) { c.rows[0][0] = math.NaN(); c.sc.P[0] = 0 }},
			{"huge", func(c *eventCase) { c.sc.CPrev = [2]float64{-1e300, -1e300}; c.sc.C = [2]float64{-1e300, -1e300} }},
		} {
			c := randomEvent(r, n, 1)
			tc.set(&c)
			checkEventKind(t, c, []int{0, 3}, fmt.Sprintf("%s n=%d", tc.name, n), lost)
		}
	}
}

// TestEventLogisticNoAlloc: EventLogistic and EventLogisticLost allocate
// nothing, in every implementation.
func TestEventLogisticNoAlloc(t *testing.T) {
	c := randomEvent(rand.New(rand.NewPCG(1, 1)), 16, 1)
	r := c.rows
	for _, call := range []func(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars) (int, int){EventLogistic, EventLogisticLost} {
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				if a := testing.AllocsPerRun(100, func() { call(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], &c.sc) }); a != 0 {
					t.Fatalf("%s: %v allocations per call", impl, a)
				}
			})
		}
	}
}

// FuzzEventLogistic decodes byte 0 as the element offset and then 10
// scalars and the eight rows interleaved (8 bytes each), folded into
// |v| < 2¹⁰.
func FuzzEventLogistic(f *testing.F) { fuzzEventKind(f, false) }

// fuzzEventKind is FuzzEventLogistic (lost false) or FuzzEventLogisticLost.
func fuzzEventKind(f *testing.F, lost bool) {
	for _, n := range []int{1, 4, 7, 16, 19} {
		b := []byte{byte(n)}
		for i := 0; i < 10+8*n; i++ {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%9)-3.5))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1+8*10 {
			t.Skip()
		}
		fs, ok := fuzzEventValues(data[1:])
		if !ok {
			t.Skip()
		}
		c, _ := fuzzEvent(fs, (len(fs)-10)/8)
		off := int(data[0] & 7)
		checkEventKind(t, c, []int{off, off + 1, off + 5}, "fuzz", lost)
	})
}

// fuzzEventValues decodes data as little-endian float64s, 8 bytes each (a
// shorter tail ignored), with their exponents folded into [−20, 10] so that
// margins neither vanish nor overflow; ok is false if one is NaN or ±Inf.
func fuzzEventValues(data []byte) (fs []float64, ok bool) {
	for b := data; len(b) >= 8; b = b[8:] {
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		if v != 0 {
			frac, exp := math.Frexp(v)
			v = math.Ldexp(frac, ((exp%31)+31)%31-20)
		}
		fs = append(fs, v)
	}
	return fs, true
}

// fuzzEvent builds an event of n lanes from fs — ten scalars, then the
// eight rows lane by lane — and returns it with the values left over.
func fuzzEvent(fs []float64, n int) (eventCase, []float64) {
	var c eventCase
	s := [10]float64(fs[:10])
	c.sc = EventScalars{CPrev: [2]float64{s[0], s[1]}, P: [2]float64{s[2], s[3]}, C: [2]float64{s[4], s[5]}, A: [2]float64{s[6], s[7]}, B: [2]float64{s[8], s[9]}}
	fs = fs[10:]
	for i := range c.rows {
		c.rows[i] = make([]float64, n)
		for k := range n {
			c.rows[i][k] = fs[8*k+i]
		}
	}
	return c, fs[8*n:]
}

// BenchmarkEventLogistic: one event on hot rows of d = 16 (the kernel's
// cost without memory latency), against the split path it replaces.
func BenchmarkEventLogistic(b *testing.B) {
	c := randomEvent(rand.New(rand.NewPCG(1, 1)), 16, 0.1)
	r := c.rows
	for _, impl := range Implementations() {
		b.Run(impl, func(b *testing.B) {
			withImpl(b, impl, func() {
				for b.Loop() {
					EventLogistic(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], &c.sc)
				}
			})
		})
	}
}
