package ranks

import (
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/problem"
)

// The reduced synchronous schedule (engine/exec_reduced.go) over ranks.
//
// Rank r owns the nodes [lo, hi): their data rows, records (z, θ̄), next
// margins, auxiliary indices and labels. A block of B rounds goes:
//
//  1. Every rank draws the block's B edge indices from the same seeded
//     stream (the engine's, rng stream 1 of the seed), the owners of the
//     drawn edges share their endpoints (drawEdges: a rank holds only the
//     edges of its nodes), and every rank lists the touched nodes in order
//     of first touch, exactly as one process does.
//  2. Each rank packs the records of its own touched nodes (x, y, z, θ̄,
//     margin, y's index and label) and one Allgatherv gives every rank
//     every touched record: 2B records at most, O(touched·d), whatever n.
//  3. Every rank runs the touched nodes in event order on these copies,
//     the same arithmetic as one process (the same on every rank, so no
//     result is sent back), and writes back the records of its own.
//  4. Each rank advances its untouched nodes through the block, alone (a
//     round couples only its edge's endpoints): the engine's per-node
//     recurrences, over its workers.
//
// Per node the operations are those of engine's reduced executor in the
// same order, so the state is bit-identical to a single process for any
// number of ranks and workers (tested against engine for 1 to 4 ranks).

// rec is the layout of a touched node's packed record.
// extra is the number of values after the tail's three: under churn a node's
// count of online rounds c_k and the c of its last step (network.go).
type rec struct{ d, p, extra int }

func (r rec) len() int { return 2*r.d + 2*r.p + 3 + r.extra }

// xs ... return the parts of a record.
func (r rec) x(v []float64) []float64   { return v[:r.d] }
func (r rec) y(v []float64) []float64   { return v[r.d : 2*r.d] }
func (r rec) z(v []float64) []float64   { return v[2*r.d : 2*r.d+r.p] }
func (r rec) bar(v []float64) []float64 { return v[2*r.d+r.p : 2*r.d+2*r.p] }
func (r rec) tail(v []float64) []float64 {
	return v[2*r.d+2*r.p : 2*r.d+2*r.p+3+r.extra] // margin, y's index, y's label (, c_k, c)
}

// local is a rank's share of the state.
type local struct {
	comm      mpi.Comm
	n, d, P   int
	lo, hi    int
	x, z, bar []float64 // rows lo..hi−1, stride d (x) and P (z, θ̄)
	lab       []int32   // ±1
	y         []int32   // y_k's index in the data (global)
	ylab      []int32
	marg      []float64
	foreign   map[int32][]float64 // rows of the data held by other ranks that own nodes use as y
	cPrev     float64
	t         int64
	nonzero   int64 // this rank's non-zero gradients
	bad       div   // where a margin first turned non-finite on this rank
	// stop, set when Execute's context is cancelled, cuts a measurement
	// short: its passes over the rank's nodes (orderedSums) skip what is
	// left, the collectives still run, and the ranks then agree to drop
	// the record (Execute).
	stop  atomic.Bool
	cuts  int64 // passes a stop cut short (what a test of the cut reads)
	edges *rng.Stream
	// The graph's edges are held by their owners: edge e (global index in
	// the sorted edge list) belongs to the rank of its lower end, and rank
	// r's edges are [eStart[r], eStart[r+1]); this rank holds myEdges.
	myEdges   [][2]int32
	eStart    []int
	drawIdx   []int
	drawOwner []int32
	eSend     []int64
	eRecv     []int64
	eCounts   []int
	loss      problem.Loss
	reg       problem.Regularizer
	step      engine.Config // γ(t) (Config.Gamma)
	workers   int
	// block
	maxB                 int
	bEdges               [][2]int32
	coef                 []coef
	stamp                []uint32 // per own node
	gen                  uint32
	touched              []int32
	slotOf               map[int32]int32
	cSum                 []float64
	owner                []int32 // per slot: rank
	packs                []redpack.Pack
	tp                   redpack.Pack
	tpos                 []int32
	s0, q, W, eta, mNext []float64
	start                []int32
	recs                 []float64 // gathered records, in slot order
	sendBuf              []float64
	gathered             []float64
	counts               []int
	labels               labels
	foreignRefs          map[int32]int
	curB                 int
	alphaEnd             float64
	betaEnd              float64
	// communication: bytes of touched records and drawn edges' endpoints
	// sent, time in the blocks' Allgathervs (waiting for the slowest rank
	// included)
	bytesSent int64
	commTime  time.Duration
	// nt is the network model's state (network.go; nil for the paper's
	// network).
	nt *lnet
}

type coef struct{ c, a, b, cPrev float64 }

func (l *local) own(k int) bool { return k >= l.lo && k < l.hi }

// yRow returns node k's (own) auxiliary row.
func (l *local) yRow(k int) []float64 {
	j := int(l.y[k-l.lo])
	if l.own(j) {
		return l.x[(j-l.lo)*l.d : (j-l.lo+1)*l.d]
	}
	return l.foreign[int32(j)]
}

func (l *local) xRow(k int) []float64 { return l.x[(k-l.lo)*l.d : (k-l.lo+1)*l.d] }
func (l *local) zRow(k int) []float64 { return l.z[(k-l.lo)*l.P : (k-l.lo+1)*l.P] }
func (l *local) barRow(k int) []float64 {
	return l.bar[(k-l.lo)*l.P : (k-l.lo+1)*l.P]
}

// begin draws a block of at most stop − t rounds (engine's syncBlock.begin).
func (l *local) begin(stop int64) (int, error) {
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
		e := l.bEdges[r-1]
		for _, k := range e {
			if _, ok := l.slotOf[k]; !ok {
				l.slotOf[k] = int32(len(l.touched))
				l.touched = append(l.touched, k)
				if l.own(int(k)) {
					l.stamp[int(k)-l.lo] = l.gen
				}
			}
		}
		tf := float64(l.t + int64(r))
		g := l.step.Gamma(tf)
		l.coef[r] = coef{c: engine.LinearScale(l.reg, g, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: l.coef[r-1].c}
	}
	for r := 1; r <= B; r++ {
		l.cSum[r] = l.cSum[r-1] + l.coef[r].c
	}
	return B, nil
}

// drawEdges draws the block's B edges into bEdges: every rank draws the
// same indices into the global edge list from the seeded stream (as one
// process does), the owner of each index resolves its endpoints, and one
// Allgatherv shares them (8 bytes an edge), in rank order, put back in
// draw order.
func (l *local) drawEdges(B int) error {
	m := l.eStart[len(l.eStart)-1]
	clear(l.eCounts)
	l.eSend = l.eSend[:0]
	me := l.comm.Rank()
	for r := 0; r < B; r++ {
		idx := l.edges.IntN(m)
		o := ownerOfEdge(l.eStart, idx)
		l.drawIdx[r], l.drawOwner[r] = idx, int32(o)
		l.eCounts[o]++
		if o == me {
			e := l.myEdges[idx-l.eStart[me]]
			l.eSend = append(l.eSend, int64(uint64(uint32(e[0]))<<32|uint64(uint32(e[1]))))
		}
	}
	recv := l.eRecv[:B]
	tc := time.Now()
	if err := l.comm.AllgathervInt64(l.eSend, l.eCounts, recv); err != nil {
		return err
	}
	l.commTime += time.Since(tc)
	l.bytesSent += int64(len(l.eSend)) * 8
	off := mpi.Offsets(l.eCounts)
	for r := 0; r < B; r++ {
		o := l.drawOwner[r]
		v := uint64(recv[off[o]])
		off[o]++
		l.bEdges[r] = [2]int32{int32(uint32(v >> 32)), int32(uint32(v))}
	}
	return nil
}

// ownerOfEdge returns the rank whose edges [start[r], start[r+1]) hold
// edge idx.
func ownerOfEdge(start []int, idx int) int {
	lo, hi := 0, len(start)-2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if start[mid] <= idx {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// shareEdges keeps this rank's edges of g (those whose lower end it owns:
// one contiguous range of the sorted edge list) and learns every rank's
// range with one Allgatherv of the counts.
func (l *local) shareEdges(g *graph.Graph) error {
	first := func(k int) int {
		return sort.Search(len(g.Edges), func(i int) bool { return int(g.Edges[i][0]) >= k })
	}
	a, b := first(l.lo), first(l.hi)
	if err := l.setEdges(slices.Clone(g.Edges[a:b]), len(g.Edges)); err != nil {
		return err
	}
	if l.eStart[l.comm.Rank()] != a {
		return fmt.Errorf("ranks: rank %d's edges start at %d in the graph's list, not %d", l.comm.Rank(), a, l.eStart[l.comm.Rank()])
	}
	return nil
}

// segAvg returns the averaging coefficients of the rounds first..last of
// a block starting after t0: redpack.SegAvg, the code the engine's reduced
// executor calls too.
func (l *local) segAvg(t0 int64, first, last int) (alpha, beta float64) {
	return redpack.SegAvg(t0, l.cSum, first, last)
}

// segment returns s₀ = δᵀz and q = δᵀδ, δ = x − y: redpack.Segment, the
// code the engine's reduced executor calls too.
func segment(x, y, z []float64) (s0, q float64) {
	n := len(x)
	y, z = y[:n], z[:n]
	return redpack.Segment(ptr(x), ptr(y), ptr(z), n)
}

// write writes a node's row back after its segment: redpack.Write, the
// code the engine's reduced executor calls too.
func write(x, y, z, bar []float64, al, be, W, eta float64) {
	n := len(z)
	x, y, bar = x[:n], y[:n], bar[:n]
	redpack.Write(ptr(x), ptr(y), ptr(z), ptr(bar), n, al, be, W, eta)
}

// ptr is the address of v's first element (for the redpack loops, which
// read len(v) elements from it).
func ptr(v []float64) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(v)) }

// advance runs one block towards stop.
func (l *local) advance(stop int64) error {
	if l.nt != nil {
		return l.advanceNet(stop) // network.go
	}
	t0 := l.t
	B, err := l.begin(stop)
	if err != nil {
		return err
	}
	alphaEnd, betaEnd := l.segAvg(t0, 1, B)
	l.curB, l.alphaEnd, l.betaEnd = B, alphaEnd, betaEnd
	if err := l.gather(); err != nil {
		return err
	}
	l.untouched(t0, B, alphaEnd, betaEnd)
	l.touchedRounds(t0, B)
	l.scatter()
	l.cPrev = l.coef[B].c
	l.t = t0 + int64(B)
	return nil
}

// gather packs this rank's touched records and gathers every rank's, in
// slot order, into l.recs.
func (l *local) gather() error {
	rc := l.rec()
	L := rc.len()
	S := len(l.touched)
	size := l.comm.Size()
	for r := range l.counts {
		l.counts[r] = 0
	}
	l.owner = l.owner[:0]
	l.sendBuf = l.sendBuf[:0]
	for _, k32 := range l.touched {
		k := int(k32)
		o := ownerOf(k, l.n, size)
		l.owner = append(l.owner, int32(o))
		l.counts[o] += L
		if o != l.comm.Rank() {
			continue
		}
		lk := k - l.lo
		l.sendBuf = append(l.sendBuf, l.xRow(k)...)
		l.sendBuf = append(l.sendBuf, l.yRow(k)...)
		l.sendBuf = append(l.sendBuf, l.zRow(k)...)
		l.sendBuf = append(l.sendBuf, l.barRow(k)...)
		l.sendBuf = append(l.sendBuf, l.marg[lk], float64(l.y[lk]), float64(l.ylab[lk]))
		if rc.extra > 0 {
			l.sendBuf = append(l.sendBuf, float64(l.nt.rounds[lk]), l.nt.cNode[lk])
		}
	}
	total := S * L
	if cap(l.gathered) < total {
		l.gathered = make([]float64, total)
		l.recs = make([]float64, total)
	}
	l.gathered, l.recs = l.gathered[:total], l.recs[:total]
	tc := time.Now()
	if err := l.comm.AllgathervFloat64(l.sendBuf, l.counts, l.gathered); err != nil {
		return err
	}
	l.commTime += time.Since(tc)
	l.bytesSent += int64(len(l.sendBuf)) * 8
	// The gathered records come rank after rank, each rank's in slot order:
	// put them in slot order.
	off := mpi.Offsets(l.counts)
	for sl := 0; sl < S; sl++ {
		o := l.owner[sl]
		copy(l.recs[sl*L:(sl+1)*L], l.gathered[off[o]:off[o]+L])
		off[o] += L
	}
	return nil
}

// ownerOf returns the rank owning node k (partition of n over size ranks).
func ownerOf(k, n, size int) int {
	// Blocks of whole words of 64 nodes (partition): find by arithmetic on
	// the word count, then adjust.
	words := (n + 63) / 64
	w := k / 64
	q, m := words/size, words%size
	// Ranks 0..m−1 have q+1 words, the rest q.
	if w < m*(q+1) {
		return w / (q + 1)
	}
	return m + (w-m*(q+1))/q
}

// partition returns rank r's nodes [lo, hi): contiguous blocks of whole
// 64-node words (so that each rank's labels pack into whole words).
func partition(n, size, r int) (lo, hi int) {
	words := (n + 63) / 64
	wl, wh := mpi.Block(words, size, r)
	return min(n, wl*64), min(n, wh*64)
}

// touchedRounds runs the block's touched nodes in event order on the
// gathered records (engine's reducedExec.advance, second half).
func (l *local) touchedRounds(t0 int64, B int) {
	rc := l.rec()
	L := rc.len()
	S := len(l.touched)
	r0 := func(sl int32) []float64 { return l.recs[int(sl)*L : (int(sl)+1)*L] }
	lab := func(sl int32) int32 {
		return l.labelOf(int(l.touched[sl]), r0(sl))
	}
	for sl := 0; sl < S; sl++ {
		v := r0(int32(sl))
		l.s0[sl], l.q[sl] = segment(rc.x(v), rc.y(v), rc.z(v))
		l.W[sl], l.eta[sl], l.mNext[sl] = 0, 0, rc.tail(v)[0]
		l.start[sl] = 0
	}
	tp := &l.tp
	tp.Reset()
	tp.Pos = l.tpos[:S]
	clear(tp.Pos)
	for sl := 0; sl < S; sl++ {
		if v := r0(int32(sl)); lab(int32(sl)) > int32(rc.tail(v)[2]) {
			tp.Add(int32(sl), l.s0[sl], l.q[sl], 0, 0, l.mNext[sl])
		}
	}
	writeTouched := func(sl int32, r int) {
		al, be := l.segAvg(t0, max(1, int(l.start[sl])), r-1)
		v := r0(sl)
		write(rc.x(v), rc.y(v), rc.z(v), rc.bar(v), al, be, l.W[sl], l.eta[sl])
	}
	for r := 1; r <= B; r++ {
		t := t0 + int64(r)
		cf := l.coef[r]
		e := l.bEdges[r-1]
		sl2 := [2]int32{l.slotOf[e[0]], l.slotOf[e[1]]}
		for _, sl := range sl2 {
			if x := int(tp.Pos[sl]) - 1; x >= 0 {
				tp.WriteBack(x, l.W, l.eta, l.mNext)
				tp.Remove(x)
			}
			writeTouched(sl, r)
		}
		vi, vj := r0(sl2[0]), r0(sl2[1])
		// swap y: row, index and label
		yi, yj := rc.y(vi), rc.y(vj)
		for a := range yi {
			yi[a], yj[a] = yj[a], yi[a]
		}
		ti, tj := rc.tail(vi), rc.tail(vj)
		ti[1], tj[1] = tj[1], ti[1]
		ti[2], tj[2] = tj[2], ti[2]
		var m [2]float64
		for x, v := range [2][]float64{vi, vj} {
			m[x] = engine.MarginScaled(rc.x(v), rc.y(v), rc.z(v), cf.cPrev)
		}
		zi, zj := rc.z(vi), rc.z(vj)
		for a := range zi {
			u := (zi[a] + zj[a]) / 2
			zi[a], zj[a] = u, u
		}
		for x, sl := range sl2 {
			v := r0(sl)
			l.s0[sl], l.q[sl] = segment(rc.x(v), rc.y(v), rc.z(v))
			l.W[sl], l.eta[sl], l.mNext[sl] = 0, 0, m[x]
			l.start[sl] = int32(r)
			if lab(sl) > int32(rc.tail(v)[2]) {
				tp.Add(sl, l.s0[sl], l.q[sl], 0, 0, m[x])
			}
		}
		nz, bad := l.packRound(tp, cf, t, true)
		// Every rank runs the touched nodes: rank 0 counts their gradients.
		if l.comm.Rank() == 0 {
			l.nonzero += nz
		}
		l.bad.merge(bad)
	}
	for x := len(tp.M) - 1; x >= 0; x-- {
		tp.WriteBack(x, l.W, l.eta, l.mNext)
		tp.Remove(x)
	}
	cEnd := l.coef[B].c
	for sl := 0; sl < S; sl++ {
		writeTouched(int32(sl), B+1)
		v := r0(int32(sl))
		rc.tail(v)[0] = cEnd * (l.s0[sl] + float64(l.W[sl]*l.q[sl]))
	}
}

// labelOf returns node k's label (the labels of every node are known to
// every rank: labels).
func (l *local) labelOf(k int, _ []float64) int32 { return l.labels.at(k) }
