package engine

import (
	"bytes"
	"context"
	"fmt"
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
	// A window takes milliseconds; the rest is slack for a loaded
	// machine (the suite runs on two cores beside other work).
	if late := time.Since(<-cancelled); late > 500*time.Millisecond {
		t.Errorf("RunWith returned %v after the cancellation", late)
	}
	// Due at one, two, …, five intervals: allow a loaded machine some slack.
	if len(ckpts) < 3 {
		t.Errorf("%d checkpoints in %v at one every 100ms", len(ckpts), time.Since(t0))
	}
	if s.Iter() == 0 || s.Iter() >= 1e9 {
		t.Errorf("stopped at iteration %d", s.Iter())
	}
}

// TestMeasureCancelResumes: a cancellation during a measurement ends it
// (its partial record is not in the trace), and a run resumed from the
// state then saved takes that measurement again: the trace and the state
// end as the uninterrupted run's, for a measurement inside the run and for
// the last one.
func TestMeasureCancelResumes(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 300, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 300, K: 4, P: 0.3, Seed: 2})
	mk := func() *Sim {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 2000, GammaC: 1, Seed: 4, LogPoints: 10})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	ref := mk()
	want, err := ref.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{3, 9} { // the 4th measurement, the last
		a := mk()
		ctx, cancel := context.WithCancel(context.Background())
		measures := 0
		trace, err := a.RunWith(ctx, RunOptions{OnProgress: func(_ int64, measuring bool) {
			if measuring {
				if measures == at {
					cancel()
					time.Sleep(20 * time.Millisecond) // the cancellation reaches the flag
				}
				measures++
			}
		}}, nil)
		if err != context.Canceled || len(trace) != at || a.Iter() != a.MeasureIters()[at] {
			t.Fatalf("measurement %d: err %v, %d records, at iteration %d", at, err, len(trace), a.Iter())
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := mk()
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.RunWith(context.Background(), RunOptions{}, tr)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || b.StateChecksum() != ref.StateChecksum() {
			t.Fatalf("measurement %d: resumed to %d records (want %d), or another state", at, len(got), len(want))
		}
	}
}

// TestMeasureCancelPrompt (issue "Nothing silent, nothing lost", case 8):
// a cancellation during an exact measurement that takes seconds is seen
// within a positive point's row of the pair sums.
func TestMeasureCancelPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	n := 20000
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 2})
	s, err := New(p, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 4, LogPoints: 2, Measure: MeasureExact, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	trace, err := s.RunWith(ctx, RunOptions{OnProgress: func(_ int64, measuring bool) {
		if measuring {
			time.AfterFunc(100*time.Millisecond, func() {
				cancelled <- time.Now()
				cancel()
			})
		}
	}}, nil)
	if err != context.Canceled || len(trace) != 0 {
		t.Fatalf("err %v, %d records", err, len(trace))
	}
	// A row takes well under a millisecond (the whole measurement,
	// seconds); the rest is slack for a loaded machine.
	if late := time.Since(<-cancelled); late > 500*time.Millisecond {
		t.Errorf("RunWith returned %v after the cancellation", late)
	}
}
