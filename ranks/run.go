// Package ranks runs the synchronous simulation over the ranks of an MPI
// job (issue #17): nodes partitioned in contiguous blocks, every rank
// drawing the same seeded edge stream, the records of a block's touched
// nodes gathered, run in event order and written back, the untouched ones
// advanced where they live, and the measurement split over the ranks — with
// the same trace, summary and final state as one process running the same
// schedule (engine's reduced schedule), bit for bit, for any number of
// ranks. docs/mpi.md says how to run it (mpirun, SLURM).
//
// What it runs: the synchronous algorithm with the gossip estimator on the
// AUC losses with ψ = none or l2 (the reduced schedule), on the synthetic
// AUC data or a NumPy .npy data set, each rank generating or reading only
// its rows, or any other data set loaded whole by every rank (data.go), on
// a graph each rank draws only its share of when
// the generator is counter-based (graph.go); the measurement with every
// method of the evaluator's AUC losses: sampled, streamed, and the exact
// ones (pairwise, sorted) by gathering one vector's scores to one rank at a
// time (measure_exact.go). Prepare says what is missing for anything else.
package ranks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"math"
	"runtime/debug"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// Run is a rank's share of a prepared distributed run.
type Run struct {
	Config pairgossip.Config
	Comm   mpi.Comm
	// Graph describes the whole graph (what summary.json reports); a rank
	// keeps only its share of the edges (LocalEdges).
	Graph    *output.GraphInfo
	Setup    pairgossip.SetupTimes
	Warnings []string
	ecfg     engine.Config
	data     rowSource
	l        *local
	ms       *measurer
	sched    []int64
	workers  int
	// Time in rounds and in measurements on this rank, and the blocks run.
	RoundTime, MeasureTime time.Duration
	Blocks                 int64
	// Checkpoint, when set, is the manifest's path (checkpoint.go): the
	// state is saved there every CheckpointEvery (rank 0's clock decides),
	// when the run is cancelled, and at the end. StopAt > 0 stops the run
	// at the first block boundary at or after that iteration, with a
	// checkpoint, and Execute returns ErrStopped.
	Checkpoint      string
	CheckpointEvery time.Duration
	StopAt          int64
	// CheckpointTime is the time spent writing checkpoints on this rank.
	CheckpointTime time.Duration
	ckptGen        int
	positive       string          // the positive class's label text (summary.json)
	prior          []engine.Record // the trace restored by Resume
	ident          string
	identLegacy    string          // the identity of manifests written before files were named FILE in it
	identConfig    json.RawMessage // the configuration the identity hashes (Manifest.Config)
}

// ErrStopped is Execute's error when it stopped at Run.StopAt.
var ErrStopped = errors.New("ranks: stopped at the requested iteration (StopAt)")

// Prepare checks that cfg runs distributed, generates this rank's rows,
// builds the graph and the rank's state.
func Prepare(c mpi.Comm, cfg pairgossip.Config) (*Run, error) {
	return PrepareModel(c, cfg, cfg.WithDefaults().EngineConfig().Network)
}

// PrepareModel is Prepare under the network model m (what the engine's
// Config.Network holds for one process): message loss and churn run over
// ranks (network.go), the models that need the whole graph on every rank
// are refused, naming the flag.
func PrepareModel(c mpi.Comm, cfg pairgossip.Config, m network.Model) (*Run, error) {
	cfg = cfg.WithDefaults()
	if cfg.PointsNode == 0 {
		cfg.PointsNode = 1
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Validate accepted the problem; a name ParseLoss does not know is one
	// of the objective problems (ranking, similarity: problem.ObjectiveFor),
	// which have no distributed form: refuse it here, by name, rather than
	// run the zero Loss (the AUC logistic) under its label.
	loss, lossErr := problem.ParseLoss(cfg.Problem)
	rk, _ := problem.ParseReg(cfg.Reg)
	ecfg := cfg.EngineConfig()
	ecfg.Network = m
	algo, est := ecfg.Algorithm, ecfg.Estimator
	if err := ecfg.Validate(); err != nil {
		return nil, err
	}
	if err := network.CheckNodes(m); err != nil {
		// Before any data is read (network.go).
		return nil, fmt.Errorf("ranks: %w", err)
	}
	var why []string
	if lossErr != nil {
		return nil, fmt.Errorf("ranks: --problem %s does not run over MPI ranks: a run over ranks needs an AUC loss (auc, auc-hinge or auc-squared-hinge); run it as one process (without mpirun, or with mpirun -np 1)", cfg.Problem)
	}
	switch {
	case algo == engine.Async:
		why = append(why, "the synchronous algorithm (--algo sync): the asynchronous one is not distributed yet")
	case algo == engine.Centralized:
		why = append(why, "the synchronous algorithm (--algo sync): the centralized one (Algorithm 1) has one state, on one process")
	}
	if algo != engine.Centralized && est != engine.Gossip {
		why = append(why, "the gossip estimator (--baseline gossip): the unbiased baseline draws x_J from the whole data set, which no rank holds")
	}
	if loss.IsMetric() || (rk != problem.RegNone && rk != problem.RegL2Sq) {
		why = append(why, "an AUC loss with --reg none or l2")
	}
	if s := ecfg.Schedule; s != "" && s != engine.ScheduleAuto && s != engine.ScheduleReduced {
		why = append(why, "the reduced schedule (--schedule auto or reduced)")
	}
	if err := dataOverRanks(cfg); err != nil {
		why = append(why, err.Error())
	}
	if cfg.PointsNode != 1 {
		why = append(why, "--points-per-node 1")
	}
	if cfg.StopAt != 0 {
		// The optimum is solved after the run over ranks: --stop-at needs it before.
		why = append(why, "no --stop-at (the optimum of a run over ranks is solved after it, not before)")
	}
	if len(why) > 0 {
		return nil, fmt.Errorf("ranks: a run over MPI ranks needs %s", joinAnd(why))
	}
	r := &Run{Config: cfg, Comm: c, ecfg: ecfg, workers: par.Workers(cfg.Workers)}
	t0 := time.Now()
	src, err := openRows(cfg)
	if err != nil {
		return nil, err
	}
	n, d := src.size()
	if n < 64*c.Size() {
		return nil, fmt.Errorf("ranks: %d nodes over %d ranks: each rank needs at least 64 nodes (n >= %d)", n, c.Size(), 64*c.Size())
	}
	lo, hi := partition(n, c.Size(), c.Rank())
	nl := hi - lo
	if lo0, hi0 := partition(n, c.Size(), 0); int64(hi0-lo0)*int64(d) > dataset.DefaultMaxElements {
		// Rank 0's share is the largest: every rank refuses alike.
		need := c.Size() + 1
		for ; need < (n+63)/64; need++ {
			if a, b := partition(n, need, 0); int64(b-a)*int64(d) <= dataset.DefaultMaxElements {
				break
			}
		}
		return nil, fmt.Errorf("ranks: data too large: a rank would hold up to %d rows × %d features = %.3g values (the limit is %d a process): use at least %d ranks",
			hi0-lo0, d, float64(hi0-lo0)*float64(d), dataset.DefaultMaxElements, need)
	}
	l := &local{comm: c, n: n, d: d, P: d, lo: lo, hi: hi, loss: loss,
		reg: problem.Regularizer{Kind: rk, Lambda: cfg.Lambda, Radius: cfg.Radius}, step: ecfg,
		workers: r.workers}
	l.x = make([]float64, nl*d)
	l.lab = make([]int32, nl)
	if r.positive, err = src.read(c, lo, hi, l.x, l.lab, r.workers); err != nil {
		return nil, err
	}
	r.data = src
	if l.labels, err = gatherLabels(c, n, l.lab); err != nil {
		return nil, err
	}
	if l.labels.npos == 0 || l.labels.npos == n {
		return nil, fmt.Errorf("problem: AUC needs both classes")
	}
	if float64(l.labels.npos)*float64(n-l.labels.npos) <= 1e9 && !cfg.SkipOptimum {
		return nil, fmt.Errorf("ranks: the centralized optimum is not solved over ranks (one process solves it at this size): add --no-optimum")
	}
	t1 := time.Now()
	spec := graph.Spec{Kind: cfg.Graph, N: n, K: cfg.GraphK, P: cfg.GraphP, Radius: cfg.GraphR,
		Rows: cfg.GraphRows, Cols: cfg.GraphCols, Seed: cfg.GraphSeed, File: cfg.GraphFile}
	part, err := graph.NewPartial(spec)
	if err != nil {
		return nil, err
	}
	if part != nil && c.Size() > 1 {
		// The counter-based generators (Watts–Strogatz, Erdős–Rényi from
		// n = 131072): each rank draws only its share, and connectivity is
		// checked over the ranks. (One rank builds it whole: the same graph,
		// and the whole-graph builder is faster than one share with the
		// check over ranks.)
		if r.Graph, r.Warnings, err = l.drawShare(part); err != nil {
			return nil, err
		}
	} else if err := r.buildWhole(l, spec); err != nil {
		return nil, err
	}
	debug.FreeOSMemory() // the set-up's temporaries: give their pages back before the state is allocated
	t2 := time.Now()
	l.z = make([]float64, nl*d)
	l.bar = make([]float64, nl*d)
	l.marg = make([]float64, nl)
	l.y = make([]int32, nl)
	l.ylab = make([]int32, nl)
	for k := range l.y {
		l.y[k] = int32(lo + k)
		l.ylab[k] = l.lab[k]
	}
	l.foreign = map[int32][]float64{}
	l.foreignRefs = map[int32]int{}
	l.edges = rng.New(cfg.Seed, 1)
	B := redpack.Rounds(n)
	l.maxB = B
	l.bEdges = make([][2]int32, B)
	l.drawIdx = make([]int, B)
	l.drawOwner = make([]int32, B)
	l.eSend = make([]int64, 0, B)
	l.eRecv = make([]int64, B)
	l.eCounts = make([]int, c.Size())
	l.coef = make([]coef, B+1)
	l.cSum = make([]float64, B+1)
	l.stamp = make([]uint32, nl)
	l.slotOf = make(map[int32]int32, 2*B)
	l.touched = make([]int32, 0, 2*B)
	l.owner = make([]int32, 0, 2*B)
	l.counts = make([]int, c.Size())
	f := func() []float64 { return make([]float64, 2*B) }
	l.s0, l.q, l.W, l.eta, l.mNext = f(), f(), f(), f(), f()
	l.start = make([]int32, 2*B)
	l.tp = redpack.New(2 * B)
	l.tpos = make([]int32, 2*B)
	l.packs = make([]redpack.Pack, r.workers)
	for w := range l.packs {
		// Runs of 512 nodes, as the engine's (its reducedChunk: a run is
		// the unit of the pass a worker cannot share, and the kernel's
		// time a node is lowest at 256 and 512).
		l.packs[w] = redpack.New(512)
	}
	if !m.IsPerfect() {
		if l.nt, err = newLnet(m, n, cfg.Seed, l); err != nil {
			return nil, fmt.Errorf("ranks: %w", err)
		}
	}
	r.l = l
	if err := r.computeIdentity(); err != nil {
		return nil, err
	}
	// The measurement's plan depends on the worker count (its time
	// budget): every rank takes rank 0's, so that ranks on machines of
	// different core counts choose the same methods and sample sizes.
	pw := []float64{float64(r.workers)}
	if err := c.BcastFloat64(pw, 0); err != nil {
		return nil, err
	}
	if r.ms, err = newMeasurer(l, ecfg, src, int(pw[0])); err != nil {
		return nil, err
	}
	r.sched = engine.LogSchedule(cfg.Iters, ecfg.LogPoints)
	r.Setup = pairgossip.SetupTimes{Data: t1.Sub(t0), Graph: t2.Sub(t1), Engine: time.Since(t2)}
	return r, nil
}

// buildWhole builds the whole graph (the other kinds and sizes: one
// process's graph on every rank) and keeps this rank's share of its edges.
func (r *Run) buildWhole(l *local, spec graph.Spec) error {
	g, err := graph.Build(spec)
	if err != nil {
		return err
	}
	warn, err := graph.Check(g)
	if err != nil {
		return err
	}
	if len(g.Edges) == 0 || !g.Connected() {
		return fmt.Errorf("engine: graph %s is not connected", g.Name)
	}
	r.Graph = &output.GraphInfo{Name: g.Name, Kind: g.Kind, N: g.N, UndirectedEdges: g.UndirectedEdges(),
		MinDegree: g.MinDegree(), MaxDegree: g.MaxDegree(), Tries: g.Tries}
	r.Warnings = warn
	return l.shareEdges(g)
}

func joinAnd(s []string) string {
	out := s[0]
	for i := 1; i < len(s); i++ {
		out += "; and " + s[i]
	}
	return out
}

// Lo and Hi are this rank's nodes [Lo, Hi).
func (r *Run) Lo() int { return r.l.lo }
func (r *Run) Hi() int { return r.l.hi }

// LocalEdges is the number of the graph's edges this rank holds (those
// whose lower end it owns).
func (r *Run) LocalEdges() int { return len(r.l.myEdges) }

// Iter is the iterations done.
func (r *Run) Iter() int64 { return r.l.t }

// EvalNodes is the number of nodes measured.
func (r *Run) EvalNodes() int { return len(r.ms.rows) }

// BytesSent is what this rank sent: the touched records and the drawn
// edges' endpoints (the blocks' Allgathervs), and all the rest counted by
// the communicator.
func (r *Run) BytesSent() (records int64, all mpi.Stats) { return r.l.bytesSent, r.Comm.Stats() }

// CommTime is the time this rank spent in the rounds' collectives (the
// blocks' Allgatherv and the per-block Allreduce), waiting for the slowest
// rank included: RoundTime − CommTime is its compute.
func (r *Run) CommTime() time.Duration { return r.l.commTime }

// Execute runs the remaining rounds, measuring at the log-spaced
// iterations, and returns the trace (the same on every rank).
func (r *Run) Execute(ctx context.Context, onRecord func(engine.Record)) ([]engine.Record, error) {
	l := r.l
	trace := append([]engine.Record(nil), r.prior...)
	// The measurements done: those before l.t, and the one at l.t if the
	// trace holds it (one that a signal cut short is not in the trace of
	// the checkpoint then saved, and is taken again here).
	next := 0
	for next < len(r.sched) && (r.sched[next] < l.t || r.sched[next] == l.t && len(trace) > 0 && trace[len(trace)-1].Iter == l.t) {
		next++
	}
	l.stop.Store(ctx.Err() != nil)
	defer context.AfterFunc(ctx, func() { l.stop.Store(true) })()
	lastSave := time.Now()
	save := func() error {
		t0 := time.Now()
		err := r.SaveCheckpoint(r.Checkpoint, trace)
		r.CheckpointTime += time.Since(t0)
		lastSave = time.Now()
		return err
	}
	for l.t < r.Config.Iters || next < len(r.sched) && r.sched[next] == l.t {
		stop := r.Config.Iters
		if next < len(r.sched) {
			stop = r.sched[next]
		}
		t0 := time.Now()
		pending, cancelled := false, false // agreed on at the block that reached stop: done after its measurement
		for l.t < stop {
			if err := l.advance(stop); err != nil {
				return trace, err
			}
			r.Blocks++
			// One collective a block: the first non-finite margin of any
			// rank, whether a checkpoint is due (rank 0's clock, or StopAt:
			// the same on every rank), and whether any rank was cancelled
			// (a signal reaches the ranks at different times; they stop at
			// the same block).
			flags := []int64{math.MaxInt64, 0, 0}
			if l.bad.t > 0 {
				flags[0] = l.bad.t
			}
			if (r.Checkpoint != "" && r.Comm.Rank() == 0 && r.CheckpointEvery > 0 && time.Since(lastSave) >= r.CheckpointEvery) ||
				(r.StopAt > 0 && l.t >= r.StopAt) {
				flags[1] = -1
			}
			if ctx.Err() != nil {
				flags[2] = -1
			}
			tc := time.Now()
			if err := r.Comm.AllreduceInt64(flags, mpi.Min); err != nil {
				return trace, err
			}
			l.commTime += time.Since(tc)
			if flags[0] != math.MaxInt64 {
				return trace, r.diverged(flags[0])
			}
			if flags[1] == 0 && flags[2] == 0 {
				continue
			}
			if l.t == stop && next < len(r.sched) && r.sched[next] == stop {
				// The record of this point first: a checkpoint's trace holds
				// every point up to its iteration. (Under a cancellation the
				// measurement is cut short and dropped, and the checkpoint's
				// trace lacks this point, which a resumed run takes again.)
				pending, cancelled = flags[1] != 0, flags[2] != 0
				continue
			}
			r.RoundTime += time.Since(t0)
			if flags[2] != 0 {
				return trace, r.cancel(save)
			}
			if err := r.checkpointOrStop(save); err != nil {
				return trace, err
			}
			t0 = time.Now()
		}
		r.RoundTime += time.Since(t0)
		if next < len(r.sched) && l.t == r.sched[next] {
			next++
			t1 := time.Now()
			evals, err := l.gradEvals()
			if err != nil {
				return trace, err
			}
			if measureStarts != nil {
				measureStarts(l)
			}
			rec, err := r.ms.measure(evals)
			if err != nil {
				return trace, err
			}
			// A signal cuts a measurement short on the ranks it reaches
			// (local.stop): they agree here to drop its record, and the
			// checkpoint saved now lacks it, so a resumed run takes it
			// again.
			cut := []int64{0}
			if l.stop.Load() {
				cut[0] = 1
			}
			if err := r.Comm.AllreduceInt64(cut, mpi.Max); err != nil {
				return trace, err
			}
			r.MeasureTime += time.Since(t1)
			if cut[0] != 0 {
				return trace, r.cancel(save)
			}
			l.netRecord(&rec)
			trace = append(trace, rec)
			if onRecord != nil {
				onRecord(rec)
			}
			if err := r.ms.divergence(rec); err != nil {
				return trace, err // the record stays: its values are what the error is about
			}
		}
		if cancelled {
			return trace, r.cancel(save)
		}
		if pending {
			if err := r.checkpointOrStop(save); err != nil {
				return trace, err
			}
		}
	}
	if r.Checkpoint != "" {
		if err := save(); err != nil {
			return trace, err
		}
	}
	return trace, nil
}

// measureStarts, when set (by a test), is called before each measurement.
var measureStarts func(l *local)

// diverged is the divergence the ranks agreed on at iteration t (the
// earliest of any rank's): a second collective, on this path only, takes
// the lowest node any rank saw turn non-finite at t, the node one process
// names.
func (r *Run) diverged(t int64) error {
	l := r.l
	node := []int64{math.MaxInt64}
	if l.bad.t == t {
		node[0] = int64(l.bad.node)
	}
	e := &engine.DivergenceError{Iter: t, Node: -1, Field: "z (dual variable)"}
	if err := r.Comm.AllreduceInt64(node, mpi.Min); err != nil {
		return errors.Join(e, err)
	}
	e.Node = int(node[0])
	return e
}

// cancel saves a checkpoint (when there is a path) and returns
// context.Canceled.
func (r *Run) cancel(save func() error) error {
	if r.Checkpoint != "" {
		if err := save(); err != nil {
			return err
		}
	}
	return context.Canceled
}

// checkpointOrStop saves a checkpoint (when there is a path) and returns
// ErrStopped when StopAt is reached.
func (r *Run) checkpointOrStop(save func() error) error {
	if r.Checkpoint != "" {
		if err := save(); err != nil {
			return err
		}
	}
	if r.StopAt > 0 && r.l.t >= r.StopAt {
		return ErrStopped
	}
	return nil
}

// Summary returns summary.json's content for the trace (what one process
// writes for the same run, timings apart).
func (r *Run) Summary(trace []engine.Record, wall, measure time.Duration, err error) output.Summary {
	cfg := r.Config
	s := output.NewSummary(cfg, err)
	s.Data.Name, s.Data.N, s.Data.D, s.Data.Classes = r.data.name(), r.l.n, r.l.d, 2
	s.Data.PositiveClass = r.positive
	gi := *r.Graph
	s.Graph = &gi
	s.EvalNodes = len(r.ms.rows)
	s.Execution = output.NewExecution(string(engine.ScheduleReduced), r.workers)
	s.Execution.PinNote = pinNote(cfg.Pin)
	s.Warnings = r.Warnings
	s.SetTrace(trace)
	if r.l.nt != nil && len(trace) > 0 {
		// The counters as one process reports them; the effective gap needs
		// the whole graph, which no rank holds.
		s.Network = output.NewNetworkInfo(cfg, r.l.nt.net.Model(), nil, &trace[len(trace)-1])
		s.Network.GapMethod = "not computed over MPI ranks (no rank holds the whole graph): pairgossip gap with the same flags computes it"
	}
	if !cfg.SkipOptimum {
		s.OptimumMethod = optimumOutOfReachText(r.l.n, r.l.labels.npos)
	}
	s.SetTimes(r.Setup, wall, measure)
	return s
}

// pinNote is summary.json's pin_note: a rank's workers are goroutines of
// each pass (par.Blocks), not a pinned pool, so --pin is noted, not done.
func pinNote(asked bool) string {
	if asked {
		return "not done over MPI ranks: a rank's workers are started for each pass; bind the ranks instead (mpirun --bind-to core)"
	}
	return "not asked (Config.Pin)"
}

func optimumOutOfReachText(n, npos int) string {
	pairs := float64(npos) * float64(n-npos)
	return fmt.Sprintf("not solved: one evaluation of the full-batch objective costs %.2g pair losses at n = %d (the solver's limit is %.0g); compare with the measured objective instead",
		pairs, n, 1e9)
}
