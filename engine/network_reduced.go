package engine

import (
	"math"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/netchunk"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
)

// The reduced synchronous schedule under a network model (docs/networks.md
// §3–§8; exec_reduced.go is the schedule itself).
//
// A block draws its B rounds ahead (state.activations: the edge and the
// flags of each round). A round is a touch only when it exchanges
// something (both endpoints online and at least one message delivered):
// a lost round, a round with an offline endpoint and an idle round (a
// stream's gap, a woken node without neighbours) are rounds without an
// edge, in which every online node takes its step on its own. A touch
// with both messages is the paper's (swap, margins, average); a one-way
// delivery averages the receiver's z only, swaps nothing and leaves both
// margins as they were (θ before the averaging, y unchanged).
//
// Churn: an offline node is frozen (z, θ = c·z with the c of its last
// step, θ̄, its margin), so its closed-form segment between two touches
// is cut into online pieces: the pack advances it over a piece and drops
// it at the piece's end (Net.Span gives the switches, O(1) each), keeping
// its W and margin. With the running average counting node k's own online
// rounds c_k, the segment's θ̄ is
//
//	θ̄ = (c₀ θ̄₀ + (Σ c_r) z₀ + H δ) / (c₀ + m),   H = Σ c_r W_r,
//
// the sums over the m online rounds r of the segment and c₀ the node's
// online rounds before it. The pack's η (run with the global a_t = 1 − 1/t,
// b_t = 1/t) is H/t over a piece started with η = 0, so H = Σ η_end·t_end
// over the pieces. Without churn c_k = t, one piece a segment: the same
// arithmetic. It agrees with the reference executor to rounding (its
// weights are regrouped), not bit for bit; it is bit-identical for any
// worker count.
//
// The nodes no touch of the block names advance in chunks of reducedChunk
// over the pool, their pieces' joins and leaves bucketed by round; the
// touched nodes (at most 2B) advance in one serial loop over the block on
// worker 0, overlapped with the chunks as in shardOverlap.

// reducedNetFit is the reduced row's rule for a network model: every model
// but an adaptive picker, whose edge depends on the state the previous
// round left (a block draws its rounds ahead).
func reducedNetFit(cfg Config) fitCheck {
	return fitCheck{cfg.Network.Activation.Kind != network.ActAdaptive,
		"an activation model other than an adaptive picker (its edges depend on the state each round leaves; the reduced schedule draws a block's rounds ahead: use --schedule plain)"}
}

// netReducedBytes is what the reduced schedule keeps besides under a
// network model: a round's flags, a touched node's segment, and per worker
// a chunk's segments, pack and round buckets.
func netReducedBytes(sh Shape, cfg Config, workers int) int64 {
	if cfg.Network.IsPerfect() && cfg.EdgeSink == nil {
		return 0
	}
	B := int64(redpack.Rounds(sh.N))
	seg := int64(unsafe.Sizeof(netchunk.Seg{}))
	chunk := int64(reducedChunk)*(seg+4+4+(4+5*8+1)+8*4) + (B+2)*4*2
	return B + 2*B*seg + int64(max(1, workers))*chunk
}

// A node's segment under a network model, the chunks of untouched nodes
// and the touched nodes' switches are package netchunk's (shared with the
// run over ranks, package ranks).

// netChunk is a worker's chunk of untouched nodes, the host of its walk
// (netchunk.Host): worker w of the executor e.
type netChunk struct {
	netchunk.Chunk
	e     *reducedExec
	w     int
	evals int64
}

// netRed is what the reduced executor keeps under a network model.
type netRed struct {
	fl     []uint8        // the block's flags (state.activations)
	bk     netchunk.Block // the block under way
	slots  netchunk.Slots // the touched nodes' segments and switches
	chunks []netChunk     // per worker
}

func newNetRed(s *state, workers, B int) *netRed {
	nr := &netRed{fl: make([]uint8, B), slots: netchunk.NewSlots(B)}
	nr.chunks = make([]netChunk, workers)
	for w := range nr.chunks {
		nr.chunks[w] = netChunk{Chunk: netchunk.NewChunk(reducedChunk, B), w: w}
	}
	if s.nx.churn && s.nx.cNode == nil {
		// θ_k = c·z_k with the c of node k's last step (a checkpoint
		// carries it).
		s.nx.cNode = make([]float64, s.rows())
	}
	return nr
}

// netBegin draws the block of at most stop − s.t rounds under the model:
// its edges and flags, the touched nodes (the endpoints of the rounds
// that exchange something) and each round's coefficients. It returns B.
func (e *reducedExec) netBegin(stop int64) (int, error) {
	s, bl, nr := e.s, e.bl, e.nr
	B := int(min(int64(bl.maxB), stop-s.t))
	if err := s.drawBlock(B, bl.edges, nr.fl, &bl.gen, bl.stamp); err != nil {
		return 0, err
	}
	bl.rounds, bl.t0, bl.touched = B, s.t, bl.touched[:0]
	bl.coef[0] = roundCoef{c: e.cPrev}
	for r := 1; r <= B; r++ {
		if netTouch(nr.fl[r-1]) {
			for _, k := range bl.edges[r-1] {
				if bl.stamp[k] != bl.gen {
					bl.stamp[k] = bl.gen
					bl.touched = append(bl.touched, k)
				}
			}
		}
		tf := float64(s.t + int64(r))
		bl.coef[r] = roundCoef{c: s.linearScale(s.cfg.Gamma(tf), tf), a: 1 - 1/tf, b: 1 / tf, cPrev: bl.coef[r-1].c}
	}
	return B, nil
}

// netTouch reports whether a round's flags exchange something.
func netTouch(fl uint8) bool { return fl&actOnline != 0 && fl&actBoth != 0 }

// netAdvance is advance under a network model: one block.
func (e *reducedExec) netAdvance(stop int64) error {
	s, bl, rs := e.s, e.bl, e.rs
	big := s.prob.N*s.prob.P >= reducedMinPoolWork
	sw := &e.cr.sw
	sw.start(false)
	defer sw.lap(PhaseSerial)
	B, err := e.netBegin(stop)
	if err != nil {
		return err
	}
	sw.prof.Touches += int64(B)
	for sl, k := range bl.touched {
		rs.slot[k] = int32(sl)
	}
	for r := 1; r <= B; r++ {
		rs.cSum[r] = rs.cSum[r-1] + bl.coef[r].c
	}
	e.nr.bk = netchunk.Block{T0: bl.t0, B: B, CSum: rs.cSum}
	e.claim.Store(0)
	e.evNonzero = 0
	e.cr.pass(big, e.netFn, task{}, s.prob.N, PhasePass)
	var evals int64
	for w := range e.nr.chunks {
		evals += e.nr.chunks[w].evals
		e.nr.chunks[w].evals = 0
	}
	nz, first := e.cr.workers()
	e.cPrev = bl.coef[B].c
	if first.found() {
		first.field = "z (dual variable)"
	}
	s.gradEvals += evals
	return s.endIters(bl.t0, bl.t0+int64(B), 0, e.evNonzero+nz, first)
}

// netShard is the block's one pass: worker 0 runs the touched nodes
// (netTouched) first, then every worker claims chunks of the other nodes.
// Which worker advances a node, and beside which others, changes none of
// its bits.
func (e *reducedExec) netShard(w int, _ layout.Range, _ *task) {
	if w == 0 {
		e.evNonzero = e.netTouched()
	}
	c := &e.nr.chunks[w]
	c.e = e
	N := e.s.prob.N
	lab, ylab := e.s.prob.Label, e.s.ylab
	var nz int64
	for {
		lo := int(e.claim.Add(reducedClaim)) - reducedClaim
		if lo >= N {
			break
		}
		for k := lo; k < min(N, lo+reducedClaim); k++ {
			if e.bl.stamp[k] == e.bl.gen {
				continue
			}
			if lab[k] <= ylab[k] && !reducedHostOnly {
				c.quiet(k)
				continue
			}
			nz += c.Add(c, &e.nr.bk, k)
		}
	}
	if len(c.Nodes) > 0 {
		nz += c.Run(c, &e.nr.bk)
	}
	e.cr.nz[w] += nz
}

// quiet is Add and End for untouched node k that does not contribute
// (ℓ_k ≤ ℓ_y: W = η = 0, z stays, θ̄ averages over its online rounds), with
// the same arithmetic (the sums of Net.OnlineSum, which Add takes too) and
// without the Host's calls, which on a run's first rounds, where nearly
// every node is such a one, cost it much of its time (bench/RESULTS.md,
// "Session draws without a division" and "The churn walk in one piece").
// Its margin is left as it is, which End would write back.
func (c *netChunk) quiet(k int) {
	e, bk := c.e, &c.e.nr.bk
	on, cs, last := c.OnlineSum(k, bk.T0+1, bk.T0+int64(bk.B), bk.CSum)
	if on == 0 {
		return // offline throughout: nothing moved
	}
	s, c0 := e.s, e.count(k)
	f := float64(c0 + on)
	redpack.Average(rowAt(&s.Z, k), rowAt(&s.ThetaBar, k), s.prob.P, float64(c0)/f, cs/f)
	if nx := s.nx; nx.rounds != nil {
		nx.rounds[k] = c0 + on
		nx.cNode[k] = e.bl.coef[last].c
	}
	c.evals += on
}

// reducedHostOnly sends every untouched node through the chunk's Host
// calls (Add, End): a test sets it to check quiet's bits against that
// path's (TestNetworkReducedQuietIdentical; netchunk's
// TestQuietIsClose ties the sums of OnlineSum, which both use, to Close).
var reducedHostOnly bool

// Node, Segment, Pieces, OnlineSum, Round and End make a chunk the host of
// its walk.

func (c *netChunk) Node(k int) (bool, int64, float64) {
	e := c.e
	return e.s.prob.Label[k] > e.s.ylab[k], e.count(k), e.marg[k]
}

func (c *netChunk) Segment(k int) (float64, float64) { return c.e.segment(k) }

func (c *netChunk) Pieces(k int, lo, hi int64, dst []int64) []int64 {
	if !c.e.s.nx.churn {
		return append(dst, lo, hi)
	}
	return c.e.s.net.Pieces(k, lo, hi, dst)
}

func (c *netChunk) OnlineSum(k int, lo, hi int64, prefix []float64) (int64, float64, int64) {
	return c.e.s.net.OnlineSum(k, lo, hi, prefix)
}

func (c *netChunk) Round(p *redpack.Pack, r int, nodes []int32) int64 {
	return c.e.netRound(c.w, p, r, func(i int) int { return int(nodes[p.Act[i]]) })
}

func (c *netChunk) End(k int, sg *netchunk.Seg) { c.evals += c.e.segEnd(sg, k) }

// span is Net.Span, every node online for ever without churn.
func (e *reducedExec) span(k int, t int64) (bool, int64) {
	if !e.s.nx.churn {
		return true, math.MaxInt64
	}
	return e.s.net.Span(k, t)
}

// count is node k's online rounds before the block (c_k; t without churn).
func (e *reducedExec) count(k int) int64 {
	if r := e.s.nx.rounds; r != nil {
		return r[k]
	}
	return e.bl.t0
}

// cLast is the c of θ_k = c·z_k at node k's last step before block round r.
func (e *reducedExec) cLast(k int, sg *netchunk.Seg) float64 {
	if sg.Last > 0 {
		return e.bl.coef[sg.Last].c
	}
	if c := e.s.nx.cNode; c != nil {
		return c[k]
	}
	return e.bl.coef[0].c
}

// segWrite writes node k's segment into its record (z += Wδ, θ̄ the average
// over its online rounds) and starts the count of the next one; it returns
// the segment's online rounds.
func (e *reducedExec) segWrite(sg *netchunk.Seg, k int) int64 {
	on, al, be, W, eta, avg := sg.Flush()
	s := e.s
	switch {
	case on == 0:
		// offline throughout: nothing moved
	case avg:
		redpack.Average(rowAt(&s.Z, k), rowAt(&s.ThetaBar, k), s.prob.P, al, be)
	default:
		e.write(k, al, be, W, eta)
	}
	return on
}

// segEnd ends node k's block: its record, c_k, the c of its last step and
// its margin.
func (e *reducedExec) segEnd(sg *netchunk.Seg, k int) int64 {
	on := e.segWrite(sg, k)
	nx := e.s.nx
	if nx.rounds != nil {
		nx.rounds[k] = sg.C0
		if sg.Last > 0 {
			nx.cNode[k] = e.bl.coef[sg.Last].c
		}
	}
	e.marg[k] = sg.M
	return on
}

// netRound advances the pack p through block round r and notes the
// entries whose margin turned non-finite (node(i) names entry i's node).
func (e *reducedExec) netRound(w int, p *redpack.Pack, r int, node func(i int) int) int64 {
	cf := e.bl.coef[r]
	nz, fin := p.Round(e.s.prob.Loss, len(p.M), cf.c, cf.a, cf.b*cf.c)
	if !fin {
		t := e.bl.t0 + int64(r)
		for i, m := range p.M {
			if !redpack.Finite(m) {
				e.cr.bad[w].note(t, node(i), "z (dual variable)")
			}
		}
	}
	return nz
}

// netTouched runs the block's touched nodes in round order (worker 0):
// their online pieces, packed while online, and at each touch the
// endpoints' segments written into their records, the exchange of the
// round's deliveries and new segments.
func (e *reducedExec) netTouched() (nz int64) {
	s, bl, rs, nr := e.s, e.bl, e.rs, e.nr
	B := bl.rounds
	bk, sls := &nr.bk, &nr.slots
	lab := s.prob.Label
	p := &rs.tp
	p.Pos = rs.tpos
	sls.Reset(B)
	contrib := func(sl int) bool {
		k := int(bl.touched[sl])
		return lab[k] > s.ylab[k]
	}
	span := func(sl int, t int64) (bool, int64) { return e.span(int(bl.touched[sl]), t) }
	for sl, k32 := range bl.touched {
		k := int(k32)
		s0, q := e.segment(k)
		on, end := span(sl, bk.T0+1)
		sls.Begin(sl, bk, p, s0, q, e.count(k), e.marg[k], on, end, contrib(sl))
	}
	evals := int64(0)
	for r := 1; r <= B; r++ {
		sls.Wake(r, bk, p, span, contrib)
		if fl := nr.fl[r-1]; netTouch(fl) {
			i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
			si, sj := int(rs.slot[i]), int(rs.slot[j])
			gi, gj := &sls.Segs[si], &sls.Segs[sj]
			// Both endpoints are online at r (actOnline): their pieces
			// so far end at r − 1, their segments are written.
			bk.Leave(p, si, gi, r-1)
			bk.Leave(p, sj, gj, r-1)
			evals += e.segWrite(gi, i) + e.segWrite(gj, j)
			mi, mj := gi.M, gj.M
			switch toI, toJ := fl&actToI != 0, fl&actToJ != 0; {
			case network.Swap(toI, toJ):
				s.swapY(i, j)
				mi = marginScaled(s.X.Row(i), s.X.Row(int(s.Y[i])), s.Z.Row(i), e.cLast(i, gi))
				mj = marginScaled(s.X.Row(j), s.X.Row(int(s.Y[j])), s.Z.Row(j), e.cLast(j, gj))
				s.average(i, j)
			case toI:
				s.averageInto(i, j)
			default:
				s.averageInto(j, i)
			}
			s0, q := e.segment(i)
			gi.Open(s0, q, gi.C0, mi)
			s0, q = e.segment(j)
			gj.Open(s0, q, gj.C0, mj)
			netchunk.Join(p, si, gi, r, contrib(si))
			netchunk.Join(p, sj, gj, r, contrib(sj))
		}
		if len(p.M) > 0 {
			nz += e.netRound(0, p, r, func(i int) int { return int(bl.touched[p.Act[i]]) })
		}
	}
	for sl, k := range bl.touched {
		bk.Leave(p, sl, &sls.Segs[sl], B)
		evals += e.segEnd(&sls.Segs[sl], int(k))
	}
	p.Pos = nil
	p.Reset()
	nr.chunks[0].evals += evals
	return nz
}
