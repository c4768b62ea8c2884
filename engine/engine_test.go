package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/redpack"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

func testProblem(t testing.TB, loss problem.Loss, reg problem.Regularizer, n, d int, seed uint64) *problem.Problem {
	t.Helper()
	s := rng.New(seed, 99)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s.Normal()
	}
	lab := make([]int32, n)
	for i := range lab {
		if loss.IsMetric() {
			lab[i] = int32(i % 3)
		} else if i%3 == 0 {
			lab[i] = 1
			for a := 0; a < d; a++ {
				x[i*d+a] += 0.7
			}
		} else {
			lab[i] = -1
		}
	}
	p, err := problem.New(loss, reg, 2, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustGraph(t testing.TB, spec graph.Spec) *graph.Graph {
	t.Helper()
	g, err := graph.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// refState is a literal, slice-of-slices transcription of docs/design.md §2.4–§2.7,
// written independently of the engine's layout, worker pool and clocks. It
// shares the engine's arithmetic forms (γ via Config.Gamma, the running
// average as (1 − 1/c)θ̄ + (1/c)θ) so that the comparison can be bitwise.
type refState struct {
	z, th, bar [][]float64
	y          []int
	cnt        []int64
}

func newRef(rows, P int) *refState {
	r := &refState{}
	for k := 0; k < rows; k++ {
		r.z = append(r.z, make([]float64, P))
		r.th = append(r.th, make([]float64, P))
		r.bar = append(r.bar, make([]float64, P))
		r.y = append(r.y, k)
		r.cnt = append(r.cnt, 0)
	}
	return r
}

func reference(p *problem.Problem, g *graph.Graph, cfg Config) *refState {
	rows := p.N
	if cfg.Algorithm == Centralized {
		rows = 1
	}
	r := newRef(rows, p.P)
	edges := rng.New(cfg.Seed, streamEdges)
	ws := p.NewWorkspace()
	auxOf := func(k int, t int64) int {
		if cfg.Estimator == Unbiased {
			return rng.HashIntN(cfg.Seed^hashAux, uint64(k), uint64(t), p.N)
		}
		return r.y[k]
	}
	for t := int64(1); t <= cfg.Iters; t++ {
		tf := float64(t)
		switch cfg.Algorithm {
		case Centralized:
			i, j := edges.IntN(p.N), edges.IntN(p.N)
			p.PairGrad(r.z[0], 1, r.th[0], i, j)
			p.Reg.Smooth(r.th[0], r.z[0], cfg.Gamma(tf), tf, ws)
			for a := range r.bar[0] {
				r.bar[0][a] = float64((1-1/tf)*r.bar[0][a]) + float64((1/tf)*r.th[0][a])
			}
		case Sync:
			e := g.Edges[edges.IntN(len(g.Edges))]
			i, j := int(e[0]), int(e[1])
			for a := range r.z[i] {
				m := (r.z[i][a] + r.z[j][a]) / 2
				r.z[i][a], r.z[j][a] = m, m
			}
			r.y[i], r.y[j] = r.y[j], r.y[i]
			for k := 0; k < p.N; k++ {
				p.PairGrad(r.z[k], 1, r.th[k], k, auxOf(k, t))
				p.Reg.Smooth(r.th[k], r.z[k], cfg.Gamma(tf), tf, ws)
				for a := range r.bar[k] {
					r.bar[k][a] = float64((1-1/tf)*r.bar[k][a]) + float64((1/tf)*r.th[k][a])
				}
			}
		case Async:
			e := g.Edges[edges.IntN(len(g.Edges))]
			i, j := int(e[0]), int(e[1])
			r.y[i], r.y[j] = r.y[j], r.y[i]
			for a := range r.z[i] {
				m := (r.z[i][a] + r.z[j][a]) / 2
				r.z[i][a], r.z[j][a] = m, m
			}
			for _, k := range []int{i, j} {
				invPk := float64(g.OrderedEdges()) / (2 * float64(g.Degree(k))) // 1/p_k, p_k = 2d_k/|E|
				p.PairGrad(r.z[k], invPk, r.th[k], k, auxOf(k, t))
				r.cnt[k]++
				mk := float64(r.cnt[k]) * invPk // m_k += 1/p_k, without accumulated rounding
				p.Reg.Smooth(r.th[k], r.z[k], cfg.Gamma(mk), mk, ws)
				c := float64(r.cnt[k]) // m_k p_k, the activation count
				for a := range r.bar[k] {
					r.bar[k][a] = float64((1-1/c)*r.bar[k][a]) + float64((1/c)*r.th[k][a])
				}
			}
		}
	}
	return r
}

func TestMatchesLiteralReference(t *testing.T) {
	type tc struct {
		loss problem.Loss
		reg  problem.Regularizer
		algo Algorithm
		est  Estimator
	}
	var cases []tc
	for _, algo := range []Algorithm{Sync, Async, Centralized} {
		for _, est := range []Estimator{Gossip, Unbiased} {
			if algo == Centralized && est == Unbiased {
				continue
			}
			cases = append(cases,
				tc{problem.AUCLogistic, problem.Regularizer{}, algo, est},
				tc{problem.AUCHinge, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.01}, algo, est},
				tc{problem.AUCSquaredHinge, problem.Regularizer{Kind: problem.RegL2Ball, Radius: 1}, algo, est},
				tc{problem.AUCHinge, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.05}, algo, est},
				tc{problem.AUCSquaredHinge, problem.Regularizer{}, algo, est},
				tc{problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, algo, est})
		}
	}
	best := kernel.Active()
	defer kernel.Use(best)
	type variant struct {
		schedule Schedule
		kernel   string
		tol      float64 // 0: bitwise
	}
	// exact is the fastest schedule bit-identical to the reference with the
	// generic kernels: blocked (sync) or plain (async) on the linear fast
	// path, else the reference itself. auto is reduced for sync + gossip.
	const exact = "exact"
	variants := []variant{{ScheduleReference, best, 0}, {exact, "generic", 0}, {ScheduleAuto, "generic", 1e-9}, {ScheduleAuto, best, 1e-9}}
	for _, v := range variants {
		if err := kernel.Use(v.kernel); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			sched := v.schedule
			if sched == exact {
				switch {
				case c.loss.IsMetric() || !c.reg.Linear() || c.algo == Centralized:
					sched = ScheduleReference
				case c.algo == Sync:
					sched = ScheduleBlocked
				default:
					sched = SchedulePlain
				}
			}
			p := testProblem(t, c.loss, c.reg, 30, 3, 5)
			g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 30, K: 4, P: 0.3, Seed: 2})
			cfg := Config{Algorithm: c.algo, Estimator: c.est, Iters: 300, GammaC: 0.5, GammaAlpha: 0.1, Seed: 7, Workers: 2, LogPoints: 3,
				ExactPSD: true, Schedule: sched}
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			s.Close()
			ref := reference(p, g, cfg)
			tol := v.tol
			if tol == 0 && c.reg.Kind == problem.RegL2Sq {
				tol = 1e-12 // the fast path folds the ℓ2 factor into c
			}
			name := fmt.Sprintf("%s/%s/%s/%s schedule %s kernel %s", c.algo, c.est, c.loss, c.reg.Kind, s.Schedule(), kernel.Active())
			for k := range ref.z {
				for _, f := range []struct {
					got  []float64
					want []float64
					what string
				}{{s.Z.Row(k), ref.z[k], "z"}, {s.ThetaMatrix().Row(k), ref.th[k], "theta"}, {s.ThetaBar.Row(k), ref.bar[k], "theta_bar"}} {
					if !rowsClose(f.got, f.want, tol) {
						t.Fatalf("%s: node %d %s differs from the literal reference: %v vs %v", name, k, f.what, f.got, f.want)
					}
				}
				if int(s.Y[k]) != ref.y[k] {
					t.Fatalf("%s: y differs at node %d", name, k)
				}
				if c.algo == Async && s.Count[k] != ref.cnt[k] {
					t.Fatalf("%s: count differs at node %d", name, k)
				}
			}
		}
	}
}

// rowsClose compares bitwise (tol = 0) or to a relative tolerance on the row.
func rowsClose(got, want []float64, tol float64) bool {
	var diff, norm float64
	for i := range want {
		if tol == 0 && got[i] != want[i] {
			return false
		}
		diff += (got[i] - want[i]) * (got[i] - want[i])
		norm += want[i] * want[i]
	}
	return math.Sqrt(diff) <= tol*math.Max(math.Sqrt(norm), 1e-300) || diff == 0
}

func runTrace(t *testing.T, p *problem.Problem, g *graph.Graph, cfg Config) ([]Record, *Sim) {
	t.Helper()
	s, err := New(p, g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr, s
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	forcePool(t)
	for _, loss := range []problem.Loss{problem.AUCLogistic, problem.MetricHinge} {
		reg := problem.Regularizer{}
		if loss.IsMetric() {
			reg.Kind = problem.RegPSD
		}
		p := testProblem(t, loss, reg, 70, 4, 1)
		g := mustGraph(t, graph.Spec{Kind: "complete", N: 70})
		var first []Record
		var firstState []float64
		for _, w := range []int{1, 2, 3, 8} {
			cfg := Config{Algorithm: Sync, Iters: 200, GammaC: 0.3, Seed: 3, Workers: w, LogPoints: 5, EvalNodes: -1}
			tr, s := runTrace(t, p, g, cfg)
			poolRan(t, s, fmt.Sprintf("%s workers=%d", loss, w))
			if first == nil {
				first, firstState = tr, append([]float64(nil), s.ThetaBar.Data...)
				continue
			}
			for i := range tr {
				if !sameRecord(tr[i], first[i]) {
					t.Fatalf("%s workers=%d: record %d differs: %+v vs %+v", loss, w, i, tr[i], first[i])
				}
			}
			for i, v := range s.ThetaBar.Data {
				if v != firstState[i] {
					t.Fatalf("%s workers=%d: state differs", loss, w)
				}
			}
		}
	}
}

func sameRecord(a, b Record) bool {
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return a.Iter == b.Iter && a.GradEvals == b.GradEvals && a.GradEvalsNonzero == b.GradEvalsNonzero &&
		eq(a.ObjMean, b.ObjMean) && eq(a.ObjStd, b.ObjStd) && eq(a.ObjMin, b.ObjMin) && eq(a.ObjMax, b.ObjMax) &&
		eq(a.AUCMean, b.AUCMean) && eq(a.Bias, b.Bias) && eq(a.Consensus, b.Consensus)
}

func TestSeedsDiffer(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 40, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 40})
	a, _ := runTrace(t, p, g, Config{Algorithm: Async, Iters: 500, GammaC: 1, Seed: 1, LogPoints: 3})
	b, _ := runTrace(t, p, g, Config{Algorithm: Async, Iters: 500, GammaC: 1, Seed: 2, LogPoints: 3})
	if sameRecord(a[len(a)-1], b[len(b)-1]) {
		t.Fatal("different seeds gave the same final record")
	}
}

func TestLogSchedule(t *testing.T) {
	s := LogSchedule(5000, 30)
	if s[0] != 1 || s[len(s)-1] != 5000 {
		t.Fatalf("schedule %v", s)
	}
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			t.Fatalf("not increasing: %v", s)
		}
	}
	if got := LogSchedule(3, 30); len(got) != 3 {
		t.Fatalf("T=3: %v", got)
	}
}

func TestDivergenceStops(t *testing.T) {
	p := testProblem(t, problem.AUCSquaredHinge, problem.Regularizer{}, 20, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 20})
	s, err := New(p, g, Config{Algorithm: Sync, Iters: 100000, GammaC: 1e300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Run(context.Background(), nil)
	de, ok := err.(*DivergenceError)
	if !ok {
		t.Fatalf("want a DivergenceError, got %v", err)
	}
	if de.Iter < 1 || de.Node < 0 || de.Node >= 20 || de.Field == "" {
		t.Fatalf("bad divergence report %+v", de)
	}
}

func TestCancel(t *testing.T) {
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 20, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 20})
	s, _ := New(p, g, Config{Algorithm: Async, Iters: 1 << 40, GammaC: 1, Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, nil); err != context.Canceled {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{Iters: 0, GammaC: 1},
		{Iters: 1, GammaC: -1},
		{Iters: 1, GammaC: 1, GammaAlpha: 0.5},
		{Iters: 1, GammaC: 1, Algorithm: Centralized, Estimator: Unbiased},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestPSDConeSkip: reusing the projection of nodes whose z did not change —
// the reference schedule's rescaling θ ← (γ(t)/γ(t−1))·θ, and the reduced
// schedule — agrees with recomputing every projection every round (relative
// 1e-10 on θ̄) and saves eigendecompositions.
func TestPSDConeSkip(t *testing.T) {
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, 40, 4, 3)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.3, Seed: 1})
	var sims []*Sim
	for _, v := range []struct {
		schedule Schedule
		exact    bool
	}{{ScheduleReference, true}, {ScheduleReference, false}, {ScheduleReduced, false}} {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 400, GammaC: 0.05, Seed: 2, LogPoints: 2, ExactPSD: v.exact, Schedule: v.schedule})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		sims = append(sims, s)
	}
	exact := sims[0]
	for i, s := range sims[1:] {
		if d := relDiff(s.ThetaBar, exact.ThetaBar); !(d <= 1e-10) {
			t.Fatalf("variant %d (%s): relative difference %g from the exact projections", i+1, s.Schedule(), d)
		}
		if s.eigendecompositions() >= exact.eigendecompositions() {
			t.Fatalf("%s: no eigendecomposition saved: %d vs %d", s.Schedule(), s.eigendecompositions(), exact.eigendecompositions())
		}
		t.Logf("%s: eigendecompositions %d (exact %d)", s.Schedule(), s.eigendecompositions(), exact.eigendecompositions())
	}
}

// TestBlockedIdenticalToPlain: the temporally blocked synchronous schedule
// gives bit-identical traces and state to the plain one, for any worker count.
func TestBlockedIdenticalToPlain(t *testing.T) {
	forcePool(t)
	for _, c := range []struct {
		loss problem.Loss
		reg  problem.Regularizer
		est  Estimator
	}{
		{problem.AUCLogistic, problem.Regularizer{}, Gossip},
		{problem.AUCLogistic, problem.Regularizer{}, Unbiased},
		{problem.AUCHinge, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.05}, Gossip},
		{problem.AUCSquaredHinge, problem.Regularizer{}, Unbiased},
	} {
		p := testProblem(t, c.loss, c.reg, 200, 5, 4)
		g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.2, Seed: 3})
		var ref [32]byte
		var refTrace []Record
		for _, v := range []struct {
			schedule Schedule
			workers  int
		}{{SchedulePlain, 1}, {ScheduleBlocked, 1}, {ScheduleBlocked, 2}, {ScheduleBlocked, 3}, {ScheduleAuto, 2}} {
			if v.schedule == ScheduleAuto && c.est == Gossip {
				continue // auto is the reduced schedule there (TestReducedAgreesWithPlain)
			}
			s, err := New(p, g, Config{Algorithm: Sync, Estimator: c.est, Iters: 700, GammaC: 0.7, Seed: 9, Workers: v.workers, LogPoints: 9, Schedule: v.schedule})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			sum := s.StateChecksum()
			poolRan(t, s, fmt.Sprintf("%s %d workers", v.schedule, v.workers))
			if v.schedule != SchedulePlain && s.Schedule() != ScheduleBlocked {
				t.Fatalf("schedule %s ran as %s", v.schedule, s.Schedule())
			}
			s.Close()
			if refTrace == nil {
				ref, refTrace = sum, tr
				continue
			}
			if sum != ref {
				t.Fatalf("%s/%s/%s: %s with %d workers: state differs from plain", c.loss, c.reg.Kind, c.est, v.schedule, v.workers)
			}
			for i := range tr {
				if !sameRecord(tr[i], refTrace[i]) {
					t.Fatalf("%s/%s: %s: record %d differs", c.loss, c.est, v.schedule, i)
				}
			}
		}
	}
}

// TestReducedAgreesWithPlain: the algebraically reduced schedule agrees with
// the plain one to 1e-9 relative on θ̄ after 10⁴ rounds, with the same
// gradient counts, for 1 and 2 workers.
func TestReducedAgreesWithPlain(t *testing.T) {
	forcePool(t)
	// The squared hinge runs with a smaller step: with γ·‖δ‖² > 1 its margin
	// recurrence m ← m + 2γ‖δ‖²(1 − m) overshoots and amplifies any rounding
	// difference (FMA against plain kernels as much as reduced against plain).
	for _, c := range []struct {
		loss   problem.Loss
		reg    problem.Regularizer
		gammaC float64
	}{{problem.AUCLogistic, problem.Regularizer{}, 0.5}, {problem.AUCSquaredHinge, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.01}, 0.05}} {
		p := testProblem(t, c.loss, c.reg, 300, 6, 8)
		g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 300, K: 4, P: 0.3, Seed: 5})
		var ref *Sim
		for _, v := range []struct {
			schedule Schedule
			workers  int
		}{{SchedulePlain, 1}, {ScheduleReduced, 1}, {ScheduleReduced, 2}, {ScheduleAuto, 3}} {
			s, err := New(p, g, Config{Algorithm: Sync, Iters: 10000, GammaC: c.gammaC, Seed: 3, Workers: v.workers, LogPoints: 4, Schedule: v.schedule})
			if err != nil {
				t.Fatal(err)
			}
			if v.schedule == ScheduleAuto && s.Schedule() != ScheduleReduced {
				t.Fatalf("auto (sync, gossip, %s) ran as %s, want reduced", c.loss, s.Schedule())
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = s
				continue
			}
			defer s.Close()
			poolRan(t, s, fmt.Sprintf("%s reduced %d workers", c.loss, v.workers))
			rel := relDiff(s.ThetaBar, ref.ThetaBar)
			t.Logf("%s: reduced, %d workers: relative difference %.2g on θ̄", c.loss, v.workers, rel)
			if !(rel <= 1e-9) {
				t.Fatalf("%s: reduced (%d workers) differs from plain by %g relative", c.loss, v.workers, rel)
			}
			a, nz := s.GradEvals()
			ra, rnz := ref.GradEvals()
			if a != ra || nz != rnz || nz == 0 {
				t.Fatalf("gradient evaluations %d/%d non-zero, plain %d/%d", a, nz, ra, rnz)
			}
		}
		ref.Close()
	}
}

// TestReducedDeterminismAndDivergence: the reduced schedule gives the same
// bits for 1, 2, 3 and 8 workers, for each loss (the logistic one through
// kernel.LogisticRound); and a diverging run stops at the same iteration
// and node as the plain schedule (under a step size so large that margins
// overflow in the first round).
func TestReducedDeterminismAndDivergence(t *testing.T) {
	forcePool(t)
	for _, loss := range []problem.Loss{problem.AUCLogistic, problem.AUCHinge, problem.AUCSquaredHinge} {
		const divergeC = 3e307
		p := testProblem(t, loss, problem.Regularizer{}, 300, 6, 8)
		g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 300, K: 4, P: 0.3, Seed: 5})
		var ref [32]byte
		for _, w := range []int{1, 2, 3, 8} {
			s, err := New(p, g, Config{Algorithm: Sync, Iters: 3000, GammaC: 0.3, Seed: 3, Workers: w, LogPoints: 4, Schedule: ScheduleReduced})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if w > 1 {
				poolRan(t, s, fmt.Sprintf("%s reduced %d workers", loss, w))
			}
			sum := s.StateChecksum()
			s.Close()
			if w == 1 {
				ref = sum
			} else if sum != ref {
				t.Fatalf("%s: reduced with %d workers differs from 1 worker", loss, w)
			}
		}
		var errs []*DivergenceError
		for _, sched := range []Schedule{SchedulePlain, ScheduleReduced} {
			s, err := New(p, g, Config{Algorithm: Sync, Iters: 3000, GammaC: divergeC, Seed: 3, Workers: 2, LogPoints: 4, Schedule: sched})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			s.Close()
			de, ok := err.(*DivergenceError)
			if !ok {
				t.Fatalf("%s %s: want a DivergenceError, got %v", loss, sched, err)
			}
			errs = append(errs, de)
		}
		if errs[0].Iter != errs[1].Iter || errs[0].Node != errs[1].Node {
			t.Fatalf("%s: plain stops at %+v, reduced at %+v", loss, *errs[0], *errs[1])
		}
		t.Logf("%s: both stop at iteration %d, node %d", loss, errs[0].Iter, errs[0].Node)
	}
}

// TestReducedParallelTouches: with the pool, the reduced schedule's workers
// run the touches that are both endpoints' only one in their block (and
// the rest in the event loop); with one worker the event loop runs every
// touch. Profile counts both, a touch a round.
func TestReducedParallelTouches(t *testing.T) {
	forcePool(t)
	const n, iters = 2000, 3000
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 6, 8)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	for _, w := range []int{1, 2, 3} {
		_, s := runTrace(t, p, g, Config{Algorithm: Sync, Iters: iters, GammaC: 0.3, Seed: 3, Workers: w, LogPoints: 3, Schedule: ScheduleReduced})
		pr := s.Profile()
		if pr.Touches != iters {
			t.Fatalf("%d workers: %d touches counted over %d rounds", w, pr.Touches, iters)
		}
		// A touch is independent when neither endpoint has another touch
		// in the block: with B rounds a block, about exp(−4B/n) of them.
		B := redpack.Rounds(n)
		want := 0.5 * math.Exp(-4*float64(B)/n)
		share := float64(pr.ParallelTouches) / float64(pr.Touches)
		switch {
		case w == 1 && pr.ParallelTouches != 0:
			t.Fatalf("1 worker: %d touches ran in the parallel pass", pr.ParallelTouches)
		case w > 1 && (share < want || pr.ParallelTouches > pr.Touches):
			t.Fatalf("%d workers: %d of %d touches in the parallel pass (share %.3f, want ≥ %.3f; B = %d)", w, pr.ParallelTouches, pr.Touches, share, want, B)
		}
		// The blocks by phase: each phase ran, the independent touches
		// only with a pool, the event loop within the pass, and the
		// phases within the time of the blocks.
		setup, pass, tail := pr.Wall(PhaseSetup), pr.Wall(PhasePass), pr.Wall(PhaseTail)
		evLoop, indep := pr.Wall(PhaseEventLoop), pr.Wall(PhaseIndependent)
		ph := pr.Phases
		if setup <= 0 || pass <= 0 || tail <= 0 || evLoop <= 0 || evLoop > pass || (indep > 0) != (w > 1) {
			t.Fatalf("%d workers: phases %+v", w, ph)
		}
		if sum, blocks := setup+pass+indep+tail, pr.Wall(PhaseSerial)+pr.Wall(PhaseParallel); sum > blocks {
			t.Fatalf("%d workers: phases sum to %v, more than the blocks' %v", w, sum, blocks)
		}
		t.Logf("%d workers: %d of %d touches in the parallel pass (B = %d), phases %+v", w, pr.ParallelTouches, pr.Touches, B, ph)
	}
}

// TestReducedPrefetch: the reduced schedule's large-problem loops (the
// event loop, the independent touches, the tail's writes) ask for rows
// ahead (pfNode) once the records outgrow asyncPrefetchBytes; a hint
// changes no bit, for any worker count, and its look-ahead stays inside
// the block (a wrong index would panic here).
func TestReducedPrefetch(t *testing.T) {
	forcePool(t)
	pm, pb := reducedMinPoolWork, asyncPrefetchBytes
	t.Cleanup(func() { reducedMinPoolWork, asyncPrefetchBytes = pm, pb })
	reducedMinPoolWork = 0 // the parallel form at this size
	const n = 1500
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 6, 8)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	var ref [32]byte
	for i, c := range []struct {
		w  int
		pf bool
	}{{1, false}, {1, true}, {2, true}, {3, true}, {2, false}} {
		asyncPrefetchBytes = 1 << 62
		if c.pf {
			asyncPrefetchBytes = 0
		}
		_, s := runTrace(t, p, g, Config{Algorithm: Sync, Iters: 2500, GammaC: 0.3, Seed: 3, Workers: c.w, LogPoints: 4, Schedule: ScheduleReduced})
		if on := s.exec.(*reducedExec).pfOn; on != c.pf {
			t.Fatalf("%d workers: prefetching %v, want %v", c.w, on, c.pf)
		}
		sum := s.StateChecksum()
		if i == 0 {
			ref = sum
		} else if sum != ref {
			t.Fatalf("%d workers, prefetching %v: state differs from 1 worker without", c.w, c.pf)
		}
	}
}

// TestReducedChunks: the reduced schedule advances a shard's contributing
// nodes reducedChunk at a time; the size of the chunks does not change a bit.
func TestReducedChunks(t *testing.T) {
	forcePool(t)
	defer func(c int) { reducedChunk = c }(reducedChunk)
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 500, 5, 3)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 500, K: 4, P: 0.3, Seed: 2})
	var ref [32]byte
	for i, c := range []int{4096, 7, 1} {
		reducedChunk = c
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 2000, GammaC: 0.5, Seed: 3, Workers: 2, LogPoints: 3, Schedule: ScheduleReduced})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		sum := s.StateChecksum()
		s.Close()
		if i == 0 {
			ref = sum
		} else if sum != ref {
			t.Fatalf("chunks of %d nodes: state differs from chunks of 4096", c)
		}
	}
}

// TestReducedSmallBlock: a small problem's block runs as one loop over the
// rounds (blockSmall) instead of the parallel form (the passes and the
// event-order loop); both give the same bits, trace and state, for each loss,
// and stop a diverging run at the same iteration, node and field.
func TestReducedSmallBlock(t *testing.T) {
	pm := reducedMinPoolWork
	t.Cleanup(func() { reducedMinPoolWork = pm })
	for _, loss := range []problem.Loss{problem.AUCLogistic, problem.AUCHinge, problem.AUCSquaredHinge} {
		p := testProblem(t, loss, problem.Regularizer{}, 300, 6, 8)
		g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 300, K: 4, P: 0.3, Seed: 5})
		for _, gc := range []float64{0.3, 3e307} {
			var ref [32]byte
			var refTrace []Record
			var refErr string
			for i, v := range []struct{ minWork, workers int }{{1 << 30, 1}, {1, 1}, {1, 2}} {
				reducedMinPoolWork = v.minWork
				s, err := New(p, g, Config{Algorithm: Sync, Iters: 3000, GammaC: gc, Seed: 3, Workers: v.workers, LogPoints: 4, Schedule: ScheduleReduced})
				if err != nil {
					t.Fatal(err)
				}
				tr, err := s.Run(context.Background(), nil)
				sum := s.StateChecksum()
				s.Close()
				es := fmt.Sprint(err)
				if gc > 1 {
					if _, ok := err.(*DivergenceError); !ok {
						t.Fatalf("%s: want a DivergenceError, got %v", loss, err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					ref, refTrace, refErr = sum, tr, es
					continue
				}
				if sum != ref || es != refErr || !reflect.DeepEqual(tr, refTrace) {
					t.Fatalf("%s, γ c = %g: the parallel form (%d workers) differs from the small block (%v / %v)", loss, gc, v.workers, es, refErr)
				}
			}
		}
	}
}

// TestSampleRows: the measured nodes are distinct, sorted, in range and the
// same for a seed, on both sides of the switch to Floyd's sampling.
func TestSampleRows(t *testing.T) {
	for _, c := range []struct{ rows, m int }{{699, 72}, {1 << 16, 16}, {1<<16 + 1, 16}, {10_000_000, 1000}, {100_000, 100_000}} {
		a, b := MeasuredRows(7, c.rows, c.m), MeasuredRows(7, c.rows, c.m)
		if len(a) != c.m || !slices.Equal(a, b) {
			t.Fatalf("%+v: %d rows, or not deterministic", c, len(a))
		}
		for i, v := range a {
			if v < 0 || v >= c.rows || (i > 0 && v <= a[i-1]) {
				t.Fatalf("%+v: row %d = %d (previous %v)", c, i, v, a[max(0, i-1)])
			}
		}
	}
}

// TestLogScheduleCount: as many distinct measured iterations as asked for
// (at most T), increasing, ending at T.
func TestLogScheduleCount(t *testing.T) {
	for _, c := range []struct {
		T      int64
		points int
	}{{10000, 30}, {5000, 30}, {30, 30}, {29, 30}, {100, 100}, {1 << 40, 30}, {1, 30}, {2, 1}} {
		s := LogSchedule(c.T, c.points)
		if want := int(min(int64(c.points), c.T)); len(s) != want || s[len(s)-1] != c.T || s[0] < 1 {
			t.Fatalf("T=%d points=%d: %v (%d), want %d ending at T", c.T, c.points, s, len(s), want)
		}
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				t.Fatalf("T=%d points=%d: not increasing: %v", c.T, c.points, s)
			}
		}
	}
}

// TestBlockedDivergenceAsPlain: the blocked schedule reports a divergence as
// the plain schedule does — the same iteration, node and field — because it
// stops its touched nodes at the end of the first diverging round (it used to
// go on to the end of the block and could then name z where plain names θ).
func TestBlockedDivergenceAsPlain(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 200, K: 4, P: 0.3, Seed: 1})
	cases := 0
	for _, loss := range []problem.Loss{problem.AUCSquaredHinge} {
		for _, est := range []Estimator{Gossip, Unbiased} {
			for _, gamma := range []float64{1e2, 1e150} {
				for seed := uint64(1); seed <= 2; seed++ {
					p := testProblem(t, loss, problem.Regularizer{}, 200, 3, seed)
					var errs [2]*DivergenceError
					for v, sch := range []Schedule{SchedulePlain, ScheduleBlocked} {
						s, err := New(p, g, Config{Algorithm: Sync, Estimator: est, Iters: 20000, GammaC: gamma, Seed: seed, Schedule: sch})
						if err != nil {
							t.Fatal(err)
						}
						_, err = s.Run(context.Background(), nil)
						s.Close()
						errors.As(err, &errs[v])
					}
					pl, bl := errs[0], errs[1]
					if (pl == nil) != (bl == nil) {
						t.Fatalf("%v %v γc=%g seed %d: plain %v, blocked %v", loss, est, gamma, seed, pl, bl)
					}
					if pl == nil {
						continue
					}
					cases++
					if pl.Iter != bl.Iter || pl.Node != bl.Node || pl.Field != bl.Field {
						t.Errorf("%v %v γc=%g seed %d: plain %+v, blocked %+v", loss, est, gamma, seed, *pl, *bl)
					}
				}
			}
		}
	}
	if cases < 4 {
		t.Fatalf("only %d diverging cases: the test checks too little", cases)
	}
}
