package problem

import (
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
)

// fdCheck compares obj.Grad with central differences of obj.Loss at random
// θ on random contributing pairs, skipping pairs within 1e-4 of a hinge's
// kink (isKink).
func fdCheck(t *testing.T, obj Objective, d int, labels []int32, isKink func(theta, xi, xj []float64, i, j int) bool) {
	t.Helper()
	P := obj.Info().ParamDim(d)
	r := rng.New(5, 1)
	n := len(labels)
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for a := range x[i] {
			x[i][a] = r.Normal()
		}
	}
	checked := 0
	for trial := 0; trial < 400 && checked < 60; trial++ {
		theta := make([]float64, P)
		for a := range theta {
			theta[a] = 0.5 * r.Normal()
		}
		i, j := r.IntN(n), r.IntN(n)
		if !obj.Contributes(labels[i], labels[j]) || (isKink != nil && isKink(theta, x[i], x[j], i, j)) {
			continue
		}
		g := make([]float64, P)
		obj.Grad(g, 1, theta, x[i], x[j], i, j)
		const h = 1e-6
		for a := range theta {
			old := theta[a]
			theta[a] = old + h
			fp := obj.Loss(theta, x[i], x[j], i, j)
			theta[a] = old - h
			fm := obj.Loss(theta, x[i], x[j], i, j)
			theta[a] = old
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[a]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Fatalf("%s: ∂f/∂θ[%d] = %g, finite difference %g (pair %d, %d)", obj.Info().Name, a, g[a], fd, i, j)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("%s: only %d pairs checked", obj.Info().Name, checked)
	}
}

func TestObjectiveGradientsFiniteDifference(t *testing.T) {
	levels := make([]int32, 40)
	for i := range levels {
		levels[i] = int32(i % 3)
	}
	for _, s := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge} {
		rk, err := NewRanking(s)
		if err != nil {
			t.Fatal(err)
		}
		fdCheck(t, rk, 5, levels, func(theta, xi, xj []float64, _, _ int) bool {
			return math.Abs(1-margin(theta, xi, xj)) < 1e-4
		})
	}
	sim := NewSimilarity(levels)
	fdCheck(t, sim, 4, levels, func(theta, xi, xj []float64, i, j int) bool {
		return math.Abs(1-sim.sign(i, j)*bilinear(theta, xi, xj)) < 1e-4
	})
	// The Huber-smoothed forms too (the centralized solver's gradients).
	for _, o := range []HuberSmoother{sim, &Ranking{Surrogate: AUCHinge}} {
		obj := o.(Objective)
		sm := &Pairwise{Name: obj.Info().Name + "-huber", Matrix: obj.Info().Matrix, Contrib: obj.Contributes,
			Func: func(theta, xi, xj []float64, i, j int) float64 {
				return o.SmoothLoss(nil, 0, theta, xi, xj, i, j, 0.3)
			},
			GradFunc: func(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
				o.SmoothLoss(g, w, theta, xi, xj, i, j, 0.3)
				return true
			}}
		fdCheck(t, sm, 4, levels, nil)
	}
}

// threeLevels returns n points of dimension d, f of standard normal draws
// of r, with labels 0, 1, 2 in turn.
func threeLevels(n, d int, r *rng.Stream, f func(float64) float64) ([]float64, []int32) {
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := range lab {
		lab[i] = int32(i % 3)
		for a := range d {
			x[i*d+a] = f(r.Normal())
		}
	}
	return x, lab
}

// TestCIndex: the C-index of the evaluator against the definition, pair by
// pair, with ties, on three levels.
func TestCIndex(t *testing.T) {
	n, d := 90, 3
	// coarse: ties in the scores
	x, lab := threeLevels(n, d, rng.New(2, 3), func(v float64) float64 { return math.Round(2*v) / 2 })
	rk, _ := NewRanking(AUCLogistic)
	p, err := NewObjective(rk, Regularizer{}, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{1, 0, 0}
	e := p.NewEvaluator(1, 2)
	obj, auc := make([]float64, 1), make([]float64, 1)
	th := p.X
	th.Rows = 1
	th.Data = append([]float64(nil), theta...)
	th.Stride = d
	th.Cols = d
	e.Eval(th, []int{0}, obj, auc)
	var num, den float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if lab[i] <= lab[j] {
				continue
			}
			si, sj := x[i*d], x[j*d]
			den++
			switch {
			case si > sj:
				num++
			case si == sj:
				num += 0.5
			}
		}
	}
	if math.Abs(auc[0]-num/den) > 1e-15 {
		t.Fatalf("C-index %v, want %v", auc[0], num/den)
	}
	if want := p.Objective(theta); math.Abs(obj[0]-want) > 1e-13*want {
		t.Fatalf("objective %v, want %v", obj[0], want)
	}
}

// TestCustomPlanWorkers: a user objective's measurement is planned on one
// worker's time, as the built-in ones (planEval): under a budget that the
// exact pair loop exceeds on one worker but not shared by two, the plan,
// the sample and the values are the same for 1, 2 and 8 workers (they were
// exact on 2 and sampled on 1, so a trace depended on --workers).
func TestCustomPlanWorkers(t *testing.T) {
	n, d := 120, 3
	r := rng.New(5, 6)
	x, lab := threeLevels(n, d, r, func(v float64) float64 { return v })
	sim := NewSimilarity(lab)
	rk, _ := NewRanking(AUCHinge)
	for _, obj := range []Objective{sim, rk} {
		p, err := NewObjective(obj, Regularizer{}, n, d, x, lab)
		if err != nil {
			t.Fatal(err)
		}
		m := 3
		th := layout.New(m, p.P)
		for i := range th.Data {
			th.Data[i] = 0.3 * r.Normal()
		}
		// Between the exact loop's cost on two workers and on one.
		budget := 0.75 * float64(m) * float64(n*n) * float64(p.P+4)
		var ref []float64
		var refPlan EvalPlan
		for _, w := range []int{1, 2, 8} {
			e := p.NewEvaluatorWith(m, w, EvalOptions{Budget: budget, Seed: 3})
			o, a := make([]float64, m), make([]float64, m)
			e.Estimate(th, []int{0, 1, 2}, o, a)
			got := append(o, a...)
			pl := e.Plan()
			pl.Bytes = 0 // buffers per worker
			if ref == nil {
				ref, refPlan = got, pl
				if pl.Obj != MethodSampled {
					t.Fatalf("%s: plan %+v: the case no longer straddles the budget", obj.Info().Name, pl)
				}
				continue
			}
			if pl != refPlan {
				t.Fatalf("%s, %d workers: plan %+v, on 1 worker %+v", obj.Info().Name, w, pl, refPlan)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%s, %d workers: value %d is %v, on 1 worker %v", obj.Info().Name, w, i, got[i], ref[i])
				}
			}
		}
	}
}
