package engine

import (
	"github.com/pairgossip/pairgossip/layout"
)

// The algebraically reduced synchronous schedule (linear fast path, gossip
// estimator).
//
// Between two touches (rounds where it is an endpoint of the drawn edge) a
// node keeps its auxiliary point, so with δ = x_k − y_k fixed its dual
// variable moves along one direction: z(t) = z₀ + W(t)·δ with W the sum of
// its gradient weights. With a linear smoothing operator θ(t) = c_t·z(t),
// hence its margin and running average are scalar recurrences:
//
//	m(t+1) = c_t (s₀ + W(t) q),        s₀ = δᵀz₀, q = δᵀδ
//	θ̄(t)  = α_t θ̄₀ + β_t z₀ + η_t δ,  α_t = a_t α_{t−1}, β_t = a_t β_{t−1} + b_t c_t,
//	                                     η_t = a_t η_{t−1} + b_t c_t W(t).
//
// α and β are the same for every node whose segment starts with the block;
// a node whose pair does not contribute (ℓ_k ≤ ℓ_y) has W = η = 0 and costs
// nothing per round. So a block of B rounds costs two passes over the
// records (s₀ and q at the start, z and θ̄ at the end) plus, per round, a few
// scalar operations for the contributing nodes only; the touched nodes are
// materialised at their touches and restart a segment, in event order.
// In real arithmetic this is the algorithm exactly; in floating point it
// agrees with the plain schedule to rounding (tested: 1e-9 relative on θ̄).

// ScheduleReduced is the algebraically reduced synchronous schedule.
const ScheduleReduced = "reduced"

type reducedState struct {
	s0, q, W, eta, mNext []float64 // per node
	alpha, beta          []float64 // per node, for segments restarted in the block
	restarted            []uint32  // gen when the node's segment restarted in this block
	alphaG, betaG        float64
}

func newReducedState(n int) *reducedState {
	return &reducedState{
		s0: make([]float64, n), q: make([]float64, n), W: make([]float64, n), eta: make([]float64, n),
		mNext: make([]float64, n), alpha: make([]float64, n), beta: make([]float64, n), restarted: make([]uint32, n),
	}
}

// segStart begins node k's segment from its record's current z and y.
func (s *Sim) segStart(k int, m float64) {
	rs := s.red
	x, y, z := s.X.Row(k), s.YX.Row(k), s.Z.Row(k)
	var s0, q float64
	for a := range x {
		d := x[a] - y[a]
		s0 += d * z[a]
		q += d * d
	}
	rs.s0[k], rs.q[k], rs.W[k], rs.eta[k], rs.mNext[k] = s0, q, 0, 0, m
}

// materialize writes node k's z and θ̄ at the current point of its segment
// into its record (which then holds the new z₀ and θ̄₀).
func (s *Sim) materialize(k int) {
	rs, bl := s.red, s.block
	al, be := rs.alphaG, rs.betaG
	if rs.restarted[k] == bl.gen {
		al, be = rs.alpha[k], rs.beta[k]
	}
	W, eta := rs.W[k], rs.eta[k]
	x, y, z, bar := s.X.Row(k), s.YX.Row(k), s.Z.Row(k), s.ThetaBar.Row(k)
	for a := range z {
		d := x[a] - y[a]
		bar[a] = al*bar[a] + be*z[a] + eta*d
		z[a] += W * d
	}
}

// reducedRound advances node k's scalars through round r of the block.
func (s *Sim) reducedRound(k int, cf roundCoef) (nonzero, ok bool) {
	rs := s.red
	if s.prob.Label[k] > s.ylab[k] {
		w := s.prob.Loss.MarginDeriv(rs.mNext[k])
		rs.W[k] += w
		nonzero = w != 0
	}
	rs.eta[k] = cf.a*rs.eta[k] + cf.b*cf.c*rs.W[k]
	m := cf.c * (rs.s0[k] + rs.W[k]*rs.q[k])
	rs.mNext[k] = m
	return nonzero, isFinite(m)
}

// reducedShard: segment start for every node of the shard, then B rounds of
// scalars for its untouched nodes.
func (s *Sim) reducedShard(w int, rg layout.Range) {
	bl := s.block
	var nz int64
	for k := rg.Lo; k < rg.Hi; k++ {
		s.segStart(k, s.marg[k])
		if bl.stamp[k] == bl.gen || s.prob.Label[k] <= s.ylab[k] {
			continue // touched: later, in event order; not contributing: nothing per round
		}
		for r := 1; r <= bl.rounds; r++ {
			c, ok := s.reducedRound(k, bl.coef[r])
			if c {
				nz++
			}
			if !ok {
				if b := (badRound{bl.t0 + int64(r), k}); b.before(bl.bad[w]) {
					bl.bad[w] = b
				}
				break
			}
		}
	}
	bl.nz[w] += nz
}

// reducedEnd materialises every node of the shard at the end of the block.
func (s *Sim) reducedEnd(w int, rg layout.Range) {
	bl, rs := s.block, s.red
	cEnd := bl.coef[bl.rounds].c
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] != bl.gen && s.prob.Label[k] <= s.ylab[k] {
			// Non-contributing untouched node: W = η = 0.
			al, be := rs.alphaG, rs.betaG
			z, bar := s.Z.Row(k), s.ThetaBar.Row(k)
			for a := range bar {
				bar[a] = al*bar[a] + be*z[a]
			}
			s.marg[k] = cEnd * rs.s0[k]
			continue
		}
		s.materialize(k)
		s.marg[k] = cEnd * (rs.s0[k] + rs.W[k]*rs.q[k])
	}
}

// syncReducedAdvance runs one block of the reduced schedule.
func (s *Sim) syncReducedAdvance(stop int64) error {
	bl, rs := s.block, s.red
	B := s.beginBlock(stop, rs.restarted)
	rs.alphaG, rs.betaG = 1, 0
	big := s.pool != nil && s.prob.N*s.prob.P >= poolMinWork
	if big {
		s.pool.run(s.redStartFn)
	} else {
		s.reducedShard(0, layout.Range{Lo: 0, Hi: s.prob.N})
	}
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
	// Touched nodes, in event order.
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		cf := bl.coef[r]
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		for _, k := range [2]int{i, j} {
			s.materialize(k)
		}
		s.swapY(i, j)
		var m [2]float64
		for e, k := range [2]int{i, j} {
			m[e] = marginScaled(s.X.Row(k), s.YX.Row(k), s.Z.Row(k), cf.cPrev)
		}
		s.average(i, j)
		for e, k := range [2]int{i, j} {
			s.segStart(k, m[e])
			rs.restarted[k] = bl.gen
			rs.alpha[k], rs.beta[k] = 1, 0
		}
		for _, k32 := range bl.touched {
			k := int(k32)
			nz, ok := s.reducedRound(k, cf)
			if nz {
				nonzero++
			}
			if !ok && (badRound{t, k}).before(first) {
				first = badRound{t, k}
			}
			if rs.restarted[k] == bl.gen {
				rs.alpha[k] = cf.a * rs.alpha[k]
				rs.beta[k] = cf.a*rs.beta[k] + cf.b*cf.c
			}
		}
		rs.alphaG = cf.a * rs.alphaG
		rs.betaG = cf.a*rs.betaG + cf.b*cf.c
	}
	// Touched nodes that never restarted follow the global α, β; the
	// touched but not yet restarted ones were advanced round by round above.
	if big {
		s.pool.run(s.redEndFn)
	} else {
		s.reducedEnd(0, layout.Range{Lo: 0, Hi: s.prob.N})
	}
	s.cPrev = bl.coef[B].c
	s.thetaStale = true
	if first.t > 0 {
		s.t = first.t
		s.syncTheta()
		return &DivergenceError{Iter: first.t, Node: first.node, Field: "z (dual variable)"}
	}
	s.t = bl.t0 + int64(B)
	s.gradEvals += int64(s.prob.N) * int64(B)
	s.nonzero += nonzero
	return nil
}
