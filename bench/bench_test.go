// Package bench holds the Go benchmarks of pairgossip's hot loops, the NumPy
// reference of the same synchronous step (numpy_ref.py) and run.sh, which
// runs both side by side and writes RESULTS.md.
//
//	go test -run '^$' -bench . -benchtime 20x -count 5 ./bench/
package bench

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/benchdata"
	"github.com/pairgossip/pairgossip/problem"
)

func randomAUC(b *testing.B, n, d int) *problem.Problem {
	p, err := benchdata.AUC(n, d, 1)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func ws(b *testing.B, n int) *graph.Graph {
	g, err := graph.WattsStrogatz(n, 5, 0.3, 1)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkSyncRound times one synchronous round (all n node updates); it
// reports ns per node update and allocations per round (must be 0).
func BenchmarkSyncRound(b *testing.B) {
	for _, c := range []struct{ n, d int }{{699, 9}, {100_000, 16}, {100_000, 64}} {
		for _, sched := range []engine.Schedule{engine.SchedulePlain, engine.ScheduleBlocked, engine.ScheduleReduced} {
			b.Run(fmt.Sprintf("n=%d/d=%d/%s", c.n, c.d, sched), func(b *testing.B) {
				p, g := randomAUC(b, c.n, c.d), ws(b, c.n)
				s, err := engine.New(p, g, engine.Config{Algorithm: engine.Sync, Iters: 1 << 40, GammaC: 1, Seed: 1, LogPoints: 1, EvalNodes: 1, Schedule: sched})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				// Advance rebuilds Θ at its end, and the reduced schedule
				// runs blocks of up to 4√n rounds, each with two passes
				// over the records: time it over several whole blocks.
				chunk := 64
				if sched == engine.ScheduleReduced {
					chunk = 8192
				}
				s.Advance(int64(chunk)) // warm-up
				b.ReportAllocs()
				rounds := 0
				for b.Loop() {
					s.Advance(int64(chunk))
					rounds += chunk
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds)/float64(c.n), "ns/node-update")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds), "ns/round")
			})
		}
	}
}

// BenchmarkAsyncEvents times asynchronous events, serial loop and parallel executor.
func BenchmarkAsyncEvents(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", n, w), func(b *testing.B) {
				p, g := randomAUC(b, n, 16), ws(b, n)
				s, err := engine.New(p, g, engine.Config{Algorithm: engine.Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: w, LogPoints: 1, EvalNodes: 1})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				// Advance rebuilds Θ (all n rows) at its end: events per
				// call in proportion to n keep that under a few percent.
				chunk := max(1<<16, 4*n)
				s.Advance(int64(chunk))
				b.ReportAllocs()
				events := 0
				for b.Loop() {
					s.Advance(int64(chunk))
					events += chunk
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
