package engine

import (
	"fmt"
	"io"
	"strings"
	"time"

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
	// savedLen is the number of floats the executor adds to a checkpoint
	// after the state's common sections (0: none); writeSaved writes them,
	// checkSaved validates what was read before anything is applied, and
	// applySaved applies it.
	savedLen() int
	writeSaved(w io.Writer, fc *floatCodec) error
	checkSaved(v []float64) error
	applySaved(v []float64)
	// restore rebuilds what the executor derives from the state (scales,
	// margins' companions, projections) after a checkpoint was read.
	restore()
	// close releases the executor's own workers, if any.
	close()
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
	// fits reports whether the executor runs this shape and configuration
	// (auto: whether auto may pick it).
	fits func(sh Shape, cfg Config, auto bool) bool
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
}

// executors is the one table the executor of a run is chosen from: auto
// takes the first row that fits, a named schedule the first row of that
// schedule that fits. An asynchronous executor runs on the parallel
// executor (exec_asyncpar.go) when the run has several workers and enough
// nodes.
var executors = []execKind{
	{ScheduleReduced, "cone", coneFits, coneBytes, newConeExec, false, false},
	{ScheduleReduced, "reduced", reducedFits, reducedBytes, newReducedExec, true, false},
	{ScheduleBlocked, "blocked", blockedFits, blockedBytes, newBlockedExec, false, false},
	{SchedulePlain, "plain", plainFits, plainBytes, newPlainExec, false, false},
	{SchedulePlain, "async", asyncFits, asyncBytes, newAsyncExec, false, false},
	{SchedulePlain, "async-cone", asyncConeFits, asyncConeBytes, newAsyncConeExec, false, false},
	// A user objective (problem.Custom): blocked synchronous, then plain
	// synchronous and asynchronous (exec_genericblocked.go, exec_generic.go).
	{ScheduleBlocked, "generic-blocked", genericBlockedFits, genericBlockedBytes, newGenericBlockedExec, false, false},
	{SchedulePlain, "generic", genericFits, genericBytes, newGenericExec, false, false},
	{ScheduleReference, "reference", func(Shape, Config, bool) bool { return true }, referenceBytes, newReferenceExec, false, true},
}

// requirement says, for a named schedule, what it needs.
var requirement = map[Schedule]string{
	ScheduleReduced: "the synchronous algorithm, the gossip estimator, and an AUC loss with ψ = none or l2 or the metric loss with ψ = psd, none or l2 (and not --exact-psd)",
	ScheduleBlocked: "the synchronous algorithm and an AUC loss with ψ = none or l2, or a user objective (problem.Custom) with ψ other than psd",
	SchedulePlain:   "the synchronous or asynchronous algorithm and an AUC loss with ψ = none or l2, the asynchronous algorithm and the metric loss with ψ = psd, none or l2 (and not --exact-psd), or a user objective (problem.Custom) with ψ other than psd",
}

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
	for _, e := range executors {
		if (auto || e.schedule == want) && e.fits(sh, cfg, auto) {
			return e, nil
		}
	}
	if err := netRefusal(sh, cfg, want); err != nil {
		return execKind{}, err
	}
	return execKind{}, fmt.Errorf("engine: the %s schedule needs %s (got %s, %s, %s, %s)", want, requirement[want],
		cfg.Algorithm, cfg.Estimator, sh.Loss, sh.Reg)
}

// parallelAsync reports whether an asynchronous run goes to the parallel
// executor.
func parallelAsync(sh Shape, cfg Config, workers int) bool {
	if cfg.Algorithm != Async || workers < 2 || !netFits(cfg) {
		return false // (the parallel executor does not honour a network model yet)
	}
	rows := sh.rows(cfg.Algorithm)
	return rows >= asyncMinNodes || rows >= asyncHeavyMinNodes && heavyAsync(sh, cfg)
}

// crew is a run's workers: their number and CPUs, the pool of row shards
// that the synchronous executors hand rounds and blocks to (nil when
// everything runs on the caller), and per-worker scratch allocated once —
// the problem's workspaces, non-zero gradient counts and divergence
// records.
type crew struct {
	// serial and parallel: wall time the executor spent with the caller
	// alone, and with the pool's workers (Sim.Profile).
	serial, parallel time.Duration
	measure          time.Duration // in Sim.Measure
	n                int
	cpus             []int  // CPU of each worker (nil: not pinned)
	why              string // why not pinned
	pool             *pool
	pooled           bool  // a pool (this one or an executor's own) was started
	runs             int64 // rounds the pool ran before close (for tests)
	ws               []*problem.Workspace
	nz               []int64
	bad              []divergence

	// serialCPU and parallelCPU: the caller's thread CPU time in the same
	// phases as serial and parallel, where an executor measures it (the
	// reduced schedule's pooled blocks, on Linux): unlike wall time, not
	// inflated by other processes.
	serialCPU, parallelCPU time.Duration

	// touches and parTouches: the reduced schedule's touches (one a
	// round) and those of them its parallel pass ran (Profile).
	touches, parTouches int64
	// reduced: the reduced schedule's blocks by phase (Profile).
	reduced ReducedPhases
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

// timedPass runs fn over every shard of rows — on the pool when there is one
// and big says the work is worth it, else on the caller as one shard — and
// counts its time as parallel and the time since begin as serial (Profile).
// It returns when it ended: the caller counts its time after that as serial.
func (cr *crew) timedPass(begin time.Time, big bool, fn func(w int, r layout.Range, tk *task), rows int) time.Time {
	t0 := time.Now()
	cr.serial += t0.Sub(begin)
	if cr.pool != nil && big {
		cr.pool.run(fn, task{})
	} else {
		fn(0, layout.Range{Lo: 0, Hi: rows}, nil)
	}
	t1 := time.Now()
	cr.parallel += t1.Sub(t0)
	return t1
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
	if parallelAsync(sh, cfg, workers) {
		// The gossip fast path runs the dataflow schedule (newAsyncParExec).
		m.Executor += asyncParBytes(rows, kind.name == "async" && cfg.Estimator == Gossip)
	}
	return m, nil
}
