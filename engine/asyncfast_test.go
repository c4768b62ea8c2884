package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// TestAsyncLogisticDivergence: the fast path's serial loop with the
// two-event kernel and the parallel executor (which pairs the events of a
// level) report the first divergence (iteration, node, field) of the loop
// that runs one event at a time, whichever event of a pair diverges. (The
// literal reference, whose arithmetic agrees only to rounding, can cross
// the overflow threshold at another event.)
func TestAsyncLogisticDivergence(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 64, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 64, K: 4, P: 0.3, Seed: 2})
	run := func(seed uint64, workers int, pairs bool) *DivergenceError {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 100000, GammaC: 2e307, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !pairs {
			s.exec.(*asyncExec).evp = nil
		}
		_, err = s.Run(context.Background(), nil)
		var de *DivergenceError
		if !errors.As(err, &de) {
			t.Fatalf("seed %d workers %d pairs %v: no divergence: %v", seed, workers, pairs, err)
		}
		return de
	}
	iters := map[int64]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		want := run(seed, 1, false)
		iters[want.Iter] = true
		for _, w := range []int{1, 3} {
			if got := run(seed, w, true); *got != *want {
				t.Fatalf("seed %d workers %d: %v; one event at a time: %v", seed, w, got, want)
			}
		}
	}
	t.Logf("divergences at %v", iters)
	if len(iters) < 5 {
		t.Fatalf("divergences at only %d distinct iterations: the test checks too little", len(iters))
	}
}
