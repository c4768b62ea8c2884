package kernel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEventLogisticPair: in every implementation with a two-event kernel,
// the pair gives the two single events' results bit for bit (rows, non-zero
// weights, divergence bits) at every length 1..130, its sixteen rows at
// unaligned offsets inside guard padding that must stay untouched, for
// small, saturating and tiny margins, with and without contributing pairs,
// and with non-finite values that make either or both events diverge. (The
// single event kernel is tested against the reference in
// TestEventLogistic; length 0 never reaches the pair kernel.)
func TestEventLogisticPair(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			if EventLogisticPairDirect(16) == nil {
				if impl != "generic" {
					t.Fatalf("%s: no two-event kernel", impl)
				}
				return
			}
			if EventLogisticPairDirect(chunk+1) != nil {
				t.Fatalf("%s: a two-event kernel beyond the chunk bound", impl)
			}
			cases := 0
			for n := 1; n <= 130; n++ {
				for _, scale := range []float64{1, 30, 1e-3} {
					for poison := 0; poison < 4; poison++ {
						a, b := randomEvent(r, n, scale), randomEvent(r, n, scale)
						if poison&1 != 0 {
							a.rows[2][r.IntN(n)] = math.Inf(1) // z_i
						}
						if poison&2 != 0 {
							b.rows[4][r.IntN(n)] = math.NaN() // x_k
						}
						pa, pb := a.clone(), b.clone()
						nzA, badA := EventLogistic(a.rows[0], a.rows[1], a.rows[2], a.rows[3], a.rows[4], a.rows[5], a.rows[6], a.rows[7], &a.sc)
						nzB, badB := EventLogistic(b.rows[0], b.rows[1], b.rows[2], b.rows[3], b.rows[4], b.rows[5], b.rows[6], b.rows[7], &b.sc)
						// The pair's rows at unaligned offsets in guarded buffers.
						var gs [2][8]guarded
						for e, c := range []*eventCase{&pa, &pb} {
							for k := range c.rows {
								gs[e][k] = newGuarded(c.rows[k], (1+k+3*e+n)%8)
								c.rows[k] = gs[e][k].s()
							}
						}
						f := EventLogisticPairDirect(n)
						p := func(c *eventCase, k int) *float64 { return &c.rows[k][0] }
						nzm, bad := f(p(&pa, 0), p(&pa, 1), p(&pa, 2), p(&pa, 3), p(&pa, 4), p(&pa, 5), p(&pa, 6), p(&pa, 7),
							p(&pb, 0), p(&pb, 1), p(&pb, 2), p(&pb, 3), p(&pb, 4), p(&pb, 5), p(&pb, 6), p(&pb, 7), n, &pa.sc.CPrev[0], &pb.sc.CPrev[0])
						for e := range gs {
							for k := range gs[e] {
								if at, ok := gs[e][k].intact(); !ok {
									t.Fatalf("%s n=%d: event %d row %s: guard element %d overwritten", impl, n, e, eventRowNames[k], at)
								}
							}
						}
						pop := func(m int) int { return m&1 + m>>1&1 }
						if pop(nzm&3) != nzA || pop(nzm>>2&3) != nzB || bad&3 != badA || bad>>2&3 != badB || nzm>>4 != 0 || bad>>4 != 0 {
							t.Fatalf("%s n=%d scale %g poison %d: pair (nonzero %04b, bad %04b), singles (%d, %d) and (%d, %d)",
								impl, n, scale, poison, nzm, bad, nzA, badA, nzB, badB)
						}
						for _, c := range [][2]*eventCase{{&a, &pa}, {&b, &pb}} {
							for k := range c[0].rows {
								for x := range c[0].rows[k] {
									if math.Float64bits(c[0].rows[k][x]) != math.Float64bits(c[1].rows[k][x]) {
										t.Fatalf("%s n=%d scale %g: %s[%d]: pair %v, single %v", impl, n, scale, eventRowNames[k], x, c[1].rows[k][x], c[0].rows[k][x])
									}
								}
							}
						}
						cases++
					}
				}
			}
			if cases == 0 {
				t.Fatal("no case ran")
			}
		})
	}
}

// BenchmarkEventLogisticPair times two events on distinct rows: one pair
// call against two single calls (rows reused, so this is the kernels'
// latency with the events' results feeding the next iteration's).
func BenchmarkEventLogisticPair(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y := randomEvent(r, 16, 0.1), randomEvent(r, 16, 0.1)
	for _, impl := range Implementations() {
		f := EventLogisticPairDirect(16)
		b.Run(impl+"/singles", func(b *testing.B) {
			withImpl(b, impl, func() {
				for b.Loop() {
					EventLogistic(x.rows[0], x.rows[1], x.rows[2], x.rows[3], x.rows[4], x.rows[5], x.rows[6], x.rows[7], &x.sc)
					EventLogistic(y.rows[0], y.rows[1], y.rows[2], y.rows[3], y.rows[4], y.rows[5], y.rows[6], y.rows[7], &y.sc)
				}
			})
		})
		if impl == "generic" {
			continue
		}
		b.Run(impl+"/pair", func(b *testing.B) {
			withImpl(b, impl, func() {
				f = EventLogisticPairDirect(16)
				p := func(c *eventCase, k int) *float64 { return &c.rows[k][0] }
				for b.Loop() {
					f(p(&x, 0), p(&x, 1), p(&x, 2), p(&x, 3), p(&x, 4), p(&x, 5), p(&x, 6), p(&x, 7),
						p(&y, 0), p(&y, 1), p(&y, 2), p(&y, 3), p(&y, 4), p(&y, 5), p(&y, 6), p(&y, 7), 16, &x.sc.CPrev[0], &y.sc.CPrev[0])
				}
			})
		})
	}
}

// FuzzEventLogisticPair: two events decoded from the input (as
// FuzzEventLogistic decodes one: ten scalars, then n values for each of the
// eight rows, finite, exponents folded into a range where margins neither
// vanish nor overflow) run as a pair give the two single events' bits, in
// every implementation with a two-event kernel.
func FuzzEventLogisticPair(f *testing.F) {
	for _, n := range []int{1, 4, 7, 16, 19} {
		b := []byte{byte(n)}
		for i := 0; i < 2*(10+8*n); i++ {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%11)-4.5))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			t.Skip()
		}
		n := int(data[0]%64) + 1
		fs, ok := fuzzEventValues(data[1:])
		if !ok || len(fs) < 2*(10+8*n) {
			t.Skip()
		}
		var ev [2]eventCase
		ev[0], fs = fuzzEvent(fs, n)
		ev[1], _ = fuzzEvent(fs, n)
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				pf := EventLogisticPairDirect(n)
				if pf == nil {
					return
				}
				a, b := ev[0].clone(), ev[1].clone()
				pa, pb := ev[0].clone(), ev[1].clone()
				nzA, badA := EventLogistic(a.rows[0], a.rows[1], a.rows[2], a.rows[3], a.rows[4], a.rows[5], a.rows[6], a.rows[7], &a.sc)
				nzB, badB := EventLogistic(b.rows[0], b.rows[1], b.rows[2], b.rows[3], b.rows[4], b.rows[5], b.rows[6], b.rows[7], &b.sc)
				p := func(c *eventCase, k int) *float64 { return &c.rows[k][0] }
				nzm, bad := pf(p(&pa, 0), p(&pa, 1), p(&pa, 2), p(&pa, 3), p(&pa, 4), p(&pa, 5), p(&pa, 6), p(&pa, 7),
					p(&pb, 0), p(&pb, 1), p(&pb, 2), p(&pb, 3), p(&pb, 4), p(&pb, 5), p(&pb, 6), p(&pb, 7), n, &pa.sc.CPrev[0], &pb.sc.CPrev[0])
				pop := func(m int) int { return m&1 + m>>1&1 }
				if pop(nzm&3) != nzA || pop(nzm>>2&3) != nzB || bad&3 != badA || bad>>2&3 != badB {
					t.Fatalf("%s n=%d: pair (nonzero %04b, bad %04b), singles (%d, %d) and (%d, %d)", impl, n, nzm, bad, nzA, badA, nzB, badB)
				}
				for _, c := range [][2]*eventCase{{&a, &pa}, {&b, &pb}} {
					for k := range c[0].rows {
						for x := range c[0].rows[k] {
							if !sameBits(c[0].rows[k][x], c[1].rows[k][x]) {
								t.Fatalf("%s n=%d: %s[%d]: pair %v, single %v", impl, n, eventRowNames[k], x, c[1].rows[k][x], c[0].rows[k][x])
							}
						}
					}
				}
			})
		}
	})
}
