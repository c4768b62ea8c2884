package problem

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestExactPairSumsStop: ExactPairSums looks at stop: set, the logistic's
// O(n₊n₋) pair sums (pairwise, streamed, fast) return early, partial or
// NaN, for the caller to drop (package ranks' cut measurement); unset or
// nil, they are the whole sums, the same with either.
func TestExactPairSumsStop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	scores := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return s
	}
	pos, neg := scores(300), scores(400)
	for _, m := range []EvalMethod{MethodPairwise, MethodStreamed, MethodExactFast} {
		whole, _ := ExactPairSums(AUCLogistic, m, append([]float64(nil), pos...), append([]float64(nil), neg...), true, false, nil)
		var unset atomic.Bool
		same, _ := ExactPairSums(AUCLogistic, m, append([]float64(nil), pos...), append([]float64(nil), neg...), true, false, &unset)
		var set atomic.Bool
		set.Store(true)
		cut, _ := ExactPairSums(AUCLogistic, m, append([]float64(nil), pos...), append([]float64(nil), neg...), true, false, &set)
		if !(whole > 0) || same != whole {
			t.Errorf("%s: whole %g, with an unset stop %g", m, whole, same)
		}
		if cut == whole || (!math.IsNaN(cut) && cut >= whole) {
			t.Errorf("%s: with stop set %g, the whole sum %g: want it cut short", m, cut, whole)
		}
	}
}
