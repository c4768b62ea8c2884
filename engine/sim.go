package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// Sim is one run of an algorithm: the state, the executor that carries it
// through the iterations, the run's workers and the measurement.
type Sim struct {
	*state
	exec  executor // caps.run
	caps  execCaps
	kind  execKind
	crew  *crew
	meas  *measurer
	sched []int64 // the measured iterations (LogSchedule, or CheckSchedule)
	// broken is the panic that stopped the run (user code: see
	// PanicError): the state may be half-way through an iteration, so
	// Run, RunWith and Advance return it again instead of going on.
	broken error
}

// PanicError is a panic of user code — a problem.Objective's method, a
// callback of RunOptions — recovered by Run, RunWith or Advance (on the
// calling goroutine or on any worker) and returned as an error: Func names
// the user function, Value is the panic's value, Stack an excerpt of the
// stack where it happened. The state may be half-way through an iteration:
// the Sim returns the same error from then on, and a checkpoint must not be
// taken of it (package pairgossip takes none).
type PanicError = guard.PanicError

// recoverRun is deferred by the entry points that run user code: a panic
// becomes *err and breaks the Sim.
func (s *Sim) recoverRun(err *error) {
	if v := recover(); v != nil {
		s.broken = guard.Capture(v)
		*err = s.broken
	}
}

// poolMinWork is the number of coordinate updates below which a round (or a
// block) runs on the calling goroutine: handing it to the workers costs
// more than it saves (the crossover, measured with BenchmarkPoolRound and
// bench sync, is in bench/RESULTS.md).
var poolMinWork = 1 << 12

// New prepares a run. g may be nil for Centralized; otherwise it must have
// one node per data point and be connected.
func New(p *problem.Problem, g *graph.Graph, cfg Config) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.LogPoints == 0 {
		cfg.LogPoints = 30
	}
	if cfg.Schedule == "" {
		cfg.Schedule = ScheduleAuto
	}
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
	sh := ShapeOf(p, g)
	kind, err := choose(sh, cfg)
	if err != nil {
		return nil, err
	}
	workers := par.Workers(cfg.Workers)
	st := newState(p, g, cfg, kind.compact, kind.storesTheta)
	if err := st.attachNetwork(workers, kind.linearNet); err != nil {
		return nil, err
	}
	cr := newCrew(p, cfg, st.rows(), workers)
	caps := kind.newExecutor(sh, cfg, st, cr)
	if st.nx != nil {
		st.nx.view.theta = caps.run.theta
	}
	s := &Sim{state: st, exec: caps.run, caps: caps, kind: kind, crew: cr, sched: cfg.schedule()}
	s.meas = newMeasurer(st, workers, cr.ws[0])
	return s, nil
}

// Close releases the workers. A Sim must not be used after Close.
func (s *Sim) Close() {
	s.crew.close()
	for _, c := range s.caps.closers {
		c.close()
	}
}

// Pinned returns the CPU of each worker when the run's workers are pinned
// (Config.Pin), or nil and the reason they are not.
func (s *Sim) Pinned() (cpus []int, why string) {
	if !s.crew.pooled && s.crew.cpus != nil {
		return nil, "no worker pool (one worker, or a problem too small to share)"
	}
	return s.crew.cpus, s.crew.why
}

// Workers returns the number of workers of the run.
func (s *Sim) Workers() int { return s.crew.n }

// SerialEvents says why an asynchronous run given several workers runs its
// events in order on one of them (a small problem, a network model that
// orders them, an executor without parallel events); it is empty when
// the workers share the events, and for a synchronous run.
func (s *Sim) SerialEvents() string { return s.caps.serialWhy }

// Iter returns the number of iterations done.
func (s *Sim) Iter() int64 { return s.t }

// MeasureIters returns the iterations at which Run measures (ascending; the
// caller must not modify it).
func (s *Sim) MeasureIters() []int64 { return s.sched }

// EvalNodes returns the nodes measured.
func (s *Sim) EvalNodes() []int { return s.meas.rows }

// Config returns the run's configuration (with defaults filled in).
func (s *Sim) Config() Config { return s.cfg }

// GradEvals returns the gradient evaluations done, all and non-zero.
func (s *Sim) GradEvals() (all, nonzero int64) { return s.gradEvals, s.nonzero }

// Schedule returns the schedule in use (plain, blocked, reduced or reference).
func (s *Sim) Schedule() Schedule { return s.kind.schedule }

// eigendecompositions returns the number of PSD projections done so far
// (lab.EigenCounts).
func (s *Sim) eigendecompositions() int64 {
	var n int64
	for _, w := range s.crew.ws {
		n += w.Eigs
	}
	return n
}

// rankOneUpdates returns the number of rank-one eigen-updates done in place
// of full eigendecompositions (the metric schedules on the PSD cone; an
// optional capability of the executor, rankOneCounter; lab.EigenCounts).
func (s *Sim) rankOneUpdates() int64 {
	if s.caps.rankOne == nil {
		return 0
	}
	return s.caps.rankOne.rankOne()
}

// Profile returns where the run's time went so far (see Profile).
func (s *Sim) Profile() Profile { return s.crew.sw.prof }

// Measure evaluates the current state.
func (s *Sim) Measure() Record {
	s.crew.sw.start(false)
	s.materialize(s.meas.rows)
	r := s.meas.measure(s.state)
	s.netRecord(&r)
	s.crew.sw.lap(PhaseMeasure)
	return r
}

// NodeValues returns the nodes the last measurement evaluated (EvalNodes,
// sorted) with their objectives R_n(θ̄_k) and AUCs (NaN for metric
// learning), in the same order: the values whose statistics the record
// holds. They are views, overwritten by the next measurement; before any
// measurement the values are zero.
func (s *Sim) NodeValues() (nodes []int, obj, auc []float64) {
	return s.meas.rows, s.meas.obj, s.meas.auc
}

// materialize writes θ_k into the state's Theta for the given rows (all
// rows when nil), allocating Theta on first use when the executor keeps θ
// implicit. Rows never written cost no memory: a fresh allocation of this
// size is mapped lazily by the operating system.
func (s *Sim) materialize(rows []int) {
	if s.kind.storesTheta {
		return
	}
	if s.Theta.Rows == 0 {
		s.Theta = layout.NewLazy(s.rows(), s.prob.P)
	}
	if rows == nil {
		for k := 0; k < s.Theta.Rows; k++ {
			s.exec.theta(k, s.Theta.Row(k))
		}
		return
	}
	for _, k := range rows {
		s.exec.theta(k, s.Theta.Row(k))
	}
}

// ThetaMatrix returns θ_k of every node, one row each (for an executor that
// keeps θ implicit, computed now).
func (s *Sim) ThetaMatrix() layout.Matrix {
	s.materialize(nil)
	return s.Theta
}

// RunOptions configures RunWith.
type RunOptions struct {
	// OnRecord is called with each measurement.
	OnRecord func(Record)
	// Checkpoint, if not nil, is called every CheckpointEvery of wall time
	// (checked between two advances of the executor) with the trace so far;
	// the state is consistent (between iterations) during the call.
	Checkpoint      func(trace []Record) error
	CheckpointEvery time.Duration
	// OnProgress, if not nil, is called after every advance of the
	// executor with the iteration reached (measuring false), and just
	// before each measurement (measuring true), for a status line: it is
	// called often (every few milliseconds), so it must be cheap and do its
	// own throttling.
	OnProgress func(t int64, measuring bool)
	// Stop, if not nil, is called with each measurement once it is in the
	// trace (and with the trace's last record on resuming): true ends the
	// run there, that record the trace's last, whatever iterations are
	// left (a target met: see Config.StopChecks for measurements between
	// the log points). It is not called for a measurement cut short.
	Stop func(Record) bool
}

// Run performs the remaining iterations up to Config.Iters, measuring at the
// log-spaced schedule and calling onRecord (if not nil) with each record. It
// stops early with ctx's error when ctx is cancelled (checked between two
// advances of the executor: at most 256 events, one window of the parallel
// executor, one block, or about 4·10⁶ node-coordinate updates of the
// synchronous algorithm), or with a *DivergenceError, or with a *PanicError
// when user code panics (a problem.Objective's method, onRecord). The trace
// so far is returned in every case.
func (s *Sim) Run(ctx context.Context, onRecord func(Record)) ([]Record, error) {
	return s.RunWith(ctx, RunOptions{OnRecord: onRecord}, nil)
}

// RunWith is Run with checkpoints; trace is the trace so far when resuming
// from a checkpoint (nil otherwise).
func (s *Sim) RunWith(ctx context.Context, opt RunOptions, trace []Record) (out []Record, err error) {
	defer s.crew.pinCaller().Undo()
	if s.broken != nil {
		return trace, s.broken
	}
	defer func() {
		if v := recover(); v != nil {
			s.broken = guard.Capture(v)
			out, err = trace, s.broken
		}
	}()
	// The measurements done: those before s.t, and the one at s.t if the
	// trace holds it (a measurement that an interrupt cut short is not in
	// the trace, and is taken again on resuming).
	if err := s.checkHorizon(s.cfg.Iters); err != nil {
		return trace, err
	}
	if opt.Stop != nil && len(trace) > 0 && opt.Stop(trace[len(trace)-1]) {
		return trace, nil // resumed from the state at which the run stopped
	}
	next := 0
	for next < len(s.sched) && (s.sched[next] < s.t || s.sched[next] == s.t && len(trace) > 0 && trace[len(trace)-1].Iter == s.t) {
		next++
	}
	lastCkpt := time.Now()
	// A cancellation, or a checkpoint coming due, asks the executor to
	// return early (state.yield): an advance to the next measurement may
	// otherwise run for minutes. A cancellation also ends a measurement
	// early (its partial record is dropped).
	var measureStop atomic.Bool
	s.meas.eval.SetStop(&measureStop)
	defer s.meas.eval.SetStop(nil)
	defer context.AfterFunc(ctx, func() {
		measureStop.Store(true)
		s.yield.Store(true)
	})()
	var due *time.Timer
	if opt.Checkpoint != nil {
		due = time.AfterFunc(opt.CheckpointEvery, func() { s.yield.Store(true) })
		defer due.Stop()
	}
	for s.t < s.cfg.Iters || next < len(s.sched) && s.sched[next] == s.t {
		// Cleared before the checks: a cancellation or a due checkpoint
		// that sets it from now on is seen at the next turn.
		s.yield.Store(false)
		if err := ctx.Err(); err != nil {
			return trace, err
		}
		if opt.Checkpoint != nil && time.Since(lastCkpt) >= opt.CheckpointEvery {
			if err := opt.Checkpoint(trace); err != nil {
				return trace, err
			}
			lastCkpt = time.Now()
			due.Reset(opt.CheckpointEvery)
		}
		stop := s.cfg.Iters
		if next < len(s.sched) {
			stop = s.sched[next]
		}
		if s.t < stop {
			if err := s.advance(stop); err != nil {
				return trace, err
			}
		}
		if opt.OnProgress != nil {
			opt.OnProgress(s.t, false)
		}
		if next < len(s.sched) && s.t == s.sched[next] {
			if opt.OnProgress != nil {
				opt.OnProgress(s.t, true)
			}
			rec := s.Measure()
			if measureStop.Load() {
				return trace, ctx.Err() // cut short: partial values
			}
			next++
			trace = append(trace, rec)
			if opt.OnRecord != nil {
				opt.OnRecord(rec)
			}
			// The record stays in the trace: its non-finite values are
			// what the error is about.
			if de := MeasuredDivergence(s.t, rec, s.meas.rows, func(c int) []float64 { return s.ThetaBar.Row(s.meas.rows[c]) }, s.meas.obj, s.prob.Obj == nil); de != nil {
				return trace, de
			}
			if opt.Stop != nil && opt.Stop(rec) {
				return trace, nil
			}
		}
	}
	return trace, nil
}

// Advance performs up to n more iterations (never past Config.Iters) without
// measuring, with the same executor as Run. It is for benchmarks and for
// callers that measure on their own schedule.
func (s *Sim) Advance(n int64) (err error) {
	defer s.crew.pinCaller().Undo()
	if s.broken != nil {
		return s.broken
	}
	defer s.recoverRun(&err)
	stop := min(s.cfg.Iters, s.t+n)
	if err := s.checkHorizon(stop); err != nil {
		return err
	}
	for s.t < stop {
		if err := s.advance(stop); err != nil {
			return err
		}
	}
	return nil
}

// advance runs the executor once towards stop; on a divergence it
// materialises the state and names the field that turned non-finite.
func (s *Sim) advance(stop int64) error {
	err := s.exec.advance(stop)
	if err != nil {
		var de *DivergenceError
		if errors.As(err, &de) && de.Field == "" {
			th := make([]float64, s.prob.P)
			s.exec.theta(de.Node, th)
			de.Field = fieldOf(s.Z.Row(de.Node), th)
		}
	}
	return err
}

// StateChecksum returns a SHA-256 of the state (z, θ, θ̄, y, clocks, what
// the executor saves in checkpoints), the iteration and gradient counters
// and the edge stream, for comparing runs; the configuration is not
// included.
func (s *Sim) StateChecksum() [32]byte {
	h := sha256.New()
	rs, _ := s.edges.State()
	h.Write(rs)
	binary.Write(h, binary.LittleEndian, [3]int64{s.t, s.gradEvals, s.nonzero})
	s.writeState(h)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
