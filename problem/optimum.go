package problem

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/optimize"
)

// Optimum is the result of the centralized full-batch solver.
type Optimum struct {
	// Value is R_n(θ*) evaluated exactly (no smoothing) at Theta.
	Value float64
	Theta []float64
	// Method is "lbfgs" (smooth loss, ψ = 0 or squared ℓ2) or "fista" (an
	// accelerated proximal gradient method with backtracking and restarts;
	// the hinge losses are Huber-smoothed with a parameter μ decreased to
	// FinalMu, so Value exceeds the true optimum by at most FinalMu/2).
	Method     string
	FinalMu    float64
	Iterations int
	Converged  bool
}

// OptimumOptions tunes the solver; the zero value gives the defaults.
type OptimumOptions struct {
	MaxIter int     // per stage; default 3000
	Tol     float64 // relative step tolerance; default 1e-10
	FinalMu float64 // hinge smoothing reached at the end; default 1e-4 (AUC), 1e-3 (metric)
}

// Solve computes the centralized optimum R_n(θ*) with a deterministic
// full-batch method (the reference line of the suboptimality plots).
func (p *Problem) Solve(opt OptimumOptions) (Optimum, error) {
	if opt.MaxIter <= 0 {
		opt.MaxIter = 3000
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10
	}
	if opt.FinalMu <= 0 {
		opt.FinalMu = 1e-4
		if p.Loss.IsMetric() {
			opt.FinalMu = 1e-3
		}
	}
	sc := newOptScratch(p)
	if p.Loss.Smooth() && (p.Reg.Kind == RegNone || p.Reg.Kind == RegL2Sq) {
		return p.solveLBFGS(sc, opt)
	}
	return p.solveFISTA(sc, opt)
}

type optScratch struct {
	s, w []float64 // scores, per-point weights (AUC)
	a, g []float64 // metric: n×d, n×n
	ws   *Workspace
}

func newOptScratch(p *Problem) *optScratch {
	sc := &optScratch{s: make([]float64, p.N), w: make([]float64, p.N), ws: p.NewWorkspace()}
	if p.Loss.IsMetric() {
		sc.a = make([]float64, p.N*p.D)
		sc.g = make([]float64, p.N*p.N)
	}
	return sc
}

// huber is the smoothed hinge h_μ(v) ≈ max(0, v) and its derivative.
func huber(v, mu float64) (float64, float64) {
	switch {
	case v <= 0:
		return 0, 0
	case mu > 0 && v < mu:
		return v * v / (2 * mu), v / mu
	default:
		return v - mu/2, 1
	}
}

// smoothValueGrad returns (1/n²) Σ f_μ(θ) and, when g != nil, its gradient,
// where f_μ is f with the hinge Huber-smoothed by μ (μ = 0: exact).
func (p *Problem) smoothValueGrad(theta, g []float64, mu float64, sc *optScratch) float64 {
	n2 := float64(p.N) * float64(p.N)
	if p.Loss.IsMetric() {
		return p.metricValueGrad(theta, g, mu, sc, n2) / n2
	}
	xg := p.X.General()
	blas64.Gemv(blas.NoTrans, 1, xg, blas64.Vector{N: p.D, Inc: 1, Data: theta}, 0, blas64.Vector{N: p.N, Inc: 1, Data: sc.s})
	clear(sc.w)
	var total float64
	for _, i := range p.pos {
		si := sc.s[i]
		var r, wi float64
		for _, j := range p.neg {
			m := si - sc.s[j]
			var v, dv float64
			if p.Loss == AUCHinge {
				var h float64
				h, dv = huber(1-m, mu)
				v, dv = h, -dv
			} else {
				v, dv = p.Loss.MarginLoss(m), p.Loss.MarginDeriv(m)
			}
			r += v
			wi += dv
			sc.w[j] -= dv
		}
		total += r
		sc.w[i] += wi
	}
	if g != nil {
		blas64.Gemv(blas.Trans, 1/n2, xg, blas64.Vector{N: p.N, Inc: 1, Data: sc.w}, 0, blas64.Vector{N: p.D, Inc: 1, Data: g})
	}
	return total / n2
}

// metricValueGrad returns Σ_{i,j} h_μ(1 − s_ij(b − D_ij)) and sets g to its
// gradient divided by n2, 2·Xᵀ(diag(W1) − W)X/n2 with W_ij = s_ij h'_μ.
func (p *Problem) metricValueGrad(theta, g []float64, mu float64, sc *optScratch, n2 float64) float64 {
	n, d := p.N, p.D
	xg := p.X.General()
	A := blas64.General{Rows: n, Cols: d, Stride: d, Data: sc.a}
	G := blas64.General{Rows: n, Cols: n, Stride: n, Data: sc.g}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, xg, blas64.General{Rows: d, Cols: d, Stride: d, Data: theta}, 0, A)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, A, xg, 0, G)
	q := sc.s
	for i := 0; i < n; i++ {
		q[i] = sc.g[i*n+i]
	}
	hd, _ := huber(1-p.B, mu)
	total := hd * float64(n)
	// Overwrite G's strict upper triangle with W_ij, then symmetrise.
	for i := 0; i < n; i++ {
		var r float64
		for j := i + 1; j < n; j++ {
			dij := q[i] + q[j] - sc.g[i*n+j] - sc.g[j*n+i]
			s := p.sign(i, j)
			h, dh := huber(1-s*(p.B-dij), mu)
			r += h
			sc.g[i*n+j] = s * dh
		}
		total += 2 * r
	}
	if g == nil {
		return total
	}
	for i := 0; i < n; i++ {
		sc.g[i*n+i] = 0
		for j := i + 1; j < n; j++ {
			sc.g[j*n+i] = sc.g[i*n+j]
		}
	}
	// M = diag(W1) − W.
	for i := 0; i < n; i++ {
		var rs float64
		for j := 0; j < n; j++ {
			rs += sc.g[i*n+j]
		}
		row := sc.g[i*n : i*n+n]
		for j := range row {
			row[j] = -row[j]
		}
		row[i] += rs
	}
	// T = M X (n×d) into A; g = 2 Xᵀ T.
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, G, xg, 0, A)
	blas64.Gemm(blas.Trans, blas.NoTrans, 2/n2, xg, A, 0, blas64.General{Rows: d, Cols: d, Stride: d, Data: g})
	return total
}

func (p *Problem) solveLBFGS(sc *optScratch, opt OptimumOptions) (Optimum, error) {
	lam := 0.0
	if p.Reg.Kind == RegL2Sq {
		lam = p.Reg.Lambda
	}
	// gonum evaluates the value and then the gradient at the same point
	// (and the value alone in line searches): Func computes both in one
	// pass over the pairs, and Grad takes the gradient from that pass when
	// it is asked for the same x. The value is the same either way, so the
	// iterates are too.
	gx, gc := make([]float64, p.P), make([]float64, p.P)
	cached := false
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			v := p.smoothValueGrad(x, gc, 0, sc)
			copy(gx, x)
			cached = true
			for _, t := range x {
				v += lam * t * t
			}
			return v
		},
		Grad: func(grad, x []float64) {
			if cached && slices.Equal(gx, x) {
				copy(grad, gc)
			} else {
				p.smoothValueGrad(x, grad, 0, sc)
			}
			for i, t := range x {
				grad[i] += 2 * lam * t
			}
		},
	}
	settings := &optimize.Settings{GradientThreshold: 1e-12, MajorIterations: opt.MaxIter, Converger: &optimize.FunctionConverge{Absolute: 1e-15, Relative: 1e-15, Iterations: 50}}
	res, err := optimize.Minimize(prob, make([]float64, p.P), settings, &optimize.LBFGS{})
	if err != nil && res == nil {
		return Optimum{}, fmt.Errorf("optimum: %w", err)
	}
	o := Optimum{Theta: res.X, Method: "lbfgs", Iterations: res.Stats.MajorIterations,
		Converged: res.Status == optimize.GradientThreshold || res.Status == optimize.FunctionConvergence}
	o.Value = p.smoothValueGrad(o.Theta, nil, 0, sc) + p.Reg.Value(o.Theta)
	return o, nil
}

func (p *Problem) solveFISTA(sc *optScratch, opt OptimumOptions) (Optimum, error) {
	P := p.P
	x := make([]float64, P)
	best := Optimum{Method: "fista", Value: math.Inf(1), Converged: true}
	mus := []float64{0}
	if !p.Loss.Smooth() {
		mus = mus[:0]
		for mu := 1.0; mu > opt.FinalMu*1.0001; mu /= 10 {
			mus = append(mus, mu)
		}
		mus = append(mus, opt.FinalMu)
		best.FinalMu = opt.FinalMu
	}
	y := make([]float64, P)
	xn := make([]float64, P)
	gy := make([]float64, P)
	step := make([]float64, P)
	L := 1.0
	for _, mu := range mus {
		copy(y, x)
		tk := 1.0
		fx := p.smoothValueGrad(x, nil, mu, sc) + p.Reg.Value(x)
		conv := false
		for it := 0; it < opt.MaxIter; it++ {
			best.Iterations++
			fy := p.smoothValueGrad(y, gy, mu, sc)
			var fxn float64
			for {
				for i := range step {
					step[i] = y[i] - gy[i]/L
				}
				p.Reg.Prox(xn, step, 1/L, sc.ws)
				fxn = p.smoothValueGrad(xn, nil, mu, sc)
				var lin, sq float64
				for i := range xn {
					dlt := xn[i] - y[i]
					lin += gy[i] * dlt
					sq += dlt * dlt
				}
				if fxn <= fy+lin+L/2*sq*(1+1e-12)+1e-18 || L > 1e300 {
					break
				}
				L *= 2
			}
			Fxn := fxn + p.Reg.Value(xn)
			var dx, nx float64
			for i := range xn {
				dx += (xn[i] - x[i]) * (xn[i] - x[i])
				nx += x[i] * x[i]
			}
			if Fxn > fx {
				// Adaptive restart: drop the momentum, retry from x.
				tk = 1
				copy(y, x)
				if math.Sqrt(dx) <= opt.Tol*math.Max(1, math.Sqrt(nx)) {
					conv = true
					break
				}
				continue
			}
			tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
			for i := range y {
				y[i] = xn[i] + (tk-1)/tn*(xn[i]-x[i])
			}
			copy(x, xn)
			fx, tk = Fxn, tn
			L *= 0.95
			if math.Sqrt(dx) <= opt.Tol*math.Max(1, math.Sqrt(nx)) {
				conv = true
				break
			}
		}
		best.Converged = best.Converged && conv
	}
	best.Theta = x
	best.Value = p.smoothValueGrad(x, nil, 0, sc) + p.Reg.Value(x)
	return best, nil
}
