package engine

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// shrinkAsync makes the parallel executor engage on test-sized graphs.
func shrinkAsync(t *testing.T) {
	mn, ml, mw, sp, ch := asyncMinNodes, asyncMinLevel, asyncMaxWindow, asyncSerialProbe, asyncChunk
	fc, fp := asyncFlowChunk, asyncFlowMinPar
	asyncMinNodes, asyncMinLevel, asyncMaxWindow, asyncSerialProbe, asyncChunk = 8, 3, 48, 2, 2
	asyncFlowChunk, asyncFlowMinPar = 4, 2
	t.Cleanup(func() {
		asyncMinNodes, asyncMinLevel, asyncMaxWindow, asyncSerialProbe, asyncChunk = mn, ml, mw, sp, ch
		asyncFlowChunk, asyncFlowMinPar = fc, fp
	})
}

// forcePool makes the synchronous worker pool engage on test-sized problems.
func forcePool(t *testing.T) {
	pm, cm, rm := poolMinWork, coneMinPoolWork, reducedMinPoolWork
	poolMinWork, coneMinPoolWork, reducedMinPoolWork = 1, 1, 1
	t.Cleanup(func() { poolMinWork, coneMinPoolWork, reducedMinPoolWork = pm, cm, rm })
}

// poolRan fails the test if s has more than one worker but its synchronous
// pool never ran a round.
func poolRan(t *testing.T, s *Sim, what string) {
	t.Helper()
	runs := s.crew.runs
	if s.crew.pool != nil {
		runs += s.crew.pool.runs
	}
	if s.crew.n > 1 && runs == 0 {
		t.Fatalf("%s: %d workers but the pool never ran", what, s.crew.n)
	}
}

// apar returns the run's parallel asynchronous executor, nil if it has none.
func apar(s *Sim) *asyncParExec {
	a, _ := s.exec.(*asyncParExec)
	return a
}

// TestParallelAsyncIdenticalToSerial: the parallel executor's final state
// (z, θ, θ̄, y, m) and trace are bit-identical to the serial loop's for 1, 2,
// 3 and 8 workers on complete, Watts–Strogatz, cycle and star graphs.
func TestParallelAsyncIdenticalToSerial(t *testing.T) {
	shrinkAsync(t)
	n := 96
	graphs := []graph.Spec{{Kind: "complete", N: n}, {Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3},
		{Kind: "cycle", N: n}, {Kind: "star", N: n}}
	type pc struct {
		loss problem.Loss
		reg  problem.Regularizer
		est  Estimator
	}
	probs := []pc{{problem.AUCLogistic, problem.Regularizer{}, Gossip}, {problem.AUCHinge, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.01}, Unbiased},
		{problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, Gossip}}
	for _, spec := range graphs {
		g := mustGraph(t, spec)
		for _, pcase := range probs {
			p := testProblem(t, pcase.loss, pcase.reg, n, 3, 2)
			var ref []byte
			var refTrace []Record
			for _, w := range []int{1, 2, 3, 8} {
				s, err := New(p, g, Config{Algorithm: Async, Estimator: pcase.est, Iters: 3000, GammaC: 0.5, Seed: 5, Workers: w, LogPoints: 7})
				if err != nil {
					t.Fatal(err)
				}
				if (w > 1) != (apar(s) != nil) {
					t.Fatalf("workers %d: parallel executor %v", w, apar(s) != nil)
				}
				tr, err := s.Run(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				st := stateBytes(t, s)
				if w > 1 && spec.Kind == "complete" && apar(s).parLevels == 0 {
					t.Fatalf("%d workers: no level ran in parallel", w)
				}
				s.Close()
				if ref == nil {
					ref, refTrace = st, tr
					continue
				}
				if !bytes.Equal(st, ref) {
					t.Fatalf("%s/%s/%s: %d workers: final state differs from the serial loop", spec.Kind, pcase.loss, pcase.est, w)
				}
				for i := range tr {
					if !sameRecord(tr[i], refTrace[i]) {
						t.Fatalf("%s/%s: %d workers: record %d differs", spec.Kind, pcase.loss, w, i)
					}
				}
			}
		}
	}
}

// TestParallelAsyncDependTable: the dataflow schedule's dependencies from
// the table of a window's nodes (dependTable, the large-n path) give the
// serial loop's state bit for bit, across a wrap of the table's 16-bit
// generation, and the table is what runs.
func TestParallelAsyncDependTable(t *testing.T) {
	shrinkAsync(t)
	defer func(v int) { asyncDependTableAbove = v }(asyncDependTableAbove)
	n := 200 // below the table's length at the tests' windows (256): −1 keeps the marks
	for _, spec := range []graph.Spec{{Kind: "complete", N: n}, {Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3}} {
		g := mustGraph(t, spec)
		p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
		var ref []byte
		for _, c := range []struct{ workers, above int }{{1, -1}, {2, 0}, {3, 0}, {2, -1}} {
			asyncDependTableAbove = c.above
			s, err := New(p, g, Config{Algorithm: Async, Iters: 20000, GammaC: 0.5, Seed: 5, Workers: c.workers, LogPoints: 5})
			if err != nil {
				t.Fatal(err)
			}
			if a := apar(s); a != nil {
				if (a.tab != nil) != (c.above == 0) {
					t.Fatalf("%s, %d workers, above %d: table in use %v", spec.Kind, c.workers, c.above, a.tab != nil)
				}
				a.tgen = math.MaxUint16 - 3 // wraps within the run
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			st := stateBytes(t, s)
			if a := apar(s); a != nil && c.above == 0 && (a.parLevels == 0 || a.tgen > 1000) {
				t.Fatalf("%s: %d parallel windows, generation %d (want some, wrapped)", spec.Kind, a.parLevels, a.tgen)
			}
			s.Close()
			if ref == nil {
				ref = st
			} else if !bytes.Equal(st, ref) {
				t.Fatalf("%s: %d workers, table above %d nodes: state differs from the serial loop", spec.Kind, c.workers, c.above)
			}
		}
	}
}

// TestAsyncPrefetchIdentical: the gossip loop's prefetching is a hint. With
// it forced on, under groups and distances odd, even, shorter and longer
// than the two-event kernel's step and a window, the serial loop and the
// parallel executor end in the state of the loop without prefetching, bit
// for bit; and it is on exactly when the records and packed scalars
// outgrow asyncGossipPrefetchBytes.
func TestAsyncPrefetchIdentical(t *testing.T) {
	shrinkAsync(t)
	n := 96
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 9, 2)
	pb, pg, pa := asyncGossipPrefetchBytes, asyncGroup, asyncGroupAhead
	t.Cleanup(func() { asyncGossipPrefetchBytes, asyncGroup, asyncGroupAhead = pb, pg, pa })
	run := func(w int) ([]byte, bool) {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 20000, GammaC: 0.5, Seed: 5, Workers: w, LogPoints: 3})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		e, ok := s.exec.(*asyncExec)
		if ap := apar(s); ap != nil {
			e, ok = ap.eventRunner.(*asyncExec)
		}
		if !ok {
			t.Fatalf("%d workers: executor %T, want the gossip fast path", w, s.exec)
		}
		return stateBytes(t, s), e.pfOn
	}
	asyncGossipPrefetchBytes = 1 << 40
	ref, on := run(1)
	if on {
		t.Fatal("prefetching on below the threshold")
	}
	for _, c := range [][2]int{{1, 1}, {2, 4}, {3, 7}, {8, 16}, {5000, 2}} {
		asyncGroup, asyncGroupAhead = c[0], c[1]
		for _, w := range []int{1, 2} {
			asyncGossipPrefetchBytes = 0
			st, on := run(w)
			if !on {
				t.Fatalf("group %d, ahead %d, %d workers: prefetching off above the threshold", c[0], c[1], w)
			}
			if !bytes.Equal(st, ref) {
				t.Fatalf("group %d, ahead %d, %d workers: final state differs from the loop without prefetching", c[0], c[1], w)
			}
		}
	}
	s, err := New(p, g, Config{Algorithm: Async, Iters: 1, GammaC: 0.5, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(s.rows()) * int64(s.X.Stride*8+int(unsafe.Sizeof(asyncNode{})))
	s.Close()
	for _, c := range []struct {
		limit int64
		on    bool
	}{{size - 1, true}, {size, false}} {
		asyncGossipPrefetchBytes = c.limit
		if _, on := run(1); on != c.on {
			t.Errorf("records and scalars %d bytes, threshold %d: prefetching %v, want %v", size, c.limit, on, c.on)
		}
	}
}

// TestParallelAsyncDivergence reports the same first divergence as the serial loop.
func TestParallelAsyncDivergence(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCSquaredHinge, problem.Regularizer{}, 64, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 64})
	var errs []string
	for _, w := range []int{1, 3} {
		s, _ := New(p, g, Config{Algorithm: Async, Iters: 100000, GammaC: 1e300, Seed: 1, Workers: w})
		_, err := s.Run(context.Background(), nil)
		s.Close()
		if _, ok := err.(*DivergenceError); !ok {
			t.Fatalf("workers %d: %v", w, err)
		}
		errs = append(errs, err.Error())
	}
	if errs[0] != errs[1] {
		t.Fatalf("serial: %s; parallel: %s", errs[0], errs[1])
	}
}

// TestParallelAsyncCheckpointResume: the parallel executor builds windows
// ahead, but never past the point where it returns, so a checkpoint taken
// between measurements (the edge stream's state included) resumes to the
// same final state as an uninterrupted run, and as the serial loop.
func TestParallelAsyncCheckpointResume(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 200, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.3, Seed: 2})
	mk := func(workers int) *Sim {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 5000, GammaC: 1, Seed: 4, LogPoints: 12, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	serial := mk(1)
	if _, err := serial.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	a := mk(2)
	ctx, cancel := context.WithCancel(context.Background())
	trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
		if r.Iter >= 700 {
			cancel()
		}
	}}, nil)
	if err != context.Canceled {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if apar(a) == nil || apar(a).parLevels == 0 {
		t.Fatal("the parallel executor did not run")
	}
	var buf bytes.Buffer
	if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
		t.Fatal(err)
	}
	b := mk(2)
	tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
		t.Fatal(err)
	}
	if b.StateChecksum() != serial.StateChecksum() {
		t.Fatal("resumed parallel run differs from the serial run")
	}
}

// TestMemoryCeiling: the memory-traffic loop of bench async runs on the
// serial gossip fast path, counts its events on the packed scalars, and
// refuses other executors.
func TestMemoryCeiling(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 64, 16, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 64})
	for _, est := range []Estimator{Gossip, Unbiased} {
		s, err := New(p, g, Config{Algorithm: Async, Estimator: est, Iters: 100, GammaC: 1, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		err = s.memoryCeilingOwn(10000)
		if (err == nil) != (est == Gossip) {
			t.Fatalf("%s: %v", est, err)
		}
		if est == Gossip {
			e, ok := s.exec.(*asyncExec)
			if !ok {
				t.Fatalf("executor %T, want the fast path's *asyncExec", s.exec)
			}
			var n int64
			for _, nd := range e.nd {
				n += nd.count
			}
			if n != 2*10000 {
				t.Fatalf("%d activations, want %d", n, 2*10000)
			}
		}
		s.Close()
	}
}

// TestMemoryCeilingWith: the memory-traffic loop runs every event under any
// prefetching (none, groups smaller and larger than a window, distances
// past it) and refuses a group without a distance or the reverse.
func TestMemoryCeilingWith(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 64, 16, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 64})
	const events = 10000
	for _, c := range [][2]int{{0, 0}, {1, 1}, {8, 16}, {16, 64}, {3, 5000}, {5000, 3}} {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 100, GammaC: 1, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.memoryCeilingWith(events, c[0], c[1]); err != nil {
			t.Fatalf("group %d, ahead %d: %v", c[0], c[1], err)
		}
		var n int64
		for _, nd := range s.exec.(*asyncExec).nd {
			n += nd.count
		}
		if n != 2*events {
			t.Fatalf("group %d, ahead %d: %d activations, want %d", c[0], c[1], n, 2*events)
		}
		s.Close()
	}
	s, err := New(p, g, Config{Algorithm: Async, Iters: 100, GammaC: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range [][2]int{{0, 1}, {1, 0}, {-1, -1}, {-1, 4}} {
		if err := s.memoryCeilingWith(events, c[0], c[1]); err == nil || !strings.Contains(err.Error(), "group") {
			t.Fatalf("group %d, ahead %d: err = %v, want a refusal naming the group", c[0], c[1], err)
		}
	}
}
