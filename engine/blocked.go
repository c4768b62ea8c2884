package engine

import (
	"math"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// The temporally blocked synchronous schedule (linear fast path).
//
// A round couples only the two endpoints of its edge; every other node's
// update depends on its own record alone. So within a block of B rounds,
// the nodes that no edge of the block touches evolve independently: each is
// advanced B rounds in a row while its record is in cache (one trip to
// memory per block instead of one per round), over the worker pool. The
// touched nodes (at most 2B) are then advanced round by round in event
// order, with the swaps and averagings of their edges. Every node sees
// exactly the operations of the plain schedule, in the same order: results
// are bit-identical.

// ScheduleBlocked is the temporally blocked synchronous schedule.
const ScheduleBlocked = "blocked"

// blockMax bounds the rounds of one block of the blocked schedule.
var blockMax = 64

// reducedBlockMax bounds the rounds of one block of the reduced schedule.
// Its block costs two passes over the records plus, per round, work on
// the O(B) touched nodes (packed scalars and the running-average weights
// of restarted segments): B ≈ 4√n balances the two (measured at n = 699
// and 10⁶: see reducedRounds), up to this bound.
var reducedBlockMax = 4096

type syncBlock struct {
	edges   [][2]int32
	coef    []roundCoef
	stamp   []uint32 // per node: gen when touched in the current block
	gen     uint32
	touched []int32
	nz      []int64
	bad     []badRound
	fn      func(w int, r layout.Range)
	rounds  int   // B of the current block
	maxB    int   // the largest B
	t0      int64 // iterations done before the block
}

type roundCoef struct {
	c, a, b, cPrev float64
}

type badRound struct {
	t    int64
	node int
}

func (b badRound) before(o badRound) bool {
	return o.t == 0 || b.t < o.t || (b.t == o.t && b.node < o.node)
}

// newSyncBlock allocates the blocks of a run on n nodes, of at most maxB
// rounds each.
func newSyncBlock(n, workers, maxB int) *syncBlock {
	return &syncBlock{
		maxB:    maxB,
		edges:   make([][2]int32, maxB),
		touched: make([]int32, 0, 2*maxB),
		coef:    make([]roundCoef, maxB+1),
		stamp:   make([]uint32, n),
		nz:      make([]int64, workers),
		bad:     make([]badRound, workers),
	}
}

// blockRounds picks B of the blocked schedule for a synchronous run on n
// nodes.
func blockRounds(n int) int {
	return max(1, min(blockMax, n/16))
}

// reducedRounds picks B of the reduced schedule: 4√n, at most n/4 and
// reducedBlockMax. (Per synchronous round: n = 699, d = 9, 2 workers on the
// earlier Zen 3 machine: 1.5 µs at B = 64, 1.3 µs at 128–256. n = 10⁶,
// d = 16, ns per node-update on this project's AMD EPYC family 26, 1 and 2
// workers, 16 384 rounds after 8 192: B = 2048 0.047 and 0.031, 4000 0.036
// and 0.026, 4096 0.032 and 0.023, 8000 0.034 and 0.026.)
func reducedRounds(n int) int {
	return max(1, min(reducedBlockMax, n/4, int(4*math.Sqrt(float64(n)))))
}

// fastNodeRound is node k's plain update in round t (1-based round r of the
// block, with coefficients cf); it reports whether the gradient was non-zero
// and whether the node stayed finite. endTh is non-nil for an endpoint of
// the round's edge under the unbiased baseline: its θ before the averaging.
func (s *Sim) fastNodeRound(k int, t int64, cf roundCoef, endTh []float64) (nonzero, ok bool) {
	lab := s.prob.Label
	x, z, bar := s.X.Row(k), s.Z.Row(k), s.ThetaBar.Row(k)
	var y []float64
	var ly int32
	var m float64
	gossip := s.cfg.Estimator == Gossip
	if gossip {
		y, ly, m = s.YX.Row(k), s.ylab[k], s.marg[k]
	} else {
		y, ly = s.fastAux(k, t)
		if lab[k] > ly {
			if endTh != nil {
				m = marginScaled(x, y, endTh, 1)
			} else {
				m = marginScaled(x, y, z, cf.cPrev)
			}
		}
	}
	var wt float64
	if lab[k] > ly {
		wt = s.prob.Loss.MarginDeriv(m)
	}
	m = kernel.SyncLinear(z, bar, x, y, wt, cf.c, cf.a, cf.b)
	if gossip {
		s.marg[k] = m
	}
	return wt != 0, isFinite(m)
}

// beginBlock starts a block of at most stop − s.t rounds: it draws the
// block's edges from the stream, marks their endpoints as touched (a new
// generation of stamps; clearOnWrap is also cleared when the stamps wrap)
// and computes each round's coefficients. It returns B.
func (s *Sim) beginBlock(stop int64, clearOnWrap []uint32) int {
	bl := s.block
	B := int(min(int64(bl.maxB), stop-s.t))
	bl.rounds, bl.t0 = B, s.t
	bl.gen++
	if bl.gen == 0 {
		clear(bl.stamp)
		clear(clearOnWrap)
		bl.gen = 1
	}
	bl.touched = bl.touched[:0]
	bl.coef[0] = roundCoef{c: s.cPrev}
	for r := 1; r <= B; r++ {
		i, j := s.drawEdge()
		bl.edges[r-1] = [2]int32{int32(i), int32(j)}
		for _, k := range [2]int{i, j} {
			if bl.stamp[k] != bl.gen {
				bl.stamp[k] = bl.gen
				bl.touched = append(bl.touched, int32(k))
			}
		}
		tf := float64(s.t + int64(r))
		g := s.cfg.Gamma(tf)
		bl.coef[r] = roundCoef{c: s.smoothScale(g, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: bl.coef[r-1].c}
	}
	return B
}

// syncBlockAdvance runs one block of rounds, at most stop − s.t.
func (s *Sim) syncBlockAdvance(stop int64) error {
	bl := s.block
	B := s.beginBlock(stop, nil)
	// Untouched nodes: B rounds each, in parallel.
	if s.pool != nil && s.prob.N*s.prob.P*B >= poolMinWork {
		s.pool.run(bl.fn)
	} else {
		s.blockShard(0, layout.Range{Lo: 0, Hi: s.prob.N})
	}
	// Touched nodes: round by round, in event order.
	var nonzero int64
	first := badRound{}
	for w := range bl.nz {
		nonzero += bl.nz[w]
		bl.nz[w] = 0
		if bl.bad[w].t > 0 && bl.bad[w].before(first) {
			first = bl.bad[w]
		}
		bl.bad[w] = badRound{}
	}
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		s.cPrev = bl.coef[r].cPrev
		s.syncFastPre(i, j)
		for _, k32 := range bl.touched {
			k := int(k32)
			var endTh []float64
			if s.cfg.Estimator == Unbiased {
				if k == i {
					endTh = s.endTheta[0]
				} else if k == j {
					endTh = s.endTheta[1]
				}
			}
			nz, ok := s.fastNodeRound(k, t, bl.coef[r], endTh)
			if nz {
				nonzero++
			}
			if !ok && (badRound{t, k}).before(first) {
				first = badRound{t, k}
			}
		}
	}
	s.cPrev = bl.coef[B].c
	s.thetaStale = true
	if first.t > 0 {
		s.t = first.t
		s.syncTheta()
		return &DivergenceError{Iter: first.t, Node: first.node, Field: fieldOf(s.Z.Row(first.node), s.Theta.Row(first.node))}
	}
	s.t = bl.t0 + int64(B)
	s.gradEvals += int64(s.prob.N) * int64(B)
	s.nonzero += nonzero
	return nil
}

// blockShard advances the untouched nodes of shard r through the block.
func (s *Sim) blockShard(w int, rg layout.Range) {
	bl := s.block
	var nz int64
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue
		}
		for r := 1; r <= bl.rounds; r++ {
			t := bl.t0 + int64(r)
			c, ok := s.fastNodeRound(k, t, bl.coef[r], nil)
			if c {
				nz++
			}
			if !ok {
				if b := (badRound{t, k}); b.before(bl.bad[w]) {
					bl.bad[w] = b
				}
				break
			}
		}
	}
	bl.nz[w] += nz
}
