package engine

import (
	"os"
	"strconv"
	"testing"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkConeRounds times rounds 1..2000 of synchronous metric learning on
// the synthetic set (n = 1000, d = 40), the reduced schedule, 2 workers.
func BenchmarkConeRounds(b *testing.B) {
	sc := dataset.DefaultSynthetic()
	if d := os.Getenv("CONE_D"); d != "" {
		sc.D, _ = strconv.Atoi(d)
	}
	ds, err := dataset.Synthetic(sc)
	if err != nil {
		b.Fatal(err)
	}
	p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, ds.N, ds.D, ds.X, ds.Class)
	if err != nil {
		b.Fatal(err)
	}
	g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: ds.N, K: 5, P: 0.3, Seed: 1})
	for b.Loop() {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 2000, GammaC: 0.01, Seed: 1, Workers: 2, LogPoints: 1, EvalNodes: 16})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Advance(2000); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
