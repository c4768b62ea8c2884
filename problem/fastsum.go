package problem

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/pairgossip/pairgossip/internal/par"
)

// Fast pair sums (issue "How far from the optimum, at any n", item 1).
//
// For a loss of the score difference, V = Σ_{i∈P, j∈N} φ(a_i − b_j) with the
// positives' scores a and the negatives' b, and the per-point weights of its
// gradient, w_i = Σ_j φ'(a_i − b_j) and v_j = Σ_i φ'(a_i − b_j) (the
// gradient is Σ_i w_i x_i − Σ_j v_j x_j), are computed without visiting the
// pairs:
//
//   - the squared hinge exactly, from the sorted scores and running counts,
//     sums and sums of squares (O(n log n); sqHingeSorted);
//   - the logistic loss φ(m) = log(1 + e^{−m}) by a grid expansion
//     (logisticGrid): the scores are binned on a uniform grid of width h
//     from the smallest score (centre c_k = s_min + k·h, offsets |u| ≤ h/2);
//     φ(Δ + u − v) is expanded around the bin-centre difference Δ = (k−l)h
//     to order p in t = u − v, Σ_{a+b≤p} φ^(a+b)(Δ) u^a (−v)^b / (a! b!);
//     each term is a correlation of a moment sequence of one class with the
//     kernel φ^(q) on the grid, computed by real FFTs (gonum's
//     dsp/fourier) of length L ≥ G + D. Bins farther apart than D = ⌈T/h⌉+1
//     (T = fastFar) are the far field, exact up to e^{−D·h}: φ(m) = −m and
//     φ' = −1 to the left (prefix counts and sums over bins), 0 to the right.
//     A point's weight is the Taylor polynomial of the correlations in its
//     own offset. Cost O(n·(d + p) + p·L log L).
//
// The bound reported beside the value (FastSum.Bound) is the sum of
//
//   - the truncation: per pair sup|φ^(p+1)|·h^(p+1)/(p+1)!, with the Cauchy
//     estimate sup|σ^(n)| ≤ n!/(rⁿ sin r), r ∈ [π/2, π) (σ = 1/(1+e^{−z}) is
//     analytic in |Im z| < π and |σ(z)| ≤ 1/sin r on the circle of radius
//     r), minimised over r;
//   - the far field: e^{−D·h} per pair;
//   - the FFT's rounding: each output entry of a correlation Σ_b K_b ∗ B_b
//     within η_L Σ_b(‖K_b‖₂‖B_b‖₁ + ‖K_b‖₁‖B_b‖₂) + η_L‖y‖₂, η_L =
//     8u(log₂L + 1), the normwise error of a radix-2/4 FFT (Higham,
//     Accuracy and Stability, §24.1) propagated through the product;
//   - the kernel's evaluation (Horner's bound on the derivative polynomials
//     in σ), the moments' and the final sums' rounding (compensated sums:
//     a few u of the sum of magnitudes).
//
// At θ = 0 every score is 0: one bin, every offset exactly 0, and the value
// is |P|·|N|·log 2 with two roundings. Everything is computed in a fixed
// order (serial binning, outputs owned by one worker each), so the bits do
// not depend on the number of workers.

// Defaults of the grid expansion: width h, order p, far-field distance T,
// and the largest number of bins (beyond, h grows and the bound with it).
const (
	FastStep    = 0.25
	FastOrder   = 12
	fastFar     = 36.0
	fastMaxBins = 1 << 17
)

// FastSum is a fast pair sum and its a-priori error bound.
type FastSum struct {
	// Value is Σ_{i∈P, j∈N} φ(a_i − b_j); Bound bounds |Value − exact|.
	Value, Bound float64
	// WeightBound bounds the error of every point's weight (w_i, v_j).
	WeightBound float64
	// Exact says that the form is exact (the squared hinge): Bound is then
	// rounding only.
	Exact bool
	// Bins and Step are the grid's (logistic).
	Bins int
	Step float64
}

// fastPlan holds the buffers of the fast sums of one goroutine's caller;
// the work inside is shared among Workers goroutines.
type fastPlan struct {
	workers int
	p       int
	exact   bool // the last sum was exact (squared hinge)
	// Per point: bin and offset (logistic); sort permutations (squared hinge).
	binP, binN []int32
	uP, uN     []float64
	idxP, idxN []int32
	// Per bin, [k*(p+1)+a]: moments of u^a/a! (positives) and (−v)^b/b!
	// (negatives), their compensations, and the correlations' outputs.
	momA, momB, cmpA, cmpB []float64
	outC, outE, outF       []float64
	// FFT state: length, per-worker transforms and real buffers, spectra.
	L          int
	ffts       []*fourier.FFT
	seq        [][]float64
	spec       [][]complex128
	kHat       [][]complex128
	aHat, bHat [][]complex128
	kern       [][]float64 // the kernels on the circular grid (p+2 of them)
	poly       [][]float64 // φ^(q) as a polynomial in s = σ(−m), q ≥ 1
}

func newFastPlan(workers int) *fastPlan {
	f := &fastPlan{workers: par.Workers(workers), p: FastOrder}
	f.poly = logisticDerivPolys(f.p + 1)
	return f
}

// logisticDerivPolys returns the coefficients (in powers of s = σ(−m)) of
// φ^(q)(m), q = 1..qmax, for φ(m) = log(1 + e^{−m}): φ' = −s and, since
// ds/dm = s² − s, P_{q+1}(s) = P_q'(s)·(s² − s). Index 0 is unused.
func logisticDerivPolys(qmax int) [][]float64 {
	ps := make([][]float64, qmax+1)
	ps[1] = []float64{0, -1}
	for q := 1; q < qmax; q++ {
		c := ps[q]
		n := make([]float64, len(c)+1)
		for i := 1; i < len(c); i++ {
			d := float64(i) * c[i] // coefficient of s^(i−1) in P_q'
			n[i+1] += d
			n[i] -= d
		}
		ps[q+1] = n
	}
	return ps
}

// logisticDeriv returns φ^(q)(m) and a bound on its evaluation error.
func (f *fastPlan) logisticDeriv(q int, m float64) (float64, float64) {
	const u = 0x1p-53
	switch q {
	case 0, 1:
		v, dv := LogisticMargin(m)
		if q == 0 {
			return v, 4 * u * math.Abs(v)
		}
		return dv, 4 * u * math.Abs(dv)
	}
	// q ≥ 2: φ^(q)(m) = (−1)^q φ^(q)(−m); evaluate at |m| (s ≤ 1/2).
	e := math.Exp(-math.Abs(m))
	s := e / (1 + e)
	c := f.poly[q]
	var v, mag float64
	for i := len(c) - 1; i >= 0; i-- {
		v = v*s + c[i]
		mag = mag*s + math.Abs(c[i])*float64(i+2)
	}
	if m < 0 && q%2 == 1 {
		v = -v
	}
	return v, float64(4*q+8) * u * mag
}

// cauchyBounds returns per-pair truncation bounds of the order-p expansion
// with offsets differences |t| ≤ h: of φ (value) and of φ' (weights).
func cauchyBounds(h float64, p int) (val, wt float64) {
	val, wt = math.Inf(1), math.Inf(1)
	for k := 0; k < 2000; k++ {
		r := math.Pi/2 + math.Pi/2*float64(k)/2000
		sr := math.Sin(r)
		// |φ^(p+1)| = |σ^(p)| ≤ p!/(r^p sin r); remainder h^(p+1)/(p+1)!.
		val = min(val, math.Pow(h, float64(p+1))/(float64(p+1)*math.Pow(r, float64(p))*sr))
		// |φ^(p+2)| = |σ^(p+1)| ≤ (p+1)!/(r^(p+1) sin r).
		wt = min(wt, math.Pow(h/r, float64(p+1))/sr)
	}
	return val, wt
}

// neumaier adds t to the compensated sum (s, c).
func neumaier(s, c *float64, t float64) {
	x := *s + t
	if math.Abs(*s) >= math.Abs(t) {
		*c += (*s - x) + t
	} else {
		*c += (t - x) + *s
	}
	*s = x
}

func growF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func growI(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

// pairSum is the fast pair sum of loss (AUCLogistic or AUCSquaredHinge)
// with, when wPos != nil, the weights w_i (len(posS)) and v_j (wNeg,
// len(negS)). It returns NaN when a score is NaN or stop is set.
func (f *fastPlan) pairSum(loss Loss, posS, negS, wPos, wNeg []float64, stop *atomic.Bool) FastSum {
	for _, s := range [][]float64{posS, negS} {
		for _, v := range s {
			if v != v || math.IsInf(v, 0) {
				return FastSum{Value: math.NaN(), Bound: math.NaN(), WeightBound: math.NaN()}
			}
		}
	}
	f.exact = loss == AUCSquaredHinge
	if f.exact {
		return f.sqHingeSorted(posS, negS, wPos, wNeg)
	}
	return f.logisticGrid(posS, negS, wPos, wNeg, stop)
}

// sqHingeSorted is the exact squared-hinge pair sum and weights from the
// sorted scores: the positives in decreasing order see a growing set of
// active negatives (b_j > a_i − 1), whose count and sums give the row's
// value cnt·A² + 2A·Σb + Σb² (A = 1 − a_i) and weight −2(cnt·A + Σb); the
// negatives in increasing order likewise v_j = −2(cnt·(1 + b_j) − Σa). The
// sums are double-double (dd), as sortedPairSum's.
func (f *fastPlan) sqHingeSorted(posS, negS, wPos, wNeg []float64) FastSum {
	f.idxP = sortedIdx(f.idxP, posS)
	f.idxN = sortedIdx(f.idxN, negS)
	ip, in := f.idxP, f.idxN
	k := len(in)
	var s1, s2, total dd
	var mag float64
	for t := len(ip) - 1; t >= 0; t-- {
		i := ip[t]
		si := posS[i]
		for k > 0 && negS[in[k-1]] > si-1 {
			k--
			v := negS[in[k]]
			s1.add(v)
			s2.addProd(v, v)
		}
		cnt := float64(len(in) - k)
		if cnt == 0 {
			if wPos != nil {
				wPos[i] = 0
			}
			continue
		}
		a := 1 - si
		r := sqHingeRow(s1, s2, cnt, a)
		total.add(r.hi)
		total.add(r.lo)
		mag += math.Abs(r.hi)
		if wPos != nil {
			w := s1
			w.add(cnt)
			w.addProd(cnt, -si)
			wPos[i] = -2 * w.value()
		}
	}
	if wPos != nil {
		var sa dd
		k := 0
		for _, j := range in {
			bj := negS[j]
			for k < len(ip) && bj > posS[ip[k]]-1 {
				sa.add(posS[ip[k]])
				k++
			}
			cnt := float64(k)
			w := dd{}
			w.add(cnt)
			w.addProd(cnt, bj)
			w.add(-sa.hi)
			w.add(-sa.lo)
			wNeg[j] = -2 * w.value()
		}
	}
	const u = 0x1p-53
	// The weights' terms are at most 2(1 + |a_i| + |b_j|) each, summed in
	// double-double: a few rounding units of their magnitude.
	var smax float64
	for _, s := range [][]float64{posS, negS} {
		for _, v := range s {
			smax = max(smax, math.Abs(v))
		}
	}
	wb := 16 * u * float64(max(len(posS), len(negS))) * (1 + 2*smax)
	return FastSum{Value: total.value(), Bound: 4 * u * mag, WeightBound: wb, Exact: true}
}

// sortedIdx returns the indices of s sorted by value (ties in any order:
// equal scores give the same operations whatever their order).
func sortedIdx(idx []int32, s []float64) []int32 {
	idx = growI(idx, len(s))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int { return cmp.Compare(s[x], s[y]) })
	return idx
}

// ensureFFT sizes the FFT state for length L.
func (f *fastPlan) ensureFFT(L int) {
	q1 := f.p + 1
	nc := L/2 + 1
	if f.L != L {
		f.L = L
		f.ffts = make([]*fourier.FFT, f.workers)
		f.seq = make([][]float64, f.workers)
		f.spec = make([][]complex128, f.workers)
		for w := range f.ffts {
			f.ffts[w] = fourier.NewFFT(L)
			f.seq[w] = make([]float64, L)
			f.spec[w] = make([]complex128, nc)
		}
		alloc := func(k int) [][]complex128 {
			s := make([][]complex128, k)
			for i := range s {
				s[i] = make([]complex128, nc)
			}
			return s
		}
		f.kHat, f.aHat, f.bHat = alloc(q1+1), alloc(q1), alloc(q1)
		f.kern = make([][]float64, q1+1)
		for i := range f.kern {
			f.kern[i] = make([]float64, L)
		}
	}
}

// logisticGrid is the grid expansion of the logistic pair sum (see the
// top of the file).
func (f *fastPlan) logisticGrid(posS, negS, wPos, wNeg []float64, stop *atomic.Bool) FastSum {
	const u = 0x1p-53
	p := f.p
	q1 := p + 1
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range [][]float64{posS, negS} {
		for _, v := range s {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	R := hi - lo
	h := FastStep
	G := int(math.Floor(R/h+0.5)) + 1
	for G > fastMaxBins {
		h = R / float64(fastMaxBins-2)
		G = int(math.Floor(R/h+0.5)) + 1
	}
	D := int(math.Ceil(fastFar/h)) + 1
	De := min(D, G-1)
	L := 1
	if G+De > 1 {
		L = 1 << bits.Len(uint(G+De-1))
	}
	nP, nN := float64(len(posS)), float64(len(negS))

	// Binning and moments (Neumaier-compensated), the classes side by side.
	grad := wPos != nil
	if grad { // each point's bin and offset, for its weight
		f.binP, f.uP = growI(f.binP, len(posS)), growF(f.uP, len(posS))
		f.binN, f.uN = growI(f.binN, len(negS)), growF(f.uN, len(negS))
	}
	f.momA, f.cmpA = growF(f.momA, G*q1), growF(f.cmpA, G*q1)
	f.momB, f.cmpB = growF(f.momB, G*q1), growF(f.cmpB, G*q1)
	bin := func(s []float64, bins []int32, us, mom, cm []float64, sign float64) {
		clear(mom)
		clear(cm)
		for i, v := range s {
			k := int(math.Floor((v-lo)/h + 0.5))
			k = min(max(k, 0), G-1)
			off := v - (lo + float64(k)*h)
			if grad {
				bins[i], us[i] = int32(k), off
			}
			m, c := mom[k*q1:k*q1+q1], cm[k*q1:k*q1+q1]
			t, x := 1.0, sign*off
			for a := 0; a < q1; a++ {
				neumaier(&m[a], &c[a], t)
				t *= x / float64(a+1)
			}
		}
		for i := range mom {
			mom[i] += cm[i]
		}
	}
	par.For(2, min(f.workers, 2), func(_, c int) {
		if c == 0 {
			bin(posS, f.binP, f.uP, f.momA, f.cmpA, 1)
		} else {
			bin(negS, f.binN, f.uN, f.momB, f.cmpB, -1)
		}
	})
	if halted(stop) {
		return FastSum{Value: math.NaN()}
	}
	f.ensureFFT(L)
	nc := L/2 + 1

	// Kernels φ^(q)((δ)h), |δ| ≤ De, on the circular grid; their norms and
	// evaluation errors.
	kN1, kN2, kMax, kErr := make([]float64, q1+1), make([]float64, q1+1), make([]float64, q1+1), make([]float64, q1+1)
	for q := 0; q <= q1; q++ {
		kq := f.kern[q]
		clear(kq)
		for d := -De; d <= De; d++ {
			v, e := f.logisticDeriv(q, float64(d)*h)
			kq[(d+L)%L] = v
			kN1[q] += math.Abs(v)
			kN2[q] += v * v
			kMax[q] = max(kMax[q], math.Abs(v))
			kErr[q] = max(kErr[q], e)
		}
		kN2[q] = math.Sqrt(kN2[q])
	}
	// Moment sequences' norms, per order.
	aN1, aN2, bN1, bN2 := make([]float64, q1), make([]float64, q1), make([]float64, q1), make([]float64, q1)
	for a := 0; a < q1; a++ {
		for k := 0; k < G; k++ {
			x, y := f.momA[k*q1+a], f.momB[k*q1+a]
			aN1[a] += math.Abs(x)
			aN2[a] += x * x
			bN1[a] += math.Abs(y)
			bN2[a] += y * y
		}
		aN2[a], bN2[a] = math.Sqrt(aN2[a]), math.Sqrt(bN2[a])
	}
	// Forward transforms: kernels 0..p+1, negatives' moments, and (for
	// the negatives' weights) the positives' moments.
	nk := q1 + 1
	nfw := nk + q1
	if grad {
		nfw += q1
	}
	par.For(nfw, f.workers, func(w, i int) {
		sq := f.seq[w]
		switch {
		case i < nk:
			f.fwd(w, f.kHat[i], f.kern[i])
		case i < nk+q1:
			b := i - nk
			clear(sq)
			for k := 0; k < G; k++ {
				sq[k] = f.momB[k*q1+b]
			}
			f.fwd(w, f.bHat[b], sq)
		default:
			a := i - nk - q1
			clear(sq)
			for k := 0; k < G; k++ {
				sq[k] = f.momA[k*q1+a]
			}
			f.fwd(w, f.aHat[a], sq)
		}
	})
	if halted(stop) {
		return FastSum{Value: math.NaN()}
	}
	eta := 8 * u * (math.Log2(float64(L)) + 1)
	f.outC = growF(f.outC, G*q1)
	if grad {
		f.outE, f.outF = growF(f.outE, G*q1), growF(f.outF, G*q1)
	}
	errC, errE, errF := make([]float64, q1), make([]float64, q1), make([]float64, q1)
	nout := q1
	if grad {
		nout = 3 * q1
	}
	// Outputs: C_a = Σ_b K_{a+b} ∗ B_b, E_a = Σ_b K_{a+b+1} ∗ B_b (b ≤ p−a);
	// F_b = Σ_a K^r_{a+b+1} ∗ A_a (a ≤ p−b), K^r the reversed kernel
	// (conjugate spectrum).
	par.For(nout, f.workers, func(w, i int) {
		sp := f.spec[w]
		clear(sp[:nc])
		kind, a := i/q1, i%q1
		var e float64
		for b := 0; b <= p-a; b++ {
			var kh, xh []complex128
			var qk int
			switch kind {
			case 0:
				qk, kh, xh = a+b, f.kHat[a+b], f.bHat[b]
				e += kN2[qk]*bN1[b] + kN1[qk]*bN2[b]
			case 1:
				qk, kh, xh = a+b+1, f.kHat[a+b+1], f.bHat[b]
				e += kN2[qk]*bN1[b] + kN1[qk]*bN2[b]
			default:
				qk, kh, xh = a+b+1, f.kHat[a+b+1], f.aHat[b]
				e += kN2[qk]*aN1[b] + kN1[qk]*aN2[b]
			}
			if kind == 2 {
				for t := range sp[:nc] {
					sp[t] += complex(real(kh[t]), -imag(kh[t])) * xh[t]
				}
			} else {
				for t := range sp[:nc] {
					sp[t] += kh[t] * xh[t]
				}
			}
		}
		sq := f.seq[w]
		f.inv(w, sq, sp)
		out := [][]float64{f.outC, f.outE, f.outF}[kind]
		inv := 1 / float64(L)
		var n2 float64
		for k := 0; k < G; k++ {
			v := sq[k] * inv
			out[k*q1+a] = v
			n2 += v * v
		}
		e = eta * (e + math.Sqrt(n2))
		[][]float64{errC, errE, errF}[kind][a] = e
	})
	if halted(stop) {
		return FastSum{Value: math.NaN()}
	}

	// Far field (bins more than D apart): suffix sums of the negatives'
	// counts, bin·count and offsets; prefix counts of the positives.
	var sn0, snl, sv1, pp0 []float64
	if G-1 > D {
		sn0, snl, sv1, pp0 = make([]float64, G+1), make([]float64, G+1), make([]float64, G+1), make([]float64, G+1)
		for l := G - 1; l >= 0; l-- {
			c := f.momB[l*q1]
			sn0[l] = sn0[l+1] + c
			snl[l] = snl[l+1] + float64(l)*c
			sv1[l] = sv1[l+1] - f.momB[l*q1+1] // B_1 = Σ(−v)
		}
		for k := 0; k < G; k++ {
			pp0[k+1] = pp0[k] + f.momA[k*q1]
		}
	}
	var val, comp, mag float64
	for k := 0; k < G; k++ {
		for a := 0; a < q1; a++ {
			t := f.momA[k*q1+a] * f.outC[k*q1+a]
			neumaier(&val, &comp, t)
			mag += math.Abs(t)
		}
		if l0 := k + D + 1; sn0 != nil && l0 < G {
			cp := f.momA[k*q1]
			t := cp*(h*(snl[l0]-float64(k)*sn0[l0])+sv1[l0]) - f.momA[k*q1+1]*sn0[l0]
			neumaier(&val, &comp, t)
			mag += math.Abs(t)
		}
	}
	val += comp

	// The bound.
	tv, tw := cauchyBounds(h, p)
	farErr := math.Exp(-float64(D) * h)
	pairs := nP * nN
	bound := pairs * max(tv, farErr)
	for a := 0; a < q1; a++ {
		bound += aN1[a] * errC[a]
	}
	hq := 1.0 // h^q/q!
	for q := 0; q <= p; q++ {
		bound += pairs * kErr[q] * hq
		if q >= 1 {
			bound += 4 * u * pairs * kMax[q] * hq
		}
		hq *= h / float64(q+1)
	}
	bound += 8 * u * mag
	res := FastSum{Value: val, Bound: bound, Bins: G, Step: h}
	if !grad {
		return res
	}

	// Weights: each point's Taylor polynomial in its own offset.
	const chunk = 4096
	par.Chunks(len(posS), chunk, f.workers, func(c0, c1 int) {
		for i := c0; i < c1; i++ {
			k, x := int(f.binP[i]), f.uP[i]
			e := f.outE[k*q1 : k*q1+q1]
			acc := e[p]
			for a := p - 1; a >= 0; a-- {
				acc = e[a] + acc*(x/float64(a+1))
			}
			if l0 := k + D + 1; sn0 != nil && l0 < G {
				acc -= sn0[l0]
			}
			wPos[i] = acc
		}
	})
	par.Chunks(len(negS), chunk, f.workers, func(c0, c1 int) {
		for j := c0; j < c1; j++ {
			l, x := int(f.binN[j]), -f.uN[j]
			e := f.outF[l*q1 : l*q1+q1]
			acc := e[p]
			for b := p - 1; b >= 0; b-- {
				acc = e[b] + acc*(x/float64(b+1))
			}
			if k0 := l - D; sn0 != nil && k0 > 0 {
				acc -= pp0[k0]
			}
			wNeg[j] = acc
		}
	})
	// Weight bound: per point, the other class's pairs times the
	// truncation, the FFT and kernel errors at |offset| ≤ h/2, rounding.
	wb := func(other float64, errs []float64, outs []float64) float64 {
		b := other * max(tw, farErr)
		hh, eMax := 1.0, 0.0
		for a := 0; a < q1; a++ {
			b += hh * errs[a]
			for k := 0; k < G; k++ {
				eMax = max(eMax, hh*math.Abs(outs[k*q1+a]))
			}
			hh *= h / 2 / float64(a+1)
		}
		hq := 1.0
		for q := 0; q <= p; q++ {
			b += other * (kErr[q+1] + 4*u*kMax[q+1]) * hq
			hq *= h / float64(q+1)
		}
		return b + float64(4*q1+4)*u*(eMax+other)
	}
	res.WeightBound = max(wb(nN, errE, f.outE), wb(nP, errF, f.outF))
	return res
}

// fwd sets dst to the spectrum of seq (length L) with worker w's transform.
func (f *fastPlan) fwd(w int, dst []complex128, seq []float64) {
	if f.L == 1 {
		dst[0] = complex(seq[0], 0)
		return
	}
	f.ffts[w].Coefficients(dst, seq)
}

// inv sets dst to L times the sequence of spectrum sp.
func (f *fastPlan) inv(w int, dst []float64, sp []complex128) {
	if f.L == 1 {
		dst[0] = real(sp[0])
		return
	}
	f.ffts[w].Sequence(dst, sp)
}
