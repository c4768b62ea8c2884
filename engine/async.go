package engine

import (
	"sync/atomic"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/hugepage"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// The parallel asynchronous executor.
//
// An asynchronous event touches only the rows of its two endpoints, so two
// events on disjoint node pairs commute exactly. The executor draws a window
// of events from the same seeded edge stream as the serial loop, gives each
// event the level
//
//	level(e) = max(level after the last earlier event on i, … on j)
//
// (so every event comes after all earlier events sharing a node with it),
// and runs the levels in order; the events of one level have pairwise
// disjoint node sets and are split over the worker pool. Every node thus sees
// exactly the operations of the serial loop in the same order, with the same
// event counter t for its clocks and the unbiased baseline's counter-based
// draws: the final state is bit-identical to the serial execution.
//
// Levels too small to pay for a barrier run inline; when a window's levels
// are small on average (a graph with a hub, such as a star, chains most events)
// the executor falls back to the serial loop and probes again later.
//
// Building a window (drawing its edges, leveling, sorting) is serial and
// costs about a third of running its events at n = 10⁶, so it overlaps the
// previous window: while the workers run the first pooled level of window
// k, worker 0 builds window k+1 (its events come after all of window k's
// in the edge stream; building reads no state), then joins the level.
// Within a level the workers take chunks of events from a shared counter,
// so whoever is free runs the next chunk; which worker runs an event does
// not change its result. A window is only built ahead when it ends before
// the caller's stop, so no drawn-but-unrun event outlives asyncAdvance
// (checkpoints save the edge stream's state).

// asyncWindow is one window of events: the edges, each event's level, the
// events sorted by level (stable) and each level's start.
type asyncWindow struct {
	m      int   // events
	t0     int64 // iterations done before the window
	levels int32
	ev     []int32 // edge of event e: ev[2e], ev[2e+1]
	lvl    []int32
	order  []int32
	start  []int32 // level l: order[start[l]:start[l+1]]
}

// asyncPar holds the executor's buffers, allocated once.
type asyncPar struct {
	pool     *pool
	window   int // events per window
	minLevel int // levels with fewer events run inline
	win      [2]*asyncWindow
	k        int  // win[k] is the current window
	ahead    bool // win[1−k] is built and comes next
	// mark[k] = gen<<32 | the level after node k's last event, for nodes
	// that an event of window gen touched (one random access per node).
	mark   []uint64
	gen    uint32
	nz     []int64    // per worker non-zero gradients
	bad    []badEvent // per worker first divergence
	serial int        // windows left to run serially (adaptive fallback)
	// parLevels counts the levels run on the pool (for tests and benchmarks).
	parLevels int64

	// the level being run, read by the workers
	cur    []int32
	curWin *asyncWindow
	cursor atomic.Int64                // next unclaimed event of cur
	build  int                         // events of the window worker 0 builds first (0: none)
	fn     func(w int, r layout.Range) // bound once to the Sim's asyncLevel
}

type badEvent struct {
	t    int64
	node int
}

// Window, level and fallback parameters (tests shrink them).
var (
	asyncMinNodes    = 4096 // below this the serial loop is used
	asyncMinLevel    = 256
	asyncMaxWindow   = 1 << 15
	asyncSerialProbe = 16  // windows run serially after an unprofitable one
	asyncChunk       = 256 // events a worker claims at a time
)

func newAsyncPar(n, workers int, cpus []int) *asyncPar {
	a := &asyncPar{
		window:   max(asyncMinLevel, min(asyncMaxWindow, n/2)),
		minLevel: asyncMinLevel,
		mark:     make([]uint64, n),
	}
	hugepage.Advise(a.mark)
	for i := range a.win {
		a.win[i] = &asyncWindow{
			ev: make([]int32, 2*a.window), lvl: make([]int32, a.window),
			order: make([]int32, a.window), start: make([]int32, a.window+2),
		}
	}
	shards := make([]layout.Range, workers)
	for w := range shards {
		shards[w] = layout.Range{Lo: w, Hi: w + 1}
	}
	a.pool = newPool(shards, cpus)
	a.nz = make([]int64, workers)
	a.bad = make([]badEvent, workers)
	return a
}

// buildWindow draws the next m edges of the stream into w and levels them.
func (s *Sim) buildWindow(w *asyncWindow, m int, t0 int64) {
	a := s.apar
	w.m, w.t0 = m, t0
	for e := 0; e < m; e++ {
		i, j := s.drawEdge()
		w.ev[2*e], w.ev[2*e+1] = int32(i), int32(j)
	}
	a.gen++
	if a.gen == 0 {
		clear(a.mark)
		a.gen = 1
	}
	g := uint64(a.gen) << 32
	levels := int32(0)
	for e := 0; e < m; e++ {
		i, j := w.ev[2*e], w.ev[2*e+1]
		var li, lj int32
		if mi := a.mark[i]; mi&^0xffffffff == g {
			li = int32(uint32(mi))
		}
		if mj := a.mark[j]; mj&^0xffffffff == g {
			lj = int32(uint32(mj))
		}
		l := max(li, lj)
		w.lvl[e] = l
		a.mark[i], a.mark[j] = g|uint64(l+1), g|uint64(l+1)
		levels = max(levels, l+1)
	}
	w.levels = levels
	// Counting sort of the events by level (stable: t increases within a level).
	st := w.start[:levels+1]
	clear(st)
	for e := 0; e < m; e++ {
		st[w.lvl[e]+1]++
	}
	for l := int32(1); l <= levels; l++ {
		st[l] += st[l-1]
	}
	for e := 0; e < m; e++ {
		l := w.lvl[e]
		w.order[st[l]] = int32(e)
		st[l]++
	}
	// st[l] now holds the end of level l; shift back to starts.
	for l := levels; l > 0; l-- {
		st[l] = st[l-1]
	}
	st[0] = 0
	w.start[levels] = int32(m)
}

// asyncAdvance runs events until s.t reaches stop.
func (s *Sim) asyncAdvance(stop int64) error {
	a := s.apar
	for s.t < stop {
		var w *asyncWindow
		if a.ahead {
			a.k, a.ahead = 1-a.k, false
			w = a.win[a.k]
		} else {
			m := int(min(int64(a.window), stop-s.t))
			if a.serial > 0 || m < a.minLevel {
				if a.serial > 0 {
					a.serial--
				}
				if err := s.serialEvents(s.t + int64(m)); err != nil {
					return err
				}
				continue
			}
			w = a.win[a.k]
			s.buildWindow(w, m, s.t)
		}
		// The next window is built during this one if it fits before stop
		// and this one is not to be followed by serial windows.
		a.build = 0
		if next := int(min(int64(a.window), stop-(w.t0+int64(w.m)))); next >= a.minLevel && a.serial == 0 {
			a.build = next
		}
		planned := a.build > 0
		if err := s.runWindow(w); err != nil {
			a.ahead, a.build = false, 0
			return err
		}
		if a.build > 0 { // no level went to the pool: build it now
			s.buildWindow(a.win[1-a.k], a.build, w.t0+int64(w.m))
			a.build = 0
		}
		a.ahead = planned
		if a.serial > 0 && a.ahead {
			// The fallback chose serial windows, but the next one is drawn:
			// run it in stream order.
			a.k, a.ahead = 1-a.k, false
			if err := s.runWindowSerially(a.win[a.k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// runWindow runs window w's levels in order and advances s.t past it.
func (s *Sim) runWindow(w *asyncWindow) error {
	a := s.apar
	t0 := w.t0
	s.thetaStale = s.fast
	var nonzero int64
	first := badEvent{t: -1}
	for l := int32(0); l < w.levels; l++ {
		evs := w.order[w.start[l]:w.start[l+1]]
		if len(evs) < a.minLevel || first.t >= 0 {
			for _, e := range evs {
				t := t0 + 1 + int64(e)
				if first.t >= 0 && t >= first.t {
					continue // after the divergence: the serial loop never ran it
				}
				nz, bad := s.asyncEvent(int(w.ev[2*e]), int(w.ev[2*e+1]), t, 0)
				nonzero += nz
				if bad >= 0 && (first.t < 0 || t < first.t) {
					first = badEvent{t, bad}
				}
			}
			continue
		}
		a.cur, a.curWin = evs, w
		a.cursor.Store(0)
		a.parLevels++
		a.pool.run(a.fn)
		for k := range a.nz {
			nonzero += a.nz[k]
			a.nz[k] = 0
			if b := a.bad[k]; b.t > 0 && (first.t < 0 || b.t < first.t) {
				first = b
			}
			a.bad[k] = badEvent{}
		}
	}
	if first.t >= 0 {
		s.t = first.t
		s.syncTheta()
		return &DivergenceError{Iter: first.t, Node: first.node, Field: fieldOf(s.Z.Row(first.node), s.Theta.Row(first.node))}
	}
	s.t = t0 + int64(w.m)
	s.gradEvals += 2 * int64(w.m)
	s.nonzero += nonzero
	// Adaptive fallback: levels averaging under two barriers' worth of work.
	if int(w.levels)*2*a.minLevel > w.m {
		a.serial = asyncSerialProbe
	}
	return nil
}

// runWindowSerially runs window w's events in stream order.
func (s *Sim) runWindowSerially(w *asyncWindow) error {
	s.thetaStale = s.fast
	for e := 0; e < w.m; e++ {
		t := w.t0 + 1 + int64(e)
		nz, bad := s.asyncEvent(int(w.ev[2*e]), int(w.ev[2*e+1]), t, 0)
		s.gradEvals += 2
		s.nonzero += nz
		if bad >= 0 {
			s.t = t
			s.syncTheta()
			return &DivergenceError{Iter: t, Node: bad, Field: fieldOf(s.Z.Row(bad), s.Theta.Row(bad))}
		}
	}
	s.t = w.t0 + int64(w.m)
	return nil
}

// asyncLevel is worker w's part of the current level: worker 0 first
// builds the next window if one is pending, then every worker claims
// chunks of events until none is left.
func (s *Sim) asyncLevel(w int) {
	a := s.apar
	if w == 0 && a.build > 0 {
		cur := a.win[a.k]
		s.buildWindow(a.win[1-a.k], a.build, cur.t0+int64(cur.m))
		a.build = 0
	}
	win := a.curWin
	n := int64(len(a.cur))
	ahead := 0
	if s.pfOn {
		ahead = asyncAhead
	}
	var nz int64
	for {
		lo := a.cursor.Add(int64(asyncChunk)) - int64(asyncChunk)
		if lo >= n {
			break
		}
		evs := a.cur[lo:min(n, lo+int64(asyncChunk))]
		for x := 0; x < min(ahead, len(evs)); x++ {
			e := evs[x]
			s.prefetchEvent(w, int(win.ev[2*e]), int(win.ev[2*e+1]), win.t0+1+int64(e))
		}
		for x, e := range evs {
			if y := x + ahead; ahead > 0 && y < len(evs) {
				f := evs[y]
				s.prefetchEvent(w, int(win.ev[2*f]), int(win.ev[2*f+1]), win.t0+1+int64(f))
			}
			t := win.t0 + 1 + int64(e)
			c, bad := s.asyncEvent(int(win.ev[2*e]), int(win.ev[2*e+1]), t, w)
			nz += c
			if bad >= 0 && (a.bad[w].t == 0 || t < a.bad[w].t) {
				a.bad[w] = badEvent{t, bad}
			}
		}
	}
	a.nz[w] += nz
}

// serialEvents runs events (or rounds) until s.t reaches stop: the
// asynchronous fast path through asyncSerial, everything else through Step.
func (s *Sim) serialEvents(stop int64) error {
	if s.fast && s.cfg.Algorithm == Async {
		return s.asyncSerial(stop)
	}
	for s.t < stop {
		if err := s.Step(); err != nil {
			return err
		}
	}
	return nil
}

// The serial asynchronous loop draws the edge stream a window ahead (the
// same draws in the same order as Step) and, while it runs event e, asks
// the memory system for the rows and per-node scalars of event e + ahead:
// the events' random accesses then overlap instead of each waiting its
// turn. The results are those of Step, bit for bit (prefetching is a hint).
//
// Prefetching costs about a third of an event whose rows are already in
// cache, so it is on only when the state outgrows the caches: above
// asyncPrefetchBytes of node records (bench async, serial events per
// second on this 2-core EPYC: n = 10³ and 10⁴ the same or faster without,
// n = 10⁵ 1.6–2.5 M without and 2.2–2.8 M with, n = 10⁶ 1.5 M without and
// 2.0 M with 4 events ahead, 1.8 M with 8, 1.2 M with 16).
var (
	asyncSerialWindow  = 4096
	asyncAhead         = 4
	asyncPrefetchBytes = 16 << 20
)

// asyncSerial runs asynchronous fast-path events until s.t reaches stop.
func (s *Sim) asyncSerial(stop int64) error {
	ev := s.serEv
	for s.t < stop {
		m := int(min(int64(asyncSerialWindow), stop-s.t))
		for e := 0; e < m; e++ {
			i, j := s.drawEdge()
			ev[2*e], ev[2*e+1] = int32(i), int32(j)
		}
		t0 := s.t
		ahead := 0
		if s.pfOn {
			ahead = asyncAhead
		}
		for e := 0; e < min(ahead, m); e++ {
			s.prefetchEvent(0, int(ev[2*e]), int(ev[2*e+1]), t0+1+int64(e))
		}
		s.thetaStale = true
		var nonzero int64
		for e := 0; e < m; e++ {
			if a := e + ahead; ahead > 0 && a < m {
				s.prefetchEvent(0, int(ev[2*a]), int(ev[2*a+1]), t0+1+int64(a))
			}
			t := t0 + 1 + int64(e)
			nz, bad := s.asyncFastEvent(int(ev[2*e]), int(ev[2*e+1]), t, 0)
			nonzero += nz
			if bad >= 0 {
				s.t = t
				s.gradEvals += 2 * int64(e+1)
				s.nonzero += nonzero
				s.syncTheta()
				return &DivergenceError{Iter: t, Node: bad, Field: fieldOf(s.Z.Row(bad), s.Theta.Row(bad))}
			}
		}
		s.t = t0 + int64(m)
		s.gradEvals += 2 * int64(m)
		s.nonzero += nonzero
	}
	return nil
}

// prefetchEvent prefetches what event t on edge (i, j) of the fast path
// reads: each endpoint's x, z and θ̄ rows (the lines listed in pfRec), its
// auxiliary row (the copied y, or the unbiased baseline's draw) and its
// per-node scalars. w is the calling worker.
func (s *Sim) prefetchEvent(w, i, j int, t int64) {
	a := s.pfAddr[w][:0]
	for _, k := range [2]int{i, j} {
		rec := uintptr(unsafe.Pointer(unsafe.SliceData(s.X.Data))) + uintptr(k*s.X.Stride*8)
		for _, o := range s.pfRec {
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
		a = append(a, uintptr(unsafe.Pointer(&s.Y[k])), uintptr(unsafe.Pointer(&s.ylab[k])),
			uintptr(unsafe.Pointer(&s.prob.Label[k])), uintptr(unsafe.Pointer(&s.Count[k])),
			uintptr(unsafe.Pointer(&s.ck[k])), uintptr(unsafe.Pointer(&s.invP[k])))
	}
	kernel.Prefetch(a)
}

// prefetchBuffers returns per-worker address buffers of capacity c each,
// carved from one 64-byte aligned allocation with every buffer starting on
// its own cache line and a spare line between them: two workers filling
// their buffers on every event must not write to a shared line (measured:
// with adjacent heap objects the parallel executor at n = 10⁶ ran at the
// serial loop's speed in about half the processes). The buffers are only
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
func (s *Sim) recordLines() []uintptr {
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
