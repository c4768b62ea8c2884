package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// TestEpilogueCounts: every executor ends its iterations through one
// epilogue (state.endIters), so a run that diverges stops at the same
// iteration and has counted the gradients of the iterations up to it, the
// same number for every schedule and worker count (the reference's: a
// blocked or windowed executor once counted none of its last block's).
func TestEpilogueCounts(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCSquaredHinge, problem.Regularizer{}, 64, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 64})
	for _, algo := range []Algorithm{Sync, Async} {
		var want *DivergenceError
		var wantAll int64
		for _, c := range []struct {
			sched   Schedule
			workers int
		}{{ScheduleReference, 1}, {SchedulePlain, 1}, {ScheduleBlocked, 1}, {ScheduleReduced, 1}, {SchedulePlain, 3}, {ScheduleReference, 3}} {
			cfg := Config{Algorithm: algo, Iters: 100000, GammaC: 1e300, Seed: 1, Workers: c.workers, Schedule: c.sched}
			if _, err := choose(ShapeOf(p, g), cfg); err != nil {
				continue // not a schedule of this algorithm
			}
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			all, _ := s.GradEvals()
			s.Close()
			var de *DivergenceError
			if !errors.As(err, &de) {
				t.Fatalf("%s %s, %d workers: %v", algo, c.sched, c.workers, err)
			}
			per := int64(p.N)
			if algo == Async {
				per = 2
			}
			if all != per*de.Iter || s.Iter() != de.Iter {
				t.Errorf("%s %s, %d workers: diverged at %d, clock %d, %d gradients (want %d)", algo, c.sched, c.workers, de.Iter, s.Iter(), all, per*de.Iter)
			}
			if want == nil {
				want, wantAll = de, all
				continue
			}
			if de.Iter != want.Iter || all != wantAll {
				t.Errorf("%s %s, %d workers: diverged at %d with %d gradients, the reference at %d with %d", algo, c.sched, c.workers, de.Iter, all, want.Iter, wantAll)
			}
		}
	}
}

// TestProfilePhases: the pass helper charges every synchronous executor's
// time to the serial and parallel phases (the plain schedule's too), the
// measurements to their own, and Sub gives what ran in between.
func TestProfilePhases(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 300, 4, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 300, K: 4, P: 0.3, Seed: 5})
	for _, sched := range []Schedule{SchedulePlain, ScheduleBlocked, ScheduleReduced, ScheduleReference} {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 400, GammaC: 1, Seed: 3, LogPoints: 3, Schedule: sched})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(200); err != nil {
			t.Fatal(err)
		}
		p0 := s.Profile()
		if p0.Wall(PhaseSerial)+p0.Wall(PhaseParallel) <= 0 {
			t.Errorf("%s: no executor time profiled: %+v", sched, p0.Phases)
		}
		if p0.Wall(PhaseMeasure) != 0 {
			t.Errorf("%s: measure time %v before any measurement", sched, p0.Wall(PhaseMeasure))
		}
		s.Measure()
		d := s.Profile().Sub(p0)
		if d.Wall(PhaseMeasure) <= 0 || d.Wall(PhaseSerial) != 0 || d.Wall(PhaseParallel) != 0 {
			t.Errorf("%s: a measurement profiled as %+v", sched, d.Phases)
		}
		s.Close()
	}
	if PhaseEventLoop.String() != "event_loop" || Phase(99).String() != "Phase(99)" {
		t.Errorf("phase names: %s, %s", PhaseEventLoop, Phase(99))
	}
}
