package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// userObjectives are the user objectives the generic schedules are tested
// on: a user copy of the AUC logistic loss (vector θ, labels ±1), the
// built-in multipartite ranking with the hinge on three levels (a
// non-smooth loss, sparse contributions) and bilinear similarity (θ a d×d
// matrix, P = d², every pair contributes). Each is built on testProblem's
// data.
func userObjectives(t testing.TB, reg problem.Regularizer, n, d int, seed uint64) []struct {
	name string
	p    *problem.Problem
} {
	t.Helper()
	base := testProblem(t, problem.AUCLogistic, reg, n, d, seed)
	levels := make([]int32, n)
	for i := range levels {
		levels[i] = int32(i % 3)
	}
	rk, err := problem.NewRanking(problem.AUCHinge)
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		p    *problem.Problem
	}{
		{"user-logistic", asObjective(t, base, userLogistic{"user-logistic"}, nil)},
		{"ranking-hinge", asObjective(t, base, rk, levels)},
		{"similarity", asObjective(t, base, problem.NewSimilarity(levels), levels)},
	}
}

// TestUserLossBlockedMatchesPlain: the blocked synchronous schedule of a
// user objective gives the generic plain schedule's final state (z, θ, θ̄,
// y, counters, edge stream) and trace bit for bit, with 1, 2 and 8 workers,
// for both estimators and every separable ψ, on blocks cut short by the
// measurements (B = 12 at n = 200; B = 64, the largest, at n = 1100, on the
// user logistic loss); and
// auto picks it for a synchronous user objective.
func TestUserLossBlockedMatchesPlain(t *testing.T) {
	forcePool(t)
	regs := []problem.Regularizer{
		{},
		{Kind: problem.RegL2Sq, Lambda: 0.01},
		{Kind: problem.RegL1, Lambda: 0.002},
		{Kind: problem.RegL2Ball, Radius: 0.5},
	}
	for _, n := range []int{200, 1100} {
		g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
		for ri, reg := range regs {
			if n > 200 && ri > 1 {
				continue
			}
			for oi, obj := range userObjectives(t, reg, n, 4, 7) {
				if n > 200 && oi > 0 {
					continue // the largest B on the user logistic loss only
				}
				for _, est := range []Estimator{Gossip, Unbiased} {
					name := fmt.Sprintf("n=%d/%s/%s/%s", n, obj.name, reg.Kind, est)
					cfg := Config{Algorithm: Sync, Estimator: est, Iters: 517, GammaC: 0.5, Seed: 3, Workers: 1,
						Schedule: SchedulePlain, LogPoints: 7, EvalNodes: 3}
					wantTr, want := runTrace(t, obj.p, g, cfg)
					if want.kind.name != "generic" {
						t.Fatalf("%s: plain ran on %s", name, want.kind.name)
					}
					wantSum := want.StateChecksum()
					for _, w := range []int{1, 2, 8} {
						for _, sched := range []Schedule{ScheduleBlocked, ScheduleAuto} {
							if sched == ScheduleAuto && w != 2 {
								continue
							}
							c := cfg
							c.Workers, c.Schedule = w, sched
							tr, got := runTrace(t, obj.p, g, c)
							if got.kind.name != "generic-blocked" {
								t.Fatalf("%s: %s ran on %s, want generic-blocked", name, sched, got.kind.name)
							}
							if w > 1 {
								poolRan(t, got, name)
							}
							if got.StateChecksum() != wantSum {
								t.Fatalf("%s, %s, %d workers: state differs from the generic plain schedule (θ̄ rel %.3g)",
									name, sched, w, maxRel(got.ThetaBar, want.ThetaBar))
							}
							if len(tr) != len(wantTr) {
								t.Fatalf("%s: %d records, plain %d", name, len(tr), len(wantTr))
							}
							for r := range tr {
								if !sameRecord(tr[r], wantTr[r]) {
									t.Fatalf("%s, %s, %d workers: record %d differs: %+v, plain %+v", name, sched, w, r, tr[r], wantTr[r])
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestGenericBlockedCheckpointResume: a blocked run of a user objective
// interrupted at a measurement (its block cut there) or after a number of
// rounds that is not a multiple of B, checkpointed and resumed into a fresh
// run, ends with the uninterrupted run's state and trace bit for bit, which
// is also the plain schedule's; a checkpoint of the plain schedule is
// refused by the blocked one (the schedule is part of the identity).
func TestGenericBlockedCheckpointResume(t *testing.T) {
	forcePool(t)
	n := 300
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 2})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.002}, n, 5, 3)
	user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
	for _, est := range []Estimator{Gossip, Unbiased} {
		cfg := Config{Algorithm: Sync, Estimator: est, Iters: 900, GammaC: 0.5, Seed: 6, Workers: 2, LogPoints: 8, EvalNodes: 4, Schedule: ScheduleBlocked}
		refTr, ref := runTrace(t, user, g, cfg)
		pc := cfg
		pc.Schedule = SchedulePlain
		_, plain := runTrace(t, user, g, pc)
		if ref.StateChecksum() != plain.StateChecksum() {
			t.Fatalf("%s: blocked differs from plain", est)
		}
		refState := stateBytes(t, ref)

		// Interrupted at a measurement.
		a, err := New(user, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		tr, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= 200 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", est, err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), tr); err != nil {
			t.Fatal(err)
		}
		a.Close()
		b, err := New(user, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr, err = b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
			t.Fatal(err)
		}
		if len(tr) != len(refTr) {
			t.Fatalf("%s: %d records, uninterrupted %d", est, len(tr), len(refTr))
		}
		for i := range tr {
			if !sameRecord(tr[i], refTr[i]) {
				t.Fatalf("%s: record %d differs after resuming", est, i)
			}
		}
		if !bytes.Equal(stateBytes(t, b), refState) {
			t.Fatalf("%s: resumed at a measurement, the final state differs", est)
		}
		b.Close()

		// Interrupted after 151 rounds (not a multiple of B = 18).
		a, _ = New(user, g, cfg)
		if err := a.Advance(151); err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := a.WriteCheckpoint(&buf, []byte("id"), nil); err != nil {
			t.Fatal(err)
		}
		a.Close()
		b, _ = New(user, g, cfg)
		if _, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id")); err != nil {
			t.Fatal(err)
		}
		if err := b.Advance(cfg.Iters); err != nil {
			t.Fatal(err)
		}
		if b.StateChecksum() != ref.StateChecksum() {
			t.Fatalf("%s: resumed after 151 rounds, the final state differs", est)
		}
		b.Close()

		// A checkpoint of the plain schedule is another identity.
		p, _ := New(user, g, pc)
		p.Advance(100)
		buf.Reset()
		if err := p.WriteCheckpoint(&buf, []byte("id"), nil); err != nil {
			t.Fatal(err)
		}
		p.Close()
		b, _ = New(user, g, cfg)
		if _, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id")); err == nil {
			t.Fatalf("%s: the blocked schedule accepted a checkpoint of the plain one", est)
		}
		b.Close()
		ref.Close()
		plain.Close()
	}
}

// TestGenericBlockedNoAllocs: a block of the generic blocked schedule (on
// the pool, both estimators), whether of one round or of B, allocates
// nothing.
func TestGenericBlockedNoAllocs(t *testing.T) {
	forcePool(t)
	n, d := 400, 8
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.001}, n, d, 11)
	user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
	for _, est := range []Estimator{Gossip, Unbiased} {
		s, err := New(user, g, Config{Algorithm: Sync, Estimator: est, Iters: 1 << 40, GammaC: 1, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if s.kind.name != "generic-blocked" {
			t.Fatalf("ran on %s", s.kind.name)
		}
		s.Advance(10)
		B := int64(blockRounds(n))
		for _, rounds := range []int64{1, B} {
			if a := testing.AllocsPerRun(20, func() { s.Advance(rounds) }); a != 0 {
				t.Fatalf("%s: %v allocations per block of %d rounds", est, a, rounds)
			}
		}
		poolRan(t, s, "generic-blocked")
		s.Close()
	}
}

// TestGenericBlockedDivergence: a user objective whose iterates overflow
// (multipartite ranking with the squared hinge, huge steps) stops on the
// blocked schedule at the iteration and node where the plain schedule
// stops, with the same field named, for 1 and 2 workers and both
// estimators — early and late in a run, with θ or z the first non-finite
// field.
func TestGenericBlockedDivergence(t *testing.T) {
	forcePool(t)
	n := 300
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	base := testProblem(t, problem.AUCSquaredHinge, problem.Regularizer{}, n, 6, 8)
	rk, err := problem.NewRanking(problem.AUCSquaredHinge)
	if err != nil {
		t.Fatal(err)
	}
	user := asObjective(t, base, rk, nil)
	for _, c := range []struct {
		est Estimator
		gc  float64
	}{{Gossip, 3e307}, {Gossip, 1e100}, {Unbiased, 1e5}, {Unbiased, 300}, {Unbiased, 100}} {
		var errs []*DivergenceError
		var zs [][]float64 // the diverged node's z where the run stopped
		for _, v := range []struct {
			schedule Schedule
			workers  int
		}{{SchedulePlain, 1}, {ScheduleBlocked, 1}, {ScheduleBlocked, 2}} {
			s, err := New(user, g, Config{Algorithm: Sync, Estimator: c.est, Iters: 3000, GammaC: c.gc, Seed: 3, Workers: v.workers,
				LogPoints: 4, EvalNodes: 2, Schedule: v.schedule})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			de, ok := err.(*DivergenceError)
			if !ok {
				t.Fatalf("%s, γ c = %g, %s: want a DivergenceError, got %v", c.est, c.gc, v.schedule, err)
			}
			errs = append(errs, de)
			zs = append(zs, append([]float64(nil), s.Z.Row(de.Node)...))
			s.Close()
		}
		for x, de := range errs[1:] {
			if *de != *errs[0] {
				t.Fatalf("%s, γ c = %g: plain stops at %+v, blocked at %+v", c.est, c.gc, *errs[0], *de)
			}
			for a, v := range zs[x+1] {
				if math.Float64bits(v) != math.Float64bits(zs[0][a]) {
					t.Fatalf("%s, γ c = %g: node %d's z where the run stopped differs from plain's", c.est, c.gc, de.Node)
				}
			}
		}
		t.Logf("%s, γ c = %g: all stop at iteration %d, node %d (%s)", c.est, c.gc, errs[0].Iter, errs[0].Node, errs[0].Field)
	}
}

// TestGenericBlockBytes: what newGenericBlock allocates is what the
// executor table's row estimates for it (within the allocator's rounding),
// at a size where the block's per-node stamps dominate.
func TestGenericBlockBytes(t *testing.T) {
	n := 1 << 20
	B := blockRounds(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	bl := newGenericBlock(n, B)
	runtime.ReadMemStats(&after)
	got, want := int64(after.TotalAlloc-before.TotalAlloc), genericBlockBytes(n, B)
	if d := got - want; d > want/100 || -d > want/100 {
		t.Fatalf("newGenericBlock allocated %d B, estimated %d B", got, want)
	}
	runtime.KeepAlive(bl)
}

// TestObjectivesUnbiasedMatchReference: the unbiased baseline (a point
// drawn afresh per node and iteration, docs/design.md §2.6) of multipartite
// ranking (three levels, logistic and hinge surrogates) and of bilinear
// similarity, on every generic schedule — synchronous plain and blocked,
// serial and parallel asynchronous — gives the reference executor's state
// (the literal algorithm, objective called through Problem.PairGrad) bit
// for bit; the baseline changes the trajectory (it differs from the gossip
// estimator's); and ranking with two levels under the baseline is the
// built-in AUC loss's baseline bit for bit.
func TestObjectivesUnbiasedMatchReference(t *testing.T) {
	shrinkAsync(t)
	forcePool(t)
	n, d := 150, 4
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 8})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL2Ball, Radius: 2}, n, d, 5)
	levels := make([]int32, n)
	for i := range levels {
		levels[i] = int32(i % 3)
	}
	var objs []struct {
		name string
		p    *problem.Problem
	}
	for _, sur := range []problem.Loss{problem.AUCLogistic, problem.AUCHinge} {
		rk, err := problem.NewRanking(sur)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, struct {
			name string
			p    *problem.Problem
		}{"ranking-" + sur.String(), asObjective(t, base, rk, levels)})
	}
	objs = append(objs, struct {
		name string
		p    *problem.Problem
	}{"similarity", asObjective(t, base, problem.NewSimilarity(levels), levels)})
	for _, algo := range []Algorithm{Sync, Async} {
		iters := int64(300)
		if algo == Async {
			iters = 5000
		}
		for _, o := range objs {
			cfg := Config{Algorithm: algo, Estimator: Unbiased, Iters: iters, GammaC: 0.3, Seed: 12, Workers: 1,
				Schedule: ScheduleReference, LogPoints: 3, EvalNodes: 2}
			_, ref := runTrace(t, o.p, g, cfg)
			gc := cfg
			gc.Estimator = Gossip
			if _, gs := runTrace(t, o.p, g, gc); sameBits(gs.ThetaBar, ref.ThetaBar) {
				t.Fatalf("%s %s: the unbiased baseline ran the gossip estimator's trajectory", algo, o.name)
			}
			variants := []struct {
				schedule Schedule
				workers  int
				kind     string
			}{{SchedulePlain, 1, "generic"}, {SchedulePlain, 2, "generic"}, {SchedulePlain, 8, "generic"}}
			if algo == Sync {
				variants = append(variants, struct {
					schedule Schedule
					workers  int
					kind     string
				}{ScheduleBlocked, 2, "generic-blocked"})
			}
			for _, v := range variants {
				c := cfg
				c.Schedule, c.Workers = v.schedule, v.workers
				_, got := runTrace(t, o.p, g, c)
				name := fmt.Sprintf("%s %s %s, %d workers", algo, o.name, v.schedule, v.workers)
				if got.kind.name != v.kind {
					t.Fatalf("%s: ran on %s", name, got.kind.name)
				}
				if algo == Async && v.workers > 1 && (apar(got) == nil || apar(got).parLevels == 0) {
					t.Fatalf("%s: the parallel asynchronous executor did not run", name)
				}
				if !sameBits(got.Z, ref.Z) || !sameBits(got.ThetaBar, ref.ThetaBar) || !sameBits(got.ThetaMatrix(), ref.ThetaMatrix()) {
					t.Fatalf("%s: state differs from the reference executor (θ̄ rel %.3g)", name, maxRel(got.ThetaBar, ref.ThetaBar))
				}
			}
		}
		// Two levels: the built-in AUC loss's baseline, bit for bit.
		two := make([]int32, n)
		for i, l := range base.Label {
			if l == 1 {
				two[i] = 1
			}
		}
		rk, _ := problem.NewRanking(problem.AUCLogistic)
		cfg := Config{Algorithm: algo, Estimator: Unbiased, Iters: iters, GammaC: 0.3, Seed: 12, Workers: 2, LogPoints: 3, EvalNodes: 2}
		rc := cfg
		rc.Schedule = ScheduleReference
		_, want := runTrace(t, base, g, rc)
		_, got := runTrace(t, asObjective(t, base, rk, two), g, cfg)
		if !sameBits(got.ThetaBar, want.ThetaBar) {
			t.Fatalf("%s: ranking with two levels under the baseline differs from AUC (θ̄ rel %.3g)", algo, maxRel(got.ThetaBar, want.ThetaBar))
		}
	}
}
