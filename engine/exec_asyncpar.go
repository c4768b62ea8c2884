package engine

import (
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/hugepage"
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
//
// The gossip fast path's events run by the dataflow schedule instead of
// levels (flowWorker, below): the same windows, built ahead the same way,
// with one barrier a window.
//
// Under a network model (docs/networks.md) a window is drawn as the serial
// loop draws it: state.activations decides each iteration's edge, churn at
// its endpoints and its deliveries, in order of t, and counts them; an
// iteration with an offline endpoint or no edge is idle and changes
// nothing, so it is dropped before the levelling, and the others keep
// their iteration t (asyncWindow.it) and flags. That serial deciding (a
// churn cursor is a cache miss at n = 10⁶) bounds the run on many workers,
// so from asyncLateDecide workers on the builder draws only the activated
// edges (state.edgesAhead) and each event is decided by the worker that
// runs it (decide), after its nodes' earlier events, so that a node's
// cursor still moves in order of t; an event found idle then does nothing,
// and endWindow counts the window's flags in order of t (bench/RESULTS.md,
// "Deciding a window's events"). A live event runs as the serial loop's
// network event (netEventer: 1/p_k of t's phase, a partial delivery
// without the swap). Delays (an arrival changes a node outside its
// events), adaptive pickers (an edge depends on the state) and an edge
// sink run on the serial loop instead (parallelNet).

// asyncWindow is one window of events: the edges, each event's level, the
// events sorted by level (stable) and each level's start. Under a network
// model the window covers iters iterations, of which the m events that
// are live (or, decided late, that activate an edge); it[e] is event e's
// iteration within the window and fl[e] its flags (decided late: once a
// worker decided it, 0 before).
type asyncWindow struct {
	m      int   // events
	iters  int   // iterations covered (m without a network model)
	t0     int64 // iterations done before the window
	levels int32
	ev     []int32 // edge of event e: ev[2e], ev[2e+1]
	lvl    []int32
	order  []int32
	start  []int32 // level l: order[start[l]:start[l+1]]
	// dep[2e], dep[2e+1]: the last earlier event of the window on event
	// e's first and second node (−1: none), for the dataflow schedule.
	dep []int32
	// Under a network model (nil otherwise): event e's iteration t0+1+it[e]
	// and its flags (decide).
	it []int32
	fl []uint8
}

// tOf returns the iteration of event e.
func (w *asyncWindow) tOf(e int) int64 {
	if w.it != nil {
		return w.t0 + 1 + int64(w.it[e])
	}
	return w.t0 + 1 + int64(e)
}

// end returns the iteration the window ends at.
func (w *asyncWindow) end() int64 { return w.t0 + int64(w.iters) }

// asyncParExec is the parallel executor over an asynchronous executor's
// events; its buffers are allocated once.
type asyncParExec struct {
	eventRunner // the events, the serial loop, materialize and checkpoints
	s           *state
	pool        *pool
	window      int // events per window
	minLevel    int // levels with fewer events run inline
	win         [2]*asyncWindow
	k           int  // win[k] is the current window
	ahead       bool // win[1−k] is built and comes next
	// mark[k] = gen<<32 | the level after node k's last event, for nodes
	// that an event of window gen touched (one random access per node).
	mark []uint64
	gen  uint32
	// tab replaces mark for the dataflow schedule's dependencies when the
	// marks would not stay in the caches (dependTable): the window's nodes
	// by open addressing, an entry tgen<<48 | event<<32 | node, tgen the
	// window's 16-bit generation (stale entries are empty slots).
	tab    []uint64
	tgen   uint16
	nz     []int64      // per worker non-zero gradients
	bad    []divergence // per worker first divergence
	serial int          // windows left to run serially (adaptive fallback)
	// parLevels counts the levels run on the pool (for tests and benchmarks).
	parLevels int64
	chunk     int // events a worker claims at a time

	// gossip is the fast path's gossip loop when it runs the events (by
	// the dataflow schedule; nil: levels): a worker prefetches by groups of
	// events (asyncExec.prefetchEvents) through its gather buffer gbuf[w].
	gossip *asyncExec
	// pf prefetches for the levels' events (nil: the runner does not, or
	// not for this run's size).
	pf   prefetcher
	gbuf [][]int32

	// The dataflow schedule of the gossip loop (flowWorker): chunks of
	// 1<<fsh events, each chunk's progress on its own cache line, and per
	// worker the chunks it claimed in the current window.
	fsh   uint
	prog  []flowProgress // per worker: 1 + the last event it ran (window index)
	owner []atomic.Int32 // per chunk: the worker that claimed it (−1: none yet)
	seen  [][]int64      // per worker: the others' progress as it last read it
	owned [][]int32
	stop  flowProgress // the earliest event of the window that diverged (MaxInt64: none)

	// net runs an event under the run's network model (nil: the paper's
	// network); multiPhase: 1/p_k change with t (setInvP at each event).
	net        netEventer
	multiPhase bool
	churn      bool // the model has churn: decide reads the endpoints' cursors
	// late: the workers decide each event as they run it (from
	// asyncLateDecide workers on); otherwise buildWindow decides them.
	late bool
	// lastDecided and backward: checkOrder's (nil unless checkDecideOrder).
	lastDecided []int64
	backward    atomic.Int64
	// buildErr is the error of drawing a window ahead (returned before it
	// would run).
	buildErr error

	cursor atomic.Int64                          // next unclaimed event of the level being run
	build  int                                   // events of the window worker 0 builds first (0: none)
	fn     func(w int, r layout.Range, tk *task) // level, bound once
}

// Window, level and fallback parameters (tests shrink them).
var (
	asyncMinNodes = 4096 // below this the serial loop is used
	// asyncLateDecide: under a network model the workers decide the events
	// (decide) from this many workers on; below, the builder does, in order
	// of t, and drops the idle ones before the levelling (bench/RESULTS.md,
	// "Deciding a window's events": better on 2 workers; "Network faults on
	// 16 cores, deciding late": better from 4 on). Tests lower it to run
	// both; bench async --decide-from sets it (lab.AsyncLateDecide).
	asyncLateDecide  = 4
	asyncMinLevel    = 256
	asyncMaxWindow   = 1 << 15
	asyncSerialProbe = 16   // windows run serially after an unprofitable one
	asyncChunk       = 256  // events a worker claims at a time
	asyncFlowChunk   = 0    // events a worker claims at a time, dataflow schedule (0: flowChunk's choice)
	asyncFlowMinPar  = 32   // the dataflow schedule falls back to the serial loop below this many events a level
	asyncFlowSpin    = 1024 // polls of a dependency before a waiting worker yields its CPU between polls
	asyncFlowYields  = 64   // polls with a yield before it sleeps asyncFlowSleep between polls
	asyncFlowSleep   = 20 * time.Microsecond
	// asyncDependTableAbove: the dataflow schedule finds dependencies in a
	// table of the window's nodes (dependTable) above this many nodes
	// (−1: above the table's length, where a mark per node would be
	// larger than the table).
	asyncDependTableAbove = -1
)

// asyncParBytes bounds the executor's memory: the marks (a word a node;
// for the gossip fast path's dataflow schedule on more nodes than its
// dependency table holds, the table instead), and two windows of events of
// 20 bytes each (the levels' windows of up to n/2 events, the dataflow's
// of asyncMaxWindow events), 5 more under a network model (net: an event's
// iteration and flags).
func asyncParBytes(rows int, flow, net bool) int64 {
	w := int64(max(asyncMinLevel, asyncMaxWindow))
	marks := int64(rows) * 8
	if flow && useDependTable(rows, int(w)) {
		marks = int64(dependTableLen(int(w))) * 8
	}
	per := int64(2*4 + 3*4)
	if net {
		per += 4 + 1
	}
	return marks + 2*w*per
}

// useDependTable reports whether the dataflow schedule on rows nodes with
// windows of w events finds its dependencies in dependTable's table: above
// asyncDependTableAbove nodes (−1: above the table's length, where a mark
// per node would be larger than the table), and while a window's event
// index fits the table entry's 16 bits.
func useDependTable(rows, w int) bool {
	above := asyncDependTableAbove
	if above < 0 {
		above = dependTableLen(w)
	}
	return w <= 1<<16 && rows > above
}

// dependTableLen is the length of dependTable's table for windows of w
// events: a power of two at least twice their 2w endpoints (load ≤ ½).
func dependTableLen(w int) int {
	return 1 << bits.Len(uint(4*w-1))
}

// newAsyncParExec runs the events of ex over a pool of the crew's size.
// pl says how (executor.go's table); flow is the gossip fast path's loop
// when pl.dataflow.
func newAsyncParExec(ex eventRunner, pl eventPlan, flow *asyncExec, s *state, cr *crew) *asyncParExec {
	n, workers := s.rows(), cr.n
	a := &asyncParExec{
		eventRunner: ex,
		s:           s,
		window:      max(asyncMinLevel, min(asyncMaxWindow, n/2)),
		minLevel:    asyncMinLevel,
		chunk:       asyncChunk,
		mark:        make([]uint64, n),
	}
	if p, ok := ex.(prefetcher); ok && p.prefetching() {
		a.pf = p
	}
	if pl.heavy {
		// An event is an eigendecomposition, orders of magnitude above a
		// fast-path event (bench/RESULTS.md): a level of two events pays
		// for its barrier, and workers claim one event at a time.
		a.minLevel, a.chunk = asyncHeavyMinLevel, 1
		a.window = max(a.minLevel, min(asyncMaxWindow, n/2))
	}
	if pl.dataflow {
		a.gossip = flow
		a.window = max(asyncMinLevel, asyncMaxWindow)
		a.gbuf = gatherBuffers(workers, 2*asyncGroup)
		for 1<<a.fsh < flowChunk(n) {
			a.fsh++
		}
		chunks := (a.window + 1<<a.fsh - 1) >> a.fsh
		a.prog = make([]flowProgress, workers)
		a.owner = make([]atomic.Int32, chunks)
		a.seen = make([][]int64, workers)
		for w := range a.seen {
			a.seen[w] = make([]int64, workers+8)[:workers] // a line apart
		}
		// A worker claims at most every chunk of a window: owned[w]
		// never outgrows this capacity, and each window reslices it.
		a.owned = make([][]int32, workers)
		for w := range a.owned {
			a.owned[w] = make([]int32, 0, chunks)
		}
	}
	if a.gossip != nil && useDependTable(n, a.window) {
		// The dataflow schedule's dependencies from a table of the
		// window's nodes (1 MiB, in L2) instead of a mark per node (8 MB
		// at n = 10⁶: a cache miss an endpoint, on worker 0, while the
		// records stream through the caches).
		a.tab, a.mark = make([]uint64, dependTableLen(a.window)), nil
	}
	hugepage.Advise(a.mark)
	if s.net != nil {
		// execKind.parallel engages only for rows whose runner runs
		// network events, without delays, adaptive pickers or a sink.
		a.net = ex.(netEventer)
		a.multiPhase, a.churn = s.nx.multiPhase, s.nx.churn
		a.late = workers >= asyncLateDecide
		if checkDecideOrder && a.churn {
			a.lastDecided = make([]int64, n)
		}
	}
	for i := range a.win {
		if a.gossip != nil {
			a.win[i] = &asyncWindow{ev: make([]int32, 2*a.window), lvl: make([]int32, a.window), dep: make([]int32, 2*a.window)}
		} else {
			a.win[i] = &asyncWindow{
				ev: make([]int32, 2*a.window), lvl: make([]int32, a.window),
				order: make([]int32, a.window), start: make([]int32, a.window+2),
			}
		}
		if a.net != nil {
			a.win[i].it, a.win[i].fl = make([]int32, a.window), make([]uint8, a.window)
		}
	}
	shards := make([]layout.Range, workers)
	for w := range shards {
		shards[w] = layout.Range{Lo: w, Hi: w + 1}
	}
	a.pool = newPool(shards, cr.cpus)
	cr.pooled = true
	a.nz = make([]int64, workers)
	a.bad = make([]divergence, workers)
	a.fn = a.level
	return a
}

// gatherBuffers returns per-worker int32 buffers of capacity c each, every
// one on its own cache lines (see prefetchBuffers).
func gatherBuffers(workers, c int) [][]int32 {
	const perLine = 16
	step := (c+perLine-1)/perLine*perLine + perLine
	raw := make([]int32, workers*step+perLine)
	off := 0
	for uintptr(unsafe.Pointer(&raw[off]))%64 != 0 {
		off++
	}
	bufs := make([][]int32, workers)
	for w := range bufs {
		lo := off + w*step
		bufs[w] = raw[lo : lo : lo+c]
	}
	return bufs
}

// buildWindow draws the next m iterations' edges of the stream into w and
// levels them. Under a network model it draws the activations
// (state.activations: the counters count them here, in order of t) and
// keeps only the events whose endpoints are both online; or, from
// asyncLateDecide workers on, it draws the activated edges only
// (state.edgesAhead) and the worker that runs an event decides it
// (decide), so that the cursors' cache misses are the workers', not this
// serial builder's.
func (a *asyncParExec) buildWindow(w *asyncWindow, m int, t0 int64) error {
	s := a.s
	w.m, w.iters, w.t0 = m, m, t0
	switch {
	case a.net != nil && a.late:
		m = s.edgesAhead(t0, w.ev[:2*m], w.it[:m])
		w.m = m
		clear(w.fl[:m])
	case a.net != nil:
		if err := s.activations(t0, w.ev[:2*m], w.fl[:m]); err != nil {
			w.m = 0
			return err
		}
		k := 0
		for x := 0; x < m; x++ {
			if f := w.fl[x]; f&actOnline != 0 {
				w.ev[2*k], w.ev[2*k+1], w.fl[k], w.it[k] = w.ev[2*x], w.ev[2*x+1], f, int32(x)
				k++
			}
		}
		w.m = k
		m = k
	default:
		s.drawEdges(w.ev[:2*m])
	}
	a.gen++
	if a.gen == 0 {
		clear(a.mark)
		a.gen = 1
	}
	g := uint64(a.gen) << 32
	if a.gossip != nil {
		a.depend(w, g)
		return nil
	}
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
	return nil
}

// advance runs events until s.t reaches stop, or, once state.yield is
// set, until the end of a window with none drawn ahead (at least one window
// each call).
func (a *asyncParExec) advance(stop int64) error {
	s := a.s
	for t0 := s.t; s.t < stop; {
		var w *asyncWindow
		if a.ahead {
			a.k, a.ahead = 1-a.k, false
			w = a.win[a.k]
		} else {
			if s.t > t0 && s.yield.Load() {
				// Asked to return (Sim.RunWith: a cancellation or a
				// checkpoint due), and no window is drawn ahead.
				return nil
			}
			m := int(min(int64(a.window), stop-s.t))
			if a.serial > 0 || m < a.minLevel {
				if a.serial > 0 {
					a.serial--
				}
				if err := a.serialTo(s.t + int64(m)); err != nil {
					return err
				}
				continue
			}
			w = a.win[a.k]
			if err := a.buildWindow(w, m, s.t); err != nil {
				return err
			}
		}
		// The next window is built during this one if it fits before stop
		// and this one is not to be followed by serial windows.
		a.build = 0
		if next := int(min(int64(a.window), stop-w.end())); next >= a.minLevel && a.serial == 0 && !s.yield.Load() {
			a.build = next
		}
		planned := a.build > 0
		if err := a.runWindow(w); err != nil {
			a.ahead, a.build, a.buildErr = false, 0, nil
			return err
		}
		if a.build > 0 { // no level went to the pool: build it now
			a.buildErr = a.buildWindow(a.win[1-a.k], a.build, w.end())
			a.build = 0
		}
		if err := a.buildErr; err != nil {
			// Drawing the next window failed (its events before the
			// failure are not run: the run stops at this window's end).
			a.ahead, a.buildErr = false, nil
			return err
		}
		a.ahead = planned
		if a.serial > 0 && a.ahead {
			// The fallback chose serial windows, but the next one is drawn:
			// run it in stream order.
			a.k, a.ahead = 1-a.k, false
			if err := a.runWindowSerially(a.win[a.k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// runWindow runs window w's levels in order and advances s.t past it.
func (a *asyncParExec) runWindow(w *asyncWindow) error {
	if a.gossip != nil {
		return a.runFlow(w)
	}
	var nonzero int64
	var first divergence
	for l := int32(0); l < w.levels; l++ {
		evs := w.order[w.start[l]:w.start[l+1]]
		if len(evs) < a.minLevel || first.found() {
			for _, e := range evs {
				t := w.tOf(int(e))
				if first.found() && t >= first.t {
					continue // after the divergence: the serial loop never ran it
				}
				nz, bad := a.runEvent(w, int(e), t, 0)
				nonzero += nz
				if bad >= 0 {
					first.note(t, bad, "")
				}
			}
			continue
		}
		a.cursor.Store(0)
		a.parLevels++
		a.pool.run(a.fn, task{level: evs, win: w})
		nonzero += a.takeNonzero()
		if b := firstOf(a.bad); b.found() && b.before(first) {
			first = b
		}
	}
	if err := a.endWindow(w, first, nonzero); err != nil {
		return err
	}
	// Adaptive fallback: levels averaging under two barriers' worth of work.
	if int(w.levels)*2*a.minLevel > w.m {
		a.serial = asyncSerialProbe
	}
	return nil
}

// takeNonzero sums and clears the workers' counts of non-zero gradients.
func (a *asyncParExec) takeNonzero() int64 {
	var nonzero int64
	for k := range a.nz {
		nonzero += a.nz[k]
		a.nz[k] = 0
	}
	return nonzero
}

// endWindow ends window w: the divergence first if found, else s.t past
// the window and its counts (nonzero: its non-zero gradients; two gradient
// evaluations an event run, the idle iterations of a network model none).
func (a *asyncParExec) endWindow(w *asyncWindow, first divergence, nonzero int64) error {
	if w.it == nil {
		return a.s.endIters(w.t0, w.end(), 2, nonzero, first)
	}
	ran := w.m
	if first.found() { // the events up to the diverging one ran
		ran = sort.Search(w.m, func(e int) bool { return w.tOf(e) > first.t })
	}
	live := int64(ran)
	if a.late {
		// The counters, in order of t, from the flags the workers decided.
		nx := a.s.nx
		live = 0
		for _, fl := range w.fl[:ran] {
			if fl&actOnline != 0 {
				live++
			}
			nx.tally(fl)
		}
	}
	a.s.gradEvals += 2 * live
	return a.s.endIters(w.t0, w.end(), 0, nonzero, first)
}

// decide decides event e of window w, at iteration t on (i, j), on the
// worker that runs it (state.decide), after every earlier event of i and j
// has run (a level's events have distinct nodes and levels run in order;
// the dataflow schedule waits for an event's dependencies first), so that
// each node's cursor moves in order of t, one worker at a time. The flags
// (never 0: actEdge is set) stay in w.fl, cleared when the window is
// built, for the event's run if decided ahead of it and endWindow's counts.
func (a *asyncParExec) decide(w *asyncWindow, e int, t int64, i, j int) uint8 {
	if a.lastDecided != nil {
		a.checkOrder(t, i, j)
	}
	fl := a.s.decide(t, i, j)
	w.fl[e] = fl
	return fl
}

// checkOrder counts in a.backward the decisions of an event of node i or j
// earlier than one of the node already decided (tests, under churn: a
// cursor must move forward only, checkDecideOrder; without churn a
// decision reads no node's state and may come in any order).
func (a *asyncParExec) checkOrder(t int64, i, j int) {
	for _, k := range [2]int{i, j} {
		if a.lastDecided[k] > t {
			a.backward.Add(1)
		}
		a.lastDecided[k] = t
	}
}

// checkDecideOrder makes the executors built while it is set count the
// decisions made out of order of t for a node (checkOrder); tests set it.
var checkDecideOrder bool

// runEvent runs event e of window w, at iteration t, as worker wk: under a
// network model with its deliveries, decided here if late (idle if an
// endpoint is offline).
func (a *asyncParExec) runEvent(w *asyncWindow, e int, t int64, wk int) (nonzero int64, bad int) {
	i, j := int(w.ev[2*e]), int(w.ev[2*e+1])
	if a.net != nil {
		fl := w.fl[e]
		if a.late {
			if fl = a.decide(w, e, t, i, j); fl&actOnline == 0 {
				return 0, -1
			}
		}
		return a.net.netEvent(i, j, t, wk, fl)
	}
	return a.event(i, j, t, wk)
}

// runWindowSerially runs window w's events in stream order.
func (a *asyncParExec) runWindowSerially(w *asyncWindow) error {
	var nonzero int64
	for e := 0; e < w.m; e++ {
		t := w.tOf(e)
		nz, bad := a.runEvent(w, e, t, 0)
		nonzero += nz
		if bad >= 0 {
			return a.endWindow(w, eventDivergence(t, bad), nonzero)
		}
	}
	return a.endWindow(w, divergence{}, nonzero)
}

// level is worker w's part of the level tk: worker 0 first builds the next
// window if one is pending, then every worker claims chunks of events until
// none is left.
func (a *asyncParExec) level(w int, _ layout.Range, tk *task) {
	if w == 0 && a.build > 0 {
		a.buildErr = a.buildWindow(a.win[1-a.k], a.build, a.win[a.k].end())
		a.build = 0
	}
	win, evsAll := tk.win, tk.level
	if a.gossip != nil {
		a.flowWorker(w, win)
		return
	}
	ahead := 0
	if a.pf != nil {
		ahead = asyncAhead
	}
	var nz int64
	for evs := a.claim(evsAll); evs != nil; evs = a.claim(evsAll) {
		for x := 0; x < min(ahead, len(evs)); x++ {
			e := evs[x]
			a.pf.prefetch(w, int(win.ev[2*e]), int(win.ev[2*e+1]), win.tOf(int(e)))
		}
		for x, e := range evs {
			if y := x + ahead; ahead > 0 && y < len(evs) {
				f := evs[y]
				a.pf.prefetch(w, int(win.ev[2*f]), int(win.ev[2*f+1]), win.tOf(int(f)))
			}
			t := win.tOf(int(e))
			c, bad := a.runEvent(win, int(e), t, w)
			nz += c
			if bad >= 0 {
				a.bad[w].note(t, bad, "")
			}
		}
	}
	a.nz[w] += nz
}

// claim takes the next chunk of a level's events from the shared cursor,
// or nil when none is left.
func (a *asyncParExec) claim(evs []int32) []int32 {
	n, ch := int64(len(evs)), int64(a.chunk)
	lo := a.cursor.Add(ch) - ch
	if lo >= n {
		return nil
	}
	return evs[lo:min(n, lo+ch)]
}

// The dataflow schedule (the gossip fast path's parallel executor).
//
// Levels cost a barrier each, and a window's later levels are small: with
// n = 10⁴ most windows fell back to the serial loop or ran their tails
// inline, and two workers ran no faster than one. The dataflow schedule has
// no levels: the window's events are cut into chunks of consecutive events,
// which the workers claim in stream order from a shared counter (a worker
// claims its next chunk while its current one has asyncGroupAhead events
// left, to prefetch across the seam), and each worker runs its chunks'
// events in stream order. Before an event runs, the last earlier event of
// the window on each of its nodes (dep, found when the window is built)
// must have run: it lies below every other worker's progress counter as
// last read (most dependencies are thousands of events old: no shared
// read at all), or it is the worker's own (then it ran), or its chunk's
// owner's counter has passed it (every other worker's counter is read again
// once, then only the owner's while the worker waits). A worker publishes its
// progress at the end of each chunk and before it waits, not after every
// event: the store is a locked exchange on a line the others read
// (bench/results/engine-tuning.md: a store an event cost a seventh more
// CPU time an event).
// Every node thus sees the serial loop's operations in the serial order,
// as with levels, and the final state is the serial loop's, bit for bit.
// It cannot deadlock: every event that ran is published in finite time
// (its worker reaches its chunk's end or publishes before it waits); the
// earliest event not yet run has all its dependencies run, and its owner
// has run all its earlier events, so it runs it once those are published.
// A worker waits only when an event's node was touched by a recent event
// of another worker's chunk; a window whose events are chained (few events
// a level, such as on a star) runs serially (asyncFlowMinPar).

// flowChunk is the dataflow schedule's chunk for n nodes, a power of two
// (asyncFlowChunk when set). Two workers run neighbouring chunks at once;
// an event waits when a node of its was touched by an event of the other's
// chunk not yet published (progress is published at a chunk's end), about
// 2C/n of the events, for up to C events: a cost of order C²/n event times
// an event. Claiming a chunk costs an atomic add and an owner store on
// shared lines, about an event time per C events. The sum is least near
// C = ∛(n/2): the largest power of two up to it, from 16 to 256 (16 at
// n = 10⁴, 64 at n = 10⁶). Measured at n = 10⁴ with the lazy publication
// (bench async --workers 2, CPU ns an event, two runs each): C = 16 140,
// 32 137, 64 153, 128 176, 256 148, the last two at far lower rates (the
// waits).
func flowChunk(n int) int {
	if asyncFlowChunk > 0 {
		return asyncFlowChunk
	}
	c := 16
	for c < 256 && float64(8*c*c*c) <= float64(n)/2 {
		c *= 2
	}
	return c
}

// flowProgress is a worker's progress, on its own cache line: 1 + the
// window index of the last event it ran (its events run in increasing
// order, so every event of its below that has run).
type flowProgress struct {
	next atomic.Int64
	_    [56]byte
}

// depend fills window w's dependencies and levels (the dataflow schedule's
// buildWindow); g is the window's generation tag in mark.
func (a *asyncParExec) depend(w *asyncWindow, g uint64) {
	if a.tab != nil {
		a.dependTable(w)
		return
	}
	levels := int32(0)
	ev, dep, lvl := w.ev, w.dep, w.lvl
	for e := 0; e < w.m; e++ {
		i, j := ev[2*e], ev[2*e+1]
		di, dj := int32(-1), int32(-1)
		l := int32(0)
		if mi := a.mark[i]; mi&^0xffffffff == g {
			di = int32(uint32(mi))
			l = lvl[di] + 1
		}
		if mj := a.mark[j]; mj&^0xffffffff == g {
			dj = int32(uint32(mj))
			l = max(l, lvl[dj]+1)
		}
		dep[2*e], dep[2*e+1], lvl[e] = di, dj, l
		a.mark[i], a.mark[j] = g|uint64(e), g|uint64(e)
		levels = max(levels, l+1)
	}
	w.levels = levels
}

// dependTable is depend with the last event of each node of the window
// kept in a.tab (open addressing, linear probing) instead of a.mark: the
// same dependencies and levels.
func (a *asyncParExec) dependTable(w *asyncWindow) {
	a.tgen++
	if a.tgen == 0 {
		clear(a.tab)
		a.tgen = 1
	}
	tab, tg := a.tab, uint64(a.tgen)
	mask := uint32(len(tab) - 1)
	shift := 32 - bits.Len32(mask)
	// last returns node k's slot and its last event in the window (−1:
	// none, the slot is free) and makes event e its last.
	last := func(k int32, e int) int32 {
		h := (uint32(k) * 0x9E3779B1) >> shift
		for {
			v := tab[h]
			if v>>48 != tg {
				tab[h] = tg<<48 | uint64(e)<<32 | uint64(uint32(k))
				return -1
			}
			if uint32(v) == uint32(k) {
				tab[h] = tg<<48 | uint64(e)<<32 | uint64(uint32(k))
				return int32(uint16(v >> 32))
			}
			h = (h + 1) & mask
		}
	}
	levels := int32(0)
	ev, dep, lvl := w.ev, w.dep, w.lvl
	for e := 0; e < w.m; e++ {
		// An edge's endpoints differ (graphs have no self-loops), so j's
		// lookup never finds the entry i's just wrote.
		di, dj := last(ev[2*e], e), last(ev[2*e+1], e)
		l := int32(0)
		if di >= 0 {
			l = lvl[di] + 1
		}
		if dj >= 0 {
			l = max(l, lvl[dj]+1)
		}
		dep[2*e], dep[2*e+1], lvl[e] = di, dj, l
		levels = max(levels, l+1)
	}
	w.levels = levels
}

// runFlow runs window w with the dataflow schedule, or serially when its
// events are chained, and advances s.t past it.
func (a *asyncParExec) runFlow(w *asyncWindow) error {
	if int(w.levels)*asyncFlowMinPar > w.m {
		a.serial = asyncSerialProbe
		return a.runWindowSerially(w)
	}
	for k := range a.prog {
		a.prog[k].next.Store(0)
	}
	for c := range (w.m + 1<<a.fsh - 1) >> a.fsh {
		a.owner[c].Store(-1)
	}
	a.cursor.Store(0)
	a.stop.next.Store(math.MaxInt64)
	a.parLevels++
	a.pool.run(a.fn, task{win: w})
	return a.endWindow(w, firstOf(a.bad), a.takeNonzero())
}

// flowWorker is worker w's part of window win under the dataflow schedule:
// the events of the chunks it claims, software-pipelined as the serial
// loop's window (asyncExec.gossipWindow) over the worker's sequence of
// events, two disjoint consecutive ones a kernel call.
func (a *asyncParExec) flowWorker(w int, win *asyncWindow) {
	e := a.gossip
	sh := a.fsh
	mask := 1<<sh - 1
	m := win.m
	chunks := (m + mask) >> sh
	ev, dep := win.ev, win.dep
	owned := a.owned[w][:0]
	prog := &a.prog[w].next
	ended := false
	// at returns the window index of the worker's x-th event, claiming
	// chunks as needed; −1 past its last.
	at := func(x int) int {
		for x>>sh >= len(owned) {
			if ended {
				return -1
			}
			c := int(a.cursor.Add(1) - 1)
			if c >= chunks {
				ended = true
				return -1
			}
			owned = append(owned, int32(c))
			a.owner[c].Store(int32(w))
		}
		if f := int(owned[x>>sh])<<sh | x&mask; f < m {
			return f
		}
		return -1
	}
	// The worker's progress is published lazily (see above): at the end of
	// each of its chunks and before it waits, so that whoever waits for one
	// of its events sees it at the latest when the chunk ends.
	var done, pub int64 // 1 + the last event run; the value published
	publish := func() {
		if done != pub {
			prog.Store(done)
			pub = done
		}
	}
	// ready returns once dependency d of event f has run: it is below
	// every other worker's progress as last read (lo: whoever ran it, it
	// ran; most dependencies are thousands of events old), or an event of
	// the worker's own (it ran: the worker runs its events in order), or
	// one below its owner's progress, read again only when needed.
	seen := a.seen[w]
	clear(seen)
	lo := int64(0)
	ready := func(d int32) {
		if int64(d) < lo { // d < 0 included
			return
		}
		for spin := 0; ; spin++ {
			// −1: the chunk is claimed, its owner not yet written.
			if o := a.owner[d>>sh].Load(); o >= 0 {
				if int(o) == w || int64(d) < seen[o] {
					return
				}
				if spin == 0 {
					// Every other worker's counter once (lo), then
					// only the owner's while waiting.
					lo = math.MaxInt64
					for k := range seen {
						if k != w {
							seen[k] = a.prog[k].next.Load()
							lo = min(lo, seen[k])
						}
					}
				} else {
					seen[o] = a.prog[o].next.Load()
				}
				if int64(d) < seen[o] {
					return
				}
			}
			switch {
			case spin == 0:
				publish()
			case spin >= asyncFlowSpin+asyncFlowYields:
				// The owner is off its CPU for a while (a loaded
				// machine): sleep rather than burn a time slice.
				time.Sleep(asyncFlowSleep)
			case spin >= asyncFlowSpin:
				// The owner may be waiting for a P (more workers than
				// GOMAXPROCS): Gosched; or for a CPU: osYield
				// (sched_yield on Linux, nothing elsewhere).
				runtime.Gosched()
				osYield()
			}
		}
	}
	// ran records that the worker ran its events up to f.
	ran := func(f int) {
		done = int64(f) + 1
		if done&int64(mask) == 0 {
			publish()
		}
	}
	g, ahead := 0, 0
	if e.pfOn {
		g, ahead = asyncGroup, asyncGroupAhead
	}
	buf := a.gbuf[w]
	// decided reports, without waiting, whether dependency d of an event
	// has been decided: an earlier window's (d < 0), one of the worker's
	// own whose flags it has set (it decides its own events in order, so
	// one it has not decided yet is not, though the other workers' progress
	// be past it), or another worker's that has run (below the progress
	// last read, lo or its owner's).
	decided := func(d int32) bool {
		if d < 0 {
			return true
		}
		o := a.owner[d>>sh].Load()
		switch {
		case o < 0:
			return false
		case int(o) == w:
			return win.fl[d] != 0
		}
		return int64(d) < lo || int64(d) < seen[o]
	}
	// nodes returns the endpoints of the worker's events lo … hi−1, in
	// buf. With decide set and deciding late, it first decides those
	// whose nodes' earlier events are decided (all of them without churn,
	// where a decision reads no node's state; under churn most: a node's
	// previous event is mostly long run), in order of t for each node as
	// when they run, and leaves out those found idle (an endpoint
	// offline).
	nodes := func(lo, hi int, decide bool) []int32 {
		b := buf[:0]
		for y := lo; y < hi; y++ {
			f := at(y)
			if f < 0 {
				break
			}
			if decide && a.late && win.fl[f] == 0 && (!a.churn || decided(dep[2*f]) && decided(dep[2*f+1])) {
				if a.decide(win, f, win.tOf(f), int(ev[2*f]), int(ev[2*f+1]))&actOnline == 0 {
					continue
				}
			}
			b = append(b, ev[2*f], ev[2*f+1])
		}
		return b
	}
	// gather prefetches the records of the worker's events lo … hi−1 but
	// those found idle, which cost no prefetch of their rows
	// (bench/RESULTS.md, "Deciding late, ahead of the run"); their churn
	// cursors were prefetched ahead (gatherCursors).
	gather := func(lo, hi int) { e.prefetchEvents(nodes(lo, hi, true)) }
	// gatherCursors prefetches the churn cursors of the worker's events
	// lo … hi−1, which deciding them reads (a hint).
	gatherCursors := func(lo, hi int) { a.s.net.PrefetchOnline(nodes(lo, hi, false)) }
	cursors, cursorAhead := a.late && a.churn, 2*ahead
	// note records a divergence of event f; the events after it are
	// skipped (the serial loop never ran them), and it is published before
	// f's progress, so no event that depends on f runs.
	note := func(f int, bad int) {
		if bad >= 0 {
			a.bad[w].note(win.tOf(f), bad, "")
			for {
				if old := a.stop.next.Load(); int64(f) >= old || a.stop.next.CompareAndSwap(old, int64(f)) {
					break
				}
			}
		}
	}
	if cursors && g > 0 {
		for y := 0; y < cursorAhead; y += g {
			gatherCursors(y, y+g)
		}
	}
	for y := 0; y < ahead; y += g {
		gather(y, y+g)
	}
	ps := &e.sc[w]
	var nz int64
	next := 0
	for x := 0; ; {
		f := at(x)
		if f < 0 {
			break
		}
		for g > 0 && x >= next {
			if cursors {
				gatherCursors(next+cursorAhead, next+cursorAhead+g)
			}
			gather(next+ahead, next+ahead+g)
			next += g
		}
		i, j := int(ev[2*f]), int(ev[2*f+1])
		ready(dep[2*f])
		ready(dep[2*f+1])
		if int64(f) > a.stop.next.Load() {
			ran(f)
			x++
			continue
		}
		if a.net != nil {
			fl := win.fl[f]
			if a.late {
				if fl == 0 { // not yet decided (pairReady may have)
					fl = a.decide(win, f, win.tOf(f), i, j)
				}
				if fl&actOnline == 0 {
					ran(f) // idle: an endpoint is offline
					x++
					continue
				}
			}
			if a.multiPhase || fl&actBoth != actBoth {
				// A partial delivery, or 1/p_k of the event's phase: the
				// serial loop's network event.
				c, bad := a.net.netEvent(i, j, win.tOf(f), w, fl)
				nz += c
				note(f, bad)
				ran(f)
				x++
				continue
			}
		}
		if e.evp != nil {
			// Only the next event of the stream: one of another worker's
			// chunks between the two may depend on the first. Decided
			// late, it is decided once its nodes' earlier events have
			// run; not taken here, it keeps its flags for when it runs.
			if f2 := at(x + 1); f2 == f+1 {
				if k, l := int(ev[2*f2]), int(ev[2*f2+1]); k != i && k != j && l != i && l != j &&
					a.pairReady(win, f2, k, l, ready) {
					nz1, nz2, b1, b2 := e.gossipPair(i, j, k, l, ps)
					nz += nz1 + nz2
					note(f, b1)
					note(f2, b2)
					ran(f) // f may end a chunk, f2 start the next
					ran(f2)
					x += 2
					continue
				}
			}
		}
		c, bad := e.gossipEvent(i, j, &ps.EventScalars)
		nz += c
		note(f, bad)
		ran(f)
		x++
	}
	prog.Store(math.MaxInt64)
	a.nz[w] += nz
}

// pairReady reports whether event f2 is a whole exchange (always without a
// network model), which the dataflow schedule then runs beside the one
// before it in the two-event kernel, having waited for its dependencies
// (through ready); decided late, it waits first, then decides it.
func (a *asyncParExec) pairReady(win *asyncWindow, f2, k, l int, ready func(int32)) bool {
	if a.net != nil && !a.late && win.fl[f2]&actBoth != actBoth {
		return false
	}
	ready(win.dep[2*f2])
	ready(win.dep[2*f2+1])
	if a.net != nil && a.late {
		fl := win.fl[f2] // decided ahead (gather), or not yet
		if fl == 0 {
			fl = a.decide(win, f2, win.tOf(f2), k, l)
		}
		return fl&actBoth == actBoth
	}
	return true
}

// close stops the executor's workers.
func (a *asyncParExec) close() {
	if a.pool != nil {
		a.pool.close()
		a.pool = nil
	}
}
