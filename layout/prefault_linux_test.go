// The race detector's shadow memory is faulted in as the array is written,
// so under -race the count measures the shadow, not the array.

//go:build !race

package layout

import (
	"syscall"
	"testing"
)

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("getrusage:", err)
	}
	return ru.Minflt
}

// After AlignedFloats the pages are mapped writable: writing the whole
// array faults (almost) nothing more, where a LazyFloats array of the same
// size faults once a page.
func TestAlignedFloatsPrefaults(t *testing.T) {
	const n = 8 << 20 / 8 // 8 MiB: 2048 pages, under hugepage.MinBytes
	write := func(buf []float64) int64 {
		f0 := minorFaults(t)
		for i := range buf {
			buf[i] = 1
		}
		return minorFaults(t) - f0
	}
	lazy := write(LazyFloats(n))
	pre := write(AlignedFloats(n))
	if lazy < n/512/2 {
		t.Skipf("a fresh lazy array faulted only %d times: the system maps memory eagerly", lazy)
	}
	if pre > n/512/20 {
		t.Fatalf("writing a prefaulted array faulted %d times (a lazy one: %d)", pre, lazy)
	}
}
