package problem

import (
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
)

// TestEvalDistinct: where the plan for m vectors samples but the plan for
// one vector on one worker is exact (EvalPlan.Distinct), a measurement whose
// vectors all hold one value — every θ̄_k = 0 at a run's start — is exact,
// with no sampling, the same for any worker count; with two distinct values
// whose plan samples, it samples as before; and the hinge takes the sorted
// form the same way.
func TestEvalDistinct(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge} {
		p := randomProblem(t, loss, Regularizer{}, 5000, 8, 4)
		sh := p.shape()
		one := sh.costs(1, 1)
		budget := 1.2 * min(one.fastSerial, one.sorted*1.6)
		if loss == AUCLogistic {
			budget = 1.2 * one.fastSerial
		}
		const m = 4
		e := p.NewEvaluatorWith(m, 2, EvalOptions{Budget: budget})
		pl := e.Plan()
		if pl.Obj != MethodSampled || !pl.Distinct {
			t.Fatalf("%s: plan %+v, want sampled with Distinct", loss, pl)
		}
		if pl1 := planEval(sh, 1, 1, EvalOptions{Budget: budget}.withDefaults()); !distinctExact(pl1) {
			t.Fatalf("%s: one-vector plan %+v is not exact", loss, pl1)
		}
		ref := p.NewEvaluatorWith(m, 1, EvalOptions{Mode: EvalExact})
		th := layout.New(m, p.P)
		rows := []int{0, 1, 2, 3}
		obj, auc := make([]float64, m), make([]float64, m)
		est := e.Estimate(th, rows, obj, auc)
		want := Estimate{Obj: MethodSorted, AUC: MethodSorted}
		if loss == AUCLogistic {
			want.Obj = MethodExactFast
		}
		if est.Obj != want.Obj || est.AUC != want.AUC || est.ObjStdErr != 0 || est.AUCStdErr != 0 || est.Pairs != 0 {
			t.Fatalf("%s: θ = 0 everywhere: estimate %+v", loss, est)
		}
		n := float64(p.N)
		z := float64(len(p.pos)) / n * float64(len(p.neg)) / n
		if loss == AUCLogistic {
			z *= math.Ln2
		}
		for c := range rows {
			if math.Abs(obj[c]-z) > 1e-15*z || auc[c] != 0.5 {
				t.Errorf("%s: vector %d at θ = 0: objective %.17g, want %.17g; AUC %v", loss, c, obj[c], z, auc[c])
			}
		}
		e1 := p.NewEvaluatorWith(m, 1, EvalOptions{Budget: budget})
		obj1, auc1 := make([]float64, m), make([]float64, m)
		// One value repeated, not zero: exact, equal to the exact method
		// within the bound, and the same bits on one worker.
		v := randVec(rng.New(7, 9), p.P, 0.5)
		for c := range rows {
			copy(th.Row(c), v)
		}
		est = e.Estimate(th, rows, obj, auc)
		e1.Estimate(th, rows, obj1, auc1)
		robj, rauc := make([]float64, m), make([]float64, m)
		ref.Estimate(th, rows, robj, rauc)
		for c := range rows {
			if math.Float64bits(obj[c]) != math.Float64bits(obj1[c]) || auc[c] != auc1[c] {
				t.Errorf("%s: vector %d: 2 workers %v/%v, 1 worker %v/%v", loss, c, obj[c], auc[c], obj1[c], auc1[c])
			}
			if d := math.Abs(obj[c] - robj[c]); d > est.ObjBound+1e-13*robj[c] || auc[c] != rauc[c] {
				t.Errorf("%s: vector %d: %.17g/%v, exact %.17g/%v (bound %g)", loss, c, obj[c], auc[c], robj[c], rauc[c], est.ObjBound)
			}
		}
		// Two distinct values: the plan for two samples, so the
		// measurement does too.
		copy(th.Row(2), randVec(rng.New(8, 9), p.P, 0.5))
		if loss == AUCLogistic {
			if est = e.Estimate(th, rows, obj, auc); est.Obj != MethodSampled || est.Pairs == 0 {
				t.Errorf("%s: two distinct values: estimate %+v, want sampled", loss, est)
			}
		}
	}
}

// TestEvalDistinctLarge: at n = 10⁶ with 1% positives and the default
// options, 16 measured vectors at θ = 0 (a run's first trace row) give
// (|P|·|N|/n²)·log 2 to 1e-9 relative with no sampling, and the AUC ½.
func TestEvalDistinctLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 10⁶ data")
	}
	const n, d = 1_000_000, 16
	s := rng.New(3, 0)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s.Normal()
	}
	lab := make([]int32, n)
	for i := range lab {
		lab[i] = -1
		if i%100 == 7 {
			lab[i] = 1
		}
	}
	p, err := New(AUCLogistic, Regularizer{}, 2, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	const m = 16
	e := p.NewEvaluatorWith(m, 2, EvalOptions{})
	if pl := e.Plan(); pl.Obj != MethodSampled || !pl.Distinct {
		t.Fatalf("plan %+v", pl)
	}
	th := layout.New(m, p.P)
	rows := make([]int, m)
	for c := range rows {
		rows[c] = c
	}
	obj, auc := make([]float64, m), make([]float64, m)
	est := e.Estimate(th, rows, obj, auc)
	if est.Obj != MethodExactFast || est.ObjStdErr != 0 || est.Pairs != 0 || est.AUC != MethodSorted {
		t.Fatalf("estimate %+v", est)
	}
	want := float64(n/100) / n * float64(n-n/100) / n * math.Ln2
	for c := range rows {
		if math.Abs(obj[c]-want) > 1e-9*want || auc[c] != 0.5 {
			t.Errorf("vector %d: %.17g, want %.17g; AUC %v", c, obj[c], want, auc[c])
		}
	}
}

// TestPlanIndependentOfWorkers: the automatic plan — methods, sample sizes,
// the Distinct rule — is the same for any worker count (so is the trace);
// only the buffers' bytes grow with the workers.
func TestPlanIndependentOfWorkers(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		for _, n := range []int{700, 20000, 150000, 1_000_000, 10_000_000} {
			for _, m := range []int{1, 2, 16, 200} {
				npos := n / 3
				want := PlanEval(loss, n, npos, 16, m, 1, EvalOptions{})
				for _, w := range []int{2, 4, 16} {
					got := PlanEval(loss, n, npos, 16, m, w, EvalOptions{})
					got.Bytes = want.Bytes
					if got != want {
						t.Errorf("%s n=%d m=%d: %d workers plan %+v, 1 worker %+v", loss, n, m, w, got, want)
					}
				}
			}
		}
	}
}
