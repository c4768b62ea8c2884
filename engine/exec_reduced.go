package engine

import (
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
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

// reducedBlockMax bounds the rounds of one block of the reduced schedule.
// Its block costs two passes over the records plus, per round, work on
// the O(B) touched nodes (packed scalars and the running-average weights
// of restarted segments): B ≈ 4√n balances the two (reducedRounds), up to
// this bound.
var reducedBlockMax = 4096

// reducedMinPoolWork is poolMinWork for the reduced AUC schedule, whose
// blocks keep a serial part (the touched nodes, in event order): with
// blocks of ≈ 4√n rounds, 2 workers beat 1 from about n·d = 2¹⁸ (the
// crossover measured by bench sync, bench/RESULTS.md).
var reducedMinPoolWork = 1 << 18

func reducedFits(sh Shape, cfg Config, _ bool) bool {
	return sh.linear() && cfg.Algorithm == Sync && cfg.Estimator == Gossip
}

func reducedBytes(sh Shape, cfg Config, _ int) int64 {
	n, B := int64(sh.N), int64(reducedRounds(sh.N))
	// 12 float64 and 3 int32 a node, 5 float64 and 2 int32 per touched node.
	return linearSyncBytes(sh, cfg) + syncBlockBytes(sh.N, int(B)) + n*(12*8+3*4) + 2*B*(5*8+2*4)
}

// reducedExec is the reduced AUC schedule.
type reducedExec struct {
	*linearSync
	bl      *syncBlock
	rs      *reducedState
	startFn func(w int, r layout.Range, tk *task) // shard, bound once
	endFn   func(w int, r layout.Range, tk *task) // end, bound once
}

func newReducedExec(s *state, cr *crew) executor {
	B := reducedRounds(s.rows())
	e := &reducedExec{linearSync: newLinearSync(s, cr), bl: newSyncBlock(s.rows(), B), rs: newReducedState(s.rows(), B)}
	e.startFn, e.endFn = e.shard, e.end
	return e
}

type reducedState struct {
	s0, q, W, eta, mNext []float64 // per node
	alpha, beta          []float64 // per node, for segments restarted in the block
	restarted            []uint32  // gen when the node's segment restarted in this block
	relist               []int32   // the nodes restarted in this block
	alphaG, betaG        float64
	// The contributing untouched nodes of a block, packed: act lists them,
	// the c* arrays hold their scalars (s₀, q, W, η, next margin) side by
	// side. A worker packs the nodes of its shard into the same index range
	// of these arrays, so workers never share them.
	act                   []int32
	cs0, cq, cW, cEta, cM []float64
	// The contributing touched nodes, packed the same way (in the order
	// their segments started), with tpos[k] = 1 + node k's index in tp.
	tp   redPack
	tpos []int32
}

func newReducedState(n, maxB int) *reducedState {
	f := func() []float64 { return make([]float64, n) }
	t := func() []float64 { return make([]float64, 0, 2*maxB) }
	return &reducedState{
		s0: f(), q: f(), W: f(), eta: f(), mNext: f(), alpha: f(), beta: f(), restarted: make([]uint32, n),
		relist: make([]int32, 0, 2*maxB),
		act:    make([]int32, n), cs0: f(), cq: f(), cW: f(), cEta: f(), cM: f(),
		tp:   redPack{act: make([]int32, 0, 2*maxB), s0: t(), q: t(), W: t(), eta: t(), m: t()},
		tpos: make([]int32, n),
	}
}

// segStart begins node k's segment from its record's current z and y.
func (e *reducedExec) segStart(k int, m float64) {
	s, rs := e.s, e.rs
	x, y, z := s.X.Row(k), s.YX.Row(k), s.Z.Row(k)
	var s0, q float64
	for a := range x {
		d := x[a] - y[a]
		s0 += float64(d * z[a])
		q += float64(d * d)
	}
	rs.s0[k], rs.q[k], rs.W[k], rs.eta[k], rs.mNext[k] = s0, q, 0, 0, m
}

// materialize writes node k's z and θ̄ at the current point of its segment
// into its record (which then holds the new z₀ and θ̄₀).
func (e *reducedExec) materializeNode(k int) {
	s, rs, bl := e.s, e.rs, e.bl
	al, be := rs.alphaG, rs.betaG
	if rs.restarted[k] == bl.gen {
		al, be = rs.alpha[k], rs.beta[k]
	}
	W, eta := rs.W[k], rs.eta[k]
	x, y, z, bar := s.X.Row(k), s.YX.Row(k), s.Z.Row(k), s.ThetaBar.Row(k)
	for a := range z {
		d := x[a] - y[a]
		bar[a] = float64(al*bar[a]) + float64(be*z[a]) + float64(eta*d)
		z[a] += float64(W * d)
	}
}

// reducedShard: segment start for every node of the shard, then B rounds of
// scalars for its contributing untouched nodes, packed side by side and
// advanced round by round across nodes, so that the nodes' independent
// recurrences overlap (node by node, each round would wait for the
// previous round's exponential).
func (e *reducedExec) shard(w int, rg layout.Range, _ *task) {
	s, bl, rs := e.s, e.bl, e.rs
	lab := s.prob.Label
	n := 0
	for k := rg.Lo; k < rg.Hi; k++ {
		e.segStart(k, e.marg[k])
		if bl.stamp[k] == bl.gen || lab[k] <= s.ylab[k] {
			continue // touched: later, in event order; not contributing: nothing per round
		}
		rs.act[rg.Lo+n] = int32(k)
		n++
	}
	lo, hi := rg.Lo, rg.Lo+n
	p := redPack{act: rs.act[lo:hi], s0: rs.cs0[lo:hi], q: rs.cq[lo:hi], W: rs.cW[lo:hi], eta: rs.cEta[lo:hi], m: rs.cM[lo:hi]}
	for i, k := range p.act {
		p.s0[i], p.q[i], p.W[i], p.eta[i], p.m[i] = rs.s0[k], rs.q[k], 0, 0, rs.mNext[k]
	}
	var nz int64
	for r := 1; r <= bl.rounds; r++ {
		nz += e.packRound(w, &p, bl.coef[r], bl.t0+int64(r))
	}
	for i, k := range p.act {
		rs.W[k], rs.eta[k], rs.mNext[k] = p.W[i], p.eta[i], p.m[i]
	}
	e.cr.nz[w] += nz
}

// redPack is a pack of contributing nodes (see reducedState). pos, if not
// nil, maps a node to 1 + its index in the pack, 0 when it is not in it.
type redPack struct {
	act              []int32
	s0, q, W, eta, m []float64
	pos              []int32
}

// add appends node k with its scalars.
func (p *redPack) add(k int, s0, q, W, eta, m float64) {
	p.act, p.s0, p.q, p.W, p.eta, p.m = append(p.act, int32(k)), append(p.s0, s0), append(p.q, q), append(p.W, W), append(p.eta, eta), append(p.m, m)
	if p.pos != nil {
		p.pos[k] = int32(len(p.act))
	}
}

// remove takes entry i out of the pack; the last entry takes its place.
func (p *redPack) remove(i int) {
	l := len(p.m) - 1
	if p.pos != nil {
		p.pos[p.act[i]] = 0
		if i != l {
			p.pos[p.act[l]] = int32(i + 1)
		}
	}
	p.act[i], p.s0[i], p.q[i], p.W[i], p.eta[i], p.m[i] = p.act[l], p.s0[l], p.q[l], p.W[l], p.eta[l], p.m[l]
	p.act, p.s0, p.q, p.W, p.eta, p.m = p.act[:l], p.s0[:l], p.q[:l], p.W[:l], p.eta[:l], p.m[:l]
}

// writeBack stores entry i's W, η and next margin into the per-node arrays.
func (p *redPack) writeBack(rs *reducedState, i int) {
	k := p.act[i]
	rs.W[k], rs.eta[k], rs.mNext[k] = p.W[i], p.eta[i], p.m[i]
}

// packRound advances the nodes of pack p through round t (coefficients
// cf): g = φ'(m), W += g, η = a·η + (c/t)·W, m = c·(s₀ + W·q), all nodes
// side by side. It returns the number of non-zero gradients. A node whose
// margin turns non-finite stops there, as node by node it would: the round
// is recorded for worker w, its scalars are written back, and it leaves
// the pack.
func (e *reducedExec) packRound(w int, p *redPack, cf roundCoef, t int64) (nz int64) {
	s := e.s
	bc := cf.b * cf.c
	fin := true
	if loss := s.prob.Loss; loss == problem.AUCLogistic {
		// The fused round (the same arithmetic, with a vectorised
		// exponential in the avx2 implementation).
		var c int
		c, fin = kernel.LogisticRound(p.s0, p.q, p.W, p.eta, p.m, cf.c, cf.a, bc)
		nz = int64(c)
	} else {
		for i := range p.m {
			g := loss.MarginDeriv(p.m[i])
			if g != 0 {
				nz++
			}
			Wi := p.W[i] + g
			p.W[i] = Wi
			p.eta[i] = float64(cf.a*p.eta[i]) + float64(bc*Wi)
			p.m[i] = cf.c * (p.s0[i] + float64(Wi*p.q[i]))
			fin = fin && isFinite(p.m[i])
		}
	}
	if !fin {
		for i := 0; i < len(p.m); i++ {
			if !isFinite(p.m[i]) {
				e.cr.bad[w].note(t, int(p.act[i]), "z (dual variable)")
				p.writeBack(e.rs, i)
				p.remove(i)
				i--
			}
		}
	}
	return nz
}

// reducedEnd materialises every node of the shard at the end of the block.
func (e *reducedExec) end(w int, rg layout.Range, _ *task) {
	s, bl, rs := e.s, e.bl, e.rs
	cEnd := bl.coef[bl.rounds].c
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] != bl.gen && s.prob.Label[k] <= s.ylab[k] {
			// Non-contributing untouched node: W = η = 0.
			al, be := rs.alphaG, rs.betaG
			z, bar := s.Z.Row(k), s.ThetaBar.Row(k)
			for a := range bar {
				bar[a] = float64(al*bar[a]) + float64(be*z[a])
			}
			e.marg[k] = cEnd * rs.s0[k]
			continue
		}
		e.materializeNode(k)
		e.marg[k] = cEnd * (rs.s0[k] + float64(rs.W[k]*rs.q[k]))
	}
}

// advance runs one block of the reduced schedule, at most stop − s.t rounds.
func (e *reducedExec) advance(stop int64) error {
	s, bl, rs := e.s, e.bl, e.rs
	B := bl.begin(e.linearSync, stop, rs.restarted)
	rs.alphaG, rs.betaG = 1, 0
	big := e.cr.pool != nil && s.prob.N*s.prob.P >= reducedMinPoolWork
	if big {
		e.cr.pool.run(e.startFn, task{})
	} else {
		e.shard(0, layout.Range{Lo: 0, Hi: s.prob.N}, nil)
	}
	nonzero := e.cr.nonzero()
	first := firstOf(e.cr.bad)
	// Touched nodes, in event order: the contributing ones advance packed,
	// the others have W = η = 0 and need nothing per round; a touch writes
	// the node back, materialises it and restarts its segment.
	lab := s.prob.Label
	tp := &rs.tp
	tp.pos = rs.tpos
	for _, k32 := range bl.touched {
		if k := int(k32); lab[k] > s.ylab[k] {
			tp.add(k, rs.s0[k], rs.q[k], 0, 0, rs.mNext[k])
		}
	}
	rs.relist = rs.relist[:0]
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		cf := bl.coef[r]
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		for _, k := range [2]int{i, j} {
			if x := int(tp.pos[k]) - 1; x >= 0 {
				tp.writeBack(rs, x)
				tp.remove(x)
			}
			e.materializeNode(k)
		}
		s.swapY(i, j)
		var m [2]float64
		for x, k := range [2]int{i, j} {
			m[x] = marginScaled(s.X.Row(k), s.YX.Row(k), s.Z.Row(k), cf.cPrev)
		}
		s.average(i, j)
		for x, k := range [2]int{i, j} {
			e.segStart(k, m[x])
			if rs.restarted[k] != bl.gen {
				rs.restarted[k] = bl.gen
				rs.relist = append(rs.relist, int32(k))
			}
			rs.alpha[k], rs.beta[k] = 1, 0
			if lab[k] > s.ylab[k] {
				tp.add(k, rs.s0[k], rs.q[k], 0, 0, m[x])
			}
		}
		nonzero += e.packRound(0, tp, cf, t)
		bc := cf.b * cf.c
		for _, k := range rs.relist {
			rs.alpha[k] = cf.a * rs.alpha[k]
			rs.beta[k] = float64(cf.a*rs.beta[k]) + bc
		}
		rs.alphaG = cf.a * rs.alphaG
		rs.betaG = float64(cf.a*rs.betaG) + bc
	}
	for x := len(tp.m) - 1; x >= 0; x-- {
		tp.writeBack(rs, x)
		tp.remove(x)
	}
	if b := e.cr.bad[0]; b.found() && b.before(first) {
		first = b
	}
	e.cr.bad[0] = divergence{}
	// Touched nodes that never restarted follow the global α, β; the
	// touched but not yet restarted ones were advanced round by round above.
	if big {
		e.cr.pool.run(e.endFn, task{})
	} else {
		e.end(0, layout.Range{Lo: 0, Hi: s.prob.N}, nil)
	}
	e.cPrev = bl.coef[B].c
	e.stale = true
	if first.found() {
		first.field = "z (dual variable)"
		return s.diverged(first)
	}
	s.t = bl.t0 + int64(B)
	s.gradEvals += int64(s.prob.N) * int64(B)
	s.nonzero += nonzero
	return nil
}
