package engine

import (
	"math"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/kernel"
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
	seg := int64(unsafe.Sizeof(netSeg{}))
	chunk := int64(reducedChunk)*(seg+4+4+(4+5*8+1)+8*4) + (B+2)*4*2
	return B + 2*B*seg + int64(max(1, workers))*chunk
}

// netSeg is a node's segment under a network model: s₀ = δᵀz₀, q = δᵀδ,
// W, H = Σ c_r W_r and cs = Σ c_r over its online rounds so far, its next
// margin m, c₀ its online rounds before the segment and on those in it;
// a is the block round its current online piece began (0: none open), last
// its last online round in the block (0: none).
type netSeg struct {
	s0, q, W, H, cs, m float64
	c0, on             int64
	a, last            int32
}

// netChunk is a worker's chunk of untouched nodes: their segments, the
// pack of the contributing ones that are online (Act: the index in the
// chunk), and the joins and leaves of their online pieces bucketed by
// round (head[r]: the first event of round r, −1 none; nxt chains them;
// ev: index<<1 | 1 for a join).
type netChunk struct {
	nodes []int32
	segs  []netSeg
	pk    redpack.Pack
	head  []int32
	used  []int32
	ev    []int32
	nxt   []int32
	evals int64
}

// netRed is what the reduced executor keeps under a network model.
type netRed struct {
	fl     []uint8    // the block's flags (state.activations)
	segs   []netSeg   // per touched slot
	head   []int32    // the touched nodes' switches by round (−1 none), chained by nxt
	nxt    []int32    // per slot
	chunks []netChunk // per worker
}

func newNetRed(s *state, workers, B int) *netRed {
	nr := &netRed{fl: make([]uint8, B), segs: make([]netSeg, 2*B), head: make([]int32, B+2), nxt: make([]int32, 2*B)}
	nr.chunks = make([]netChunk, workers)
	for w := range nr.chunks {
		c := &nr.chunks[w]
		c.nodes, c.segs = make([]int32, 0, reducedChunk), make([]netSeg, reducedChunk)
		c.pk = redpack.New(reducedChunk)
		c.pk.Pos = make([]int32, reducedChunk)
		c.head = make([]int32, B+2)
		for r := range c.head {
			c.head[r] = -1
		}
		c.used = make([]int32, 0, B+2)
		c.ev, c.nxt = make([]int32, 0, 8*reducedChunk), make([]int32, 0, 8*reducedChunk)
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
	if err := s.activations(s.t, unsafe.Slice(&bl.edges[0][0], 2*B), nr.fl[:B]); err != nil {
		return 0, err
	}
	bl.rounds, bl.t0 = B, s.t
	bl.gen++
	if bl.gen == 0 {
		clear(bl.stamp)
		bl.gen = 1
	}
	bl.touched = bl.touched[:0]
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
	N := e.s.prob.N
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
			c.nodes = append(c.nodes, int32(k))
			if len(c.nodes) == len(c.segs) {
				nz += e.netChunk(w, c)
			}
		}
	}
	if len(c.nodes) > 0 {
		nz += e.netChunk(w, c)
	}
	e.cr.nz[w] += nz
}

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
func (e *reducedExec) cLast(k int, sg *netSeg) float64 {
	if sg.last > 0 {
		return e.bl.coef[sg.last].c
	}
	if c := e.s.nx.cNode; c != nil {
		return c[k]
	}
	return e.bl.coef[0].c
}

// segOpen starts node k's segment: s₀ and q from its record, W = H = 0,
// margin m, c₀ online rounds before it.
func (e *reducedExec) segOpen(sg *netSeg, k int, c0 int64, m float64) {
	sg.s0, sg.q = e.segment(k)
	sg.W, sg.H, sg.cs, sg.m, sg.c0, sg.on = 0, 0, 0, m, c0, 0
}

// pieceClose ends the online piece of sg after block round b with the
// pack's W, η and margin.
func (e *reducedExec) pieceClose(sg *netSeg, W, eta, m float64, b int) {
	sg.W, sg.m = W, m
	if a := int(sg.a); b >= a {
		sg.H += eta * float64(e.bl.t0+int64(b))
		sg.cs += e.rs.cSum[b] - e.rs.cSum[a-1]
		sg.on += int64(b - a + 1)
		sg.last = int32(b)
	}
	sg.a = 0
}

// segWrite writes node k's segment into its record (z += Wδ, θ̄ the average
// over its online rounds) and starts the count of the next one; it returns
// the segment's online rounds.
func (e *reducedExec) segWrite(sg *netSeg, k int) int64 {
	on := sg.on
	if on == 0 {
		return 0 // offline throughout: nothing moved
	}
	cEnd := sg.c0 + on
	f := float64(cEnd)
	s := e.s
	if sg.W == 0 && sg.H == 0 {
		redpack.Average(rowAt(&s.Z, k), rowAt(&s.ThetaBar, k), s.prob.P, float64(sg.c0)/f, sg.cs/f)
	} else {
		e.write(k, float64(sg.c0)/f, sg.cs/f, sg.W, sg.H/f)
	}
	sg.c0, sg.on, sg.W, sg.H, sg.cs = cEnd, 0, 0, 0, 0
	return on
}

// segEnd ends node k's block: its record, c_k, the c of its last step and
// its margin.
func (e *reducedExec) segEnd(sg *netSeg, k int) int64 {
	on := e.segWrite(sg, k)
	nx := e.s.nx
	if nx.rounds != nil {
		nx.rounds[k] = sg.c0
		if sg.last > 0 {
			nx.cNode[k] = e.bl.coef[sg.last].c
		}
	}
	e.marg[k] = sg.m
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

// netChunk advances the untouched nodes of c through the block and
// empties it: a node that does not contribute only averages θ̄ over its
// online rounds; a contributing one is in the pack over each online piece.
func (e *reducedExec) netChunk(w int, c *netChunk) (nz int64) {
	s, bl := e.s, e.bl
	B, t0 := bl.rounds, bl.t0
	lab := s.prob.Label
	p := &c.pk
	addEv := func(r, x int, join bool) {
		if c.head[r] < 0 {
			c.used = append(c.used, int32(r))
		}
		v := int32(x << 1)
		if join {
			v |= 1
		}
		c.ev, c.nxt = append(c.ev, v), append(c.nxt, c.head[r])
		c.head[r] = int32(len(c.ev) - 1)
	}
	for x, k32 := range c.nodes {
		k := int(k32)
		sg := &c.segs[x]
		sg.a, sg.last = 0, 0
		contrib := lab[k] > s.ylab[k]
		if contrib {
			e.segOpen(sg, k, e.count(k), e.marg[k])
		} else {
			sg.W, sg.H, sg.cs, sg.m, sg.c0, sg.on = 0, 0, 0, e.marg[k], e.count(k), 0
		}
		for t := t0 + 1; t <= t0+int64(B); {
			on, end := e.span(k, t)
			hi := min(end-1, t0+int64(B))
			if on {
				a, b := int(t-t0), int(hi-t0)
				if contrib {
					addEv(a, x, true)
					if b < B {
						addEv(b+1, x, false)
					}
				} else {
					sg.a = int32(a)
					e.pieceClose(sg, 0, 0, sg.m, b)
				}
			}
			t = hi + 1
		}
	}
	for r := 1; r <= B; r++ {
		for v := c.head[r]; v >= 0; v = c.nxt[v] {
			x := int(c.ev[v] >> 1)
			sg := &c.segs[x]
			if c.ev[v]&1 != 0 {
				sg.a = int32(r)
				p.Add(int32(x), sg.s0, sg.q, sg.W, 0, sg.m)
				continue
			}
			i := int(p.Pos[x]) - 1
			e.pieceClose(sg, p.W[i], p.Eta[i], p.M[i], r-1)
			p.Remove(i)
		}
		if len(p.M) > 0 {
			nz += e.netRound(w, p, r, func(i int) int { return int(c.nodes[p.Act[i]]) })
		}
	}
	for i, x := range p.Act {
		e.pieceClose(&c.segs[x], p.W[i], p.Eta[i], p.M[i], B)
		p.Pos[x] = 0
	}
	p.Reset()
	for x, k := range c.nodes {
		c.evals += e.segEnd(&c.segs[x], int(k))
	}
	for _, r := range c.used {
		c.head[r] = -1
	}
	c.used, c.ev, c.nxt, c.nodes = c.used[:0], c.ev[:0], c.nxt[:0], c.nodes[:0]
	return nz
}

// netTouched runs the block's touched nodes in round order (worker 0):
// their online pieces, packed while online, and at each touch the
// endpoints' segments written into their records, the exchange of the
// round's deliveries and new segments.
func (e *reducedExec) netTouched() (nz int64) {
	s, bl, rs, nr := e.s, e.bl, e.rs, e.nr
	B, t0 := bl.rounds, bl.t0
	lab := s.prob.Label
	p := &rs.tp
	p.Pos = rs.tpos
	for r := range nr.head[:B+2] {
		nr.head[r] = -1
	}
	// sched asks when slot sl's state may next change after block round
	// r (at which it is online or not) and chains it there.
	sched := func(sl int, end int64) {
		if end-t0 <= int64(B) {
			r := int(end - t0)
			nr.nxt[sl], nr.head[r] = nr.head[r], int32(sl)
		}
	}
	join := func(sl int, sg *netSeg, k, r int) {
		sg.a = int32(r)
		if lab[k] > s.ylab[k] {
			p.Add(int32(sl), sg.s0, sg.q, sg.W, 0, sg.m)
		}
	}
	leave := func(sl int, sg *netSeg, b int) {
		if i := int(p.Pos[sl]) - 1; i >= 0 {
			e.pieceClose(sg, p.W[i], p.Eta[i], p.M[i], b)
			p.Remove(i)
		} else if sg.a > 0 {
			e.pieceClose(sg, sg.W, 0, sg.m, b)
		}
	}
	for sl, k32 := range bl.touched {
		k := int(k32)
		sg := &nr.segs[sl]
		sg.a, sg.last = 0, 0
		e.segOpen(sg, k, e.count(k), e.marg[k])
		on, end := e.span(k, t0+1)
		if on {
			join(sl, sg, k, 1)
		}
		sched(sl, end)
	}
	evals := int64(0)
	for r := 1; r <= B; r++ {
		for sl := nr.head[r]; sl >= 0; {
			next := nr.nxt[sl]
			k, sg := int(bl.touched[sl]), &nr.segs[sl]
			on, end := e.span(k, t0+int64(r))
			switch {
			case on && sg.a == 0:
				join(int(sl), sg, k, r)
			case !on && sg.a > 0:
				leave(int(sl), sg, r-1)
			}
			sched(int(sl), end)
			sl = next
		}
		if fl := nr.fl[r-1]; netTouch(fl) {
			i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
			si, sj := int(rs.slot[i]), int(rs.slot[j])
			gi, gj := &nr.segs[si], &nr.segs[sj]
			// Both endpoints are online at r (actOnline): their pieces
			// so far end at r − 1, their segments are written.
			leave(si, gi, r-1)
			leave(sj, gj, r-1)
			evals += e.segWrite(gi, i) + e.segWrite(gj, j)
			mi, mj := gi.m, gj.m
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
			e.segOpen(gi, i, gi.c0, mi)
			e.segOpen(gj, j, gj.c0, mj)
			join(si, gi, i, r)
			join(sj, gj, j, r)
		}
		if len(p.M) > 0 {
			nz += e.netRound(0, p, r, func(i int) int { return int(bl.touched[p.Act[i]]) })
		}
	}
	for sl, k := range bl.touched {
		leave(sl, &nr.segs[sl], B)
		evals += e.segEnd(&nr.segs[sl], int(k))
	}
	p.Pos = nil
	p.Reset()
	nr.chunks[0].evals += evals
	return nz
}

// netTheta sets dst = θ_k under churn: c·z_k with the c of node k's last
// step; it reports whether it did.
func (e *reducedExec) netTheta(k int, dst []float64) bool {
	if nx := e.s.nx; nx != nil && nx.cNode != nil {
		kernel.Scale(dst, e.s.Z.Row(k), nx.cNode[k])
		return true
	}
	return false
}

// theta sets dst = θ_k: c·z_k with the last round's c, or under churn the
// c of node k's last step.
func (e *reducedExec) theta(k int, dst []float64) {
	if !e.netTheta(k, dst) {
		e.linearSync.theta(k, dst)
	}
}
