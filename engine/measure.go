package engine

import (
	"math"
	"slices"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// Record is one measurement of the run, at θ̄_k of the evaluated nodes
// (docs/design.md §3).
type Record struct {
	Iter             int64
	GradEvals        int64 // gradient evaluations so far
	GradEvalsNonzero int64 // of which non-zero
	// Objective R_n(θ̄_k) over the evaluated nodes.
	ObjMean, ObjStd, ObjMin, ObjMax float64
	// AUCMean is the mean AUC of θ̄_k (NaN for metric learning).
	AUCMean float64
	// Bias is ε̄ᵀω (paper Sec. 3): ε_k = ∇f(θ_k; x_k, y_k) − ∇f_k(θ_k), the
	// error of node k's gradient estimate at the current state, averaged over
	// the evaluated nodes; ω = π_t(z̄) with z̄ the mean dual variable. Zero
	// for Centralized (its estimates are unbiased).
	Bias float64
	// Consensus is the mean over all nodes of ‖θ̄_k − mean θ̄‖.
	Consensus float64

	// ObjStdErr is the standard error of ObjMean as an estimate of the mean
	// of R_n(θ̄_k) over the evaluated nodes, AUCStdErr that of AUCMean and
	// BiasStdErr that of Bias: 0 when the value is exact (always at small
	// n). ObjStd, ObjMin and ObjMax are then over the nodes' estimates.
	ObjStdErr, AUCStdErr, BiasStdErr float64
	// MeasurePairs is the number of pairs sampled for the objective and AUC
	// (0 when neither was sampled).
	MeasurePairs int64
	// Measure is how the values were computed; the zero value is exact
	// pair by pair, the small-n method.
	Measure MeasureMethods

	// The network model's counters (docs/networks.md), cumulative up to
	// Iter: Attempted activations with both endpoints online, of which
	// both messages arrived (Delivered: a handshake) or exactly one
	// (OneWay). Online is the number of nodes online at Iter (all of them
	// without churn). Without a network model (Config.Network perfect) the
	// counters are 0 and Online is -1.
	Attempted, Delivered, OneWay int64
	Online                       int
}

// MeasureMethods says how a record's objective, AUC and bias term were
// computed.
type MeasureMethods struct {
	Obj, AUC, Bias problem.EvalMethod
}

// Pack encodes m in one integer (Obj | AUC<<8 | Bias<<16), for fixed
// binary layouts such as the checkpoint's; the zero value packs to 0.
func (m MeasureMethods) Pack() int64 {
	return int64(m.Obj) | int64(m.AUC)<<8 | int64(m.Bias)<<16
}

// UnpackMeasureMethods inverts Pack.
func UnpackMeasureMethods(v int64) MeasureMethods {
	return MeasureMethods{problem.EvalMethod(v), problem.EvalMethod(v >> 8), problem.EvalMethod(v >> 16)}
}

// MeasureMode selects how a run measures (Config.Measure): see
// problem.EvalMode.
type MeasureMode = problem.EvalMode

// The measurement modes.
const (
	MeasureAuto    = problem.EvalAuto
	MeasureExact   = problem.EvalExact
	MeasureSampled = problem.EvalSampled
)

// MeasureModeNames lists the accepted names of ParseMeasureMode.
var MeasureModeNames = problem.EvalModeNames

// ParseMeasureMode maps a name (auto, exact, sampled; "" is auto) to a mode.
func ParseMeasureMode(s string) (MeasureMode, error) { return problem.ParseEvalMode(s) }

// hashMeasure keys the measurement's pair stream off the run's seed (apart
// from the sub-streams of state.go).
const hashMeasure = 0x6d656173 // "meas"

// autoEvalCost is the budget, in pair-loss evaluations per measurement, under
// which all nodes are measured when EvalNodes = 0.
const autoEvalCost = 8e6

// measurer evaluates a state: the evaluated nodes, the problem's batched
// evaluator and scratch allocated once.
type measurer struct {
	rows                        []int // the evaluated nodes, sorted
	eval                        *problem.Evaluator
	ws                          *problem.Workspace // for π_t(z̄)
	obj, auc, zbar, omega, mean []float64
	aux                         []int32
	workers                     int
	seg                         []float64 // reduceSegments partial sums of P (large runs)
}

// The sums over all nodes of a measurement (mean θ̄, consensus spread, z̄)
// read the whole state: from parallelRows rows on they run on the workers,
// in reduceSegments fixed segments added in segment order (so the result
// does not depend on the number of workers); below, serially in row order
// as they always have (the golden checksums hold these bits).
const (
	parallelRows   = 1 << 16
	reduceSegments = 64
)

// addRowMin is the row length from which addRow adds through kernel.Triad
// (below, a Go loop costs less than the call).
const addRowMin = 32

// addRow sets dst[a] += row[a]: through kernel.Triad(dst, dst, row, 1) for
// long rows, the same bits (1·v is v, exactly), with the CPU's widest
// vectors.
func addRow(dst, row []float64) {
	if len(row) >= addRowMin && len(row) == len(dst) {
		kernel.Triad(dst, dst, row, 1)
		return
	}
	for a, v := range row {
		dst[a] += v
	}
}

// rowMean sets out to the mean of the first rows rows of x.
func (ms *measurer) rowMean(out []float64, x layout.Matrix, rows int) {
	clear(out)
	if rows < parallelRows {
		for k := 0; k < rows; k++ {
			addRow(out, x.Row(k))
		}
	} else {
		P := len(out)
		par.For(reduceSegments, ms.workers, func(_, g int) {
			part := ms.seg[g*P : (g+1)*P]
			clear(part)
			for k := g * rows / reduceSegments; k < (g+1)*rows/reduceSegments; k++ {
				addRow(part, x.Row(k))
			}
		})
		for g := 0; g < reduceSegments; g++ {
			for a, v := range ms.seg[g*P : (g+1)*P] {
				out[a] += v
			}
		}
	}
	for a := range out {
		out[a] /= float64(rows)
	}
	for _, v := range out {
		if math.IsInf(v, 0) { // the sum overflowed: again, scaled
			ms.rowMeanScaled(out, x, rows)
			break
		}
	}
}

// The measurements' spreads (objective_std, consensus) are computed in
// plain arithmetic, and again with every value scaled by a power of two
// (exact) only where that overflowed: values near 1e200 (a huge step size)
// are finite, and so are their spreads, while their squares are not. Where
// nothing overflows, the results (and the engine's golden checksums) are
// those of the plain formulas.

// scaleOf returns the power of two 2^-e with max|v| < 2^e (1 for zeros or
// non-finite values, which stay what they are).
func scaleOf(maxAbs float64) float64 {
	if maxAbs == 0 || math.IsInf(maxAbs, 0) || math.IsNaN(maxAbs) {
		return 1
	}
	_, e := math.Frexp(maxAbs)
	return math.Ldexp(1, -e)
}

// meanStdScaled returns the mean and the population standard deviation of
// v without overflow for finite v.
func meanStdScaled(v []float64) (mean, std float64) {
	var mx float64
	for _, x := range v {
		mx = math.Max(mx, math.Abs(x))
	}
	s := scaleOf(mx)
	var sum float64
	for _, x := range v {
		sum += x * s
	}
	m := float64(len(v))
	ms := sum / m
	var ss float64
	for _, x := range v {
		d := x*s - ms
		ss += d * d
	}
	return ms / s, math.Sqrt(ss/m) / s
}

// distScaled returns ‖x − mean‖ without overflow for finite entries.
func distScaled(x, mean []float64) float64 {
	var mx float64
	for a, v := range x {
		mx = math.Max(mx, math.Max(math.Abs(v), math.Abs(mean[a])))
	}
	s := scaleOf(mx)
	var d2 float64
	for a, v := range x {
		d := v*s - mean[a]*s
		d2 += d * d
	}
	return math.Sqrt(d2) / s
}

// rowMeanScaled is rowMean, serial, with the rows scaled by a power of two
// so that the sums cannot overflow.
func (ms *measurer) rowMeanScaled(out []float64, x layout.Matrix, rows int) {
	var mx float64
	for k := 0; k < rows; k++ {
		for _, v := range x.Row(k) {
			mx = math.Max(mx, math.Abs(v))
		}
	}
	s := scaleOf(mx)
	clear(out)
	for k := 0; k < rows; k++ {
		for a, v := range x.Row(k) {
			out[a] += v * s
		}
	}
	for a := range out {
		out[a] = out[a] / float64(rows) / s
	}
}

// spread returns Σ_k ‖x_k − mean‖ over the first rows rows of x.
func (ms *measurer) spread(x layout.Matrix, mean []float64, rows int) float64 {
	if rows < parallelRows {
		return spreadRange(x, mean, 0, rows)
	}
	par.For(reduceSegments, ms.workers, func(_, g int) {
		ms.seg[g] = spreadRange(x, mean, g*rows/reduceSegments, (g+1)*rows/reduceSegments)
	})
	var spread float64
	for g := 0; g < reduceSegments; g++ {
		spread += ms.seg[g]
	}
	return spread
}

// The spread's pass over every record of a measurement asks for the rows
// passAhead rows ahead, eight at a time: on the compact layout θ̄ is half
// of a 256-byte record (d = 16), and its four rows read entry by entry
// (below) jump back and forth by a record's stride, which the hardware
// prefetchers follow badly (BenchmarkConsensusPasses). The means' pass
// reads whole rows in address order and gains nothing from it.
const passAhead = 16

var iota8 = [8]int32{0, 1, 2, 3, 4, 5, 6, 7}

// prefetchAhead asks for the lines of rows k+passAhead .. k+passAhead+7 of
// x, those that exist. A hint: results never depend on it.
func prefetchAhead(x layout.Matrix, k int) {
	if k+passAhead+8 <= x.Rows {
		x.PrefetchRows(k+passAhead, iota8[:])
	}
}

// spreadRange returns Σ_k ‖x_k − mean‖ over rows lo..hi−1 of x, added in
// row order from 0. Four rows at a time: four independent sums, each in its
// row's order, instead of one chain of dependent additions.
func spreadRange(x layout.Matrix, mean []float64, lo, hi int) float64 {
	fin := func(k int, d2 float64) float64 {
		if math.IsInf(d2, 0) { // overflowed: the row's entries may be finite
			return distScaled(x.Row(k), mean)
		}
		return math.Sqrt(d2)
	}
	var spread float64
	k := lo
	for ; k+4 <= hi; k += 4 {
		if (k-lo)%8 == 0 {
			prefetchAhead(x, k)
		}
		r0, r1, r2, r3 := x.Row(k), x.Row(k+1), x.Row(k+2), x.Row(k+3)
		m := mean[:len(r0)]
		r1, r2, r3 = r1[:len(m)], r2[:len(m)], r3[:len(m)]
		var s0, s1, s2, s3 float64
		for a, mu := range m {
			v0, v1, v2, v3 := r0[a]-mu, r1[a]-mu, r2[a]-mu, r3[a]-mu
			s0 += float64(v0 * v0)
			s1 += float64(v1 * v1)
			s2 += float64(v2 * v2)
			s3 += float64(v3 * v3)
		}
		spread += fin(k, s0)
		spread += fin(k+1, s1)
		spread += fin(k+2, s2)
		spread += fin(k+3, s3)
	}
	for ; k < hi; k++ {
		r := x.Row(k)
		var d2 float64
		for a, v := range r {
			d2 += float64((v - mean[a]) * (v - mean[a]))
		}
		spread += fin(k, d2)
	}
	return spread
}

// evalCount is the number of nodes measured: EvalNodes, or all nodes when
// that costs under autoEvalCost pair-loss evaluations, else a sample.
func evalCount(p *problem.Problem, cfg Config, rows int) int {
	if p.Loss == problem.Custom {
		return evalCountCustom(p.N, p.P, cfg, rows)
	}
	return evalCountShape(p.Loss, p.N, len(p.Positives()), p.D, cfg, rows)
}

// evalCountCustom is evalCount for a user objective: a measurement of one
// node costs n² pair losses.
func evalCountCustom(n, P int, cfg Config, rows int) int {
	m := rows
	switch {
	case cfg.EvalNodes > 0:
		m = min(cfg.EvalNodes, rows)
	case cfg.EvalNodes == 0:
		per := float64(n) * float64(n)
		if float64(rows)*per > autoEvalCost {
			m = autoEvalSample(rows, per)
		}
	}
	return m
}

// autoEvalSample is the number of nodes of a sample measured when all rows
// would cost more than autoEvalCost at per pair losses each: as many as the
// budget pays for, at least 16, never more than there are rows (the
// centralized algorithm's state has a single row, whatever n).
func autoEvalSample(rows int, per float64) int {
	return min(rows, max(16, int(autoEvalCost/per)))
}

func evalCountShape(loss problem.Loss, n, npos, d int, cfg Config, rows int) int {
	m := rows
	switch {
	case cfg.EvalNodes > 0:
		m = min(cfg.EvalNodes, rows)
	case cfg.EvalNodes == 0:
		per := float64(npos) * float64(n-npos)
		if loss.IsMetric() {
			per = float64(n) * float64(n) * float64(d) * 2
		}
		if float64(rows)*per > autoEvalCost {
			m = autoEvalSample(rows, per)
		}
	}
	return m
}

// MeasuredRows returns the m nodes a run measures: all of them when m =
// rows, else m distinct nodes of [0, rows), seeded, sorted: the
// first m of a seeded permutation up to 2¹⁶ nodes (as every earlier version
// did, so the nodes measured at the paper's sizes stay the same), Floyd's
// sampling beyond (O(m) instead of a permutation of every node).
func MeasuredRows(seed uint64, rows, m int) []int {
	if m == rows {
		out := make([]int, rows)
		for k := range out {
			out[k] = k
		}
		return out
	}
	r := rng.New(seed, streamEval)
	var out []int
	if rows <= 1<<16 {
		perm := make([]int, rows)
		r.Perm(perm)
		out = slices.Clone(perm[:m])
	} else {
		seen := make(map[int]struct{}, m)
		out = make([]int, 0, m)
		for j := rows - m; j < rows; j++ {
			v := r.IntN(j + 1)
			if _, dup := seen[v]; dup {
				v = j
			}
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// evalOptions are the evaluator's options of a run: its mode and precision,
// and a pair stream seeded by the run's seed.
func evalOptions(cfg Config) problem.EvalOptions {
	return problem.EvalOptions{Mode: cfg.Measure, Precision: cfg.MeasurePrecision, Seed: rng.Hash(cfg.Seed, hashMeasure, 0)}
}

// MeasureMemory returns the bytes the measurement of a run of cfg on a
// problem of shape sh holds (the evaluator's buffers), before building it.
// It assumes balanced AUC labels; the pairwise method's buffers, the only
// ones that grow with the number of evaluated nodes, are at most
// problem.DefaultMemBudget whatever the balance.
func MeasureMemory(sh Shape, cfg Config) int64 {
	rows := sh.rows(cfg.Algorithm)
	if sh.Loss == problem.Custom {
		m := evalCountCustom(sh.N, sh.P, cfg, rows)
		// Per worker two gradient rows and, for a Scorer, n scores and
		// indices; the sampled objective's block sums; the gathered θ's.
		w := int64(par.Workers(cfg.Workers))
		return w*int64(2*sh.P+2*sh.N)*8 + int64(m)*int64(sh.P+4096+1024)*8
	}
	npos := sh.N / 2
	if sh.Loss.IsMetric() {
		npos = 0
	}
	m := evalCountShape(sh.Loss, sh.N, npos, sh.D, cfg, rows)
	return problem.EvalMemory(sh.Loss, sh.N, npos, sh.D, m, par.Workers(cfg.Workers), evalOptions(cfg))
}

func newMeasurer(s *state, workers int, ws *problem.Workspace) *measurer {
	p, rows := s.prob, s.rows()
	m := evalCount(p, s.cfg, rows)
	ms := &measurer{ws: ws}
	ms.rows = MeasuredRows(s.cfg.Seed, rows, m)
	ms.eval = p.NewEvaluatorWith(m, workers, evalOptions(s.cfg))
	ms.obj = make([]float64, m)
	ms.auc = make([]float64, m)
	ms.zbar = make([]float64, p.P)
	ms.omega = make([]float64, p.P)
	ms.mean = make([]float64, p.P)
	ms.aux = make([]int32, rows)
	ms.workers = workers
	if rows >= parallelRows {
		ms.seg = make([]float64, 2*reduceSegments*p.P) // two means in one pass
	}
	return ms
}

// rowMeans2 sets outX and outY to the means of the first rows rows of x and
// of y in one pass over both, in parallel (rows ≥ parallelRows): the same
// bits as two calls of rowMean (each matrix's segment sums are added in
// the same order), at one pass over memory instead of two where x and y are
// views of one record array (θ̄ and z of the compact layouts).
func (ms *measurer) rowMeans2(outX, outY []float64, x, y layout.Matrix, rows int) {
	P := len(outX)
	par.For(reduceSegments, ms.workers, func(_, g int) {
		px := ms.seg[2*g*P : (2*g+1)*P]
		py := ms.seg[(2*g+1)*P : (2*g+2)*P]
		clear(px)
		clear(py)
		for k := g * rows / reduceSegments; k < (g+1)*rows/reduceSegments; k++ {
			addRow(px, x.Row(k))
			addRow(py, y.Row(k))
		}
	})
	for i, out := range [2][]float64{outX, outY} {
		clear(out)
		for g := 0; g < reduceSegments; g++ {
			for a, v := range ms.seg[(2*g+i)*P : (2*g+i+1)*P] {
				out[a] += v
			}
		}
		for a := range out {
			out[a] /= float64(rows)
		}
	}
	for i, out := range [2][]float64{outX, outY} {
		for _, v := range out {
			if math.IsInf(v, 0) { // the sum overflowed: again, scaled
				ms.rowMeanScaled(out, [2]layout.Matrix{x, y}[i], rows)
				break
			}
		}
	}
}

// SetNodeStats sets r's statistics over the evaluated nodes from their
// objectives obj and AUCs auc (in the nodes' order, which the sums
// follow): ObjMin, ObjMax, ObjMean, ObjStd (taken again, scaled, where the
// plain sums overflow) and AUCMean. Package ranks, which evaluates the nodes
// over MPI ranks, sets them with it, so that its records are engine's.
func (r *Record) SetNodeStats(obj, auc []float64) {
	r.ObjMin, r.ObjMax = math.Inf(1), math.Inf(-1)
	var sum, aucSum float64
	for c := range obj {
		sum += obj[c]
		aucSum += auc[c]
		r.ObjMin = math.Min(r.ObjMin, obj[c])
		r.ObjMax = math.Max(r.ObjMax, obj[c])
	}
	m := float64(len(obj))
	r.ObjMean = sum / m
	r.AUCMean = aucSum / m
	var ss float64
	for _, v := range obj {
		ss += float64((v - r.ObjMean) * (v - r.ObjMean))
	}
	r.ObjStd = math.Sqrt(ss / m)
	if math.IsInf(r.ObjStd, 0) || math.IsInf(r.ObjMean, 0) {
		// The squares (or the sum) overflowed although the values may be
		// finite (objectives near 1e200): again, scaled.
		r.ObjMean, r.ObjStd = meanStdScaled(obj)
	}
}

// measure evaluates s, whose Theta must be materialised. Every reduction
// runs in a fixed order, so the record is the same for any worker count.
func (ms *measurer) measure(s *state) Record {
	p := s.prob
	rows := s.rows()
	r := Record{Iter: s.t, GradEvals: s.gradEvals, GradEvalsNonzero: s.nonzero}
	obj, auc := ms.obj, ms.auc
	est := ms.eval.Estimate(s.ThetaBar, ms.rows, obj, auc)
	r.ObjStdErr, r.AUCStdErr, r.MeasurePairs = est.ObjStdErr, est.AUCStdErr, est.Pairs
	r.Measure.Obj, r.Measure.AUC = est.Obj, est.AUC
	r.SetNodeStats(obj, auc)

	if s.cfg.Algorithm == Centralized {
		return r
	}
	// Consensus spread. At large n the means of θ̄ and of z (for the bias
	// below) are taken in one pass: the compact layouts keep them in one
	// record, and each pass over the records is most of a measurement.
	mean, zbar := ms.mean, ms.zbar
	both := s.t > 0 && rows >= parallelRows
	if both {
		ms.rowMeans2(mean, zbar, s.ThetaBar, s.Z, rows)
	} else {
		ms.rowMean(mean, s.ThetaBar, rows)
	}
	r.Consensus = ms.spread(s.ThetaBar, mean, rows) / float64(rows)

	// Bias: ω = π_t(z̄), clock t (the event count for Async, whose m_k are
	// unbiased estimates of it).
	if s.t > 0 {
		if !both {
			ms.rowMean(zbar, s.Z, rows)
		}
		tf := float64(s.t)
		p.Reg.Smooth(ms.omega, zbar, s.cfg.Gamma(tf), tf, ms.ws)
		// Only the evaluated nodes' auxiliary points are read.
		if s.flushAux != nil {
			s.flushAux(ms.rows)
		}
		for _, k := range ms.rows {
			ms.aux[k] = int32(s.aux(k, s.t+1))
		}
		b := ms.eval.BiasEstimate(s.Theta, ms.aux, ms.rows, ms.omega)
		r.Bias, r.BiasStdErr, r.Measure.Bias = b.Value, b.StdErr, b.Method
	}
	return r
}
