package engine

import (
	"unsafe"

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

// asyncPar holds the executor's buffers, allocated once.
type asyncPar struct {
	pool     *pool
	window   int // events per window
	minLevel int // levels with fewer events run inline
	ev       []int32
	lvl      []int32
	last     []int32 // per node: the level after its last event in this window
	stamp    []uint32
	gen      uint32
	order    []int32
	start    []int32
	nz       []int64    // per worker non-zero gradients
	bad      []badEvent // per worker first divergence
	serial   int        // windows left to run serially (adaptive fallback)
	// parLevels counts the levels run on the pool (for tests and benchmarks).
	parLevels int64

	// the level being run, read by the workers
	cur   []int32
	curT0 int64
	fn    func(w int, r layout.Range) // bound once to the Sim's asyncLevel
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
	asyncSerialProbe = 16 // windows run serially after an unprofitable one
)

func newAsyncPar(n, workers int) *asyncPar {
	a := &asyncPar{
		window:   max(asyncMinLevel, min(asyncMaxWindow, n/2)),
		minLevel: asyncMinLevel,
		last:     make([]int32, n),
		stamp:    make([]uint32, n),
	}
	a.ev = make([]int32, 2*a.window)
	a.lvl = make([]int32, a.window)
	a.order = make([]int32, a.window)
	a.start = make([]int32, a.window+2)
	shards := make([]layout.Range, workers)
	for w := range shards {
		shards[w] = layout.Range{Lo: w, Hi: w + 1}
	}
	a.pool = newPool(shards)
	a.nz = make([]int64, workers)
	a.bad = make([]badEvent, workers)
	return a
}

// asyncAdvance runs events until s.t reaches stop, at most one window.
func (s *Sim) asyncAdvance(stop int64) error {
	a := s.apar
	m := int(min(int64(a.window), stop-s.t))
	if a.serial > 0 || m < a.minLevel {
		if a.serial > 0 {
			a.serial--
		}
		return s.serialEvents(s.t + int64(m))
	}
	t0 := s.t
	s.thetaStale = s.fast
	// Draw the window from the edge stream, in serial order.
	for e := 0; e < m; e++ {
		i, j := s.drawEdge()
		a.ev[2*e], a.ev[2*e+1] = int32(i), int32(j)
	}
	// Levels.
	a.gen++
	if a.gen == 0 {
		clear(a.stamp)
		a.gen = 1
	}
	levels := int32(0)
	for e := 0; e < m; e++ {
		i, j := a.ev[2*e], a.ev[2*e+1]
		var li, lj int32
		if a.stamp[i] == a.gen {
			li = a.last[i]
		}
		if a.stamp[j] == a.gen {
			lj = a.last[j]
		}
		l := max(li, lj)
		a.lvl[e] = l
		a.last[i], a.last[j] = l+1, l+1
		a.stamp[i], a.stamp[j] = a.gen, a.gen
		levels = max(levels, l+1)
	}
	// Counting sort of the events by level (stable: t increases within a level).
	st := a.start[:levels+1]
	clear(st)
	for e := 0; e < m; e++ {
		st[a.lvl[e]+1]++
	}
	for l := int32(1); l <= levels; l++ {
		st[l] += st[l-1]
	}
	for e := 0; e < m; e++ {
		l := a.lvl[e]
		a.order[st[l]] = int32(e)
		st[l]++
	}
	// st[l] now holds the end of level l; shift back to starts.
	for l := levels; l > 0; l-- {
		st[l] = st[l-1]
	}
	st[0] = 0

	var nonzero int64
	first := badEvent{t: -1}
	for l := int32(0); l < levels; l++ {
		end := int32(m)
		if l+1 < levels {
			end = st[l+1]
		}
		evs := a.order[st[l]:end]
		if len(evs) < a.minLevel || first.t >= 0 {
			for _, e := range evs {
				t := t0 + 1 + int64(e)
				if first.t >= 0 && t >= first.t {
					continue // after the divergence: the serial loop never ran it
				}
				nz, bad := s.asyncEvent(int(a.ev[2*e]), int(a.ev[2*e+1]), t, 0)
				nonzero += nz
				if bad >= 0 && (first.t < 0 || t < first.t) {
					first = badEvent{t, bad}
				}
			}
			continue
		}
		a.cur, a.curT0 = evs, t0
		a.parLevels++
		a.pool.run(a.fn)
		for w := range a.nz {
			nonzero += a.nz[w]
			a.nz[w] = 0
			if b := a.bad[w]; b.t > 0 && (first.t < 0 || b.t < first.t) {
				first = b
			}
			a.bad[w] = badEvent{}
		}
	}
	if first.t >= 0 {
		s.t = first.t
		s.syncTheta()
		return &DivergenceError{Iter: first.t, Node: first.node, Field: fieldOf(s.Z.Row(first.node), s.Theta.Row(first.node))}
	}
	s.t = t0 + int64(m)
	s.gradEvals += 2 * int64(m)
	s.nonzero += nonzero
	// Adaptive fallback: levels averaging under two barriers' worth of work.
	if int(levels)*2*a.minLevel > m {
		a.serial = asyncSerialProbe
	}
	return nil
}

// asyncLevel runs worker w's share of the current level.
func (s *Sim) asyncLevel(w int) {
	a := s.apar
	n := len(a.cur)
	ws := a.pool.size()
	lo, hi := w*n/ws, (w+1)*n/ws
	var nz int64
	for _, e := range a.cur[lo:hi] {
		t := a.curT0 + 1 + int64(e)
		c, bad := s.asyncEvent(int(a.ev[2*e]), int(a.ev[2*e+1]), t, w)
		nz += c
		if bad >= 0 && a.bad[w].t == 0 {
			a.bad[w] = badEvent{t, bad}
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
			s.prefetchEvent(int(ev[2*e]), int(ev[2*e+1]), t0+1+int64(e))
		}
		s.thetaStale = true
		var nonzero int64
		for e := 0; e < m; e++ {
			if a := e + ahead; ahead > 0 && a < m {
				s.prefetchEvent(int(ev[2*a]), int(ev[2*a+1]), t0+1+int64(a))
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
// per-node scalars.
func (s *Sim) prefetchEvent(i, j int, t int64) {
	a := s.pfAddr[:0]
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
	s.pfAddr = a
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
