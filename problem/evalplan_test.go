package problem

import (
	"math"
	"slices"
	"syscall"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// cpuSeconds is the process's CPU time so far (user and system): on a
// shared machine it is steadier than the wall time.
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return math.NaN()
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) * 1e-9
}

// BenchmarkRadixSort compares the radix sort of the sorted method with
// slices.Sort on 5·10⁵ scores (the negatives of n = 10⁶ at one third
// positive): costSortKey.
func BenchmarkRadixSort(b *testing.B) {
	n := 500000
	s := rng.New(1, 1)
	src := make([]float64, n)
	for i := range src {
		src[i] = s.Normal()*0.3 + 0.1
	}
	a, tmp := make([]float64, n), make([]float64, n)
	hist := make([]int, radixPasses*radixBuckets)
	for _, c := range []struct {
		name string
		sort func()
	}{{"radix", func() { radixSort(a, tmp, hist) }}, {"slices.Sort", func() { slices.Sort(a) }}} {
		b.Run(c.name, func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				copy(a, src)
				c.sort()
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e9/float64(n), "cpu-ns/key")
		})
	}
}

// BenchmarkEvalPairwise times the pairwise method on 16 vectors near the
// automatic rule's limit, beside the plan's estimate (est-cpu-s: the cost
// times the workers, in seconds): costPairLogit, costPairHinge,
// costMetricPr.
func BenchmarkEvalPairwise(b *testing.B) {
	for _, c := range []struct {
		loss Loss
		n, d int
	}{{AUCLogistic, 15000, 16}, {AUCHinge, 15000, 16}, {MetricHinge, 2000, 16}} {
		b.Run(c.loss.String(), func(b *testing.B) {
			p := randomProblem(b, c.loss, Regularizer{}, c.n, c.d, 1)
			th := randThetas(b, p, 16, 0.3, 2)
			rows := make([]int, 16)
			for i := range rows {
				rows[i] = i
			}
			e := p.NewEvaluator(16, 2)
			if e.Plan().Obj != MethodPairwise {
				b.Fatalf("plan %+v", e.Plan())
			}
			obj, auc := make([]float64, 16), make([]float64, 16)
			c0 := cpuSeconds()
			for b.Loop() {
				e.Eval(th, rows, obj, auc)
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(e.Plan().Cost*2e-9, "est-cpu-s")
		})
	}
}
