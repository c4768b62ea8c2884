// Package problem defines the pairwise objectives of the paper and evaluates
// them exactly:
//
//	R_n(θ) = (1/n²) Σ_{i,j} f(θ; x_i, x_j) + ψ(θ)
//
// with the AUC losses (logistic, hinge, squared hinge) and the metric-learning
// hinge loss as Loss, and the regularisers none, squared ℓ2, ℓ1, ℓ2 ball and
// PSD cone as Regularizer, each with its dual-averaging smoothing operator
// π_t(z) = prox_{tγ(t)ψ}(−γ(t) z).
//
// Labels: for the AUC losses Label[i] is +1 or −1 and only pairs with
// ℓ_i > ℓ_j contribute (the paper's 1{ℓ_i > ℓ_j}); for metric learning Label[i]
// is a class index and s_ij = +1 for the same class, −1 otherwise, which makes
// the paper's ℓ_iℓ_j work for any number of classes. The double sum includes
// i = j.
//
// Evaluation of many parameter vectors at once goes through BLAS: the scores
// of every point under every θ are one matrix product S = Θ Xᵀ.
//
// Rounding: every product that is added to or subtracted from something in
// the pairwise loss and gradient (PairLoss, PairGrad, AddOuterDiff, Dist,
// margin), the regularisers (reg.go) and the evaluators' own loops is written
// float64(x*y) + z. The Go spec lets a compiler fuse x*y + z into one FMA
// instruction, possibly across statements (it does on arm64 and on amd64
// with GOAMD64=v3), which rounds once instead of twice; an explicit
// conversion rounds, so these results are the same on every architecture
// and the engine's schedules stay bit-identical to its literal reference.
// GOARCH=arm64 go build -gcflags=-S ./problem shows no FMADD/FMSUB in them.
// The rank-one eigen-update and the optimum solver are not guarded: they
// agree with themselves on one machine, which is all that is claimed, and
// go through gonum's BLAS and optimize, which fuse on arm64 anyway.
package problem

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Problem binds data, labels, loss and regulariser.
type Problem struct {
	Loss Loss
	// Obj is the user's objective when Loss == Custom (NewObjective), nil
	// for the built-in losses.
	Obj Objective
	Reg Regularizer
	// B is the metric-learning threshold b > 0.
	B float64
	// N points of dimension D; P is the dimension of θ (D, or D·D for metric learning).
	N, D, P int
	// X holds the points, one aligned row each.
	X layout.Matrix
	// Label is ±1 (AUC) or a class index (metric learning).
	Label []int32

	pos, neg []int32 // AUC: indices of positive and negative points
	// levels: a user objective's ScoreDifference declaration (levels.go).
	levels *levelSet
}

// New builds a problem from dense row-major data x (n×d) and labels. For the
// AUC losses labels must be ±1 with both present; for metric learning they are
// class indices with at least two classes. For RegPSD, reg.D is set to d.
// x is copied.
func New(loss Loss, reg Regularizer, b float64, n, d int, x []float64, labels []int32) (*Problem, error) {
	return newProblem(loss, reg, b, n, d, x, labels, false)
}

// NewShared is New without the copy of x where its layout allows it (d a
// multiple of 8 and x 64-byte aligned, as a large allocation or a mapped
// NumPy file is: layout.Adopt): the problem then reads x in place, and the
// caller must leave it unchanged, and mapped, for the problem's lifetime.
// At n = 10⁷, d = 16 that is 1.28 GB and its copy saved.
func NewShared(loss Loss, reg Regularizer, b float64, n, d int, x []float64, labels []int32) (*Problem, error) {
	return newProblem(loss, reg, b, n, d, x, labels, true)
}

// checkData checks the shape of a data set (n ≥ 2 points of d ≥ 1
// features, n·d values, n labels) and that every value is finite.
func checkData(n, d int, x []float64, labels []int32) error {
	if n < 2 {
		return fmt.Errorf("problem: need at least 2 points, got %d", n)
	}
	if d < 1 {
		return fmt.Errorf("problem: dimension must be >= 1, got %d", d)
	}
	if len(x) != n*d || len(labels) != n {
		return fmt.Errorf("problem: data has %d values and %d labels, want %d and %d", len(x), len(labels), n*d, n)
	}
	if i := firstNonFinite(x); i >= 0 {
		return fmt.Errorf("problem: non-finite value at point %d, feature %d", i/d, i%d)
	}
	return nil
}

// checkChunk is the number of values firstNonFinite scans as one piece.
const checkChunk = 1 << 16

// firstNonFinite returns the index of the first NaN or ±Inf in x, or −1:
// the chunks scanned on all cores (10⁷ points of 16 features are 1.3 GB),
// the first one found by index whatever the order they finish in.
func firstNonFinite(x []float64) int {
	chunks := (len(x) + checkChunk - 1) / checkChunk
	first := make([]int, par.Workers(0))
	for w := range first {
		first[w] = -1
	}
	par.Blocks(chunks, len(first), func(w, lo, hi int) {
		part := x[lo*checkChunk : min(hi*checkChunk, len(x))]
		for i, v := range part {
			if !(math.Abs(v) <= math.MaxFloat64) { // NaN or ±Inf
				first[w] = lo*checkChunk + i
				return
			}
		}
	})
	for _, i := range first {
		if i >= 0 {
			return i
		}
	}
	return -1
}

func newProblem(loss Loss, reg Regularizer, b float64, n, d int, x []float64, labels []int32, share bool) (*Problem, error) {
	if err := checkData(n, d, x, labels); err != nil {
		return nil, err
	}
	if reg.Kind == RegPSD {
		if !loss.IsMetric() {
			return nil, fmt.Errorf("problem: the psd regulariser needs a matrix parameter (metric learning), not %s", loss)
		}
		reg.D = d
	}
	if err := reg.Validate(); err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	p := &Problem{Loss: loss, Reg: reg, B: b, N: n, D: d, P: loss.ParamDim(d), Label: slices.Clone(labels)}
	if share {
		p.X, _ = layout.Adopt(n, d, x)
	} else {
		p.X = layout.FromDense(n, d, x)
	}
	if loss.IsMetric() {
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("problem: metric threshold b must be finite and > 0, got %g", b)
		}
		first := labels[0]
		two := false
		for _, l := range labels {
			if l != first {
				two = true
			}
		}
		if !two {
			return nil, fmt.Errorf("problem: metric learning needs at least two classes")
		}
		return p, nil
	}
	for i, l := range labels {
		switch l {
		case 1:
			p.pos = append(p.pos, int32(i))
		case -1:
			p.neg = append(p.neg, int32(i))
		default:
			return nil, fmt.Errorf("problem: AUC label of point %d is %d, want +1 or -1", i, l)
		}
	}
	if len(p.pos) == 0 || len(p.neg) == 0 {
		return nil, fmt.Errorf("problem: AUC needs both classes (%d positive, %d negative)", len(p.pos), len(p.neg))
	}
	return p, nil
}

// Positives and Negatives return the AUC index sets (nil for metric learning).
func (p *Problem) Positives() []int32 { return p.pos }

// Negatives: see Positives.
func (p *Problem) Negatives() []int32 { return p.neg }

// NewWorkspace returns the per-worker scratch for the smoothing operator.
func (p *Problem) NewWorkspace() *Workspace {
	if p.Reg.Kind == RegPSD {
		return NewWorkspace(p.D)
	}
	return NewWorkspace(0)
}

// PairLoss returns f(θ; x_i, x_j).
func (p *Problem) PairLoss(theta []float64, i, j int) float64 {
	xi, xj := p.X.Row(i), p.X.Row(j)
	if p.Obj != nil {
		if !p.Obj.Contributes(p.Label[i], p.Label[j]) {
			return 0
		}
		return p.Obj.Loss(theta, xi, xj, i, j)
	}
	if p.Loss.IsMetric() {
		s := p.sign(i, j)
		return math.Max(0, 1-float64(s*(p.B-p.Dist(theta, xi, xj))))
	}
	if p.Label[i] <= p.Label[j] {
		return 0
	}
	return p.Loss.MarginLoss(margin(theta, xi, xj))
}

// PairGrad adds scale·∇_θ f(θ; x_i, x_j) to g and reports whether the
// gradient is non-zero.
//
// Reference (AUC): m = (x_i − x_j)ᵀθ; g += scale·φ'(m)·(x_i − x_j) when ℓ_i > ℓ_j.
// Reference (metric): δ = x_i − x_j; u = s_ij(b − δᵀθδ); g += scale·s_ij·δδᵀ when u < 1.
func (p *Problem) PairGrad(g []float64, scale float64, theta []float64, i, j int) bool {
	xi, xj := p.X.Row(i), p.X.Row(j)
	if p.Obj != nil {
		if !p.Obj.Contributes(p.Label[i], p.Label[j]) {
			return false
		}
		return p.Obj.Grad(g, scale, theta, xi, xj, i, j)
	}
	if p.Loss.IsMetric() {
		s := p.sign(i, j)
		if s*(p.B-p.Dist(theta, xi, xj)) >= 1 {
			return false
		}
		w := scale * s
		AddOuterDiff(g, w, xi, xj)
		return w != 0
	}
	if p.Label[i] <= p.Label[j] {
		return false
	}
	w := scale * p.Loss.MarginDeriv(margin(theta, xi, xj))
	if w == 0 {
		return false
	}
	for a := range xi {
		g[a] += float64(w * (xi[a] - xj[a]))
	}
	return true
}

// AddOuterDiff adds w·δδᵀ, δ = xi − xj, to the d×d row-major g: the metric
// hinge gradient of one pair.
func AddOuterDiff(g []float64, w float64, xi, xj []float64) {
	d := len(xi)
	xj = xj[:d]
	for a := 0; a < d; a++ {
		wa := w * (xi[a] - xj[a])
		row := g[a*d : a*d+d]
		for c := range row {
			row[c] += float64(wa * (xi[c] - xj[c]))
		}
	}
}

func (p *Problem) sign(i, j int) float64 {
	if p.Label[i] == p.Label[j] {
		return 1
	}
	return -1
}

// margin returns (x_i − x_j)ᵀθ.
func margin(theta, xi, xj []float64) float64 {
	var m float64
	for a := range xi {
		m += float64((xi[a] - xj[a]) * theta[a])
	}
	return m
}

// Dist returns D_θ(x_i, x_j) = δᵀθδ, δ = x_i − x_j, for points xi, xj and a
// full d×d row-major θ (metric learning).
//
// Reference (distRef, the bits every path agrees on):
//
//	for a := 0; a < d; a++ {
//		if δ_a == 0 { continue }
//		r := 0; for c := 0; c < d; c++ { r += θ[a][c]·δ_c }
//		s += δ_a·r
//	}
//
// Each row's sum is a chain of dependent additions, so up to d = distMaxD
// Dist forms δ once and sums four rows side by side, each in the
// reference's order: the same bits, four chains in flight instead of one.
func (p *Problem) Dist(theta, xi, xj []float64) float64 {
	d := p.D
	if d > distMaxD || len(theta) < d*d || len(xi) < d || len(xj) < d {
		return distRef(d, theta, xi, xj)
	}
	var buf [distMaxD]float64
	dl := buf[:d]
	for c := range dl {
		dl[c] = xi[c] - xj[c]
	}
	var s float64
	a := 0
	for ; a+4 <= d; a += 4 {
		d0, d1, d2, d3 := dl[a], dl[a+1], dl[a+2], dl[a+3]
		if d0 == 0 && d1 == 0 && d2 == 0 && d3 == 0 {
			continue
		}
		t0, t1, t2, t3 := theta[a*d:a*d+d], theta[(a+1)*d:(a+1)*d+d], theta[(a+2)*d:(a+2)*d+d], theta[(a+3)*d:(a+3)*d+d]
		t0, t1, t2, t3 = t0[:len(dl)], t1[:len(dl)], t2[:len(dl)], t3[:len(dl)] // no bounds checks below
		var r0, r1, r2, r3 float64
		for c, v := range dl {
			r0 += float64(t0[c] * v)
			r1 += float64(t1[c] * v)
			r2 += float64(t2[c] * v)
			r3 += float64(t3[c] * v)
		}
		if d0 != 0 {
			s += float64(d0 * r0)
		}
		if d1 != 0 {
			s += float64(d1 * r1)
		}
		if d2 != 0 {
			s += float64(d2 * r2)
		}
		if d3 != 0 {
			s += float64(d3 * r3)
		}
	}
	for ; a < d; a++ {
		da := dl[a]
		if da == 0 {
			continue
		}
		row := theta[a*d : a*d+d]
		var r float64
		for c, v := range dl {
			r += float64(row[c] * v)
		}
		s += float64(da * r)
	}
	return s
}

// distMaxD is the largest d whose δ Dist keeps on the stack.
const distMaxD = 64

// distRef is Dist's reference loop.
func distRef(d int, theta, xi, xj []float64) float64 {
	var s float64
	for a := 0; a < d; a++ {
		da := xi[a] - xj[a]
		if da == 0 {
			continue
		}
		row := theta[a*d : a*d+d]
		var r float64
		for c := range row {
			r += float64(row[c] * (xi[c] - xj[c]))
		}
		s += float64(da * r)
	}
	return s
}

// Objective returns R_n(θ) for one θ, by the direct double sum (the
// reference; Evaluator is the fast path).
func (p *Problem) Objective(theta []float64) float64 {
	var s float64
	for i := 0; i < p.N; i++ {
		var r float64
		for j := 0; j < p.N; j++ {
			r += p.PairLoss(theta, i, j)
		}
		s += r
	}
	return s/float64(p.N)/float64(p.N) + p.Reg.Value(theta)
}

// PartialGrad sets g = ∇f_k(θ) = (1/n) Σ_j ∇_θ f(θ; x_k, x_j), the full
// partial gradient of node k (the reference for the bias term).
func (p *Problem) PartialGrad(g, theta []float64, k int) {
	clear(g[:p.P])
	if p.Obj != nil {
		xk, lk := p.X.Row(k), p.Label[k]
		w := 1 / float64(p.N)
		for j := 0; j < p.N; j++ {
			if p.Obj.Contributes(lk, p.Label[j]) {
				p.Obj.Grad(g, w, theta, xk, p.X.Row(j), k, j)
			}
		}
		return
	}
	for j := 0; j < p.N; j++ {
		p.PairGrad(g, 1/float64(p.N), theta, k, j)
	}
}

// Evaluator computes objectives, AUCs and bias terms for many parameter
// vectors at once, in parallel over a fixed number of workers, with buffers
// allocated once. Results do not depend on the number of workers. How it
// measures (exactly pair by pair, by sorting, or by sampling pairs) is chosen
// when it is built: see EvalOptions and evalplan.go.
type Evaluator struct {
	p       *Problem
	workers int
	m       int           // capacity in parameter vectors
	theta   layout.Matrix // gathered θ rows, m×P
	scores  layout.Matrix // AUC, pairwise method: m×n scores Θ Xᵀ
	scratch []evalScratch

	opt    EvalOptions
	plan   EvalPlan
	thetaT layout.Matrix // AUC, sampled and streamed paths: d×m, Θ_selᵀ
	blocks []float64     // per-block (or per-segment) sums, blockStride(m) each
	per    []float64     // per-vector values of the bias term

	custom *customEval // a user objective's measurement (custom_eval.go)
	xt     []float64   // metric learning: Xᵀ, d×n row-major (metricStreamSum's tiles)
	labF   []float64   // metric learning: the labels as float64 (kernel.MetricHinge8)

	fastBound []float64 // MethodExactFast: each vector's bound on its objective
	rep       []int     // EvalPlan.Distinct: the first vector equal to each one
	reps      []int     // EvalPlan.Distinct: the distinct vectors' indices

	stop *atomic.Bool // SetStop's flag (nil: none)
}

// labelsFloat returns the labels as float64 (exact: class indices).
func (p *Problem) labelsFloat() []float64 {
	l := make([]float64, p.N)
	for i, v := range p.Label {
		l[i] = float64(v)
	}
	return l
}

// transposeX returns Xᵀ (d×n, row-major).
func (p *Problem) transposeX() []float64 {
	xt := make([]float64, p.D*p.N)
	for i := 0; i < p.N; i++ {
		for a, v := range p.X.Row(i) {
			xt[a*p.N+i] = v
		}
	}
	return xt
}

type evalScratch struct {
	posS, negS []float64
	en         []float64 // AUC logistic: e^{s_j} of the negatives
	q          []float64 // metric: x_iᵀθx_i

	// Sorted and streamed paths (sorted.go).
	tmp  []float64 // radix sort buffer
	blk  []float64 // a block of scores
	hist []int     // radix histograms
	u    []float64 // metric, biasPairwise: Ωs·x_k (d)
	at   []float64 // metric: a tile's rows of X·θs, transposed by blocks of 8 (kernel.MetricHinge8)
	rsum []float64 // metric: a tile's rows' hinge sums against one tile of columns
	pad  []float64 // metric: the last rows of X, transposed and padded to 8 lanes
	ths  []float64
	// Sampled paths (sampled.go).
	delta, prod layout.Matrix // a block of differences (or rows) and its products
	ri, rj      []int32       // a block's rows of X (sampled pairs, bias j's), for prefetching
	f, fa, sgn  []float64
	fast        *fastPlan    // MethodExactFast's buffers (fastsum.go)
	stop        *atomic.Bool // Evaluator.SetStop's flag
}

// NewEvaluator returns an evaluator for up to m parameter vectors per call,
// with the automatic choice of method (EvalOptions{}).
func (p *Problem) NewEvaluator(m, workers int) *Evaluator {
	return p.NewEvaluatorWith(m, workers, EvalOptions{})
}

// NewEvaluatorWith returns an evaluator for up to m parameter vectors per
// call, measuring as opt says. It allocates only the buffers of the methods
// it chose (EvalPlan.Bytes).
func (p *Problem) NewEvaluatorWith(m, workers int, opt EvalOptions) *Evaluator {
	workers = par.Workers(workers)
	opt = opt.withDefaults()
	e := &Evaluator{p: p, workers: workers, m: m, theta: layout.New(m, p.P), opt: opt}
	if p.Obj != nil {
		e.planCustom()
		return e
	}
	e.plan = planEval(p.shape(), m, workers, opt)
	if e.plan.Obj == MethodPairwise {
		e.allocPairwise()
	} else {
		e.allocLarge()
	}
	return e
}

// SetStop gives the evaluator a flag that, once set, ends the exact pair
// sums of a measurement early (checked at every positive point of the
// pairwise AUC sums, every row tile of the metric ones, every evaluated
// vector of the other methods, every piece of a block of the bias's
// pairs): the values of that measurement are then partial and must be
// discarded. A measurement during which the flag stays clear gives the
// same bits as without it. nil removes it.
func (e *Evaluator) SetStop(stop *atomic.Bool) {
	e.stop = stop
	for w := range e.scratch {
		e.scratch[w].stop = stop
	}
}

// stopped reports whether SetStop's flag is set.
func (e *Evaluator) stopped() bool { return halted(e.stop) }

// halted reports whether stop is set (never for nil).
func halted(stop *atomic.Bool) bool { return stop != nil && stop.Load() }

// Plan returns the methods the evaluator uses and their estimated costs.
func (e *Evaluator) Plan() EvalPlan { return e.plan }

// allocPairwise allocates the pairwise method's buffers.
func (e *Evaluator) allocPairwise() {
	p, m := e.p, e.m
	if !p.Loss.IsMetric() {
		e.scores = layout.New(m, p.N)
	}
	e.scratch = make([]evalScratch, e.workers)
	if p.Loss.IsMetric() {
		e.xt, e.labF = p.transposeX(), p.labelsFloat()
	}
	for w := range e.scratch {
		sc := &e.scratch[w]
		if p.Loss.IsMetric() {
			// metricStreamSum's tiles (the upper triangle of X θs Xᵀ).
			sc.q = make([]float64, p.N)
			sc.u = make([]float64, p.D)
			sc.at = make([]float64, metricTile*p.D)
			sc.pad = make([]float64, 8*p.D)
			sc.rsum = make([]float64, metricTile)
			sc.ths = make([]float64, p.P)
		} else {
			sc.posS = make([]float64, len(p.pos))
			sc.negS = make([]float64, len(p.neg))
			sc.en = make([]float64, len(p.neg))
		}
	}
}

// gather copies rows of src (P columns) into e.theta.
func (e *Evaluator) gather(src layout.Matrix, rows []int) {
	if len(rows) > e.m {
		panic(fmt.Sprintf("problem: Evaluator sized for %d vectors, got %d", e.m, len(rows)))
	}
	for c, r := range rows {
		copy(e.theta.Row(c), src.Row(r))
	}
}

// scoresFor sets e.scores rows 0..m-1 to Θ_sel Xᵀ (AUC only).
func (e *Evaluator) scoresFor(m int) {
	p := e.p
	th := blas64.General{Rows: m, Cols: p.D, Stride: e.theta.Stride, Data: e.theta.Data}
	out := blas64.General{Rows: m, Cols: p.N, Stride: e.scores.Stride, Data: e.scores.Data}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, th, p.X.General(), 0, out)
}

// Eval sets obj[c] = R_n(θ_{rows[c]}) (ψ included) and, for the AUC losses,
// auc[c] = AUC(θ_{rows[c]}) (NaN for metric learning), where θ_r is row r of
// thetas. auc may be nil. Sampled values are estimates: Estimate returns
// their standard errors.
func (e *Evaluator) Eval(thetas layout.Matrix, rows []int, obj, auc []float64) {
	e.Estimate(thetas, rows, obj, auc)
}

// Estimate is Eval, and returns how the values were computed and, for
// sampled ones, the standard errors of their means over rows.
func (e *Evaluator) Estimate(thetas layout.Matrix, rows []int, obj, auc []float64) Estimate {
	if e.p.Obj != nil {
		return e.estimateCustom(thetas, rows, obj, auc)
	}
	if e.plan.Obj == MethodPairwise {
		e.evalPairwise(thetas, rows, obj, auc)
		return Estimate{}
	}
	return e.estimateLarge(thetas, rows, obj, auc)
}

// evalPairwise is the pairwise method: the exact double sums from the m×n
// scores (AUC) or the Gram matrices (metric learning).
func (e *Evaluator) evalPairwise(thetas layout.Matrix, rows []int, obj, auc []float64) {
	p := e.p
	e.gather(thetas, rows)
	m := len(rows)
	n2 := float64(p.N) * float64(p.N)
	if p.Loss.IsMetric() {
		par.For(m, e.workers, func(w, c int) {
			if e.stopped() {
				return
			}
			obj[c] = e.metricStreamSum(&e.scratch[w], e.theta.Row(c))/n2 + p.Reg.Value(e.theta.Row(c))
			if auc != nil {
				auc[c] = math.NaN()
			}
		})
		return
	}
	e.scoresFor(m)
	par.For(m, e.workers, func(w, c int) {
		if e.stopped() {
			return
		}
		sc := &e.scratch[w]
		s := e.scores.Row(c)
		for k, i := range p.pos {
			sc.posS[k] = s[i]
		}
		for k, j := range p.neg {
			sc.negS[k] = s[j]
		}
		obj[c] = aucPairSum(p.Loss, sc.posS, sc.negS, sc.en, sc.stop)/n2 + p.Reg.Value(e.theta.Row(c))
		if auc != nil {
			auc[c] = aucSorted(sc.posS, sc.negS)
		}
	})
}

// aucPairSum returns Σ_{i∈P, j∈N} φ(s_i − s_j). The logistic loss is summed
// pair by pair with exponentials hoisted out of the double loop
// (logisticPairSum); the hinge losses sort the negative scores (negS is
// sorted in place) and visit only the active pairs (s_j > s_i − 1). Once
// stop is set it ends early (a partial sum).
func aucPairSum(loss Loss, posS, negS, en []float64, stop *atomic.Bool) float64 {
	var total float64
	if loss == AUCLogistic {
		return logisticPairSum(posS, negS, en, stop)
	}
	slices.Sort(negS)
	for _, si := range posS {
		if halted(stop) {
			break
		}
		k, _ := slices.BinarySearchFunc(negS, si-1, func(a, t float64) int {
			if a <= t {
				return -1
			}
			return 1
		})
		var r float64
		for _, sj := range negS[k:] {
			h := 1 - si + sj
			if h <= 0 {
				continue
			}
			if loss == AUCSquaredHinge {
				h *= h
			}
			r += h
		}
		total += r
	}
	return total
}

// expLimit bounds |s| for the hoisted-exponential path: e^{±s} and their
// products stay finite (e^{2·300} < 1.8e308).
const expLimit = 300

// logisticPairSum returns Σ_{i∈P, j∈N} log(1 + exp(s_j − s_i)). With
// e = e^{s_j}·e^{−s_i} it needs one logarithm per pair and 2n exponentials in
// all: the row of each positive score is kernel.Log1pSum(e^{s_N}, e^{−s_i}),
// log1p(e) = log(u)·e/(u − 1), u = 1 + e (accurate to a few ulp for every
// e ≥ 0, D. Goldberg, "What every computer scientist should know about
// floating-point arithmetic", Thm. 4), vectorised. en is scratch of
// len(negS). Scores beyond ±expLimit fall back to Softplus per pair. Once
// stop is set it ends early (a partial sum).
func logisticPairSum(posS, negS, en []float64, stop *atomic.Bool) float64 {
	for _, v := range posS {
		if math.Abs(v) > expLimit {
			return softplusPairSum(posS, negS, stop)
		}
	}
	for _, v := range negS {
		if math.Abs(v) > expLimit {
			return softplusPairSum(posS, negS, stop)
		}
	}
	en = en[:len(negS)]
	for j, v := range negS {
		en[j] = math.Exp(v)
	}
	var total float64
	for _, si := range posS {
		if halted(stop) {
			break
		}
		total += kernel.Log1pSum(en, math.Exp(-si))
	}
	return total
}

// softplusPairSum is the reference form of logisticPairSum.
func softplusPairSum(posS, negS []float64, stop *atomic.Bool) float64 {
	var total float64
	for _, si := range posS {
		if halted(stop) {
			break
		}
		var r float64
		for _, sj := range negS {
			r += Softplus(sj - si)
		}
		total += r
	}
	return total
}

// aucSorted returns the fraction of (positive, negative) pairs with
// s_i > s_j, ties counting one half (the Mann–Whitney convention; the paper's
// formula counts ties as 0, which gives θ = 0 an AUC of 0 instead of 1/2 and
// penalises the duplicated rows of the Breast Cancer data). It sorts negS.
func aucSorted(posS, negS []float64) float64 {
	slices.Sort(negS)
	var twice int64 // 2 × (pairs ordered) + (pairs tied)
	for _, si := range posS {
		lo, _ := slices.BinarySearch(negS, si) // first index with negS[k] >= si
		hi := lo
		if si == si {
			// Past the ties, by a second search: a scan was quadratic
			// when most scores tie (every score is 0 at θ = 0, the
			// first measurement of a run).
			hi, _ = slices.BinarySearchFunc(negS[lo:], si, func(a, t float64) int {
				if a <= t {
					return -1
				}
				return 1
			})
			hi += lo
		}
		twice += 2*int64(lo) + int64(hi-lo)
	}
	return float64(twice) / (2 * float64(len(posS)) * float64(len(negS)))
}

// AUC returns the AUC of θ (AUC losses only), by sorting.
func (p *Problem) AUC(theta []float64) float64 {
	ps := make([]float64, len(p.pos))
	ns := make([]float64, len(p.neg))
	for k, i := range p.pos {
		ps[k] = blas64.Dot(blas64.Vector{N: p.D, Inc: 1, Data: p.X.Row(int(i))}, blas64.Vector{N: p.D, Inc: 1, Data: theta})
	}
	for k, j := range p.neg {
		ns[k] = blas64.Dot(blas64.Vector{N: p.D, Inc: 1, Data: p.X.Row(int(j))}, blas64.Vector{N: p.D, Inc: 1, Data: theta})
	}
	return aucSorted(ps, ns)
}

// Bias returns the bias term ε̄ᵀω of the paper (Sec. 3, Fig. 1c) averaged over
// the nodes in rows: ε_k = ∇f(θ_k; x_k, x_{aux[k]}) − ∇f_k(θ_k), the error of
// the estimate node k would use with its current auxiliary point, where θ_k is
// row k of theta; omega is π_t(z̄).
//
// The pairwise method uses (x_k − x_j)ᵀω = r_k − r_j with r = Xω for the AUC
// losses and δᵀΩδ = q_k + q_j − x_kᵀ(Ω + Ωᵀ)x_j, q = x_iᵀΩx_i, for metric
// learning (n·d² and, per measured node, n·d flops), so no
// gradient vector is formed; at large n the sum over j is streamed in
// blocks or sampled (biasLarge, sampled.go).
func (e *Evaluator) Bias(theta layout.Matrix, aux []int32, rows []int, omega []float64) float64 {
	return e.BiasEstimate(theta, aux, rows, omega).Value
}

// BiasEstimate is Bias, with how it was computed and, when sampled, its
// standard error.
func (e *Evaluator) BiasEstimate(theta layout.Matrix, aux []int32, rows []int, omega []float64) BiasEstimate {
	if e.p.Obj != nil {
		return e.biasCustom(theta, aux, rows, omega)
	}
	if e.plan.Bias != MethodPairwise {
		return e.biasLarge(theta, aux, rows, omega)
	}
	return BiasEstimate{Value: e.biasPairwise(theta, aux, rows, omega)}
}

// biasPairwise is Bias by the pairwise method.
func (e *Evaluator) biasPairwise(theta layout.Matrix, aux []int32, rows []int, omega []float64) float64 {
	p := e.p
	if len(rows) == 0 {
		return 0
	}
	e.gather(theta, rows)
	m := len(rows)
	per := make([]float64, m)
	invN := 1 / float64(p.N)
	if p.Loss.IsMetric() {
		// Ω-distances from Ωs = Ω + Ωᵀ: dΩ(k, j) = q_k + q_j − x_kᵀΩs x_j
		// with q_j = x_jᵀΩx_j, so only the rows of Xᵀ·(Ωs x_k) for the
		// evaluated k are needed, not the n×n Gram matrix.
		d := p.D
		sc0 := &e.scratch[0]
		oq, ws := sc0.q, sc0.ths
		for a := 0; a < d; a++ {
			for c := 0; c < d; c++ {
				ws[a*d+c] = omega[a*d+c] + omega[c*d+a]
			}
		}
		for j := 0; j < p.N; j++ {
			xj := p.X.Row(j)
			var q float64
			for a := 0; a < d; a++ {
				var t float64
				for b, v := range omega[a*d : a*d+d] {
					t += v * xj[b]
				}
				q += xj[a] * t
			}
			oq[j] = q
		}
		par.For(m, e.workers, func(w, c int) {
			k := rows[c]
			th := e.theta.Row(c)
			xk := p.X.Row(k)
			u := e.scratch[w].u // Ωs·x_k
			for a := 0; a < d; a++ {
				var t float64
				for b, v := range ws[a*d : a*d+d] {
					t += v * xk[b]
				}
				u[a] = t
			}
			zero := true // θ_k = 0 (before node k's first update): D = 0
			for _, v := range th[:d*d] {
				zero = zero && v == 0
			}
			// The distances D(k, j) eight j's at a time (kernel.MetricDist8:
			// Problem.Dist's bits), the last n mod 8 one by one.
			var full, est float64
			var dist [8]float64
			for j := 0; j < p.N; j++ {
				xj := p.X.Row(j)
				var dij float64
				switch {
				case zero:
				case j%8 == 0 && j+8 <= p.N:
					kernel.MetricDist8(&dist, th[:d*d], xk, e.xt[j:], p.N, e.scratch[w].at)
					dij = dist[0]
				case j&^7+8 <= p.N:
					dij = dist[j%8]
				default:
					dij = p.Dist(th, xk, xj)
				}
				s := p.sign(k, j)
				if s*(p.B-dij) < 1 {
					var h float64
					for a, v := range u[:d] {
						h += v * xj[a]
					}
					dom := oq[k] + oq[j] - h
					full += float64(s * dom)
					if j == int(aux[k]) {
						est = s * dom
					}
				}
			}
			per[c] = est - float64(full*invN)
		})
	} else {
		r := make([]float64, p.N)
		blas64.Gemv(blas.NoTrans, 1, p.X.General(), blas64.Vector{N: p.D, Inc: 1, Data: omega}, 0, blas64.Vector{N: p.N, Inc: 1, Data: r})
		e.scoresFor(m)
		par.For(m, e.workers, func(w, c int) {
			k := rows[c]
			if p.Label[k] != 1 {
				return // f(·; x_k, ·) ≡ 0 for a negative node: ε_k = 0
			}
			s := e.scores.Row(c) // s[j] = x_jᵀθ_k
			var full float64
			for _, j := range p.neg {
				full += float64(p.Loss.MarginDeriv(s[k]-s[j]) * (r[k] - r[j]))
			}
			var est float64
			if j := aux[k]; p.Label[j] == -1 {
				est = p.Loss.MarginDeriv(s[k]-s[j]) * (r[k] - r[j])
			}
			per[c] = est - float64(full*invN)
		})
	}
	var sum float64
	for _, v := range per {
		sum += v
	}
	return sum / float64(m)
}
