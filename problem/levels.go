package problem

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// ScoreDifference is implemented by an Objective that declares its pair
// loss to be a built-in AUC surrogate of the score difference:
//
//	f(θ; x_i, x_j) = 1{ℓ_i > ℓ_j} φ((x_i − x_j)ᵀθ),  θ ∈ R^d,
//
// with φ = ScoreDifferenceLoss() (AUCLogistic, AUCHinge or AUCSquaredHinge;
// Loss.MarginLoss) — multipartite ranking (Ranking) and bipartite AUC are
// such objectives. The declaration is read once, when the problem is built
// (NewObjective), and checked there against Contributes on the labels
// present; the engine never verifies Loss against φ, so an objective that
// declares it must compute exactly that loss. It is restricted to these
// surrogates because the fast pair sums (fastsum.go) need φ in closed form:
// the logistic's expansion uses derivatives of every order, the squared
// hinge its piecewise-quadratic form. In return, with the logistic or
// squared-hinge surrogate, ψ none or squared ℓ2 and at least 2^20
// contributing pairs, the centralized optimum is solved on the fast sums
// level by level (Problem.FastOptimum), at O(L·n) per evaluation for L
// levels, instead of the n² pair sum.
type ScoreDifference interface {
	ScoreDifferenceLoss() Loss
}

// ScoreDifferenceLoss implements ScoreDifference.
func (r *Ranking) ScoreDifferenceLoss() Loss { return r.Surrogate }

// maxFastLevels bounds the number of levels of the level-by-level fast sums
// (each level costs one two-class sum over the points below it).
const maxFastLevels = 64

// levelSet is the points ordered by level (increasing, ties in index
// order): level a occupies order[start[a]:start[a+1]].
type levelSet struct {
	loss  Loss
	order []int32
	start []int
	pairs float64 // Σ_a |level a|·|levels < a|
}

// scoreDifferenceLevels reads obj's ScoreDifference declaration (nil when
// it has none, its θ is not a vector of d, or it has more than
// maxFastLevels levels) and checks it against Contributes on the labels
// present.
func scoreDifferenceLevels(obj Objective, in ObjectiveInfo, d int, labels []int32) (*levelSet, error) {
	sd, ok := obj.(ScoreDifference)
	if !ok || in.Matrix || in.ParamDim(d) != d {
		return nil, nil
	}
	loss := sd.ScoreDifferenceLoss()
	switch loss {
	case AUCLogistic, AUCHinge, AUCSquaredHinge:
	default:
		return nil, fmt.Errorf("problem: %s declares a score-difference loss %s; it must be an AUC surrogate (logistic, hinge, squared hinge)", in.Name, loss)
	}
	lv := slices.Clone(labels)
	slices.Sort(lv)
	lv = slices.Compact(lv)
	if len(lv) > maxFastLevels {
		return nil, nil
	}
	for _, a := range lv {
		for _, b := range lv {
			if obj.Contributes(a, b) != (a > b) {
				return nil, fmt.Errorf("problem: %s declares a score-difference loss (pairs with ℓ_i > ℓ_j), but Contributes(%d, %d) = %v", in.Name, a, b, !(a > b))
			}
		}
	}
	ls := &levelSet{loss: loss, order: make([]int32, len(labels)), start: make([]int, len(lv)+1)}
	for i := range ls.order {
		ls.order[i] = int32(i)
	}
	slices.SortStableFunc(ls.order, func(x, y int32) int { return int(labels[x]) - int(labels[y]) })
	a := 0
	for k, i := range ls.order {
		for labels[i] != lv[a] {
			a++
			ls.start[a] = k
		}
	}
	for a++; a <= len(lv); a++ {
		ls.start[a] = len(labels)
	}
	for a := 1; a < len(lv); a++ {
		ls.pairs += float64(ls.start[a+1]-ls.start[a]) * float64(ls.start[a])
	}
	return ls, nil
}

// levelPairSum is the pair sum Σ_{ℓ_i > ℓ_j} φ(s_i − s_j) of scores s
// (indexed by point) level by level: for a = 1..L−1 the two-class fast sum
// of level a against the union of the levels below (a prefix of the level
// order). When w != nil it is set to each point's gradient weight: its
// weights as the higher side minus its weights as the lower side, added in
// level order. buf holds the scores in level order and wp, wn the weights
// (len n each). The bounds of the L−1 sums add up.
func (f *fastPlan) levelPairSum(ls *levelSet, s, w, buf, wp, wn []float64, stop *atomic.Bool) FastSum {
	for k, i := range ls.order {
		buf[k] = s[i]
	}
	if w != nil {
		clear(w)
	}
	var res FastSum
	res.Exact = true
	for a := 1; a+1 < len(ls.start); a++ {
		lo, hi := ls.start[a], ls.start[a+1]
		if lo == 0 || hi == lo {
			continue
		}
		var gp, gn []float64
		if w != nil {
			gp, gn = wp[:hi-lo], wn[:lo]
		}
		fs := f.pairSum(ls.loss, buf[lo:hi], buf[:lo], gp, gn, stop)
		res.Value += fs.Value
		res.Bound += fs.Bound
		res.WeightBound += fs.WeightBound
		res.Exact = res.Exact && fs.Exact
		if w != nil {
			for k, v := range gp {
				w[ls.order[lo+k]] += v
			}
			for k, v := range gn {
				w[ls.order[k]] -= v
			}
		}
	}
	if res.Value != res.Value {
		res.Bound = math.NaN()
	}
	return res
}

// levelValueGrad is fastValueGrad for an objective with levels
// (ScoreDifference): the scores by one product, the level sums, the
// gradient Xᵀw/n².
func (p *Problem) levelValueGrad(theta, g []float64, sc *optScratch) float64 {
	if sc.stopped() {
		return math.NaN()
	}
	n2 := float64(p.N) * float64(p.N)
	xg := p.X.General()
	blas64.Gemv(blas.NoTrans, 1, xg, blas64.Vector{N: p.D, Inc: 1, Data: theta}, 0, blas64.Vector{N: p.N, Inc: 1, Data: sc.s})
	var w []float64
	if g != nil {
		w = sc.w
	}
	fs := sc.fast.levelPairSum(p.levels, sc.s, w, sc.fastPos, sc.fastWP, sc.fastWN, sc.stop)
	sc.fastBound = fs.Bound
	sc.fast.exact = fs.Exact
	if g != nil {
		blas64.Gemv(blas.Trans, 1/n2, xg, blas64.Vector{N: p.N, Inc: 1, Data: sc.w}, 0, blas64.Vector{N: p.D, Inc: 1, Data: g})
	}
	return fs.Value / n2
}
