package problem

import "testing"

// BenchmarkMetricEval: one evaluation of the smoothed metric objective at
// the synthetic size (n = 1000, d = 40, μ = 0.01), with the gradient and
// value only, as it was (ref-: the full Gram matrix XθXᵀ and the full n×n
// product, the value through the same Gram matrix) and now (the upper
// triangle over fixed row blocks, class-sorted points):
//
//	go test ./problem -run '^$' -bench MetricEval -count 5
func BenchmarkMetricEval(b *testing.B) {
	p := syntheticMetric(b, 1000, 40)
	sc := newOptScratch(p)
	theta := make([]float64, p.P)
	for i := 0; i < p.D; i++ {
		for j := 0; j < p.D; j++ {
			theta[i*p.D+j] = 0.01 / float64(1+i+j)
		}
		theta[i*p.D+i] += 0.1
	}
	g := make([]float64, p.P)
	for _, mode := range []string{"ref-grad", "grad", "ref-value", "value"} {
		b.Run(mode, func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				switch mode {
				case "ref-grad":
					p.refValueGrad(theta, g, 0.01, sc)
				case "grad":
					p.smoothValueGrad(theta, g, 0.01, sc)
				case "ref-value":
					p.refValueGrad(theta, nil, 0.01, sc)
				default:
					p.smoothValueGrad(theta, nil, 0.01, sc)
				}
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
		})
	}
}

// BenchmarkMetricSolve: the whole metric-learning optimum solve at the
// synthetic size (what `run --problem metric --data synthetic` does after
// its iterations), as it was (ref) and now (new), with the iterations and
// objective evaluations of one solve and the CPU seconds it took (the
// machine is shared: CPU time is less noisy than wall time). One solve is
// tens of seconds:
//
//	go test ./problem -run '^$' -bench MetricSolve -count 5 -benchtime 1x -timeout 60m
func BenchmarkMetricSolve(b *testing.B) {
	p := syntheticMetric(b, 1000, 40)
	for _, mode := range []string{"ref", "new"} {
		b.Run(mode, func(b *testing.B) {
			var o Optimum
			var evals int
			c0 := cpuSeconds()
			for b.Loop() {
				if mode == "ref" {
					o, evals = p.refSolveMetric(OptimumOptions{})
				} else {
					sc := newOptScratch(p)
					o, _ = p.solveFISTA(sc, OptimumOptions{MaxIter: 3000, Tol: 1e-10, FinalMu: 1e-3})
					evals = sc.evals
				}
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(o.Iterations), "iters")
			b.ReportMetric(float64(evals), "evals")
			b.ReportMetric(o.Value, "value")
		})
	}
}
