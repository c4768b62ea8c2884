package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/pairgossip/pairgossip/affinity"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/hugepage"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// Sub-stream identifiers of the run's seed.
const (
	streamEdges = 1
	streamEval  = 2
	hashAux     = 3 // counter-based draws of the unbiased baseline
)

// Sim is one run of an algorithm: the problem, the graph, and the state.
type Sim struct {
	prob *problem.Problem
	g    *graph.Graph
	cfg  Config

	// Z, Theta and ThetaBar hold z_k, θ_k and θ̄_k, one row per node (a
	// single row for Centralized). They are views into one array of node
	// records [x_k | z_k | θ_k | θ̄_k] (layout.NewRecords), X being the
	// engine's copy of the data, so that an update reads one contiguous
	// record per node.
	X, Z, Theta, ThetaBar layout.Matrix
	// YX[k] is a copy of x_{Y[k]}, node k's auxiliary point, kept in its
	// record so that an update streams through contiguous memory.
	YX   layout.Matrix
	ylab []int32 // label of y_k
	// Y[k] is the index of node k's auxiliary observation y_k in the data.
	Y []int32
	// Count[k] is node k's activation count (Async); m_k = Count[k]/p_k.
	Count []int64
	invP  []float64 // 1/p_k (Async)

	t                  int64 // iterations done
	edges              *rng.Stream
	edgeList           [][2]int32 // the graph's edges (a huge-page copy when large)
	gradEvals, nonzero int64

	workers  int
	pool     *pool
	poolRuns int64           // rounds the pool ran before Close (for tests)
	pinCPUs  []int           // CPU of each pool worker (nil: not pinned)
	pinWhy   string          // why not pinned
	apar     *asyncPar       // parallel asynchronous executor (nil: serial loop)
	serEv    []int32         // the serial asynchronous loop's window of edges
	pfAddr   [][]uintptr     // per worker: room for one event's prefetch addresses (prefetchBuffers)
	pfRec    []uintptr       // the byte offsets of the lines it prefetches in a record
	pfOn     bool            // whether it prefetches (the state outgrows the caches)
	evSc     []paddedScalars // per worker: the event kernel's scalars

	// The linear fast path (fast.go).
	fast       bool
	schedule   string
	marg       []float64    // synchronous: each node's margin for the next round
	ck         []float64    // asynchronous: c_k, θ_k = c_k·z_k
	cPrev      float64      // synchronous: c of the last round
	thetaStale bool         // Theta must be rebuilt from Z
	endTheta   [2][]float64 // θ of the round's endpoints before the averaging
	block      *syncBlock   // the blocked and reduced schedules (nil: plain)
	red        *reducedState
	cone       *coneState // the reduced metric-learning schedule (cone.go)
	redStartFn func(w int, r layout.Range)
	redEndFn   func(w int, r layout.Range)
	roundT     int64 // the round the pool is working on
	roundI     int   // the endpoints of its edge
	roundJ     int
	roundG     float64 // its step size
	roundFn    func(w int, r layout.Range)
	ws         []*problem.Workspace // per worker
	nzShard    []int64              // per worker non-zero gradient counts
	badShard   []badNode
	eval       *problem.Evaluator
	evalRows   []int
	scratch    struct {
		obj, auc, zbar, omega, mean []float64
		aux                         []int32
		all                         []int
	}
}

// paddedScalars keeps workers' event scalars on separate cache lines.
type paddedScalars struct {
	kernel.EventScalars
	_ [128 - unsafe.Sizeof(kernel.EventScalars{})]byte
}

type badNode struct {
	node  int
	field string
}

// nodeCount is the number of state rows.
func (s *Sim) nodeCount() int {
	if s.cfg.Algorithm == Centralized {
		return 1
	}
	return s.prob.N
}

// poolMinWork is the number of coordinate updates below which a round (or a
// block) runs on the calling goroutine: handing it to the workers costs
// more. With the spinning barrier a round costs about 0.6 µs more than its
// work; 2 workers beat 1 on the plain schedule from n·d = 4096 (256 nodes
// of d = 16: 3.3 µs against 5.8 µs per round, this 2-core machine).
var poolMinWork = 1 << 12

// reducedMinPoolWork is poolMinWork for the reduced AUC schedule, whose
// blocks keep a serial part (the touched nodes, in event order): with
// blocks of ≈ 4√n rounds, 2 workers beat 1 from about n·d = 2¹⁸ (bench
// sync, d = 16, medians of 3: n = 4096 1.99 µs a round with 2 workers
// against 1.93 with 1; n = 16384 4.33 against 5.15; n = 65536 7.8 against
// 12.1).
var reducedMinPoolWork = 1 << 18

// coneMinPoolWork is the same threshold for the reduced metric schedule's
// changed nodes, counted as (nodes)·d³, the order of their eigen-work.
var coneMinPoolWork = 4096

// autoEvalCost is the budget, in pair-loss evaluations per measurement, under
// which all nodes are measured when EvalNodes = 0.
const autoEvalCost = 8e6

// New prepares a run. g may be nil for Centralized; otherwise it must have
// one node per data point and be connected.
func New(p *problem.Problem, g *graph.Graph, cfg Config) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.LogPoints == 0 {
		cfg.LogPoints = 30
	}
	s := &Sim{prob: p, g: g, cfg: cfg}
	if cfg.Algorithm != Centralized {
		if g == nil {
			return nil, fmt.Errorf("engine: %s needs a graph", cfg.Algorithm)
		}
		if g.N != p.N {
			return nil, fmt.Errorf("engine: graph has %d nodes but the data has %d points (one point per node)", g.N, p.N)
		}
		if len(g.Edges) == 0 || !g.Connected() {
			return nil, fmt.Errorf("engine: graph %s is not connected", g.Name)
		}
	}
	rows := s.nodeCount()
	rec := layout.NewRecords(rows, p.D, p.D, p.P, p.P)
	s.X, s.YX, s.Z, s.ThetaBar = rec[0], rec[1], rec[2], rec[3]
	s.Theta = layout.New(rows, p.P)
	s.Y = make([]int32, rows)
	s.ylab = make([]int32, rows)
	for k := range s.Y {
		s.Y[k] = int32(k)
	}
	if rows == p.N {
		s.X.CopyFrom(p.X)
		s.YX.CopyFrom(p.X)
		copy(s.ylab, p.Label)
	}
	switch cfg.Schedule {
	case ScheduleReduced, ScheduleAuto, "":
		if coneApplies(p, cfg) && !cfg.ExactPSD {
			s.schedule = ScheduleReduced
			break
		}
		if linearProblem(p) && cfg.Algorithm == Sync && cfg.Estimator == Gossip {
			s.fast, s.schedule = true, ScheduleReduced
			break
		}
		if cfg.Schedule == ScheduleReduced {
			return nil, fmt.Errorf("engine: the reduced schedule needs the synchronous algorithm, the gossip estimator, and an AUC loss with ψ = none or l2 or the metric loss with ψ = psd, none or l2 (and not --exact-psd)")
		}
		s.schedule = SchedulePlain
		s.fast = linearProblem(p) && cfg.Algorithm != Centralized
		if !s.fast {
			s.schedule = ScheduleReference
		}
		if s.fast && cfg.Algorithm == Sync && blockRounds(rows) > 1 {
			s.schedule = ScheduleBlocked
		}
	case SchedulePlain, ScheduleBlocked:
		s.schedule = SchedulePlain
		s.fast = linearProblem(p) && cfg.Algorithm != Centralized
		if !s.fast {
			s.schedule = ScheduleReference
		}
		if s.fast && cfg.Algorithm == Sync && cfg.Schedule != SchedulePlain && (cfg.Schedule == ScheduleBlocked || blockRounds(rows) > 1) {
			s.schedule = ScheduleBlocked
		}
	case ScheduleReference:
		s.schedule = ScheduleReference
	default:
		return nil, fmt.Errorf("engine: unknown schedule %q (valid: %s)", cfg.Schedule, strings.Join(Schedules, ", "))
	}
	if (cfg.Schedule == SchedulePlain || cfg.Schedule == ScheduleBlocked) && !s.fast {
		return nil, fmt.Errorf("engine: the %s schedule needs an AUC loss with ψ = none or l2 (got %s, %s)", cfg.Schedule, p.Loss, p.Reg.Kind)
	}
	if cfg.Schedule == ScheduleBlocked && cfg.Algorithm != Sync {
		return nil, fmt.Errorf("engine: the blocked schedule is for the synchronous algorithm")
	}
	if s.fast && cfg.Algorithm == Sync {
		s.marg = make([]float64, rows)
		s.endTheta = [2][]float64{make([]float64, p.P), make([]float64, p.P)}
	}
	if s.fast && cfg.Algorithm == Async {
		s.ck = make([]float64, rows)
		s.serEv = make([]int32, 2*asyncSerialWindow)
		s.pfRec = s.recordLines()
		s.pfOn = int64(rows)*int64(s.X.Stride+s.YX.Stride)*8 > int64(asyncPrefetchBytes)
	}
	if cfg.Algorithm == Async {
		s.Count = make([]int64, rows)
		s.invP = make([]float64, rows)
		for k := range s.invP {
			s.invP[k] = float64(g.UndirectedEdges()) / float64(g.Degree(k)) // 1/p_k = |E|/(2d_k)
		}
	}
	s.edges = rng.New(cfg.Seed, streamEdges)
	if g != nil {
		s.edgeList = g.Edges
		if len(g.Edges)*8 >= hugepage.MinBytes {
			s.edgeList = make([][2]int32, len(g.Edges))
			hugepage.Advise(s.edgeList)
			copy(s.edgeList, g.Edges)
		}
	}
	s.workers = par.Workers(cfg.Workers)
	if cfg.Pin {
		s.pinCPUs, s.pinWhy = affinity.Plan(s.workers)
	} else {
		s.pinWhy = "not asked (Config.Pin)"
	}
	if cfg.Algorithm == Sync && s.workers > 1 && rows >= 2*layout.LineFloats {
		s.pool = newPool(layout.Shards(rows, s.workers), s.pinCPUs)
		s.roundFn = func(w int, r layout.Range) { s.syncShard(w, r, s.roundT, s.roundG) }
	}
	if s.schedule == ScheduleBlocked {
		s.block = newSyncBlock(rows, max(1, s.workers), blockRounds(rows))
		s.block.fn = s.blockShard
	}
	if s.schedule == ScheduleReduced && !s.fast {
		s.cone = newConeState(s)
	}
	if s.schedule == ScheduleReduced && s.fast {
		B := reducedRounds(rows)
		s.block = newSyncBlock(rows, max(1, s.workers), B)
		s.red = newReducedState(rows, B)
		s.redStartFn, s.redEndFn = s.reducedShard, s.reducedEnd
	}
	if cfg.Algorithm == Async && s.workers > 1 && rows >= asyncMinNodes {
		s.apar = newAsyncPar(rows, s.workers, s.pinCPUs)
		s.apar.fn = func(w int, _ layout.Range) { s.asyncLevel(w) }
	}
	nw := max(1, s.workers)
	s.ws = make([]*problem.Workspace, nw)
	for w := range s.ws {
		s.ws[w] = p.NewWorkspace()
	}
	s.nzShard = make([]int64, nw)
	s.evSc = make([]paddedScalars, nw)
	if s.pfRec != nil {
		s.pfAddr = prefetchBuffers(nw, 2*(len(s.pfRec)+layout.Stride(p.P)/layout.LineFloats+6))
	}
	s.badShard = make([]badNode, nw)

	// Evaluation set: all nodes, or a seeded sorted sample.
	m := rows
	switch {
	case cfg.EvalNodes > 0:
		m = min(cfg.EvalNodes, rows)
	case cfg.EvalNodes == 0:
		per := float64(len(p.Positives())) * float64(len(p.Negatives()))
		if p.Loss.IsMetric() {
			per = float64(p.N) * float64(p.N) * float64(p.D) * 2
		}
		if float64(rows)*per > autoEvalCost {
			m = max(16, min(rows, int(autoEvalCost/per)))
		}
	}
	if m == rows {
		s.evalRows = make([]int, rows)
		for k := range s.evalRows {
			s.evalRows[k] = k
		}
	} else {
		perm := make([]int, rows)
		rng.New(cfg.Seed, streamEval).Perm(perm)
		s.evalRows = slices.Clone(perm[:m])
		slices.Sort(s.evalRows)
	}
	s.eval = p.NewEvaluator(m, s.workers)
	s.scratch.obj = make([]float64, m)
	s.scratch.auc = make([]float64, m)
	s.scratch.zbar = make([]float64, p.P)
	s.scratch.omega = make([]float64, p.P)
	s.scratch.mean = make([]float64, p.P)
	s.scratch.aux = make([]int32, rows)
	return s, nil
}

// Close releases the worker pool. A Sim must not be used after Close.
func (s *Sim) Close() {
	if s.pool != nil {
		s.poolRuns += s.pool.runs
		s.pool.close()
		s.pool = nil
	}
	if s.apar != nil {
		s.apar.pool.close()
		s.apar = nil
	}
}

// Pinned returns the CPU of each worker when the run's workers are pinned
// (Config.Pin), or nil and the reason they are not.
func (s *Sim) Pinned() (cpus []int, why string) {
	if s.pool == nil && s.apar == nil && s.pinCPUs != nil {
		return nil, "no worker pool (one worker, or a problem too small to share)"
	}
	return s.pinCPUs, s.pinWhy
}

// pinCaller pins the calling goroutine, worker 0 of the run's pool, when
// the pool is pinned; Undo the result when done.
func (s *Sim) pinCaller() affinity.Pinning {
	if s.apar != nil {
		return s.apar.pool.pinCaller()
	}
	return s.pool.pinCaller()
}

// Workers returns the number of workers of the run.
func (s *Sim) Workers() int { return s.workers }

// Iter returns the number of iterations done.
func (s *Sim) Iter() int64 { return s.t }

// EvalNodes returns the nodes measured.
func (s *Sim) EvalNodes() []int { return s.evalRows }

// Config returns the run's configuration (with defaults filled in).
func (s *Sim) Config() Config { return s.cfg }

// GradEvals returns the gradient evaluations done, all and non-zero.
func (s *Sim) GradEvals() (all, nonzero int64) { return s.gradEvals, s.nonzero }

// DivergenceError reports a non-finite value in the state.
type DivergenceError struct {
	Iter  int64
	Node  int
	Field string
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("divergence at iteration %d, node %d: %s is not finite (reduce --gamma-c?)", e.Iter, e.Node, e.Field)
}

// aux returns the index of the second point node k uses at iteration t.
func (s *Sim) aux(k int, t int64) int {
	if s.cfg.Estimator == Unbiased {
		return rng.HashIntN(s.cfg.Seed^hashAux, uint64(k), uint64(t), s.prob.N)
	}
	return int(s.Y[k])
}

// drawEdge returns the endpoints of an undirected edge drawn uniformly.
func (s *Sim) drawEdge() (int, int) {
	e := s.edgeList[s.edges.IntN(len(s.edgeList))]
	return int(e[0]), int(e[1])
}

// average sets z_i, z_j ← (z_i + z_j)/2, both from the old values.
func (s *Sim) average(i, j int) {
	zi, zj := s.Z.Row(i), s.Z.Row(j)
	for a := range zi {
		v := (zi[a] + zj[a]) / 2
		zi[a], zj[a] = v, v
	}
}

// finite reports whether every value of v is finite.
func finite(v []float64) bool {
	var acc float64
	for _, x := range v {
		acc += x - x
	}
	return acc == 0
}

// Step performs one iteration and returns a *DivergenceError if a node's
// state became non-finite.
func (s *Sim) Step() error {
	if s.cone != nil {
		return s.coneAdvance(s.t + 1)
	}
	s.t++
	t := s.t
	switch s.cfg.Algorithm {
	case Sync:
		i, j := s.drawEdge()
		if s.fast {
			s.syncFastPre(i, j)
		} else {
			s.average(i, j)
			s.swapY(i, j)
		}
		s.roundI, s.roundJ = i, j
		gamma := s.cfg.Gamma(float64(t))
		if s.pool == nil || s.prob.N*s.prob.P < poolMinWork {
			s.syncShard(0, layout.Range{Lo: 0, Hi: s.prob.N}, t, gamma)
		} else {
			s.roundT, s.roundG = t, gamma
			s.pool.run(s.roundFn)
		}
		if s.fast {
			s.cPrev = s.smoothScale(gamma, float64(t))
			s.thetaStale = true
		}
		s.gradEvals += int64(s.prob.N)
		for w := range s.nzShard {
			s.nonzero += s.nzShard[w]
			s.nzShard[w] = 0
		}
		for w := range s.badShard {
			if b := s.badShard[w]; b.field != "" {
				s.syncTheta()
				return &DivergenceError{Iter: t, Node: b.node, Field: fieldOf(s.Z.Row(b.node), s.Theta.Row(b.node))}
			}
		}
	case Async:
		i, j := s.drawEdge()
		s.thetaStale = s.fast
		nz, bad := s.asyncEvent(i, j, t, 0)
		s.gradEvals += 2
		s.nonzero += nz
		if bad >= 0 {
			s.syncTheta()
			return &DivergenceError{Iter: t, Node: bad, Field: fieldOf(s.Z.Row(bad), s.Theta.Row(bad))}
		}
	case Centralized:
		i, j := s.edges.IntN(s.prob.N), s.edges.IntN(s.prob.N)
		z, th := s.Z.Row(0), s.Theta.Row(0)
		s.gradEvals++
		if s.prob.PairGrad(z, 1, th, i, j) {
			s.nonzero++
		}
		s.prob.Reg.Smooth(th, z, s.cfg.Gamma(float64(t)), float64(t), s.ws[0])
		avg(s.ThetaBar.Row(0), th, float64(t))
		if !finite(s.ThetaBar.Row(0)) || !finite(z) {
			return &DivergenceError{Iter: t, Node: 0, Field: "theta"}
		}
	}
	return nil
}

// avg sets θ̄ ← (1 − 1/c) θ̄ + θ/c.
func avg(bar, th []float64, c float64) {
	a, b := 1-1/c, 1/c
	for i := range bar {
		bar[i] = a*bar[i] + b*th[i]
	}
}

// syncShard is the synchronous update of nodes r.Lo..r.Hi−1 at round t:
// z_k += ∇f(θ_k; x_k, y_k); θ_k = π_t(z_k); θ̄_k ← (1 − 1/t)θ̄_k + θ_k/t.
func (s *Sim) syncShard(w int, r layout.Range, t int64, gamma float64) {
	p, ws := s.prob, s.ws[w]
	tf := float64(t)
	var nz int64
	if s.fast {
		s.syncFastShard(w, r.Lo, r.Hi, t, gamma)
		return
	}
	// The PSD cone is a cone: π_t(z) = γ(t)·Proj(−z). A node whose z did not
	// change this round (no gradient, not an endpoint of the drawn edge) needs
	// no eigendecomposition: θ_k(t) = (γ(t)/γ(t−1))·θ_k(t−1), exact in real
	// arithmetic (one rounding per round in floating point).
	cone := s.prob.Reg.Kind == problem.RegPSD && !s.cfg.ExactPSD && t > 1
	ratio := 0.0
	if cone {
		ratio = gamma / s.cfg.Gamma(tf-1)
	}
	for k := r.Lo; k < r.Hi; k++ {
		z, th := s.Z.Row(k), s.Theta.Row(k)
		changed := p.PairGrad(z, 1, th, k, s.aux(k, t))
		if changed {
			nz++
		}
		if cone && !changed && k != s.roundI && k != s.roundJ {
			for a := range th {
				th[a] *= ratio
			}
		} else {
			p.Reg.Smooth(th, z, gamma, tf, ws)
		}
		bar := s.ThetaBar.Row(k)
		avg(bar, th, tf)
		if !finite(bar) && s.badShard[w].field == "" {
			s.badShard[w] = badNode{k, fieldOf(z, th)}
		}
	}
	s.nzShard[w] += nz
}

func fieldOf(z, th []float64) string {
	if !finite(z) {
		return "z (dual variable)"
	}
	if !finite(th) {
		return "theta"
	}
	return "theta_bar"
}

// asyncNode is node k's half of an asynchronous event t, run by worker w:
// z_k += ∇f(θ_k; x_k, y_k)/p_k; m_k += 1/p_k; θ_k = π_{m_k}(z_k);
// θ̄_k ← (1 − 1/(m_k p_k)) θ̄_k + θ_k/(m_k p_k), where m_k p_k is the
// activation count (kept as an integer, so m_k carries no rounding drift).
// It reports whether the gradient was non-zero and whether θ̄_k is finite.
func (s *Sim) asyncNode(k int, t int64, w int) (nonzero, ok bool) {
	p := s.prob
	z, th := s.Z.Row(k), s.Theta.Row(k)
	nonzero = p.PairGrad(z, s.invP[k], th, k, s.aux(k, t))
	s.Count[k]++
	c := float64(s.Count[k])
	m := c * s.invP[k]
	p.Reg.Smooth(th, z, s.cfg.Gamma(m), m, s.ws[w])
	bar := s.ThetaBar.Row(k)
	avg(bar, th, c)
	return nonzero, finite(bar)
}

// asyncEvent is the whole event t on edge (i, j): swap y_i ↔ y_j, average
// z_i and z_j, then each endpoint's update. It touches rows i and j only.
func (s *Sim) asyncEvent(i, j int, t int64, w int) (nonzero int64, bad int) {
	if s.fast {
		return s.asyncFastEvent(i, j, t, w)
	}
	s.swapY(i, j)
	s.average(i, j)
	bad = -1
	for _, k := range [2]int{i, j} {
		nz, ok := s.asyncNode(k, t, w)
		if nz {
			nonzero++
		}
		if !ok && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

// Record is one measurement of the run, at θ̄_k of the evaluated nodes.
type Record struct {
	Iter             int64
	GradEvals        int64 // gradient evaluations so far
	GradEvalsNonzero int64 // of which non-zero
	// Objective R_n(θ̄_k) over the evaluated nodes.
	ObjMean, ObjStd, ObjMin, ObjMax float64
	// AUCMean is the mean AUC of θ̄_k (NaN for metric learning).
	AUCMean float64
	// Bias is ε̄ᵀω (paper Sec. 3): ε_k = ∇f(θ_k; x_k, y_k) − ∇f_k(θ_k), the
	// error of node k's gradient estimate at the current state, averaged over
	// the evaluated nodes; ω = π_t(z̄) with z̄ the mean dual variable. Zero
	// for Centralized (its estimates are unbiased).
	Bias float64
	// Consensus is the mean over all nodes of ‖θ̄_k − mean θ̄‖.
	Consensus float64
}

// Measure evaluates the current state.
func (s *Sim) Measure() Record {
	s.syncTheta()
	p := s.prob
	rows := s.nodeCount()
	r := Record{Iter: s.t, GradEvals: s.gradEvals, GradEvalsNonzero: s.nonzero}
	obj, auc := s.scratch.obj, s.scratch.auc
	s.eval.Eval(s.ThetaBar, s.evalRows, obj, auc)
	r.ObjMin, r.ObjMax = math.Inf(1), math.Inf(-1)
	var sum, aucSum float64
	for c := range obj {
		sum += obj[c]
		aucSum += auc[c]
		r.ObjMin = math.Min(r.ObjMin, obj[c])
		r.ObjMax = math.Max(r.ObjMax, obj[c])
	}
	m := float64(len(obj))
	r.ObjMean = sum / m
	r.AUCMean = aucSum / m
	var ss float64
	for _, v := range obj {
		ss += (v - r.ObjMean) * (v - r.ObjMean)
	}
	r.ObjStd = math.Sqrt(ss / m)

	if s.cfg.Algorithm == Centralized {
		return r
	}
	// Consensus spread.
	mean := s.scratch.mean
	clear(mean)
	for k := 0; k < rows; k++ {
		for a, v := range s.ThetaBar.Row(k) {
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(rows)
	}
	var spread float64
	for k := 0; k < rows; k++ {
		var d2 float64
		for a, v := range s.ThetaBar.Row(k) {
			d2 += (v - mean[a]) * (v - mean[a])
		}
		spread += math.Sqrt(d2)
	}
	r.Consensus = spread / float64(rows)

	// Bias: ω = π_t(z̄), clock t (the event count for Async, whose m_k are
	// unbiased estimates of it).
	if s.t > 0 {
		zbar := s.scratch.zbar
		clear(zbar)
		for k := 0; k < rows; k++ {
			for a, v := range s.Z.Row(k) {
				zbar[a] += v
			}
		}
		for a := range zbar {
			zbar[a] /= float64(rows)
		}
		tf := float64(s.t)
		p.Reg.Smooth(s.scratch.omega, zbar, s.cfg.Gamma(tf), tf, s.ws[0])
		for k := range s.scratch.aux {
			s.scratch.aux[k] = int32(s.aux(k, s.t+1))
		}
		r.Bias = s.eval.Bias(s.Theta, s.scratch.aux, s.evalRows, s.scratch.omega)
	}
	return r
}

// Run performs the remaining iterations up to Config.Iters, measuring at the
// log-spaced schedule and calling onRecord (if not nil) with each record. It
// stops early with ctx's error when ctx is cancelled (checked between chunks
// of iterations: 256 events or steps, one window of the parallel executor, or
// about 4·10⁶ node-coordinate updates of the synchronous algorithm), or with
// a *DivergenceError. The trace so far is returned in every case.
func (s *Sim) Run(ctx context.Context, onRecord func(Record)) ([]Record, error) {
	return s.RunWith(ctx, RunOptions{OnRecord: onRecord}, nil)
}

// RunWith is Run with checkpoints; trace is the trace so far when resuming
// from a checkpoint (nil otherwise).
func (s *Sim) RunWith(ctx context.Context, opt RunOptions, trace []Record) ([]Record, error) {
	defer s.pinCaller().Undo()
	sched := LogSchedule(s.cfg.Iters, s.cfg.LogPoints)
	next := 0
	for next < len(sched) && sched[next] <= s.t {
		next++
	}
	chunk := int64(256)
	if s.cfg.Algorithm == Sync {
		chunk = max(1, min(256, int64(4<<20)/int64(s.prob.N*s.prob.P)))
	}
	lastCkpt := time.Now()
	for s.t < s.cfg.Iters {
		if err := ctx.Err(); err != nil {
			return trace, err
		}
		if opt.Checkpoint != nil && time.Since(lastCkpt) >= opt.CheckpointEvery {
			if err := opt.Checkpoint(trace); err != nil {
				return trace, err
			}
			lastCkpt = time.Now()
		}
		stop := s.cfg.Iters
		if next < len(sched) {
			stop = sched[next]
		}
		if err := s.advance(stop, chunk); err != nil {
			s.syncTheta()
			return trace, err
		}
		if next < len(sched) && s.t == sched[next] {
			next++
			rec := s.Measure()
			trace = append(trace, rec)
			if opt.OnRecord != nil {
				opt.OnRecord(rec)
			}
		}
	}
	s.syncTheta()
	return trace, nil
}

// Advance performs up to n more iterations (never past Config.Iters) without
// measuring, using the same executors as Run. It is for benchmarks and for
// callers that measure on their own schedule.
func (s *Sim) Advance(n int64) error {
	defer s.pinCaller().Undo()
	stop := min(s.cfg.Iters, s.t+n)
	for s.t < stop {
		if err := s.advance(stop, stop-s.t); err != nil {
			s.syncTheta()
			return err
		}
	}
	s.syncTheta()
	return nil
}

// advance runs iterations towards stop with the run's executor: at most one
// window (parallel asynchronous), one block (blocked synchronous) or chunk
// iterations.
func (s *Sim) advance(stop, chunk int64) error {
	switch {
	case s.apar != nil:
		return s.asyncAdvance(stop)
	case s.red != nil:
		return s.syncReducedAdvance(stop)
	case s.cone != nil:
		return s.coneAdvance(stop)
	case s.block != nil:
		return s.syncBlockAdvance(stop)
	}
	return s.serialEvents(min(stop, s.t+chunk))
}

// Schedule returns the schedule in use (plain, blocked, reduced or reference).
func (s *Sim) Schedule() string { return s.schedule }

// Eigendecompositions returns the number of PSD projections done so far.
func (s *Sim) Eigendecompositions() int64 {
	var n int64
	for _, w := range s.ws {
		n += w.Eigs
	}
	return n
}

// StateChecksum returns a SHA-256 of the state (z, θ, θ̄, y, clocks,
// margins), the iteration and gradient counters and the edge stream, for
// comparing runs; the configuration is not included.
func (s *Sim) StateChecksum() [32]byte {
	s.syncTheta()
	h := sha256.New()
	rs, _ := s.edges.State()
	h.Write(rs)
	binary.Write(h, binary.LittleEndian, [3]int64{s.t, s.gradEvals, s.nonzero})
	s.writeState(h)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
