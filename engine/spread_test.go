package engine

import (
	"math"
	"testing"
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
