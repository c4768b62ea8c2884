package ranks

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/netchunk"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/network"
)

// The run over ranks under a network model: message loss (--loss,
// --loss-oneway) and churn (--churn), the models that act on iterations
// and nodes only (network.NewNodes; the ones that need the whole graph are
// refused by flag). Every rank draws the block's edges as before and
// decides each round with the same keyed draws as one process (Online,
// Delivered: functions of the seed, the iteration and the node), so every
// rank agrees on the rounds that exchange something (the touches); the
// rest is the engine's reduced schedule under a model
// (engine/network_reduced.go), operation for operation: a lost, idle or
// offline round is a round without an edge, a one-way delivery averages
// the receiver only, an offline node is frozen, its segment cut into
// online pieces (Net.Span) and its running average counting its own online
// rounds c_k. Under churn a touched node's record carries c_k and the c of
// its last step (rec.extra).

// The flags of a round (engine's actEdge …).
const (
	fEdge   uint8 = 1 << iota // an edge was drawn
	fOnline                   // both endpoints online: the exchange is attempted
	fToI                      // j → i arrives
	fToJ                      // i → j arrives
)

// lnet is a rank's state of the network model.
type lnet struct {
	net   *network.Net
	churn bool
	fl    []uint8 // the block's flags
	// Per own node under churn: c_k and the c of its last step.
	rounds []int64
	cNode  []float64
	// The counters (the same on every rank), and this rank's online node
	// rounds (its untouched nodes; rank 0 adds the touched ones).
	attempted, delivered, oneWay int64
	evals                        int64
	bk                           netchunk.Block // the block under way
	slots                        netchunk.Slots // the touched slots' segments and switches
	chunks                       []nchunk       // per worker
}

// nchunk is a worker's chunk of its own untouched nodes (engine's
// netChunk), the host of its walk (netchunk.Host).
type nchunk struct {
	netchunk.Chunk
	l         *local
	nz, evals int64
	bad       div
}

const netChunk = 512 // engine's reducedChunk

func newLnet(m network.Model, n int, seed uint64, l *local) (*lnet, error) {
	net, err := network.NewNodes(m, n, seed)
	if err != nil {
		return nil, err
	}
	B := l.maxB
	nt := &lnet{net: net, churn: net.Churn(), fl: make([]uint8, B), slots: netchunk.NewSlots(B),
		chunks: make([]nchunk, max(1, l.workers))}
	if nt.churn {
		nt.rounds, nt.cNode = make([]int64, l.hi-l.lo), make([]float64, l.hi-l.lo)
	}
	for w := range nt.chunks {
		nt.chunks[w] = nchunk{Chunk: netchunk.NewChunk(netChunk, B), l: l}
	}
	return nt, nil
}

// rec is the layout of a touched record: under churn with c_k and c (extra).
func (l *local) rec() rec {
	if l.nt != nil && l.nt.churn {
		return rec{l.d, l.P, 2}
	}
	return rec{l.d, l.P, 0}
}

// advanceNet is advance under a network model.
func (l *local) advanceNet(stop int64) error {
	t0 := l.t
	B, err := l.beginNet(stop)
	if err != nil {
		return err
	}
	l.curB = B
	l.nt.bk = netchunk.Block{T0: t0, B: B, CSum: l.cSum}
	if err := l.gather(); err != nil {
		return err
	}
	l.untouchedNet()
	l.touchedNet(t0, B)
	l.scatter()
	l.cPrev = l.coef[B].c
	l.t = t0 + int64(B)
	return nil
}

// beginNet is begin under the model (engine's netBegin): the block's
// edges, each round's flags and counters, the touched nodes of the rounds
// that exchange something, the coefficients.
func (l *local) beginNet(stop int64) (int, error) {
	nt := l.nt
	B := int(min(int64(l.maxB), stop-l.t))
	l.gen++
	if l.gen == 0 {
		clear(l.stamp)
		l.gen = 1
	}
	l.touched = l.touched[:0]
	clear(l.slotOf)
	l.coef[0] = coef{c: l.cPrev}
	if err := l.drawEdges(B); err != nil {
		return 0, err
	}
	for r := 1; r <= B; r++ {
		t := l.t + int64(r)
		e := l.bEdges[r-1]
		i, j := int(e[0]), int(e[1])
		f := fEdge
		if !nt.churn || nt.net.Online(i, t) && nt.net.Online(j, t) {
			f |= fOnline
			nt.attempted++
			toI, toJ := nt.net.Delivered(t, i, j)
			if toI {
				f |= fToI
			}
			if toJ {
				f |= fToJ
			}
			switch {
			case toI && toJ:
				nt.delivered++
			case toI || toJ:
				nt.oneWay++
			}
		}
		nt.fl[r-1] = f
		if netTouch(f) {
			for _, k := range e {
				if _, ok := l.slotOf[k]; !ok {
					l.slotOf[k] = int32(len(l.touched))
					l.touched = append(l.touched, k)
					if l.own(int(k)) {
						l.stamp[int(k)-l.lo] = l.gen
					}
				}
			}
		}
		tf := float64(t)
		g := l.step.Gamma(tf)
		l.coef[r] = coef{c: engine.LinearScale(l.reg, g, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: l.coef[r-1].c}
	}
	for r := 1; r <= B; r++ {
		l.cSum[r] = l.cSum[r-1] + l.coef[r].c
	}
	return B, nil
}

func netTouch(f uint8) bool { return f&fOnline != 0 && f&(fToI|fToJ) != 0 }

// span is Net.Span (every node online for ever without churn).
func (nt *lnet) span(k int, t int64) (bool, int64) {
	if !nt.churn {
		return true, math.MaxInt64
	}
	return nt.net.Span(k, t)
}

// segWrite is engine's: the segment written into the rows, the count of
// the next one started; it returns the segment's online rounds.
func segWrite(sg *netchunk.Seg, x, y, z, bar []float64) int64 {
	on, al, be, W, eta, avg := sg.Flush()
	if on > 0 && avg {
		redpack.Average(ptr(z), ptr(bar[:len(z)]), len(z), al, be)
	} else if on > 0 {
		write(x, y, z, bar, al, be, W, eta)
	}
	return on
}

// segOpen is engine's: a segment from the rows' current z and y.
func segOpen(sg *netchunk.Seg, x, y, z []float64, c0 int64, m float64) {
	s0, q := segment(x, y, z)
	sg.Open(s0, q, c0, m)
}

// netRound advances p through block round r, the block's round t; it
// returns the non-zero gradients and notes in bad the entries whose margin
// turned non-finite (node(i) names entry i's node). Such an entry stays in
// the pack, as in engine's netRound.
func (l *local) netRound(p *redpack.Pack, r int, t int64, bad *div, node func(i int) int) int64 {
	cf := l.coef[r]
	nz, fin := p.Round(l.loss, len(p.M), cf.c, cf.a, cf.b*cf.c)
	if !fin {
		for i, m := range p.M {
			if !redpack.Finite(m) {
				bad.note(t, node(i))
			}
		}
	}
	return nz
}

// untouchedNet advances this rank's untouched nodes through the block
// (engine's netShard, netChunk), over the rank's workers.
func (l *local) untouchedNet() {
	nt := l.nt
	par.Blocks(l.hi-l.lo, len(nt.chunks), func(w, lo, hi int) {
		c := &nt.chunks[w]
		for lk := lo; lk < hi; lk++ {
			if l.stamp[lk] == l.gen {
				continue
			}
			c.nz += c.Add(c, &nt.bk, lk+l.lo)
		}
		if len(c.Nodes) > 0 {
			c.nz += c.Run(c, &nt.bk)
		}
	})
	for w := range nt.chunks {
		c := &nt.chunks[w]
		l.nonzero += c.nz
		nt.evals += c.evals
		l.bad.merge(c.bad)
		c.nz, c.evals, c.bad = 0, 0, div{}
	}
}

// Node, Segment, Pieces, OnlineSum, Round and End make a chunk the host of
// its walk over own nodes.

func (c *nchunk) Node(k int) (bool, int64, float64) {
	l := c.l
	lk := k - l.lo
	c0 := l.nt.bk.T0
	if l.nt.churn {
		c0 = l.nt.rounds[lk]
	}
	return l.lab[lk] > l.ylab[lk], c0, l.marg[lk]
}

func (c *nchunk) Segment(k int) (float64, float64) {
	return segment(c.l.xRow(k), c.l.yRow(k), c.l.zRow(k))
}

func (c *nchunk) Pieces(k int, lo, hi int64, dst []int64) []int64 {
	if !c.l.nt.churn {
		return append(dst, lo, hi)
	}
	return c.l.nt.net.Pieces(k, lo, hi, dst)
}

func (c *nchunk) OnlineSum(k int, lo, hi int64, prefix []float64) (int64, float64, int64) {
	return c.l.nt.net.OnlineSum(k, lo, hi, prefix)
}

func (c *nchunk) Round(p *redpack.Pack, r int, nodes []int32) int64 {
	return c.l.netRound(p, r, c.l.nt.bk.T0+int64(r), &c.bad, func(i int) int { return int(nodes[p.Act[i]]) })
}

func (c *nchunk) End(k int, sg *netchunk.Seg) {
	l, nt := c.l, c.l.nt
	lk := k - l.lo
	x, y, z := l.xRow(k), l.yRow(k), l.zRow(k)
	c.evals += segWrite(sg, x, y, z, l.barRow(k))
	if nt.churn {
		nt.rounds[lk] = sg.C0
		if sg.Last > 0 {
			nt.cNode[lk] = l.coef[sg.Last].c
		}
	}
	l.marg[lk] = sg.M
	if l.lab[lk] <= l.ylab[lk] {
		// Engine sets a non-contributing node's margin when it saves
		// the state (reducedExec.margins): c·δᵀz.
		l.marg[lk] = nonContribMargin(nt, lk, l.coef[nt.bk.B].c, x, y, z)
	}
}

// nonContribMargin is engine's reducedExec.margins for one node: c·δᵀz
// with c the c of its last step (churn) or of the block's last round.
func nonContribMargin(nt *lnet, lk int, cEnd float64, x, y, z []float64) float64 {
	s0, _ := segment(x, y, z)
	c := cEnd
	if nt.churn {
		c = nt.cNode[lk]
	}
	return c * s0
}

// touchedNet runs the touched nodes on the gathered records in round
// order (engine's netTouched): every rank alike.
func (l *local) touchedNet(t0 int64, B int) {
	nt := l.nt
	bk, sls := &nt.bk, &nt.slots
	rc := l.rec()
	L := rc.len()
	S := len(l.touched)
	r0 := func(sl int) []float64 { return l.recs[sl*L : (sl+1)*L] }
	tp := &l.tp
	tp.Reset()
	tp.Pos = l.tpos[:S]
	clear(tp.Pos)
	sls.Reset(B)
	contrib := func(sl int) bool {
		v := r0(sl)
		return l.labelOf(int(l.touched[sl]), v) > int32(rc.tail(v)[2])
	}
	span := func(sl int, t int64) (bool, int64) { return nt.span(int(l.touched[sl]), t) }
	write := func(sl int, sg *netchunk.Seg) int64 {
		v := r0(sl)
		return segWrite(sg, rc.x(v), rc.y(v), rc.z(v), rc.bar(v))
	}
	cLast := func(sl int, sg *netchunk.Seg) float64 {
		switch {
		case sg.Last > 0:
			return l.coef[sg.Last].c
		case nt.churn:
			return rc.tail(r0(sl))[4]
		}
		return l.coef[0].c
	}
	for sl := 0; sl < S; sl++ {
		v := r0(sl)
		c0 := t0
		if nt.churn {
			c0 = int64(rc.tail(v)[3])
		}
		s0, q := segment(rc.x(v), rc.y(v), rc.z(v))
		on, end := span(sl, t0+1)
		sls.Begin(sl, bk, tp, s0, q, c0, rc.tail(v)[0], on, end, contrib(sl))
	}
	var nz, evals int64
	for r := 1; r <= B; r++ {
		t := t0 + int64(r)
		sls.Wake(r, bk, tp, span, contrib)
		if f := nt.fl[r-1]; netTouch(f) {
			e := l.bEdges[r-1]
			si, sj := int(l.slotOf[e[0]]), int(l.slotOf[e[1]])
			gi, gj := &sls.Segs[si], &sls.Segs[sj]
			bk.Leave(tp, si, gi, r-1)
			bk.Leave(tp, sj, gj, r-1)
			evals += write(si, gi) + write(sj, gj)
			vi, vj := r0(si), r0(sj)
			mi, mj := gi.M, gj.M
			zi, zj := rc.z(vi), rc.z(vj)
			switch toI, toJ := f&fToI != 0, f&fToJ != 0; {
			case network.Swap(toI, toJ):
				yi, yj := rc.y(vi), rc.y(vj)
				for a := range yi {
					yi[a], yj[a] = yj[a], yi[a]
				}
				ti, tj := rc.tail(vi), rc.tail(vj)
				ti[1], tj[1] = tj[1], ti[1]
				ti[2], tj[2] = tj[2], ti[2]
				mi = engine.MarginScaled(rc.x(vi), rc.y(vi), zi, cLast(si, gi))
				mj = engine.MarginScaled(rc.x(vj), rc.y(vj), zj, cLast(sj, gj))
				for a := range zi {
					u := (zi[a] + zj[a]) / 2
					zi[a], zj[a] = u, u
				}
			case toI:
				for a := range zi {
					zi[a] = (zi[a] + zj[a]) / 2
				}
			default:
				for a := range zj {
					zj[a] = (zj[a] + zi[a]) / 2
				}
			}
			segOpen(gi, rc.x(vi), rc.y(vi), zi, gi.C0, mi)
			segOpen(gj, rc.x(vj), rc.y(vj), zj, gj.C0, mj)
			netchunk.Join(tp, si, gi, r, contrib(si))
			netchunk.Join(tp, sj, gj, r, contrib(sj))
		}
		if len(tp.M) > 0 {
			nz += l.netRound(tp, r, t, &l.bad, func(i int) int { return int(l.touched[tp.Act[i]]) })
		}
	}
	cEnd := l.coef[B].c
	for sl := 0; sl < S; sl++ {
		sg := &sls.Segs[sl]
		bk.Leave(tp, sl, sg, B)
		evals += write(sl, sg)
		v := r0(sl)
		tl := rc.tail(v)
		if nt.churn {
			tl[3] = float64(sg.C0)
			if sg.Last > 0 {
				tl[4] = l.coef[sg.Last].c
			}
		}
		tl[0] = sg.M
		if !contrib(sl) {
			s0, _ := segment(rc.x(v), rc.y(v), rc.z(v))
			c := cEnd
			if nt.churn {
				c = tl[4]
			}
			tl[0] = c * s0
		}
	}
	tp.Reset()
	// Every rank runs the touched nodes: rank 0 counts them.
	if l.comm.Rank() == 0 {
		l.nonzero += nz
		nt.evals += evals
	}
}

// gradEvals is the gradient evaluations so far, over every rank: n·t, or
// under the model the online node rounds.
func (l *local) gradEvals() (int64, error) {
	if l.nt == nil {
		return int64(l.n) * l.t, nil
	}
	v := []int64{l.nt.evals}
	if err := l.comm.AllreduceInt64(v, mpi.Sum); err != nil {
		return 0, err
	}
	return v[0], nil
}

// netRecord fills a record's network fields (engine's Sim.netRecord).
func (l *local) netRecord(r *engine.Record) {
	if l.nt == nil {
		r.Online = -1
		return
	}
	nt := l.nt
	r.Attempted, r.Delivered, r.OneWay = nt.attempted, nt.delivered, nt.oneWay
	r.Online = l.n
	if nt.churn && l.t > 0 {
		r.Online = nt.net.OnlineCount(l.t)
	}
}

// writeNetState writes engine's network section (state.writeNet) for this
// rank's nodes: the counters (every rank alike), then under churn c_k and
// the c of each node's last step.
func (l *local) writeNetState(w io.Writer) error {
	nt := l.nt
	if err := binary.Write(w, binary.LittleEndian, [3]int64{nt.attempted, nt.delivered, nt.oneWay}); err != nil {
		return err
	}
	if !nt.churn {
		return nil
	}
	if err := binary.Write(w, binary.LittleEndian, nt.rounds); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, nt.cNode)
}

// thetaScale is the c of θ_k = c·z_k for own node k: the last round's, or
// under churn that of node k's last step.
func (l *local) thetaScale(k int) float64 {
	if l.nt != nil && l.nt.churn {
		return l.nt.cNode[k-l.lo]
	}
	return l.cPrev
}

// A rank file of a checkpoint under a model ends with the counters and
// this rank's online node rounds (4 int64), then under churn c_k (int64)
// and the c of each own node's last step (float64).

func (l *local) netCheckpointLen() int {
	if l.nt == nil {
		return 0
	}
	b := 4 * 8
	if l.nt.churn {
		b += 16 * (l.hi - l.lo)
	}
	return b
}

func (l *local) writeNetCheckpoint(w io.Writer) error {
	nt := l.nt
	if err := binary.Write(w, binary.LittleEndian, [4]int64{nt.attempted, nt.delivered, nt.oneWay, nt.evals}); err != nil {
		return err
	}
	if !nt.churn {
		return nil
	}
	if err := binary.Write(w, binary.LittleEndian, nt.rounds); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, nt.cNode)
}

// netSaved is what readNetCheckpoint read, applied once the whole file is
// checked.
type netSaved struct {
	counts [4]int64
	rounds []int64
	cNode  []float64
}

// readNetCheckpoint reads what writeNetCheckpoint wrote (its length is
// checked by the caller).
func (l *local) readNetCheckpoint(rd *bytes.Reader) *netSaved {
	v := &netSaved{}
	binary.Read(rd, binary.LittleEndian, &v.counts)
	if l.nt.churn {
		v.rounds, v.cNode = make([]int64, l.hi-l.lo), make([]float64, l.hi-l.lo)
		binary.Read(rd, binary.LittleEndian, v.rounds)
		binary.Read(rd, binary.LittleEndian, v.cNode)
	}
	return v
}

func (l *local) applyNetCheckpoint(v *netSaved) {
	nt := l.nt
	nt.attempted, nt.delivered, nt.oneWay, nt.evals = v.counts[0], v.counts[1], v.counts[2], v.counts[3]
	copy(nt.rounds, v.rounds)
	copy(nt.cNode, v.cNode)
	nt.net.ResumeAt(l.t)
}
