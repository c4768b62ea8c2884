package kernel

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// TriadGBps measures the memory bandwidth that threads goroutines see
// together with a STREAM-triad probe: a[i] = b[i] + s·c[i] (Triad, the
// active implementation) over three fresh arrays of n float64, each
// goroutine on its own contiguous part; a pass is timed from a common start
// to the last goroutine's end (the goroutines wait for it spinning, not
// sleeping, so that no wake-up is timed). It returns the best of reps
// passes in GB/s (10⁹ bytes/s), counting 3·8·n bytes per pass as STREAM
// does (the write-allocate read of a is not counted). Each goroutine
// first touches its part of the arrays in an untimed pass. To measure main
// memory rather than cache, take 3·8·n well above the last-level cache
// (e.g. n = 1<<23: 192 MiB in all). It panics if n, reps or threads is
// below 1.
func TriadGBps(n, reps, threads int) float64 {
	if n < 1 || reps < 1 || threads < 1 {
		panic(fmt.Sprintf("kernel.TriadGBps: n = %d, reps = %d and threads = %d must be positive", n, reps, threads))
	}
	threads = min(threads, n)
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	const s = 3.0
	part := func(g int, init bool) {
		lo, hi := g*n/threads, (g+1)*n/threads
		if init {
			for i := lo; i < hi; i++ {
				b[i], c[i] = 1, 2
			}
		}
		Triad(a[lo:hi], b[lo:hi], c[lo:hi], s)
	}
	pass := func(init bool) time.Duration {
		var ready, finished atomic.Int32
		var begin atomic.Bool
		for g := 1; g < threads; g++ {
			go func() {
				ready.Add(1)
				for !begin.Load() {
					runtime.Gosched()
				}
				part(g, init)
				finished.Add(1)
			}()
		}
		for ready.Load() != int32(threads-1) {
			runtime.Gosched()
		}
		t0 := time.Now()
		begin.Store(true)
		part(0, init)
		for finished.Load() != int32(threads-1) {
			runtime.Gosched()
		}
		return time.Since(t0)
	}
	pass(true)
	best := time.Duration(1<<63 - 1)
	for r := 0; r < reps; r++ {
		best = min(best, pass(false))
	}
	best = max(best, time.Nanosecond) // timer resolution on tiny n
	return 3 * 8 * float64(n) / best.Seconds() / 1e9
}
