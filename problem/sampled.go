package problem

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// The sampled pairs and the bias term's j's are rows of X at random (or,
// streamed, the negatives in index order with gaps); a block's rows are
// drawn first and asked for xAhead rows before they are read, eight at a
// time (prefetchX), so that their misses overlap: one at a time, each
// waited for the memory's latency.
const xAhead = 16

// prefetchX asks for rows idx[t+xAhead : t+xAhead+8] of X, those that
// exist, when t is a multiple of 8. A hint: results never depend on it.
func (p *Problem) prefetchX(idx []int32, t int) {
	if t%8 == 0 && t+xAhead < len(idx) {
		p.X.PrefetchRows(0, idx[t+xAhead:min(t+xAhead+8, len(idx))])
	}
}

// Sampled measurement: the incomplete U-statistics of evalplan.go, and the
// bias term over all j or a sample of them, both in blocks of a fixed size
// whose sums are combined in block order (any number of workers gives the
// same bits).

const (
	// maxBiasSamples caps the j's of a sampled bias term.
	maxBiasSamples = 1 << 17
	// streamSegments is the number of fixed segments the exact bias term's
	// j's are cut into (each summed in order by one worker).
	streamSegments = 64
)

// blockStride is the length of one block's record: m per-vector loss sums,
// m per-vector AUC sums, then Σg, Σ(g − ḡ)², Σa, Σ(a − ā)² of the block's
// per-pair means over the vectors.
func blockStride(m int) int { return 2*m + 4 }

// Keys of the counter-based pair stream: pair idx is (i, j) =
// (Hash(seed, idx, keyFirst), Hash(seed, idx, keySecond)); the bias term's
// j's use keyBias.
const (
	keyFirst  = 0
	keySecond = 1
	keyBias   = 2
)

// pairAt returns sampled pair idx: (positive, negative) for the AUC losses,
// uniform over [n]² for metric learning.
func (e *Evaluator) pairAt(idx uint64) (i, j int) {
	p, seed := e.p, e.opt.Seed
	if p.Loss.IsMetric() {
		return rng.HashIntN(seed, idx, keyFirst, p.N), rng.HashIntN(seed, idx, keySecond, p.N)
	}
	return int(p.pos[rng.HashIntN(seed, idx, keyFirst, len(p.pos))]), int(p.neg[rng.HashIntN(seed, idx, keySecond, len(p.neg))])
}

// sumM2 returns Σv and Σ(v − mean)².
func sumM2(v []float64) (sum, m2 float64) { return SumM2(v) }

// SumM2 returns Σv and Σ(v − mean)², a sampled block's statistics (the
// Evaluator's and the measurement over MPI ranks').
func SumM2(v []float64) (sum, m2 float64) {
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	for _, x := range v {
		m2 += (x - mean) * (x - mean)
	}
	return sum, m2
}

// transposeTheta sets e.thetaT (d×m) to the first m gathered rows,
// transposed, so that a block of rows times it is a NoTrans product.
func (e *Evaluator) transposeTheta(m int) {
	for c := 0; c < m; c++ {
		for a, v := range e.theta.Row(c) {
			e.thetaT.Row(a)[c] = v
		}
	}
}

// sampleBlockSums evaluates the sampled pairs of block blk for the first m
// gathered vectors into its record.
func (e *Evaluator) sampleBlockSums(sc *evalScratch, blk, m int, wantAUC bool) {
	p := e.p
	d := p.D
	out := e.blocks[blk*blockStride(m) : (blk+1)*blockStride(m)]
	clear(out)
	S, A, st := out[:m], out[m:2*m], out[2*m:]
	base := uint64(blk) * sampleBlock
	metric := p.Loss.IsMetric()
	for t := 0; t < sampleBlock; t++ {
		i, j := e.pairAt(base + uint64(t))
		sc.ri[t], sc.rj[t] = int32(i), int32(j)
	}
	for t := 0; t < sampleBlock; t++ {
		p.prefetchX(sc.ri, t)
		p.prefetchX(sc.rj, t)
		i, j := int(sc.ri[t]), int(sc.rj[t])
		xi, xj, dr := p.X.Row(i), p.X.Row(j), sc.delta.Row(t)
		for a := range dr {
			dr[a] = xi[a] - xj[a]
		}
		if metric {
			sc.sgn[t] = p.sign(i, j)
		}
	}
	dl := sc.delta.General()
	inv := 1 / float64(m)
	if !metric {
		prod := blas64.General{Rows: sampleBlock, Cols: m, Stride: sc.prod.Stride, Data: sc.prod.Data}
		tt := blas64.General{Rows: d, Cols: m, Stride: e.thetaT.Stride, Data: e.thetaT.Data}
		gemm(blas.NoTrans, dl, tt, prod)
		AccumulateMargins(p.Loss, sc.prod.Data, sc.prod.Stride, m, S, A, sc.f, sc.fa, wantAUC)
	} else {
		clear(sc.f)
		prod := blas64.General{Rows: sampleBlock, Cols: d, Stride: sc.prod.Stride, Data: sc.prod.Data}
		for c := 0; c < m; c++ {
			th := blas64.General{Rows: d, Cols: d, Stride: d, Data: e.theta.Row(c)}
			gemm(blas.NoTrans, dl, th, prod)
			for t := 0; t < sampleBlock; t++ {
				dr, pr := sc.delta.Row(t), sc.prod.Row(t)
				var dist float64
				for a := 0; a < d; a++ {
					dist += pr[a] * dr[a]
				}
				f := math.Max(0, 1-sc.sgn[t]*(p.B-dist))
				S[c] += f
				sc.f[t] += f
			}
		}
		for t := range sc.f {
			sc.f[t] *= inv
		}
	}
	st[0], st[1] = sumM2(sc.f)
	if wantAUC {
		st[2], st[3] = sumM2(sc.fa)
	}
}

// combine returns, over the first k block records, the mean and sample
// variance of the per-pair means at offset off (0: loss, 2: AUC) of the
// records' statistics.
func (e *Evaluator) combine(k, m, off int) (mean, variance float64) {
	return CombineBlocks(e.blocks, k, m, off)
}

// CombineBlocks returns the mean and variance of a pair statistic over k
// sampled blocks of sampleBlock pairs laid out as the Evaluator's blocks
// (blockStride(m) floats a block; at 2m+off the block's sum of the
// statistic, at 2m+off+1 its sum of squared deviations, as SumM2 gives
// them), from the blocks' own sums and deviations (Chan's update). The
// measurement over MPI ranks (package ranks) combines its gathered blocks
// with it.
func CombineBlocks(blocks []float64, k, m, off int) (mean, variance float64) {
	stride := blockStride(m)
	var sum float64
	for b := 0; b < k; b++ {
		sum += blocks[b*stride+2*m+off]
	}
	nb := float64(k * sampleBlock)
	mean = sum / nb
	var m2 float64
	for b := 0; b < k; b++ {
		r := blocks[b*stride+2*m:]
		dm := r[off]/sampleBlock - mean
		m2 += r[off+1] + sampleBlock*dm*dm
	}
	return mean, m2 / (nb - 1)
}

// sampled sets obj (if not nil) and auc (if not nil) of the first m
// gathered vectors to their incomplete U-statistics and returns the
// standard errors of their means over the vectors and the pairs drawn.
func (e *Evaluator) sampled(m int, obj, auc []float64) (objSE, aucSE float64, pairs int64) {
	p := e.p
	wantAUC := auc != nil
	if !p.Loss.IsMetric() {
		e.transposeTheta(m)
	}
	run := func(lo, hi int) {
		par.For(hi-lo, e.workers, func(w, k int) { e.sampleBlockSums(&e.scratch[w], lo+k, m, wantAUC) })
	}
	scale := 1.0
	if !p.Loss.IsMetric() {
		n := float64(p.N)
		scale = float64(len(p.pos)) / n * float64(len(p.neg)) / n
	}
	psi := e.per[:m]
	var psiMean float64
	for c := range psi {
		psi[c] = p.Reg.Value(e.theta.Row(c))
		psiMean += psi[c]
	}
	psiMean /= float64(m)

	// Pilot, then the blocks the requested precision needs.
	run(0, pilotBlocks)
	rho := e.opt.Precision
	var need float64
	if obj != nil {
		gm, gv := e.combine(pilotBlocks, m, 0)
		if v := scale*gm + psiMean; v != 0 {
			need = scale * scale * gv / (rho * rho * v * v)
		}
	}
	if wantAUC {
		am, av := e.combine(pilotBlocks, m, 2)
		if am != 0 {
			need = math.Max(need, av/(rho*rho*am*am))
		}
	}
	maxK := max(int(e.plan.MaxPairs/sampleBlock), pilotBlocks)
	k := pilotBlocks
	switch {
	case math.IsNaN(need):
	case need >= float64(maxK*sampleBlock):
		k = maxK
	default:
		k = max(pilotBlocks, int(math.Ceil(need/sampleBlock)))
	}
	run(pilotBlocks, k)

	stride := blockStride(m)
	B := float64(k * sampleBlock)
	for c := 0; c < m; c++ {
		var s, a float64
		for b := 0; b < k; b++ {
			s += e.blocks[b*stride+c]
			a += e.blocks[b*stride+m+c]
		}
		if obj != nil {
			obj[c] = scale*s/B + psi[c]
		}
		if wantAUC {
			auc[c] = a / B
		}
	}
	if obj != nil {
		_, gv := e.combine(k, m, 0)
		objSE = scale * math.Sqrt(gv/B)
	}
	if wantAUC {
		_, av := e.combine(k, m, 2)
		aucSE = math.Sqrt(av / B)
	}
	return objSE, aucSE, int64(k * sampleBlock)
}

// biasLarge is BiasEstimate by the streamed (every j, in blocks) or the
// sampled method: ε_k·ω = est_k − (1/n) Σ_j t_k(j), with t_k(j) the term of
// point j in node k's full partial gradient (AUC: φ'((x_k − x_j)ᵀθ_k)·
// (x_k − x_j)ᵀω over the negatives, for a positive k; metric learning:
// s_kj·δᵀΩδ over the active j ∈ [n]) and est_k that of its auxiliary point.
// The sampled form draws j uniformly (negatives for AUC), the same j's for
// every node; its standard error is that of the node-averaged term.
func (e *Evaluator) biasLarge(theta layout.Matrix, aux []int32, rows []int, omega []float64) BiasEstimate {
	p, pl := e.p, e.plan
	res := BiasEstimate{Method: pl.Bias}
	if len(rows) == 0 {
		return res
	}
	e.gather(theta, rows)
	m := len(rows)
	metric := p.Loss.IsMetric()
	est := e.per[:m]
	sk, rk := e.per[m:2*m], e.per[2*m:3*m]
	for c, k := range rows {
		th, xk := e.theta.Row(c), p.X.Row(k)
		j := int(aux[k])
		xj := p.X.Row(j)
		est[c] = 0
		if metric {
			s := p.sign(k, j)
			if s*(p.B-p.Dist(th, xk, xj)) < 1 {
				est[c] = s * p.Dist(omega, xk, xj)
			}
			continue
		}
		sk[c], rk[c] = dot(th, xk), dot(omega, xk)
		if p.Label[k] == 1 && p.Label[j] == -1 {
			est[c] = p.Loss.MarginDeriv(sk[c]-dot(th, xj)) * (rk[c] - dot(omega, xj))
		}
	}
	if !metric {
		e.transposeTheta(m)
	}
	count := p.N
	if !metric {
		count = len(p.neg)
	}
	stride := blockStride(m)
	var k int
	if pl.Bias == MethodSampled {
		k = int(pl.BiasSamples / sampleBlock)
		par.For(k, e.workers, func(w, b int) {
			out := e.blocks[b*stride : (b+1)*stride]
			clear(out)
			if e.stopped() { // SetStop: a partial sum, which the caller discards
				return
			}
			e.biasBlock(&e.scratch[w], rows, omega, uint64(b)*sampleBlock, sampleBlock, true, out)
			out[2*m], out[2*m+1] = sumM2(e.scratch[w].f)
		})
	} else {
		k = streamSegments
		par.For(k, e.workers, func(w, seg int) {
			out := e.blocks[seg*stride : (seg+1)*stride]
			clear(out)
			lo, hi := seg*count/streamSegments, (seg+1)*count/streamSegments
			for b := lo; b < hi && !e.stopped(); b += sampleBlock {
				e.biasBlock(&e.scratch[w], rows, omega, uint64(b), min(sampleBlock, hi-b), false, out)
			}
		})
	}
	invN := 1 / float64(p.N)
	frac := float64(count) * invN
	var sum float64
	for c := 0; c < m; c++ {
		var t float64
		for b := 0; b < k; b++ {
			t += e.blocks[b*stride+c]
		}
		if pl.Bias == MethodSampled {
			t = frac * t / float64(k*sampleBlock)
		} else {
			t *= invN
		}
		sum += est[c] - t
	}
	res.Value = sum / float64(m)
	if pl.Bias == MethodSampled {
		_, hv := e.combine(k, m, 0)
		res.StdErr = frac * math.Sqrt(hv/float64(k*sampleBlock))
		res.Samples = int64(k * sampleBlock)
	}
	return res
}

// biasPiece is how many negatives of a bias block biasBlock takes at a
// time between two looks at SetStop's flag.
const biasPiece = 128

// biasBlock adds to out[:m] the terms t_c(j) of cnt points j: sampled ones
// from index first of the bias stream, or the points first, first+1, ... of
// the negatives (AUC) or of [n] (metric). It leaves the per-j means over the
// vectors in sc.f[:cnt].
func (e *Evaluator) biasBlock(sc *evalScratch, rows []int, omega []float64, first uint64, cnt int, sampled bool, out []float64) {
	p := e.p
	m := len(rows)
	metric := p.Loss.IsMetric()
	jAt := func(t int) int {
		idx := first + uint64(t)
		switch {
		case sampled && metric:
			return rng.HashIntN(e.opt.Seed, idx, keyBias, p.N)
		case sampled:
			return int(p.neg[rng.HashIntN(e.opt.Seed, idx, keyBias, len(p.neg))])
		case metric:
			return int(idx)
		}
		return int(p.neg[idx])
	}
	inv := 1 / float64(m)
	if metric {
		for t := 0; t < cnt; t++ {
			j := jAt(t)
			xj := p.X.Row(j)
			var h float64
			for c, k := range rows {
				xk := p.X.Row(k)
				s := p.sign(k, j)
				if s*(p.B-p.Dist(e.theta.Row(c), xk, xj)) < 1 {
					v := s * p.Dist(omega, xk, xj)
					out[c] += v
					h += v
				}
			}
			sc.f[t] = h * inv
		}
		return
	}
	rj := sc.rj[:cnt]
	for t := range rj {
		rj[t] = int32(jAt(t))
	}
	for t, j := range rj {
		p.prefetchX(rj, t)
		copy(sc.delta.Row(t), p.X.Row(int(j)))
	}
	d := p.D
	tt := blas64.General{Rows: d, Cols: m, Stride: e.thetaT.Stride, Data: e.thetaT.Data}
	sk, rk := e.per[m:2*m], e.per[2*m:3*m]
	// The block's pairs by pieces of biasPiece negatives (the product's
	// rows, each computed on its own: the same numbers as in one product),
	// so that a measurement of many nodes sees SetStop's flag within a
	// fraction of a second.
	for t := 0; t < cnt; t++ {
		if t%biasPiece == 0 {
			if e.stopped() {
				return // a partial sum, which the caller discards
			}
			hi := min(t+biasPiece, cnt)
			xb := blas64.General{Rows: hi - t, Cols: d, Stride: sc.delta.Stride, Data: sc.delta.Data[t*sc.delta.Stride:]}
			prod := blas64.General{Rows: hi - t, Cols: m, Stride: sc.prod.Stride, Data: sc.prod.Data[t*sc.prod.Stride:]}
			gemm(blas.NoTrans, xb, tt, prod)
		}
		rj := dot(omega, sc.delta.Row(t))
		row := sc.prod.Row(t)[:m]
		var h float64
		for c, k := range rows {
			if p.Label[k] != 1 {
				continue
			}
			v := p.Loss.MarginDeriv(sk[c]-row[c]) * (rk[c] - rj)
			out[c] += v
			h += v
		}
		sc.f[t] = h * inv
	}
}

// gemm sets c = a·op(b) (a not transposed). Without a transpose it is
// gemmNN; with one, gonum's serial kernel: the product is cut into pieces of
// at most serialRows×serialCols, below the size from which blas64.Gemm
// starts goroutines (4 blocks of 64×64), since the callers already run one
// per worker.
func gemm(tB blas.Transpose, a, b, c blas64.General) {
	if tB == blas.NoTrans {
		gemmNN(a, b, c)
		return
	}
	const serialRows, serialCols = 192, 64
	for i := 0; i < c.Rows; i += serialRows {
		ni := min(serialRows, c.Rows-i)
		as := blas64.General{Rows: ni, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i*a.Stride:]}
		for j := 0; j < c.Cols; j += serialCols {
			nj := min(serialCols, c.Cols-j)
			cs := blas64.General{Rows: ni, Cols: nj, Stride: c.Stride, Data: c.Data[i*c.Stride+j:]}
			var bs blas64.General
			if tB == blas.NoTrans {
				bs = blas64.General{Rows: b.Rows, Cols: nj, Stride: b.Stride, Data: b.Data[j:]}
			} else {
				bs = blas64.General{Rows: nj, Cols: b.Cols, Stride: b.Stride, Data: b.Data[j*b.Stride:]}
			}
			blas64.Gemm(blas.NoTrans, tB, 1, as, bs, 0, cs)
		}
	}
}

// dot returns Σ a_i·b_i over len(b).
func dot(a, b []float64) float64 {
	var s float64
	a = a[:len(b)]
	for i, v := range b {
		s += a[i] * v
	}
	return s
}

// AccumulateMargins is the inner loop of the sampled AUC objective over one
// block of len(f) sampled pairs: row t of prod (stride apart) holds pair t's
// margins against the m measured θ's; it adds each θ's pair losses into S
// and, when wantAUC, its AUC counts (a tie counts one half) into A, and sets
// f[t] and fa[t] to pair t's mean loss and AUC count over the θ's. The
// distributed measurement (package dist) calls it too, for the same bits.
func AccumulateMargins(loss Loss, prod []float64, stride, m int, S, A, f, fa []float64, wantAUC bool) {
	inv := 1 / float64(m)
	for t := range f {
		row := prod[t*stride : t*stride+m]
		var g, ga float64
		for c, mg := range row {
			v := loss.MarginLoss(mg)
			S[c] += v
			g += v
			if wantAUC {
				var ind float64
				switch {
				case mg > 0:
					ind = 1
				case mg == 0:
					ind = 0.5
				}
				A[c] += ind
				ga += ind
			}
		}
		f[t], fa[t] = g*inv, ga*inv
	}
}

// gemmNN sets c = a·b (row-major, neither transposed) by the operations of
// gonum's serial kernel after Dgemm's β = 0 clear — row i of c starts at
// zero and gets a_il·b_l added for l = 0, 1, …, the term skipped where
// a_il = 0 — each row update one kernel.Triad (the CPU's widest vectors,
// no FMA). On amd64 these are the bits of gonum's native Dgemm (its axpy
// multiplies then adds, as Triad does); with -tags netlib, where blas64 is
// OpenBLAS, and on arm64, where Go fuses gonum's pure-Go axpy, the
// measurement's last bits differ from theirs (golden checksums per build).
// It is several times faster than blas64.Gemm here: rows of a few hundred
// entries through AVX-512 instead of gonum's 2-wide SSE2 axpy on 64-column
// pieces (BenchmarkMetricMeasure).
func gemmNN(a, b, c blas64.General) {
	if a.Rows != c.Rows || a.Cols != b.Rows || b.Cols != c.Cols {
		panic("problem: gemmNN: shapes do not match")
	}
	for i := 0; i < c.Rows; i++ {
		crow := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		clear(crow)
		for l, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			if v != 0 {
				kernel.Triad(crow, crow, b.Data[l*b.Stride:l*b.Stride+c.Cols], v)
			}
		}
	}
}
