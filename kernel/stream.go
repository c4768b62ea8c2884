package kernel

import (
	"fmt"
	"time"
)

// TriadGBps measures the memory bandwidth one goroutine sees with a
// STREAM-triad probe in plain Go (the generic Triad loop, whatever the
// active implementation): a[i] = b[i] + s·c[i] over three fresh arrays of n
// float64, timed pass by pass; it returns the best of reps passes in GB/s
// (10⁹ bytes/s), counting 3·8·n bytes per pass as STREAM does (the
// write-allocate read of a is not counted). One untimed pass first touches
// the pages. To measure main memory rather than cache, take 3·8·n well
// above the last-level cache (e.g. n = 1<<23: 192 MiB in all). It panics
// if n < 1 or reps < 1.
func TriadGBps(n int, reps int) float64 {
	if n < 1 || reps < 1 {
		panic(fmt.Sprintf("kernel.TriadGBps: n = %d and reps = %d must be positive", n, reps))
	}
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range b {
		b[i], c[i] = 1, 2
	}
	const s = 3.0
	triadGeneric(a, b, c, s)
	best := time.Duration(1<<63 - 1)
	for r := 0; r < reps; r++ {
		start := time.Now()
		triadGeneric(a, b, c, s)
		best = min(best, time.Since(start))
	}
	best = max(best, time.Nanosecond) // timer resolution on tiny n
	return 3 * 8 * float64(n) / best.Seconds() / 1e9
}
