package ranks

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/problem"
)

// The measurement over ranks: the same record as engine's measurer on one
// process, bit for bit.
//
//   - Sums over every node (mean θ̄ and the consensus spread, z̄ for the
//     bias term) run in engine's fixed segments (one below 2¹⁶ nodes, 64
//     from there), each in node order: a segment cut by a rank boundary is
//     continued by the next rank from the partial sum the previous one sends
//     it (P values), and the completed segments' sums are gathered and added
//     in segment order (orderedSums).
//   - The objective, AUC and bias term at the evaluated nodes use the
//     evaluator's sampled methods (and the streamed bias term): their work
//     is cut into the evaluator's blocks of 1024 pairs (or j's), the blocks
//     are shared out among the ranks and their records gathered and
//     combined in block order, as the evaluator does. The data rows a block
//     reads are regenerated from the synthetic generator (a row is a pure
//     function of the seed and its index): nothing of the data is sent.

const (
	parallelRows   = 1 << 16 // engine/measure.go
	reduceSegments = 64
	hashMeasure    = 0x6d656173
	tagCarry       = 11
)

// measurer is a rank's share of the measurement.
type measurer struct {
	l      *local
	rows   []int // evaluated nodes, sorted
	plan   problem.EvalPlan
	opt    problem.EvalOptions
	gen    rowSource
	prec   float64
	blocks []float64
	rowBuf []float64
	delta  []float64
	prod   []float64
	f, fa  []float64
	// The last measurement's θ̄_k and objectives of the evaluated nodes
	// (in rows' order), the same on every rank: what divergence reads.
	lastBars, lastObj []float64
}

func newMeasurer(l *local, cfg engine.Config, gen rowSource, workers int) (*measurer, error) {
	m := engine.EvalCount(l.loss, l.n, l.labels.npos, l.d, cfg)
	ms := &measurer{l: l, rows: engine.MeasuredRows(cfg.Seed, l.n, m), gen: gen}
	ms.opt = problem.EvalOptions{Mode: cfg.Measure, Precision: cfg.MeasurePrecision, Seed: rng.Hash(cfg.Seed, hashMeasure, 0)}
	ms.plan = problem.PlanEval(l.loss, l.n, l.labels.npos, l.d, m, workers, ms.opt)
	ms.prec = problem.EvalPrecision(ms.opt)
	if err := checkExactOverRanks(l.n, ms.plan); err != nil {
		return nil, err
	}
	blocks := max(ms.plan.MaxPairs, problem.DefaultMaxPairs, ms.plan.BiasSamples) / problem.SampleBlock
	blocks = max(blocks, problem.StreamSegments, problem.PilotBlocks)
	ms.blocks = make([]float64, int(blocks)*(2*m+4))
	ms.rowBuf = make([]float64, 2*l.d)
	ms.delta = make([]float64, problem.SampleBlock*l.d)
	ms.prod = make([]float64, problem.SampleBlock*max(m, l.d))
	ms.f = make([]float64, problem.SampleBlock)
	ms.fa = make([]float64, problem.SampleBlock)
	return ms, nil
}

// stopEvery is how many nodes a pass of a measurement takes between two
// looks at local.stop (a power of two).
const stopEvery = 4096

// orderedSums returns, on every rank, the sums over each of engine's
// segments of the n nodes of add(k, acc) (width values), each in node
// order.
func (l *local) orderedSums(width int, add func(k int, acc []float64)) ([]float64, error) {
	n := l.n
	S := 1
	if n >= parallelRows {
		S = reduceSegments
	}
	segLo := func(g int) int { return g * n / S }
	segOf := func(k int) int { // the segment holding node k
		g := k * S / n
		for segLo(g+1) <= k {
			g++
		}
		for segLo(g) > k {
			g--
		}
		return g
	}
	r, size := l.comm.Rank(), l.comm.Size()
	gFirst, gLast := segOf(l.lo), segOf(l.hi-1)
	part := make([]float64, (gLast-gFirst+1)*width)
	acc := func(g int) []float64 { return part[(g-gFirst)*width : (g-gFirst+1)*width] }
	run := func(g, from, to int) {
		a := acc(g)
		for k := from; k < to; k++ {
			if k&(stopEvery-1) == 0 && l.stop.Load() {
				l.cuts++
				return // cut short: the record is dropped (Execute)
			}
			add(k, a)
		}
	}
	rangeOf := func(g int) (int, int) { return max(l.lo, segLo(g)), min(l.hi, segLo(g+1)) }
	needIn := segLo(gFirst) < l.lo
	needOut := segLo(gLast+1) > l.hi
	done := make([]bool, gLast-gFirst+1)
	if needOut && (gLast != gFirst || !needIn) {
		lo, hi := rangeOf(gLast)
		run(gLast, lo, hi)
		done[gLast-gFirst] = true
		if err := l.comm.SendFloat64(acc(gLast), r+1, tagCarry); err != nil {
			return nil, err
		}
	}
	if needIn {
		if err := l.comm.RecvFloat64(acc(gFirst), r-1, tagCarry); err != nil {
			return nil, err
		}
		lo, hi := rangeOf(gFirst)
		run(gFirst, lo, hi)
		done[0] = true
		if needOut && gLast == gFirst {
			if err := l.comm.SendFloat64(acc(gFirst), r+1, tagCarry); err != nil {
				return nil, err
			}
		}
	}
	for g := gFirst; g <= gLast; g++ {
		if !done[g-gFirst] {
			lo, hi := rangeOf(g)
			run(g, lo, hi)
		}
	}
	// The segments that end on this rank are complete here.
	last := gLast
	if needOut {
		last--
	}
	mine := part[:max(0, last-gFirst+1)*width]
	counts := make([]int, size)
	for q := 0; q < size; q++ {
		qlo, qhi := partition(n, size, q)
		qlast := segOf(qhi - 1)
		if segLo(qlast+1) > qhi {
			qlast--
		}
		// The segments completed on q: those whose last node is q's.
		counts[q] = max(0, qlast-segOf(qlo)+1) * width
	}
	out := make([]float64, S*width)
	if err := l.comm.AllgathervFloat64(mine, counts, out); err != nil {
		return nil, err
	}
	return out, nil
}

// rowMean sets out to the mean over every node of the rows row(k) (engine's
// measurer.rowMean).
func (l *local) rowMean(out []float64, row func(k int) []float64) error {
	P := len(out)
	segs, err := l.orderedSums(P, func(k int, acc []float64) {
		for a, v := range row(k) {
			acc[a] += v
		}
	})
	if err != nil {
		return err
	}
	clear(out)
	for g := 0; g < len(segs)/P; g++ {
		for a, v := range segs[g*P : (g+1)*P] {
			out[a] += v
		}
	}
	for a := range out {
		out[a] /= float64(l.n)
	}
	return nil
}

// spread returns Σ_k ‖θ̄_k − mean‖ (engine's measurer.spread).
func (l *local) spread(mean []float64) (float64, error) {
	segs, err := l.orderedSums(1, func(k int, acc []float64) {
		var d2 float64
		for a, v := range l.barRow(k) {
			d2 += float64((v - mean[a]) * (v - mean[a]))
		}
		acc[0] += math.Sqrt(d2)
	})
	if err != nil {
		return 0, err
	}
	var s float64
	for _, v := range segs {
		s += v
	}
	return s, nil
}

// gatherRows returns, on every rank, the rows row(k) of the evaluated
// nodes (in their order) and their y indices.
func (ms *measurer) gatherRows(width int, row func(k int, dst []float64)) ([]float64, error) {
	l := ms.l
	size := l.comm.Size()
	counts := make([]int, size)
	var mine []float64
	buf := make([]float64, width)
	for _, k := range ms.rows {
		o := ownerOf(k, l.n, size)
		counts[o] += width
		if o == l.comm.Rank() {
			row(k, buf)
			mine = append(mine, buf...)
		}
	}
	out := make([]float64, len(ms.rows)*width)
	return out, l.comm.AllgathervFloat64(mine, counts, out)
}

// divergence is engine.MeasuredDivergence of the record rec of the last
// measurement (a built-in loss: over ranks no other runs). Every rank
// holds the gathered rows, so every rank returns the same.
func (ms *measurer) divergence(rec engine.Record) error {
	P := ms.l.P
	if de := engine.MeasuredDivergence(rec.Iter, rec, ms.rows, func(c int) []float64 { return ms.lastBars[c*P : (c+1)*P] }, ms.lastObj, true); de != nil {
		return de
	}
	return nil
}

// measure returns the record of the current state.
func (ms *measurer) measure(gradEvals int64) (engine.Record, error) {
	l := ms.l
	m := len(ms.rows)
	nz := []int64{l.nonzero}
	if err := l.comm.AllreduceInt64(nz, mpi.Sum); err != nil {
		return engine.Record{}, err
	}
	r := engine.Record{Iter: l.t, GradEvals: gradEvals, GradEvalsNonzero: nz[0]}
	P := l.P
	bars, err := ms.gatherRows(P, func(k int, dst []float64) { copy(dst, l.barRow(k)) })
	if err != nil {
		return r, err
	}
	obj, auc := make([]float64, m), make([]float64, m)
	if ok, err := ms.distinct(bars, obj, auc, &r); ok || err != nil {
		if err != nil {
			return r, err
		}
	} else if err := ms.planned(bars, obj, auc, &r); err != nil {
		return r, err
	}
	r.SetNodeStats(obj, auc)
	ms.lastBars, ms.lastObj = bars, obj

	mean := make([]float64, P)
	if err := l.rowMean(mean, l.barRow); err != nil {
		return r, err
	}
	sp, err := l.spread(mean)
	if err != nil {
		return r, err
	}
	r.Consensus = sp / float64(l.n)
	if l.t > 0 {
		zbar := make([]float64, P)
		if err := l.rowMean(zbar, l.zRow); err != nil {
			return r, err
		}
		tf := float64(l.t)
		omega := make([]float64, P)
		l.reg.Smooth(omega, zbar, l.step.Gamma(tf), tf, nil)
		// θ_k = c·z_k and y_k of the evaluated nodes.
		th, err := ms.gatherRows(P+1, func(k int, dst []float64) {
			kernel.Scale(dst[:P], l.zRow(k), l.thetaScale(k))
			dst[P] = float64(l.y[k-l.lo])
		})
		if err != nil {
			return r, err
		}
		var b problem.BiasEstimate
		if ms.plan.Bias == problem.MethodPairwise {
			b, err = ms.biasPairwise(th, omega)
		} else {
			b, err = ms.bias(th, omega)
		}
		if err != nil {
			return r, err
		}
		r.Bias, r.BiasStdErr, r.Measure.Bias = b.Value, b.StdErr, b.Method
	}
	return r, nil
}

// planned measures the m vectors bars by the evaluator's plan for m.
func (ms *measurer) planned(bars, obj, auc []float64, r *engine.Record) error {
	exactObj, exactAUC := ms.plan.Obj != problem.MethodSampled, ms.plan.AUC != problem.MethodSampled
	if exactObj || exactAUC {
		if err := ms.exact(bars, obj, auc, ms.plan.Obj, ms.plan.AUC, exactObj, exactAUC); err != nil {
			return err
		}
	}
	if !exactObj || !exactAUC {
		var so, sa []float64
		if !exactObj {
			so = obj
		}
		if !exactAUC {
			sa = auc
		}
		objSE, aucSE, pairs, err := ms.sampled(bars, so, sa)
		if err != nil {
			return err
		}
		r.ObjStdErr, r.AUCStdErr, r.MeasurePairs = objSE, aucSE, pairs
	}
	r.Measure.Obj, r.Measure.AUC = ms.plan.Obj, ms.plan.AUC
	return nil
}

// distinct is the Evaluator's estimateDistinct over ranks: when the plan
// samples but the m vectors hold fewer distinct values whose plan on one
// worker is exact (problem.EvalPlan.Distinct), each distinct value is
// measured once by that plan and its results copied to the vectors equal to
// it. ok is false when it does not apply.
func (ms *measurer) distinct(bars, obj, auc []float64, r *engine.Record) (ok bool, err error) {
	if !ms.plan.Distinct {
		return false, nil
	}
	l := ms.l
	P, m := l.P, len(ms.rows)
	row := func(c int) []float64 { return bars[c*P : (c+1)*P] }
	rep := make([]int, m)
	reps := problem.Distinct(m, row, rep, nil)
	u := len(reps)
	if u == m {
		return false, nil
	}
	pl := problem.PlanEval(l.loss, l.n, l.labels.npos, l.d, u, 1, ms.opt)
	if !problem.DistinctExact(pl) {
		return false, nil
	}
	vecs := make([]float64, u*P)
	for x, c := range reps {
		copy(vecs[x*P:(x+1)*P], row(c))
	}
	uo, ua := make([]float64, u), make([]float64, u)
	if err := ms.exact(vecs, uo, ua, pl.Obj, pl.AUC, true, true); err != nil {
		return true, err
	}
	at := make([]int, m) // index of each distinct vector in reps
	for x, c := range reps {
		at[c] = x
	}
	for c := range m {
		obj[c], auc[c] = uo[at[rep[c]]], ua[at[rep[c]]]
	}
	r.Measure.Obj, r.Measure.AUC = pl.Obj, pl.AUC
	return true, nil
}

// pairAt is problem's Evaluator.pairAt for the AUC losses.
func (ms *measurer) pairAt(idx uint64) (i, j int) {
	lb, seed := &ms.l.labels, ms.opt.Seed
	return lb.selectIdx(rng.HashIntN(seed, idx, problem.KeyFirst, lb.npos), true),
		lb.selectIdx(rng.HashIntN(seed, idx, problem.KeySecond, lb.n-lb.npos), false)
}

// shareBlocks runs fn on this rank's share of blocks [lo, hi) (each
// writing the record of stride values at blocks[b·stride:]) and gathers
// every rank's records.
func (ms *measurer) shareBlocks(lo, hi, stride int, fn func(b int, out []float64)) error {
	l := ms.l
	size, me := l.comm.Size(), l.comm.Rank()
	counts := make([]int, size)
	for q := 0; q < size; q++ {
		a, b := mpi.Block(hi-lo, size, q)
		counts[q] = (b - a) * stride
	}
	a, b := mpi.Block(hi-lo, size, me)
	mine := make([]float64, (b-a)*stride)
	for x := a; x < b; x++ {
		if l.stop.Load() {
			l.cuts++
			break // cut short: the record is dropped (Execute)
		}
		fn(lo+x, mine[(x-a)*stride:(x-a+1)*stride])
	}
	return l.comm.AllgathervFloat64(mine, counts, ms.blocks[lo*stride:hi*stride])
}

func dot(a, b []float64) float64 {
	var s float64
	a = a[:len(b)]
	for i, v := range b {
		s += a[i] * v
	}
	return s
}

// thetaT returns the d×m transpose of the m rows of width d in rows.
func thetaT(rows []float64, m, d, width int) []float64 {
	t := make([]float64, d*m)
	for c := 0; c < m; c++ {
		for a := 0; a < d; a++ {
			t[a*m+c] = rows[c*width+a]
		}
	}
	return t
}

// sampleBlock is problem's sampleBlockSums for the AUC losses.
func (ms *measurer) sampleBlock(tt []float64, blk, m int, out []float64) {
	l := ms.l
	d := l.d
	SB := problem.SampleBlock
	clear(out)
	S, A, st := out[:m], out[m:2*m], out[2*m:]
	base := uint64(blk) * uint64(SB)
	xi, xj := ms.rowBuf[:d], ms.rowBuf[d:2*d]
	for t := 0; t < SB; t++ {
		i, j := ms.pairAt(base + uint64(t))
		ms.gen.Row(i, xi)
		ms.gen.Row(j, xj)
		dr := ms.delta[t*d : (t+1)*d]
		for a := range dr {
			dr[a] = xi[a] - xj[a]
		}
	}
	prod := blas64.General{Rows: SB, Cols: m, Stride: m, Data: ms.prod}
	problem.GemmSerial(blas.NoTrans, blas64.General{Rows: SB, Cols: d, Stride: d, Data: ms.delta},
		blas64.General{Rows: d, Cols: m, Stride: m, Data: tt}, prod)
	problem.AccumulateMargins(l.loss, ms.prod, m, m, S, A, ms.f[:SB], ms.fa[:SB], true)
	st[0], st[1] = problem.SumM2(ms.f)
	st[2], st[3] = problem.SumM2(ms.fa)
}

// combine is problem's Evaluator.combine on the gathered blocks.
func (ms *measurer) combine(k, m, off int) (mean, variance float64) {
	return problem.CombineBlocks(ms.blocks, k, m, off)
}

// sampled is problem's Evaluator.sampled with the blocks shared out among
// the ranks: obj (the objective) and auc (the AUC) are set when not nil.
func (ms *measurer) sampled(bars []float64, obj, auc []float64) (objSE, aucSE float64, pairs int64, err error) {
	l := ms.l
	m, d, SB := len(ms.rows), l.d, problem.SampleBlock
	tt := thetaT(bars, m, d, l.P)
	stride := 2*m + 4
	run := func(lo, hi int) error {
		return ms.shareBlocks(lo, hi, stride, func(b int, out []float64) { ms.sampleBlock(tt, b, m, out) })
	}
	n := float64(l.n)
	scale := float64(l.labels.npos) / n * float64(l.n-l.labels.npos) / n
	psi := make([]float64, m)
	var psiMean float64
	for c := range psi {
		psi[c] = l.reg.Value(bars[c*l.P : (c+1)*l.P])
		psiMean += psi[c]
	}
	psiMean /= float64(m)
	pilot := problem.PilotBlocks
	if err := run(0, pilot); err != nil {
		return 0, 0, 0, err
	}
	rho := ms.prec
	var need float64
	if obj != nil {
		gm, gv := ms.combine(pilot, m, 0)
		if v := scale*gm + psiMean; v != 0 {
			need = scale * scale * gv / (rho * rho * v * v)
		}
	}
	if auc != nil {
		am, av := ms.combine(pilot, m, 2)
		if am != 0 {
			need = math.Max(need, av/(rho*rho*am*am))
		}
	}
	maxK := max(int(ms.plan.MaxPairs/int64(SB)), pilot)
	k := pilot
	switch {
	case math.IsNaN(need):
	case need >= float64(maxK*SB):
		k = maxK
	default:
		k = max(pilot, int(math.Ceil(need/float64(SB))))
	}
	if err := run(pilot, k); err != nil {
		return 0, 0, 0, err
	}
	B := float64(k * SB)
	for c := 0; c < m; c++ {
		var s, a float64
		for b := 0; b < k; b++ {
			s += ms.blocks[b*stride+c]
			a += ms.blocks[b*stride+m+c]
		}
		if obj != nil {
			obj[c] = scale*s/B + psi[c]
		}
		if auc != nil {
			auc[c] = a / B
		}
	}
	if obj != nil {
		_, gv := ms.combine(k, m, 0)
		objSE = scale * math.Sqrt(gv/B)
	}
	if auc != nil {
		_, av := ms.combine(k, m, 2)
		aucSE = math.Sqrt(av / B)
	}
	return objSE, aucSE, int64(k * SB), nil
}

// bias is problem's Evaluator.biasLarge for the AUC losses: th holds θ_k
// and y_k of each evaluated node (width P+1).
func (ms *measurer) bias(th, omega []float64) (problem.BiasEstimate, error) {
	l, pl := ms.l, ms.plan
	res := problem.BiasEstimate{Method: pl.Bias}
	m, d, P, SB := len(ms.rows), l.d, l.P, problem.SampleBlock
	if m == 0 {
		return res, nil
	}
	est, sk, rk := make([]float64, m), make([]float64, m), make([]float64, m)
	xk, xj := make([]float64, d), make([]float64, d)
	for c, k := range ms.rows {
		t := th[c*(P+1) : c*(P+1)+P]
		j := int(th[c*(P+1)+P])
		ms.gen.Row(k, xk)
		ms.gen.Row(j, xj)
		sk[c], rk[c] = dot(t, xk), dot(omega, xk)
		if l.labels.at(k) == 1 && l.labels.at(j) == -1 {
			est[c] = l.loss.MarginDeriv(sk[c]-dot(t, xj)) * (rk[c] - dot(omega, xj))
		}
	}
	tt := thetaT(th, m, d, P+1)
	count := l.n - l.labels.npos
	stride := 2*m + 4
	block := func(first uint64, cnt int, sampled bool, out []float64) {
		for t := 0; t < cnt; t++ {
			idx := first + uint64(t)
			var j int
			if sampled {
				j = l.labels.selectIdx(rng.HashIntN(ms.opt.Seed, idx, problem.KeyBias, count), false)
			} else {
				j = l.labels.selectIdx(int(idx), false)
			}
			ms.gen.Row(j, ms.delta[t*d:(t+1)*d])
		}
		prod := blas64.General{Rows: cnt, Cols: m, Stride: m, Data: ms.prod}
		problem.GemmSerial(blas.NoTrans, blas64.General{Rows: cnt, Cols: d, Stride: d, Data: ms.delta},
			blas64.General{Rows: d, Cols: m, Stride: m, Data: tt}, prod)
		inv := 1 / float64(m)
		for t := 0; t < cnt; t++ {
			rj := dot(omega, ms.delta[t*d:(t+1)*d])
			row := ms.prod[t*m : (t+1)*m]
			var h float64
			for c, k := range ms.rows {
				if l.labels.at(k) != 1 {
					continue
				}
				v := l.loss.MarginDeriv(sk[c]-row[c]) * (rk[c] - rj)
				out[c] += v
				h += v
			}
			ms.f[t] = h * inv
		}
	}
	var k int
	var err error
	if pl.Bias == problem.MethodSampled {
		k = int(pl.BiasSamples / int64(SB))
		err = ms.shareBlocks(0, k, stride, func(b int, out []float64) {
			clear(out)
			block(uint64(b)*uint64(SB), SB, true, out)
			out[2*m], out[2*m+1] = problem.SumM2(ms.f)
		})
	} else {
		k = problem.StreamSegments
		err = ms.shareBlocks(0, k, stride, func(seg int, out []float64) {
			clear(out)
			lo, hi := seg*count/k, (seg+1)*count/k
			for b := lo; b < hi; b += SB {
				block(uint64(b), min(SB, hi-b), false, out)
			}
		})
	}
	if err != nil {
		return res, err
	}
	invN := 1 / float64(l.n)
	frac := float64(count) * invN
	var sum float64
	for c := 0; c < m; c++ {
		var t float64
		for b := 0; b < k; b++ {
			t += ms.blocks[b*stride+c]
		}
		if pl.Bias == problem.MethodSampled {
			t = frac * t / float64(k*SB)
		} else {
			t *= invN
		}
		sum += est[c] - t
	}
	res.Value = sum / float64(m)
	if pl.Bias == problem.MethodSampled {
		_, hv := ms.combine(k, m, 0)
		res.StdErr = frac * math.Sqrt(hv/float64(k*SB))
		res.Samples = int64(k * SB)
	}
	return res, nil
}
