package problem

import (
	"math"

	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/internal/par"
)

// The centralized optimum of a user objective (Problem.Obj). Solve picks:
//
//   - L-BFGS (gonum/optimize) when the objective says it is smooth
//     (ObjectiveInfo.Smooth) and ψ is none or squared ℓ2, as for the
//     built-in logistic loss;
//   - otherwise, when the objective implements HuberSmoother, the
//     accelerated proximal gradient method of the built-in hinge losses
//     (solveFISTA) with its hinge Huber-smoothed by μ decreased to
//     OptimumOptions.FinalMu: Value exceeds the optimum by at most about
//     FinalMu/2 (the smoothing gap of each pair's hinge);
//   - otherwise (a non-smooth loss the engine can only take subgradients
//     of) the stated fallback: the proximal subgradient method with steps
//     η_k = η₀/√k, keeping the best iterate (Method "subgradient"). It
//     converges slowly (error O(1/√k)), so its Value is an upper bound on
//     the optimum, not a tight one; Converged is false.
//
// The full-batch value and gradient are the double sum over the
// contributing pairs through Objective's methods, split into fixed segments
// of i added in segment order (deterministic for any worker count).

// smooth reports whether the loss is differentiable everywhere.
func (p *Problem) smooth() bool {
	if p.Obj != nil {
		return p.Obj.Info().Smooth
	}
	return p.Loss.Smooth()
}

const customSegments = 64

// objScratch is the solver's state for a user objective: the goroutines
// its sums may use (OptimumOptions.Workers) and the first panic of its
// methods. The solvers may evaluate on a goroutine of their own (gonum's
// L-BFGS does), where a panic could not be recovered by Solve: it is
// recovered in customValueGrad, every later evaluation returns NaN at once
// (the solver stops soon, calling no user code) and Solve returns the panic.
type objScratch struct {
	workers  int
	panicked *guard.PanicError
}

// raise is deferred by Solve: the recovered panic, if any, is its error.
func (s *objScratch) raise(o *Optimum, err *error) {
	if s.panicked != nil {
		*o, *err = Optimum{}, s.panicked
	}
}

// customValueGrad returns (1/n²) Σ f_μ over the contributing pairs and, when
// g != nil, sets g to its gradient; μ > 0 smooths the hinge of a
// HuberSmoother objective (ignored otherwise).
func (p *Problem) customValueGrad(theta, g []float64, mu float64, sc *optScratch) (value float64) {
	if sc.obj.panicked != nil {
		return math.NaN()
	}
	defer func() {
		if v := recover(); v != nil {
			sc.obj.panicked, value = guard.Capture(v), math.NaN()
		}
	}()
	n2 := float64(p.N) * float64(p.N)
	P := p.P
	if len(sc.segG) == 0 {
		sc.segG = make([]float64, customSegments*P)
		sc.segV = make([]float64, customSegments)
	}
	hs, _ := p.Obj.(HuberSmoother)
	par.For(customSegments, sc.obj.workers, func(_, s int) {
		var gs []float64
		if g != nil {
			gs = sc.segG[s*P : (s+1)*P]
			clear(gs)
		}
		var v float64
		for i := s * p.N / customSegments; i < (s+1)*p.N/customSegments; i++ {
			xi, li := p.X.Row(i), p.Label[i]
			var r float64
			for j := 0; j < p.N; j++ {
				if !p.Obj.Contributes(li, p.Label[j]) {
					continue
				}
				xj := p.X.Row(j)
				if hs != nil && mu > 0 {
					r += hs.SmoothLoss(gs, 1/n2, theta, xi, xj, i, j, mu)
					continue
				}
				r += p.Obj.Loss(theta, xi, xj, i, j)
				if gs != nil {
					p.Obj.Grad(gs, 1/n2, theta, xi, xj, i, j)
				}
			}
			v += r
		}
		sc.segV[s] = v
	})
	var total float64
	if g != nil {
		clear(g)
	}
	for s := 0; s < customSegments; s++ {
		total += sc.segV[s]
		if g != nil {
			for a, x := range sc.segG[s*P : (s+1)*P] {
				g[a] += x
			}
		}
	}
	return total / n2
}

// solveSubgradient is the fallback for a non-smooth objective without a
// smoothing: proximal subgradient steps θ ← prox_{ηψ}(θ − η g), η = η₀/√k,
// with η₀ = 1/‖g₀‖ (a unit first step), keeping the best iterate.
func (p *Problem) solveSubgradient(sc *optScratch, opt OptimumOptions) (Optimum, error) {
	P := p.P
	x := make([]float64, P)
	g := make([]float64, P)
	best := Optimum{Method: "subgradient", Value: math.Inf(1), Theta: make([]float64, P)}
	eta0 := 0.0
	for k := 1; k <= opt.MaxIter; k++ {
		v := p.customValueGrad(x, g, 0, sc) + p.Reg.Value(x)
		if v < best.Value {
			best.Value = v
			copy(best.Theta, x)
		}
		if eta0 == 0 {
			ng := norm2(g)
			if ng == 0 {
				best.Converged = true
				break
			}
			eta0 = 1 / ng
		}
		eta := eta0 / math.Sqrt(float64(k))
		for a := range x {
			x[a] -= eta * g[a]
		}
		p.Reg.Prox(x, x, eta, sc.ws)
		best.Iterations = k
	}
	return best, nil
}
