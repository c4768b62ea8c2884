package engine

import (
	"strconv"
	"testing"

	"github.com/pairgossip/pairgossip/network"
)

// BenchmarkAsyncEventHot times the asynchronous gossip event on a small
// graph whose state stays in L1/L2: the event's compute and overheads,
// without memory latency.
//
// The cases with message loss time the serial loop under a network model
// (loss=1: every exchange lost, so every event is both endpoints' steps
// without an exchange; loss=0.3 the mix issue #34 times at n = 10⁶).
func BenchmarkAsyncEventHot(b *testing.B) {
	for _, c := range []struct {
		n    int
		loss float64
	}{{64, 0}, {1000, 0}, {64, 0.3}, {64, 1}} {
		name := "n=" + itoa(c.n)
		if c.loss != 0 {
			name += "/loss=" + strconv.FormatFloat(c.loss, 'g', -1, 64)
		}
		b.Run(name, func(b *testing.B) {
			p, g := benchAUCWS(b, c.n)
			var m network.Model
			m.Loss = c.loss
			s, err := New(p, g, Config{Algorithm: Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1, Network: m})
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
