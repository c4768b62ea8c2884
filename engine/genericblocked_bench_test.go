package engine

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkGenericBlockedVsPlain: the synchronous schedules of a user
// objective side by side, the generic plain schedule and the generic
// blocked one, on a user copy of the AUC logistic loss (userLogistic) at
// n = 10⁶, d = 16 (-short: n = 10⁵), ψ = none and ψ = l1 (a smoothing
// operator that is not a scaling). One operation is one block of B = 64
// rounds on either schedule (the plain one runs the same 64 rounds);
// ns/node-update is its time over 64·n. This is what auto's choice for a
// user objective rests on (bench/results/generic.md). Regenerate with five
// runs of
//
//	go test ./engine -run '^$' -bench GenericBlockedVsPlain -count 1 -benchtime 1x -timeout 60m
//
// (-count 5 would run each variant five times in a row; separate runs
// alternate them, so both see the same load).
func BenchmarkGenericBlockedVsPlain(b *testing.B) {
	n, d := 1000000, 16
	if testing.Short() {
		n = 100000
	}
	g := mustGraph(b, graph.Spec{Kind: "cycle", N: n})
	rounds := int64(blockRounds(n))
	for _, reg := range []problem.Regularizer{{}, {Kind: problem.RegL1, Lambda: 1e-4}} {
		base := testProblem(b, problem.AUCLogistic, reg, n, d, 1)
		user := asObjective(b, base, userLogistic{"user-logistic"}, nil)
		for _, sched := range []Schedule{SchedulePlain, ScheduleBlocked} {
			b.Run(fmt.Sprintf("reg=%s/%s/n=%d", reg.Kind, sched, n), func(b *testing.B) {
				s, err := New(user, g, Config{Algorithm: Sync, Iters: 1 << 40, GammaC: 1, Seed: 1, Schedule: sched})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if err := s.Advance(2); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := s.Advance(rounds); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rounds)/float64(n), "ns/node-update")
			})
		}
	}
}

// BenchmarkGenericBlockedSmall: the same comparison on small problems
// (n = 64, 512, 4096, d = 16, ψ = none, 2 workers), where a block is short
// (B = n/16 up to 64) and its touched nodes, run serially, are up to an
// eighth of the work: whether auto's choice from n ≥ 32 on also holds
// there. One operation is 64 rounds. Regenerate with five runs of
//
//	go test ./engine -run '^$' -bench GenericBlockedSmall -count 1 -benchtime 1s
func BenchmarkGenericBlockedSmall(b *testing.B) {
	const rounds = 64
	for _, n := range []int{64, 512, 4096} {
		g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.2, Seed: 1})
		base := testProblem(b, problem.AUCLogistic, problem.Regularizer{}, n, 16, 1)
		user := asObjective(b, base, userLogistic{"user-logistic"}, nil)
		for _, sched := range []Schedule{SchedulePlain, ScheduleBlocked} {
			b.Run(fmt.Sprintf("n=%d/%s", n, sched), func(b *testing.B) {
				s, err := New(user, g, Config{Algorithm: Sync, Iters: 1 << 40, GammaC: 1, Seed: 1, Workers: 2, Schedule: sched})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for b.Loop() {
					if err := s.Advance(rounds); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rounds/float64(n), "ns/node-update")
			})
		}
	}
}
