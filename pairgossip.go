// Package pairgossip is the entry point for programs that embed the engine:
// it turns one Config (data, problem, graph, algorithm, step size, seed) into
// a ready run, executes it with cancellation, and returns the trace, the final
// state and the centralized optimum.
//
//	cfg := pairgossip.DefaultConfig()           // AUC, Breast Cancer, Watts–Strogatz, sync
//	cfg.Iters = 2000
//	run, err := pairgossip.Prepare(cfg)
//	if err != nil { ... }
//	defer run.Close()
//	res, err := run.Execute(ctx, nil)
//	fmt.Println(res.Final.ObjMean, res.Optimum.Value)
//
// The conventions the paper leaves open are those of docs/design.md §2
// (summarised in the README): θ = π_t(z) = prox_{tγψ}(−γz) (§2.1); |E| counts
// ordered pairs, so p_k = 2d_k/|E| and the spectral gap is 1 − λ₂(I − L/|E|)
// (§2.2); Watts–Strogatz(n, k, p) joins each node to ⌊k/2⌋ neighbours on each
// side (§2.3). docs/design.md §5 gives the reading order of the code, from
// Prepare down to the kernels.
package pairgossip

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// Config is everything that defines a run (config.Config: its fields, the
// table of parameters that names and validates them).
type Config = config.Config

// DefaultConfig is the paper's AUC experiment (config.Default): Breast
// Cancer, Watts–Strogatz (k = 5, p = 0.3), synchronous gossip, γ(t) = 1/√t.
func DefaultConfig() Config { return config.Default() }

// Reached says whether a mean objective obj is within rel of the optimum
// opt: (obj − opt)/|opt| ≤ rel, computed as obj − opt ≤ rel·|opt| (at a
// zero optimum, only obj ≤ 0 is). A NaN objective is not.
func Reached(obj, opt, rel float64) bool {
	return obj-opt <= rel*math.Abs(opt)
}

// SetupTimes is where Prepare's time went.
type SetupTimes struct {
	Data, Problem, Graph, Engine time.Duration
}

// Total is the whole set-up.
func (t SetupTimes) Total() time.Duration { return t.Data + t.Problem + t.Graph + t.Engine }

// Run is a prepared run.
type Run struct {
	Setup    SetupTimes // how long Prepare took, by part
	Config   Config
	Data     *dataset.Dataset
	Problem  *problem.Problem
	Graph    *graph.Graph // nil for centralized
	Sim      *engine.Sim
	Warnings []string
	// Network is the run's network model (the paper's network: the zero
	// value; docs/networks.md), as the engine was given it.
	Network network.Model

	// edges records the activations to Config.WriteEdges (nil without).
	edges *edgeRecorder

	// userObjective: the problem is a program's own objective
	// (Input.Objective), cached only under userCacheKey
	// (Input.OptimumCacheKey) when it is not empty.
	userObjective bool
	userCacheKey  string
}

// PanicError is a panic of user code (an Input.Objective's method, a
// callback) recovered by PrepareWith or ExecuteWith and returned as an
// error, naming the user function (problem.Objective says which calls may
// be concurrent).
type PanicError = guard.PanicError

// Record is one measurement of a run (engine.Record).
type Record = engine.Record

// Result is what Execute returns.
type Result struct {
	Trace []engine.Record
	Final engine.Record
	// Checkpoints counts the checkpoints this execution wrote
	// (ExecOptions.Checkpoint): 0 after a divergence before the first was
	// due, when the file holds no state of this run.
	Checkpoints int
	Optimum     *problem.Optimum // nil when skipped
	Wall        time.Duration    // simulation and measurement, optimum excluded
	// Measure is the part of Wall spent measuring, OptimumTime the
	// centralized solve.
	Measure, OptimumTime time.Duration
	// OptimumSkipped says why the optimum was not solved although asked
	// for (the full-batch objective is out of reach at this size).
	OptimumSkipped string
	// OptimumCached says that Optimum came from the cache of optima
	// (Run.SolveOptimum); OptimumTime is then the lookup's time.
	OptimumCached bool
	// Nodes are the evaluated nodes' values at each measurement, when
	// ExecOptions.TraceNodes asked for them (NodesCSV writes them).
	Nodes []NodeRecord
	// Reached says that a run with Config.StopAt stopped at its target
	// (Final is the measurement that met it); false when it ran to Iters
	// without meeting it, or had no StopAt.
	Reached bool

	run *Run // for Model
}

// optimumPairBudget bounds the pair losses of one evaluation of the
// full-batch objective that the centralized solver is run on. The solver
// evaluates R_n about a hundred times (L-BFGS) to thousands (FISTA through
// the smoothing stages), so 10⁸ pairs already mean minutes (the cost of a
// pair loss: bench/RESULTS.md, "Measurements cited by comments outside the
// engine"): beyond, the solve would dwarf the simulation.
const optimumPairBudget = 1e8

// optimumOutOfReach returns why the centralized optimum is not solved for
// this problem ("" when it is). One evaluation of the exact objective costs
// |P|·|N| pair losses (AUC); for metric learning n² hinge terms and two
// n×n×d matrix products (about 4d flops a pair, which BLAS runs at several
// a nanosecond), counted as n²·(1 + d/16) pair losses.
//
// A problem with the fast pair sums (problem.Problem.FastOptimum: the
// logistic and squared-hinge AUC losses, and multipartite ranking or a user
// objective declaring one of them (problem.ScoreDifference), with ψ none or
// squared ℓ2) costs O(n·d) per evaluation (O(L·n) more with L levels) and
// is always in reach.
//
// Metric learning beyond the budget is in reach too, as the incomplete-U
// optimum (incompletePairs).
func (r *Run) optimumOutOfReach() string {
	p := r.Problem
	if p.FastOptimum() || r.incompletePairs() > 0 {
		return ""
	}
	return r.exactOutOfReach()
}

// incompletePairs is the B of the incomplete-U optimum
// (problem.IncompletePairs) for metric learning whose exact optimum is out
// of reach, 0 otherwise.
func (r *Run) incompletePairs() int64 {
	p := r.Problem
	if p.Loss != problem.MetricHinge || r.exactOutOfReach() == "" {
		return 0
	}
	return problem.IncompletePairs(p.N)
}

// incompleteSeed seeds the incomplete-U optimum's pairs: a constant, so
// the sample depends on the problem only and runs of one problem share
// the optimum (and its cache entry).
const incompleteSeed = 0x1c0a7e

// exactOutOfReach is optimumOutOfReach for the exact full-batch solve.
func (r *Run) exactOutOfReach() string {
	p := r.Problem
	pairs := float64(len(p.Positives())) * float64(len(p.Negatives()))
	switch {
	case p.Loss == problem.Custom:
		// A user's loss: the solver's n² calls of O(P) work each.
		pairs = float64(p.N) * float64(p.N) * float64(p.P)
	case p.Loss.IsMetric():
		pairs = float64(p.N) * float64(p.N) * (1 + float64(p.D)/16)
	}
	if pairs <= optimumPairBudget {
		return ""
	}
	return fmt.Sprintf("not solved: one evaluation of the full-batch objective costs %.2g pair losses at n = %d (the solver's limit is %.0g); compare with the measured objective instead",
		pairs, p.N, float64(optimumPairBudget))
}

// Prepare loads the data, builds the problem, the graph and the simulator.
// It validates the configuration first (Config.Validate: every error names
// the parameter), then reports what only the data and the graph can tell
// (a bad file, points per node that do not divide the data...).
func Prepare(cfg Config) (*Run, error) { return PrepareWith(cfg, PrepareOptions{}) }

// PrepareInput is Prepare with what a program holds in memory in place of
// names: its own objective, its data, its graph (Input; library.go). The
// fields of in that are set replace Config.Problem, Config.Data and
// Config.Graph, which then name them ("memory", the objective's name).
func PrepareInput(cfg Config, in Input) (*Run, error) {
	return PrepareWith(cfg, PrepareOptions{Input: in})
}

// PrepareOptions configures PrepareWith.
type PrepareOptions struct {
	// Input is what the program holds in memory (PrepareInput).
	Input Input
	// OnStage, if not nil, is called as each part of the set-up begins,
	// with Progress.Phase one of PhaseData, PhaseProblem, PhaseGraph and
	// PhaseEngine.
	OnStage func(Progress)
}

// Phases of a run, as Progress reports them.
const (
	PhaseData    = "data"    // loading or generating the data set
	PhaseProblem = "problem" // building the problem (labels, layout)
	PhaseGraph   = "graph"   // building and checking the graph
	PhaseEngine  = "engine"  // allocating the state, starting the workers
	PhaseRounds  = "rounds"  // iterations of the algorithm
	PhaseMeasure = "measure" // a measurement of the trace
	PhaseOptimum = "optimum" // the centralized full-batch solve
)

// Progress is where a run stands, for a status line (see ExecOptions and
// PrepareOptions).
type Progress struct {
	Phase string
	// Iter is the iteration reached, Iters the run's last; Measured is
	// the number of measurements taken and Measures the number planned
	// (rounds, measure and optimum phases only).
	Iter, Iters        int64
	Measured, Measures int
}

// PrepareWith is Prepare with data in memory and reporting its stages. A
// panic of user code (Input.Objective's methods, OnStage) is returned as a
// *PanicError.
func PrepareWith(cfg Config, opt PrepareOptions) (_ *Run, err error) {
	defer guard.Recover(&err)
	in := opt.Input
	stage := func(phase string) {
		if opt.OnStage != nil {
			opt.OnStage(Progress{Phase: phase})
		}
	}
	cfg = cfg.WithDefaults()
	if cfg.PointsNode == 0 {
		cfg.PointsNode = 1
	}
	vcfg, err := in.configFor(&cfg)
	if err != nil {
		return nil, err
	}
	if err := vcfg.Validate(); err != nil {
		return nil, in.placeholderError(err)
	}
	// Validate has parsed these names already (an objective's name is not a
	// Loss: objectiveName says so).
	loss, _ := problem.ParseLoss(cfg.Problem)
	rk, _ := problem.ParseReg(cfg.Reg)
	ecfg := cfg.EngineConfig()
	algo := ecfg.Algorithm
	if err := ecfg.Validate(); err != nil {
		return nil, err
	}

	stage(PhaseData)
	t0 := time.Now()
	if n, d, ok := dataset.GeneratedSize(cfg.Data, cfg.LoadOptions()); ok && in.X == nil {
		// A generated set is sized by its parameters: the estimate comes
		// before the generator allocates (a file is sized by reading it).
		if err := checkMemory(cfg, n, d, cfg.Workers, in.Objective); err != nil {
			return nil, err
		}
	}
	ds, err := in.load(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkMemory(cfg, ds.N, ds.D, cfg.Workers, in.Objective); err != nil {
		return nil, err
	}
	if err := checkScale(ds, loss.IsMetric() || cfg.Problem == "similarity"); err != nil {
		return nil, err
	}
	stage(PhaseProblem)
	t1 := time.Now()
	labels := make([]int32, ds.N)
	obj, isObj, err := in.objective(cfg, ds, labels)
	if err != nil {
		return nil, err
	}
	if isObj || in.X != nil {
		// labels are set: the objective's (levels or classes), or Input's.
	} else if loss.IsMetric() {
		copy(labels, ds.Class)
	} else {
		b, err := ds.Binary()
		if err != nil {
			return nil, fmt.Errorf("problem %s: %w", loss, err)
		}
		for i, v := range b {
			labels[i] = int32(v)
		}
	}
	// The problem reads the data in place where its layout allows (no copy
	// at d a multiple of 8), and has its own padded copy otherwise; either
	// way the data set's reference is dropped so that one copy is held.
	var prob *problem.Problem
	if isObj {
		prob, err = problem.NewObjectiveShared(obj, problem.Regularizer{Kind: rk, Lambda: cfg.Lambda, Radius: cfg.Radius}, ds.N, ds.D, ds.X, labels)
	} else {
		prob, err = problem.NewShared(loss, problem.Regularizer{Kind: rk, Lambda: cfg.Lambda, Radius: cfg.Radius}, cfg.B, ds.N, ds.D, ds.X, labels)
	}
	if err != nil {
		return nil, err
	}
	if len(ds.X) > 0 && &prob.X.Data[0] != &ds.X[0] && in.X == nil {
		ds.Close() // the problem copied it: release a mapped file now
	}
	ds.X = nil
	stage(PhaseGraph)
	t2 := time.Now()
	r := &Run{Config: cfg, Data: ds, Problem: prob, Warnings: append([]string(nil), ds.Warnings...),
		userObjective: in.Objective != nil, userCacheKey: in.OptimumCacheKey}
	if algo != engine.Centralized {
		if ds.N%cfg.PointsNode != 0 {
			return nil, fmt.Errorf("points per node %d does not divide the %d data points", cfg.PointsNode, ds.N)
		}
		nPhys := ds.N / cfg.PointsNode
		g, err := in.graph(cfg, nPhys)
		if err != nil {
			return nil, err
		}
		if g.N != nPhys {
			return nil, fmt.Errorf("graph %s has %d nodes but the data gives %d physical nodes", g.Name, g.N, nPhys)
		}
		if cfg.PointsNode > 1 {
			if g, err = graph.Tensor(g, cfg.PointsNode); err != nil {
				return nil, err
			}
		}
		warn, err := graph.Check(g)
		if err != nil {
			return nil, err
		}
		r.Warnings = append(r.Warnings, warn...)
		r.Graph = g
		if r.Network, err = in.network(cfg, vcfg, g.N); err != nil {
			return nil, in.nameFields(err)
		}
		ecfg.Network = r.Network
		if r.Network.EdgeStream != "" {
			if note := network.ReplayNote(r.Network.EdgeStream, cfg.Seed, r.Network); note != "" {
				r.Warnings = append(r.Warnings, note)
			}
		}
		if cfg.WriteEdges != "" {
			r.edges = &edgeRecorder{path: cfg.WriteEdges, header: network.StreamHeader(cfg.Seed, r.Network)}
			ecfg.EdgeSink = r.edges
		}
	}
	stage(PhaseEngine)
	t3 := time.Now()
	r.Sim, err = engine.New(prob, r.Graph, ecfg)
	if err != nil {
		return nil, in.nameFields(err)
	}
	if net := r.Sim.Net(); net != nil {
		// A recorded stream shorter than the run is refused before any
		// work, as a bad input (the engine checks it again at the start).
		if err := net.CheckHorizon(cfg.Iters); err != nil {
			r.Close()
			return nil, in.nameFields(err)
		}
		r.Warnings = append(r.Warnings, net.Warnings()...)
	}
	r.Setup = SetupTimes{Data: t1.Sub(t0), Problem: t2.Sub(t1), Graph: t3.Sub(t2), Engine: time.Since(t3)}
	if cfg.StopAt > 0 {
		if why := r.optimumOutOfReach(); why != "" {
			r.Close()
			return nil, &config.ParamError{Param: config.ParamByJSON("stop_at"), Err: fmt.Errorf("needs the optimum before the run, and it is out of reach: %s", why)}
		}
	}
	return r, nil
}

// checkScale refuses data whose pair terms overflow a float64 whatever the
// step size: a difference x_i − x_j summed over d coordinates (the AUC
// margins and gradients) past MaxFloat64 at |x| > MaxFloat64/(2d), and for
// a matrix parameter its square (δδᵀ, the Mahalanobis distance) at
// |x| > √(MaxFloat64/d)/2. Such a run would stop at its first iteration
// with a divergence that blames the step size.
func checkScale(ds *dataset.Dataset, matrix bool) error {
	if ds.D == 0 {
		return nil
	}
	limit := math.MaxFloat64 / (2 * float64(ds.D))
	if matrix {
		limit = math.Sqrt(math.MaxFloat64/float64(ds.D)) / 2
	}
	big, at := 0.0, -1
	for i, v := range ds.X {
		if a := math.Abs(v); a > big {
			big, at = a, i
		}
	}
	if !(big > limit) {
		return nil
	}
	what := "differences of such values overflow a float64"
	if matrix {
		what = "their squared differences (the Mahalanobis distances) overflow a float64"
	}
	return fmt.Errorf("%s: a value of magnitude %.3g (row %d, feature %d), beyond %.3g: %s whatever the step size; rescale the data (standardize it, or divide by a power of 10)",
		ds.Name, big, at/ds.D+1, at%ds.D+1, limit, what)
}

// Close releases the run's workers.
func (r *Run) Close() { r.Sim.Close() }

// Execute runs the simulation to the end (or until ctx is cancelled or the
// run diverges, returning the trace so far with the error), then solves for
// the centralized optimum unless Config.SkipOptimum.
func (r *Run) Execute(ctx context.Context, onRecord func(engine.Record)) (*Result, error) {
	return r.ExecuteWith(ctx, ExecOptions{OnRecord: onRecord})
}

// ExecOptions configures ExecuteWith.
type ExecOptions struct {
	OnRecord func(engine.Record)
	// Checkpoint, if set, is a file the whole state is written to every
	// CheckpointEvery (atomically: temporary file, fsync, rename), and at the
	// end of the run. A diverged state is never written, so the file keeps
	// the last good state.
	Checkpoint      string
	CheckpointEvery time.Duration
	// Trace is the trace so far, as returned by Resume.
	Trace []engine.Record
	// OnProgress, if not nil, is called often (after every advance of the
	// executor, before each measurement and before the optimum solve) with
	// where the run stands; it must be cheap and do its own throttling.
	OnProgress func(Progress)
	// TraceNodes keeps each evaluated node's objective (and AUC) at every
	// measurement in Result.Nodes (after a resume: the measurements taken
	// since).
	TraceNodes bool
	// Optimum, if not nil, is the run's optimum known already (a sweep's,
	// solved once for its runs of one problem): it is used, and reported,
	// instead of solving it, also with Config.SkipOptimum.
	Optimum *problem.Optimum
}

// ExecuteWith is Execute with checkpoints and resumption.
//
// A panic of user code is returned as a *PanicError with the result so far
// (the objective's methods and the callbacks of opt: engine.Sim.RunWith and
// problem.Problem.Solve recover those of their own calls).
func (r *Run) ExecuteWith(ctx context.Context, opt ExecOptions) (out *Result, err error) {
	out = &Result{Trace: opt.Trace}
	defer guard.Recover(&err)
	// With StopAt the optimum comes first: the run stops at a distance from it.
	known, optTime, optCached := opt.Optimum, time.Duration(0), false
	if r.Config.StopAt > 0 && known == nil {
		if r.Config.SkipOptimum {
			return out, &config.ParamError{Param: config.ParamByJSON("stop_at"), Err: errors.New("needs the optimum before the run, which Config.SkipOptimum skips")}
		}
		if opt.OnProgress != nil {
			opt.OnProgress(Progress{Phase: PhaseOptimum, Iter: r.Sim.Iter(), Iters: r.Config.Iters, Measured: len(opt.Trace), Measures: len(r.Sim.MeasureIters())})
		}
		o, cached, dt, err := r.optimumTimed(problem.OptimumOptions{Workers: r.Config.Workers, Context: ctx})
		out.OptimumTime, out.OptimumCached = dt, cached
		if err != nil {
			return out, err
		}
		if math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
			return out, fmt.Errorf("centralized optimum: the full-batch objective is %v (the loss returned a value that is not a finite number): --stop-at has no target", o.Value)
		}
		known, optTime, optCached = &o, dt, cached
	}
	t0 := time.Now()
	ro := engine.RunOptions{OnRecord: opt.OnRecord}
	reached := false
	if r.Config.StopAt > 0 {
		target, rel := known.Value, r.Config.StopAt
		ro.Stop = func(rec engine.Record) bool {
			reached = Reached(rec.ObjMean, target, rel)
			return reached
		}
	}
	saved := 0
	if opt.Checkpoint != "" {
		ro.CheckpointEvery = opt.CheckpointEvery
		ro.Checkpoint = func(trace []engine.Record) error {
			err := r.SaveCheckpoint(opt.Checkpoint, trace)
			if err == nil {
				saved++
			}
			return err
		}
	}
	sched := r.Sim.MeasureIters()
	prog := Progress{Iters: r.Config.Iters, Measures: len(sched)}
	if opt.OnProgress != nil {
		measured := len(opt.Trace)
		ro.OnProgress = func(t int64, measuring bool) {
			prog.Phase, prog.Iter, prog.Measured = PhaseRounds, t, measured
			if measuring {
				prog.Phase = PhaseMeasure
				measured++
			}
			opt.OnProgress(prog)
		}
	}
	// A measured objective that is not a number (a user loss returning NaN)
	// stops the run at that measurement (the engine's Stop, as --stop-at's
	// target): a trace of NaN that ends "complete" would be a result other
	// than the one asked for.
	var nanErr error
	target := ro.Stop
	ro.Stop = func(rec engine.Record) bool {
		if math.IsNaN(rec.ObjMean) {
			if nanErr == nil {
				nanErr = fmt.Errorf("measurement at iteration %d: the objective of the measured nodes is NaN (the loss returned a value that is not a number, or the data holds one)", rec.Iter)
			}
			return true
		}
		return target != nil && target(rec)
	}
	var nodeRecs []NodeRecord
	onRecord := ro.OnRecord
	ro.OnRecord = func(rec engine.Record) {
		if opt.TraceNodes {
			nodes, obj, auc := r.Sim.NodeValues()
			for c, k := range nodes {
				nodeRecs = append(nodeRecs, NodeRecord{Iter: rec.Iter, Node: k, Degree: r.degree(k), Objective: obj[c], AUC: auc[c]})
			}
		}
		if onRecord != nil {
			onRecord(rec)
		}
	}
	m0 := r.Sim.Profile().Wall(engine.PhaseMeasure)
	if r.edges != nil {
		if len(opt.Trace) > 0 || r.Sim.Iter() > 0 {
			return out, &config.ParamError{Param: config.ParamByFlag("write-edges"), Err: errors.New("a resumed run cannot write the whole stream (the activations before the checkpoint are not in it): run it again from the start (the same seed gives the same stream)")}
		}
		if err := r.edges.start(); err != nil {
			return out, err
		}
	}
	trace, err := r.Sim.RunWith(ctx, ro, opt.Trace)
	if r.edges != nil {
		// The stream appears under its name only for a run that ended
		// well (complete, or stopped at --stop-at's target).
		if err == nil && nanErr == nil {
			err = r.edges.finish()
		} else {
			r.edges.abort()
		}
	}
	if nanErr != nil {
		err = nanErr
	}
	res := &Result{Trace: trace, Checkpoints: saved, Wall: time.Since(t0), Measure: r.Sim.Profile().Wall(engine.PhaseMeasure) - m0, run: r, Nodes: nodeRecs,
		OptimumTime: optTime, OptimumCached: optCached}
	res.Reached = reached && err == nil && nanErr == nil
	out = res
	if len(trace) > 0 {
		res.Final = trace[len(trace)-1]
	}
	var de *engine.DivergenceError
	var pe *engine.PanicError
	// A diverged state is not saved, nor one a panic of user code left
	// half-way through an iteration: the file keeps the last good state.
	if opt.Checkpoint != "" && !errors.As(err, &de) && !errors.As(err, &pe) {
		if cerr := r.SaveCheckpoint(opt.Checkpoint, trace); cerr != nil && err == nil {
			err = cerr
		} else if cerr == nil {
			res.Checkpoints++
		}
	}
	// The optimum solved before the run (--stop-at's target) is reported
	// whatever ended the run (a Ctrl-C, a divergence): it is the problem's.
	res.Optimum = known
	if err != nil {
		return res, err
	}
	if known != nil || r.Config.SkipOptimum {
		return res, nil
	}
	if why := r.optimumOutOfReach(); why != "" {
		res.OptimumSkipped = why
	} else {
		if opt.OnProgress != nil {
			prog.Phase, prog.Iter, prog.Measured = PhaseOptimum, r.Sim.Iter(), len(trace)
			opt.OnProgress(prog)
		}
		o, cached, dt, err := r.optimumTimed(problem.OptimumOptions{Workers: r.Config.Workers, Context: ctx})
		res.OptimumTime, res.OptimumCached = dt, cached
		if err != nil {
			return res, err
		}
		if math.IsNaN(o.Value) || math.IsInf(o.Value, 0) {
			return res, fmt.Errorf("centralized optimum: the full-batch objective is %v (the loss returned a value that is not a finite number): no optimum to report", o.Value)
		}
		res.Optimum = &o
	}
	return res, nil
}

// Identity is what a checkpoint must match to be resumed: the configuration
// (its JSON form, without the worker count, each file it reads named FILE:
// config.Config.FileBlind) and fingerprints of the data and the graph (the
// network's files are the engine's: engine.Sim's checkpoint). A run
// resumes with its files under other paths, not with other contents.
func (r *Run) Identity() []byte { return r.identity(false) }

// identity is Identity; legacy names the files by their paths, as the
// checkpoints written before did.
func (r *Run) identity(legacy bool) []byte {
	h := sha256.New()
	cfg := r.Config
	if !legacy {
		cfg = cfg.FileBlind()
	}
	cj, _ := json.Marshal(cfg)
	h.Write(cj)
	lw := newLEWriter(h)
	lw.rows(r.Problem.X) // the data, as dense rows (the bytes of the data set's X)
	lw.int32s(r.Data.Class)
	if r.Graph != nil {
		lw.pairs(r.Graph.Edges)
	}
	lw.flush()
	return h.Sum(nil)
}

// SaveCheckpoint writes the whole state and the trace so far to path, atomically.
func (r *Run) SaveCheckpoint(path string, trace []engine.Record) error {
	about, _ := json.Marshal(r.Config.FileBlind())
	return atomicfile.Write(path, func(f *os.File) error { return r.Sim.WriteCheckpointAbout(f, r.Identity(), about, trace) })
}

// Resume restores the state saved in path and returns the trace so far, for
// ExecOptions.Trace. An invalid or mismatched checkpoint changes nothing.
func (r *Run) Resume(path string) ([]engine.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	trace, err := r.Sim.ReadCheckpointOf(f, r.Identity(), r.identity(true))
	var me *engine.MismatchError
	if errors.As(err, &me) {
		return nil, fmt.Errorf("checkpoint %s: %w", path, r.mismatch(me))
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return trace, nil
}

// mismatchError is the refusal of a checkpoint another run wrote, naming
// what differs.
type mismatchError struct {
	msg string
	err *engine.MismatchError
}

func (e *mismatchError) Error() string { return e.msg }
func (e *mismatchError) Unwrap() error { return e.err }

// mismatch names what differs between the run that wrote a checkpoint (its
// configuration, kept in it) and r: the parameters, by flag, or, where
// every parameter is the same, the data or the graph.
func (r *Run) mismatch(me *engine.MismatchError) error {
	var old Config
	if len(me.About) == 0 || json.Unmarshal(me.About, &old) != nil {
		return me // written before the configuration was kept: nothing to name
	}
	was, now := config.Diff(old, r.Config.FileBlind())
	if len(was) == 0 {
		return &mismatchError{engine.ErrCheckpoint.Error() + ": written by a run with the same flags over other data or another graph (the data's rows or labels, or the graph's edges, differ; its files are known by their contents, not their paths), or, from Go, with another Input (an objective with other parameters)", me}
	}
	return &mismatchError{fmt.Sprintf("%s: written by a run with %s; this run has %s (resume needs the same flags)", engine.ErrCheckpoint.Error(), strings.Join(was, ", "), strings.Join(now, ", ")), me}
}

// degree is node k's degree in the run's graph (0 for the centralized
// algorithm, which has none).
func (r *Run) degree(k int) int {
	if r.Graph == nil {
		return 0
	}
	return r.Graph.Degree(k)
}
