//go:build linux

package engine

import (
	"runtime"
	"testing"
)

// BenchmarkAsyncSerialCPU times the serial gossip loop (AUC logistic,
// d = 16, Watts–Strogatz) at n = 10⁴ (records beyond L2) and 10⁶ (beyond
// every cache), as the default configuration runs it, and reports besides
// wall time per event the CPU time per event of the benchmark's thread
// (getrusage): on a machine shared with other jobs, wall time varies
// several-fold between runs while CPU time varies by a few percent, so
// comparisons of the loop's variants use cpu-ns/event. (Contention for
// caches and memory still shows in it.)
func BenchmarkAsyncSerialCPU(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run("n="+itoa(n), func(b *testing.B) {
			p, g := benchAUCWS(b, n)
			s, err := New(p, g, Config{Algorithm: Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ex := s.exec.(*asyncExec)
			const chunk = 1 << 16
			if err := ex.serialTo(chunk); err != nil {
				b.Fatal(err)
			}
			events := 0
			c0 := benchThreadCPU(b)
			for b.Loop() {
				if err := ex.serialTo(s.t + chunk); err != nil {
					b.Fatal(err)
				}
				events += chunk
			}
			b.ReportMetric(float64(benchThreadCPU(b)-c0)/float64(events), "cpu-ns/event")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}

// benchThreadCPU is the calling thread's CPU time in nanoseconds (the
// engine's threadCPU: CLOCK_THREAD_CPUTIME_ID, exact, not getrusage's ticks).
func benchThreadCPU(b *testing.B) int64 {
	t, ok := threadCPU()
	if !ok {
		b.Skip("the thread CPU clock cannot be read here")
	}
	return t.Nanoseconds()
}
