package engine

import (
	"math"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// The asynchronous fast path (Algorithm 3 on the linear fast path, see
// exec_plain.go): θ_k = c_k·z_k with c_k from node k's own clock, one fused
// pass per endpoint and event (kernel.SyncLinear, kernel.EventPre,
// kernel.EventLogistic; for the logistic loss two events on distinct nodes
// per call, kernel.EventLogisticPairDirect), events run serially in stream
// order, a node's scalars packed in one line (asyncNode) and the records of
// the events ahead prefetched (gossipWindow). The parallel executor
// (exec_asyncpar.go) runs the same events as a dataflow over its workers.

func asyncFits(sh Shape, cfg Config, _ bool) error {
	return reasons(needAlgo(cfg, Async), needLinear(sh))
}

func asyncBytes(sh Shape, cfg Config, _ int) int64 {
	return int64(sh.rows(cfg.Algorithm))*int64(unsafe.Sizeof(asyncNode{})) + int64(2*asyncSerialWindow)*4
}

// eventRunner is an asynchronous executor whose events the parallel
// executor can run: the fast path (asyncExec) and the reference.
type eventRunner interface {
	executor
	// event runs event t on edge (i, j) as worker w; it returns the number
	// of non-zero gradients and the first endpoint that turned non-finite
	// (−1: none). It touches the rows of i and j only.
	event(i, j int, t int64, w int) (nonzero int64, bad int)
	// serialTo runs events in stream order until s.t reaches stop.
	serialTo(stop int64) error
}

// prefetcher is an eventRunner that can ask the memory system ahead for
// what an event will read (the fast path's gossip loop), an optional
// capability the parallel executor checks once: prefetching reports
// whether prefetch is worth calling on this run, prefetch asks for what
// event t on (i, j) will read.
type prefetcher interface {
	prefetching() bool
	prefetch(w, i, j int, t int64)
}

// asyncExec is the serial asynchronous loop of the fast path.
type asyncExec struct {
	s      *state
	cr     *crew
	nd     []asyncNode     // per node: the scalars an event reads, in one line
	ev     []int32         // the serial loop's window of edges
	pfAddr [][]uintptr     // per worker: room for one event's prefetch addresses (prefetchBuffers)
	pfRec  []uintptr       // the byte offsets of the lines it prefetches in a record
	pfOn   bool            // whether it prefetches (the state outgrows the caches)
	sc     []paddedScalars // per worker: the event kernel's scalars

	// The direct path of the logistic gossip event: the kernel without its
	// per-call checks (nil: call kernel.EventLogistic), the records' base
	// and stride in bytes, the byte offsets of y, z and θ̄ in a record and
	// the row length; evLost, set where evl is, the kernel of an exchange a
	// network model lost (kernel.EventLogisticLost; nil: partialEvent).
	evl            func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int)
	evp            kernel.EventLogisticPairFunc // two events at once (nil: none)
	evLost         func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (int, int)
	base           unsafe.Pointer
	rs, yo, zo, bo uintptr
	d              int

	// sqrtNoReg: γ(t) = GammaC/√t and no regulariser (θ = −γ·z), the
	// common case of tickNode, computed inline.
	sqrtNoReg bool
	gammaC    float64
}

// asyncNode is what an event reads and writes of a node besides its rows,
// packed so that it is one cache line of one array (32 bytes, two nodes a
// line) instead of one line in each of six arrays: at n = 10⁶ those were
// as many random misses per endpoint as the node's record itself. c, invP
// and lab are the executor's own (c_k of θ_k = c_k·z_k, 1/p_k, ℓ_k).
// count, and with the gossip estimator y and ylab, are node k's Count[k],
// Y[k] and ylab[k] while the executor runs: the state's copies are brought
// up to date by flush (state.flushAux: before a checkpoint or checksum
// reads them, and at close), and restore reloads these from the state.
// The unbiased estimator keeps y in the state (state.swapY).
type asyncNode struct {
	c     float64
	invP  float64
	count int64
	y     int32
	lab   int16 // AUC labels are ±1 (problem.New checks)
	ylab  int16
}

// paddedScalars keeps workers' event scalars on separate cache lines: the
// event kernel's, and the second event's of the two-event kernel.
type paddedScalars struct {
	kernel.EventScalars
	second kernel.EventScalars
	_      [256 - 2*unsafe.Sizeof(kernel.EventScalars{})]byte
}

func newAsyncExec(s *state, cr *crew) executor {
	nw := len(cr.ws)
	e := &asyncExec{s: s, cr: cr, ev: make([]int32, 2*asyncSerialWindow), sc: make([]paddedScalars, nw)}
	rows := s.rows()
	buf := layout.AlignedFloats(4 * max(rows, 1)) // 64-byte aligned: a node never straddles two lines
	e.nd = unsafe.Slice((*asyncNode)(unsafe.Pointer(unsafe.SliceData(buf))), rows)
	for k := range e.nd {
		l := s.prob.Label[k]
		if int32(int16(l)) != l {
			panic("engine: an AUC label outside ±1")
		}
		e.nd[k].lab, e.nd[k].invP = int16(l), s.invP[k]
	}
	e.restore()
	s.flushAux = e.flush
	e.pfRec = e.recordLines()
	if s.cfg.Estimator == Gossip {
		e.pfOn = int64(s.rows())*int64(s.X.Stride*8+int(unsafe.Sizeof(asyncNode{}))) > asyncGossipPrefetchBytes
	} else {
		e.pfOn = int64(s.rows())*int64(s.X.Stride+s.YX.Stride)*8 > int64(asyncPrefetchBytes)
	}
	e.pfAddr = prefetchBuffers(nw, 2*(len(e.pfRec)+layout.Stride(s.prob.P)/layout.LineFloats+6))
	if s.prob.Loss == problem.AUCLogistic && s.YX.Rows > 0 {
		e.evl = kernel.EventLogisticDirect(s.prob.P)
		if e.evl != nil {
			e.evp = kernel.EventLogisticPairDirect(s.prob.P)
			e.evLost = kernel.EventLogisticLostDirect(s.prob.P)
		}
	}
	x := uintptr(unsafe.Pointer(unsafe.SliceData(s.X.Data)))
	e.base = unsafe.Pointer(unsafe.SliceData(s.X.Data))
	e.rs = uintptr(s.X.Stride * 8)
	if s.YX.Rows > 0 {
		e.yo = uintptr(unsafe.Pointer(unsafe.SliceData(s.YX.Data))) - x
	}
	e.zo = uintptr(unsafe.Pointer(unsafe.SliceData(s.Z.Data))) - x
	e.bo = uintptr(unsafe.Pointer(unsafe.SliceData(s.ThetaBar.Data))) - x
	e.d = s.prob.P
	e.sqrtNoReg = s.cfg.GammaAlpha == 0 && s.prob.Reg.Kind != problem.RegL2Sq
	e.gammaC = s.cfg.GammaC
	return e
}

// advance runs at most one window of events towards stop.
func (e *asyncExec) advance(stop int64) error {
	return e.serialTo(min(stop, e.s.t+int64(asyncSerialWindow)))
}

// event is event t on edge (i, j) with the linear fast path, run by worker
// w.
func (e *asyncExec) event(i, j int, t int64, w int) (nonzero int64, bad int) {
	s := e.s
	if s.cfg.Estimator == Gossip {
		return e.gossipEvent(i, j, &e.sc[w].EventScalars)
	}
	lab := s.prob.Label
	s.swapY(i, j)
	ends := [2]int{i, j}
	var ys [2][]float64
	var ms [2]float64
	var contrib [2]bool
	for x, k := range ends {
		var ly int32
		ys[x], ly = s.auxRow(k, t)
		if contrib[x] = lab[k] > ly; contrib[x] {
			ms[x] = marginScaled(s.X.Row(k), ys[x], s.Z.Row(k), e.nd[k].c)
		}
	}
	s.average(i, j)
	bad = -1
	for x, k := range ends {
		var wt float64
		if contrib[x] {
			wt = s.invP[k] * s.prob.Loss.MarginDeriv(ms[x])
			if wt != 0 {
				nonzero++
			}
		}
		c, a, b := e.tick(k)
		m := kernel.SyncLinear(s.Z.Row(k), s.ThetaBar.Row(k), s.X.Row(k), ys[x], wt, c, a, b)
		if !isFinite(m) && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

// tick advances node k's clock by one activation and returns its new
// scale c (θ_k = c·z_k) and the running-average weights a = 1 − 1/count,
// b = 1/count.
func (e *asyncExec) tick(k int) (c, a, b float64) {
	return e.tickNode(&e.nd[k])
}

// tickNode is tick with nd = &e.nd[k].
func (e *asyncExec) tickNode(nd *asyncNode) (c, a, b float64) {
	if e.sqrtNoReg {
		return e.tickSqrt(nd)
	}
	nd.count++
	cnt := float64(nd.count)
	s, mk := e.s, cnt*nd.invP
	c = s.linearScale(s.gamma(mk), mk)
	nd.c = c
	b = 1 / cnt
	return c, 1 - b, b
}

// tickSqrt is tickNode's common case, γ(t) = c/√t without a regulariser
// (s.linearScale(s.gamma(m_k), m_k) written out), small enough to inline
// where the gossip loop ticks both endpoints of every event.
func (e *asyncExec) tickSqrt(nd *asyncNode) (c, a, b float64) {
	nd.count++
	cnt := float64(nd.count)
	c = -(e.gammaC / math.Sqrt(cnt*nd.invP))
	nd.c = c
	b = 1 / cnt
	return c, 1 - b, b
}

// asyncGossipEvent is asyncFastEvent with the gossip estimator: the swap of
// y, both margins and the averaging of z in one pass (kernel.EventPre), and
// for the logistic loss the whole event in one call (kernel.EventLogistic,
// the exponentials of both endpoints side by side). The generic kernels
// are the arithmetic of the unbiased path above, operation for operation.
// sc is the calling worker's scratch.
func (e *asyncExec) gossipEvent(i, j int, sc *kernel.EventScalars) (nonzero int64, bad int) {
	s := e.s
	e.gossipScalars(i, j, sc)
	if e.evl != nil {
		ri, rj := unsafe.Add(e.base, uintptr(i)*e.rs), unsafe.Add(e.base, uintptr(j)*e.rs)
		nz, mask := e.evl((*float64)(ri), (*float64)(unsafe.Add(ri, e.yo)), (*float64)(unsafe.Add(ri, e.zo)), (*float64)(unsafe.Add(ri, e.bo)),
			(*float64)(rj), (*float64)(unsafe.Add(rj, e.yo)), (*float64)(unsafe.Add(rj, e.zo)), (*float64)(unsafe.Add(rj, e.bo)),
			e.d, &sc.CPrev[0])
		switch {
		case mask&1 != 0:
			return int64(nz), i
		case mask&2 != 0:
			return int64(nz), j
		}
		return int64(nz), -1
	}
	xi, yi, zi, bi := s.X.Row(i), s.YX.Row(i), s.Z.Row(i), s.ThetaBar.Row(i)
	xj, yj, zj, bj := s.X.Row(j), s.YX.Row(j), s.Z.Row(j), s.ThetaBar.Row(j)
	var mask int
	if s.prob.Loss == problem.AUCLogistic {
		var nz int
		nz, mask = kernel.EventLogistic(xi, yi, zi, bi, xj, yj, zj, bj, sc)
		nonzero = int64(nz)
	} else {
		var m [2]float64
		m[0], m[1] = kernel.EventPre(xi, yi, zi, xj, yj, zj, sc.CPrev[0], sc.CPrev[1])
		rows := [2][4][]float64{{zi, bi, xi, yi}, {zj, bj, xj, yj}}
		for x, r := range rows {
			var w float64
			if sc.P[x] != 0 {
				w = sc.P[x] * s.prob.Loss.MarginDeriv(m[x])
				if w != 0 {
					nonzero++
				}
			}
			if m2 := kernel.SyncLinear(r[0], r[1], r[2], r[3], w, sc.C[x], sc.A[x], sc.B[x]); !isFinite(m2) {
				mask |= 1 << x
			}
		}
	}
	switch {
	case mask&1 != 0:
		return nonzero, i
	case mask&2 != 0:
		return nonzero, j
	}
	return nonzero, -1
}

// The serial asynchronous loop draws the edge stream a window ahead (the
// same draws in the same order as the reference executor) and asks the
// memory system for what upcoming events read while earlier ones run: the
// events' random accesses then overlap instead of each waiting its turn.
// The gossip estimator's loop prefetches by groups of events
// (asyncGroup, asyncGroupAhead, gossipWindow); the unbiased estimator's,
// event by event, the rows and scalars of event e + asyncAhead. The results
// are the reference's, bit for bit (prefetching is a hint).
//
// Prefetching is on only when the state outgrows the caches. The gossip
// estimator's loop prefetches when its records and packed scalars outgrow
// one core's L2 (asyncGossipPrefetchBytes; kernel.CacheL2, 1 MiB when the
// CPU does not say): below, every line is an L2 hit, and prefetching
// costs more than it saves; above, it gains, serial and with two workers.
// The unbiased estimator's loop, prefetching event by event the rows and
// scalars of event e + asyncAhead, keeps the threshold of the records' x
// and y rows above asyncPrefetchBytes, where it starts to gain. The
// measurements are in bench/results/engine-tuning.md (bench/RESULTS.md's
// tuning page). The reduced synchronous schedule uses asyncPrefetchBytes too
// (exec_reduced.go). The results are the reference's, bit for bit
// (prefetching is a hint).
var (
	asyncSerialWindow  = 4096
	asyncAhead         = 4
	asyncPrefetchBytes = 16 << 20

	asyncGossipPrefetchBytes = func() int64 {
		if l2 := kernel.CacheL2(); l2 > 0 {
			return int64(l2)
		}
		return 1 << 20
	}()
)

// serialTo runs events until s.t reaches stop.
func (e *asyncExec) serialTo(stop int64) error {
	s, ev := e.s, e.ev
	if s.net != nil {
		return e.netSerialTo(stop) // network.go
	}
	for s.t < stop {
		m := int(min(int64(asyncSerialWindow), stop-s.t))
		s.drawEdges(ev[:2*m])
		t0 := s.t
		if s.cfg.Estimator == Gossip {
			ran, nonzero, bad := e.gossipWindow(ev[:2*m])
			if err := s.endIters(t0, t0+int64(m), 2, nonzero, eventDivergence(t0+int64(ran), bad)); err != nil {
				return err
			}
			continue
		}
		ahead := 0
		if e.pfOn {
			ahead = asyncAhead
		}
		for x := 0; x < min(ahead, m); x++ {
			e.prefetch(0, int(ev[2*x]), int(ev[2*x+1]), t0+1+int64(x))
		}
		var nonzero int64
		for x := 0; x < m; x++ {
			if a := x + ahead; ahead > 0 && a < m {
				e.prefetch(0, int(ev[2*a]), int(ev[2*a+1]), t0+1+int64(a))
			}
			t := t0 + 1 + int64(x)
			nz, bad := e.event(int(ev[2*x]), int(ev[2*x+1]), t, 0)
			nonzero += nz
			if bad >= 0 {
				return s.endIters(t0, t, 2, nonzero, eventDivergence(t, bad))
			}
		}
		if err := s.endIters(t0, t0+int64(m), 2, nonzero, divergence{}); err != nil {
			return err
		}
	}
	return nil
}

// gossipScalars is the scalar part of a gossip event on (i, j): swap y_i
// and y_j (index and label; the rows are swapped by the kernel), fill sc
// (the scales before, the weights' factors, the scales and average weights
// after) and tick both clocks.
func (e *asyncExec) gossipScalars(i, j int, sc *kernel.EventScalars) {
	ni, nj := &e.nd[i], &e.nd[j]
	ni.y, nj.y = nj.y, ni.y
	ni.ylab, nj.ylab = nj.ylab, ni.ylab
	sc.CPrev[0], sc.P[0] = ni.c, 0
	if ni.lab > ni.ylab {
		sc.P[0] = ni.invP
	}
	sc.CPrev[1], sc.P[1] = nj.c, 0
	if nj.lab > nj.ylab {
		sc.P[1] = nj.invP
	}
	if e.sqrtNoReg {
		sc.C[0], sc.A[0], sc.B[0] = e.tickSqrt(ni)
		sc.C[1], sc.A[1], sc.B[1] = e.tickSqrt(nj)
		return
	}
	sc.C[0], sc.A[0], sc.B[0] = e.tickNode(ni)
	sc.C[1], sc.A[1], sc.B[1] = e.tickNode(nj)
}

// gossipPair runs the logistic gossip events on (i, j) and then (k, l),
// four distinct nodes, in one call of the two-event kernel (e.evp); the
// results are those of two gossipEvent calls, bit for bit. It returns each
// event's non-zero gradients and first non-finite endpoint (−1: none).
// Both events always run: when the first diverges, the second's nodes hold
// its update too (its nodes are others; the report is the same).
func (e *asyncExec) gossipPair(i, j, k, l int, ps *paddedScalars) (nz1, nz2 int64, bad1, bad2 int) {
	sc, sc2 := &ps.EventScalars, &ps.second
	e.gossipScalars(i, j, sc)
	e.gossipScalars(k, l, sc2)
	ri, rj := unsafe.Add(e.base, uintptr(i)*e.rs), unsafe.Add(e.base, uintptr(j)*e.rs)
	rk, rl := unsafe.Add(e.base, uintptr(k)*e.rs), unsafe.Add(e.base, uintptr(l)*e.rs)
	nzm, mask := e.evp((*float64)(ri), (*float64)(unsafe.Add(ri, e.yo)), (*float64)(unsafe.Add(ri, e.zo)), (*float64)(unsafe.Add(ri, e.bo)),
		(*float64)(rj), (*float64)(unsafe.Add(rj, e.yo)), (*float64)(unsafe.Add(rj, e.zo)), (*float64)(unsafe.Add(rj, e.bo)),
		(*float64)(rk), (*float64)(unsafe.Add(rk, e.yo)), (*float64)(unsafe.Add(rk, e.zo)), (*float64)(unsafe.Add(rk, e.bo)),
		(*float64)(rl), (*float64)(unsafe.Add(rl, e.yo)), (*float64)(unsafe.Add(rl, e.zo)), (*float64)(unsafe.Add(rl, e.bo)),
		e.d, &sc.CPrev[0], &sc2.CPrev[0])
	nz1, nz2 = int64(nzm&1+nzm>>1&1), int64(nzm>>2&1+nzm>>3&1)
	bad1, bad2 = -1, -1
	switch {
	case mask&1 != 0:
		bad1 = i
	case mask&2 != 0:
		bad1 = j
	}
	switch {
	case mask&4 != 0:
		bad2 = k
	case mask&8 != 0:
		bad2 = l
	}
	return nz1, nz2, bad1, bad2
}

// The gossip estimator's serial loop is software-pipelined: every
// asyncGroup events it prefetches, in one kernel.PrefetchRows call per
// array, everything the events asyncGroupAhead events further on will touch
// (both endpoints' whole records and packed scalars), so that the misses of
// a group of events are in flight together while earlier events compute.
// The window's edges are drawn before it runs, so no prefetch waits on a
// load. Groups of 2 (one call of the two-event kernel) 4 events ahead:
// the fastest of the groups and distances timed at n = 10⁴, and as fast
// as any at 10⁶ (bench/results/engine-tuning.md). bench async
// --ceiling-sweep times the memory traffic alone under other groups and
// distances.
var (
	asyncGroup      = 2
	asyncGroupAhead = 4
)

// gossipWindow runs the gossip events of the edges ev (ev[2x], ev[2x+1])
// in order. It returns how many ran, their non-zero gradients, and the
// first endpoint that turned non-finite (−1: none; then the last event run
// is the diverging one).
func (e *asyncExec) gossipWindow(ev []int32) (ran int, nonzero int64, bad int) {
	m := len(ev) / 2
	g, ahead := 0, 0
	if e.pfOn {
		g, ahead = asyncGroup, asyncGroupAhead
	}
	pf := e.startGroups(ev, g, ahead)
	ps := &e.sc[0]
	for x := 0; x < m; {
		if x >= pf.next {
			e.reachGroups(&pf, ev, x)
		}
		i, j := int(ev[2*x]), int(ev[2*x+1])
		if e.evp != nil && x+1 < m {
			if k, l := int(ev[2*x+2]), int(ev[2*x+3]); k != i && k != j && l != i && l != j {
				nz1, nz2, b1, b2 := e.gossipPair(i, j, k, l, ps)
				nonzero += nz1
				if b1 >= 0 {
					return x + 1, nonzero, b1
				}
				nonzero += nz2
				if b2 >= 0 {
					return x + 2, nonzero, b2
				}
				x += 2
				continue
			}
		}
		nz, b := e.gossipEvent(i, j, &ps.EventScalars)
		nonzero += nz
		if b >= 0 {
			return x + 1, nonzero, b
		}
		x++
	}
	return m, nonzero, -1
}

// groupPrefetch is the serial gossip loop's prefetch schedule over a
// window of events (gossipWindow, and its memory-traffic replay
// ceilingWindow): when the loop reaches the start next of a group, the
// group of g events ahead events further on is prefetched.
type groupPrefetch struct{ g, ahead, next int }

// startGroups returns the schedule of window ev with groups of g events
// prefetched ahead events on (g = 0: none), the first ahead events
// prefetched.
func (e *asyncExec) startGroups(ev []int32, g, ahead int) groupPrefetch {
	m := len(ev) / 2
	if g == 0 {
		return groupPrefetch{g: max(m, 1)} // the next group is past the window
	}
	e.prefetchEvents(ev[:2*min(ahead, m)])
	return groupPrefetch{g: g, ahead: ahead}
}

// reachGroups prefetches the groups of p due once event x of window ev is
// reached: every group start up to x, so a loop that steps two events at
// a time does not fall behind. Callers test x ≥ p.next first (the call is
// not inlined).
func (e *asyncExec) reachGroups(p *groupPrefetch, ev []int32, x int) {
	m := len(ev) / 2
	for x >= p.next {
		if lo := p.next + p.ahead; p.ahead > 0 && lo < m {
			e.prefetchEvents(ev[2*lo : 2*min(lo+p.g, m)])
		}
		p.next += p.g
	}
}

// prefetchEvents prefetches what the gossip events on the nodes idx read
// and write (see asyncGroup): their records and packed scalars.
func (e *asyncExec) prefetchEvents(idx []int32) {
	kernel.PrefetchRows(e.base, idx, int(e.rs), int(e.rs)/64)
	kernel.PrefetchRows(unsafe.Pointer(unsafe.SliceData(e.nd)), idx, int(unsafe.Sizeof(asyncNode{})), 1)
}

func (e *asyncExec) prefetching() bool { return e.pfOn }

// prefetch prefetches what event t on edge (i, j) of the fast path reads:
// each endpoint's x, z and θ̄ rows (the lines listed in pfRec), its
// auxiliary row (the copied y, or the unbiased baseline's draw), its
// packed scalars and, for the unbiased estimator, the state's y entries
// it swaps. w is the calling worker.
func (e *asyncExec) prefetch(w, i, j int, t int64) {
	s := e.s
	a := e.pfAddr[w][:0]
	for _, k := range [2]int{i, j} {
		rec := uintptr(unsafe.Pointer(unsafe.SliceData(s.X.Data))) + uintptr(k*s.X.Stride*8)
		for _, o := range e.pfRec {
			a = append(a, rec+o)
		}
		aux := uintptr(unsafe.Pointer(unsafe.SliceData(s.YX.Data))) + uintptr(k*s.YX.Stride*8)
		if s.cfg.Estimator == Unbiased {
			j := rng.HashIntN(s.cfg.Seed^hashAux, uint64(k), uint64(t), s.prob.N)
			aux = uintptr(unsafe.Pointer(unsafe.SliceData(s.X.Data))) + uintptr(j*s.X.Stride*8)
		}
		for o := uintptr(0); o < uintptr(s.X.Cols*8); o += 64 {
			a = append(a, aux+o)
		}
		a = append(a, uintptr(unsafe.Pointer(&e.nd[k])))
		if s.cfg.Estimator == Unbiased {
			a = append(a, uintptr(unsafe.Pointer(&s.Y[k])), uintptr(unsafe.Pointer(&s.ylab[k])))
		}
	}
	kernel.Prefetch(a)
}

// prefetchBuffers returns per-worker address buffers of capacity c each,
// carved from one 64-byte aligned allocation with every buffer starting on
// its own cache line and a spare line between them: two workers filling
// their buffers on every event must not write to a shared line (with
// adjacent heap objects the parallel executor lost its gain in about half
// the processes: bench/results/engine-tuning.md). The buffers are only
// ever appended to within their capacity; nothing is stored back.
func prefetchBuffers(workers, c int) [][]uintptr {
	const perLine = 64 / int(unsafe.Sizeof(uintptr(0)))
	step := (c+perLine-1)/perLine*perLine + perLine
	raw := make([]uintptr, workers*step+perLine)
	off := 0
	for uintptr(unsafe.Pointer(&raw[off]))%64 != 0 {
		off++
	}
	bufs := make([][]uintptr, workers)
	for w := range bufs {
		lo := off + w*step
		bufs[w] = raw[lo : lo : lo+c]
	}
	return bufs
}

// recordLines returns the byte offsets, from the start of a node's x row,
// of the cache lines of its x, z and θ̄ rows (θ is not read by the fast
// path).
func (e *asyncExec) recordLines() []uintptr {
	s := e.s
	var off []uintptr
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.X.Data)))
	for _, m := range []layout.Matrix{s.X, s.Z, s.ThetaBar} {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data))) - base
		for o := uintptr(0); o < uintptr(m.Cols*8); o += 64 {
			off = append(off, start+o)
		}
	}
	return off
}

// theta sets dst = θ_k = c_k·z_k.
func (e *asyncExec) theta(k int, dst []float64) {
	if !e.heldTheta(k, dst) { // held apart under delays (network.go)
		kernel.Scale(dst, e.s.Z.Row(k), e.nd[k].c)
	}
}

// restore rebuilds the per-node scales from the clocks and reloads the
// mirrored clocks and auxiliary indices from the state.
func (e *asyncExec) restore() {
	s := e.s
	for k, cnt := range s.Count {
		nd := &e.nd[k]
		nd.c, nd.count, nd.y, nd.ylab = 0, cnt, s.Y[k], int16(s.ylab[k])
		if cnt > 0 {
			m := float64(cnt) * s.invP[k]
			nd.c = s.linearScale(s.cfg.Gamma(m), m)
		}
	}
}

// flush copies the clocks, and with the gossip estimator the auxiliary
// indices and labels, that the executor keeps in its packed scalars into
// the state: of the given rows, or of all when rows is nil.
func (e *asyncExec) flush(rows []int) {
	if rows == nil {
		for k := range e.nd {
			e.flushNode(k)
		}
		return
	}
	for _, k := range rows {
		e.flushNode(k)
	}
}

func (e *asyncExec) flushNode(k int) {
	s, nd := e.s, &e.nd[k]
	s.Count[k] = nd.count
	if s.cfg.Estimator == Gossip {
		s.Y[k], s.ylab[k] = nd.y, int32(nd.ylab)
	}
}

func (e *asyncExec) close() { e.flush(nil) }
