package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/output"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/jobs"
	"github.com/pairgossip/pairgossip/internal/progress"
	"github.com/pairgossip/pairgossip/problem"
)

// Options configures Execute.
type Options struct {
	// Cores is the number of cores to keep busy (0: GOMAXPROCS).
	Cores int
	// Jobs bounds the number of runs at once (0: as many as the cores allow).
	Jobs int
	// Workers is the number of workers of every run (0: chosen per run from
	// its size, see Workers).
	Workers int
	// RerunFailed runs again the runs whose last attempt failed.
	RerunFailed bool
	// OnEvent, if not nil, is called (from one goroutine at a time) when a
	// run starts and when it ends.
	OnEvent func(Event)
	// OnWait, if not nil, is called when every run left is being run by
	// other sweep runs on the same database (claims.go): Execute waits for
	// them, and takes over the runs of one that stops.
	OnWait func(held int)
}

// Event reports progress.
type Event struct {
	Start   bool     // a run started (else it ended: Outcome is set)
	Run     Run      //
	Workers int      // its workers
	Outcome *Outcome // when it ended
	Done    int      // runs ended so far in this session
	Todo    int      // runs this session runs in all
	Running int      // runs in progress
	Elapsed time.Duration
	// WorkDone and WorkTodo measure progress in estimated work (iterations
	// × per-iteration cost), for a better ETA than run counts.
	WorkDone, WorkTodo float64
}

// ETA estimates the time left from the work done so far (progress.ETA);
// ok is false until a run has ended.
func (e Event) ETA() (time.Duration, bool) {
	return progress.ETA(e.Elapsed, e.WorkDone, e.WorkTodo)
}

// Tally summarises Execute.
type Tally struct {
	Share    int // runs in this share of the sweep
	Skipped  int // already done in the database
	Ran      int // run in this session
	Complete int
	Diverged int
	Failed   int
	Others   int // run meanwhile by other sweep runs on the same database
	Cores    int
	Elapsed  time.Duration
}

// size is what the scheduler knows of a run before preparing it.
type size struct {
	n, dim int // nodes and parameters per node
}

// dataKey names the data set cfg loads: its name and every load option
// but the worker count (the data do not depend on it), so that runs of
// synthetic sets of other sizes, or of one CSV file read with other
// columns, never share a cached size or optimum.
func dataKey(cfg pairgossip.Config) string {
	o := cfg.LoadOptions()
	o.Workers = 0
	k, _ := json.Marshal([]any{cfg.Data, o})
	return string(k)
}

type sizer struct {
	mu    sync.Mutex
	cache map[string]size
}

func (z *sizer) of(cfg pairgossip.Config) size {
	key := dataKey(cfg) + "\x00" + cfg.Problem
	z.mu.Lock()
	defer z.mu.Unlock()
	if s, ok := z.cache[key]; ok {
		return s
	}
	s := size{n: 1, dim: 1}
	if ds, err := dataset.Load(cfg.Data, cfg.LoadOptions()); err == nil {
		s.n, s.dim = ds.N, ds.D
		if l, err := problem.ParseLoss(cfg.Problem); err == nil {
			s.dim = l.ParamDim(ds.D)
		}
	}
	if z.cache == nil {
		z.cache = map[string]size{}
	}
	z.cache[key] = s
	return s
}

// Workers chooses the workers of a run from its size: a synchronous round
// touches all n nodes (n·dim numbers), worth a worker per 32768; the
// asynchronous and centralized algorithms update one or two nodes per
// iteration, so only their measurements (n·dim per evaluated node) are
// parallel, worth a worker per 2²⁰. The result is in [1, cores]. Results
// never depend on it (the engine is deterministic for any worker count).
func Workers(cfg pairgossip.Config, n, dim, cores int) int {
	grain := 1 << 20
	if cfg.Algorithm == "sync" || cfg.Algorithm == "" {
		grain = 1 << 15
	}
	w := n * dim / grain
	return max(1, min(w, cores))
}

func work(cfg pairgossip.Config, s size) float64 {
	per := float64(s.n * s.dim)
	if cfg.Algorithm != "sync" {
		per = float64(2 * s.dim)
	}
	// measurements: log_points × eval nodes × n × dim
	ev := float64(cfg.EvalNodes)
	if ev <= 0 || ev > float64(s.n) {
		ev = math.Min(float64(s.n), 1000)
	}
	lp := float64(cfg.LogPoints)
	if lp <= 0 {
		lp = 30
	}
	return float64(cfg.Iters)*per + lp*ev*float64(s.n*s.dim) + 1e5
}

// optimumCache solves R_n(θ*) once per distinct problem in this process,
// through the cache of optima on disk (pairgossip.Run.SolveOptimum), which
// other sweeps, runs and reproduce share.
type optimumCache struct {
	mu sync.Mutex
	m  map[string]*optEntry
}

type optEntry struct {
	once   sync.Once
	opt    problem.Optimum
	cached bool
	err    error
}

func (c *optimumCache) get(ctx context.Context, cfg pairgossip.Config, run *pairgossip.Run) (problem.Optimum, bool, error) {
	k, _ := json.Marshal([]any{cfg.Problem, dataKey(cfg), cfg.Reg, cfg.Lambda, cfg.Radius, cfg.B})
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*optEntry{}
	}
	e := c.m[string(k)]
	if e == nil {
		e = &optEntry{}
		c.m[string(k)] = e
	}
	c.mu.Unlock()
	// An interrupt (ctx) stops the solve; the sweep then ends, so the
	// cached error is never read by a run that is recorded.
	e.once.Do(func() { e.opt, e.cached, e.err = run.SolveOptimum(problem.OptimumOptions{Context: ctx}) })
	return e.opt, e.cached, e.err
}

// Execute runs the given runs of the sweep (all of them, or one task's
// Share) that the store does not hold as done, several at a time (package
// jobs: each run occupies as many cores as it has workers), and writes each
// one's row and trace in one transaction as it ends. A run interrupted by
// ctx is not written (it runs again next time). It returns ctx's error when
// interrupted, or the first database error.
//
// Other Execute calls (other processes, other hosts) may share the store:
// each run is claimed before it starts (claims.go), so they split the runs;
// when only runs claimed by others are left, Execute waits for them to end
// and takes over those of a runner that stopped.
func Execute(ctx context.Context, sw *Sweep, runs []Run, st *Store, opt Options) (Tally, error) {
	t0 := time.Now()
	cores := opt.Cores
	if cores <= 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	rep := Tally{Share: len(runs), Cores: cores}
	if err := st.AddPlan(sw); err != nil {
		return rep, fmt.Errorf("%s: %w", st.Path, err)
	}
	cs, err := newClaimSession(st) // before pending: a row written after it is another runner's
	if err != nil {
		return rep, err
	}
	defer cs.close()
	todo, err := pending(st, runs, opt.RerunFailed)
	if err != nil {
		return rep, err
	}
	rep.Skipped = len(runs) - len(todo)
	var (
		z  sizer
		oc optimumCache
	)
	for len(todo) > 0 {
		list := runJobs(sw, todo, st, cs, cores, opt.Workers, &z, &oc)
		var workTodo float64
		for _, j := range list {
			workTodo += j.Cost
		}
		event := func(p jobs.Progress, start bool, o *Outcome) {
			if opt.OnEvent != nil && (o == nil || o.other == claimed) {
				opt.OnEvent(Event{Start: start, Run: todo[p.Job], Workers: list[p.Job].Slots, Outcome: o, Done: p.Done,
					Todo: len(todo), Running: p.Running, Elapsed: time.Since(t0), WorkDone: p.DoneCost, WorkTodo: workTodo})
			}
		}
		results, err := jobs.Run(ctx, list, jobs.Options[*Outcome]{Slots: cores, MaxRunning: opt.Jobs,
			OnStart: func(p jobs.Progress) { event(p, true, nil) },
			OnEnd:   func(p jobs.Progress, o *Outcome) { event(p, false, o) }})
		var held []Run
		for i, r := range results {
			o := r.Value
			if r.Err != nil || o == nil {
				continue
			}
			switch o.other {
			case heldOther:
				held = append(held, todo[i])
			case doneOther:
				rep.Others++
			default:
				rep.Ran++
				switch o.Status {
				case StatusComplete:
					rep.Complete++
				case StatusDiverged:
					rep.Diverged++
				default:
					rep.Failed++
				}
			}
		}
		if err != nil {
			rep.Elapsed = time.Since(t0)
			return rep, err
		}
		if len(held) > 0 {
			// Every run left is another runner's: wait for them to end, or
			// for their runner to stop and leave them to us.
			if opt.OnWait != nil {
				opt.OnWait(len(held))
			}
			select {
			case <-ctx.Done():
				rep.Elapsed = time.Since(t0)
				return rep, ctx.Err()
			case <-time.After(claimPoll):
			}
		}
		todo = held
	}
	rep.Elapsed = time.Since(t0)
	return rep, nil
}

// pending returns the runs the store does not hold as done (nor as failed,
// unless rerunFailed).
func pending(st *Store, runs []Run, rerunFailed bool) ([]Run, error) {
	status, err := st.Statuses()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path, err)
	}
	var todo []Run
	for _, r := range runs {
		if s, ok := status[r.ID]; ok && (Done(s) || !rerunFailed) {
			continue
		}
		todo = append(todo, r)
	}
	return todo, nil
}

// runJobs makes a job of each run: its workers (given, or chosen from its
// size) are its slots, its estimated work its cost. A job writes its
// outcome to the store; it fails only when the store does, or when ctx
// interrupted it (then nothing is written).
func runJobs(sw *Sweep, todo []Run, st *Store, cs *claimSession, cores, workers int, z *sizer, oc *optimumCache) []jobs.Job[*Outcome] {
	host, _ := os.Hostname()
	list := make([]jobs.Job[*Outcome], len(todo))
	for i, r := range todo {
		cfg := sw.Resolved(r.Config)
		s := z.of(cfg)
		w := workers
		if w <= 0 {
			w = Workers(cfg, s.n, s.dim, cores)
		}
		w = min(w, cores)
		list[i] = jobs.Job[*Outcome]{Name: r.ID, Cost: work(cfg, s), Slots: w, Run: func(ctx context.Context) (*Outcome, error) {
			switch c, err := cs.claim(r.ID); {
			case err != nil:
				return nil, fmt.Errorf("%s: claiming run %s: %w", st.Path, r.ID, err)
			case c != claimed:
				return &Outcome{Run: r, other: c}, nil
			}
			o := runOne(ctx, sw, r, w, host, oc)
			if o == nil {
				return nil, ctx.Err()
			}
			if err := st.Write(o); err != nil {
				return nil, fmt.Errorf("%s: writing run %s: %w", st.Path, r.ID, err)
			}
			return o, nil
		}}
	}
	return list
}

// runOne prepares and executes one run; nil when ctx interrupted it.
func runOne(ctx context.Context, sw *Sweep, r Run, workers int, host string, oc *optimumCache) (o *Outcome) {
	o = &Outcome{Run: r, Axes: sw.LabelsJSON(r), Optimum: math.NaN(), Host: host}
	fail := func(err error) *Outcome {
		o.Status, o.Error = StatusFailed, config.FlagMessage(err) // a sweep is the command line's
		o.Summary = output.JSON(struct {
			Status string            `json:"status"`
			Error  string            `json:"error"`
			Config pairgossip.Config `json:"config"`
		}{StatusFailed, o.Error, r.Config})
		return o
	}
	defer func() {
		if p := recover(); p != nil {
			o = fail(fmt.Errorf("panic: %v", p))
		}
	}()
	// A file edited since the plan would be read now under the id of its
	// old contents: checked before the run and after it.
	if why := sw.InputsChanged(r); why != "" {
		return fail(errors.New(why))
	}
	cfg := sw.Resolved(r.Config)
	cfg.Workers = workers
	// The optimum is solved once per problem (oc) after the run, or before
	// it for a run that stops at a distance from it (stop_at).
	cfg.SkipOptimum = cfg.StopAt == 0
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return fail(KeyError(err))
	}
	defer run.Close()
	var known *problem.Optimum
	var knownTime time.Duration
	var knownCached bool
	if cfg.StopAt > 0 {
		t0 := time.Now()
		opt, cached, err := oc.get(ctx, cfg, run)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fail(fmt.Errorf("stop_at: the optimum, needed before the run: %w", err))
		}
		known, knownTime, knownCached = &opt, time.Since(t0), cached
	}
	res, runErr := run.ExecuteWith(ctx, pairgossip.ExecOptions{Optimum: known})
	if ctx.Err() != nil {
		return nil
	}
	if known != nil {
		res.OptimumTime, res.OptimumCached = knownTime, knownCached
	}
	var warn []string
	var div *engine.DivergenceError
	if known == nil && sw.Optimum && (runErr == nil || errors.As(runErr, &div)) {
		t0 := time.Now()
		opt, cached, err := oc.get(ctx, cfg, run)
		if ctx.Err() != nil {
			return nil // interrupted during the optimum: not recorded
		}
		if err != nil {
			warn = append(warn, "optimum: "+err.Error())
		} else {
			res.Optimum, res.OptimumCached, res.OptimumTime = &opt, cached, time.Since(t0)
		}
	}
	if why := sw.InputsChanged(r); why != "" {
		return fail(errors.New(why))
	}
	sum := output.Summarize(run, res, runErr)
	sum.Config = r.Config // paths as written, as in the run id
	sum.Warnings = append(sum.Warnings, warn...)
	o.Status, o.Error, o.Warnings = sum.Status, sum.Error, sum.Warnings
	if o.Status != StatusComplete && o.Status != StatusDiverged {
		o.Status = StatusFailed
	}
	o.Wall = res.Wall
	if len(res.Trace) > 0 {
		f := res.Final
		o.Final = &f
	}
	if res.Optimum != nil {
		o.Optimum = res.Optimum.Value
	}
	o.Eval = sum.EvalNodes
	o.Trace = res.Trace
	o.Network = !run.Network.IsPerfect() // as trace.csv's network columns (cmd/pairgossip)
	o.Summary = output.JSON(sum)
	return o
}
