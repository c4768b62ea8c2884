package engine

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkAsyncMetricEvent times asynchronous metric-learning events on
// the synthetic set (n = 1000, Watts–Strogatz, γ = 0.01/√m, ψ = PSD cone),
// one worker, the per-event reference (the old path: a projection per
// endpoint) beside the default schedule (exec_asynccone.go), at d = 10 and
// d = 40. Each starts from the state after 2000 events and times 128 events
// an op, so with a fixed -benchtime (e.g. 20x) both paths time the same
// events:
//
//	go test ./engine -run '^$' -bench AsyncMetricEvent -benchtime 20x -count 5
func BenchmarkAsyncMetricEvent(b *testing.B) {
	for _, d := range []int{10, 40} {
		sc := dataset.DefaultSynthetic()
		sc.D, sc.S = d, min(sc.S, d)
		ds, err := dataset.Synthetic(sc)
		if err != nil {
			b.Fatal(err)
		}
		p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, ds.N, ds.D, ds.X, ds.Class)
		if err != nil {
			b.Fatal(err)
		}
		g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: ds.N, K: 5, P: 0.3, Seed: 1})
		for _, sched := range []Schedule{ScheduleReference, ScheduleAuto} {
			name := "old-reference"
			if sched == ScheduleAuto {
				name = "new-cone"
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, name), func(b *testing.B) {
				s, err := New(p, g, Config{Algorithm: Async, Iters: 1 << 50, GammaC: 0.01, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1, Schedule: sched})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				ex := s.exec.(eventRunner)
				if err := ex.serialTo(2000); err != nil {
					b.Fatal(err)
				}
				const chunk = 128
				e0 := s.eigendecompositions()
				events := 0
				b.ReportAllocs()
				for b.Loop() {
					if err := ex.serialTo(s.t + chunk); err != nil {
						b.Fatal(err)
					}
					events += chunk
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(events), "ms/event")
				b.ReportMetric(float64(s.eigendecompositions()-e0)/float64(events), "eig/event")
			})
		}
	}
}
