package problem

import (
	"math"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// TestLogisticMarginBits: the fused loss and derivative are the bits of
// MarginLoss and MarginDeriv, at the branch points, the extremes and random
// margins.
func TestLogisticMarginBits(t *testing.T) {
	ms := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 5e-324, -5e-324, 1, -1, 36, -36, 37.5, -37.5,
		709, -709, 745, -745, 800, -800, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1)}
	s := rng.New(11, 0)
	for range 100000 {
		ms = append(ms, s.Normal()*math.Pow(10, float64(int(s.Float64()*8)-4)))
	}
	for _, m := range ms {
		v, dv := LogisticMargin(m)
		wv, wdv := AUCLogistic.MarginLoss(m), AUCLogistic.MarginDeriv(m)
		if math.Float64bits(v) != math.Float64bits(wv) || math.Float64bits(dv) != math.Float64bits(wdv) {
			t.Fatalf("m = %v: fused (%v, %v), separate (%v, %v)", m, v, dv, wv, wdv)
		}
	}
	v, dv := LogisticMargin(math.NaN())
	if !math.IsNaN(v) || !math.IsNaN(dv) {
		t.Errorf("NaN margin: (%v, %v)", v, dv)
	}
}

// TestAUCPairsFused: the serial and chunked pair loops with the fused
// logistic give the bits of the loop as it was (two exponentials a pair)
// for the serial order, and the chunked sum agrees with it to rounding.
func TestAUCPairsFused(t *testing.T) {
	p := randomProblem(t, AUCLogistic, Regularizer{}, 2200, 5, 7)
	theta := []float64{0.3, -0.2, 0.1, 0.05, -0.4}
	sc := newOptScratch(p)
	p.smoothValueGrad(theta, make([]float64, p.P), 0, sc) // sets the scores sc.s
	want := p.refAUCPairsSerial(0, sc)
	ww := slices.Clone(sc.w)
	got := p.aucPairsSerial(0, sc)
	if math.Float64bits(got) != math.Float64bits(want) || !slices.Equal(sc.w, ww) {
		t.Fatalf("serial: %v, before %v (or the weights differ)", got, want)
	}
	ch := p.aucPairsChunked(0, sc)
	if math.Abs(ch-want) > 1e-12*math.Abs(want) {
		t.Errorf("chunked %v, serial %v", ch, want)
	}
}

// BenchmarkAUCPairs: the pair loop of one full-batch AUC logistic
// evaluation at 4·10⁶ pairs (n = 4000), as it was (ref-serial: MarginLoss
// and MarginDeriv, two exponentials a pair) and now (fused, serial and
// chunked): go test ./problem -run '^$' -bench AUCPairs -count 5.
func BenchmarkAUCPairs(b *testing.B) {
	p := randomProblem(b, AUCLogistic, Regularizer{}, 4000, 8, 7)
	theta := make([]float64, p.P)
	for k := range theta {
		theta[k] = 0.1 * float64(k%3-1)
	}
	sc := newOptScratch(p)
	p.smoothValueGrad(theta, make([]float64, p.P), 0, sc)
	pairs := float64(len(p.pos)) * float64(len(p.neg))
	for _, mode := range []string{"ref-serial", "serial", "chunked"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				switch mode {
				case "ref-serial":
					p.refAUCPairsSerial(0, sc)
				case "serial":
					p.aucPairsSerial(0, sc)
				default:
					p.aucPairsChunked(0, sc)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pairs, "ns/pair")
		})
	}
}
