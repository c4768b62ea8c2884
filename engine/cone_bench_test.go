package engine

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkConeRounds times rounds 1..2000 of synchronous metric learning on
// the synthetic set (n = 1000, d = 10 and 40), the reduced schedule, 2
// workers; it reports ms per round and eigendecompositions per round.
func BenchmarkConeRounds(b *testing.B) {
	for _, d := range []int{10, 40} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			sc := dataset.DefaultSynthetic()
			sc.D = d
			ds, err := dataset.Synthetic(sc)
			if err != nil {
				b.Fatal(err)
			}
			p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, ds.N, ds.D, ds.X, ds.Class)
			if err != nil {
				b.Fatal(err)
			}
			g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: ds.N, K: 5, P: 0.3, Seed: 1})
			var eigs int64
			for b.Loop() {
				s, err := New(p, g, Config{Algorithm: Sync, Iters: 2000, GammaC: 0.01, Seed: 1, Workers: 2, LogPoints: 1, EvalNodes: 16})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Advance(2000); err != nil {
					b.Fatal(err)
				}
				eigs = s.eigendecompositions()
				s.Close()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N)/2000, "ms/round")
			b.ReportMetric(float64(eigs)/2000, "eig/round")
		})
	}
}
