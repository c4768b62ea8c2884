package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/layout"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// relDiff returns ‖a − b‖_F/‖b‖_F over the rows of two matrices (row by
// row: a field view's Data spans the other fields of the node records).
func relDiff(a, b layout.Matrix) float64 {
	var diff, norm float64
	for k := 0; k < b.Rows; k++ {
		ra, rb := a.Row(k), b.Row(k)
		for i := range rb {
			diff += (ra[i] - rb[i]) * (ra[i] - rb[i])
			norm += rb[i] * rb[i]
		}
	}
	if diff == 0 {
		return 0
	}
	return math.Sqrt(diff / norm)
}

// TestConeAgreesWithReference: the reduced metric-learning schedule against
// the per-node reference, for the three regularisers it takes, on graphs
// from the best to the worst connected, with 1, 2 and 3 workers: z within
// 1e-12 relative (it is updated by the same arithmetic), θ and θ̄ within
// 1e-9 after 3000 rounds, the same y and gradient counts.
func TestConeAgreesWithReference(t *testing.T) {
	regs := []problem.Regularizer{{Kind: problem.RegPSD}, {}, {Kind: problem.RegL2Sq, Lambda: 0.05}}
	for _, reg := range regs {
		for _, kind := range []string{"complete", "watts-strogatz", "cycle"} {
			p := testProblem(t, problem.MetricHinge, reg, 60, 5, 11)
			g := mustGraph(t, graph.Spec{Kind: kind, N: 60, K: 4, P: 0.3, Seed: 3})
			cfg := Config{Algorithm: Sync, Iters: 3000, GammaC: 0.05, Seed: 9, Workers: 1, LogPoints: 6, EvalNodes: -1, Schedule: ScheduleReference}
			ref, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			refTrace, err := ref.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			ref.Close()
			for _, w := range []int{1, 2, 3} {
				cfg.Schedule, cfg.Workers = ScheduleAuto, w
				s, err := New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s/%s/%d workers", reg.Kind, kind, w)
				if s.Schedule() != ScheduleReduced {
					t.Fatalf("%s: auto picked %s", name, s.Schedule())
				}
				tr, err := s.Run(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				if d := relDiff(s.Z, ref.Z); d > 1e-12 {
					t.Fatalf("%s: z differs by %g", name, d)
				}
				for _, f := range []struct {
					a, b layout.Matrix
					what string
				}{{s.ThetaMatrix(), ref.ThetaMatrix(), "θ"}, {s.ThetaBar, ref.ThetaBar, "θ̄"}} {
					d := relDiff(f.a, f.b)
					if !(d <= 1e-9) {
						t.Fatalf("%s: %s differs by %g relative", name, f.what, d)
					}
					if w == 1 {
						t.Logf("%s: %s relative difference %.2g", name, f.what, d)
					}
				}
				for k := range s.Y {
					if s.Y[k] != ref.Y[k] {
						t.Fatalf("%s: y differs at node %d", name, k)
					}
				}
				a, nz := s.GradEvals()
				ra, rnz := ref.GradEvals()
				if a != ra || nz != rnz || nz == 0 {
					t.Fatalf("%s: gradient evaluations %d/%d, reference %d/%d", name, a, nz, ra, rnz)
				}
				for i := range tr {
					if tr[i].Iter != refTrace[i].Iter || math.Abs(tr[i].ObjMean-refTrace[i].ObjMean) > 1e-9*math.Abs(refTrace[i].ObjMean) {
						t.Fatalf("%s: record %d: objective %v vs %v", name, i, tr[i].ObjMean, refTrace[i].ObjMean)
					}
				}
				if reg.Kind == problem.RegPSD && s.eigendecompositions() >= ref.eigendecompositions() {
					t.Fatalf("%s: %d eigendecompositions, reference %d", name, s.eigendecompositions(), ref.eigendecompositions())
				}
				t.Logf("%s: eigendecompositions %d, rank-one updates %d (reference: %d eigendecompositions), non-zero gradients %d", name, s.eigendecompositions(), s.rankOneUpdates(), ref.eigendecompositions(), nz)
			}
		}
	}
}

// TestConeIdenticalAcrossWorkers: bit-identical state for 1, 2, 3 and 8
// workers, with enough nodes that the pool runs.
func TestConeIdenticalAcrossWorkers(t *testing.T) {
	forcePool(t)
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 200, 6, 4)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.3, Seed: 2})
	var first [32]byte
	var firstEigs int64
	for i, w := range []int{1, 2, 3, 8} {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 1500, GammaC: 0.05, Seed: 5, Workers: w, LogPoints: 4, EvalNodes: 16})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		sum := s.StateChecksum()
		poolRan(t, s, fmt.Sprintf("workers=%d", w))
		if i == 0 {
			first, firstEigs = sum, s.eigendecompositions()
		} else if sum != first || s.eigendecompositions() != firstEigs {
			t.Fatalf("workers=%d: state or eigendecomposition count differs", w)
		}
		s.Close()
	}
}

// TestConeCheckpointResume: a reduced metric run stopped, saved and resumed
// ends in the uninterrupted run's state bit for bit (U and q are rebuilt
// from z).
func TestConeCheckpointResume(t *testing.T) {
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 40, 4, 6)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.3, Seed: 1})
	mk := func() *Sim {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 3000, GammaC: 0.05, Seed: 4, LogPoints: 8, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ref := mk()
	refTrace, err := ref.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := mk()
	ctx, cancel := context.WithCancel(context.Background())
	trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
		if r.Iter >= 300 {
			cancel()
		}
	}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
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
	if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
		t.Fatal(err)
	}
	for i := range tr {
		if !sameRecord(tr[i], refTrace[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
	if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
		t.Fatal("final state differs")
	}
}

// TestConeCheckpointBadCountRefused: a checkpoint whose checksum is right
// but whose eigen-update count is out of range is refused before anything is
// applied.
func TestConeCheckpointBadCountRefused(t *testing.T) {
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 24, 3, 6)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 24})
	mk := func(iters int64) *Sim {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 600, GammaC: 0.05, Seed: 4, LogPoints: 4})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(iters); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var buf bytes.Buffer
	if err := mk(600).WriteCheckpoint(&buf, []byte("id"), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The counts are the last floats before the SHA-256 (no trace): set the
	// last one to 99 and re-sign.
	body := b[:len(b)-32]
	binary.LittleEndian.PutUint64(body[len(body)-8:], math.Float64bits(99))
	sum := sha256.Sum256(body)
	bad := append(bytes.Clone(body), sum[:]...)
	dst := mk(300)
	before := stateBytes(t, dst)
	if _, err := dst.ReadCheckpoint(bytes.NewReader(bad), []byte("id")); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "eigen-update count") {
		t.Fatalf("err = %v, want ErrCheckpoint for the update count", err)
	}
	if !bytes.Equal(before, stateBytes(t, dst)) {
		t.Fatal("a refused checkpoint changed the state")
	}
}

// TestConeDivergence: a step size that overflows stops the reduced schedule
// with the iteration and node, like the reference.
func TestConeDivergence(t *testing.T) {
	// Points of size 1e155: δδᵀ overflows to +Inf at the first non-zero gradient.
	base := testProblem(t, problem.MetricHinge, problem.Regularizer{}, 30, 3, 2)
	x := make([]float64, 0, 90)
	for k := 0; k < 30; k++ {
		for _, v := range base.X.Row(k) {
			x = append(x, v*1e155)
		}
	}
	p, err := problem.New(problem.MetricHinge, problem.Regularizer{}, 2, 30, 3, x, base.Label)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 30})
	var errs [2]*DivergenceError
	for i, sched := range []Schedule{ScheduleReference, ScheduleReduced} {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 2000, GammaC: 1, Seed: 1, LogPoints: 2, Schedule: sched})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), nil)
		if !errors.As(err, &errs[i]) {
			t.Fatalf("%s: %v", sched, err)
		}
		s.Close()
	}
	if errs[0].Iter != errs[1].Iter || errs[0].Node != errs[1].Node {
		t.Fatalf("reference stopped at %v, reduced at %v", errs[0], errs[1])
	}
	t.Logf("reference: %v; reduced: %v", errs[0], errs[1])
}

// TestMetricConvergesSynthetic: synchronous metric learning on the paper's
// synthetic set (n = 1000, d = 40, 10 classes) with the reduced schedule
// decreases the objective on the complete, Watts–Strogatz and cycle graphs,
// and every θ̄_k ends positive semidefinite.
func TestMetricConvergesSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("paper-size metric learning")
	}
	ds, err := dataset.Synthetic(dataset.DefaultSynthetic())
	if err != nil {
		t.Fatal(err)
	}
	p, err := problem.New(problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 2, ds.N, ds.D, ds.X, ds.Class)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"complete", "watts-strogatz", "cycle"} {
		g := mustGraph(t, graph.Spec{Kind: kind, N: ds.N, K: 5, P: 0.3, Seed: 1})
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 2500, GammaC: 0.01, Seed: 1, LogPoints: 6, EvalNodes: 12})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := s.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Gossip makes the first rounds noisy (a node's θ̄ moves before its
		// auxiliary point has left it); from the middle of the run on, every
		// measurement must be below the one before, and the last well below
		// the first.
		first, last := tr[0].ObjMean, tr[len(tr)-1].ObjMean
		for i := len(tr) / 2; i < len(tr); i++ {
			if tr[i].ObjMean > tr[i-1].ObjMean {
				t.Fatalf("%s: objective rose from %g to %g at iteration %d", kind, tr[i-1].ObjMean, tr[i].ObjMean, tr[i].Iter)
			}
		}
		if !(last < 0.95*first) {
			t.Fatalf("%s: objective %g → %g", kind, first, last)
		}
		ws := problem.NewWorkspace(ds.D)
		for _, k := range s.EvalNodes() {
			bar := s.ThetaBar.Row(k)
			var nrm float64
			for _, v := range bar {
				nrm += v * v
			}
			if me := ws.MinEigen(bar); me < -1e-10*math.Sqrt(nrm) {
				t.Fatalf("%s: θ̄ of node %d has eigenvalue %g", kind, k, me)
			}
		}
		t.Logf("%s: objective %.4g → %.4g over %d rounds; %d eigendecompositions, %d rank-one updates", kind, first, last, s.Iter(), s.eigendecompositions(), s.rankOneUpdates())
		s.Close()
	}
}
