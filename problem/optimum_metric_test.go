package problem

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// syntheticMetric is the metric-learning problem of `run --problem metric
// --data synthetic`: the default synthetic set (n = 1000, d = 40), b = 2,
// ψ = the PSD cone; n and d other than the defaults shrink it.
func syntheticMetric(t testing.TB, n, d int) *Problem {
	t.Helper()
	cfg := dataset.DefaultSynthetic()
	cfg.N, cfg.D = n, d
	cfg.S = min(cfg.S, d)
	ds, err := dataset.Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(MetricHinge, Regularizer{Kind: RegPSD, D: d}, 2, ds.N, ds.D, ds.X, ds.Class)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMetricEvalAgrees: the class-sorted, upper-triangle evaluation of
// the metric objective agrees with the full-Gram one as it was (kept in
// optimum_ref_test.go) to rounding, value and gradient, with and without
// the gradient, smoothed and exact, on sizes that are and are not
// multiples of the row blocks and of the padded row stride.
func TestMetricEvalAgrees(t *testing.T) {
	for _, nd := range [][2]int{{1000, 40}, {77, 40}, {101, 7}, {33, 3}} {
		p := syntheticMetric(t, nd[0], nd[1])
		sc := newOptScratch(p)
		ref := &optScratch{s: make([]float64, p.N), a: make([]float64, p.N*p.D), g: make([]float64, p.N*p.N)}
		s := rng.New(3, 0)
		theta := randVec(s, p.P, 0.05)
		symmetric(theta, p.D)
		for _, mu := range []float64{0.1, 1e-3, 0} {
			g1, g2 := make([]float64, p.P), make([]float64, p.P)
			v1 := p.refValueGrad(theta, g1, mu, ref)
			v2 := p.smoothValueGrad(theta, g2, mu, sc)
			v3 := p.smoothValueGrad(theta, nil, mu, sc)
			if math.Abs(v2-v1) > 1e-13*math.Abs(v1) || v3 != v2 {
				t.Errorf("n %d d %d μ %v: value %v, before %v, value only %v", p.N, p.D, mu, v2, v1, v3)
			}
			gmax := 0.0
			for _, v := range g1 {
				gmax = math.Max(gmax, math.Abs(v))
			}
			for k := range g1 {
				if math.Abs(g1[k]-g2[k]) > 1e-12*gmax {
					t.Errorf("n %d d %d μ %v: gradient %d: %v, before %v", p.N, p.D, mu, k, g2[k], g1[k])
					break
				}
			}
		}
	}
}

// TestMetricSolveAgrees: on small synthetic problems the metric solve
// (loose early continuation stages, momentum-free stopping test, the new
// evaluation) against
//   - the solver as it was (refSolveMetric): the new value is at most
//     FinalMu/2 above the old one, and the new smoothed objective is never
//     above the old one (the old stopping test could end a stage on a
//     momentum step that landed near x: 1e-4 above the smoothed optimum on
//     these sizes, 5e-3 in the pure-Go noasm build, whose rounding differs
//     — so the old value can be far above, never the new one);
//   - a run with every stage to the final tolerance: the smoothed
//     objectives agree to 1e-12 relative (the early stages are only warm
//     starts).
func TestMetricSolveAgrees(t *testing.T) {
	for _, nd := range [][2]int{{60, 4}, {120, 6}, {150, 10}} {
		p := syntheticMetric(t, nd[0], nd[1])
		old, _ := p.refSolveMetric(OptimumOptions{})
		o, err := p.Solve(OptimumOptions{})
		if err != nil {
			t.Fatal(err)
		}
		saved := fistaStageTol
		fistaStageTol = 1e-10
		tight, _ := p.Solve(OptimumOptions{})
		fistaStageTol = saved
		if !old.Converged || !o.Converged || !tight.Converged || o.Method != "fista" || o.FinalMu != 1e-3 {
			t.Fatalf("n %d d %d: converged %v (before %v, tight %v), method %q, μ %v", p.N, p.D, o.Converged, old.Converged, tight.Converged, o.Method, o.FinalMu)
		}
		if o.Value > old.Value+o.FinalMu/2 {
			t.Errorf("n %d d %d: value %.15g, before %.15g: more than FinalMu/2 above", p.N, p.D, o.Value, old.Value)
		}
		sc := newOptScratch(p)
		f := func(theta []float64) float64 { return p.smoothValueGrad(theta, nil, o.FinalMu, sc) }
		fn, fo, ft := f(o.Theta), f(old.Theta), f(tight.Theta)
		if fn > fo+1e-12*fo {
			t.Errorf("n %d d %d: smoothed objective %.15g, above the old solver's %.15g", p.N, p.D, fn, fo)
		}
		if math.Abs(fn-ft) > 1e-12*ft {
			t.Errorf("n %d d %d: smoothed objective %.15g, every stage to Tol %.15g", p.N, p.D, fn, ft)
		}
		t.Logf("n %d d %d: value %.15g (before %.15g), smoothed %.15g (before %+.2g, tight %+.2g), iterations %d (before %d, tight %d)",
			p.N, p.D, o.Value, old.Value, fn, fo-fn, ft-fn, o.Iterations, old.Iterations, tight.Iterations)
	}
}

// TestMetricSolveDeterministic: the metric solve gives the same bits on 1
// and 4 cores (fixed row blocks, reductions in block order).
func TestMetricSolveDeterministic(t *testing.T) {
	p := syntheticMetric(t, 230, 9)
	solve := func(procs int) Optimum {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o, err := p.Solve(OptimumOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o1, o4 := solve(1), solve(4)
	if math.Float64bits(o1.Value) != math.Float64bits(o4.Value) || !slices.Equal(o1.Theta, o4.Theta) || o1.Iterations != o4.Iterations {
		t.Fatalf("1 core: %v after %d iterations, 4 cores: %v after %d", o1.Value, o1.Iterations, o4.Value, o4.Iterations)
	}
}
