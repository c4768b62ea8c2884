package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// TestAsyncConeAgreesWithReference: the asynchronous metric-learning
// schedule against the per-event reference, for the three regularisers it
// takes and both estimators, on graphs from the best to the worst
// connected: z within 1e-12 relative (the same updates), θ and θ̄ within
// 1e-9 after 3000 events, the same y, clocks and gradient counts, the same
// objective in every record; on the PSD cone fewer eigendecompositions.
func TestAsyncConeAgreesWithReference(t *testing.T) {
	regs := []problem.Regularizer{{Kind: problem.RegPSD}, {}, {Kind: problem.RegL2Sq, Lambda: 0.05}}
	for _, reg := range regs {
		for _, est := range []Estimator{Gossip, Unbiased} {
			for _, kind := range []string{"complete", "watts-strogatz", "cycle"} {
				if est == Unbiased && kind != "watts-strogatz" {
					continue
				}
				p := testProblem(t, problem.MetricHinge, reg, 60, 5, 11)
				g := mustGraph(t, graph.Spec{Kind: kind, N: 60, K: 4, P: 0.3, Seed: 3})
				cfg := Config{Algorithm: Async, Estimator: est, Iters: 3000, GammaC: 0.05, Seed: 9, Workers: 1, LogPoints: 6, EvalNodes: -1, Schedule: ScheduleReference}
				ref, err := New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				refTrace, err := ref.Run(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				ref.Close()
				cfg.Schedule = ScheduleAuto
				s, err := New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s/%s/%s", reg.Kind, est, kind)
				if _, ok := s.exec.(*asyncConeExec); !ok {
					t.Fatalf("%s: auto picked %T", name, s.exec)
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
					t.Logf("%s: %s relative difference %.2g", name, f.what, d)
				}
				for k := range s.Y {
					if s.Y[k] != ref.Y[k] || s.Count[k] != ref.Count[k] {
						t.Fatalf("%s: y or clock differs at node %d", name, k)
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
				if reg.Kind == problem.RegPSD {
					// One per endpoint, one per event where neither hinge
					// is active, and one per record for the bias term
					// ω = π(z̄): fewer than the reference's two per event.
					if s.eigendecompositions() >= ref.eigendecompositions() || s.rankOneUpdates() != 0 {
						t.Fatalf("%s: %d eigendecompositions and %d rank-one updates, reference %d eigendecompositions",
							name, s.eigendecompositions(), s.rankOneUpdates(), ref.eigendecompositions())
					}
					t.Logf("%s: eigendecompositions %d, rank-one updates %d (reference: %d), non-zero gradients %d",
						name, s.eigendecompositions(), s.rankOneUpdates(), ref.eigendecompositions(), nz)
				}
			}
		}
	}
}

// TestAsyncConeIdenticalAcrossWorkers: bit-identical state and trace for 1,
// 2 and 8 workers, the parallel executor engaged (its thresholds shrunk).
func TestAsyncConeIdenticalAcrossWorkers(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 200, 6, 4)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.3, Seed: 2})
	for _, est := range []Estimator{Gossip, Unbiased} {
		var first []byte
		var firstTrace []Record
		var firstEigs int64
		for i, w := range []int{1, 2, 8} {
			s, err := New(p, g, Config{Algorithm: Async, Estimator: est, Iters: 3000, GammaC: 0.05, Seed: 5, Workers: w, LogPoints: 4, EvalNodes: 16})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if w > 1 && (apar(s) == nil || apar(s).parLevels == 0) {
				t.Fatalf("%s workers=%d: the parallel executor did not run a level", est, w)
			}
			sum := stateBytes(t, s)
			if i == 0 {
				first, firstTrace, firstEigs = sum, tr, s.eigendecompositions()
			} else {
				if !bytes.Equal(sum, first) || s.eigendecompositions() != firstEigs {
					t.Fatalf("%s workers=%d: state or eigendecomposition count differs", est, w)
				}
				for r := range tr {
					if !sameRecord(tr[r], firstTrace[r]) {
						t.Fatalf("%s workers=%d: record %d differs", est, w, r)
					}
				}
			}
			s.Close()
		}
	}
}

// TestAsyncConeCheckpointResume: an asynchronous metric run stopped, saved
// and resumed ends in the uninterrupted run's state and trace bit for bit
// (U travels in the checkpoint), serial and parallel.
func TestAsyncConeCheckpointResume(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 40, 4, 6)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.3, Seed: 1})
	for _, w := range []int{1, 2} {
		mk := func() *Sim {
			s, err := New(p, g, Config{Algorithm: Async, Iters: 4000, GammaC: 0.05, Seed: 4, LogPoints: 8, Workers: w})
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
		if len(tr) != len(refTrace) {
			t.Fatalf("workers=%d: %d records, want %d", w, len(tr), len(refTrace))
		}
		for i := range tr {
			if !sameRecord(tr[i], refTrace[i]) {
				t.Fatalf("workers=%d: record %d differs", w, i)
			}
		}
		if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
			t.Fatalf("workers=%d: final state differs", w)
		}
		for _, s := range []*Sim{ref, a, b} {
			s.Close()
		}
	}
}

// TestAsyncConeDivergence: a step that overflows stops the asynchronous
// metric schedule at the reference's event and node.
func TestAsyncConeDivergence(t *testing.T) {
	for _, reg := range []problem.Regularizer{{}, {Kind: problem.RegPSD}} {
		base := testProblem(t, problem.MetricHinge, reg, 30, 3, 2)
		x := make([]float64, 0, 90)
		for k := 0; k < 30; k++ {
			for _, v := range base.X.Row(k) {
				x = append(x, v*1e155)
			}
		}
		p, err := problem.New(problem.MetricHinge, reg, 2, 30, 3, x, base.Label)
		if err != nil {
			t.Fatal(err)
		}
		g := mustGraph(t, graph.Spec{Kind: "complete", N: 30})
		var errs [2]*DivergenceError
		for i, sched := range []Schedule{ScheduleReference, ScheduleAuto} {
			s, err := New(p, g, Config{Algorithm: Async, Iters: 2000, GammaC: 1, Seed: 1, LogPoints: 2, Schedule: sched})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			if !errors.As(err, &errs[i]) {
				t.Fatalf("%s %s: %v", reg.Kind, sched, err)
			}
			s.Close()
		}
		if errs[0].Iter != errs[1].Iter || errs[0].Node != errs[1].Node {
			t.Fatalf("%s: reference stopped at %v, fast at %v", reg.Kind, errs[0], errs[1])
		}
	}
}
