package problem

import (
	"fmt"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
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

// BenchmarkFastPairSum: one fast logistic pair sum, value alone and with
// the weights, 30% positives, scores of spread 3 (go test ./problem -run '^$'
// -bench FastPairSum -count 5); exact: the pair loop of the solver at 2·10⁴.
func BenchmarkFastPairSum(b *testing.B) {
	for _, n := range []int{20_000, 1_000_000, 10_000_000} {
		pos, neg := fastScores(n, 0.3, 3, false, 1)
		wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
		for _, grad := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/value", n)
			if grad {
				name = fmt.Sprintf("n=%d/grad", n)
			}
			b.Run(name, func(b *testing.B) {
				f := newFastPlan(0)
				for b.Loop() {
					if grad {
						f.pairSum(AUCLogistic, pos, neg, wp, wn, nil)
					} else {
						f.pairSum(AUCLogistic, pos, neg, nil, nil, nil)
					}
				}
			})
		}
	}
	pos, neg := fastScores(20_000, 0.3, 3, false, 1)
	b.Run("n=20000/exact", func(b *testing.B) {
		for b.Loop() {
			exactPairWeights(AUCLogistic, pos, neg)
		}
	})
}

// TestEvalExactFast: where the automatic plan takes the fast logistic sums
// (here a small budget at n = 5000), the measured objective equals the
// pairwise method's within the bound Estimate reports, with no sampling,
// the AUC is the same, and at θ = 0 the objective is (|P|·|N|/n²)·log 2
// to rounding and the AUC exactly ½.
func TestEvalExactFast(t *testing.T) {
	p := randomProblem(t, AUCLogistic, Regularizer{}, 5000, 8, 4)
	e := p.NewEvaluatorWith(3, 2, EvalOptions{Budget: 6e6})
	if pl := e.Plan(); pl.Obj != MethodExactFast || pl.AUC != MethodSorted {
		t.Fatalf("plan %+v", pl)
	}
	ref := p.NewEvaluatorWith(3, 2, EvalOptions{Mode: EvalExact})
	th := layout.New(3, p.P)
	for c := 1; c < 3; c++ {
		for k, v := range randVec(rng.New(uint64(c), 9), p.P, float64(c)) {
			th.Row(c)[k] = v
		}
	}
	rows := []int{0, 1, 2}
	obj, auc, robj, rauc := make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3)
	est := e.Estimate(th, rows, obj, auc)
	ref.Estimate(th, rows, robj, rauc)
	if est.Obj != MethodExactFast || est.ObjStdErr != 0 || est.Pairs != 0 || !(est.ObjBound > 0) {
		t.Fatalf("estimate %+v", est)
	}
	for c := range rows {
		if d := math.Abs(obj[c] - robj[c]); d > est.ObjBound+1e-14*robj[c] || est.ObjBound > 1e-9*robj[c] {
			t.Errorf("vector %d: %.17g, exact %.17g, bound %g", c, obj[c], robj[c], est.ObjBound)
		}
		if auc[c] != rauc[c] {
			t.Errorf("vector %d: AUC %v, exact %v", c, auc[c], rauc[c])
		}
	}
	n := float64(p.N)
	want := float64(len(p.pos)) / n * float64(len(p.neg)) / n * math.Ln2
	if math.Abs(obj[0]-want) > 1e-15*want || auc[0] != 0.5 {
		t.Errorf("θ = 0: objective %.17g, want %.17g; AUC %v", obj[0], want, auc[0])
	}
}
