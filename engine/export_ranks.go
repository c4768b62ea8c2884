package engine

import "github.com/pairgossip/pairgossip/problem"

// The engine's arithmetic that the synchronous run over MPI ranks (package
// ranks) repeats on its share of the nodes, bit for bit: exported here so
// that ranks calls the engine's own code instead of keeping copies of it.

// MarginScaled returns Σ (x[i] − y[i])·(c·z[i]), the margin at θ = c·z,
// with the reference's rounding (the synchronous executors' marginScaled).
func MarginScaled(x, y, z []float64, c float64) float64 { return marginScaled(x, y, z, c) }

// LinearScale returns c with θ = π_t(z) = c·z for clock t and step γ under
// the regulariser reg, whose smoothing operator must be linear (none,
// squared ℓ2): the executors' own scale (state.linearScale).
func LinearScale(reg problem.Regularizer, gamma, t float64) float64 {
	s := state{prob: &problem.Problem{Reg: reg}}
	return s.linearScale(gamma, t)
}

// EvalCount is the number of nodes a measurement evaluates in a run of cfg
// over n nodes, one a row (npos of them positive, dimension d, for the cost
// of a node's objective under loss): Config.EvalNodes, or for 0 all of
// them while affordable, else a sample (evalCountShape).
func EvalCount(loss problem.Loss, n, npos, d int, cfg Config) int {
	return evalCountShape(loss, n, npos, d, cfg, n)
}
