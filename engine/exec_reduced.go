package engine

import (
	"time"

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

func reducedBytes(sh Shape, cfg Config, workers int) int64 {
	n, B := int64(sh.N), int64(reducedRounds(sh.N))
	// A slot index a node; 7 float64, a generation and a pack position per
	// touched node (at most 2B); per worker one pack of reducedChunk nodes.
	return linearSyncBytes(sh, cfg) + syncBlockBytes(sh.N, int(B)) + n*4 + 2*B*(7*8+4+4+4) +
		int64(max(1, workers))*int64(reducedChunk)*(4+5*8) + 2*B*(4+5*8)
}

// reducedChunk is the number of contributing nodes a worker advances side by
// side through a block: their five scalars (44 bytes a node) stay in the
// core's L2 cache for the B rounds. (A variable so that tests can make the
// chunks small.)
var reducedChunk = 4096

// reducedExec is the reduced AUC schedule.
type reducedExec struct {
	*linearSync
	bl     *syncBlock
	rs     *reducedState
	fn     func(w int, r layout.Range, tk *task) // shard, bound once
	tailFn func(w int, r layout.Range, tk *task) // tail, bound once
	pack   []redPack                             // per worker: a chunk of contributing nodes
	tpack  []redPack                             // per worker: its touched nodes' segments before their first and after their last touch
	stride int                                   // workers taking part in the block's passes
}

func newReducedExec(s *state, cr *crew) executor {
	B := reducedRounds(s.rows())
	e := &reducedExec{linearSync: newLinearSync(s, cr), bl: newSyncBlock(s.rows(), B), rs: newReducedState(s.rows(), B)}
	e.fn, e.tailFn = e.shard, e.tail
	e.pack = make([]redPack, len(cr.ws))
	e.tpack = make([]redPack, len(cr.ws))
	for w := range e.pack {
		e.pack[w] = newRedPack(reducedChunk)
		e.tpack[w] = newSlotPack(2 * B)
	}
	return e
}

// reducedState is what a block keeps of its touched nodes (at most 2B):
// node k's values live in slot slot[k] (its index in the block's touched
// list, which is in the order of first touches). Untouched nodes need
// nothing between the start and the end of their segment: the shard
// advances and materialises them in one pass.
type reducedState struct {
	slot                 []int32   // per node: its slot, for the touched nodes of the block
	s0, q, W, eta, mNext []float64 // per slot
	start                []int32   // per slot: the round its segment restarted in the block (0: none)
	first, last          []int32   // per slot: its first and last touch in the block
	// tail lists the slots in the order of their last touch: after it a
	// touched node depends on no other node up to the block's end, and is
	// advanced and written by the parallel end-of-block pass.
	tail []int32
	// cSum[r] = c_1 + … + c_r over the block's rounds: the running average
	// of a segment is θ̄ = α θ̄⁰ + β z⁰ + η δ with, since a_t = 1 − 1/t
	// telescopes, α = (t_first − 1)/t_last and β = (Σ c over the segment's
	// rounds)/t_last (segAvg).
	cSum              []float64
	alphaEnd, betaEnd float64 // α, β of a segment that spans the block
	// The contributing touched nodes between two of their touches, packed
	// (in the order their segments started); tp.act holds slots,
	// tpos[slot] = 1 + its index in tp.
	tp   redPack
	tpos []int32
}

func newReducedState(n, maxB int) *reducedState {
	f := func() []float64 { return make([]float64, 2*maxB) }
	i := func() []int32 { return make([]int32, 2*maxB) }
	return &reducedState{
		slot: make([]int32, n),
		s0:   f(), q: f(), W: f(), eta: f(), mNext: f(), start: i(), first: i(), last: i(),
		tail: make([]int32, 0, 2*maxB),
		cSum: make([]float64, maxB+1),
		tp:   newRedPack(2 * maxB),
		tpos: i(),
	}
}

// segment returns s₀ = δᵀz and q = δᵀδ of node k from its record's current
// z and y, δ = x_k − y_k.
func (e *reducedExec) segment(k int) (s0, q float64) {
	s := e.s
	x, y, z := s.X.Row(k), s.yRow(k), s.Z.Row(k)
	for a := range x {
		d := x[a] - y[a]
		s0 += float64(d * z[a])
		q += float64(d * d)
	}
	return s0, q
}

// segStart begins the segment of touched node k (slot sl) with next margin m.
func (e *reducedExec) segStart(sl int32, k int, m float64) {
	rs := e.rs
	s0, q := e.segment(k)
	rs.s0[sl], rs.q[sl], rs.W[sl], rs.eta[sl], rs.mNext[sl] = s0, q, 0, 0, m
}

// write writes node k's z and θ̄ at the current point of its segment into
// its record (which then holds the new z₀ and θ̄₀): θ̄ = αθ̄ + βz + ηδ,
// z += Wδ.
func (e *reducedExec) write(k int, al, be, W, eta float64) {
	s := e.s
	x, y, z, bar := s.X.Row(k), s.yRow(k), s.Z.Row(k), s.ThetaBar.Row(k)
	for a := range z {
		d := x[a] - y[a]
		bar[a] = float64(al*bar[a]) + float64(be*z[a]) + float64(eta*d)
		z[a] += float64(W * d)
	}
}

// segAvg returns α and β of the running average over rounds first..last of
// the block (1-based; last < first: no round, α = 1, β = 0). With
// a_t = 1 − 1/t and b_t = 1/t the recurrences α ← a_t α, β ← a_t β + b_t c_t
// telescope: α = (t_first − 1)/t_last, β = (c_first + … + c_last)/t_last.
func (e *reducedExec) segAvg(first, last int) (alpha, beta float64) {
	if last < first {
		return 1, 0
	}
	t0, rs := float64(e.bl.t0), e.rs
	tl := t0 + float64(last)
	return (t0 + float64(first) - 1) / tl, (rs.cSum[last] - rs.cSum[first-1]) / tl
}

// writeTouched writes touched node k (slot sl) at the start of round r
// (r = B+1: the end of the block): its segment began with the block or at
// its last restart.
func (e *reducedExec) writeTouched(sl int32, k, r int) {
	rs := e.rs
	al, be := e.segAvg(max(1, int(rs.start[sl])), r-1)
	e.write(k, al, be, rs.W[sl], rs.eta[sl])
}

// shard is the block's pass over the nodes of a shard. The touched nodes
// are skipped (worker w advances its share of them to their first touch,
// preAdvance). An untouched node that does not contribute (ℓ_k ≤ ℓ_y: W = η = 0) is
// materialised at once; the contributing ones are packed, reducedChunk at a
// time, advanced B rounds side by side (so that the nodes' independent
// recurrences overlap: node by node each round would wait for the previous
// round's exponential) and materialised. One pass over the records a
// block.
func (e *reducedExec) shard(w int, rg layout.Range, _ *task) {
	s, bl, rs := e.s, e.bl, e.rs
	lab := s.prob.Label
	cEnd := bl.coef[bl.rounds].c
	p := &e.pack[w]
	var nz int64
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue // touched: preAdvance, event order, tail
		}
		s0, q := e.segment(k)
		if lab[k] <= s.ylab[k] {
			// Not contributing: W = η = 0 for the whole block.
			z, bar := s.Z.Row(k), s.ThetaBar.Row(k)
			al, be := rs.alphaEnd, rs.betaEnd
			for a := range bar {
				bar[a] = float64(al*bar[a]) + float64(be*z[a])
			}
			e.marg[k] = cEnd * s0
			continue
		}
		p.add(int32(k), s0, q, 0, 0, e.marg[k])
		if len(p.act) == cap(p.act) {
			nz += e.runPack(w, p)
		}
	}
	nz += e.runPack(w, p)
	nz += e.preAdvance(w)
	e.cr.nz[w] += nz
}

// preAdvance starts the segments of worker w's share of the touched nodes
// (slots w, w + stride, …) at the block's start and advances the
// contributing ones through the rounds before their first touch, which
// depend on no other node: at round r the nodes first touched after r, a
// prefix of the pack when it lists them by decreasing first touch. Their
// W, η and next margin go to their slots, where the event-order loop finds
// them at the first touch.
func (e *reducedExec) preAdvance(w int) (nz int64) {
	bl, rs, s := e.bl, e.rs, e.s
	lab := s.prob.Label
	T, st := len(bl.touched), e.stride
	if w >= T {
		return 0
	}
	p := &e.tpack[w]
	for sl := w + (T-1-w)/st*st; sl >= 0; sl -= st {
		k := int(bl.touched[sl])
		m := e.marg[k]
		e.segStart(int32(sl), k, m)
		if lab[k] > s.ylab[k] && rs.first[sl] > 1 {
			p.add(int32(sl), rs.s0[sl], rs.q[sl], 0, 0, m)
		}
	}
	cnt := len(p.act)
	for r := 1; ; r++ {
		for cnt > 0 && int(rs.first[p.act[cnt-1]]) <= r {
			cnt--
		}
		if cnt == 0 {
			break
		}
		nz += e.packRound(w, p, cnt, bl.coef[r], bl.t0+int64(r))
	}
	e.packDone(p)
	return nz
}

// tail is the end-of-block pass over worker w's share of the touched nodes
// (entries w, w + stride, … of rs.tail, in the order of their last
// touch): the contributing ones advance from their last touch to the end of
// the block (at round r those last touched at or before r, a prefix), then
// every one is written into its record, as an untouched node is by shard.
func (e *reducedExec) tail(w int, _ layout.Range, _ *task) {
	bl, rs, s := e.bl, e.rs, e.s
	lab := s.prob.Label
	st, B := e.stride, bl.rounds
	p := &e.tpack[w]
	for i := w; i < len(rs.tail); i += st {
		sl := rs.tail[i]
		if k := int(bl.touched[sl]); lab[k] > s.ylab[k] {
			p.add(sl, rs.s0[sl], rs.q[sl], 0, 0, rs.mNext[sl])
		}
	}
	var nz int64
	if len(p.act) > 0 {
		cnt := 0
		for r := int(rs.start[p.act[0]]); r <= B; r++ {
			for cnt < len(p.act) && int(rs.start[p.act[cnt]]) <= r {
				cnt++
			}
			nz += e.packRound(w, p, cnt, bl.coef[r], bl.t0+int64(r))
		}
	}
	e.packDone(p)
	cEnd := bl.coef[B].c
	for i := w; i < len(rs.tail); i += st {
		sl := rs.tail[i]
		k := int(bl.touched[sl])
		e.writeTouched(sl, k, B+1)
		e.marg[k] = cEnd * (rs.s0[sl] + float64(rs.W[sl]*rs.q[sl]))
	}
	e.cr.nz[w] += nz
}

// packDone stores the W, η and next margin of every entry of a pack of
// touched nodes into its slot (but for those packRound froze at a
// divergence, which it stored then) and empties it.
func (e *reducedExec) packDone(p *redPack) {
	for i := range p.act {
		if p.dead == nil || !p.dead[i] {
			p.writeBack(e.rs, i)
		}
	}
	p.reset()
}

// runPack advances the untouched contributing nodes of p through the block,
// materialises them and empties p.
func (e *reducedExec) runPack(w int, p *redPack) (nz int64) {
	bl := e.bl
	for r := 1; r <= bl.rounds; r++ {
		nz += e.packRound(w, p, len(p.m), bl.coef[r], bl.t0+int64(r))
	}
	for i := len(p.act) - 1; i >= 0; i-- {
		e.finish(p, i)
	}
	p.reset()
	return nz
}

// finish materialises entry i of an untouched pack at the end of the block.
func (e *reducedExec) finish(p *redPack, i int) {
	rs, k := e.rs, int(p.act[i])
	e.write(k, rs.alphaEnd, rs.betaEnd, p.W[i], p.eta[i])
	e.marg[k] = e.bl.coef[e.bl.rounds].c * (p.s0[i] + float64(p.W[i]*p.q[i]))
}

// redPack is a pack of contributing nodes: act lists them (node indices, or
// for the touched nodes' pack their slots), the other slices hold their
// scalars (s₀, q, W, η, next margin) side by side. pos, if not nil, maps an
// entry of act to 1 + its index in the pack, 0 when it is not in it.
type redPack struct {
	act              []int32
	s0, q, W, eta, m []float64
	pos              []int32
	slots            bool // act holds slots of touched nodes
	// dead, for the packs of touched nodes advanced over a prefix: the
	// entries frozen at a divergence (their slot holds their values).
	dead []bool
}

func newRedPack(c int) redPack {
	t := func() []float64 { return make([]float64, 0, c) }
	return redPack{act: make([]int32, 0, c), s0: t(), q: t(), W: t(), eta: t(), m: t()}
}

// newSlotPack is a pack of touched nodes' slots advanced over prefixes.
func newSlotPack(c int) redPack {
	p := newRedPack(c)
	p.slots, p.dead = true, make([]bool, 0, c)
	return p
}

// add appends entry k with its scalars.
func (p *redPack) add(k int32, s0, q, W, eta, m float64) {
	p.act, p.s0, p.q, p.W, p.eta, p.m = append(p.act, k), append(p.s0, s0), append(p.q, q), append(p.W, W), append(p.eta, eta), append(p.m, m)
	if p.pos != nil {
		p.pos[k] = int32(len(p.act))
	}
	if p.dead != nil {
		p.dead = append(p.dead, false)
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

func (p *redPack) reset() {
	p.act, p.s0, p.q, p.W, p.eta, p.m = p.act[:0], p.s0[:0], p.q[:0], p.W[:0], p.eta[:0], p.m[:0]
	if p.dead != nil {
		p.dead = p.dead[:0]
	}
}

// writeBack stores entry i's W, η and next margin into its slot.
func (p *redPack) writeBack(rs *reducedState, i int) {
	sl := p.act[i]
	rs.W[sl], rs.eta[sl], rs.mNext[sl] = p.W[i], p.eta[i], p.m[i]
}

// packRound advances the first n nodes of pack p through round t
// (coefficients cf): g = φ'(m), W += g, η = a·η + (c/t)·W, m = c·(s₀ + W·q),
// all nodes side by side. It returns the number of non-zero gradients. A
// node whose margin turns non-finite stops there, as node by node it would:
// the round is recorded for worker w and the node is written back (a
// touched node into its slot; an untouched one into its record); it leaves
// the pack, or in a pack advanced over prefixes (p.dead) is marked frozen.
func (e *reducedExec) packRound(w int, p *redPack, n int, cf roundCoef, t int64) (nz int64) {
	s := e.s
	bc := cf.b * cf.c
	fin := true
	s0, q, W, eta, m := p.s0[:n], p.q[:n], p.W[:n], p.eta[:n], p.m[:n]
	if loss := s.prob.Loss; loss == problem.AUCLogistic {
		// The fused round (the same arithmetic, with a vectorised
		// exponential in the avx2 and avx512 implementations).
		var c int
		c, fin = kernel.LogisticRound(s0, q, W, eta, m, cf.c, cf.a, bc)
		nz = int64(c)
	} else {
		for i := range m {
			g := loss.MarginDeriv(m[i])
			if g != 0 {
				nz++
			}
			Wi := W[i] + g
			W[i] = Wi
			eta[i] = float64(cf.a*eta[i]) + float64(bc*Wi)
			m[i] = cf.c * (s0[i] + float64(Wi*q[i]))
			fin = fin && isFinite(m[i])
		}
	}
	if !fin {
		e.packDiverged(w, p, n, t)
	}
	return nz
}

// packDiverged handles the non-finite margins among the first n entries of
// p after round t (packRound).
func (e *reducedExec) packDiverged(w int, p *redPack, n int, t int64) {
	for i := 0; i < n; i++ {
		if isFinite(p.m[i]) || (p.dead != nil && p.dead[i]) {
			continue
		}
		switch {
		case p.dead != nil:
			e.cr.bad[w].note(t, int(e.bl.touched[p.act[i]]), "z (dual variable)")
			p.writeBack(e.rs, i)
			p.dead[i] = true
		case p.slots:
			e.cr.bad[w].note(t, int(e.bl.touched[p.act[i]]), "z (dual variable)")
			p.writeBack(e.rs, i)
			p.remove(i)
			i--
			n--
		default:
			e.cr.bad[w].note(t, int(p.act[i]), "z (dual variable)")
			e.finish(p, i)
			p.remove(i)
			i--
			n--
		}
	}
}

// advance runs one block of the reduced schedule, at most stop − s.t rounds:
// a parallel pass (shard: the untouched nodes through the whole block, the
// touched ones up to their first touch), the touches in event order (the
// only serial part: a touch writes the node back, materialises it and
// restarts its segment; a node touched again later in the block advances
// packed until then), and a parallel pass over the touched nodes from
// their last touch to the block's end (tail).
func (e *reducedExec) advance(stop int64) error {
	s, bl, rs := e.s, e.bl, e.rs
	tBegin := time.Now()
	B := bl.begin(e.linearSync, stop, nil)
	for sl, k := range bl.touched {
		rs.slot[k] = int32(sl)
		rs.start[sl] = 0
		rs.first[sl] = 0
	}
	for r := 1; r <= B; r++ {
		rs.cSum[r] = rs.cSum[r-1] + bl.coef[r].c
		for _, k := range bl.edges[r-1] {
			sl := rs.slot[k]
			if rs.first[sl] == 0 {
				rs.first[sl] = int32(r)
			}
			rs.last[sl] = int32(r)
		}
	}
	rs.alphaEnd, rs.betaEnd = e.segAvg(1, B)
	big := s.prob.N*s.prob.P >= reducedMinPoolWork
	e.stride = 1
	if e.cr.pool != nil && big {
		e.stride = e.cr.pool.size()
	}
	t1 := e.cr.timedPass(tBegin, big, e.fn, s.prob.N)
	// Touched nodes, in event order: the contributing ones between two
	// touches advance packed, the others have W = η = 0 and need nothing
	// per round; a touch writes the node back, materialises it and restarts
	// its segment.
	lab := s.prob.Label
	tp := &rs.tp
	tp.pos, tp.slots = rs.tpos, true
	rs.tail = rs.tail[:0]
	var nonzero int64
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		cf := bl.coef[r]
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		for _, k := range [2]int{i, j} {
			sl := rs.slot[k]
			if x := int(tp.pos[sl]) - 1; x >= 0 {
				tp.writeBack(rs, x)
				tp.remove(x)
			}
			e.writeTouched(sl, k, r)
		}
		s.swapY(i, j)
		var m [2]float64
		for x, k := range [2]int{i, j} {
			m[x] = marginScaled(s.X.Row(k), s.yRow(k), s.Z.Row(k), cf.cPrev)
		}
		s.average(i, j)
		for x, k := range [2]int{i, j} {
			sl := rs.slot[k]
			e.segStart(sl, k, m[x])
			rs.start[sl] = int32(r)
			switch {
			case int(rs.last[sl]) == r:
				rs.tail = append(rs.tail, sl)
			case lab[k] > s.ylab[k]:
				tp.add(sl, rs.s0[sl], rs.q[sl], 0, 0, m[x])
			}
		}
		if len(tp.m) > 0 {
			nonzero += e.packRound(0, tp, len(tp.m), cf, t)
		}
	}
	// Every node in tp is touched again: tp is empty here.
	t2 := e.cr.timedPass(t1, big, e.tailFn, s.prob.N)
	defer func() { e.cr.serial += time.Since(t2) }()
	nonzero += e.cr.nonzero()
	first := firstOf(e.cr.bad)
	e.cPrev = bl.coef[B].c
	if first.found() {
		first.field = "z (dual variable)"
		return s.diverged(first)
	}
	s.t = bl.t0 + int64(B)
	s.gradEvals += int64(s.prob.N) * int64(B)
	s.nonzero += nonzero
	return nil
}
