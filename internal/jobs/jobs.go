// Package jobs runs many independent jobs on a bounded number of cores: the
// simulations, optimum solves and spectral gaps of pairgossip reproduce
// (package paper) and the runs of a parameter sweep (package sweep).
//
// Each job occupies some of a fixed number of slots while it runs (one
// core, or as many as the workers of a simulation), jobs start in a fixed
// order as slots free up, the first error cancels the jobs still running
// and those not started, and callbacks see each job start and end. Results
// are returned by position in the list of jobs, never by completion order,
// so that nothing depends on the concurrency.
package jobs

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip/internal/progress"
)

// Job is one unit of work whose result is a T.
type Job[T any] struct {
	Name string
	// Cost is the job's estimated work, in any unit the jobs share: the
	// progress fraction and the ETA weigh jobs by it.
	Cost float64
	// Slots is the number of slots (cores) the job keeps busy: 0 means 1,
	// more than Options.Slots means all of them.
	Slots int
	Run   func(ctx context.Context) (T, error)
}

// Result is the outcome of one job.
type Result[T any] struct {
	Value   T
	Err     error
	Started bool          // false for a job never started (cancelled before its turn)
	Wall    time.Duration // from its start to its end
}

// Options configures Run.
type Options[T any] struct {
	// Slots is the number of slots the jobs share (0: GOMAXPROCS).
	Slots int
	// MaxRunning bounds the jobs running at once (0: only the slots do).
	MaxRunning int
	// LongestFirst starts the jobs in decreasing order of Cost (ties in
	// list order) instead of in list order, so that a long job does not
	// start last and run alone.
	LongestFirst bool
	// OnStart, if not nil, is called when a job starts, and OnEnd when a job
	// ends without error, with its value. They are called one at a time,
	// with the runner's lock held: they must not block for long.
	OnStart func(Progress)
	OnEnd   func(Progress, T)
}

// Progress is the state of a Run when a job starts or ends.
type Progress struct {
	Job     int    // the position of the job that started or ended
	Name    string // its name
	Done    int    // jobs ended without error so far
	Total   int    // jobs in all
	Running int    // jobs running now (counting one that just started)
	// DoneCost and TotalCost are the summed Cost of the jobs done and of
	// all the jobs.
	DoneCost, TotalCost float64
	Elapsed             time.Duration // since Run started
}

// Fraction is the estimated fraction of the work done: DoneCost/TotalCost
// (1 when there is no cost to go by).
func (p Progress) Fraction() float64 {
	if p.TotalCost <= 0 {
		return 1
	}
	return p.DoneCost / p.TotalCost
}

// ETA estimates the time left from the cost done so far (progress.ETA);
// ok is false until a job with a cost has ended.
func (p Progress) ETA() (time.Duration, bool) {
	return progress.ETA(p.Elapsed, p.DoneCost, p.TotalCost)
}

type runner[T any] struct {
	jobs  []Job[T]
	opt   Options[T]
	slots int
	t0    time.Time

	mu       sync.Mutex
	cond     *sync.Cond
	free     int // slots free
	running  int
	done     int
	doneCost float64
	total    float64
	err      error // the first error of a job
	results  []Result[T]
	wg       sync.WaitGroup
}

// Run runs the jobs, each occupying its slots while it runs, and returns
// their results in list order. The first job to fail cancels the context
// of the others (a job should then return soon) and no other job starts;
// Run returns that job's error as the job returned it, or ctx's error when
// ctx was cancelled, after every started job has returned.
func Run[T any](ctx context.Context, jobs []Job[T], opt Options[T]) ([]Result[T], error) {
	r := &runner[T]{jobs: jobs, opt: opt, slots: opt.Slots, t0: time.Now(), results: make([]Result[T], len(jobs))}
	if r.slots <= 0 {
		r.slots = runtime.GOMAXPROCS(0)
	}
	r.free = r.slots
	r.cond = sync.NewCond(&r.mu)
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
		r.total += jobs[i].Cost
	}
	if opt.LongestFirst {
		sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Cost > jobs[order[b]].Cost })
	}

	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake := context.AfterFunc(jctx, func() {
		r.mu.Lock()
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer wake()
	for _, i := range order {
		if !r.start(jctx, i) {
			break
		}
		go r.run(jctx, cancel, i)
	}
	r.wg.Wait()
	if r.err != nil {
		return r.results, r.err
	}
	return r.results, ctx.Err()
}

// slotsOf is the number of slots job i takes, in [1, r.slots].
func (r *runner[T]) slotsOf(i int) int {
	return max(1, min(r.jobs[i].Slots, r.slots))
}

// start waits for job i's slots (and for MaxRunning to allow it) and takes
// them; false when ctx was cancelled first.
func (r *runner[T]) start(ctx context.Context, i int) bool {
	w := r.slotsOf(i)
	r.mu.Lock()
	defer r.mu.Unlock()
	for (r.free < w || (r.opt.MaxRunning > 0 && r.running >= r.opt.MaxRunning)) && ctx.Err() == nil {
		r.cond.Wait()
	}
	if ctx.Err() != nil {
		return false
	}
	r.free -= w
	r.running++
	r.results[i].Started = true
	r.wg.Add(1)
	if r.opt.OnStart != nil {
		r.opt.OnStart(r.progress(i))
	}
	return true
}

func (r *runner[T]) run(ctx context.Context, cancel context.CancelFunc, i int) {
	defer r.wg.Done()
	t0 := time.Now()
	v, err := r.jobs[i].Run(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i] = Result[T]{Value: v, Err: err, Started: true, Wall: time.Since(t0)}
	r.free += r.slotsOf(i)
	r.running--
	r.cond.Broadcast()
	if err != nil {
		if r.err == nil {
			r.err = err
			cancel()
		}
		return
	}
	r.done++
	r.doneCost += r.jobs[i].Cost
	if r.opt.OnEnd != nil {
		r.opt.OnEnd(r.progress(i), v)
	}
}

func (r *runner[T]) progress(i int) Progress {
	return Progress{Job: i, Name: r.jobs[i].Name, Done: r.done, Total: len(r.jobs), Running: r.running,
		DoneCost: r.doneCost, TotalCost: r.total, Elapsed: time.Since(r.t0)}
}
