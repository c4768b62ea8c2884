package engine

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/pairgossip/pairgossip/affinity"
	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/layout"
)

// pool is a fixed set of long-lived workers, one shard of rows each. run
// hands every worker the same round function and returns when all shards are
// done; the caller's goroutine works shard 0 itself.
//
// The barrier is a pair of counters: run publishes the function and bumps
// an epoch, each worker runs its shard and decrements a pending count. A
// worker waiting for the next epoch, and the caller waiting for the last
// shard, spin on the counter for up to poolSpin and only then sleep on a
// channel. Sleeping costs a wake-up per round: on a virtual machine a
// sleeping worker may start its shard tens of microseconds after the caller
// (the scheduler's wake-up of an idle CPU), longer than a round of a small
// problem, so rounds ran one shard after the other (BenchmarkPoolRound
// measures the overhead with and without spinning). Spinning is only
// used when every worker can have its own P (workers ≤ GOMAXPROCS);
// otherwise a spinner would hold the P another worker needs.
//
// The handshakes' stores. The two sleep handshakes (a worker's sleeping
// flag against the caller's epoch, the caller's waiting epoch against the
// workers' pending count) are each a store of one variable followed by a
// load of another, on both sides; they need the store visible before the
// load. Go's atomics guarantee it (they are sequentially consistent), but
// under qemu-aarch64 on an amd64 host a store-release and the load-acquire
// after it were reordered by the host's store buffer and a worker slept
// through its wake-up: 1 run in 21 of TestParallelAsyncIdenticalToSerial
// hung there (workers beyond GOMAXPROCS sleep after every level), none of
// 102 once these stores became swaps, read-modify-writes that every
// implementation carries out with a full barrier. They are on the sleeping
// path only, so the spinning rounds pay nothing.
type pool struct {
	shards []layout.Range
	fn     func(w int, r layout.Range, tk *task)
	tk     task // the caller's arguments of the current run, read by every worker
	spin   time.Duration
	cpus   []int // CPU of each worker (nil: not pinned)

	_       [64]byte
	epoch   atomic.Uint64 // rounds started (written by run)
	_       [56]byte
	pending atomic.Int64 // shards of the current round not done
	_       [56]byte
	waiting atomic.Uint64 // the epoch whose end the caller sleeps on (0: none)
	closed  atomic.Bool
	done    chan struct{}
	wk      []poolWorker
	runs    int64 // calls of run (read by tests: did the pool engage?)
	// panicked is the first panic of the current run's shards (user code:
	// an objective's Grad), recovered where it happened; run raises it
	// again on the caller once every shard is done, so a panic neither
	// kills the process from a worker nor leaves the caller waiting for a
	// shard that never ends.
	panicked atomic.Pointer[guard.PanicError]
}

// poolWorker is one worker's sleep state, on its own cache line.
type poolWorker struct {
	sleeping atomic.Bool
	wake     chan struct{}
	_        [48]byte
}

// poolLastHook, when set (by tests only), runs in the worker that finished
// the last shard of a round, between its count and its wake-up of the
// caller: the window in which a descheduled worker once woke the caller out
// of the next round.
var poolLastHook atomic.Pointer[func()]

// poolSpin is how long a waiting worker or caller spins before it sleeps.
var poolSpin = 200 * time.Microsecond

// newPool starts one worker per shard (the caller is worker 0). With cpus
// (one per shard, from affinity.Plan) worker w runs on CPU cpus[w]; the
// caller pins itself through pinCaller.
func newPool(shards []layout.Range, cpus []int) *pool {
	p := &pool{shards: shards, cpus: cpus, done: make(chan struct{}, 1)}
	if len(shards) <= runtime.GOMAXPROCS(0) {
		p.spin = poolSpin
	}
	p.wk = make([]poolWorker, len(shards))
	started := make(chan struct{})
	for w := 1; w < len(shards); w++ {
		p.wk[w].wake = make(chan struct{}, 1)
		go p.worker(w, started)
	}
	for w := 1; w < len(shards); w++ {
		<-started
	}
	return p
}

// size is the number of workers.
func (p *pool) size() int { return len(p.shards) }

// worker is the loop of worker w ≥ 1.
func (p *pool) worker(w int, started chan<- struct{}) {
	if p.cpus != nil {
		if pinned, err := affinity.Pin(p.cpus[w]); err == nil {
			defer pinned.Undo()
		}
	}
	seen := p.epoch.Load()
	started <- struct{}{}
	for {
		seen = p.await(w, seen)
		if p.closed.Load() {
			return
		}
		p.shard(w)
		// The flag names the epoch: a worker that finished the last shard
		// of a round but was descheduled before this check must not wake
		// the caller out of a later round (the caller may have seen the
		// count reach zero by spinning and gone on).
		if p.pending.Add(-1) == 0 {
			if h := poolLastHook.Load(); h != nil {
				(*h)()
			}
			if p.waiting.CompareAndSwap(seen, 0) {
				p.done <- struct{}{}
			}
		}
	}
}

// shard runs worker w's shard of the current run, recovering a panic.
func (p *pool) shard(w int) {
	defer func() {
		if v := recover(); v != nil {
			p.panicked.CompareAndSwap(nil, guard.Capture(v))
		}
	}()
	p.fn(w, p.shards[w], &p.tk)
}

// spinUntil polls done until it reports true (then it returns true) or for
// about d (then false), reading the clock once every 128 polls.
func spinUntil(d time.Duration, done func() bool) bool {
	var deadline time.Time
	for i := 0; ; i++ {
		if done() {
			return true
		}
		if i&127 != 127 {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(d)
		} else if !time.Now().Before(deadline) {
			return false
		}
	}
}

// await returns the first epoch after seen, spinning and then sleeping.
func (p *pool) await(w int, seen uint64) uint64 {
	me := &p.wk[w]
	var e uint64
	moved := func() bool { e = p.epoch.Load(); return e != seen }
	for !spinUntil(p.spin, moved) {
		// Sleep. The caller bumps the epoch, then takes the sleeping flag
		// of every worker that set it and sends a wake-up; whoever of the
		// two clears the flag decides whether a wake-up is sent. The flag
		// is set by a swap (see pool: the handshakes' stores).
		me.sleeping.Swap(true)
		if moved() {
			if !me.sleeping.CompareAndSwap(true, false) {
				<-me.wake // the caller took the flag: consume its wake-up
			}
			return e
		}
		<-me.wake
	}
	return e
}

// task is what the caller hands every worker with one run of the pool:
// the arguments of a synchronous round, or the level of asynchronous events
// to run. The pool keeps a copy for the duration of the run, so handing it
// over allocates nothing.
type task struct {
	t     int64   // the round (synchronous)
	gamma float64 // its step size
	i, j  int     // the endpoints of its edge
	level []int32 // the events of the level (asynchronous), indices into win
	win   *asyncWindow
	ways  int // the workers the pass runs on (crew.pass)
}

// run executes fn on every shard in parallel, each call with a pointer to
// the pool's copy of tk. A panic of fn on any shard is raised again on the
// caller, as a *guard.PanicError, once every shard is done.
func (p *pool) run(fn func(w int, r layout.Range, tk *task), tk task) {
	p.runs++
	p.fn, p.tk = fn, tk
	p.pending.Store(int64(len(p.shards) - 1))
	epoch := p.epoch.Add(1)
	for w := 1; w < len(p.shards); w++ {
		if p.wk[w].sleeping.CompareAndSwap(true, false) {
			p.wk[w].wake <- struct{}{}
		}
	}
	p.shard(0)
	if !spinUntil(p.spin, func() bool { return p.pending.Load() == 0 }) {
		p.waiting.Swap(epoch) // a swap: see pool (the handshakes' stores)
		// The last worker may have finished before it could see the flag.
		if p.pending.Load() != 0 || !p.waiting.CompareAndSwap(epoch, 0) {
			<-p.done
		}
	}
	p.fn, p.tk = nil, task{}
	if pe := p.panicked.Swap(nil); pe != nil {
		panic(pe)
	}
}

// pinCaller pins the calling goroutine to worker 0's CPU when the pool is
// pinned; Undo the result when done.
func (p *pool) pinCaller() affinity.Pinning {
	if p == nil {
		return affinity.Pinning{}
	}
	return pinFirst(p.cpus)
}

// pinFirst pins the calling goroutine to cpus[0] (nil: not pinned).
func pinFirst(cpus []int) affinity.Pinning {
	if cpus == nil {
		return affinity.Pinning{}
	}
	pinned, _ := affinity.Pin(cpus[0]) // on error: the zero Pinning
	return pinned
}

// close stops the workers.
func (p *pool) close() {
	p.closed.Store(true)
	p.epoch.Add(1)
	for w := 1; w < len(p.shards); w++ {
		if p.wk[w].sleeping.CompareAndSwap(true, false) {
			p.wk[w].wake <- struct{}{}
		}
	}
}
