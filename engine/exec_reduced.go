package engine

import (
	"io"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/kernel"
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
// nothing per round. So a block of B rounds costs one pass over the records
// (s₀ and q, the scalars advanced in packs, z and θ̄ written back) plus, per
// round, a few scalar operations for the contributing nodes only. The
// touched nodes are materialised at their touches and restart a segment, in
// event order; before its first touch and after its last a touched node
// depends on nobody, so those rounds run in the parallel passes (shard,
// tail) and only the touches, and the nodes between two touches, are
// serial (advance); with the pool, a touch that is both endpoints' only
// one in the block runs in a parallel pass of its own (indepTouches). Small problems run the same operations as one loop over
// the rounds (blockSmall).
// In real arithmetic this is the algorithm exactly; in floating point it
// agrees with the plain schedule to rounding (tested: 1e-9 relative on θ̄).

// reducedMinPoolWork is poolMinWork for the reduced AUC schedule, whose
// blocks keep a serial part (the touched nodes, in event order): below it
// a round runs on the caller alone. It is where 2 workers start to beat 1;
// to find it on a machine, compare the time a round of
// `bench sync --n N --d 16 --schedule reduced --workers W --json` for
// W = 1 and 2 over n from 4096 to 65 536.
var reducedMinPoolWork = 1 << 18

func reducedFits(sh Shape, cfg Config, _ bool) error {
	return reasons(needAlgo(cfg, Sync), needGossip(cfg), needLinear(sh), reducedNetFit(cfg))
}

func reducedBytes(sh Shape, cfg Config, workers int) int64 {
	n, B := int64(sh.N), int64(redpack.Rounds(sh.N))
	// A slot index a node; per touched node (at most 2B) 5 float64, its
	// segment start, first and last touch, a tail entry and a pack
	// position; per worker a pack of reducedChunk nodes and its share of
	// the touched ones, and a pack of touched nodes (tail); the event
	// loop's pack (a pack entry: an index, 5 float64, a flag); the
	// independent touches' rounds.
	// A small problem's nodes by kind (blockSmall), 4 lists of n, and the
	// list of the records written at a block's end with their 4 scalars.
	const entry = 4 + 5*8 + 1
	var kinds int64
	if sh.N <= reducedSmall {
		kinds = 4*n*4 + n*(4+4*8)
	}
	return linearSyncBytes(sh, cfg) + syncBlockBytes(sh.N, int(B)) + n*4 + 2*B*(5*8+5*4) +
		int64(max(1, workers))*(int64(reducedPackCap(sh.N))+4*B)*entry + 2*B*entry + B*4 + kinds +
		netReducedBytes(sh, cfg, workers)
}

// reducedChunk is the number of untouched contributing nodes a worker
// advances side by side through a block (a pack run): their five scalars
// (44 bytes a node) stay in the core's L1 cache for the B rounds. A run is
// the unit of the pass's work that cannot be shared, so it also bounds how
// unevenly the workers finish the pass: runs of a few hundred nodes keep
// the workers' finishing times close, and the kernel's time a node and
// round is lowest at 256 and 512 (BenchmarkLogisticRound; the figures are
// in bench/results/engine-tuning.md). (A variable so that tests can make
// the runs small.)
var reducedChunk = 512

// reducedSmall is the largest problem whose blocks run as one loop over the
// rounds (blockSmall) when the pass would not use the pool: every untouched
// contributing node in one pack.
const reducedSmall = 4096

// reducedPackCap is the capacity of a worker's pack on n nodes: a run of
// untouched nodes, or a small problem's every node, and the touched ones
// (at most 2B) that join it.
func reducedPackCap(n int) int {
	c := reducedChunk
	if n <= reducedSmall {
		c = max(c, n)
	}
	return c + 2*redpack.Rounds(n)
}

// reducedExec is the reduced AUC schedule.
type reducedExec struct {
	*linearSync
	bl     *syncBlock
	rs     *reducedState
	fn     func(w int, r layout.Range, tk *task) // shard, bound once
	tailFn func(w int, r layout.Range, tk *task) // tail, bound once
	pack   []redpack.Pack                        // per worker: a chunk of contributing nodes
	tpack  []redpack.Pack                        // per worker: its touched nodes' segments before their first and after their last touch
	stride int                                   // workers taking part in the block's passes
	shOver func(w int, r layout.Range, tk *task) // shardOverlap, bound once
	indFn  func(w int, r layout.Range, tk *task) // indepTouches, bound once
	claim  atomic.Int64                          // the next untouched node to claim (shardOverlap)
	// evNonzero is the non-zero gradients of the event loop that
	// shardOverlap's worker 0 ran.
	evNonzero int64
	pf        [][]uintptr // per worker: the addresses prefetchTouch asks for
	pfOn      bool        // the records outgrow the caches: prefetch
	kinds     []int32     // blockSmall's nodes by kind, 4 lists of n (kindsOf)
	// The records blockSmall writes at a block's end, and their α, β, W, η
	// (kernel.WriteRecords).
	endNodes []int32
	endSc    []float64
	// Under a network model (network_reduced.go): its block state and
	// netShard, bound once.
	nr    *netRed
	netFn func(w int, r layout.Range, tk *task)
}

// reducedPrefetchAhead is how many items (touches, or nodes of the tail)
// ahead the loops of a large problem ask for the rows of the node or nodes
// they will read (a touch then finds its rows in cache instead of waiting
// on ~16 misses in turn); the per-node entries, among them the y index that
// the y row's address needs, are asked for twice as far ahead (early), so
// that building the y row's address does not itself wait on a miss.
const reducedPrefetchAhead = 8

// pfNode appends to pf the addresses of what a touch or a tail write of
// node k reads: with early, the rows x, z and θ̄ and the per-node entries
// (its slot, labels, y index, next margin); else the y row, as Y[k] names
// it now (a swap in between only makes the hint miss).
func (e *reducedExec) pfNode(pf []uintptr, k int, early bool) []uintptr {
	s := e.s
	lines := min(4, (s.prob.P*8+63)/64)
	row := func(p unsafe.Pointer) {
		for l := range lines {
			pf = append(pf, uintptr(p)+uintptr(l*64))
		}
	}
	if !early {
		row(e.rowY(k))
		return pf
	}
	row(e.rowX(k))
	row(rowAt(&s.Z, k))
	row(rowAt(&s.ThetaBar, k))
	return append(pf, uintptr(unsafe.Pointer(&e.rs.slot[k])), uintptr(unsafe.Pointer(&s.Y[k])),
		uintptr(unsafe.Pointer(&s.ylab[k])), uintptr(unsafe.Pointer(&s.prob.Label[k])),
		uintptr(unsafe.Pointer(&e.marg[k])))
}

// prefetchTouch asks for what round r's touch will read (pfNode, both
// endpoints), worker w building the addresses in its own buffer (the event
// loop runs on worker 0).
func (e *reducedExec) prefetchTouch(w, r int, early bool) {
	pf := e.pf[w][:0]
	for _, k := range e.bl.edges[r-1] {
		pf = e.pfNode(pf, int(k), early)
	}
	kernel.Prefetch(pf)
	e.pf[w] = pf
}

// pfStart and pfAhead are the prefetch schedule of the event loop, the
// independent touches and the tail's writes, over n items: ask(i, early)
// asks for what item i will read, its rows and per-node entries 2D items
// ahead (early) and its y rows D ahead (D = reducedPrefetchAhead).
// pfStart, before the first item, asks for the first 2D early and the
// first D not; pfAhead, before item q, for items q + 2D and q + D.
func pfStart(n int, ask func(i int, early bool)) {
	for i := range min(n, 2*reducedPrefetchAhead) {
		ask(i, true)
	}
	for i := range min(n, reducedPrefetchAhead) {
		ask(i, false)
	}
}

func pfAhead(q, n int, ask func(i int, early bool)) {
	if i := q + 2*reducedPrefetchAhead; i < n {
		ask(i, true)
	}
	if i := q + reducedPrefetchAhead; i < n {
		ask(i, false)
	}
}

// prefetchTail asks for what the tail's write of node k will read (pfNode).
func (e *reducedExec) prefetchTail(w, k int, early bool) {
	pf := e.pfNode(e.pf[w][:0], k, early)
	kernel.Prefetch(pf)
	e.pf[w] = pf
}

func newReducedExec(s *state, cr *crew) executor {
	B := redpack.Rounds(s.rows())
	e := &reducedExec{linearSync: newLinearSync(s, cr), bl: newSyncBlock(s.rows(), B), rs: newReducedState(s.rows(), B)}
	e.fn, e.tailFn, e.shOver, e.indFn = e.shard, e.tail, e.shardOverlap, e.indepTouches
	e.pf = make([][]uintptr, len(cr.ws))
	for w := range e.pf {
		e.pf[w] = make([]uintptr, 0, 2*(3*4+5))
	}
	e.pfOn = int64(s.rows())*int64(s.Z.Stride+s.ThetaBar.Stride)*8 > int64(asyncPrefetchBytes)
	if s.rows() <= reducedSmall {
		e.kinds = make([]int32, 4*s.rows())
		e.endNodes, e.endSc = make([]int32, 0, s.rows()), make([]float64, 0, 4*s.rows())
	}
	if s.net != nil {
		e.nr, e.netFn = newNetRed(s, len(cr.ws), B), e.netShard
	}
	e.pack = make([]redpack.Pack, len(cr.ws))
	e.tpack = make([]redpack.Pack, len(cr.ws))
	for w := range e.pack {
		e.pack[w] = redpack.New(reducedPackCap(s.rows()))
		e.tpack[w] = redpack.New(2 * B)
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
	// indep lists the block's rounds whose edge is its endpoints' only
	// touch in the block, in round order, when the pool runs
	// the block's passes (else it is empty). Such a touch reads and writes
	// its two endpoints only, after their advance to it and before their
	// tail: the event loop skips it and the workers run these touches side
	// by side (indepTouches).
	indep []int32
	// cSum[r] = c_1 + … + c_r over the block's rounds: the running average
	// of a segment is θ̄ = α θ̄⁰ + β z⁰ + η δ with, since a_t = 1 − 1/t
	// telescopes, α = (t_first − 1)/t_last and β = (Σ c over the segment's
	// rounds)/t_last (segAvg).
	cSum              []float64
	alphaEnd, betaEnd float64 // α, β of a segment that spans the block
	// The contributing touched nodes between two of their touches, packed
	// (in the order their segments started); tp.Act holds slots,
	// tpos[slot] = 1 + its index in tp.
	tp   redpack.Pack
	tpos []int32
}

func newReducedState(n, maxB int) *reducedState {
	f := func() []float64 { return make([]float64, 2*maxB) }
	i := func() []int32 { return make([]int32, 2*maxB) }
	return &reducedState{
		slot: make([]int32, n),
		s0:   f(), q: f(), W: f(), eta: f(), mNext: f(), start: i(), first: i(), last: i(),
		tail:  make([]int32, 0, 2*maxB),
		indep: make([]int32, 0, maxB),
		cSum:  make([]float64, maxB+1),
		tp:    redpack.New(2 * maxB),
		tpos:  i(),
	}
}

// segment returns s₀ = δᵀz and q = δᵀδ of node k from its record's current
// z and y, δ = x_k − y_k.
func (e *reducedExec) segment(k int) (s0, q float64) {
	return redpack.Segment(e.rowX(k), e.rowY(k), rowAt(&e.s.Z, k), e.s.prob.P)
}

// The rows of the per-node loops, by address: the loops run over P
// elements of rows the layout guarantees, without the bounds checks of
// layout.Matrix.Row (issue #18: ~10% of the paper-size round).

// rowAt is the address of row k of m (0 ≤ k < m.Rows).
func rowAt(m *layout.Matrix, k int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.Data)), uintptr(k)*uintptr(m.Stride)*8)
}

// at is element a of the row at p.
func at(p unsafe.Pointer, a uintptr) float64 { return *(*float64)(unsafe.Add(p, a*8)) }

// set stores v as element a of the row at p.
func set(p unsafe.Pointer, a uintptr, v float64) { *(*float64)(unsafe.Add(p, a*8)) = v }

// rowX is x_k's row; rowY is y_k's (state.yRow): the row of X that Y[k]
// names, since the reduced schedule's compact state copies no y rows (YX is
// empty; see the block-end write below).
func (e *reducedExec) rowX(k int) unsafe.Pointer { return rowAt(&e.s.X, k) }
func (e *reducedExec) rowY(k int) unsafe.Pointer { return rowAt(&e.s.X, int(e.s.Y[k])) }

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
	redpack.Write(e.rowX(k), e.rowY(k), rowAt(&e.s.Z, k), rowAt(&e.s.ThetaBar, k), e.s.prob.P, al, be, W, eta)
}

// segAvg returns α and β of the running average over rounds first..last of
// the block (redpack.SegAvg).
func (e *reducedExec) segAvg(first, last int) (alpha, beta float64) {
	return redpack.SegAvg(e.bl.t0, e.rs.cSum, first, last)
}

// kindsOf sorts the nodes of a small block by kind, in increasing order
// within each: in the returned list, from 0, the untouched nodes that do not
// contribute (only θ̄ moves), from n the untouched contributing ones (they
// join the pack), from 2n and 3n the touched ones; cnt counts each kind.
// It sorts without a branch: the kinds fall at random, and a branch a node
// would mispredict often enough to keep each node's work from overlapping
// the next's.
func (e *reducedExec) kindsOf() (kinds []int32, cnt [4]int) {
	s, bl := e.s, e.bl
	N := s.prob.N
	kinds = e.kinds // 4N entries: N ≤ reducedSmall (newReducedExec)
	lab, ylab, stamp := s.prob.Label[:N], s.ylab[:N], bl.stamp[:N]
	for k := range N {
		c := b2i(lab[k] > ylab[k]) | b2i(stamp[k] == bl.gen)<<1
		kinds[c*N+cnt[c]] = int32(k)
		cnt[c]++
	}
	return kinds, cnt
}

// b2i is 1 for true, 0 for false (without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeTouched writes touched node k (slot sl) at the start of round r
// (r = B+1: the end of the block): its segment began with the block or at
// its last restart.
func (e *reducedExec) writeTouched(sl int32, k, r int) {
	rs := e.rs
	al, be := e.segAvg(max(1, int(rs.start[sl])), r-1)
	e.write(k, al, be, rs.W[sl], rs.eta[sl])
}

// touch is round r's edge (i, j) on its endpoints' records, in two passes
// over their rows: each endpoint is written at the end of its segment
// (writeTouched: rounds up to r − 1); then y_i and y_j are swapped, each
// endpoint's margin at θ = c_{r−1}·z is taken (marginScaled), z_i and z_j
// are averaged (state.average) and each endpoint's segment restarts at r
// from the averaged z (segStart). Every value is computed with the
// operations, and every sum in the order, of those functions; only the
// independent sums now overlap. (One pass holds more values than the
// registers do: its spills cost more than the second pass's loads.)
func (e *reducedExec) touch(r, i, j int, cPrev float64) {
	s, rs := e.s, e.rs
	si, sj := rs.slot[i], rs.slot[j]
	ali, bei := e.segAvg(max(1, int(rs.start[si])), r-1)
	alj, bej := e.segAvg(max(1, int(rs.start[sj])), r-1)
	Wi, ei, Wj, ej := rs.W[si], rs.eta[si], rs.W[sj], rs.eta[sj]
	xi, yi, zi, bi := e.rowX(i), e.rowY(i), rowAt(&s.Z, i), rowAt(&s.ThetaBar, i)
	xj, yj, zj, bj := e.rowX(j), e.rowY(j), rowAt(&s.Z, j), rowAt(&s.ThetaBar, j)
	P := uintptr(s.prob.P)
	// The segments so far, with the old auxiliary points, written into z
	// and θ̄; then, after the swap (i holds y_j and j holds y_i), the
	// margins, the average and the new segments' sums.
	for a := range P {
		di, dj := at(xi, a)-at(yi, a), at(xj, a)-at(yj, a)
		zia, zja := at(zi, a), at(zj, a)
		set(bi, a, float64(ali*at(bi, a))+float64(bei*zia)+float64(ei*di))
		set(zi, a, zia+float64(Wi*di))
		set(bj, a, float64(alj*at(bj, a))+float64(bej*zja)+float64(ej*dj))
		set(zj, a, zja+float64(Wj*dj))
	}
	var mi, mj, s0i, s0j, qi, qj float64
	for a := range P {
		ni, nj := at(xi, a)-at(yj, a), at(xj, a)-at(yi, a)
		zia, zja := at(zi, a), at(zj, a)
		mi += float64(ni * (cPrev * zia))
		mj += float64(nj * (cPrev * zja))
		v := (zia + zja) / 2
		set(zi, a, v)
		set(zj, a, v)
		s0i += float64(ni * v)
		qi += float64(ni * ni)
		s0j += float64(nj * v)
		qj += float64(nj * nj)
	}
	s.swapY(i, j)
	rs.s0[si], rs.q[si], rs.W[si], rs.eta[si], rs.mNext[si], rs.start[si] = s0i, qi, 0, 0, mi, int32(r)
	rs.s0[sj], rs.q[sj], rs.W[sj], rs.eta[sj], rs.mNext[sj], rs.start[sj] = s0j, qj, 0, 0, mj, int32(r)
}

// shard is the block's pass over the nodes of a shard (when the pass runs
// on the caller alone; shardOverlap when the pool runs it). The touched
// nodes are skipped there: worker w advances its share of them to their
// first touch with its last pack (runPack, addPre). An untouched node that
// does not contribute (ℓ_k ≤ ℓ_y: W = η = 0) is materialised at once; the
// contributing ones are packed, reducedChunk at a time, advanced B rounds
// side by side (so that the nodes' independent recurrences overlap: node by
// node each round would wait for the previous round's exponential) and
// materialised. One pass over the records a block.
func (e *reducedExec) shard(w int, rg layout.Range, _ *task) {
	p := &e.pack[w]
	nz := e.untouched(w, rg.Lo, rg.Hi, p)
	nz += e.runPack(w, p, e.stride)
	e.cr.nz[w] += nz
}

// reducedClaim is the number of nodes a worker claims at a time in the
// overlapped pass (shardOverlap): 64 KiB of a record column at d = 16.
const reducedClaim = 4096

// shardOverlap is the block's first pass when the pool runs it: worker 0
// (the caller) advances every touched node to its first touch and then
// runs the touches in event order (eventLoop) while the other workers
// advance the untouched nodes, which no touch reads or writes; then it
// joins them. The untouched nodes are claimed reducedClaim at a time from
// a shared counter, so whoever is free takes the next; which worker
// advances a node, and beside which others, changes none of its bits.
func (e *reducedExec) shardOverlap(w int, _ layout.Range, _ *task) {
	var nz int64
	if w == 0 {
		// Worker 0 is the caller: its marks split the pass. The touched
		// nodes' pre-advance and the event loop count as serial (in wall
		// and CPU time) as if they were not overlapped, so that the Amdahl
		// figures of bench sync stay an upper bound.
		sw := &e.cr.sw
		sw.lap(PhaseParallel, PhasePass) // the pool's start
		nz += e.runPack(0, &e.tpack[0], 1)
		e.evNonzero = e.eventLoop()
		sw.lap(PhaseSerial, PhasePass, PhaseEventLoop)
	}
	p := &e.pack[w]
	N := e.s.prob.N
	for {
		lo := int(e.claim.Add(reducedClaim)) - reducedClaim
		if lo >= N {
			break
		}
		nz += e.untouched(w, lo, min(N, lo+reducedClaim), p)
	}
	nz += e.runPack(w, p, 0)
	e.cr.nz[w] += nz
}

// untouched advances the untouched nodes among lo … hi − 1 through the
// block: the contributing ones join p (run when it holds reducedChunk), the
// others have only θ̄ to move.
func (e *reducedExec) untouched(w, lo, hi int, p *redpack.Pack) (nz int64) {
	s, bl, rs := e.s, e.bl, e.rs
	lab := s.prob.Label
	for k := lo; k < hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue // touched: addPre, eventLoop, tail
		}
		if lab[k] <= s.ylab[k] {
			// Not contributing: W = η = 0 for the whole block, z stays;
			// only θ̄ moves. Its margin is read by nobody until a touch
			// recomputes it (margins, for checkpoints, writes it).
			redpack.Average(rowAt(&s.Z, k), rowAt(&s.ThetaBar, k), s.prob.P, rs.alphaEnd, rs.betaEnd)
			continue
		}
		s0, q := e.segment(k)
		p.Add(int32(k), s0, q, 0, 0, e.marg[k])
		if len(p.Act) == reducedChunk {
			nz += e.runPack(w, p, 0)
		}
	}
	return nz
}

// margins sets the next margin of every node that does not contribute
// (ℓ_k ≤ ℓ_y), which the schedule leaves unset (shard), to c·δᵀz as it
// would have been set: z has not moved since.
func (e *reducedExec) margins() {
	s := e.s
	if s.t == 0 {
		return
	}
	lab := s.prob.Label
	for k := range s.prob.N {
		if lab[k] <= s.ylab[k] {
			s0, _ := e.segment(k)
			c := e.cPrev
			if s.nx != nil && s.nx.cNode != nil {
				c = s.nx.cNode[k] // under churn, the c of node k's last step
			}
			e.marg[k] = c * s0
		}
	}
}

// writeSaved writes the margins of a checkpoint (linearSync.writeSaved),
// those of the non-contributing nodes first set.
func (e *reducedExec) writeSaved(w io.Writer, fc *floatCodec) error {
	e.margins()
	return e.linearSync.writeSaved(w, fc)
}

// addPre starts the segments of worker w's share of the touched nodes
// (slots w, w + stride, …) at the block's start and appends to p the
// contributing ones first touched after round 1, by decreasing first
// touch: their rounds before it depend on no other node, and at round r
// those still to advance (first touched after r) follow p's untouched
// nodes as a prefix (runPack). A node that does not contribute has W = η = 0
// up to its touch and needs nothing more.
func (e *reducedExec) addPre(w, st int, p *redpack.Pack) {
	bl, rs, s := e.bl, e.rs, e.s
	lab := s.prob.Label
	T := len(bl.touched)
	if w >= T {
		return
	}
	for sl := w + (T-1-w)/st*st; sl >= 0; sl -= st {
		k := int(bl.touched[sl])
		m := e.marg[k]
		if lab[k] <= s.ylab[k] {
			rs.W[sl], rs.eta[sl], rs.mNext[sl] = 0, 0, m
			continue
		}
		e.segStart(int32(sl), k, m)
		if rs.first[sl] > 1 {
			p.Add(int32(sl), rs.s0[sl], rs.q[sl], 0, 0, m)
		}
	}
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
			p.Add(sl, rs.s0[sl], rs.q[sl], 0, 0, rs.mNext[sl])
		}
	}
	var nz int64
	if len(p.Act) > 0 {
		cnt := 0
		for r := int(rs.start[p.Act[0]]); r <= B; r++ {
			for cnt < len(p.Act) && int(rs.start[p.Act[cnt]]) <= r {
				cnt++
			}
			nz += e.packRound(w, p, cnt, bl.coef[r], bl.t0+int64(r))
		}
	}
	e.packDone(p)
	cEnd := bl.coef[B].c
	// The writes read each node's rows, cold by now: asked for ahead as
	// the touches' are (pfAhead over this worker's nodes).
	mine := 0
	if w < len(rs.tail) {
		mine = (len(rs.tail) - w + st - 1) / st
	}
	ask := func(q int, early bool) { e.prefetchTail(w, int(bl.touched[rs.tail[w+q*st]]), early) }
	if e.pfOn {
		pfStart(mine, ask)
	}
	for q, i := 0, w; i < len(rs.tail); q, i = q+1, i+st {
		if e.pfOn {
			pfAhead(q, mine, ask)
		}
		sl := rs.tail[i]
		k := int(bl.touched[sl])
		e.writeTouched(sl, k, B+1)
		e.marg[k] = cEnd * (rs.s0[sl] + float64(rs.W[sl]*rs.q[sl]))
	}
	e.cr.nz[w] += nz
}

// indepTouches runs worker w's share of the block's independent touches
// (rs.indep: rounds whose edge is both endpoints' only touch), a contiguous
// run of them so that the workers write apart in the slots (which follow
// the first touches), prefetching reducedPrefetchAhead touches ahead. It
// runs after the event loop and the endpoints' advance to their touch and
// before the tail; a touch reads and writes its two endpoints only, so
// which worker runs it, and when, changes none of its bits.
func (e *reducedExec) indepTouches(w int, _ layout.Range, _ *task) {
	bl, rs := e.bl, e.rs
	n, st := len(rs.indep), e.stride
	ind := rs.indep[w*n/st : (w+1)*n/st]
	ask := func(q int, early bool) { e.prefetchTouch(w, int(ind[q]), early) }
	if e.pfOn {
		pfStart(len(ind), ask)
	}
	for q, r32 := range ind {
		if e.pfOn {
			pfAhead(q, len(ind), ask)
		}
		r := int(r32)
		e.touch(r, int(bl.edges[r-1][0]), int(bl.edges[r-1][1]), bl.coef[r].cPrev)
	}
}

// packDone stores the W, η and next margin of every entry of a pack of
// touched nodes into its slot (but for those packRound froze at a
// divergence, which it stored then) and empties it.
func (e *reducedExec) packDone(p *redpack.Pack) {
	for i := range p.Act {
		if !p.Dead[i] {
			p.WriteBack(i, e.rs.W, e.rs.eta, e.rs.mNext)
		}
	}
	p.Reset()
}

// runPack advances the untouched contributing nodes of p through the block
// and, with preStride > 0, worker w's share of the touched ones (slots w,
// w + preStride, …) up to their first touch (addPre),
// side by side; it materialises the untouched ones, stores the touched
// ones' scalars in their slots and empties p.
func (e *reducedExec) runPack(w int, p *redpack.Pack, preStride int) (nz int64) {
	bl, rs := e.bl, e.rs
	nu := len(p.Act)
	if preStride > 0 {
		e.addPre(w, preStride, p)
	}
	p.Nu = nu
	cnt := len(p.Act)
	for r := 1; r <= bl.rounds; r++ {
		for cnt > nu && int(rs.first[p.Act[cnt-1]]) <= r {
			cnt--
		}
		if cnt == 0 {
			break
		}
		nz += e.packRound(w, p, cnt, bl.coef[r], bl.t0+int64(r))
	}
	for i := nu - 1; i >= 0; i-- {
		if !p.Dead[i] {
			e.finish(p, i)
		}
	}
	for i := nu; i < len(p.Act); i++ {
		if !p.Dead[i] {
			p.WriteBack(i, rs.W, rs.eta, rs.mNext)
		}
	}
	p.Reset()
	return nz
}

// finish materialises entry i of an untouched pack at the end of the block.
func (e *reducedExec) finish(p *redpack.Pack, i int) {
	rs, k := e.rs, int(p.Act[i])
	e.write(k, rs.alphaEnd, rs.betaEnd, p.W[i], p.Eta[i])
	e.marg[k] = e.bl.coef[e.bl.rounds].c * (p.S0[i] + float64(p.W[i]*p.Q[i]))
}

// A pack (redpack.Pack) holds contributing nodes: the entries before Nu
// are untouched nodes (Act: node indices), the others touched nodes (Act:
// slots). With Pos (the event loop's pack, blockSmall's) a pack is advanced
// whole, and a touched entry leaves it by Remove; without Pos, a pack may
// be advanced over a prefix and keeps its entries in place. Dead marks the
// entries frozen at a divergence (packDiverged).

// packRound advances the first n nodes of pack p through round t
// (coefficients cf): g = φ'(m), W += g, η = a·η + (c/t)·W, m = c·(s₀ + W·q),
// all nodes side by side. It returns the number of non-zero gradients. A
// node whose margin turns non-finite stops there, as node by node it would:
// the round is recorded for worker w and the node is written back (a
// touched node into its slot; an untouched one into its record); it leaves
// the pack, or in a pack advanced over prefixes (p.Dead) is marked frozen.
func (e *reducedExec) packRound(w int, p *redpack.Pack, n int, cf roundCoef, t int64) (nz int64) {
	nz, fin := p.Round(e.s.prob.Loss, n, cf.c, cf.a, cf.b*cf.c)
	if !fin {
		e.packDiverged(w, p, n, t)
	}
	return nz
}

// packDiverged handles the non-finite margins among the first n entries of
// p after round t (packRound): an untouched node is written into its
// record, a touched one into its slot; it is frozen there (dead), or leaves
// a pack with pos.
func (e *reducedExec) packDiverged(w int, p *redpack.Pack, n int, t int64) {
	for i := 0; i < n; i++ {
		if redpack.Finite(p.M[i]) || p.Dead[i] {
			continue
		}
		if i < p.Nu {
			e.cr.bad[w].note(t, int(p.Act[i]), "z (dual variable)")
			e.finish(p, i)
			p.Dead[i] = true
			continue
		}
		e.cr.bad[w].note(t, int(e.bl.touched[p.Act[i]]), "z (dual variable)")
		p.WriteBack(i, e.rs.W, e.rs.eta, e.rs.mNext)
		if p.Pos != nil {
			p.Remove(i)
			i--
			n--
		} else {
			p.Dead[i] = true
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
	s, bl, rs, sw := e.s, e.bl, e.rs, &e.cr.sw
	if s.net != nil {
		return e.netAdvance(stop) // network_reduced.go
	}
	big := s.prob.N*s.prob.P >= reducedMinPoolWork
	if big {
		// The caller's thread CPU time at the phase marks (Profile), on
		// large blocks only (a few system calls a block).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	sw.start(big)
	defer sw.lap(PhaseSerial)
	B := bl.begin(e.linearSync, stop, nil)
	sw.prof.Touches += int64(B)
	for sl, k := range bl.touched {
		rs.slot[k] = int32(sl)
		rs.start[sl] = 0
	}
	for r := 1; r <= B; r++ {
		rs.cSum[r] = rs.cSum[r-1] + bl.coef[r].c
	}
	rs.alphaEnd, rs.betaEnd = e.segAvg(1, B)
	if !big && s.prob.N <= reducedSmall {
		// blockSmall follows the touched nodes through the pack's
		// positions (Pos), not their first and last touches.
		return e.endBlock(e.blockSmall())
	}
	for _, k := range bl.touched {
		rs.first[rs.slot[k]] = 0
	}
	for r := 1; r <= B; r++ {
		for _, k := range bl.edges[r-1] {
			sl := rs.slot[k]
			if rs.first[sl] == 0 {
				rs.first[sl] = int32(r)
			}
			rs.last[sl] = int32(r)
		}
	}
	e.stride = 1
	if e.cr.pool != nil && big {
		e.stride = e.cr.pool.size()
	}
	// The rounds whose edge is both endpoints' only touch: the workers run
	// them side by side (indepTouches) instead of the event loop, when
	// there are workers to share them.
	rs.indep = rs.indep[:0]
	if e.stride > 1 {
		for r := 1; r <= B; r++ {
			si, sj := rs.slot[bl.edges[r-1][0]], rs.slot[bl.edges[r-1][1]]
			if r32 := int32(r); rs.first[si] == r32 && rs.last[si] == r32 && rs.first[sj] == r32 && rs.last[sj] == r32 {
				rs.indep = append(rs.indep, r32)
			}
		}
	}
	sw.lap(PhaseSerial, PhaseSetup)
	var nonzero int64
	if e.stride > 1 {
		// The pool's pass, the serial work overlapped (shardOverlap, whose
		// worker 0 marks the serial part).
		e.claim.Store(0)
		e.evNonzero = 0
		e.cr.pass(true, e.shOver, task{}, s.prob.N, PhasePass)
		nonzero = e.evNonzero
	} else {
		e.cr.pass(big, e.fn, task{}, s.prob.N, PhasePass)
		nonzero = e.eventLoop()
		// The event loop counts as serial, its pass as one with it.
		sw.lap(PhaseSerial, PhasePass, PhaseEventLoop)
	}
	if len(rs.indep) > 0 {
		e.cr.pass(true, e.indFn, task{}, s.prob.N, PhaseIndependent)
		sw.prof.ParallelTouches += int64(len(rs.indep))
	}
	e.cr.pass(big, e.tailFn, task{}, s.prob.N, PhaseTail)
	return e.endBlock(nonzero)
}

// eventLoop runs the block's touches in event order and returns the
// non-zero gradients it counted. The contributing touched nodes between
// two touches advance packed, the others have W = η = 0 and need nothing
// per round; a touch writes the node back, materialises it and restarts its
// segment. A node's last touch sends it to the tail pass.
func (e *reducedExec) eventLoop() (nonzero int64) {
	s, bl, rs := e.s, e.bl, e.rs
	B := bl.rounds
	lab := s.prob.Label
	tp := &rs.tp
	tp.Pos = rs.tpos
	rs.tail = rs.tail[:0]
	// The independent rounds (rs.indep, increasing) are found by walking
	// the list beside the rounds: q at round r, qe and qa at the rounds
	// prefetched (pfAhead: early and not), whose independent ones are
	// skipped (indepTouches asks for them).
	ind := rs.indep
	q, qa, qe := 0, 0, 0
	ask := func(x int, early bool) {
		qx := &qa
		if early {
			qx = &qe
		}
		ra := x + 1 // item x is round x + 1
		for *qx < len(ind) && int(ind[*qx]) < ra {
			*qx++
		}
		if *qx == len(ind) || int(ind[*qx]) != ra {
			e.prefetchTouch(0, ra, early)
		}
	}
	if e.pfOn {
		pfStart(B, ask)
	}
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		cf := bl.coef[r]
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		if e.pfOn {
			pfAhead(r-1, B, ask)
		}
		if q < len(ind) && int(ind[q]) == r {
			q++
			// Its touch is indepTouches': both endpoints end the
			// block from it (their last touch).
			rs.tail = append(rs.tail, rs.slot[i], rs.slot[j])
			if len(tp.M) > 0 {
				nonzero += e.packRound(0, tp, len(tp.M), cf, t)
			}
			continue
		}
		for _, k := range [2]int{i, j} {
			if x := int(tp.Pos[rs.slot[k]]) - 1; x >= 0 {
				tp.WriteBack(x, rs.W, rs.eta, rs.mNext)
				tp.Remove(x)
			}
		}
		e.touch(r, i, j, cf.cPrev)
		for _, k := range [2]int{i, j} {
			sl := rs.slot[k]
			switch {
			case int(rs.last[sl]) == r:
				rs.tail = append(rs.tail, sl)
			case lab[k] > s.ylab[k]:
				tp.Add(sl, rs.s0[sl], rs.q[sl], 0, 0, rs.mNext[sl])
			}
		}
		if len(tp.M) > 0 {
			nonzero += e.packRound(0, tp, len(tp.M), cf, t)
		}
	}
	// Every node in tp is touched again: tp is empty here.
	return nonzero
}

// endBlock ends a block whose touched nodes counted nonzero non-zero
// gradients: the workers' counts, the first divergence, the clock.
func (e *reducedExec) endBlock(nonzero int64) error {
	s, bl := e.s, e.bl
	B := bl.rounds
	nz, first := e.cr.workers()
	e.cPrev = bl.coef[B].c
	if first.found() {
		first.field = "z (dual variable)"
	}
	return s.endIters(bl.t0, bl.t0+int64(B), int64(s.prob.N), nonzero+nz, first)
}

// blockSmall runs a block of a small problem (on the caller alone, every
// untouched contributing node in one pack) as one loop over the rounds:
// each round, the touches in event order, then one kernel call advances
// the untouched contributing nodes and the touched ones side by side (the
// parallel passes' split costs a call a round each, which at the paper's
// size, n = 699, is most of the kernel's time). Every node sees the
// arithmetic of the parallel form in the same order. The nodes are sorted
// by kind first (kindsOf); the non-contributing untouched ones move θ̄ in
// one kernel call (kernel.AverageRecords), and the other records are
// written at the end in one (kernel.WriteRecords: finish's and
// writeTouched's writes), their rows found by index.
func (e *reducedExec) blockSmall() (nonzero int64) {
	s, bl, rs := e.s, e.bl, e.rs
	lab := s.prob.Label
	p := &e.pack[0]
	al, be := rs.alphaEnd, rs.betaEnd
	N := s.prob.N
	kinds, cnt := e.kindsOf()
	kernel.AverageRecords(s.Z.Data, s.ThetaBar.Data, s.Z.Stride, s.prob.P, kinds[:cnt[0]], al, be)
	for _, k := range kinds[N : N+cnt[1]] {
		s0, q := e.segment(int(k))
		p.Add(k, s0, q, 0, 0, e.marg[k])
	}
	p.Nu, p.Pos = len(p.Act), rs.tpos
	for _, k := range kinds[2*N : 2*N+cnt[2]] {
		sl := rs.slot[k]
		rs.W[sl], rs.eta[sl], rs.mNext[sl] = 0, 0, e.marg[k]
	}
	for _, k := range kinds[3*N : 3*N+cnt[3]] {
		sl, m := rs.slot[k], e.marg[k]
		e.segStart(sl, int(k), m)
		p.Add(sl, rs.s0[sl], rs.q[sl], 0, 0, m)
	}
	B := bl.rounds
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		cf := bl.coef[r]
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		for _, k := range [2]int{i, j} {
			if x := int(p.Pos[rs.slot[k]]) - 1; x >= 0 {
				p.WriteBack(x, rs.W, rs.eta, rs.mNext)
				p.Remove(x)
			}
		}
		e.touch(r, i, j, cf.cPrev)
		for _, k := range [2]int{i, j} {
			if sl := rs.slot[k]; lab[k] > s.ylab[k] {
				p.Add(sl, rs.s0[sl], rs.q[sl], 0, 0, rs.mNext[sl])
			}
		}
		if len(p.M) > 0 {
			nonzero += e.packRound(0, p, len(p.M), cf, t)
		}
	}
	// The records, in one kernel call (finish's and writeTouched's writes;
	// an untouched node frozen at a divergence was written then).
	cEnd := bl.coef[B].c
	nodes, sc := e.endNodes[:0], e.endSc[:0]
	for i := range p.Nu {
		if !p.Dead[i] {
			k := p.Act[i]
			nodes, sc = append(nodes, k), append(sc, al, be, p.W[i], p.Eta[i])
			e.marg[k] = cEnd * (p.S0[i] + float64(p.W[i]*p.Q[i]))
		}
	}
	for i := p.Nu; i < len(p.Act); i++ {
		p.WriteBack(i, rs.W, rs.eta, rs.mNext)
		p.Pos[p.Act[i]] = 0
	}
	p.Pos = nil
	p.Reset()
	for sl, k := range bl.touched {
		alk, bek := e.segAvg(max(1, int(rs.start[sl])), B)
		nodes, sc = append(nodes, k), append(sc, alk, bek, rs.W[sl], rs.eta[sl])
		e.marg[k] = cEnd * (rs.s0[sl] + float64(rs.W[sl]*rs.q[sl]))
	}
	e.endNodes, e.endSc = nodes, sc
	// The reduced schedule's state is compact (executors table) with a row
	// a node (synchronous): no copy of y, y_k is row Y[k] of X.
	kernel.WriteRecords(s.X.Data, s.X.Stride, s.Y, s.Z.Data, s.ThetaBar.Data, s.Z.Stride, s.prob.P, nodes, sc)
	return nonzero
}
