package problem

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
)

// The measurement of a user objective (Problem.Obj): the engine knows
// nothing of the loss but Objective's methods, so
//
//   - the objective is the double sum Σ_{i,j} f(θ; x_i, x_j)/n² over the
//     contributing pairs (MethodPairwise: exact), or an incomplete
//     U-statistic over B pairs drawn uniformly from [n]² by the run's
//     counter-based pair stream (MethodSampled), when the exact sum of the
//     evaluated vectors would cost more than the budget (EvalOptions);
//   - the AUC column holds, for an objective that scores points (Scorer),
//     the pairwise ranking accuracy (C-index) over the pairs of different
//     labels, exact by sorting (O(n log n) per vector); NaN otherwise;
//   - the bias term forms the gradients: ε_k = ∇f(θ_k; x_k, x_{aux_k}) −
//     (1/n) Σ_j ∇f(θ_k; x_k, x_j), the sum over j exact or over sampled j's.
//
// Every reduction runs in a fixed order (per vector, or per fixed block of
// pairs added in block order), so the values do not depend on the workers.

// customPairBlock is the number of sampled pairs of one block.
const customPairBlock = 1024

// customEval is the Evaluator's state for a user objective.
type customEval struct {
	pairs   int64 // sampled pairs (0: exact)
	biasJ   int   // sampled j's of the bias term (0: exact)
	scorer  Scorer
	levels  []int32 // each point's label rank (Scorer)
	nLevels int
	comp    float64 // comparable pairs for the C-index (different labels, ordered)
	ws      []customScratch
	blocks  []float64 // sampled objective: per block m sums, Σg, Σg²
	bvals   []float64 // sampled bias: m×biasJ values
	// fast: the objective by the level-by-level fast pair sums
	// (MethodExactFast, a ScoreDifference objective past the budget of
	// the exact pair loop), one serial plan and buffers per worker.
	fast []customFast
}

type customFast struct {
	plan   *fastPlan
	s, buf []float64
}

type customScratch struct {
	g, g2  []float64
	scores []float64
	idx    []int32
	fen    []int64
}

// planCustom chooses the methods for a user objective and allocates their
// buffers. As planEval, it judges every time on one worker, so that the
// choice, the sample sizes and so the trace never depend on the worker
// count (workers sizes the buffers only).
func (e *Evaluator) planCustom() {
	p, m, o := e.p, e.m, e.opt
	n, P := float64(p.N), float64(p.P)
	ce := &customEval{}
	exactCost := float64(m) * n * n * (P + 4)
	e.plan = EvalPlan{Obj: MethodPairwise, AUC: MethodPairwise, Bias: MethodPairwise, Cost: exactCost}
	if o.Mode == EvalSampled || (o.Mode == EvalAuto && exactCost > o.Budget) {
		b := o.Budget / (float64(m) * (P + 4))
		b = math.Max(4*customPairBlock, math.Min(float64(o.MaxPairs), b))
		ce.pairs = int64(math.Ceil(b/customPairBlock)) * customPairBlock
		e.plan.Obj = MethodSampled
		e.plan.MaxPairs = ce.pairs
		e.plan.Cost = float64(m) * float64(ce.pairs) * (P + 4)
		nb := int(ce.pairs / customPairBlock)
		ce.blocks = make([]float64, nb*(m+2))
	}
	// A ScoreDifference objective (ranking, or a user's declaring a smooth
	// AUC surrogate of the score difference) past the exact loop's budget
	// is measured exactly, to the fast sums' bound, when that fits the
	// budget on one worker (so that the choice does not depend on the
	// worker count); each vector's sum by one worker with a serial plan,
	// the same bits for any worker count.
	fastCost := float64(m) * (n*(P+costFastPoint) + costFastFixed)
	if lv := p.levels; o.Mode == EvalAuto && exactCost > o.Budget && lv != nil &&
		(lv.loss == AUCLogistic || lv.loss == AUCSquaredHinge) && fastCost <= o.Budget {
		e.plan.Obj, e.plan.MaxPairs, e.plan.Cost = MethodExactFast, 0, fastCost
		ce.pairs, ce.blocks = 0, nil
		ce.fast = make([]customFast, e.workers)
		for w := range ce.fast {
			ce.fast[w] = customFast{plan: newFastPlan(1), s: make([]float64, p.N), buf: make([]float64, p.N)}
		}
	}
	biasCost := float64(m) * n * 2 * P
	e.plan.BiasCost = biasCost
	if o.Mode == EvalSampled || (o.Mode == EvalAuto && biasCost > o.Budget) {
		ce.biasJ = 4096
		e.plan.Bias = MethodSampled
		e.plan.BiasSamples = int64(ce.biasJ)
		e.plan.BiasCost = float64(m) * float64(ce.biasJ) * 2 * P
		ce.bvals = make([]float64, m*ce.biasJ)
	}
	if sc, ok := p.Obj.(Scorer); ok {
		ce.scorer = sc
		uniq := slices.Clone(p.Label)
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
		ce.nLevels = len(uniq)
		ce.levels = make([]int32, p.N)
		counts := make([]float64, len(uniq))
		for i, l := range p.Label {
			r, _ := slices.BinarySearch(uniq, l)
			ce.levels[i] = int32(r)
			counts[r]++
		}
		sq := 0.0
		for _, c := range counts {
			sq += c * c
		}
		ce.comp = (n*n - sq) / 2
	} else {
		e.plan.AUC = MethodPairwise
	}
	ce.ws = make([]customScratch, e.workers)
	for w := range ce.ws {
		cs := &ce.ws[w]
		cs.g, cs.g2 = make([]float64, p.P), make([]float64, p.P)
		if ce.scorer != nil {
			cs.scores = make([]float64, p.N)
			cs.idx = make([]int32, p.N)
			cs.fen = make([]int64, ce.nLevels+1)
		}
	}
	bytes := int64(len(ce.blocks)+len(ce.bvals)) * 8
	for _, cs := range ce.ws {
		bytes += int64(len(cs.g)+len(cs.g2)+len(cs.scores)+len(cs.fen))*8 + int64(len(cs.idx))*4
	}
	e.plan.Bytes = bytes + int64(e.theta.Rows*e.theta.Stride)*8
	e.custom = ce
}

// customPairSum returns Σ_{i,j} f(θ; x_i, x_j) over the contributing pairs.
func (p *Problem) customPairSum(theta []float64) float64 {
	obj := p.Obj
	var total float64
	for i := 0; i < p.N; i++ {
		xi, li := p.X.Row(i), p.Label[i]
		var r float64
		for j := 0; j < p.N; j++ {
			if obj.Contributes(li, p.Label[j]) {
				r += obj.Loss(theta, xi, p.X.Row(j), i, j)
			}
		}
		total += r
	}
	return total
}

// estimateCustom is Estimate for a user objective.
func (e *Evaluator) estimateCustom(thetas layout.Matrix, rows []int, obj, auc []float64) Estimate {
	p, ce := e.p, e.custom
	e.gather(thetas, rows)
	m := len(rows)
	n2 := float64(p.N) * float64(p.N)
	est := Estimate{Obj: e.plan.Obj, AUC: e.plan.AUC}
	if ce.fast != nil {
		bounds := make([]float64, m)
		xg := p.X.General()
		par.For(m, e.workers, func(w, c int) {
			cf, th := &ce.fast[w], e.theta.Row(c)
			blas64.Gemv(blas.NoTrans, 1, xg, blas64.Vector{N: p.D, Inc: 1, Data: th}, 0, blas64.Vector{N: p.N, Inc: 1, Data: cf.s})
			fs := cf.plan.levelPairSum(p.levels, cf.s, nil, cf.buf, nil, nil, e.stop)
			obj[c], bounds[c] = fs.Value/n2+p.Reg.Value(th), fs.Bound/n2
		})
		for _, b := range bounds {
			est.ObjBound = max(est.ObjBound, b)
		}
	} else if ce.pairs == 0 {
		par.For(m, e.workers, func(_, c int) {
			obj[c] = p.customPairSum(e.theta.Row(c))/n2 + p.Reg.Value(e.theta.Row(c))
		})
	} else {
		est.ObjStdErr, est.Pairs = e.sampledCustom(m, obj)
	}
	if auc != nil {
		if ce.scorer == nil {
			for c := 0; c < m; c++ {
				auc[c] = math.NaN()
			}
		} else {
			par.For(m, e.workers, func(w, c int) { auc[c] = e.cIndex(&ce.ws[w], e.theta.Row(c)) })
		}
	}
	return est
}

// sampledCustom sets obj[c] to the sampled estimate of R_n at the first m
// gathered vectors and returns the standard error of their mean.
func (e *Evaluator) sampledCustom(m int, obj []float64) (se float64, pairs int64) {
	p, ce := e.p, e.custom
	nb := int(ce.pairs / customPairBlock)
	stride := m + 2
	seed := e.opt.Seed
	par.For(nb, e.workers, func(_, blk int) {
		rec := ce.blocks[blk*stride : (blk+1)*stride]
		clear(rec)
		for b := 0; b < customPairBlock; b++ {
			idx := uint64(blk*customPairBlock + b)
			i, j := rng.HashIntN(seed, idx, keyFirst, p.N), rng.HashIntN(seed, idx, keySecond, p.N)
			if !p.Obj.Contributes(p.Label[i], p.Label[j]) {
				continue
			}
			xi, xj := p.X.Row(i), p.X.Row(j)
			var g float64
			for c := 0; c < m; c++ {
				v := p.Obj.Loss(e.theta.Row(c), xi, xj, i, j)
				rec[c] += v
				g += v
			}
			g /= float64(m)
			rec[m] += g
			rec[m+1] += g * g
		}
	})
	var sg, sg2 float64
	for c := range obj[:m] {
		obj[c] = 0
	}
	for blk := 0; blk < nb; blk++ {
		rec := ce.blocks[blk*stride : (blk+1)*stride]
		for c := 0; c < m; c++ {
			obj[c] += rec[c]
		}
		sg += rec[m]
		sg2 += rec[m+1]
	}
	B := float64(ce.pairs)
	for c := 0; c < m; c++ {
		obj[c] = obj[c]/B + p.Reg.Value(e.theta.Row(c))
	}
	mean := sg / B
	variance := math.Max(0, sg2/B-mean*mean) * B / (B - 1)
	return math.Sqrt(variance / B), ce.pairs
}

// cIndex returns the pairwise ranking accuracy of the scores x_iᵀθ (as the
// Scorer gives them): over the pairs with ℓ_i > ℓ_j, the fraction with
// s_i > s_j, ties counting one half. With two labels it is the AUC.
func (e *Evaluator) cIndex(cs *customScratch, theta []float64) float64 {
	p, ce := e.p, e.custom
	for i := 0; i < p.N; i++ {
		cs.scores[i] = ce.scorer.Score(theta, p.X.Row(i))
		cs.idx[i] = int32(i)
	}
	slices.SortFunc(cs.idx, func(a, b int32) int {
		if c := cmp.Compare(cs.scores[a], cs.scores[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	clear(cs.fen)
	var twice float64 // 2 × concordant + tied pairs
	for lo := 0; lo < p.N; {
		hi := lo + 1
		for hi < p.N && cs.scores[cs.idx[hi]] == cs.scores[cs.idx[lo]] {
			hi++
		}
		// Pairs against strictly lower scores: concordant when the level is
		// higher; ties within the group with different levels count half.
		for _, i := range cs.idx[lo:hi] {
			twice += 2 * float64(fenSum(cs.fen, int(ce.levels[i])))
		}
		if hi-lo > 1 {
			g := float64(hi - lo)
			// Σ_l g_l² within the group, by counting levels in a map-free way:
			// sort the group's levels.
			var same float64
			grp := cs.idx[lo:hi]
			slices.SortFunc(grp, func(a, b int32) int { return cmp.Compare(ce.levels[a], ce.levels[b]) })
			for a := 0; a < len(grp); {
				b := a + 1
				for b < len(grp) && ce.levels[grp[b]] == ce.levels[grp[a]] {
					b++
				}
				same += float64(b-a) * float64(b-a)
				a = b
			}
			twice += (g*g - same) / 2
		}
		for _, i := range cs.idx[lo:hi] {
			fenAdd(cs.fen, int(ce.levels[i])+1)
		}
		lo = hi
	}
	if ce.comp == 0 {
		return math.NaN()
	}
	return twice / (2 * ce.comp)
}

// fenAdd adds one at position k (1-based) of a Fenwick tree.
func fenAdd(f []int64, k int) {
	for ; k < len(f); k += k & -k {
		f[k]++
	}
}

// fenSum returns the sum of positions 1..k.
func fenSum(f []int64, k int) int64 {
	var s int64
	for ; k > 0; k -= k & -k {
		s += f[k]
	}
	return s
}

// biasCustom is the bias term for a user objective.
func (e *Evaluator) biasCustom(theta layout.Matrix, aux []int32, rows []int, omega []float64) BiasEstimate {
	p, ce := e.p, e.custom
	if len(rows) == 0 {
		return BiasEstimate{}
	}
	m := len(rows)
	per := make([]float64, m)
	nj := p.N
	if ce.biasJ > 0 {
		nj = ce.biasJ
	}
	seed := e.opt.Seed
	par.For(m, e.workers, func(w, c int) {
		k := rows[c]
		cs := &ce.ws[w]
		th, xk, lk := theta.Row(k), p.X.Row(k), p.Label[k]
		// full: the mean over j of ∇f(θ_k; x_k, x_j)ᵀω.
		var full float64
		for b := 0; b < nj; b++ {
			j := b
			if ce.biasJ > 0 {
				j = rng.HashIntN(seed, uint64(b), keyBias, p.N)
			}
			var v float64
			if p.Obj.Contributes(lk, p.Label[j]) {
				clear(cs.g)
				if p.Obj.Grad(cs.g, 1, th, xk, p.X.Row(j), k, j) {
					v = dot(cs.g, omega)
				}
			}
			if ce.biasJ > 0 {
				ce.bvals[c*nj+b] = v
			}
			full += v
		}
		var est float64
		if j := int(aux[k]); p.Obj.Contributes(lk, p.Label[j]) {
			clear(cs.g2)
			if p.Obj.Grad(cs.g2, 1, th, xk, p.X.Row(j), k, j) {
				est = dot(cs.g2, omega)
			}
		}
		per[c] = est - full/float64(nj)
	})
	var sum float64
	for _, v := range per {
		sum += v
	}
	r := BiasEstimate{Value: sum / float64(m), Method: e.plan.Bias}
	if ce.biasJ > 0 {
		// Standard error over the sampled j's of their mean over the rows.
		var s, s2 float64
		for b := 0; b < nj; b++ {
			var g float64
			for c := 0; c < m; c++ {
				g += ce.bvals[c*nj+b]
			}
			g /= float64(m)
			s += g
			s2 += g * g
		}
		B := float64(nj)
		mean := s / B
		r.StdErr = math.Sqrt(math.Max(0, s2/B-mean*mean) / (B - 1))
		r.Samples = int64(nj)
	}
	return r
}
