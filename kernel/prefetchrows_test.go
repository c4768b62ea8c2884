package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestPrefetchRows: in every implementation, records inside a live buffer
// (every index, stride and line count up to a few lines, lines running past
// the buffer's end) and indices whose records are not memory at all
// (negative, huge); the call never faults and changes neither the indices
// nor the memory it prefetches.
func TestPrefetchRows(t *testing.T) {
	data := make([]float64, 4096)
	for i := range data {
		data[i] = float64(i)
	}
	before := slices.Clone(data)
	idx := []int32{0, 1, 7, 63, 64, 511, -1, -1 << 31, 1<<31 - 1, 5, 3}
	want := slices.Clone(idx)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			for n := 0; n <= len(idx); n++ {
				for _, stride := range []int{8, 32, 512, 4096} {
					for lines := 0; lines <= 9; lines++ {
						PrefetchRows(unsafe.Pointer(&data[0]), idx[:n], stride, lines)
					}
				}
			}
			PrefetchRows(nil, idx, 1<<20, 2) // records nowhere near memory
			if !slices.Equal(idx, want) {
				t.Fatalf("%s: PrefetchRows changed its indices", impl)
			}
			if !slices.Equal(data, before) {
				t.Fatalf("%s: PrefetchRows changed prefetched memory", impl)
			}
		})
	}
}

// TestEventLogisticDirect: the direct function of every implementation
// gives EventLogistic's results bit for bit (outputs, rows and counts), and
// nil only beyond an assembly call's bound.
func TestEventLogisticDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			for _, n := range []int{1, 9, 16, 17, 64, 130} {
				for _, scale := range []float64{1, 30, 1e-3} {
					a := randomEvent(r, n, scale)
					b := a.clone()
					nzA, badA := EventLogistic(a.rows[0], a.rows[1], a.rows[2], a.rows[3], a.rows[4], a.rows[5], a.rows[6], a.rows[7], &a.sc)
					f := EventLogisticDirect(n)
					if f == nil {
						t.Fatalf("%s: no direct function for n = %d", impl, n)
					}
					p := func(k int) *float64 { return &b.rows[k][0] }
					nzB, badB := f(p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), n, &b.sc.CPrev[0])
					if nzA != nzB || badA != badB {
						t.Fatalf("%s n=%d: direct (%d, %d), EventLogistic (%d, %d)", impl, n, nzB, badB, nzA, badA)
					}
					for k := range a.rows {
						for x := range a.rows[k] {
							if math.Float64bits(a.rows[k][x]) != math.Float64bits(b.rows[k][x]) {
								t.Fatalf("%s n=%d: row %d element %d: direct %v, EventLogistic %v", impl, n, k, x, b.rows[k][x], a.rows[k][x])
							}
						}
					}
				}
			}
			if f := EventLogisticDirect(chunk + 1); (f == nil) != cur.Load().bounded {
				t.Fatalf("%s: EventLogisticDirect(chunk+1) nil = %v, bounded = %v", impl, f == nil, cur.Load().bounded)
			}
		})
	}
}
