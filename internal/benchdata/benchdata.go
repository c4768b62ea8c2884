// Package benchdata builds the random problems that the benchmarks (cmd/bench
// and bench/) time, so that both measure the same work for the same seed.
package benchdata

import (
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/problem"
)

// AUC returns an AUC logistic problem (ψ = 0) on n Gaussian points of
// dimension d, about a third of them positive and shifted by 0.5 so that the
// task is learnable.
func AUC(n, d int, seed uint64) (*problem.Problem, error) {
	s := rng.New(seed, 11)
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := 0; i < n; i++ {
		lab[i] = -1
		shift := 0.0
		if s.IntN(3) == 0 {
			lab[i], shift = 1, 0.5
		}
		for a := 0; a < d; a++ {
			x[i*d+a] = s.Normal() + shift
		}
	}
	return problem.New(problem.AUCLogistic, problem.Regularizer{}, 1, n, d, x, lab)
}
