// The race detector's shadow memory is faulted in as the array is written,
// so under -race the count measures the shadow, not the array.

//go:build !race

package layout

import (
	"fmt"
	"syscall"
	"testing"
	"unsafe"
)

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("getrusage:", err)
	}
	return ru.Minflt
}

// After AlignedFloats (or PrefaultWorkers) the pages are mapped writable: writing the whole
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
	// The same by several goroutines (8 MiB: four 2 MiB parts), on a
	// mapping of its own (the Go heap may hand back memory already
	// faulted in).
	mem, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	buf := unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), n)
	PrefaultWorkers(buf, 3)
	if par := write(buf); par > n/512/20 {
		t.Fatalf("writing an array prefaulted by 3 goroutines faulted %d times (a lazy one: %d)", par, lazy)
	}
}

// BenchmarkPrefault times the first touch of a fresh 256 MiB mapping (its
// own mmap each time: memory the Go heap reuses is already faulted in) by
// one goroutine and by two, as the engine's state at large n is faulted in
// (PrefaultWorkers).
func BenchmarkPrefault(b *testing.B) {
	const size = 256 << 20
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				buf := unsafe.Slice((*float64)(unsafe.Pointer(&mem[0])), size/8)
				b.StartTimer()
				PrefaultWorkers(buf, w)
				b.StopTimer()
				if err := syscall.Munmap(mem); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(size)/1e9/(b.Elapsed().Seconds()/float64(b.N)), "GB/s")
		})
	}
}
