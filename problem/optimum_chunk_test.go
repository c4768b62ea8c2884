package problem

import (
	"math"
	"runtime"
	"slices"
	"testing"
)

// TestAUCObjectiveChunked: above optChunkedPairs the full-batch AUC objective
// is summed over fixed chunks of the positives in parallel. Its value and
// gradient agree with the serial loop to rounding, and its bits do not
// depend on the number of cores.
func TestAUCObjectiveChunked(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge} {
		p := randomProblem(t, loss, Regularizer{}, 2200, 5, 7)
		if pairs := float64(len(p.pos)) * float64(len(p.neg)); pairs < optChunkedPairs {
			t.Fatalf("%d pairs: below the chunked size", int(pairs))
		}
		theta := []float64{0.3, -0.2, 0.1, 0.05, -0.4}
		eval := func(chunked bool, procs int) (float64, []float64) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			sc := newOptScratch(p)
			if sc.chunkTot == nil {
				t.Fatal("no chunk buffers above the chunked size")
			}
			if !chunked {
				sc.chunkTot, sc.chunkWNeg = nil, nil
			}
			g := make([]float64, p.P)
			return p.smoothValueGrad(theta, g, 0.01, sc), g
		}
		vs, gs := eval(false, 1)
		v1, g1 := eval(true, 1)
		v4, g4 := eval(true, 4)
		if math.Float64bits(v1) != math.Float64bits(v4) || !slices.Equal(g1, g4) {
			t.Fatalf("%v: 1 and 4 cores differ: %v %v, %v %v", loss, v1, v4, g1, g4)
		}
		if math.Abs(v1-vs) > 1e-12*math.Abs(vs) {
			t.Errorf("%v: chunked %v, serial %v", loss, v1, vs)
		}
		for k := range gs {
			if math.Abs(g1[k]-gs[k]) > 1e-12*(math.Abs(gs[k])+1e-3) {
				t.Errorf("%v: gradient %d: chunked %v, serial %v", loss, k, g1[k], gs[k])
			}
		}
	}
}

// BenchmarkAUCObjective: one value-and-gradient evaluation of the full-batch
// AUC logistic objective at 4·10⁶ pairs, serial loop against the chunked
// parallel one (go test ./problem -run '^$' -bench AUCObjective -count 5).
func BenchmarkAUCObjective(b *testing.B) {
	p := randomProblem(b, AUCLogistic, Regularizer{}, 4000, 8, 7)
	theta := make([]float64, p.P)
	for k := range theta {
		theta[k] = 0.1 * float64(k%3-1)
	}
	for _, mode := range []string{"serial", "chunked"} {
		b.Run(mode, func(b *testing.B) {
			sc := newOptScratch(p)
			if mode == "serial" {
				sc.chunkTot, sc.chunkWNeg = nil, nil
			}
			g := make([]float64, p.P)
			for b.Loop() {
				p.smoothValueGrad(theta, g, 0, sc)
			}
		})
	}
}
