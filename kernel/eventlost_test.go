package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEventLogisticLost: every implementation against the reference at
// every length 0..130, aligned and not, with guard padding, margins small
// and saturating (checkEventKind: the x and y rows untouched, z and θ̄
// within the bounds of the margins' summation and the exponential).
func TestEventLogisticLost(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 130; n++ {
		for _, scale := range []float64{1, 30, 1e-3} {
			for _, offs := range offsetSets {
				checkEventKind(t, randomEvent(r, n, scale), offs, fmt.Sprintf("n=%d scale=%g offsets=%v", n, scale, offs), true)
			}
		}
	}
}

// TestEventLogisticLostIsNoExchange: the lost event is the whole event
// without its exchange — on two endpoints whose y and z rows are equal
// (so that swapping and averaging change nothing) the two kernels give the
// same bits in every implementation.
func TestEventLogisticLostIsNoExchange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 3, 8, 16, 17, 33, 130} {
		c := randomEvent(r, n, 1)
		copy(c.rows[5], c.rows[1]) // y_j = y_i
		copy(c.rows[6], c.rows[2]) // z_j = z_i
		for _, impl := range Implementations() {
			a, b := c.clone(), c.clone()
			var nzA, badA, nzB, badB int
			withImpl(t, impl, func() {
				ra, rb := a.rows, b.rows
				nzA, badA = EventLogistic(ra[0], ra[1], ra[2], ra[3], ra[4], ra[5], ra[6], ra[7], &a.sc)
				nzB, badB = EventLogisticLost(rb[0], rb[1], rb[2], rb[3], rb[4], rb[5], rb[6], rb[7], &b.sc)
			})
			if nzA != nzB || badA != badB {
				t.Fatalf("%s n=%d: counts %d/%d, masks %b/%b", impl, n, nzA, nzB, badA, badB)
			}
			for i := range a.rows {
				for k := range n {
					if !sameBits(a.rows[i][k], b.rows[i][k]) {
						t.Fatalf("%s n=%d: %s[%d] %v (EventLogistic) vs %v (EventLogisticLost)", impl, n, eventRowNames[i], k, a.rows[i][k], b.rows[i][k])
					}
				}
			}
		}
	}
}

// TestEventLogisticLostLong: a row beyond one assembly call takes the
// split path (the reference's margins, the chunked SyncLinear).
func TestEventLogisticLostLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long rows")
	}
	checkEventKind(t, randomEvent(rand.New(rand.NewPCG(11, 12)), chunk+37, 0.01), []int{0, 1}, "n=chunk+37", true)
}

// FuzzEventLogisticLost decodes its input as FuzzEventLogistic does.
func FuzzEventLogisticLost(f *testing.F) { fuzzEventKind(f, true) }

// BenchmarkEventLogisticLost: one lost event on hot rows of d = 16,
// against the whole event's kernel.
func BenchmarkEventLogisticLost(b *testing.B) {
	c := randomEvent(rand.New(rand.NewPCG(1, 1)), 16, 0.1)
	r := c.rows
	for _, impl := range Implementations() {
		b.Run(impl, func(b *testing.B) {
			withImpl(b, impl, func() {
				for b.Loop() {
					EventLogisticLost(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], &c.sc)
				}
			})
		})
	}
}
