package problem

import (
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// Exact measurement in bounded memory: the scores of one parameter vector at
// a time (O(n) per worker, never m×n), sorted by a radix sort, and the pair
// sums of the hinge losses and the AUC read off the sorted scores in one
// sweep; the logistic loss and metric learning pair by pair in blocks.

// Estimate says how Estimate computed its values.
type Estimate struct {
	Obj, AUC EvalMethod
	// ObjStdErr and AUCStdErr are the standard errors of the means over the
	// evaluated vectors of the objective and AUC estimates (0 when exact).
	ObjStdErr, AUCStdErr float64
	// Pairs is the number of pairs sampled (0 when nothing was sampled).
	Pairs int64
	// ObjBound bounds the error of every objective of MethodExactFast (the
	// largest of the fast sums' bounds, divided by n²); 0 otherwise.
	ObjBound float64
}

// BiasEstimate is the bias term and how it was computed.
type BiasEstimate struct {
	Value, StdErr float64
	Method        EvalMethod
	// Samples is the number of points j sampled (0 when exact).
	Samples int64
}

// radixBits is the digit width of the radix sort: 6 passes of 11 bits cover
// the 64-bit keys with 2048-bucket histograms (16 KiB, in L1).
const (
	radixBits    = 11
	radixBuckets = 1 << radixBits
	radixPasses  = 6
)

// radixSort sorts a ascending (no NaNs) with tmp (len ≥ len(a)) and hist
// (radixPasses·radixBuckets) as scratch: a least-significant-digit radix
// sort of the scores' bits mapped to order-preserving integer keys (negative
// values complemented, positive ones with the sign bit set; −0 sorts before
// +0), passes in which every key has the same digit skipped. The keys live
// in a's and tmp's own memory, viewed as uint64.
func radixSort(a, tmp []float64, hist []int) {
	n := len(a)
	if n < 256 {
		slices.Sort(a)
		return
	}
	u := unsafe.Slice((*uint64)(unsafe.Pointer(&a[0])), n)
	v := unsafe.Slice((*uint64)(unsafe.Pointer(&tmp[0])), n)
	h := (*[radixPasses * radixBuckets]int)(hist)
	clear(h[:])
	const mask = radixBuckets - 1
	for i, k := range u {
		if int64(k) < 0 {
			k = ^k
		} else {
			k |= 1 << 63
		}
		u[i] = k
		h[0*radixBuckets+int(k&mask)]++
		h[1*radixBuckets+int(k>>(1*radixBits)&mask)]++
		h[2*radixBuckets+int(k>>(2*radixBits)&mask)]++
		h[3*radixBuckets+int(k>>(3*radixBits)&mask)]++
		h[4*radixBuckets+int(k>>(4*radixBits)&mask)]++
		h[5*radixBuckets+int(k>>(5*radixBits)&mask)]++
	}
	src, dst := u, v
	for p := 0; p < radixPasses; p++ {
		hp := (*[radixBuckets]int)(h[p*radixBuckets:])
		shift := uint(p * radixBits)
		if hp[int(src[0]>>shift&mask)] == n {
			continue // every key has this digit
		}
		off := 0
		for b, c := range hp {
			hp[b] = off
			off += c
		}
		dst = dst[:n]
		for _, k := range src {
			b := int(k >> shift & mask)
			dst[hp[b]] = k
			hp[b]++
		}
		src, dst = dst, src
	}
	for i, k := range src {
		if int64(k) < 0 {
			k &^= 1 << 63
		} else {
			k = ^k
		}
		u[i] = k
	}
}

// dd is an unevaluated sum hi + lo (double-double): the sorted pair sums
// accumulate in it so that the expansion Σ(a + s_j)² = cnt·a² + 2a·Σs_j +
// Σs_j² does not lose the cancellation's digits.
type dd struct{ hi, lo float64 }

// sqHingeRow is Σ_j (a + b_j)² over the cnt active b_j whose sum is s1 and
// sum of squares s2: s2 + 2a·s1 + cnt·a², in double-double (a² split
// exactly by an FMA). The sorted measurement and the fast sums share it.
func sqHingeRow(s1, s2 dd, cnt, a float64) dd {
	r := s2
	r.addProd(2*a, s1.hi)
	r.addProd(2*a, s1.lo)
	aa := a * a
	r.addProd(cnt, aa)
	r.addProd(cnt, math.FMA(a, a, -aa))
	return r
}

func (x *dd) add(v float64) {
	s := x.hi + v
	bb := s - x.hi
	x.lo += (x.hi - (s - bb)) + (v - bb)
	x.hi = s
}

// addProd adds a·b, exactly up to the final rounding of lo.
func (x *dd) addProd(a, b float64) {
	p := a * b
	x.add(p)
	x.lo += math.FMA(a, b, -p)
}

func (x dd) value() float64 { return x.hi + x.lo }

// sortedPairSum returns Σ_{i∈P, j∈N} φ(s_i − s_j) for the hinge (φ(m) =
// [1 − m]₊) or squared hinge loss from the sorted scores: the positives in
// decreasing order see a growing set of active negatives (s_j > s_i − 1),
// whose count, Σs_j and Σs_j² give the row sums cnt·a + Σs_j and
// cnt·a² + 2aΣs_j + Σs_j², a = 1 − s_i. O(n) after sorting.
func sortedPairSum(loss Loss, posS, negS []float64) float64 {
	k := len(negS)
	var s1, s2, total dd
	for i := len(posS) - 1; i >= 0; i-- {
		si := posS[i]
		for k > 0 && negS[k-1] > si-1 {
			k--
			v := negS[k]
			s1.add(v)
			s2.addProd(v, v)
		}
		cnt := float64(len(negS) - k)
		if cnt == 0 {
			continue
		}
		a := 1 - si
		if loss == AUCSquaredHinge {
			r := sqHingeRow(s1, s2, cnt, a)
			total.add(r.hi)
			total.add(r.lo)
		} else {
			r := s1
			r.addProd(cnt, a)
			total.add(r.hi)
			total.add(r.lo)
		}
	}
	return total.value()
}

// sortedAUC returns the AUC (ties one half) of sorted scores: the counts of
// aucSorted, by one sweep.
func sortedAUC(posS, negS []float64) float64 {
	var twice int64
	lo, hi := 0, 0
	for _, si := range posS {
		for lo < len(negS) && negS[lo] < si {
			lo++
		}
		if hi < lo {
			hi = lo
		}
		for hi < len(negS) && negS[hi] <= si {
			hi++
		}
		twice += 2*int64(lo) + int64(hi-lo)
	}
	return float64(twice) / (2 * float64(len(posS)) * float64(len(negS)))
}

// allocLarge allocates the buffers of the sorted, streamed and sampled
// paths (the plan's).
func (e *Evaluator) allocLarge() {
	p, m, pl := e.p, e.m, e.plan
	e.scratch = make([]evalScratch, e.workers)
	e.per = make([]float64, 3*m)
	fast := pl.Obj == MethodExactFast || pl.Distinct && p.Loss == AUCLogistic
	if fast {
		e.fastBound = make([]float64, m)
	}
	if pl.Distinct {
		e.rep = make([]int, m)
		e.reps = make([]int, 0, m)
	}
	sorted := pl.Obj == MethodSorted || pl.Obj == MethodStreamed || pl.AUC == MethodSorted || pl.Obj == MethodExactFast || pl.Distinct
	sampled := pl.Obj == MethodSampled || pl.AUC == MethodSampled || pl.Bias != MethodPairwise
	if !p.Loss.IsMetric() {
		e.thetaT = layout.New(p.D, m)
	}
	if sampled {
		nb := int(max(pl.MaxPairs, maxBiasSamples)/sampleBlock) + 1
		e.blocks = make([]float64, max(nb, streamSegments)*blockStride(m))
	}
	if sorted && p.Loss.IsMetric() {
		e.xt, e.labF = p.transposeX(), p.labelsFloat()
	}
	for w := range e.scratch {
		sc := &e.scratch[w]
		if sorted {
			if p.Loss.IsMetric() {
				sc.q = make([]float64, p.N)
				sc.at = make([]float64, metricTile*p.D)
				sc.pad = make([]float64, 8*p.D)
				sc.rsum = make([]float64, metricTile)
				sc.ths = make([]float64, p.P)
			} else {
				sc.posS = make([]float64, len(p.pos))
				sc.negS = make([]float64, len(p.neg))
				sc.tmp = make([]float64, max(len(p.pos), len(p.neg)))
				sc.blk = make([]float64, streamBlock)
				sc.hist = make([]int, radixPasses*radixBuckets)
				if p.Loss == AUCLogistic && pl.Obj == MethodStreamed {
					sc.en = make([]float64, len(p.neg))
				}
				if fast {
					sc.fast = newFastPlan(1)
				}
			}
		}
		if sampled {
			sc.delta = layout.New(sampleBlock, p.D)
			sc.ri, sc.rj = make([]int32, sampleBlock), make([]int32, sampleBlock)
			sc.prod = layout.New(sampleBlock, max(m, p.D))
			sc.f = make([]float64, sampleBlock)
			sc.fa = make([]float64, sampleBlock)
			sc.sgn = make([]float64, sampleBlock)
		}
	}
}

// splitScores sets sc.posS and sc.negS to the scores x_iᵀθ of the positives
// and negatives, in index order, streaming X in blocks. It reports whether
// no score is NaN.
func (e *Evaluator) splitScores(sc *evalScratch, theta []float64) bool {
	p := e.p
	x := p.X
	ip, in := 0, 0
	ok := true
	for lo := 0; lo < p.N; lo += streamBlock {
		hi := min(lo+streamBlock, p.N)
		blk := sc.blk[:hi-lo]
		sub := blas64.General{Rows: hi - lo, Cols: p.D, Stride: x.Stride, Data: x.Data[lo*x.Stride:]}
		blas64.Gemv(blas.NoTrans, 1, sub, blas64.Vector{N: p.D, Inc: 1, Data: theta}, 0, blas64.Vector{N: hi - lo, Inc: 1, Data: blk})
		for t, v := range blk {
			if v != v {
				ok = false
			}
			if p.Label[lo+t] == 1 {
				sc.posS[ip] = v
				ip++
			} else {
				sc.negS[in] = v
				in++
			}
		}
	}
	return ok
}

// sortedEval computes, for vector c, the exact objective pair sum (hinge
// losses by sorting, logistic pair by pair or, with MethodExactFast, by the
// fast sums to the bound it returns) when obj is set, and the AUC when auc
// is set.
func (e *Evaluator) sortedEval(sc *evalScratch, theta []float64, obj, auc bool) (sum, a, bound float64) {
	p := e.p
	if !e.splitScores(sc, theta) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	if obj && p.Loss == AUCLogistic {
		if sc.fast != nil {
			fs := sc.fast.pairSum(AUCLogistic, sc.posS, sc.negS, nil, nil, sc.stop)
			sum, bound = fs.Value, fs.Bound
		} else {
			sum = logisticPairSum(sc.posS, sc.negS, sc.en, sc.stop)
		}
	}
	if (obj && p.Loss != AUCLogistic) || auc {
		radixSort(sc.posS, sc.tmp, sc.hist)
		radixSort(sc.negS, sc.tmp, sc.hist)
	}
	if obj && p.Loss != AUCLogistic {
		sum = sortedPairSum(p.Loss, sc.posS, sc.negS)
	}
	if auc {
		a = sortedAUC(sc.posS, sc.negS)
	}
	return sum, a, bound
}

// metricStreamSum is metricSum in O(n + tile·d) memory: with θs = θ + θᵀ
// and q_i = x_iᵀθx_i, D_ij = q_i + q_j − x_iᵀθs x_j, by tiles of the upper
// triangle of X θs Xᵀ. A tile's rows of X·θs go to kernel.MetricHinge8
// eight at a time, which forms each entry x_iᵀθs x_j (in gemmNN's order) and
// adds its hinge term to the row's sum in column order; the sums of the
// rows of a tile of columns are then added in row order. These are the
// operations, in the order, of the tile-by-tile product and loop this
// replaces (gemmNN's skipping of zero terms only ever skipped an exact ±0
// here, X being finite).
func (e *Evaluator) metricStreamSum(sc *evalScratch, theta []float64) float64 {
	p := e.p
	d, n := p.D, p.N
	x := p.X
	for a := 0; a < d; a++ {
		for c := 0; c < d; c++ {
			sc.ths[a*d+c] = theta[a*d+c] + theta[c*d+a]
		}
	}
	// rowsT returns rows i0..i0+7 of X transposed (Xᵀ's columns, n apart),
	// or, past the last full block, a copy with zero lanes past row n.
	rowsT := func(i0 int) ([]float64, int) {
		if i0+8 <= n {
			return e.xt[i0:], n
		}
		for l := 0; l < d; l++ {
			for lane := 0; lane < 8; lane++ {
				var v float64
				if i0+lane < n {
					v = e.xt[l*n+i0+lane]
				}
				sc.pad[8*l+lane] = v
			}
		}
		return sc.pad, 8
	}
	// θ = 0 (every node before its first update, so most of the first
	// record): D = 0, the products X·θ are skipped; the values are those
	// the products would give (zeros, whatever their signs: b − (±0) = b).
	zero := true
	for _, v := range theta[:d*d] {
		zero = zero && v == 0
	}
	if zero {
		clear(sc.q[:n])
	} else {
		// q_i = (Xθ)_i·x_i, the rows of Xθ eight at a time (kernel.Gemm8:
		// gemmNN's bits), transposed into the first block of sc.at.
		tmp := sc.at[:8*d]
		for i0 := 0; i0 < n; i0 += 8 {
			a, as := rowsT(i0)
			kernel.Gemm8(tmp, a, as, theta, d, d)
			for lane := 0; lane < 8 && i0+lane < n; lane++ {
				var q float64
				xi := x.Row(i0 + lane)
				for c := 0; c < d; c++ {
					q += tmp[8*c+lane] * xi[c]
				}
				sc.q[i0+lane] = q
			}
		}
	}
	diag := math.Max(0, 1-p.B) * float64(n)
	var off float64
	var rows kernel.MetricHingeRows
	rows.B = p.B
	for ilo := 0; ilo < n; ilo += metricTile {
		if halted(sc.stop) {
			break
		}
		ihi := min(ilo+metricTile, n)
		nb := (ihi - ilo + 7) / 8
		// At θ = 0 every X·θs entry is zero: the blocks stay empty and the
		// kernel's products are its d = 0 case (g = +0, as a sum of ±0
		// products from +0 is).
		var at []float64
		if !zero {
			at = sc.at[:nb*8*d]
			// Block b, entry (l, lane) = (X·θs)[ilo + 8b + lane, l]; the
			// lanes past row n are zeros (their sums unused).
			for b := 0; b < nb; b++ {
				a, as := rowsT(ilo + 8*b)
				kernel.Gemm8(at[b*8*d:(b+1)*8*d], a, as, sc.ths, d, d)
			}
		}
		for jlo := ilo; jlo < n; jlo += metricTile {
			jhi := min(jlo+metricTile, n)
			for b := 0; b < nb; b++ {
				i0 := ilo + 8*b
				for lane := 0; lane < 8; lane++ {
					if i := i0 + lane; i < ihi {
						rows.Q[lane], rows.Lab[lane] = sc.q[i], e.labF[i]
					} else {
						rows.Q[lane], rows.Lab[lane] = 0, 0
					}
				}
				// Row i takes the columns j > i on the diagonal tile.
				j0, dg := jlo, jlo == ilo
				if dg {
					j0 = i0
				}
				var r [8]float64
				var ab []float64
				if at != nil {
					ab = at[b*8*d : (b+1)*8*d]
				}
				kernel.MetricHinge8(&r, ab, e.xt[j0:], n, sc.q[j0:jhi], e.labF[j0:jhi], &rows, dg)
				copy(sc.rsum[8*b:min(8*b+8, ihi-ilo)], r[:])
			}
			for _, r := range sc.rsum[:ihi-ilo] {
				off += r
			}
		}
	}
	return diag + 2*off
}

// estimateLarge is Estimate by the sorted, streamed and sampled methods.
func (e *Evaluator) estimateLarge(thetas layout.Matrix, rows []int, obj, auc []float64) Estimate {
	p, pl := e.p, e.plan
	e.gather(thetas, rows)
	m := len(rows)
	n2 := float64(p.N) * float64(p.N)
	est := Estimate{Obj: pl.Obj, AUC: pl.AUC}
	if m == 0 {
		return est
	}
	if p.Loss.IsMetric() {
		if pl.Obj == MethodStreamed {
			par.For(m, e.workers, func(w, c int) {
				if e.stopped() {
					return
				}
				obj[c] = e.metricStreamSum(&e.scratch[w], e.theta.Row(c))/n2 + p.Reg.Value(e.theta.Row(c))
			})
		} else {
			est.ObjStdErr, _, est.Pairs = e.sampled(m, obj, nil)
		}
		if auc != nil {
			for c := range m {
				auc[c] = math.NaN()
			}
		}
		return est
	}
	if pl.Distinct {
		if est, ok := e.estimateDistinct(m, obj, auc); ok {
			return est
		}
	}
	exactObj := pl.Obj != MethodSampled
	exactAUC := auc != nil && pl.AUC == MethodSorted
	if exactObj || exactAUC {
		par.For(m, e.workers, func(w, c int) {
			if e.stopped() {
				return
			}
			sum, a, bound := e.sortedEval(&e.scratch[w], e.theta.Row(c), exactObj, exactAUC)
			if exactObj {
				obj[c] = sum/n2 + p.Reg.Value(e.theta.Row(c))
			}
			if e.fastBound != nil {
				e.fastBound[c] = bound / n2
			}
			if exactAUC {
				auc[c] = a
			}
		})
	}
	if !exactObj || (auc != nil && !exactAUC) {
		var so, sa []float64
		if !exactObj {
			so = obj
		}
		if auc != nil && !exactAUC {
			sa = auc
		}
		est.ObjStdErr, est.AUCStdErr, est.Pairs = e.sampled(m, so, sa)
	}
	if pl.Obj == MethodExactFast {
		for _, b := range e.fastBound[:m] {
			est.ObjBound = max(est.ObjBound, b)
		}
	}
	return est
}

// estimateDistinct measures the m gathered vectors by their distinct values
// when there are fewer of them than m and the plan for that many on one
// worker (so that the choice does not depend on the worker count) is exact
// (EvalPlan.Distinct): each distinct value once, by the sorted forms or the
// fast sums, its results copied to the vectors equal to it bit for bit.
// ok is false when it did not apply.
func (e *Evaluator) estimateDistinct(m int, obj, auc []float64) (est Estimate, ok bool) {
	p := e.p
	e.reps = Distinct(m, e.theta.Row, e.rep, e.reps[:0])
	u := len(e.reps)
	if u == m {
		return Estimate{}, false
	}
	pl := planEval(p.shape(), u, 1, e.opt)
	if !distinctExact(pl) {
		return Estimate{}, false
	}
	n2 := float64(p.N) * float64(p.N)
	wantAUC := auc != nil
	par.For(u, e.workers, func(w, x int) {
		if e.stopped() {
			return
		}
		c := e.reps[x]
		sum, a, bound := e.sortedEval(&e.scratch[w], e.theta.Row(c), true, wantAUC)
		obj[c] = sum/n2 + p.Reg.Value(e.theta.Row(c))
		if e.fastBound != nil {
			e.fastBound[c] = bound / n2
		}
		if wantAUC {
			auc[c] = a
		}
	})
	est = Estimate{Obj: pl.Obj, AUC: pl.AUC}
	for c := range m {
		r := e.rep[c]
		obj[c] = obj[r]
		if wantAUC {
			auc[c] = auc[r]
		}
		if pl.Obj == MethodExactFast {
			est.ObjBound = max(est.ObjBound, e.fastBound[r])
		}
	}
	return est, true
}

// Distinct sets rep[c], for c < m, to the first c' ≤ c whose row(c') has
// the same float64 bits as row(c), appends the c with rep[c] = c to reps
// and returns it: the distinct values among m vectors, in order. The
// Evaluator and the measurement over MPI ranks (package ranks) group a
// measurement's vectors with it (EvalPlan.Distinct).
func Distinct(m int, row func(c int) []float64, rep, reps []int) []int {
	for c := range m {
		rep[c] = c
		a := row(c)
		for _, r := range reps {
			if sameRowBits(a, row(r)) {
				rep[c] = r
				break
			}
		}
		if rep[c] == c {
			reps = append(reps, c)
		}
	}
	return reps
}

// sameRowBits reports whether a and b hold the same float64 bits.
func sameRowBits(a, b []float64) bool {
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
