package layout

import (
	"fmt"
	"syscall"
	"testing"
	"unsafe"
)

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
