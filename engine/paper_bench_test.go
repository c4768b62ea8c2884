package engine

import (
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkPaperSizeRound: synchronous rounds at the paper's size (n = 699,
// d = 9, AUC logistic, Watts–Strogatz), one worker, per schedule; ns/op is
// one round (go test ./engine -run '^$' -bench PaperSizeRound -count 5).
func BenchmarkPaperSizeRound(b *testing.B) {
	p := testProblem(b, problem.AUCLogistic, problem.Regularizer{}, 699, 9, 1)
	g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: 699, K: 5, P: 0.3, Seed: 1})
	for _, sch := range []Schedule{ScheduleReduced, ScheduleBlocked, SchedulePlain} {
		b.Run(string(sch), func(b *testing.B) {
			s, err := New(p, g, Config{Algorithm: Sync, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: 1, Schedule: sch})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const chunk = 105 * 40 // whole blocks of the reduced schedule (B = 105 at n = 699)
			if err := s.Advance(chunk); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				if err := s.Advance(chunk); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*chunk), "ns/round")
		})
	}
}
