package engine

import (
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/layout"
)

// TestSpreadsWithoutOverflow: the scaled mean, standard deviation and
// distance are finite for finite values whose squares overflow, and equal
// to the plain formulas (bit for bit: the scale is a power of two) where
// nothing overflows (issue #15, item 8).
func TestSpreadsWithoutOverflow(t *testing.T) {
	plain := []float64{0.25, 1.5, -3, 7.125, 1e-3}
	var sum float64
	for _, v := range plain {
		sum += v
	}
	mean := sum / float64(len(plain))
	var ss float64
	for _, v := range plain {
		ss += (v - mean) * (v - mean)
	}
	m, s := meanStdScaled(plain)
	if m != mean || s != math.Sqrt(ss/float64(len(plain))) {
		t.Errorf("scaled %v %v, plain %v %v", m, s, mean, math.Sqrt(ss/float64(len(plain))))
	}
	huge := []float64{1e200, 3e200, -2e200, 1.7e308, -1.7e308}
	m, s = meanStdScaled(huge)
	if math.IsInf(m, 0) || math.IsInf(s, 0) || math.IsNaN(s) || s < 1e308 {
		t.Errorf("huge: mean %v std %v", m, s)
	}
	if d := distScaled([]float64{1e300, -1e300}, []float64{-1e300, 1e300}); math.IsInf(d, 0) || math.Abs(d/(2*math.Sqrt2*1e300)-1) > 1e-15 {
		t.Errorf("distance %v, want 2√2·1e300", d)
	}
	if d := distScaled([]float64{3, 4}, []float64{0, 0}); d != 5 {
		t.Errorf("distance %v, want 5", d)
	}
}

// TestSpreadRangeRowOrder: spreadRange (four rows at a time) is, bit for
// bit, the sum in row order from 0 of each row's distance summed in its
// entries' order, for every range of 0..13 rows (remainders 0..3, at any
// offset), rows whose squares overflow included; and spread's parallel
// form adds such ranges' sums in segment order.
func TestSpreadRangeRowOrder(t *testing.T) {
	const rows, d = 13, 7
	x := layout.New(rows, d)
	mean := make([]float64, d)
	for a := range mean {
		mean[a] = 0.1 * float64(a)
	}
	for k := 0; k < rows; k++ {
		for a, r := 0, x.Row(k); a < d; a++ {
			r[a] = math.Sin(float64(3*k+a)) * float64(k+1)
		}
	}
	x.Row(5)[2] = 1.5e200 // overflows: the scaled distance
	dist := func(k int) float64 {
		var d2 float64
		for a, v := range x.Row(k) {
			d2 += float64((v - mean[a]) * (v - mean[a]))
		}
		if math.IsInf(d2, 0) {
			return distScaled(x.Row(k), mean)
		}
		return math.Sqrt(d2)
	}
	for lo := 0; lo <= rows; lo++ {
		for hi := lo; hi <= rows; hi++ {
			var want float64
			for k := lo; k < hi; k++ {
				want += dist(k)
			}
			if got := spreadRange(x, mean, lo, hi); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("rows %d..%d: %v, want %v", lo, hi, got, want)
			}
		}
	}
	big := layout.New(parallelRows+5, 2)
	for k := 0; k < big.Rows; k++ {
		big.Row(k)[0], big.Row(k)[1] = float64(k%17), -float64(k%5)
	}
	m := []float64{0.5, -0.25}
	ms := &measurer{workers: 2, seg: make([]float64, reduceSegments)}
	var want float64
	for g := 0; g < reduceSegments; g++ {
		var part float64
		for k := g * big.Rows / reduceSegments; k < (g+1)*big.Rows/reduceSegments; k++ {
			var d2 float64
			for a, v := range big.Row(k) {
				d2 += float64((v - m[a]) * (v - m[a]))
			}
			part += math.Sqrt(d2)
		}
		want += part
	}
	if got := ms.spread(big, m, big.Rows); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parallel spread %v, want %v", got, want)
	}
}

// BenchmarkConsensusPasses times the two passes over the records that the
// consensus spread of a large measurement makes (the means of θ̄ and z,
// then Σ‖θ̄_k − mean‖) on the compact layout of the synchronous schedules
// (z and θ̄ in one 256-byte record at d = 16), 4·10⁶ rows written with
// values first, so that the pages are real memory (a fresh allocation
// reads the shared zero page and looks faster than any run), two workers.
func BenchmarkConsensusPasses(b *testing.B) {
	const rows, P = 4_000_000, 16
	rec := layout.NewRecords(rows, P, P)
	z, tb := rec[0], rec[1]
	for k := 0; k < rows; k++ {
		for a := range P {
			h := float64((k*31+a*7)%1000) * 1e-3
			z.Row(k)[a], tb.Row(k)[a] = -0.4+0.1*h, 0.4+0.1*h
		}
	}
	ms := &measurer{workers: 2, seg: make([]float64, 2*reduceSegments*P)}
	mean, zbar := make([]float64, P), make([]float64, P)
	b.Run("means", func(b *testing.B) {
		for b.Loop() {
			ms.rowMeans2(mean, zbar, tb, z, rows)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	})
	b.Run("spread", func(b *testing.B) {
		for b.Loop() {
			ms.spread(tb, mean, rows)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	})
}
