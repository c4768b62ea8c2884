package engine

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// BenchmarkReducedNetwork times blocks of the reduced synchronous schedule
// (the default for sync AUC) on the logistic AUC loss, d = 16, a
// Watts–Strogatz graph (k = 4, p = 0.3), with and without faults: message
// loss 0.3, 10% churn (geometric sessions, mean 4500 rounds online and 500
// offline: a node is offline a tenth of the time) and both. It reports ns
// per node update (a node's round) over blocks timed after 4n rounds (each
// node touched about 8 times: most nodes then hold another node's point,
// so that the share of contributing nodes, which sets a block's cost, is
// the run's and not that of its first rounds, where loss would make a run
// look cheaper by swapping less). n is 10⁵ unless PAIRGOSSIP_BENCH_N says
// otherwise; workers 1 and PAIRGOSSIP_BENCH_WORKERS (if set). With
// PAIRGOSSIP_BENCH_HORIZON=start the blocks are timed from the first round
// instead (the cheap start, where a block is mostly its pass over the
// records: the horizon of bench sync's --iters 20000 at n = 10⁶), and with
// a number R after R rounds.
// bench/RESULTS.md has the figures.
func BenchmarkReducedNetwork(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("PAIRGOSSIP_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	workers := []int{1}
	if v, err := strconv.Atoi(os.Getenv("PAIRGOSSIP_BENCH_WORKERS")); err == nil && v > 1 {
		workers = append(workers, v)
	}
	p := testProblem(b, problem.AUCLogistic, problem.Regularizer{}, n, 16, 1)
	g := mustGraph(b, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	churn := network.Churn{Dist: network.DistGeometric, Up: 4500, Down: 500}
	B := int64(redpack.Rounds(n))
	for _, w := range workers {
		for _, c := range []struct {
			name string
			m    network.Model
		}{{"none", network.Model{}}, {"loss=0.3", network.Model{Loss: 0.3}}, {"churn=10%", network.Model{Churn: churn}},
			{"loss=0.3+churn=10%", network.Model{Loss: 0.3, Churn: churn}}} {
			b.Run(fmt.Sprintf("n=%d/workers=%d/%s", n, w, c.name), func(b *testing.B) {
				s, err := New(p, g, Config{Algorithm: Sync, Iters: 1 << 40, GammaC: 0.5, Seed: 1, Workers: w, LogPoints: 1,
					EvalNodes: 16, Network: c.m})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if s.kind.name != "reduced" {
					b.Fatalf("ran %s, want reduced", s.kind.name)
				}
				warm := (4*int64(n) + B - 1) / B * B
				switch h := os.Getenv("PAIRGOSSIP_BENCH_HORIZON"); h {
				case "", "4n":
				case "start":
					warm = 1
				default:
					v, err := strconv.ParseInt(h, 10, 64)
					if err != nil || v < 1 {
						b.Fatalf("PAIRGOSSIP_BENCH_HORIZON=%q: want start, 4n or a number of rounds", h)
					}
					warm = v
				}
				if err := s.Advance(warm); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := s.Advance(B); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(B)/float64(n), "ns/node-update")
			})
		}
	}
}
