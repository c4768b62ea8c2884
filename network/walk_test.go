package network

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
)

// piecesSums is OnlineSums' definition: node k's pieces from Pieces, summed
// in their order.
func piecesSums(nt *Net, k int, lo, hi int64, prefix []float64) (on int64, sum float64, last int64) {
	pcs := nt.Pieces(k, lo, hi, nil)
	for x := 0; x+1 < len(pcs); x += 2 {
		a, b := pcs[x]-lo+1, pcs[x+1]-lo+1
		sum += prefix[b] - prefix[a-1]
		on += b - a + 1
		last = b
	}
	return on, sum, last
}

// TestOnlineSumIsPieces checks OnlineSum against Pieces summed on a second
// model of the same seed, bit for bit, for every
// distribution (sessions of a few iterations, of some hundreds, and longer
// than 2³², which a cursor draws again when it reaches them), a session
// file and no churn: blocks in order over random subsets of the nodes in
// random order, blocks asked about again, Online asked behind the cursors
// between blocks (the trace's count), and random ranges (a restore).
func TestOnlineSumIsPieces(t *testing.T) {
	const n = 48
	type pair struct {
		name string
		a, b *Net
	}
	var nets []pair
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		for _, ud := range [][2]float64{{3, 2}, {30, 10}, {450, 50}, {6e9, 3}, {3, 6e9}} {
			nets = append(nets, pair{dist, churnNet(t, dist, ud[0], ud[1], n, 9), churnNet(t, dist, ud[0], ud[1], n, 9)})
		}
	}
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	p := writeFile(t, "s.txt", "2 10 12\n0 5 5\n2 3 4\n2 13 15\n7 1 1\n7 2 40\n")
	nets = append(nets, pair{"file", mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1),
		mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1)})
	// A dense file: every node offline for intervals of 1 to 30 iterations
	// 1 to 60 apart over 1 … 8000, so that blocks hold many pieces.
	var dense strings.Builder
	rf := rand.New(rand.NewPCG(9, 10))
	for k := range n {
		for a := 1 + rf.Int64N(60); a < 8000; {
			b := a + rf.Int64N(30)
			fmt.Fprintf(&dense, "%d %d %d\n", k, a, b)
			a = b + 1 + rf.Int64N(60)
		}
	}
	pd := writeFile(t, "dense.txt", dense.String())
	nets = append(nets, pair{"dense file", mustNet(t, Model{Churn: Churn{Dist: DistFile, File: pd}}, g, 1),
		mustNet(t, Model{Churn: Churn{Dist: DistFile, File: pd}}, g, 1)})
	nets = append(nets, pair{"none", mustNet(t, Model{Loss: 0.1}, g, 1), mustNet(t, Model{Loss: 0.1}, g, 1)})
	for _, nn := range nets {
		r := rand.New(rand.NewPCG(5, 6))
		check := func(lo, hi int64) {
			t.Helper()
			prefix := make([]float64, hi-lo+2)
			for x := 1; x < len(prefix); x++ {
				prefix[x] = prefix[x-1] + r.Float64()*math.Ldexp(1, r.IntN(20)-10)
			}
			ks := make([]int32, 0, n)
			for _, k := range r.Perm(n) {
				if r.IntN(4) != 0 {
					ks = append(ks, int32(k))
				}
			}
			for _, k := range ks {
				on, sum, last := nn.a.OnlineSum(int(k), lo, hi, prefix)
				won, wsum, wlast := piecesSums(nn.b, int(k), lo, hi, prefix)
				if on != won || math.Float64bits(sum) != math.Float64bits(wsum) || last != wlast {
					t.Fatalf("%s node %d [%d, %d]: OnlineSum %d %v %d, Pieces' %d %v %d", nn.name, k, lo, hi, on, sum, last, won, wsum, wlast)
				}
			}
		}
		for lo := int64(1); lo < 6000; {
			hi := lo + r.Int64N(300)
			check(lo, hi)
			switch r.IntN(6) {
			case 0:
				check(lo, hi)
			case 1:
				for k := 0; k < n; k++ {
					t := lo + r.Int64N(hi-lo+1)
					if nn.a.Online(k, t) != nn.b.Online(k, t) {
						panic("Online differs")
					}
				}
			}
			lo = hi + 1
		}
		for x := 0; x < 300; x++ {
			lo := 1 + r.Int64N(8000)
			check(lo, lo+r.Int64N(400))
		}
	}
	// Sessions longer than 2³², which a cursor does not hold ahead but draws
	// when it steps into them: blocks placed just before the end of a node's
	// long online session, so that the walk steps through the short
	// offline one into the next long one, at random far apart.
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		a, b := churnNet(t, dist, 6e9, 3, n, 4), churnNet(t, dist, 6e9, 3, n, 4)
		r := rand.New(rand.NewPCG(7, 8))
		long := 0
		for x := 0; x < 100; x++ {
			k := r.IntN(n)
			b.Online(k, 1+r.Int64N(1<<36))
			lo := max(1, b.churn.cur[k].next-1-r.Int64N(100))
			hi := lo + 150 + r.Int64N(150)
			prefix := make([]float64, hi-lo+2)
			for y := 1; y < len(prefix); y++ {
				prefix[y] = prefix[y-1] + r.Float64()
			}
			on, sum, last := a.OnlineSum(k, lo, hi, prefix)
			won, wsum, wlast := piecesSums(b, k, lo, hi, prefix)
			if on != won || math.Float64bits(sum) != math.Float64bits(wsum) || last != wlast {
				t.Fatalf("%s long sessions, node %d [%d, %d]: OnlineSum %d %v %d, Pieces' %d %v %d", dist, k, lo, hi, on, sum, last, won, wsum, wlast)
			}
			if c := a.churn.cur[k]; c.next-c.start >= 1<<32 && c.start > lo {
				long++
			}
		}
		if long < 50 {
			t.Fatalf("%s: %d walks into a session longer than 2³², want 50 or more", dist, long)
		}
	}
}

// BenchmarkChurnWalk walks 2¹⁸ nodes' cursors through blocks of 4096
// iterations (sessions of 4500 and 500 on average: 10 % offline, the
// reduced schedule's walk at its block length for n = 10⁶) and sums a
// weight over their online pieces: with Pieces and a loop over its pieces
// (the reduced schedule's walk before OnlineSum), and with OnlineSum; ns/node
// is a block's walk of one node (bench/RESULTS.md, "The churn walk in one
// piece").
func BenchmarkChurnWalk(b *testing.B) {
	const n, B = 1 << 18, 4096
	prefix := make([]float64, B+1)
	for x := 1; x <= B; x++ {
		prefix[x] = prefix[x-1] + 1/float64(x)
	}
	for _, dist := range []string{DistGeometric, DistExponential, DistLognormal} {
		for _, c := range []struct {
			name string
			walk func(nt *Net, k int, lo, hi int64, pcs []int64) (float64, []int64)
		}{
			{"pieces", func(nt *Net, k int, lo, hi int64, pcs []int64) (float64, []int64) {
				pcs = nt.Pieces(k, lo, hi, pcs[:0])
				s := 0.0
				for x := 0; x+1 < len(pcs); x += 2 {
					s += prefix[pcs[x+1]-lo+1] - prefix[pcs[x]-lo]
				}
				return s, pcs
			}},
			{"sum", func(nt *Net, k int, lo, hi int64, pcs []int64) (float64, []int64) {
				_, s, _ := nt.OnlineSum(k, lo, hi, prefix)
				return s, pcs
			}},
		} {
			b.Run(dist+"/"+c.name, func(b *testing.B) {
				nt := churnNet(b, dist, 4500, 500, n, 3)
				var pcs []int64
				lo := int64(1)
				s := 0.0
				for b.Loop() {
					for k := 0; k < n; k++ {
						var x float64
						x, pcs = c.walk(nt, k, lo, lo+B-1, pcs)
						s += x
					}
					lo += B
				}
				sinkFloat = s
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/node")
			})
		}
	}
}

var sinkFloat float64
