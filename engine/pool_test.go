package engine

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/affinity"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// TestPoolRounds: every shard runs exactly once per round and run returns
// only after all of them, whether the workers spin or sleep between rounds
// (the gaps straddle poolSpin), and close ends workers that sleep.
func TestPoolRounds(t *testing.T) {
	defer func(s time.Duration) { poolSpin = s }(poolSpin)
	for _, workers := range []int{2, 3, 8} {
		for _, spin := range []bool{true, false} {
			poolSpin = 0
			if spin {
				poolSpin = 50 * time.Microsecond
			}
			p := newPool(layout.Shards(64*workers, workers), nil)
			counts := make([]atomic.Int64, workers)
			for round := 1; round <= 300; round++ {
				p.run(func(w int, r layout.Range, _ *task) {
					if r != p.shards[w] {
						t.Errorf("worker %d got shard %v, want %v", w, r, p.shards[w])
					}
					if round%7 == 0 {
						time.Sleep(20 * time.Microsecond) // the caller waits
					}
					counts[w].Add(1)
				}, task{t: int64(round)})
				for w := range counts {
					if got := counts[w].Load(); got != int64(round) {
						t.Fatalf("workers=%d spin=%v: after round %d worker %d ran %d times", workers, spin, round, w, got)
					}
				}
				if round%10 == 0 {
					time.Sleep(time.Duration(round%3) * 100 * time.Microsecond) // workers spin, or sleep
				}
			}
			if p.runs != 300 {
				t.Fatalf("runs = %d", p.runs)
			}
			time.Sleep(time.Millisecond) // let every worker fall asleep
			p.close()
		}
	}
}

// TestPoolNoStaleWakeup: the worker that finishes a round's last shard may be
// descheduled between its count and its wake-up of the caller, while the
// caller, spinning, sees the count reach zero and starts the next round. Its
// late wake-up must not end the next round before all shards ran (it once
// did: run returned early and the shard counts went wrong, and under
// emulated arm64 the pool deadlocked).
func TestPoolNoStaleWakeup(t *testing.T) {
	defer func(s time.Duration) { poolSpin = s }(poolSpin)
	defer poolLastHook.Store(nil)
	poolSpin = 5 * time.Millisecond
	var lasts atomic.Int64 // the hook runs once a round: in rounds 1, 3, 5, ...
	hook := func() {
		if lasts.Add(1)%2 == 1 {
			// Longer than the caller's spin: it sees the count reach zero,
			// returns, starts the next round and falls asleep in it.
			time.Sleep(4 * poolSpin)
		}
	}
	poolLastHook.Store(&hook)
	p := newPool(layout.Shards(64*2, 2), nil)
	defer p.close()
	var count atomic.Int64
	for round := 1; round <= 20; round++ {
		p.run(func(w int, r layout.Range, _ *task) {
			if w == 1 {
				time.Sleep(poolSpin / 2) // a late wake-up arrives before this shard ends
			}
			count.Add(1)
		}, task{t: int64(round)})
		if got := count.Load(); got != int64(2*round) {
			t.Fatalf("run returned from round %d after %d shard calls, want %d", round, got, 2*round)
		}
	}
}

// TestPoolPinned: a pinned pool's workers run on their CPUs, and the caller
// is pinned while pinCaller is in effect and restored after.
func TestPoolPinned(t *testing.T) {
	cpus, why := affinity.Plan(2)
	if cpus == nil {
		t.Skip("pinning cannot help here: " + why)
	}
	p := newPool(layout.Shards(128, 2), cpus)
	defer p.close()
	var got [2][]int
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer p.pinCaller().Undo()
		p.run(func(w int, r layout.Range, _ *task) { got[w], _ = affinity.Allowed() }, task{})
	}()
	<-done
	for w := range got {
		if len(got[w]) != 1 || got[w][0] != cpus[w] {
			t.Errorf("worker %d runs on %v, want [%d]", w, got[w], cpus[w])
		}
	}
}

func spinFor(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}

// BenchmarkPoolRound is the cost of one round of the pool: the barrier a
// synchronous round, a block or an asynchronous level pays, with `work` per
// worker and `gap` of serial work on the caller between rounds. The
// ns-overhead metric is the time per round beyond work + gap (rounds whose
// shards ran one after the other show about one more `work`).
func BenchmarkPoolRound(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs 2 Ps")
	}
	for _, c := range []struct{ work, gap time.Duration }{{0, 0}, {20 * time.Microsecond, 5 * time.Microsecond}, {100 * time.Microsecond, 50 * time.Microsecond}, {100 * time.Microsecond, time.Millisecond}} {
		for _, spin := range []bool{true, false} {
			name := "work=" + c.work.String() + "/gap=" + c.gap.String() + "/spin=" + map[bool]string{true: "on", false: "off"}[spin]
			b.Run(name, func(b *testing.B) {
				defer func(s time.Duration) { poolSpin = s }(poolSpin)
				if !spin {
					poolSpin = 0
				}
				p := newPool(layout.Shards(128, 2), nil)
				defer p.close()
				var sink atomic.Int64
				fn := func(w int, r layout.Range, _ *task) { spinFor(c.work); sink.Add(int64(r.Lo)) }
				for b.Loop() {
					p.run(fn, task{})
					spinFor(c.gap)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)-float64(c.work+c.gap), "ns-overhead/op")
			})
		}
	}
}

// TestPinnedRunsIdentical: pinning changes where the work runs, not what is
// computed: a pinned run (synchronous pool, parallel asynchronous executor)
// ends in the same state as an unpinned one, and Pinned reports the plan.
func TestPinnedRunsIdentical(t *testing.T) {
	forcePool(t)
	shrinkAsync(t)
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 96, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 96, K: 4, P: 0.3, Seed: 3})
	for _, algo := range []Algorithm{Sync, Async} {
		var sums [2][32]byte
		for i, pin := range []bool{false, true} {
			s, err := New(p, g, Config{Algorithm: algo, Iters: 3000, GammaC: 0.5, Seed: 9, Workers: 2, LogPoints: 4, EvalNodes: -1, Pin: pin})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			cpus, why := s.Pinned()
			want, wantWhy := affinity.Plan(2)
			if !pin {
				want, wantWhy = nil, "not asked (Config.Pin)"
			}
			if !slices.Equal(cpus, want) || why != wantWhy {
				t.Errorf("%s pin=%v: Pinned() = %v, %q; want %v, %q", algo, pin, cpus, why, want, wantWhy)
			}
			sums[i] = s.StateChecksum()
			s.Close()
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: pinned run differs from the unpinned one", algo)
		}
	}
}

// TestPoolPanic: a panic on a worker's shard or on the caller's reaches the
// caller as a *PanicError once every shard is done (the others ran), and
// the pool runs the next round and closes as usual: nothing hangs.
func TestPoolPanic(t *testing.T) {
	p := newPool(layout.Shards(64*4, 4), nil)
	defer p.close()
	for _, bad := range []int{2, 0} {
		var ran atomic.Int32
		func() {
			defer func() {
				pe, ok := recover().(*PanicError)
				if !ok || pe.Value != "shard failed" {
					t.Errorf("shard %d: recovered %#v, want a *PanicError", bad, pe)
				}
			}()
			p.run(func(w int, _ layout.Range, _ *task) {
				if w == bad {
					panic("shard failed")
				}
				ran.Add(1)
			}, task{})
		}()
		if ran.Load() != 3 {
			t.Errorf("shard %d: %d other shards ran, want 3", bad, ran.Load())
		}
		ran.Store(0)
		p.run(func(int, layout.Range, *task) { ran.Add(1) }, task{})
		if ran.Load() != 4 {
			t.Errorf("after the panic: %d shards ran, want 4", ran.Load())
		}
	}
}
