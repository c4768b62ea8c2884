package problem

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exactPairWeights is the reference: the pair sum of φ and the weights
// w_i = Σ_j φ'(a_i − b_j), v_j = Σ_i φ'(a_i − b_j), pair by pair with
// compensated sums.
func exactPairWeights(loss Loss, posS, negS []float64) (float64, []float64, []float64) {
	wp, wn := make([]float64, len(posS)), make([]float64, len(negS))
	cn := make([]float64, len(negS))
	var tot, ct float64
	for i, a := range posS {
		var r, cr, w, cw float64
		for j, b := range negS {
			var v, dv float64
			if loss == AUCLogistic {
				v, dv = LogisticMargin(a - b)
			} else {
				v, dv = loss.MarginLoss(a-b), loss.MarginDeriv(a-b)
			}
			neumaier(&r, &cr, v)
			neumaier(&w, &cw, dv)
			neumaier(&wn[j], &cn[j], dv)
		}
		neumaier(&tot, &ct, r+cr)
		wp[i] = w + cw
	}
	for j := range wn {
		wn[j] += cn[j]
	}
	return tot + ct, wp, wn
}

// fastScores returns the scores of n points, a fraction frac positive:
// normal with scale sc, a third of them rounded to a coarse grid (ties),
// some duplicated exactly, and with wide set a few far out (the far field).
func fastScores(n int, frac, sc float64, wide bool, seed uint64) (pos, neg []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < n; i++ {
		v := sc * r.NormFloat64()
		switch i % 3 {
		case 0:
			v = math.Round(v*4) / 4
		}
		if wide && i%50 == 7 {
			v += 80 * r.NormFloat64()
		}
		if i > 0 && i%11 == 0 {
			// an exact tie with an earlier score of the other class or its own
			if len(neg) > 0 && i%2 == 0 {
				v = neg[len(neg)-1]
			} else if len(pos) > 0 {
				v = pos[len(pos)-1]
			}
		}
		isPos := r.Float64() < frac
		if i == 0 {
			isPos = true
		} else if i == 1 {
			isPos = false
		}
		if isPos {
			pos = append(pos, v+0.3)
		} else {
			neg = append(neg, v)
		}
	}
	return pos, neg
}

// TestFastPairSums: the fast sums (logistic grid expansion, exact sorted
// squared hinge) against the exact pair sums on random data with ties, 1%
// and 50% positives, n up to 2·10⁴: value and every point's weight within
// the stated bounds, and the bound itself at most 1e-9 of the value.
func TestFastPairSums(t *testing.T) {
	sizes := []int{2, 3, 17, 100, 1000, 5000, 20000}
	if testing.Short() {
		sizes = sizes[:6]
	}
	for _, loss := range []Loss{AUCLogistic, AUCSquaredHinge} {
		for _, n := range sizes {
			for _, frac := range []float64{0.01, 0.5} {
				for _, wide := range []bool{false, true} {
					if n > 5000 && wide {
						continue
					}
					pos, neg := fastScores(n, frac, 3, wide, uint64(n))
					ev, ewp, ewn := exactPairWeights(loss, pos, neg)
					f := newFastPlan(2)
					wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
					fs := f.pairSum(loss, pos, neg, wp, wn, nil)
					slack := 1e-13 * math.Abs(ev)
					if testing.Verbose() {
						t.Logf("%v n=%d frac=%g wide=%v: bins %d, error %.2e, bound %.2e (relative)", loss, n, frac, wide, fs.Bins, math.Abs(fs.Value-ev)/ev, fs.Bound/ev)
					}
					if d := math.Abs(fs.Value - ev); d > fs.Bound+slack {
						t.Errorf("%v n=%d frac=%g wide=%v: value %.17g, exact %.17g, error %.3g > bound %.3g", loss, n, frac, wide, fs.Value, ev, d, fs.Bound)
					}
					if rel := fs.Bound / ev; !(rel <= 1e-9) && !(fs.Bound == 0 && ev == 0) {
						t.Errorf("%v n=%d frac=%g wide=%v: bound %.3g relative to the value (want ≤ 1e-9)", loss, n, frac, wide, rel)
					}
					wslack := 1e-15 * float64(max(len(pos), len(neg)))
					for i := range wp {
						if d := math.Abs(wp[i] - ewp[i]); d > fs.WeightBound+wslack {
							t.Fatalf("%v n=%d frac=%g wide=%v: w[%d] = %.17g, exact %.17g, error %.3g > bound %.3g", loss, n, frac, wide, i, wp[i], ewp[i], d, fs.WeightBound)
						}
					}
					for j := range wn {
						if d := math.Abs(wn[j] - ewn[j]); d > fs.WeightBound+wslack {
							t.Fatalf("%v n=%d frac=%g wide=%v: v[%d] = %.17g, exact %.17g, error %.3g > bound %.3g", loss, n, frac, wide, j, wn[j], ewn[j], d, fs.WeightBound)
						}
					}
				}
			}
		}
	}
}

// TestFastPairSumZero: at θ = 0 every score is 0: one bin, the value is
// |P|·|N|·log 2 to two roundings and every weight −|N|/2 or −|P|/2.
func TestFastPairSumZero(t *testing.T) {
	pos, neg := make([]float64, 10_000), make([]float64, 990_000)
	f := newFastPlan(2)
	wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
	fs := f.pairSum(AUCLogistic, pos, neg, wp, wn, nil)
	want := float64(len(pos)) * float64(len(neg)) * math.Ln2
	if math.Abs(fs.Value-want) > 4e-16*want || fs.Bins != 1 {
		t.Fatalf("value %.17g, want %.17g (bins %d)", fs.Value, want, fs.Bins)
	}
	if wp[0] != -float64(len(neg))/2 || wn[7] != -float64(len(pos))/2 {
		t.Fatalf("weights %v %v", wp[0], wn[7])
	}
}

// TestFastPairSumWorkers: the bits do not depend on the number of workers.
func TestFastPairSumWorkers(t *testing.T) {
	pos, neg := fastScores(30000, 0.3, 4, true, 5)
	var ref FastSum
	var rp, rn []float64
	for _, w := range []int{1, 2, 3, 8} {
		f := newFastPlan(w)
		wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
		fs := f.pairSum(AUCLogistic, pos, neg, wp, wn, nil)
		if w == 1 {
			ref, rp, rn = fs, wp, wn
			continue
		}
		if fs != ref {
			t.Fatalf("workers %d: %+v, 1 worker %+v", w, fs, ref)
		}
		for i := range wp {
			if math.Float64bits(wp[i]) != math.Float64bits(rp[i]) {
				t.Fatalf("workers %d: w[%d] differs", w, i)
			}
		}
		for j := range wn {
			if math.Float64bits(wn[j]) != math.Float64bits(rn[j]) {
				t.Fatalf("workers %d: v[%d] differs", w, j)
			}
		}
	}
}
