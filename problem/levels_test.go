package problem

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
)

// levelProblem is a ranking problem with L unbalanced levels (level a has
// weight a+1, labels spread as 10·a so they are not consecutive) and, with
// ties, features on a coarse grid so that many scores are equal.
func levelProblem(t testing.TB, loss Loss, reg Regularizer, n, d, L int, ties bool, seed uint64) *Problem {
	t.Helper()
	s := rng.New(seed, 0)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s.Normal()
		if ties {
			x[i] = math.Round(x[i])
		}
	}
	tot := L * (L + 1) / 2
	lab := make([]int32, n)
	for i := range lab {
		r := int(s.Uint64() % uint64(tot))
		a := 0
		for r >= a+1 {
			r -= a + 1
			a++
		}
		lab[i] = int32(10 * a)
		x[i*d] += 0.5 * float64(a) // some signal
	}
	obj, err := NewRanking(loss)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewObjective(obj, reg, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLevelPairSum: the level-by-level fast sums equal the exact pair sum
// over ℓ_i > ℓ_j (customValueGrad, pair by pair through the objective)
// within their bound, value and gradient, for 2–5 levels, unbalanced, with
// and without tied scores, the logistic and the squared hinge.
func TestLevelPairSum(t *testing.T) {
	for _, c := range []struct {
		n, d, L int
		ties    bool
	}{{7, 2, 2, false}, {40, 3, 3, true}, {300, 4, 5, false}, {1200, 3, 4, true}, {2500, 5, 3, false}} {
		for _, loss := range []Loss{AUCLogistic, AUCSquaredHinge} {
			p := levelProblem(t, loss, Regularizer{}, c.n, c.d, c.L, c.ties, uint64(c.n))
			if p.levels == nil || len(p.levels.start) > c.L+1 {
				t.Fatalf("levels %+v", p.levels)
			}
			s := rng.New(uint64(c.n), 7)
			for _, scale := range []float64{0, 0.3, 3} {
				theta := randVec(s, c.d, scale)
				sc := newOptScratch(p)
				sc.obj.workers = 2
				sc.fast = newFastPlan(2)
				sc.fastPos, sc.fastWP, sc.fastWN = make([]float64, c.n), make([]float64, c.n), make([]float64, c.n)
				gf, ge := make([]float64, c.d), make([]float64, c.d)
				vf := p.levelValueGrad(theta, gf, sc)
				bound := sc.fastBound / float64(c.n*c.n)
				ve := p.customValueGrad(theta, ge, 0, sc)
				// The exact sum's own rounding: a few u per pair.
				slack := 1e-14 * math.Abs(ve) * math.Sqrt(float64(c.n*c.n))
				if math.Abs(vf-ve) > bound+slack {
					t.Errorf("n=%d L=%d %v θ·%g: fast %.17g exact %.17g bound %g", c.n, c.L, loss, scale, vf, ve, bound)
				}
				// Gradient: Xᵀw/n² with each weight within WeightBound.
				_, wb := levelWeightBound(p, theta, sc)
				for a := range gf {
					var xs float64
					for i := 0; i < c.n; i++ {
						xs += math.Abs(p.X.Row(i)[a])
					}
					gb := wb*xs/float64(c.n*c.n) + 1e-13*(math.Abs(ge[a])+1e-3)
					if math.Abs(gf[a]-ge[a]) > gb {
						t.Errorf("n=%d L=%d %v θ·%g: grad[%d] fast %.17g exact %.17g (bound %g)", c.n, c.L, loss, scale, a, gf[a], ge[a], gb)
					}
				}
			}
		}
	}
}

// levelWeightBound re-runs the level sums at theta for their weight bound.
func levelWeightBound(p *Problem, theta []float64, sc *optScratch) (float64, float64) {
	for i := 0; i < p.N; i++ {
		var v float64
		for a, x := range p.X.Row(i)[:p.D] {
			v += x * theta[a]
		}
		sc.s[i] = v
	}
	fs := sc.fast.levelPairSum(p.levels, sc.s, sc.w, sc.fastPos, sc.fastWP, sc.fastWN, nil)
	return fs.Bound, fs.WeightBound * float64(len(p.levels.start)-2)
}

// TestLevelFastOptimum: multipartite ranking above 2^20 contributing pairs
// takes the fast optimum (named as for AUC), equal to the exact solve's
// within 1e-8 relative, the same bits for 1 and 3 workers.
func TestLevelFastOptimum(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCSquaredHinge} {
		p := levelProblem(t, loss, Regularizer{Kind: RegL2Sq, Lambda: 1e-3}, 1900, 4, 3, false, 11)
		if !p.FastOptimum() {
			t.Fatalf("%v: no fast optimum at %g pairs", loss, p.levels.pairs)
		}
		fast, err := p.Solve(OptimumOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		fast3, err := p.Solve(OptimumOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(fast.Value) != math.Float64bits(fast3.Value) || !slices.Equal(fast.Theta, fast3.Theta) {
			t.Fatalf("%v: 1 and 3 workers differ: %v, %v", loss, fast.Value, fast3.Value)
		}
		save := fastOptimumPairs
		fastOptimumPairs = math.Inf(1)
		exact, err := p.Solve(OptimumOptions{})
		fastOptimumPairs = save
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(fast.Method, "lbfgs-fast") || exact.Method != "lbfgs" {
			t.Fatalf("methods %q, %q", fast.Method, exact.Method)
		}
		if math.Abs(fast.Value-exact.Value) > 1e-8*math.Abs(exact.Value) {
			t.Errorf("%v: fast optimum %.17g, exact %.17g", loss, fast.Value, exact.Value)
		}
		t.Logf("%v: fast %.17g (%s), exact %.17g", loss, fast.Value, fast.Method, exact.Value)
	}
}

// userLogistic is a user objective that computes the logistic AUC loss
// itself and declares it (ScoreDifference).
type userLogistic struct{}

func (userLogistic) Info() ObjectiveInfo {
	return ObjectiveInfo{Name: "user-logistic", Smooth: true}
}
func (userLogistic) Contributes(li, lj int32) bool { return li > lj }
func (userLogistic) Loss(theta, xi, xj []float64, _, _ int) float64 {
	return AUCLogistic.MarginLoss(margin(theta, xi, xj))
}
func (userLogistic) Grad(g []float64, w float64, theta, xi, xj []float64, _, _ int) bool {
	w *= AUCLogistic.MarginDeriv(margin(theta, xi, xj))
	AddScaledDiff(g, w, xi, xj)
	return w != 0
}
func (userLogistic) ScoreDifferenceLoss() Loss { return AUCLogistic }

// badDecl declares a score difference but counts every pair.
type badDecl struct{ userLogistic }

func (badDecl) Contributes(_, _ int32) bool { return true }

// TestUserScoreDifference: a user objective declaring the logistic
// surrogate of the score difference gets the fast optimum, equal to the
// built-in logistic AUC loss's on the same data; a declaration that
// Contributes contradicts is refused.
func TestUserScoreDifference(t *testing.T) {
	bi := randomProblem(t, AUCLogistic, Regularizer{}, 2200, 5, 3)
	x := make([]float64, bi.N*bi.D)
	for i := 0; i < bi.N; i++ {
		copy(x[i*bi.D:], bi.X.Row(i)[:bi.D])
	}
	p, err := NewObjective(userLogistic{}, Regularizer{}, bi.N, bi.D, x, bi.Label)
	if err != nil {
		t.Fatal(err)
	}
	if !p.FastOptimum() || !bi.FastOptimum() {
		t.Fatal("no fast optimum")
	}
	ou, err := p.Solve(OptimumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := bi.Solve(OptimumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ou.Method != ob.Method || math.Abs(ou.Value-ob.Value) > 1e-12*ob.Value {
		t.Errorf("user %.17g (%s), built-in %.17g (%s)", ou.Value, ou.Method, ob.Value, ob.Method)
	}
	if _, err := NewObjective(badDecl{}, Regularizer{}, bi.N, bi.D, x, bi.Label); err == nil || !strings.Contains(err.Error(), "Contributes") {
		t.Errorf("contradicted declaration: %v", err)
	}
}

// BenchmarkLevelFastOptimum: multipartite ranking, logistic, 3 levels,
// d = 10, on the level-by-level fast sums (go test ./problem -run '^$'
// -bench LevelFastOptimum -benchtime 3x).
func BenchmarkLevelFastOptimum(b *testing.B) {
	p := levelProblem(b, AUCLogistic, Regularizer{}, 100_000, 10, 3, false, 1)
	for b.Loop() {
		if _, err := p.Solve(OptimumOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLevelMeasureExactFast: past the exact loop's budget, a ranking
// objective's measurement takes the level-by-level fast sums
// (MethodExactFast): each vector's R_n equals the pair-by-pair sum within
// the reported bound (no sampling error), and the values are the same bits
// for 1 and 3 workers.
func TestLevelMeasureExactFast(t *testing.T) {
	const n, d, m = 1500, 4, 3
	for _, loss := range []Loss{AUCLogistic, AUCSquaredHinge} {
		p := levelProblem(t, loss, Regularizer{Kind: RegL2Sq, Lambda: 0.01}, n, d, 4, true, 7)
		s := rng.New(3, 3)
		th := layout.New(m, d)
		for c := 0; c < m; c++ {
			for a := range th.Row(c)[:d] {
				th.Row(c)[a] = 0.3 * s.Normal()
			}
		}
		rows := []int{0, 1, 2}
		var got [2][]float64
		for k, workers := range []int{1, 3} {
			// A budget the exact loop is over and the fast sums within.
			e := p.NewEvaluatorWith(m, workers, EvalOptions{Budget: 1e7})
			if e.Plan().Obj != MethodExactFast {
				t.Fatalf("%v: plan %+v, want exact-fast", loss, e.Plan())
			}
			obj := make([]float64, m)
			est := e.Estimate(th, rows, obj, nil)
			if est.Obj != MethodExactFast || est.ObjStdErr != 0 || est.Pairs != 0 {
				t.Fatalf("%v: estimate %+v", loss, est)
			}
			for c := 0; c < m; c++ {
				want := p.customPairSum(th.Row(c))/(n*n) + p.Reg.Value(th.Row(c))
				if diff := math.Abs(obj[c] - want); diff > est.ObjBound+1e-14*want {
					t.Errorf("%v vector %d: %v, pair by pair %v (|diff| %.3g, bound %.3g)", loss, c, obj[c], want, diff, est.ObjBound)
				}
			}
			got[k] = obj
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%v: 1 worker %v, 3 workers %v", loss, got[0], got[1])
		}
	}
}
