package engine

import (
	"testing"
)

// BenchmarkAsyncEventHot times the asynchronous gossip event on a small
// graph whose state stays in L1/L2: the event's compute and overheads,
// without memory latency.
func BenchmarkAsyncEventHot(b *testing.B) {
	for _, n := range []int{64, 1000} {
		b.Run("n="+itoa(n), func(b *testing.B) {
			p, g := benchAUCWS(b, n)
			s, err := New(p, g, Config{Algorithm: Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const chunk = 1 << 14
			ex := s.exec.(*asyncExec)
			ex.serialTo(chunk)
			events := 0
			for b.Loop() {
				ex.serialTo(s.t + chunk)
				events += chunk
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// BenchmarkAsyncLarge times the serial loop and the parallel executor at
// n = 10⁶ (d = 16), without the Theta rebuild that Advance ends with.
func BenchmarkAsyncLarge(b *testing.B) {
	const n = 1_000_000
	p, g := benchAUCWS(b, n)
	for _, w := range []int{1, 2} {
		b.Run("workers="+itoa(w), func(b *testing.B) {
			s, err := New(p, g, Config{Algorithm: Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: w, LogPoints: 1, EvalNodes: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const chunk = 1 << 18
			events := 0
			for b.Loop() {
				stop := s.t + chunk
				for s.t < stop {
					if err := s.advance(stop); err != nil {
						b.Fatal(err)
					}
				}
				events += chunk
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
