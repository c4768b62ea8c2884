package engine

import "github.com/pairgossip/pairgossip/problem"

// The linear fast path: AUC losses with ψ = 0 or squared ℓ2, where the
// smoothing operator is linear, θ = c·z with c = −γ(t)/(1 + 2tγ(t)λ). A node's
// update is then one fused pass over its record,
//
//	z += w·(x − y);  θ = c·z;  θ̄ = a·θ̄ + b·θ,
//
// after the margin m = (x − y)ᵀθ that gives w = scale·φ'(m) when the pair
// contributes (ℓ_k > ℓ_y; otherwise w = 0). With ψ = 0 this is bit-identical
// to the generic path (problem.PairGrad, Regularizer.Smooth, avg); with
// squared ℓ2 the scale factor is folded into c, which changes rounding only.

// linear reports whether the fast path applies.
func (s *Sim) linear() bool {
	return !s.prob.Loss.IsMetric() && s.prob.Reg.Linear()
}

// smoothScale returns c with θ = c·z for clock t and step γ.
func (s *Sim) smoothScale(gamma, t float64) float64 {
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return -gamma / (1 + 2*t*gamma*r.Lambda)
	}
	return -gamma
}

// pairWeight returns scale·φ'(m) for node k and auxiliary point j, or 0 when
// the pair does not contribute, with m = (x_k − x_j)ᵀθ_k.
func (s *Sim) pairWeight(k, j int, scale float64) float64 {
	lab := s.prob.Label
	if lab[k] <= lab[j] {
		return 0
	}
	return scale * s.prob.Loss.MarginDeriv(marginRow(s.X.Row(k), s.X.Row(j), s.Theta.Row(k)))
}

// marginRow returns Σ (x[i] − y[i])·t[i].
func marginRow(x, y, t []float64) float64 {
	y, t = y[:len(x)], t[:len(x)]
	var m float64
	for i := range x {
		m += (x[i] - y[i]) * t[i]
	}
	return m
}

// linearUpdate is the fused row update; it reports whether θ̄ stayed finite.
func linearUpdate(z, th, bar, x, y []float64, w, c, a, b float64) bool {
	n := len(z)
	th, bar, x, y = th[:n], bar[:n], x[:n], y[:n]
	var acc float64
	for i := range z {
		zi := z[i] + w*(x[i]-y[i])
		z[i] = zi
		ti := c * zi
		th[i] = ti
		bi := a*bar[i] + b*ti
		bar[i] = bi
		acc += bi - bi
	}
	return acc == 0
}
