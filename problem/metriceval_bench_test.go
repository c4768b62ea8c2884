package problem

import (
	"fmt"
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/layout"
)

// metricMeasureInputs returns m PSD θ's (A·Aᵀ/d, A Gaussian-ish from a fixed
// recurrence), their row indices, auxiliary points and an ω, at the
// synthetic size.
func metricMeasureInputs(p *Problem, m int) (layout.Matrix, []int, []int32, []float64) {
	d := p.D
	th := layout.New(p.N, p.P)
	rows := make([]int, m)
	seed := uint64(7)
	next := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(int64(seed>>11))/float64(1<<52) - 1
	}
	a := make([]float64, d*d)
	for c := 0; c < m; c++ {
		rows[c] = c * (p.N / m)
		for i := range a {
			a[i] = next()
		}
		t := th.Row(rows[c])
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var s float64
				for k := 0; k < d; k++ {
					s += a[i*d+k] * a[j*d+k]
				}
				t[i*d+j] = s / float64(d) * 0.05
			}
		}
	}
	aux := make([]int32, p.N)
	for k := range aux {
		aux[k] = int32((k*7919 + 13) % p.N)
	}
	omega := append([]float64(nil), th.Row(rows[0])...)
	return th, rows, aux, omega
}

// BenchmarkMetricMeasure: the measurement of 8 nodes' metric objective and
// the bias term at the synthetic size (n = 1000), the pairwise method, one
// worker, CPU ms an op (the machine is shared):
//
//	go test ./problem -run '^$' -bench MetricMeasure -count 5
func BenchmarkMetricMeasure(b *testing.B) {
	for _, d := range []int{10, 40} {
		p := syntheticMetric(b, 1000, d)
		th, rows, aux, omega := metricMeasureInputs(p, 8)
		e := p.NewEvaluator(len(rows), 1)
		obj := make([]float64, len(rows))
		for _, what := range []string{"objective", "bias"} {
			b.Run(fmt.Sprintf("d=%d/%s", d, what), func(b *testing.B) {
				c0 := cpuSeconds()
				for b.Loop() {
					if what == "objective" {
						e.Eval(th, rows, obj, nil)
					} else {
						e.Bias(th, aux, rows, omega)
					}
				}
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
			})
		}
	}
}

// TestMetricMeasureMatchesDirect: the pairwise metric objective and bias
// against the literal double sums (Problem.Objective, PartialGrad) at a
// moderate size, to rounding.
func TestMetricMeasureMatchesDirect(t *testing.T) {
	p := syntheticMetric(t, 300, 7)
	th, rows, aux, omega := metricMeasureInputs(p, 5)
	clear(th.Row(rows[1])) // a zero θ (the measurement at the first record)
	e := p.NewEvaluator(len(rows), 2)
	obj := make([]float64, len(rows))
	e.Eval(th, rows, obj, nil)
	for c, r := range rows {
		want := p.Objective(th.Row(r))
		if math.Abs(obj[c]-want) > 1e-12*math.Abs(want) {
			t.Fatalf("node %d: objective %v, direct %v", r, obj[c], want)
		}
	}
	got := e.Bias(th, aux, rows, omega)
	var want float64
	g := make([]float64, p.P)
	ge := make([]float64, p.P)
	for _, k := range rows {
		p.PartialGrad(g, th.Row(k), k)
		clear(ge)
		p.PairGrad(ge, 1, th.Row(k), k, int(aux[k]))
		for a := range g {
			want += (ge[a] - g[a]) * omega[a]
		}
	}
	want /= float64(len(rows))
	if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
		t.Fatalf("bias %v, direct %v", got, want)
	}
}
