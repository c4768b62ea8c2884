package engine

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pairgossip/pairgossip/affinity"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// An executor carries the state through iterations of one algorithm on one
// schedule. Every executor computes the algorithm of exec_reference.go
// (the paper's pseudo-code, literally): the schedules differ in how the
// work is ordered and batched, never in what is computed (see Schedule for
// which ones are bit-identical and which agree to rounding).
type executor interface {
	// advance runs iterations towards stop, at most a bounded amount of work
	// (a chunk of rounds or events, one block, one window), never past stop.
	// On a divergence the state is left at the iteration where it happened.
	advance(stop int64) error
	// theta writes θ_k into dst: the state's row, or what the executor
	// keeps implicit (θ = c·z on the linear fast path, c·U on the cone).
	theta(k int, dst []float64)
}

// The optional capabilities of an executor, found once when the run is
// built (capsOf) and kept in execCaps; an executor implements only those it
// has.
type (
	// saver is an executor that adds sections to a checkpoint after the
	// state's common ones: savedLen floats (0: none this run), written by
	// writeSaved; checkSaved validates what was read before anything is
	// applied, applySaved applies it.
	saver interface {
		savedLen() int
		writeSaved(w io.Writer, fc *floatCodec) error
		checkSaved(v []float64) error
		applySaved(v []float64)
	}
	// restorer rebuilds what the executor derives from the state (scales,
	// margins' companions, projections) after a checkpoint was read.
	restorer interface{ restore() }
	// closer releases the executor's own workers or flushes what it keeps
	// of the state's rows.
	closer interface{ close() }
	// rankOneCounter counts the rank-one eigen-updates done in place of
	// full eigendecompositions (the metric schedules on the PSD cone).
	rankOneCounter interface{ rankOne() int64 }
)

// execCaps are a run's executor and its optional capabilities, each nil
// when the executor lacks it. With the parallel asynchronous executor, run
// is the parallel one and the capabilities are those of the executor whose
// events it runs (and the closers of both).
type execCaps struct {
	run     executor
	saver   saver
	restore restorer
	rankOne rankOneCounter
	closers []closer
	// serialGossip is the fast path's serial loop when it runs the events
	// itself (for the lab's memory ceiling, async_ceiling.go), else nil.
	serialGossip *asyncExec
	// serialWhy says why an asynchronous run given several workers runs
	// its events on one (Sim.SerialEvents); empty otherwise.
	serialWhy string
}

// capsOf finds the capabilities of inner, run through outer (outer ==
// inner but for the parallel asynchronous executor).
func capsOf(inner, outer executor) execCaps {
	c := execCaps{run: outer}
	c.saver, _ = inner.(saver)
	c.restore, _ = inner.(restorer)
	c.rankOne, _ = inner.(rankOneCounter)
	if cl, ok := outer.(closer); ok {
		c.closers = append(c.closers, cl)
	}
	if cl, ok := inner.(closer); ok && outer != inner {
		c.closers = append(c.closers, cl)
	}
	return c
}

// Schedule names how an executor orders the work of an algorithm.
type Schedule string

// The schedules. Every schedule gives the same results up to rounding (the
// tests bound the relative difference of θ̄ by 1e-9; measured ≈ 1e-15);
// plain and blocked are bit-identical to each other and, with the generic
// kernels, to the reference. Every schedule is bit-identical across worker
// counts.
const (
	// ScheduleAuto picks the fastest schedule that applies (the first row of
	// the executor table that fits).
	ScheduleAuto Schedule = "auto"
	// SchedulePlain is the fused one-pass update, node after node, each
	// round (exec_plain.go), or the asynchronous fast event loop
	// (exec_async.go, exec_asyncpar.go; exec_asynccone.go for metric
	// learning).
	SchedulePlain Schedule = "plain"
	// ScheduleBlocked is the temporally blocked synchronous schedule
	// (exec_blocked.go; exec_genericblocked.go for a user objective).
	ScheduleBlocked Schedule = "blocked"
	// ScheduleReduced is the algebraically reduced synchronous schedule:
	// scalar recurrences between the touches of a node (exec_reduced.go for
	// AUC, exec_cone.go for metric learning).
	ScheduleReduced Schedule = "reduced"
	// ScheduleReference is the literal per-node transcription of the
	// algorithms (exec_reference.go), for every problem.
	ScheduleReference Schedule = "reference"
)

// Schedules lists the accepted schedule names.
var Schedules = []Schedule{ScheduleAuto, SchedulePlain, ScheduleBlocked, ScheduleReduced, ScheduleReference}

// ParseSchedule maps a name ("" is auto) to a Schedule.
func ParseSchedule(s string) (Schedule, error) {
	if s == "" {
		return ScheduleAuto, nil
	}
	for _, v := range Schedules {
		if string(v) == strings.ToLower(s) {
			return v, nil
		}
	}
	names := make([]string, len(Schedules))
	for i, v := range Schedules {
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown schedule %q (valid: %s)", s, strings.Join(names, ", "))
}

// Shape is what the choice of an executor and the memory estimate need to
// know of a problem, before it is built.
type Shape struct {
	N, D, P int
	Loss    problem.Loss
	Reg     problem.RegKind
	Edges   int // undirected edges of the graph (0 for Centralized)
}

// ShapeOf returns the shape of p on g.
func ShapeOf(p *problem.Problem, g *graph.Graph) Shape {
	sh := Shape{N: p.N, D: p.D, P: p.P, Loss: p.Loss, Reg: p.Reg.Kind}
	if g != nil {
		sh.Edges = len(g.Edges)
	}
	return sh
}

func (sh Shape) linear() bool {
	return !sh.Loss.IsMetric() && sh.Loss != problem.Custom && (sh.Reg == problem.RegNone || sh.Reg == problem.RegL2Sq)
}

func (sh Shape) rows(algo Algorithm) int {
	if algo == Centralized {
		return 1
	}
	return sh.N
}

// execKind is one row of the executor table.
type execKind struct {
	schedule Schedule
	name     string
	// fits returns nil when the executor runs this shape and configuration,
	// else why not (auto: whether auto may pick it). It is the one
	// statement of the row's rules: a named schedule that no row fits is
	// refused with its rows' reasons.
	fits func(sh Shape, cfg Config, auto bool) error
	// bytes is the memory the executor holds besides the state.
	bytes func(sh Shape, cfg Config, workers int) int64
	build func(s *state, cr *crew) executor
	// compact: the executor runs on the compact state layout (no copy of
	// the data or of the auxiliary rows; see state).
	compact bool
	// storesTheta: Θ is part of the executor's state (the reference
	// executor); otherwise it is derived (executor.theta) and the state's
	// Theta is allocated, and written, only when read.
	storesTheta bool
	// events, for a row whose executor runs asynchronous events one at a
	// time (an eventRunner), says how the parallel executor
	// (exec_asyncpar.go) runs them; nil for the other rows. The parallel
	// executor runs the row when the run has several workers, enough
	// nodes and a network it can draw ahead (execKind.parallel,
	// parallelNet).
	events func(sh Shape, cfg Config) eventPlan
	// netEvents: the row's event runner runs events under a network model
	// (a netEventer), so the parallel executor runs it under one
	// (parallelNet).
	netEvents bool
	// linearNet: the executor keeps θ_k = c·z_k implicit with one c, so a
	// network model needs c per node under churn (synchronous) and θ held
	// apart under delays (asynchronous): state.attachNetwork's linear.
	linearNet bool
}

// eventPlan is how the parallel asynchronous executor runs a row's events.
type eventPlan struct {
	// heavy: an event costs an eigendecomposition (the metric schedule on
	// the PSD cone): the parallel executor takes the run from
	// asyncHeavyMinNodes nodes on, runs levels from asyncHeavyMinLevel
	// events on and hands workers one event at a time.
	heavy bool
	// dataflow: the events run by the dataflow schedule of the gossip fast
	// path (flowWorker) instead of levels.
	dataflow bool
}

// executors is the one table the executor of a run is chosen from: auto
// takes the first row that fits, a named schedule the first row of that
// schedule that fits.
var executors = []execKind{
	{schedule: ScheduleReduced, name: "cone", fits: coneFits, bytes: coneBytes, build: newConeExec},
	{schedule: ScheduleReduced, name: "reduced", fits: reducedFits, bytes: reducedBytes, build: newReducedExec, compact: true},
	{schedule: ScheduleBlocked, name: "blocked", fits: blockedFits, bytes: blockedBytes, build: newBlockedExec, linearNet: true},
	{schedule: SchedulePlain, name: "plain", fits: plainFits, bytes: plainBytes, build: newPlainExec, linearNet: true},
	{schedule: SchedulePlain, name: "async", fits: asyncFits, bytes: asyncBytes, build: newAsyncExec,
		events: func(_ Shape, cfg Config) eventPlan { return eventPlan{dataflow: cfg.Estimator == Gossip} }, netEvents: true, linearNet: true},
	{schedule: SchedulePlain, name: "async-cone", fits: asyncConeFits, bytes: asyncConeBytes, build: newAsyncConeExec,
		events: func(sh Shape, _ Config) eventPlan { return eventPlan{heavy: sh.Reg == problem.RegPSD} }, netEvents: true},
	// A user objective (problem.Custom): blocked synchronous, then plain
	// synchronous and asynchronous (exec_genericblocked.go, exec_generic.go).
	{schedule: ScheduleBlocked, name: "generic-blocked", fits: genericBlockedFits, bytes: genericBlockedBytes, build: newGenericBlockedExec},
	{schedule: SchedulePlain, name: "generic", fits: genericFits, bytes: genericBytes, build: newGenericExec, events: plainEvents, netEvents: true},
	{schedule: ScheduleReference, name: "reference", fits: func(Shape, Config, bool) error { return nil }, bytes: referenceBytes,
		build: newReferenceExec, storesTheta: true, events: plainEvents, netEvents: true},
}

func plainEvents(Shape, Config) eventPlan { return eventPlan{} }

// choose returns the row of the table for sh and cfg.
func choose(sh Shape, cfg Config) (execKind, error) {
	want := cfg.Schedule
	if want == "" {
		want = ScheduleAuto
	}
	if _, err := ParseSchedule(string(want)); err != nil {
		return execKind{}, fmt.Errorf("engine: %w", err)
	}
	auto := want == ScheduleAuto
	var why []string
	for _, e := range executors {
		if !auto && e.schedule != want {
			continue
		}
		err := e.fits(sh, cfg, auto)
		if err == nil {
			return e, nil
		}
		why = append(why, e.name+": "+err.Error())
	}
	return execKind{}, fmt.Errorf("engine: the %s schedule does not run %s, %s, %s, %s (%s)", want,
		cfg.Algorithm, cfg.Estimator, sh.Loss, sh.Reg, strings.Join(why, "; "))
}

// parallel reports whether a run of the row goes to the parallel
// asynchronous executor, and how that runs its events; when an
// asynchronous run given several workers does not, why says why.
func (k execKind) parallel(sh Shape, cfg Config, workers int) (pl eventPlan, ok bool, why string) {
	if cfg.Algorithm != Async || workers < 2 {
		return eventPlan{}, false, ""
	}
	if k.events == nil {
		return eventPlan{}, false, "the " + k.name + " executor runs its events in order on one worker"
	}
	if !parallelNet(k, cfg) {
		return eventPlan{}, false, "the network model (delays, an adaptive picker or an edge sink) keeps the events in order on one worker"
	}
	pl = k.events(sh, cfg)
	rows := sh.rows(cfg.Algorithm)
	if rows >= asyncMinNodes || pl.heavy && rows >= asyncHeavyMinNodes {
		return pl, true, ""
	}
	lim := asyncMinNodes
	if pl.heavy {
		lim = asyncHeavyMinNodes
	}
	return eventPlan{}, false, fmt.Sprintf("%d nodes, fewer than the %d from which the parallel asynchronous executor gains", rows, lim)
}

// newExecutor builds the row's executor on s (and the parallel executor
// over its events when the run goes there) and finds its capabilities.
func (k execKind) newExecutor(sh Shape, cfg Config, s *state, cr *crew) execCaps {
	ex := k.build(s, cr)
	pl, ok, why := k.parallel(sh, cfg, cr.n)
	if !ok {
		c := capsOf(ex, ex)
		c.serialGossip, _ = ex.(*asyncExec)
		c.serialWhy = why
		return c
	}
	var flow *asyncExec
	if pl.dataflow {
		flow = ex.(*asyncExec)
	}
	return capsOf(ex, newAsyncParExec(ex.(eventRunner), pl, flow, s, cr))
}

// reasons joins the reasons a row does not fit (nil when every check
// passed): the fits functions' one way of saying why.
func reasons(checks ...fitCheck) error {
	var why []string
	for _, c := range checks {
		if !c.ok {
			why = append(why, c.need)
		}
	}
	if len(why) == 0 {
		return nil
	}
	return errors.New("needs " + strings.Join(why, " and "))
}

// fitCheck is one rule of a row: ok, or what the row needs.
type fitCheck struct {
	ok   bool
	need string
}

// Common rules of the rows.
func needLinear(sh Shape) fitCheck {
	return fitCheck{sh.linear(), "an AUC loss with ψ = none or l2"}
}
func needAlgo(cfg Config, a Algorithm) fitCheck {
	return fitCheck{cfg.Algorithm == a, "the " + a.String() + " algorithm"}
}
func needGossip(cfg Config) fitCheck {
	return fitCheck{cfg.Estimator == Gossip, "the gossip estimator"}
}
func needMetricCone(sh Shape, cfg Config) fitCheck {
	r := sh.Reg
	return fitCheck{sh.Loss.IsMetric() && !cfg.ExactPSD && (r == problem.RegPSD || r == problem.RegNone || r == problem.RegL2Sq),
		"the metric loss with ψ = psd, none or l2 (and not Config.ExactPSD)"}
}
func needCustom(sh Shape) fitCheck {
	return fitCheck{sh.Loss == problem.Custom && separable(sh.Reg), "a user objective (problem.Custom) with ψ other than psd"}
}
func needBlocks(sh Shape, auto bool) fitCheck {
	return fitCheck{!auto || blockRounds(sh.N) > 1, "more than one round a block (auto)"}
}

// crew is a run's workers: their number and CPUs, the pool of row shards
// that the synchronous executors hand rounds and blocks to (nil when
// everything runs on the caller), and per-worker scratch allocated once —
// the problem's workspaces, non-zero gradient counts and divergence
// records.
type crew struct {
	// sw is the run's stopwatch (Sim.Profile), which the executors mark.
	sw     stopwatch
	n      int
	cpus   []int  // CPU of each worker (nil: not pinned)
	why    string // why not pinned
	pool   *pool
	pooled bool  // a pool (this one or an executor's own) was started
	runs   int64 // rounds the pool ran before close (for tests)
	ws     []*problem.Workspace
	nz     []int64
	bad    []divergence
	tk     task // pass's task when the caller runs it
}

func newCrew(p *problem.Problem, cfg Config, rows, workers int) *crew {
	cr := &crew{n: workers}
	if cfg.Pin {
		cr.cpus, cr.why = affinity.Plan(workers)
	} else {
		cr.why = "not asked (Config.Pin)"
	}
	if cfg.Algorithm == Sync && workers > 1 && rows >= 2*layout.LineFloats {
		cr.pool = newPool(layout.Shards(rows, workers), cr.cpus)
		cr.pooled = true
	}
	nw := max(1, workers)
	cr.ws = make([]*problem.Workspace, nw)
	for w := range cr.ws {
		cr.ws[w] = p.NewWorkspace()
	}
	cr.nz = make([]int64, nw)
	cr.bad = make([]divergence, nw)
	return cr
}

// nonzero returns the sum of the workers' non-zero gradient counts and
// clears them.
func (cr *crew) nonzero() int64 {
	var n int64
	for w, v := range cr.nz {
		n += v
		cr.nz[w] = 0
	}
	return n
}

// pass runs fn over every shard of rows for task tk: on the pool when
// there is one and big says the work is worth it (each executor's
// threshold: poolMinWork of coordinate updates, or its own), else on the
// caller as one shard, worker 0 with every row. It is the one place an
// executor hands work to the pool. tk.ways is the number of workers the
// pass runs on. The stopwatch charges the time since its last mark to
// PhaseSerial and the pass's to PhaseParallel and the phases in also.
func (cr *crew) pass(big bool, fn func(w int, r layout.Range, tk *task), tk task, rows int, also ...Phase) PhaseTime {
	cr.sw.lap(PhaseSerial)
	if cr.pool != nil && big {
		tk.ways = cr.pool.size()
		cr.pool.run(fn, tk)
	} else {
		tk.ways = 1
		cr.tk = tk // the caller's copy, as the pool keeps its own (no allocation)
		fn(0, layout.Range{Lo: 0, Hi: rows}, &cr.tk)
	}
	return cr.sw.lap(PhaseParallel, also...)
}

// workers returns the workers' non-zero gradient counts and their first
// divergence since the last call, and clears them.
func (cr *crew) workers() (nonzero int64, first divergence) {
	return cr.nonzero(), firstOf(cr.bad)
}

// close stops the pool's workers.
func (cr *crew) close() {
	if cr.pool != nil {
		cr.runs += cr.pool.runs
		cr.pool.close()
		cr.pool = nil
	}
}

// pinCaller pins the calling goroutine, worker 0, when the run's workers are
// pinned and a pool runs; Undo the result when done.
func (cr *crew) pinCaller() affinity.Pinning {
	if !cr.pooled {
		return affinity.Pinning{}
	}
	return pinFirst(cr.cpus)
}

// Memory is what a run holds in the engine, in bytes: the state (node
// records, Θ, y, clocks, the edge list's huge-page copy) and what its
// executor keeps besides (margins, block buffers, cached decompositions,
// the parallel executor's windows and level marks).
type Memory struct {
	State, Executor int64
}

// EstimateMemory returns the memory of a run of cfg on a problem of shape
// sh, before anything is allocated: it asks the executor that New would
// choose, so a schedule's buffers cannot be forgotten.
func EstimateMemory(sh Shape, cfg Config) (Memory, error) {
	kind, err := choose(sh, cfg)
	if err != nil {
		return Memory{}, err
	}
	workers := par.Workers(cfg.Workers)
	rows := sh.rows(cfg.Algorithm)
	m := Memory{State: stateMemory(rows, sh.D, sh.P, sh.Edges, cfg.Algorithm, kind.compact, kind.storesTheta) + netBytes(sh, cfg), Executor: kind.bytes(sh, cfg, workers)}
	if pl, ok, _ := kind.parallel(sh, cfg, workers); ok {
		m.Executor += asyncParBytes(rows, pl.dataflow, !cfg.Network.IsPerfect())
	}
	return m, nil
}
