package problem

import (
	"math"
	"sync/atomic"
)

// What a measurement split over processes (package ranks, issue #17) needs
// to reproduce the Evaluator's exact AUC-loss methods (pairwise, sorted,
// streamed) bit for bit once one vector's scores have been brought to one
// process: the pair sums and the AUC from the scores, by the Evaluator's
// own code.

// StreamBlock is the rows per block of X in which the sorted and streamed
// methods compute the scores (one Gemv a block).
const StreamBlock = streamBlock

// ExactPairSums returns, for one parameter vector θ of an AUC loss whose
// scores x_iᵀθ over the positives and over the negatives, each in index
// order, are posS and negS, the pair sum Σ_{i∈P, j∈N} φ(s_i − s_j) (when
// wantObj) and the AUC (when wantAUC) exactly as the Evaluator's method
// computes them: MethodPairwise as evalPairwise does, MethodSorted and
// MethodStreamed (and MethodExactFast, the logistic by the fast sums) as
// sortedEval does (NaN, NaN when a score is NaN). posS and
// negS are reordered. The objective of the vector is sum/n² + ψ(θ).
//
// stop (nil: never) is looked at as the Evaluator's cancellable sums look
// at it, between pieces of the O(n₊n₋) pair sums: once it is set they
// return early and the results are partial, for the caller to drop.
func ExactPairSums(loss Loss, method EvalMethod, posS, negS []float64, wantObj, wantAUC bool, stop *atomic.Bool) (sum, auc float64) {
	if loss.IsMetric() || method == MethodSampled {
		panic("problem: ExactPairSums is for the exact methods of the AUC losses")
	}
	if method == MethodPairwise {
		var en []float64
		if loss == AUCLogistic {
			en = make([]float64, len(negS))
		}
		if wantObj {
			sum = aucPairSum(loss, posS, negS, en, stop)
		}
		if wantAUC {
			auc = aucSorted(posS, negS)
		}
		return sum, auc
	}
	for _, s := range [][]float64{posS, negS} {
		for _, v := range s {
			if v != v {
				return math.NaN(), math.NaN()
			}
		}
	}
	if wantObj && loss == AUCLogistic {
		if method == MethodExactFast {
			// As sortedEval: one serial plan on the scores in index order.
			sum = newFastPlan(1).pairSum(AUCLogistic, posS, negS, nil, nil, stop).Value
		} else {
			sum = logisticPairSum(posS, negS, make([]float64, len(negS)), stop)
		}
	}
	if (wantObj && loss != AUCLogistic) || wantAUC {
		tmp := make([]float64, max(len(posS), len(negS)))
		hist := make([]int, radixPasses*radixBuckets)
		radixSort(posS, tmp, hist)
		radixSort(negS, tmp, hist)
	}
	if wantObj && loss != AUCLogistic {
		sum = sortedPairSum(loss, posS, negS)
	}
	if wantAUC {
		auc = sortedAUC(posS, negS)
	}
	return sum, auc
}
