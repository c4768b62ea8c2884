package kernel

import "math"

// Log1pSum returns Σ log1p(c·e[i]) = Σ log(1 + c·e[i]), for c·e[i] in
// [0, 2⁹⁹⁹] (NaN propagates; other inputs give unspecified numbers). The
// AUC logistic objective is a sum of such terms: with e[j] = exp(s_j) over
// the negative scores and c = exp(−s_i) for a positive one, it is the pair
// sum Σ_j log(1 + exp(s_j − s_i)) with one logarithm per pair.
//
// Reference (the generic implementation):
//
//	for _, ei := range e {
//		x := ei * c
//		u := 1 + x
//		if u == 1 {
//			r += x // log1p(x) = x to within rounding
//		} else {
//			r += math.Log(u) * x / (u - 1) // log1p(x) to a few ulp (Goldberg, Thm. 4)
//		}
//	}
//
// The assembly implementations compute each term with the same operations,
// log(u) by the algorithm of Go's portable math.log without FMA (a sweep
// of 10⁶ values c·e from 1e-300 to 1e300 had the reference's bits on every
// term, bench/results/engine-tuning.md; TestLog1pSumTerms asserts 4 ulp), and
// add the terms in one accumulator per lane: the sum agrees with the
// reference to within (8 + 4n)·2⁻⁵³·Σ terms.
func Log1pSum(e []float64, c float64) float64 {
	f := cur.Load()
	var r float64
	for f.bounded && len(e) > chunk {
		r += f.log1pSum(ptr(e), chunk, c)
		e = e[chunk:]
	}
	if len(e) == 0 {
		return r
	}
	return r + f.log1pSum(ptr(e), len(e), c)
}

func log1pSumGeneric(e []float64, c float64) float64 {
	var r float64
	for _, ei := range e {
		x := ei * c
		u := 1 + x
		if u == 1 {
			r += x
		} else {
			r += math.Log(u) * x / (u - 1)
		}
	}
	return r
}
