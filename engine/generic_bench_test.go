package engine

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkGenericVsPlain: one synchronous round at n = 10⁶, d = 16 (the
// issue #20 target; -short: n = 10⁵) of the built-in AUC logistic loss on
// the plain schedule and of a user copy of it (userLogistic) on the generic
// executor; ns/node-update is the time of a round over n. Regenerate with
//
//	go test ./engine -run '^$' -bench GenericVsPlain -count 5 -benchtime 20x
func BenchmarkGenericVsPlain(b *testing.B) {
	n, d := 1000000, 16
	if testing.Short() {
		n = 100000
	}
	base := testProblem(b, problem.AUCLogistic, problem.Regularizer{}, n, d, 1)
	user := asObjective(b, base, userLogistic{"user-logistic"}, nil)
	g := mustGraph(b, graph.Spec{Kind: "cycle", N: n})
	for _, c := range []struct {
		name string
		p    *problem.Problem
	}{{"builtin-plain", base}, {"user-generic", user}} {
		b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
			s, err := New(c.p, g, Config{Algorithm: Sync, Iters: 1 << 40, GammaC: 1, Seed: 1, Schedule: SchedulePlain})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.Advance(2)
			for b.Loop() {
				if err := s.Advance(1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node-update")
		})
	}
}
