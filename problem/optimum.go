package problem

import (
	"context"
	"fmt"
	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/internal/par"
	"gonum.org/v1/gonum/floats"
	"math"
	"slices"
	"sync/atomic"

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
	//
	// "lbfgs-fast (bound …)" is L-BFGS on the fast pair sums (fastsum.go)
	// of a problem with FastOptimum: Value is the fast sum at Theta, within
	// ErrorBound of R_n(Theta) (the bound in the name is relative to
	// Value).
	//
	// "incomplete-u (B pairs)" is metric learning's optimum of the
	// objective restricted to B sampled pairs (incomplete.go): Value is
	// that sampled objective at Theta, StdErr its standard error.
	Method     string
	ErrorBound float64 // bound on |Value − R_n(Theta)|; 0 for the exact methods
	StdErr     float64 // incomplete-u: the sampled value's standard error
	FinalMu    float64
	Iterations int
	Converged  bool
}

// OptimumOptions tunes the solver; the zero value gives the defaults.
type OptimumOptions struct {
	MaxIter int     // per stage; default 3000
	Tol     float64 // relative step tolerance; default 1e-10
	FinalMu float64 // hinge smoothing reached at the end; default 1e-4 (AUC), 1e-3 (metric)
	// Workers bounds the goroutines that call a user objective's methods
	// at once (0: GOMAXPROCS; 1: one goroutine at a time; see Objective).
	// The result does not depend on it.
	Workers int
	// Context, if not nil, stops the solve when it is cancelled: Solve
	// then returns an error wrapping Context's error (context.Canceled
	// for an interrupt). It is checked at every evaluation of the
	// objective and, within one, at every positive point (AUC) or block of
	// rows (metric learning), so an interrupt is seen within a fraction of
	// an evaluation; a solve that is not cancelled gives the same bits as
	// without it. Neither Workers nor Context is part of what determines
	// the optimum (SolveDefaults, the optimum cache's key).
	Context context.Context
	// IncompletePairs > 0 (metric learning): solve the incomplete-U
	// optimum on that many pairs drawn with IncompleteSeed (incomplete.go)
	// instead of the exact one. Both determine the result.
	IncompletePairs int64
	IncompleteSeed  uint64
}

// Solve computes the centralized optimum R_n(θ*) with a deterministic
// full-batch method (the reference line of the suboptimality plots). A
// panic of a user objective's method is returned as a *PanicError.
func (p *Problem) Solve(opt OptimumOptions) (o Optimum, err error) {
	defer guard.Recover(&err)
	opt = p.SolveDefaults(opt)
	if ctx := opt.Context; ctx != nil {
		if err := ctx.Err(); err != nil {
			return Optimum{}, fmt.Errorf("optimum: %w", err)
		}
	}
	var sc *optScratch
	if opt.IncompletePairs > 0 && p.Loss.IsMetric() {
		sc = &optScratch{s: make([]float64, p.N), w: make([]float64, p.N), ws: p.NewWorkspace(), e: make([]float64, p.D*p.D)}
		sc.inc = newIncU(p, opt.IncompletePairs, opt.IncompleteSeed)
	} else {
		sc = newOptScratch(p)
	}
	sc.obj.workers = opt.Workers
	defer sc.obj.raise(&o, &err)
	if ctx := opt.Context; ctx != nil {
		sc.stop = new(atomic.Bool)
		release := context.AfterFunc(ctx, func() { sc.stop.Store(true) })
		defer release()
	}
	o, err = p.solve(sc, opt)
	if sc.inc != nil && err == nil {
		// The last evaluation was Value's, at Theta.
		o.Method, o.StdErr = incMethod(sc.inc.b), sc.inc.stdErr()
	}
	if sc.stopped() {
		// The values of an interrupted evaluation are partial sums:
		// nothing of this solve is returned.
		return Optimum{}, fmt.Errorf("optimum: %w", opt.Context.Err())
	}
	return o, err
}

func (p *Problem) solve(sc *optScratch, opt OptimumOptions) (Optimum, error) {
	if p.smooth() && (p.Reg.Kind == RegNone || p.Reg.Kind == RegL2Sq) {
		return p.solveLBFGS(sc, opt)
	}
	if p.Obj != nil && !p.smooth() {
		if _, ok := p.Obj.(HuberSmoother); !ok {
			return p.solveSubgradient(sc, opt)
		}
	}
	return p.solveFISTA(sc, opt)
}

// SolveDefaults returns opt with the defaults Solve applies filled in: the
// options that determine its result (the optimum cache's key).
func (p *Problem) SolveDefaults(opt OptimumOptions) OptimumOptions {
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
	return opt
}

// stopped reports whether the solve's context was cancelled (never, without
// one).
func (sc *optScratch) stopped() bool { return sc.stop != nil && sc.stop.Load() }

// errStopped ends a solver's loop when its context is cancelled; Solve
// replaces it with the context's error.
var errStopped = fmt.Errorf("optimum: stopped")

// stopRecorder ends gonum's L-BFGS at the first operation after the
// solve's context is cancelled.
type stopRecorder struct{ sc *optScratch }

func (stopRecorder) Init() error { return nil }

func (r stopRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	if r.sc.stopped() {
		return errStopped
	}
	return nil
}

type optScratch struct {
	s, w []float64 // scores, per-point weights (AUC)
	a, g []float64 // metric: n×d, n×n
	// Metric (initMetric): the class-sorted points and their transpose,
	// each point's end of class run, the per-block partial values and
	// column sums of metricValueGrad, and a d×d product.
	xs, xt, blkTot, blkCol, e []float64
	classEnd                  []int32
	ws                        *Workspace
	obj                       objScratch // a user objective's (custom_optimum.go)
	// AUC with at least optChunkedPairs pairs: the positives in optChunks
	// fixed chunks, each with its partial sum and its own weights of the
	// negatives (optChunks × |N|), reduced in chunk order.
	chunkTot  []float64
	chunkWNeg []float64
	// A user objective's per-segment gradients and values (custom_optimum.go).
	segG, segV []float64
	evals      int // objective evaluations by solveFISTA
	// stop is set when OptimumOptions.Context is cancelled (nil without
	// one): the pair sums end early, their values partial.
	stop *atomic.Bool
	// The fast pair sums (FastOptimum): the plan, the classes' scores and
	// weights, the last evaluation's bound on the pair sum.
	fast                             *fastPlan
	fastPos, fastNeg, fastWP, fastWN []float64
	fastBound                        float64
	// inc: the incomplete-U optimum's sampled pairs (incomplete.go).
	inc *incU
}

// FastOptimum reports whether Solve takes the fast pair sums (fastsum.go):
// a built-in smooth AUC loss (logistic, squared hinge), or a user objective
// declaring one of them as its score-difference loss (ScoreDifference:
// multipartite ranking, level by level), with ψ none or squared ℓ2, from
// optChunkedPairs contributing pairs (below, the paper's sizes, the exact
// sums as before). Its cost is O(n·d) per evaluation (O(L·n + n·d) with L
// levels), so the optimum is in reach at any n.
func (p *Problem) FastOptimum() bool {
	if p.Reg.Kind != RegNone && p.Reg.Kind != RegL2Sq {
		return false
	}
	if p.Obj != nil {
		ls := p.levels
		return ls != nil && (ls.loss == AUCLogistic || ls.loss == AUCSquaredHinge) && ls.pairs >= fastOptimumPairs
	}
	return (p.Loss == AUCLogistic || p.Loss == AUCSquaredHinge) &&
		float64(len(p.pos))*float64(len(p.neg)) >= fastOptimumPairs
}

// fastOptimumPairs is where FastOptimum starts (a variable for the tests
// that compare with the exact solve).
var fastOptimumPairs float64 = optChunkedPairs

// fastValueGrad is smoothValueGrad (μ = 0) by the fast pair sums: the
// scores by one product, the pair sum and the per-point weights of the
// gradient from fastPlan.pairSum, the gradient Xᵀw/n². sc.fastBound is the
// pair sum's bound.
func (p *Problem) fastValueGrad(theta, g []float64, sc *optScratch) float64 {
	if sc.stopped() {
		return math.NaN()
	}
	n2 := float64(p.N) * float64(p.N)
	xg := p.X.General()
	blas64.Gemv(blas.NoTrans, 1, xg, blas64.Vector{N: p.D, Inc: 1, Data: theta}, 0, blas64.Vector{N: p.N, Inc: 1, Data: sc.s})
	for k, i := range p.pos {
		sc.fastPos[k] = sc.s[i]
	}
	for k, j := range p.neg {
		sc.fastNeg[k] = sc.s[j]
	}
	var wp, wn []float64
	if g != nil {
		wp, wn = sc.fastWP, sc.fastWN
	}
	fs := sc.fast.pairSum(p.Loss, sc.fastPos, sc.fastNeg, wp, wn, sc.stop)
	sc.fastBound = fs.Bound
	if g != nil {
		for k, i := range p.pos {
			sc.w[i] = wp[k]
		}
		for k, j := range p.neg {
			sc.w[j] = -wn[k]
		}
		blas64.Gemv(blas.Trans, 1/n2, xg, blas64.Vector{N: p.N, Inc: 1, Data: sc.w}, 0, blas64.Vector{N: p.D, Inc: 1, Data: g})
	}
	return fs.Value / n2
}

// optChunks is the number of fixed chunks of positives the full-batch AUC
// objective is split into, and optChunkedPairs the size from which it is:
// the chunks depend on the problem only, so the solve gives the same bits
// for any number of cores. Below, one serial loop (the paper's sizes).
const (
	optChunks       = 32
	optChunkedPairs = 1 << 20
)

func newOptScratch(p *Problem) *optScratch {
	sc := &optScratch{s: make([]float64, p.N), w: make([]float64, p.N), ws: p.NewWorkspace()}
	if p.Loss.IsMetric() {
		sc.initMetric(p)
	} else if p.Loss != Custom && float64(len(p.pos))*float64(len(p.neg)) >= optChunkedPairs {
		sc.chunkTot = make([]float64, optChunks)
		sc.chunkWNeg = make([]float64, optChunks*len(p.neg))
	}
	return sc
}

// aucPairsChunked is the pair sum of smoothValueGrad over fixed chunks of
// the positives, in parallel: sc.w of the positives is set, of the
// negatives summed over the chunks in order.
func (p *Problem) aucPairsChunked(mu float64, sc *optScratch) float64 {
	nn := len(p.neg)
	c := min(optChunks, len(p.pos))
	logistic := p.Loss == AUCLogistic
	par.Chunks(c, 1, 0, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			wn := sc.chunkWNeg[k*nn : (k+1)*nn]
			clear(wn)
			var total float64
			for _, i := range p.pos[k*len(p.pos)/c : (k+1)*len(p.pos)/c] {
				if sc.stopped() {
					break
				}
				si := sc.s[i]
				var r, wi float64
				for jj, j := range p.neg {
					m := si - sc.s[j]
					var v, dv float64
					if logistic {
						v, dv = LogisticMargin(m)
					} else {
						v, dv = p.marginValueDeriv(m, mu)
					}
					r += v
					wi += dv
					wn[jj] -= dv
				}
				total += r
				sc.w[i] = wi
			}
			sc.chunkTot[k] = total
		}
	})
	par.Chunks(nn, 4096, 0, func(lo, hi int) {
		for jj := lo; jj < hi; jj++ {
			var w float64
			for k := 0; k < c; k++ {
				w += sc.chunkWNeg[k*nn+jj]
			}
			sc.w[p.neg[jj]] = w
		}
	})
	var total float64
	for _, t := range sc.chunkTot[:c] {
		total += t
	}
	return total
}

// marginValueDeriv is φ(m) and φ'(m) of the AUC loss, the hinge smoothed
// by μ; the logistic loss from one exponential (LogisticMargin, the same
// bits as MarginLoss and MarginDeriv).
func (p *Problem) marginValueDeriv(m, mu float64) (float64, float64) {
	switch p.Loss {
	case AUCLogistic:
		return LogisticMargin(m)
	case AUCHinge:
		h, dh := huber(1-m, mu)
		return h, -dh
	}
	return p.Loss.MarginLoss(m), p.Loss.MarginDeriv(m)
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
	if sc.stopped() {
		return math.NaN()
	}
	if p.Obj != nil {
		return p.customValueGrad(theta, g, mu, sc)
	}
	if sc.inc != nil {
		return p.incValueGrad(theta, g, mu, sc)
	}
	n2 := float64(p.N) * float64(p.N)
	if p.Loss.IsMetric() {
		return p.metricValueGrad(theta, g, mu, sc, n2) / n2
	}
	xg := p.X.General()
	blas64.Gemv(blas.NoTrans, 1, xg, blas64.Vector{N: p.D, Inc: 1, Data: theta}, 0, blas64.Vector{N: p.N, Inc: 1, Data: sc.s})
	var total float64
	if sc.chunkTot != nil {
		total = p.aucPairsChunked(mu, sc)
	} else {
		total = p.aucPairsSerial(mu, sc)
	}
	if g != nil {
		blas64.Gemv(blas.Trans, 1/n2, xg, blas64.Vector{N: p.N, Inc: 1, Data: sc.w}, 0, blas64.Vector{N: p.D, Inc: 1, Data: g})
	}
	return total / n2
}

// aucPairsSerial is the pair sum of smoothValueGrad in one loop, setting
// sc.w (below optChunkedPairs).
func (p *Problem) aucPairsSerial(mu float64, sc *optScratch) float64 {
	clear(sc.w)
	logistic := p.Loss == AUCLogistic
	var total float64
	for _, i := range p.pos {
		if sc.stopped() {
			break
		}
		si := sc.s[i]
		var r, wi float64
		for _, j := range p.neg {
			m := si - sc.s[j]
			var v, dv float64
			if logistic {
				v, dv = LogisticMargin(m)
			} else {
				v, dv = p.marginValueDeriv(m, mu)
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

// metricRows is the number of rows of the fixed blocks the metric
// objective is evaluated over (in parallel; the blocks depend on n only, so
// the bits do not depend on the number of cores).
const metricRows = 32

// initMetric sets up the metric objective's buffers: the points sorted by
// class (the objective is a sum over all pairs, so the order of the points
// is free; sorted, the sign s_ij is +1 on one run of j and −1 on the rest
// of a row), as xs (n×d, dense) and xt = xsᵀ (d×n), and each point's end
// of class run.
func (sc *optScratch) initMetric(p *Problem) {
	n, d := p.N, p.D
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return int(p.Label[a]) - int(p.Label[b]) })
	sc.xs = make([]float64, n*d)
	sc.xt = make([]float64, d*n)
	sc.classEnd = make([]int32, n)
	for i, k := range perm {
		copy(sc.xs[i*d:i*d+d], p.X.Row(k))
		for c := 0; c < d; c++ {
			sc.xt[c*n+i] = sc.xs[i*d+c]
		}
	}
	for e := n; e > 0; {
		s := e - 1
		for s > 0 && p.Label[perm[s-1]] == p.Label[perm[e-1]] {
			s--
		}
		for i := s; i < e; i++ {
			sc.classEnd[i] = int32(e)
		}
		e = s
	}
	nb := (n + metricRows - 1) / metricRows
	sc.a = make([]float64, n*d)
	sc.g = make([]float64, n*n)
	sc.e = make([]float64, d*d)
	sc.blkTot = make([]float64, nb)
	sc.blkCol = make([]float64, nb*n)
}

// metricValueGrad returns Σ_{i,j} h_μ(1 − s_ij(b − D_ij)) and, when g != nil,
// sets g to its gradient divided by n2, 2·Xᵀ(diag(W1) − W)X/n2 with W_ij =
// s_ij h'_μ. With θ replaced by its symmetric part (which leaves D_ij
// as it is), D_ij = q_i + q_j − 2G_ij with G = XθXᵀ and q = diag G, and
// only G's upper triangle is formed: for each block of metricRows rows
// [lo, hi), one product (Xθ)[lo:hi]·Xᵀ[:, lo:n], then the hinge terms of
// those rows, overwriting G with U, the strict upper triangle of W. The
// gradient needs no full W: Xᵀ(diag(W1) − W)X = Xᵀdiag(r)X − C − Cᵀ with
// r = U1 + Uᵀ1 and C = Xᵀ(UX), where UX is one more product per block over
// the same triangle; the column sums Uᵀ1 are kept per block and added in
// block order. Cost: n²d/2 multiply-adds for the value, n²d with the
// gradient (the full Gram matrix and the full n×n product before). X is
// the class-sorted copy of initMetric. The products without a transpose go
// through gemmNN (gonum's Dgemm's bits on amd64, AVX-512 rows instead of its
// SSE2 axpy: the solve's value is unchanged to the bit, its CPU time about
// a third lower; BenchmarkMetricSolve).
func (p *Problem) metricValueGrad(theta, g []float64, mu float64, sc *optScratch, n2 float64) float64 {
	n, d := p.N, p.D
	xs := blas64.General{Rows: n, Cols: d, Stride: d, Data: sc.xs}
	A := blas64.General{Rows: n, Cols: d, Stride: d, Data: sc.a}
	// D_ij depends on θ's symmetric part only: (θ + θᵀ)/2, which is θ
	// itself, bit for bit, for the symmetric iterates of the solver.
	ts := sc.e
	for k := 0; k < d; k++ {
		for l := k; l < d; l++ {
			v := (theta[k*d+l] + theta[l*d+k]) / 2
			ts[k*d+l], ts[l*d+k] = v, v
		}
	}
	gemmNN(xs, blas64.General{Rows: d, Cols: d, Stride: d, Data: ts}, A)
	q := sc.s
	for i := 0; i < n; i++ {
		q[i] = floats.Dot(sc.a[i*d:i*d+d], sc.xs[i*d:i*d+d])
	}
	grad := g != nil
	b := p.B
	nb := len(sc.blkTot)
	par.Chunks(nb, 1, 0, func(blo, bhi int) {
		for blk := blo; blk < bhi; blk++ {
			if sc.stopped() {
				break
			}
			lo, hi := blk*metricRows, min((blk+1)*metricRows, n)
			w := n - lo
			Gb := blas64.General{Rows: hi - lo, Cols: w, Stride: n, Data: sc.g[lo*n+lo:]}
			gemmNN(blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: sc.a[lo*d:]},
				blas64.General{Rows: d, Cols: w, Stride: n, Data: sc.xt[lo:]}, Gb)
			var cs []float64
			if grad {
				cs = sc.blkCol[blk*n : blk*n+n]
				clear(cs[lo:])
			}
			var total float64
			for i := lo; i < hi; i++ {
				row := sc.g[i*n : i*n+n]
				ce := int(sc.classEnd[i])
				// Same class (s = +1): v = 1 − b + D; other classes
				// (s = −1): v = 1 + b − D.
				h1, r1 := hingeRun(row[i+1:ce], q[i+1:ce], q[i], 1, 1-b, mu, cs[min(i+1, len(cs)):], grad)
				h2, r2 := hingeRun(row[ce:], q[ce:], q[i], -1, 1+b, mu, cs[min(ce, len(cs)):], grad)
				total += h1 + h2
				if grad {
					clear(row[lo : i+1])
					sc.w[i] = r1 + r2 // U's row sum
				}
			}
			sc.blkTot[blk] = total
			if grad {
				// (UX)[lo:hi] over U[lo:hi, lo:n] (zero left of the
				// diagonal), into (Xθ)[lo:hi], which no other block reads.
				gemmNN(Gb, blas64.General{Rows: w, Cols: d, Stride: d, Data: sc.xs[lo*d:]},
					blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: sc.a[lo*d:]})
			}
		}
	})
	hd, _ := huber(1-b, mu)
	total := hd * float64(n)
	var off float64
	for _, t := range sc.blkTot {
		off += t
	}
	total += 2 * off
	if !grad {
		return total
	}
	// a_i = r_i x_i − 2(UX)_i, E = Xᵀa: E + Eᵀ = 2(Xᵀdiag(r)X − C − Cᵀ).
	par.Chunks(n, 256, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := sc.w[i]
			// Column i of U has entries in the rows above i only: the
			// blocks up to i's own, in order.
			for blk := 0; blk <= i/metricRows; blk++ {
				r += sc.blkCol[blk*n+i]
			}
			xi, ai := sc.xs[i*d:i*d+d], sc.a[i*d:i*d+d]
			for k := range ai {
				ai[k] = r*xi[k] - 2*ai[k]
			}
		}
	})
	E := sc.e
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, xs, A, 0, blas64.General{Rows: d, Cols: d, Stride: d, Data: E})
	for k := 0; k < d; k++ {
		for l := k; l < d; l++ {
			v := (E[k*d+l] + E[l*d+k]) / n2
			g[k*d+l], g[l*d+k] = v, v
		}
	}
	return total
}

// hingeRun sums h_μ(v_j), v_j = c + s·(qi + q_j − 2G_j) over a run of one
// row of G with one sign s and, when grad is set, overwrites G_j with
// u_j = s·h'_μ(v_j), adds u_j to cs_j and returns Σu_j as well. With μ > 0
// the smoothed hinge is written without branches: t = clamp(v/μ, 0, 1),
// h = t·(v − μt/2), h' = t (equal to huber's h and h').
func hingeRun(G, q []float64, qi, s, c, mu float64, cs []float64, grad bool) (h, rs float64) {
	q = q[:len(G)]
	if mu == 0 {
		for j, gj := range G {
			v := c + s*(qi+q[j]-2*gj)
			var t float64
			if v > 0 {
				t = 1
				h += v
			}
			if grad {
				u := s * t
				G[j] = u
				cs[j] += u
				rs += u
			}
		}
		return h, rs
	}
	inv, hm := 1/mu, mu/2
	if !grad {
		for j, gj := range G {
			v := c + s*(qi+q[j]-2*gj)
			t := min(max(v*inv, 0), 1)
			h += t * (v - hm*t)
		}
		return h, 0
	}
	cs = cs[:len(G)]
	for j, gj := range G {
		v := c + s*(qi+q[j]-2*gj)
		t := min(max(v*inv, 0), 1)
		h += t * (v - hm*t)
		u := s * t
		G[j] = u
		cs[j] += u
		rs += u
	}
	return h, rs
}

// lbfgsStallGrad is the largest gradient (max norm) at which a line-search
// failure of L-BFGS counts as convergence.
const lbfgsStallGrad = 1e-9

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
	eval := func(x, g []float64) float64 { return p.smoothValueGrad(x, g, 0, sc) }
	if p.FastOptimum() {
		sc.fast = newFastPlan(opt.Workers)
		sc.fastPos, sc.fastNeg = make([]float64, len(p.pos)), make([]float64, len(p.neg))
		sc.fastWP, sc.fastWN = make([]float64, len(p.pos)), make([]float64, len(p.neg))
		eval = func(x, g []float64) float64 { return p.fastValueGrad(x, g, sc) }
		if p.Obj != nil {
			n := p.N
			sc.fastPos, sc.fastWP, sc.fastWN = make([]float64, n), make([]float64, n), make([]float64, n)
			sc.fastNeg = nil
			eval = func(x, g []float64) float64 { return p.levelValueGrad(x, g, sc) }
		}
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			v := eval(x, gc)
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
				eval(x, grad)
			}
			for i, t := range x {
				grad[i] += 2 * lam * t
			}
		},
	}
	settings := &optimize.Settings{GradientThreshold: 1e-12, MajorIterations: opt.MaxIter, Converger: &optimize.FunctionConverge{Absolute: 1e-15, Relative: 1e-15, Iterations: 50}}
	if sc.stop != nil {
		settings.Recorder = stopRecorder{sc}
	}
	res, err := optimize.Minimize(prob, make([]float64, p.P), settings, &optimize.LBFGS{})
	if sc.stopped() {
		return Optimum{}, errStopped
	}
	if err != nil && res == nil {
		return Optimum{}, fmt.Errorf("optimum: %w", err)
	}
	o := Optimum{Theta: res.X, Method: "lbfgs", Iterations: res.Stats.MajorIterations,
		Converged: res.Status == optimize.GradientThreshold || res.Status == optimize.FunctionConvergence}
	if !o.Converged && err != nil && floats.Norm(res.Gradient, math.Inf(1)) <= lbfgsStallGrad {
		// The line search found no decrease at working precision from a
		// point whose gradient is this small (a sum of millions of pair
		// losses is only that exact): converged as far as float64 goes.
		o.Converged = true
	}
	o.Value = eval(o.Theta, nil) + p.Reg.Value(o.Theta)
	if sc.fast != nil {
		o.ErrorBound = sc.fastBound / (float64(p.N) * float64(p.N))
		o.Method = fmt.Sprintf("lbfgs-fast (bound %.1e)", o.ErrorBound/math.Abs(o.Value))
		if sc.fast.exact {
			o.Method = "lbfgs-fast (exact sorted sums)"
		}
	}
	return o, nil
}

// fistaStageTol is the relative step tolerance of the continuation stages
// before the last, which goes to OptimumOptions.Tol: their solutions are
// only warm starts for the next, smaller μ (a variable for the test that
// runs every stage to Tol).
var fistaStageTol = 1e-3

// fistaLDecay is the factor the step's Lipschitz estimate L is multiplied by
// after each successful step (0.9 and 1 measured worse at the synthetic
// size: more failed steps, or steps kept small by one early large L).
const fistaLDecay = 0.95

// solveFISTA is the accelerated proximal gradient method (FISTA with
// backtracking and adaptive restart) on the objective with its hinges
// Huber-smoothed by μ, decreased over stages 1, 0.1, …, FinalMu (a single
// stage μ = 0 for a smooth loss), each stage warm-started at the last one's
// solution. Only the last stage is solved to OptimumOptions.Tol, so Value,
// R_n evaluated exactly at its θ, exceeds the true optimum by at most
// FinalMu/2 (the smoothing gap) up to that tolerance; the earlier stages
// stop at the relative step fistaStageTol.
//
// A stage ends when a plain step (from x itself, without momentum: after a
// restart, or forced when a step with momentum was small) moves x by at
// most tol·max(1, ‖x‖). Each stage starts with L = 1. Before issue #18
// every stage went to Tol, a small step with momentum also ended a stage,
// and L carried over from stage to stage; on small problems that stopped
// some stages early, up to 1e-4 above the smoothed optimum (a stage that
// reached the rounding floor hands on an L inflated by failed line
// searches, and the next stage's steps were small from its start). A user
// objective (Problem.Obj, a HuberSmoother) keeps the policy as it was.
func (p *Problem) solveFISTA(sc *optScratch, opt OptimumOptions) (Optimum, error) {
	P := p.P
	x := make([]float64, P)
	best := Optimum{Method: "fista", Value: math.Inf(1), Converged: true}
	mus := []float64{0}
	if !p.smooth() {
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
	// A user objective (HuberSmoother) keeps the policy it had before issue
	// #18: every stage to Tol, L carried over, any small step ends a stage.
	legacy := p.Obj != nil
	L := 1.0
	for stage, mu := range mus {
		tol := opt.Tol
		if stage < len(mus)-1 && !legacy {
			tol = math.Max(tol, fistaStageTol)
		}
		if !legacy {
			// L starts afresh each stage: a stage that ran to the
			// rounding floor ends with L inflated by failed line
			// searches (which is what makes its steps small), and a
			// next stage starting there would stop at once, far from
			// its own optimum.
			L = 1
		}
		copy(y, x)
		tk := 1.0
		fx := p.smoothValueGrad(x, nil, mu, sc) + p.Reg.Value(x)
		sc.evals++
		conv := false
		for it := 0; it < opt.MaxIter; it++ {
			if sc.stopped() {
				return Optimum{}, errStopped
			}
			best.Iterations++
			// A plain step (y = x, no momentum) measures how far x is
			// from a fixed point of the proximal gradient map; only a
			// small plain step ends a stage. With momentum, xn can land
			// close to x while y overshoots.
			plain := tk == 1 || legacy
			fy := p.smoothValueGrad(y, gy, mu, sc)
			sc.evals++
			var fxn float64
			for {
				for i := range step {
					step[i] = y[i] - gy[i]/L
				}
				p.Reg.Prox(xn, step, 1/L, sc.ws)
				fxn = p.smoothValueGrad(xn, nil, mu, sc)
				sc.evals++
				var lin, sq float64
				for i := range xn {
					dlt := xn[i] - y[i]
					lin += gy[i] * dlt
					sq += dlt * dlt
				}
				if fxn <= fy+lin+L/2*sq*(1+1e-12)+1e-18 || L > 1e300 || sc.stopped() {
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
			small := math.Sqrt(dx) <= tol*math.Max(1, math.Sqrt(nx))
			if Fxn > fx {
				// Adaptive restart: drop the momentum, retry from x.
				tk = 1
				copy(y, x)
				if small && plain {
					conv = true
					break
				}
				continue
			}
			copy(y, xn)
			if !small || legacy {
				tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
				for i := range y {
					y[i] += (tk - 1) / tn * (xn[i] - x[i])
				}
				tk = tn
			} else {
				// Small: test with a plain step from xn.
				tk = 1
			}
			copy(x, xn)
			fx = Fxn
			L *= fistaLDecay
			if small && plain {
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
