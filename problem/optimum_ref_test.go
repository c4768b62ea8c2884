package problem

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The metric-learning solve as it was before issue #18 (commit a5ad84e),
// kept as the reference the new solver is checked and benchmarked against:
// every continuation stage to the final tolerance, the full Gram matrix
// XθXᵀ by two Dgemm, the value-only evaluation through the same products,
// the n² hinge loop serial.

func (p *Problem) refMetricValueGrad(theta, g []float64, mu float64, sc *optScratch, n2 float64) float64 {
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
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, G, xg, 0, A)
	blas64.Gemm(blas.Trans, blas.NoTrans, 2/n2, xg, A, 0, blas64.General{Rows: d, Cols: d, Stride: d, Data: g})
	return total
}

func (p *Problem) refValueGrad(theta, g []float64, mu float64, sc *optScratch) float64 {
	n2 := float64(p.N) * float64(p.N)
	return p.refMetricValueGrad(theta, g, mu, sc, n2) / n2
}

// refSolveMetric is solveFISTA of commit a5ad84e on a metric problem, with
// its evaluations counted.
func (p *Problem) refSolveMetric(opt OptimumOptions) (o Optimum, evals int) {
	if opt.MaxIter <= 0 {
		opt.MaxIter = 3000
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10
	}
	if opt.FinalMu <= 0 {
		opt.FinalMu = 1e-3
	}
	sc := newOptScratch(p)
	eval := func(theta, g []float64, mu float64) float64 {
		evals++
		return p.refValueGrad(theta, g, mu, sc)
	}
	P := p.P
	x := make([]float64, P)
	best := Optimum{Method: "fista", Value: math.Inf(1), Converged: true}
	var mus []float64
	for mu := 1.0; mu > opt.FinalMu*1.0001; mu /= 10 {
		mus = append(mus, mu)
	}
	mus = append(mus, opt.FinalMu)
	best.FinalMu = opt.FinalMu
	y := make([]float64, P)
	xn := make([]float64, P)
	gy := make([]float64, P)
	step := make([]float64, P)
	L := 1.0
	for _, mu := range mus {
		copy(y, x)
		tk := 1.0
		fx := eval(x, nil, mu) + p.Reg.Value(x)
		conv := false
		for it := 0; it < opt.MaxIter; it++ {
			best.Iterations++
			fy := eval(y, gy, mu)
			var fxn float64
			for {
				for i := range step {
					step[i] = y[i] - gy[i]/L
				}
				p.Reg.Prox(xn, step, 1/L, sc.ws)
				fxn = eval(xn, nil, mu)
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
	best.Value = p.refValueGrad(x, nil, 0, sc) + p.Reg.Value(x)
	return best, evals
}

// refAUCPairsSerial is aucPairsSerial of commit a5ad84e: the logistic loss
// and its derivative through MarginLoss and MarginDeriv, two exponentials a
// pair.
func (p *Problem) refAUCPairsSerial(mu float64, sc *optScratch) float64 {
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
	return total
}
