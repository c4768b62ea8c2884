package problem

import (
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
)

func TestRadixSort(t *testing.T) {
	s := rng.New(3, 0)
	hist := make([]int, radixPasses*radixBuckets)
	for _, n := range []int{0, 1, 7, 255, 256, 1000, 20000} {
		for _, kind := range []string{"normal", "wide", "ties", "constant"} {
			a := make([]float64, n)
			for i := range a {
				switch kind {
				case "normal":
					a[i] = s.Normal()
				case "wide":
					a[i] = s.Normal() * math.Exp(40*s.Normal())
				case "ties":
					a[i] = float64(s.IntN(5)) - 2 // includes 0
				case "constant":
					a[i] = -1.5
				}
			}
			if n > 3 {
				a[0], a[1] = math.Inf(1), math.Inf(-1)
			}
			want := slices.Clone(a)
			slices.Sort(want)
			radixSort(a, make([]float64, n), hist)
			if !slices.Equal(a, want) {
				t.Fatalf("n=%d %s: radix sort differs from slices.Sort", n, kind)
			}
		}
	}
}

// TestSortedPairSums: the hinge and squared-hinge pair sums from the sorted
// scores equal the pair-by-pair ones (aucPairSum, the pairwise method) to
// relative 1e-12, and the AUC by one sweep equals aucSorted's bits.
func TestSortedPairSums(t *testing.T) {
	s := rng.New(4, 0)
	for trial := 0; trial < 60; trial++ {
		np, nn := 1+s.IntN(400), 1+s.IntN(400)
		scale := math.Pow(10, float64(s.IntN(5)-2)) // 0.01 … 100
		shift := scale * s.Normal() * 3
		pos, neg := make([]float64, np), make([]float64, nn)
		for i := range pos {
			pos[i] = shift + scale*s.Normal() + 0.5*scale
		}
		for j := range neg {
			neg[j] = shift + scale*s.Normal()
			if trial%5 == 0 && j < nn/3 {
				neg[j] = pos[s.IntN(np)] // ties
			}
		}
		hist := make([]int, radixPasses*radixBuckets)
		ps, ns := slices.Clone(pos), slices.Clone(neg)
		radixSort(ps, make([]float64, np), hist)
		radixSort(ns, make([]float64, nn), hist)
		for _, loss := range []Loss{AUCHinge, AUCSquaredHinge} {
			want := aucPairSum(loss, slices.Clone(pos), slices.Clone(neg), nil, nil)
			got := sortedPairSum(loss, ps, ns)
			if math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Fatalf("trial %d %s: sorted sum %.17g, pairwise %.17g (rel %.2g)", trial, loss, got, want, math.Abs(got-want)/math.Abs(want))
			}
		}
		if a, b := sortedAUC(ps, ns), aucSorted(slices.Clone(pos), slices.Clone(neg)); a != b {
			t.Fatalf("trial %d: sweep AUC %v, aucSorted %v", trial, a, b)
		}
	}
}

func randThetas(t testing.TB, p *Problem, k int, scale float64, seed uint64) layout.Matrix {
	t.Helper()
	s := rng.New(seed, 0)
	th := layout.New(k, p.P)
	for r := 0; r < k; r++ {
		copy(th.Row(r), randVec(s, p.P, scale))
		if p.Loss.IsMetric() {
			symmetric(th.Row(r), p.D)
		}
	}
	return th
}

// TestExactMethodsAgree: the sorted and streamed exact methods (forced by a
// memory budget too small for the pairwise one) give the pairwise values to
// rounding, objective, AUC and bias term, for any number of workers.
func TestExactMethodsAgree(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{Kind: RegL2Sq, Lambda: 0.01}, 600, 4, 5)
		th := randThetas(t, p, 6, 0.4, 7)
		clear(th.Row(1)) // θ = 0, as at a run's first record (metric: the streamed sum's zero shortcut)
		rows := []int{5, 0, 2, 3}
		ref := p.NewEvaluator(len(rows), 2)
		if pl := ref.Plan(); pl.Obj != MethodPairwise || pl.Bias != MethodPairwise {
			t.Fatalf("%s: n=600 plan %+v, want pairwise", loss, pl)
		}
		want, wantAUC := make([]float64, 4), make([]float64, 4)
		ref.Eval(th, rows, want, wantAUC)
		aux := make([]int32, p.N)
		s := rng.New(8, 0)
		for k := range aux {
			aux[k] = int32(s.IntN(p.N))
		}
		omega := randVec(s, p.P, 1)
		wantBias := ref.Bias(th, aux, rows, omega)
		for _, workers := range []int{1, 3} {
			e := p.NewEvaluatorWith(len(rows), workers, EvalOptions{Mode: EvalExact, MemBudget: 1})
			pl := e.Plan()
			if pl.Obj == MethodPairwise || pl.Obj == MethodSampled || pl.Bias != MethodStreamed {
				t.Fatalf("%s: plan %+v", loss, pl)
			}
			obj, auc := make([]float64, 4), make([]float64, 4)
			est := e.Estimate(th, rows, obj, auc)
			if est.ObjStdErr != 0 || est.AUCStdErr != 0 || est.Pairs != 0 {
				t.Fatalf("%s: exact estimate %+v", loss, est)
			}
			for c := range rows {
				if math.Abs(obj[c]-want[c]) > 1e-12*math.Abs(want[c]) {
					t.Errorf("%s workers=%d: %s objective %.17g, pairwise %.17g", loss, workers, pl.Obj, obj[c], want[c])
				}
				if !loss.IsMetric() && auc[c] != wantAUC[c] {
					t.Errorf("%s: sorted AUC %v, pairwise %v", loss, auc[c], wantAUC[c])
				}
				if loss.IsMetric() && !math.IsNaN(auc[c]) {
					t.Errorf("metric AUC %v, want NaN", auc[c])
				}
			}
			b := e.BiasEstimate(th, aux, rows, omega)
			if math.Abs(b.Value-wantBias) > 1e-10*math.Max(1, math.Abs(wantBias)) || b.StdErr != 0 || b.Method != MethodStreamed {
				t.Errorf("%s: streamed bias %+v, pairwise %g", loss, b, wantBias)
			}
		}
	}
}

// TestSampledCoverage: at small n the sampled objective, AUC and bias term
// agree with the exact ones within their reported errors: the intervals
// estimate ± 1.96·SE cover the exact value in about 95% of seeds.
func TestSampledCoverage(t *testing.T) {
	seeds := 240
	if testing.Short() {
		seeds = 100
	}
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		n := 300
		if loss.IsMetric() {
			n = 200
		}
		p := randomProblem(t, loss, Regularizer{Kind: RegL1, Lambda: 0.01}, n, 3, 11)
		for _, scale := range []float64{0.3, 1.5} {
			th := randThetas(t, p, 5, scale, 12)
			rows := []int{0, 1, 2, 3, 4}
			want, wantAUC := make([]float64, 5), make([]float64, 5)
			p.NewEvaluator(5, 2).Eval(th, rows, want, wantAUC)
			aux := make([]int32, p.N)
			s := rng.New(13, 0)
			for k := range aux {
				aux[k] = int32(s.IntN(p.N))
			}
			omega := randVec(s, p.P, 1)
			wantBias := p.NewEvaluator(5, 2).Bias(th, aux, rows, omega)
			mean := func(v []float64) float64 {
				var s float64
				for _, x := range v {
					s += x
				}
				return s / float64(len(v))
			}
			wo, wa := mean(want), mean(wantAUC)
			var covObj, covAUC, covBias int
			var pairs int64
			obj, auc := make([]float64, 5), make([]float64, 5)
			for seed := 0; seed < seeds; seed++ {
				e := p.NewEvaluatorWith(5, 2, EvalOptions{Mode: EvalSampled, Seed: uint64(seed), Precision: 0.03, Budget: 2e6})
				est := e.Estimate(th, rows, obj, auc)
				pairs += est.Pairs
				if est.Obj != MethodSampled || !(est.ObjStdErr > 0) {
					t.Fatalf("%s: estimate %+v", loss, est)
				}
				if math.Abs(mean(obj)-wo) <= 1.96*est.ObjStdErr {
					covObj++
				}
				if !loss.IsMetric() && math.Abs(mean(auc)-wa) <= 1.96*est.AUCStdErr {
					covAUC++
				}
				b := e.BiasEstimate(th, aux, rows, omega)
				if math.Abs(b.Value-wantBias) <= 1.96*b.StdErr {
					covBias++
				}
			}
			check := func(what string, k int) {
				f := float64(k) / float64(seeds)
				t.Logf("%s θ scale %g: %s coverage %.3f (mean pairs %d)", loss, scale, what, f, pairs/int64(seeds))
				if lo := 0.90 - 0.04*float64(btoi(testing.Short())); f < lo || f > 0.99+0.01*float64(btoi(testing.Short())) {
					t.Errorf("%s θ scale %g: %s coverage %.3f outside [0.90, 0.99]", loss, scale, what, f)
				}
			}
			check("objective", covObj)
			if !loss.IsMetric() {
				check("AUC", covAUC)
			}
			check("bias", covBias)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSampledDeterministic: the sampled values are the same bits for any
// number of workers, and the same pairs serve every call (common random
// numbers: evaluating one vector alone gives its value in a batch).
func TestSampledDeterministic(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{}, 150, 3, 21)
		th := randThetas(t, p, 4, 0.5, 22)
		rows := []int{3, 1, 0}
		var ref []float64
		var refEst Estimate
		for _, workers := range []int{1, 2, 5} {
			e := p.NewEvaluatorWith(3, workers, EvalOptions{Mode: EvalSampled, Seed: 9})
			obj, auc := make([]float64, 3), make([]float64, 3)
			est := e.Estimate(th, rows, obj, auc)
			all := append(obj, auc...)
			if ref == nil {
				ref, refEst = all, est
				continue
			}
			for i := range all {
				if math.Float64bits(all[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%s: workers=%d changed value %d: %v vs %v", loss, workers, i, all[i], ref[i])
				}
			}
			if est != refEst {
				t.Fatalf("%s: workers=%d estimate %+v vs %+v", loss, workers, est, refEst)
			}
		}
	}
}

// TestEvalPlan: the automatic rule picks the pairwise method at small n
// (today's numbers, the paper's sizes), sampling at n = 10⁶ and 10⁷ under
// the default budget, and — under a budget of 2·10⁹ units — the sorted forms
// at n = 10⁶ for the hinge losses and the AUC; the buffers never hold m×n
// scores outside the pairwise method.
func TestEvalPlan(t *testing.T) {
	for _, c := range []struct {
		loss       Loss
		n, m       int
		obj, auc   EvalMethod
		bias       EvalMethod
		maxSeconds float64
		budget     float64 // 0: DefaultBudget
	}{
		{AUCLogistic, 683, 75, MethodPairwise, MethodPairwise, MethodPairwise, 1, 0},
		{AUCHinge, 5000, 16, MethodPairwise, MethodPairwise, MethodPairwise, 1, 0},
		{MetricHinge, 1000, 16, MethodPairwise, MethodPairwise, MethodPairwise, 1, 0},
		{AUCHinge, 1_000_000, 16, MethodSampled, MethodSampled, MethodStreamed, 0.6, 0},
		{AUCLogistic, 1_000_000, 16, MethodSampled, MethodSampled, MethodSampled, 0.6, 0},
		{AUCHinge, 1_000_000, 16, MethodSorted, MethodSorted, MethodStreamed, 3, 2e9},
		{AUCSquaredHinge, 1_000_000, 16, MethodSorted, MethodSorted, MethodStreamed, 3, 2e9},
		{AUCLogistic, 1_000_000, 16, MethodSampled, MethodSorted, MethodStreamed, 3, 2e9},
		{AUCHinge, 10_000_000, 16, MethodSampled, MethodSampled, MethodSampled, 2, 2e9},
		{AUCLogistic, 10_000_000, 16, MethodSampled, MethodSampled, MethodSampled, 2, 2e9},
		{AUCLogistic, 10_000_000, 16, MethodSampled, MethodSampled, MethodSampled, 0.6, 0},
		{MetricHinge, 10_000_000, 16, MethodSampled, MethodPairwise, MethodSampled, 2, 2e9},
		// The fast logistic sums where one or two vectors are measured
		// (the centralized algorithm, --eval-nodes 1).
		{AUCLogistic, 100_000, 1, MethodExactFast, MethodSorted, MethodStreamed, 0.3, 0},
		{AUCLogistic, 1_000_000, 1, MethodExactFast, MethodSorted, MethodStreamed, 0.3, 0},
		{AUCLogistic, 1_000_000, 16, MethodExactFast, MethodSorted, MethodStreamed, 3, 4e9},
	} {
		sh := evalShape{c.loss, c.n, c.n / 2, c.n - c.n/2, 16, c.loss.ParamDim(16)}
		pl := planEval(sh, c.m, 2, EvalOptions{Budget: c.budget}.withDefaults())
		if pl.Obj != c.obj || pl.AUC != c.auc || pl.Bias != c.bias {
			t.Errorf("%s n=%d: plan obj %s auc %s bias %s, want %s %s %s", c.loss, c.n, pl.Obj, pl.AUC, pl.Bias, c.obj, c.auc, c.bias)
		}
		if s := (pl.Cost + pl.BiasCost) * 1e-9; s > c.maxSeconds {
			t.Errorf("%s n=%d: estimated %.2f s", c.loss, c.n, s)
		}
		// (With one vector the O(n) buffers of any method exceed m·n·8/2.)
		if pl.Obj != MethodPairwise && c.m > 1 && pl.Bytes > int64(c.m)*int64(c.n)*8/2 {
			t.Errorf("%s n=%d: %s plan holds %d B, not below m·n·8/2", c.loss, c.n, pl.Obj, pl.Bytes)
		}
		t.Logf("%s n=%d m=%d: %+v", c.loss, c.n, c.m, pl)
	}
}

// TestBiasSeesStop: the streamed and sampled bias sums look at SetStop's
// flag between their pieces of pairs (a Ctrl-C during a measurement of
// many nodes): with the flag set none of the pair sum is taken, so the
// value is the per-node terms' mean alone, and cleared they give the same
// bits as an evaluator that has no flag.
func TestBiasSeesStop(t *testing.T) {
	p := randomProblem(t, AUCLogistic, Regularizer{}, 600, 4, 5)
	th := randThetas(t, p, 6, 0.4, 7)
	rows := []int{5, 0, 2, 3}
	aux := make([]int32, p.N)
	s := rng.New(8, 0)
	for k := range aux {
		aux[k] = int32(s.IntN(p.N))
	}
	omega := randVec(s, p.P, 1)
	for _, mode := range []EvalMode{EvalExact, EvalSampled} {
		free := p.NewEvaluatorWith(len(rows), 2, EvalOptions{Mode: mode, MemBudget: 1})
		want := free.BiasEstimate(th, aux, rows, omega)
		e := p.NewEvaluatorWith(len(rows), 2, EvalOptions{Mode: mode, MemBudget: 1})
		var stop atomic.Bool
		e.SetStop(&stop)
		if got := e.BiasEstimate(th, aux, rows, omega); got != want {
			t.Errorf("%v, flag clear: %+v, without a flag %+v", mode, got, want)
		}
		stop.Store(true)
		got := e.BiasEstimate(th, aux, rows, omega)
		var terms float64
		for _, k := range rows {
			j := int(aux[k])
			if p.Label[k] == 1 && p.Label[j] == -1 {
				terms += p.Loss.MarginDeriv(dot(th.Row(k), p.X.Row(k))-dot(th.Row(k), p.X.Row(j))) * (dot(omega, p.X.Row(k)) - dot(omega, p.X.Row(j)))
			}
		}
		if math.Abs(got.Value-terms/float64(len(rows))) > 1e-12*math.Max(1, math.Abs(terms)) || got.Value == want.Value {
			t.Errorf("%v, flag set: %v, the per-node terms' mean %v (the whole estimate %v)", mode, got.Value, terms/float64(len(rows)), want.Value)
		}
	}
}
