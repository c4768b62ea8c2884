package engine

import (
	"context"
	"testing"

	"github.com/pairgossip/pairgossip/problem"
)

// The automatic sample of measured nodes never exceeds the state's rows:
// the centralized algorithm has one row whatever n, and its measurement
// used to ask for 16 nodes of that one row once measuring every row cost
// more than autoEvalCost (a panic from n ≈ 6000 on the AUC losses).
func TestEvalCountNeverExceedsRows(t *testing.T) {
	cfg := Config{Algorithm: Centralized}
	for _, c := range []struct {
		loss       problem.Loss
		n, npos, d int
	}{
		{problem.AUCLogistic, 6000, 3000, 2},
		{problem.AUCLogistic, 100000, 50000, 16},
		{problem.MetricHinge, 1000, 0, 20},
	} {
		for _, rows := range []int{1, 2, 15, 16, 17} {
			if got := evalCountShape(c.loss, c.n, c.npos, c.d, cfg, rows); got < 1 || got > rows {
				t.Errorf("%v n=%d rows=%d: %d measured nodes", c.loss, c.n, rows, got)
			}
		}
	}
	for _, rows := range []int{1, 15} {
		if got := evalCountCustom(6000, 4, cfg, rows); got < 1 || got > rows {
			t.Errorf("custom n=6000 rows=%d: %d measured nodes", rows, got)
		}
	}
	// Where there are enough rows, the sample is what it was (the nodes
	// measured at the paper's sizes, and the golden checksums, unchanged).
	if got := evalCountShape(problem.AUCLogistic, 100000, 50000, 16, cfg, 100000); got != 16 {
		t.Errorf("n=1e5: %d measured nodes, want 16", got)
	}
}

// The centralized algorithm runs and measures past the size where the
// automatic measurement samples nodes (n = 6100 here: 2n²/9 pair losses a
// node).
func TestCentralizedLargeN(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 6100, 4, 1)
	s, err := New(p, nil, Config{Algorithm: Centralized, Iters: 100, GammaC: 0.1, Seed: 1, LogPoints: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	trace, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(trace) != 2 || len(s.EvalNodes()) != 1 {
		t.Fatalf("%d records, %d measured nodes; want 2 and 1", len(trace), len(s.EvalNodes()))
	}
}
