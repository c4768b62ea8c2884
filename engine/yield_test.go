package engine

import (
	"context"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// TestAsyncParYieldsSameBits: the parallel asynchronous executor returning
// after every window (a checkpoint due at every turn of RunWith) gives the
// bits of the serial loop.
func TestAsyncParYieldsSameBits(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 200, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.3, Seed: 2})
	mk := func(workers int) *Sim {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 5000, GammaC: 1, Seed: 4, LogPoints: 2, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	serial := mk(1)
	want, err := serial.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := mk(2)
	if apar(a) == nil {
		t.Fatal("not the parallel executor")
	}
	// Asked to yield at every call: one window each (at most 48 events).
	calls := 0
	for a.t < 5000 {
		a.yield.Store(true)
		if err := a.advance(5000); err != nil {
			t.Fatal(err)
		}
		calls++
	}
	if calls < 5000/48 || apar(a).parLevels == 0 {
		t.Fatalf("%d calls over 5000 events, %d parallel levels", calls, apar(a).parLevels)
	}
	if a.StateChecksum() != serial.StateChecksum() {
		t.Fatal("the parallel run that yielded differs from the serial run")
	}
	// And through RunWith, a checkpoint due at every turn.
	b := mk(2)
	got, err := b.RunWith(context.Background(), RunOptions{CheckpointEvery: 0, Checkpoint: func([]Record) error { return nil }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.StateChecksum() != serial.StateChecksum() || len(got) != len(want) || got[len(got)-1] != want[len(want)-1] {
		t.Fatal("the parallel run with checkpoints differs from the serial run")
	}
}

// TestAsyncParYieldsOnTime (issue "Nothing silent, nothing lost", case 8):
// between two measurements the parallel asynchronous executor used to run
// every event before RunWith could see a cancellation or a checkpoint due;
// now both are seen within a window or two.
func TestAsyncParYieldsOnTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	n := 8192
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 2})
	// 10⁹ events: hours, the one measurement after the first at the end.
	s, err := New(p, g, Config{Algorithm: Async, Iters: 1e9, GammaC: 1, Seed: 4, LogPoints: 2, Workers: 2, EvalNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if apar(s) == nil {
		t.Fatal("not the parallel executor")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ckpts []time.Time
	t0 := time.Now()
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(600*time.Millisecond, func() {
		cancelled <- time.Now()
		cancel()
	})
	_, err = s.RunWith(ctx, RunOptions{CheckpointEvery: 100 * time.Millisecond, Checkpoint: func([]Record) error {
		ckpts = append(ckpts, time.Now())
		return nil
	}}, nil)
	if err != context.Canceled {
		t.Fatalf("err %v", err)
	}
	if late := time.Since(<-cancelled); late > 300*time.Millisecond {
		t.Errorf("RunWith returned %v after the cancellation", late)
	}
	// Due at 100, 200, ..., 500 ms: allow a loaded machine some slack.
	if len(ckpts) < 3 {
		t.Errorf("%d checkpoints in %v at one every 100ms", len(ckpts), time.Since(t0))
	}
	if s.Iter() == 0 || s.Iter() >= 1e9 {
		t.Errorf("stopped at iteration %d", s.Iter())
	}
}
