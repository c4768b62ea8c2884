package engine

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// userLogistic is what a program would write to run the AUC logistic loss
// through the generic path: a copy of the built-in, with the same arithmetic.
type userLogistic struct{ name string }

func (u userLogistic) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: u.name, Smooth: true}
}
func (userLogistic) Contributes(li, lj int32) bool { return li > lj }
func (userLogistic) Loss(theta, xi, xj []float64, _, _ int) float64 {
	return problem.Softplus(-problem.Margin(theta, xi, xj))
}
func (userLogistic) Grad(g []float64, w float64, theta, xi, xj []float64, _, _ int) bool {
	w *= -problem.Sigmoid(-problem.Margin(theta, xi, xj))
	if w == 0 {
		return false
	}
	problem.AddScaledDiff(g, w, xi, xj)
	return true
}

// asObjective rebuilds the built-in problem p with obj as a user objective
// on the same data and labels.
func asObjective(t testing.TB, p *problem.Problem, obj problem.Objective, labels []int32) *problem.Problem {
	t.Helper()
	x := make([]float64, 0, p.N*p.D)
	for i := 0; i < p.N; i++ {
		x = append(x, p.X.Row(i)...)
	}
	if labels == nil {
		labels = p.Label
	}
	q, err := problem.NewObjective(obj, p.Reg, p.N, p.D, x, labels)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func sameBits(a, b layout.Matrix) bool {
	for k := 0; k < a.Rows; k++ {
		ra, rb := a.Row(k), b.Row(k)
		for i := range ra {
			if math.Float64bits(ra[i]) != math.Float64bits(rb[i]) {
				return false
			}
		}
	}
	return true
}

func maxRel(a, b layout.Matrix) float64 {
	var worst float64
	for k := 0; k < a.Rows; k++ {
		ra, rb := a.Row(k), b.Row(k)
		for i := range ra {
			d := math.Abs(ra[i] - rb[i])
			if s := math.Max(math.Abs(ra[i]), math.Abs(rb[i])); s > 0 {
				worst = math.Max(worst, d/s)
			}
		}
	}
	return worst
}

// TestUserLossMatchesBuiltin: a user copy of the AUC logistic loss, run
// through the generic executors (synchronous blocked — auto's choice, equal
// to the generic plain schedule by TestUserLossBlockedMatchesPlain — serial
// and parallel asynchronous) with 1, 2 and 8 workers, gives the built-in's reference
// trajectory bit for bit (z, θ, θ̄) for ψ = none, l2 and l1 and both
// estimators; its measured objective agrees to 1e-12 relative (the built-in
// sums the logistic pairs with hoisted exponentials); and the built-in's
// plain schedule (SIMD kernels where active) agrees to 1e-12 relative.
func TestUserLossMatchesBuiltin(t *testing.T) {
	shrinkAsync(t)
	forcePool(t)
	n, d := 160, 6
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	regs := []problem.Regularizer{{}, {Kind: problem.RegL2Sq, Lambda: 0.01}, {Kind: problem.RegL1, Lambda: 0.002}}
	for _, algo := range []Algorithm{Sync, Async} {
		for _, est := range []Estimator{Gossip, Unbiased} {
			for ri, reg := range regs {
				if est == Unbiased && ri == 1 {
					continue
				}
				base := testProblem(t, problem.AUCLogistic, reg, n, d, 11)
				iters := int64(300)
				if algo == Async {
					iters = 6000
				}
				cfg := Config{Algorithm: algo, Estimator: est, Iters: iters, GammaC: 1, Seed: 3, Workers: 1, Schedule: ScheduleReference, LogPoints: 5, EvalNodes: -1}
				wantTr, want := runTrace(t, base, g, cfg)
				user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
				for _, w := range []int{1, 2, 8} {
					c := cfg
					c.Workers, c.Schedule = w, ScheduleAuto
					tr, got := runTrace(t, user, g, c)
					name := algo.String() + "/" + est.String() + "/" + reg.Kind.String()
					wantKind := "generic" // auto: blocked when synchronous (exec_genericblocked.go)
					if algo == Sync {
						wantKind = "generic-blocked"
					}
					if got.kind.name != wantKind {
						t.Fatalf("%s: ran on %s, want %s", name, got.kind.name, wantKind)
					}
					if algo == Async && w > 1 && (apar(got) == nil || apar(got).parLevels == 0) {
						t.Fatalf("%s, %d workers: the parallel asynchronous executor did not run", name, w)
					}
					if algo == Sync && w > 1 {
						poolRan(t, got, name)
					}
					if !sameBits(got.Z, want.Z) || !sameBits(got.ThetaBar, want.ThetaBar) || !sameBits(got.ThetaMatrix(), want.ThetaMatrix()) {
						t.Fatalf("%s, %d workers: state differs from the built-in reference (θ̄ rel %.3g)", name, w, maxRel(got.ThetaBar, want.ThetaBar))
					}
					for r := range tr {
						if rel := math.Abs(tr[r].ObjMean-wantTr[r].ObjMean) / wantTr[r].ObjMean; rel > 1e-12 {
							t.Fatalf("%s, %d workers: objective at %d differs by %.3g relative", name, w, tr[r].Iter, rel)
						}
					}
				}
				if reg.Kind == problem.RegNone && est == Gossip {
					// The built-in's own fast schedule: bit-identical with the
					// generic kernels, FMA in the margins with the SIMD ones.
					c := cfg
					c.Schedule = SchedulePlain
					_, plain := runTrace(t, base, g, c)
					_, got := runTrace(t, user, g, cfg)
					if rel := maxRel(got.ThetaBar, plain.ThetaBar); rel > 1e-12 {
						t.Fatalf("%s: θ̄ differs from the built-in plain schedule by %.3g relative", algo, rel)
					}
				}
			}
		}
	}
}

// TestRankingTwoLevelsIsAUC: multipartite ranking with two levels (0, 1)
// runs the same trajectory as the built-in AUC loss (±1), and its C-index
// is the built-in's AUC, for the three surrogates.
func TestRankingTwoLevelsIsAUC(t *testing.T) {
	n, d := 120, 5
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 2})
	for _, loss := range []problem.Loss{problem.AUCLogistic, problem.AUCHinge, problem.AUCSquaredHinge} {
		base := testProblem(t, loss, problem.Regularizer{}, n, d, 4)
		lv := make([]int32, n)
		for i, l := range base.Label {
			if l == 1 {
				lv[i] = 1
			}
		}
		rk, err := problem.NewRanking(loss)
		if err != nil {
			t.Fatal(err)
		}
		q := asObjective(t, base, rk, lv)
		cfg := Config{Algorithm: Sync, Iters: 400, GammaC: 1, Seed: 9, Workers: 2, Schedule: ScheduleReference, LogPoints: 6, EvalNodes: -1}
		want, ws := runTrace(t, base, g, cfg)
		got, gs := runTrace(t, q, g, cfg)
		if !sameBits(gs.ThetaBar, ws.ThetaBar) {
			t.Fatalf("%s: ranking with two levels differs from AUC (θ̄ rel %.3g)", loss, maxRel(gs.ThetaBar, ws.ThetaBar))
		}
		for r := range got {
			if got[r].AUCMean != want[r].AUCMean {
				t.Fatalf("%s: C-index %v, AUC %v at %d", loss, got[r].AUCMean, want[r].AUCMean, got[r].Iter)
			}
			if rel := math.Abs(got[r].ObjMean-want[r].ObjMean) / want[r].ObjMean; rel > 1e-12 {
				t.Fatalf("%s: objective differs by %.3g relative", loss, rel)
			}
		}
	}
}

// TestGenericNoAllocs: a round of the generic synchronous executor (on the
// pool) and an event of the asynchronous one allocate nothing.
func TestGenericNoAllocs(t *testing.T) {
	forcePool(t)
	n, d := 200, 8
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, d, 11)
	user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
	for _, algo := range []Algorithm{Sync, Async} {
		s, err := New(user, g, Config{Algorithm: algo, Iters: 1 << 40, GammaC: 1, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		s.Advance(10)
		if a := testing.AllocsPerRun(50, func() { s.Advance(1) }); a != 0 {
			t.Fatalf("%s: %v allocations per iteration", algo, a)
		}
		s.Close()
	}
}

// TestGenericCheckpointIdentity: a checkpoint of a user objective resumes
// into the same objective (identical final state) and is refused by a run
// with another objective on the same data.
func TestGenericCheckpointIdentity(t *testing.T) {
	n, d := 100, 5
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, d, 1)
	user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
	rk, _ := problem.NewRanking(problem.AUCLogistic)
	other := asObjective(t, base, rk, nil)
	for _, algo := range []Algorithm{Sync, Async} {
		cfg := Config{Algorithm: algo, Iters: 400, GammaC: 1, Seed: 2, Workers: 1, LogPoints: 4}
		_, full := runTrace(t, user, g, cfg)
		half := cfg
		s, err := New(user, g, half)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(150); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := s.WriteCheckpoint(&buf, []byte("caller"), nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		o, _ := New(other, g, cfg)
		if _, err := o.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("caller")); err == nil || !strings.Contains(err.Error(), "another configuration") {
			t.Fatalf("%s: a checkpoint of another objective was accepted (%v)", algo, err)
		}
		o.Close()
		r, _ := New(user, g, cfg)
		if _, err := r.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("caller")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if r.StateChecksum() != full.StateChecksum() {
			t.Fatalf("%s: resumed run differs from the uninterrupted one", algo)
		}
		r.Close()
	}
}
