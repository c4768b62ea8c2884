package problem

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/kernel"
)

// The PSD projection by selected eigenpairs (ProjectPSDSelect), for the
// asynchronous metric schedule, where every event needs a fresh projection
// of a matrix no cached decomposition is close to. Proj_{S+}(A) needs the
// eigenpairs of one sign only, and
//
//	Proj_{S+}(A) = Σ_{λ>0} λ·vvᵀ = A + Σ_{λ<0} |λ|·vvᵀ,
//
// so it needs at most ⌊d/2⌋ eigenvectors, those of the smaller side. The
// steps (LAPACK's Dsyevx path, without its Dstebz/Dormtr):
//
//  1. Householder tridiagonalisation T = QᵀAQ (tridiagFull: Dsytd2's
//     reflectors on the full matrix, each step's rank-2 update and the
//     next step's product in one pass, kernel.Ger2Dot; below order 16
//     tridiagLower, the same in plain Go on one triangle);
//  2. T split into unreduced blocks where |e_i| ≤ ε‖T‖₁ (a perturbation
//     within the backward error), every eigenvalue by the root-free QL/QR
//     of each block (pwkEigenvalues: Dsterf's iteration, O(d²), its
//     dependency chain shortened, problem/pwk.go);
//  3. the eigenvectors of the chosen side by inverse iteration on each
//     block (as LAPACK's Dstein: LU of T − λI with partial pivoting, small
//     pivots perturbed, close eigenvalues separated by 10ε‖T‖ and the
//     vectors of a cluster — eigenvalues closer than 10⁻³‖T‖ — kept
//     orthogonal by modified Gram–Schmidt at each iteration), O(d) a
//     vector and iteration; the solves multiply by U's reciprocal pivots
//     (lagtsFast) and fall back to Dlagts's perturbation (lagts) only
//     where that would overflow;
//  4. the back-transformation Q·Y of the k vectors (stored by column for
//     it) by applying the reflectors (2d²k flops, kernel.Householder, the
//     k columns side by side in vector registers), then the upper
//     triangle of Y·diag(|λ|)·Yᵀ (syrkUpper).
//
// The eigenvalues are accurate to ε‖A‖ as Dsyev's; the vectors have
// residuals of order ε‖A‖ and are orthogonal to ε‖A‖/gap (gap ≥ 10⁻³‖A‖
// outside a cluster), so the projection agrees with ProjectPSD's to a few
// ulps of ‖A‖ times a small factor (tested, problem/eigselect_test.go).
// Dsteqr's rotation accumulation (O(d³), ~70% of Dsyev at d = 40) is gone.

// selBuffers holds ProjectPSDSelect's buffers, allocated on first use.
type selBuffers struct {
	diag, off, tau []float64
	lam, etmp      []float64 // eigenvalues by block; pwkEigenvalues' copy of off
	y              []float64 // k×d: the chosen vectors by row (k ≤ d)
	yt             []float64 // d×kp: the same by column (kp = k rounded up to 8)
	sel            []float64 // the chosen eigenvalues, by row of y
	k              int       // the number of chosen eigenpairs (for tests)
	lu             []float64 // 9·d: the LU of T − λI, U's scaled rows, L's steps
	piv            []bool
	x, hv          []float64
}

func (ws *Workspace) initSel() {
	d := ws.d
	s := &ws.sel
	s.diag, s.off, s.tau = make([]float64, d), make([]float64, d), make([]float64, d)
	s.lam, s.etmp = make([]float64, d), make([]float64, d)
	s.y, s.sel = make([]float64, d*d), make([]float64, d)
	s.yt = make([]float64, d*((d+7)&^7))
	s.lu, s.piv = make([]float64, 9*d), make([]bool, d)
	s.x, s.hv = make([]float64, d), make([]float64, d)
}

// ProjectPSDSelect sets dst = Proj_{S+}(scale·v) like ProjectPSD, from the
// eigenpairs of the smaller side of the spectrum only (see above). Only the
// upper triangle of v is read; non-finite input gives NaN and false. It
// returns the number of positive eigenvalues and whether it succeeded. dst
// must not alias v.
func (ws *Workspace) ProjectPSDSelect(dst, v []float64, scale float64) (int, bool) {
	sigma, ok := ws.selReduce(dst, v, scale, &ws.Eigs)
	return ws.selFinish(dst, v, scale, sigma, ok, ok && ws.selEigenvalues())
}

// ProjectPSDSelectPair is ProjectPSDSelect of v1 into dst1 with w1 and of
// v2 into dst2 with w2 (two workspaces of the same order), with the same
// results bit for bit; when each tridiagonal is a single unreduced block
// (the common case) their eigenvalues are computed side by side (pwkPair),
// which costs little more than one matrix's. Both projections count in
// w1.Eigs: w2 lends its buffers.
func ProjectPSDSelectPair(w1, w2 *Workspace, dst1, v1, dst2, v2 []float64, scale float64) (p1 int, ok1 bool, p2 int, ok2 bool) {
	if w1.d != w2.d {
		panic("problem: ProjectPSDSelectPair: workspaces of different orders")
	}
	s1, r1 := w1.selReduce(dst1, v1, scale, &w1.Eigs)
	s2, r2 := w2.selReduce(dst2, v2, scale, &w1.Eigs)
	d := w1.d
	var e1, e2 bool // eigenvalues found
	if r1 && r2 && d > 1 && blockEnd(w1.sel.off, 0, d) == d && blockEnd(w2.sel.off, 0, d) == d {
		l1, t1 := w1.sel.block(0, d)
		l2, t2 := w2.sel.block(0, d)
		e1, e2 = pwkPair(l1, t1, l2, t2)
	} else {
		e1 = r1 && w1.selEigenvalues()
		e2 = r2 && w2.selEigenvalues()
	}
	p1, ok1 = w1.selFinish(dst1, v1, scale, s1, r1, e1)
	p2, ok2 = w2.selFinish(dst2, v2, scale, s2, r2, e2)
	return p1, ok1, p2, ok2
}

// selFinish ends a projection after selReduce (reduced: whether it
// succeeded; it set dst to NaN if not) and the eigenvalues (found: whether
// they converged).
func (ws *Workspace) selFinish(dst, v []float64, scale, sigma float64, reduced, found bool) (int, bool) {
	switch {
	case !reduced:
		return 0, false
	case !found:
		return ws.selNaN(dst)
	}
	return ws.selProject(dst, v, scale, sigma)
}

// selNaN sets dst to NaN: ProjectPSDSelect's result for input it cannot
// project.
func (ws *Workspace) selNaN(dst []float64) (int, bool) {
	for i := range dst[:ws.d*ws.d] {
		dst[i] = math.NaN()
	}
	return 0, false
}

// selReduce is ProjectPSDSelect's first step: the full scale·v from its
// upper triangle, scaled by σ (a power of two), reduced to tridiagonal
// form and split into unreduced blocks (s.diag, s.off), counted in *count.
// It returns σ, or false with dst set to NaN for non-finite input.
func (ws *Workspace) selReduce(dst, v []float64, scale float64, count *int64) (sigma float64, ok bool) {
	d := ws.d
	if len(v) < d*d || len(dst) < d*d {
		panic("problem: ProjectPSDSelect: short slice")
	}
	if ws.sel.diag == nil {
		ws.initSel()
	}
	// The full symmetric scale·v from its upper triangle, and max |entry|
	// (tridiagFull works on both triangles).
	var amax float64
	bad := false
	a := ws.a[:d*d]
	for i := 0; i < d; i++ {
		src, row := v[i*d+i:i*d+d], a[i*d+i:i*d+d]
		for j, x := range src {
			x *= scale
			row[j] = x
			a[(i+j)*d+i] = x
			ax := math.Abs(x)
			if ax > amax {
				amax = ax
			}
			if !(ax <= math.MaxFloat64) {
				bad = true // Not x−x == 0, which arm64 may fuse with the product.
			}
		}
	}
	if bad {
		ws.selNaN(dst)
		return 0, false
	}
	*count++
	s := &ws.sel
	// Scale by a power of two (exact) into [2⁻³⁰⁰, 2³⁰⁰] if outside, so that
	// the squares of the reduction (larfg) neither overflow nor underflow.
	sigma = 1.0
	if amax > 0x1p300 || (amax > 0 && amax < 0x1p-300) {
		_, e := math.Frexp(amax)
		sigma = math.Ldexp(1, -e)
		for i := range ws.a[:d*d] {
			ws.a[i] *= sigma
		}
	}
	if d < tridiagLowerMax {
		tridiagLower(d, ws.a, s.diag, s.off, s.tau, s.x)
	} else {
		tridiagFull(d, ws.a, s.diag, s.off, s.tau, s.lu[:2*d]) // lu is free until inverse iteration
	}
	var tnorm float64 // ‖T‖₁
	for i := 0; i < d; i++ {
		r := math.Abs(s.diag[i])
		if i > 0 {
			r += math.Abs(s.off[i-1])
		}
		if i < d-1 {
			r += math.Abs(s.off[i])
		}
		tnorm = fmax(tnorm, r)
	}
	if d > 0 {
		s.off[d-1] = 0
	}
	for i := 0; i < d-1; i++ {
		if math.Abs(s.off[i]) <= eps*tnorm {
			s.off[i] = 0
		}
	}
	return sigma, true
}

// selEigenvalues computes every eigenvalue of the split tridiagonal, block
// by block, into s.lam (ascending within each block); false if the
// iteration did not converge.
func (ws *Workspace) selEigenvalues() bool {
	d, s := ws.d, &ws.sel
	for b0 := 0; b0 < d; {
		b1 := blockEnd(s.off, b0, d)
		if lam, e := s.block(b0, b1); b1-b0 > 1 && !pwkEigenvalues(lam, e) {
			return false
		}
		b0 = b1
	}
	return true
}

// block returns block [b0, b1)'s diagonal and off-diagonal copied into
// lam and etmp, for pwkEigenvalues to overwrite.
func (s *selBuffers) block(b0, b1 int) (lam, e []float64) {
	lam, e = s.lam[b0:b1], s.etmp[b0:b1]
	copy(lam, s.diag[b0:b1])
	copy(e, s.off[b0:b1])
	return lam, e
}

// selProject is ProjectPSDSelect after the eigenvalues: the eigenvectors
// of the smaller side, the back-transformation and the reconstruction into
// dst.
func (ws *Workspace) selProject(dst, v []float64, scale, sigma float64) (int, bool) {
	d, s := ws.d, &ws.sel
	p := 0
	for _, l := range s.lam[:d] {
		if l > 0 {
			p++
		} else if l != l {
			return ws.selNaN(dst)
		}
	}
	clear(dst[:d*d])
	s.k = 0
	if p == 0 {
		return 0, true
	}
	pos := p <= d-p // compute the positive side (else the non-positive one)
	// The chosen eigenvalues of each block are lam[lo:hi] (ascending).
	choose := func(b0, b1 int) (lo, hi int) {
		lo, hi = b0, b1
		for lo < b1 && s.lam[lo] <= 0 {
			lo++
		}
		if !pos {
			lo, hi = b0, lo
			for hi > lo && s.lam[hi-1] == 0 {
				hi-- // zero eigenvalues contribute nothing
			}
		}
		return lo, hi
	}
	k := 0
	for b0 := 0; b0 < d; {
		b1 := blockEnd(s.off, b0, d)
		lo, hi := choose(b0, b1)
		k += hi - lo
		b0 = b1
	}
	y := s.y[:d*k]
	clear(y)
	s.k = k
	col := 0
	for b0 := 0; b0 < d; {
		b1 := blockEnd(s.off, b0, d)
		lo, hi := choose(b0, b1)
		if hi > lo {
			if !ws.inverseIteration(b0, b1, lo, hi, col) {
				return ws.ProjectPSD(dst, v, scale), true
			}
			copy(s.sel[col:], s.lam[lo:hi])
			col += hi - lo
		}
		b0 = b1
	}
	// Back-transformation Y ← Q·Y = H_{d−2}(⋯(H_0·Y)), H_i = I − τ_i·hhᵀ
	// with h[0:i] = a[i+1, 0:i], h[i] = 1 (tridiagFull), on the vectors,
	// then the scaling by √(|λ|/σ): below tridiagLowerMax on the rows of y
	// in plain Go, from it on the vectors by column (reflectColumns).
	if d < tridiagLowerMax {
		reflectRows(y, ws.a, s.tau, d, k) // plain Go on the rows: cheaper here
		for c := range k {
			yc, sc := y[c*d:c*d+d], math.Sqrt(math.Abs(s.sel[c])/sigma)
			for r := range yc {
				yc[r] *= sc
			}
		}
	} else {
		ws.reflectColumns(d, k, sigma)
	}
	// dst = Y·diag(|λ|)·Yᵀ (+ A for the non-positive side), upper triangle.
	syrkUpper(dst, y, d, k)
	if !pos {
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				dst[i*d+j] += scale * v[i*d+j]
			}
		}
	}
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			dst[j*d+i] = dst[i*d+j]
		}
	}
	return p, true
}

// reflectColumns is ProjectPSDSelect's back-transformation from order
// tridiagLowerMax on: the k rows of s.y into yt by column (kp = k rounded up
// to 8 columns, the padding zero, so that kernel.Householder runs on whole
// vector registers), the reflectors H_0, …, H_{d−2} applied in turn, then
// back into y by row, scaled by √(|λ|/σ).
func (ws *Workspace) reflectColumns(d, k int, sigma float64) {
	s := &ws.sel
	y := s.y[:d*k]
	kp := (k + 7) &^ 7
	yt := s.yt[:d*kp]
	for r := 0; r < d; r++ {
		row := yt[r*kp : r*kp+kp]
		for c := range k {
			row[c] = y[c*d+r]
		}
		clear(row[k:])
	}
	for i := 0; i <= d-2; i++ {
		if t := s.tau[i]; t != 0 {
			kernel.Householder(yt, kp, kp, ws.a[(i+1)*d:(i+1)*d+i], t)
		}
	}
	for c := range k {
		sc, yc := math.Sqrt(math.Abs(s.sel[c])/sigma), y[c*d:c*d+d]
		for r := range yc {
			yc[r] = yt[r*kp+c] * sc
		}
	}
}

// blockEnd returns the end of the unreduced block of the tridiagonal matrix
// that starts at b0 (off[i] = 0 splits after i).
func blockEnd(off []float64, b0, d int) int {
	b := b0
	for b < d-1 && off[b] != 0 {
		b++
	}
	return b + 1
}

// inverseIteration computes the eigenvectors of the unreduced block
// T[b0:b1, b0:b1] (ws.sel.diag, ws.sel.off) for its eigenvalues
// lam[lo:hi] (ascending) into rows col… of the row-major k×d y, entries
// b0:b1 (the others stay zero), as LAPACK's Dstein (MAXITS = 5, EXTRA = 2,
// the same scaling, perturbation and clustering). It reports false if an
// iteration did not reach the growth criterion (the caller then falls back
// to the full eigensolver).
func (ws *Workspace) inverseIteration(b0, b1, lo, hi, col int) bool {
	s := &ws.sel
	d := ws.d
	m := b1 - b0
	y := s.y
	if m == 1 {
		y[col*d+b0] = 1
		return true
	}
	dg, of := s.diag[b0:b1], s.off[b0:b1-1]
	onenrm := fmax(math.Abs(dg[0])+math.Abs(of[0]), math.Abs(dg[m-1])+math.Abs(of[m-2]))
	for i := 1; i < m-1; i++ {
		onenrm = fmax(onenrm, math.Abs(dg[i])+math.Abs(of[i-1])+math.Abs(of[i]))
	}
	ortol := 1e-3 * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(m))
	la, lb, lc, ld := s.lu[0:m], s.lu[m:2*m], s.lu[2*m:3*m], s.lu[3*m:4*m]
	inv, bi, di := s.lu[4*m:5*m], s.lu[5*m:6*m], s.lu[6*m:7*m]
	fa, fe := s.lu[7*m:8*m], s.lu[8*m:9*m]
	piv := s.piv[:m]
	gp := col
	var xjm float64
	ok := true
	for c := lo; c < hi; c++ {
		j := col + c - lo
		xj := s.lam[c]
		if c > lo {
			if pertol := 10 * math.Abs(eps*xj); xj-xjm < pertol {
				xj = xjm + pertol
			}
		}
		// A fixed pseudo-random start (splitmix64), the same on every call.
		x := s.x[:m]
		st := uint64(j+1) * 0x9E3779B97F4A7C15
		for i := range x {
			st += 0x9E3779B97F4A7C15
			z := st
			z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
			z = (z ^ (z >> 27)) * 0x94D049BB133111EB
			z ^= z >> 31
			x[i] = float64(z>>11)*0x1p-52 - 1
		}
		copy(la, dg)
		copy(lb, of)
		copy(lc, of)
		lagtf(m, la, xj, lb, lc, ld, piv)
		tol := 0.0
		for i, v := range la {
			if v == 0 {
				// Dlagts perturbs a zero pivot to ±tol (and then needs
				// no more for a solution below 2¹⁰⁰⁰): so does the fast
				// solve.
				if tol == 0 {
					tol = lagtsTol(m, la, lb, ld)
				}
				v = math.Copysign(tol, v)
			}
			inv[i] = 1 / v
			bi[i], di[i] = lb[i]*inv[i], ld[i]*inv[i]
			fa[i], fe[i] = -lc[i], 1
			if piv[i] {
				fa[i], fe[i] = 1, -lc[i]
			}
		}
		if c == lo || math.Abs(xj-xjm) > ortol {
			gp = j // a new cluster
		}
		nrmchk := 0
		conv := false
		// The iterate moves between x and the scratch xo: each solve reads
		// one and writes the other.
		xo := s.hv[:m]
		amax := maxAbs(x)
		sclNum := float64(m) * onenrm * math.Max(eps, math.Abs(la[m-1])) // the scale's numerator, the same every iteration
		for its := 0; its < 5; its++ {
			if amax == 0 {
				x[0], amax = 1, 1
			}
			scl := sclNum / amax
			nrm, fast := lagtsFast(m, bi, fa, fe, di, inv, piv, x, xo, scl)
			if !fast {
				for i, v := range x {
					xo[i] = v * scl
				}
				tol = lagts(m, la, lb, lc, ld, piv, xo, tol)
			}
			x, xo = xo, x
			if gp < j || !fast {
				for q := gp; q < j; q++ {
					yq := y[q*d+b0 : q*d+b1]
					axpyv(-dotv(x, yq), yq, x)
				}
				nrm = maxAbs(x)
			}
			amax = nrm
			if !(nrm <= math.MaxFloat64) {
				break
			}
			if nrm < dtpcrt {
				continue
			}
			nrmchk++
			if nrmchk < 3 {
				continue
			}
			conv = true
			break
		}
		if !conv {
			ok = false
			break
		}
		var ss, big float64
		jmax := 0
		for i, v := range x {
			ss += v * v
			if math.Abs(v) > big {
				big, jmax = math.Abs(v), i
			}
		}
		scl := 1 / math.Sqrt(ss)
		if x[jmax] < 0 {
			scl = -scl
		}
		yj := y[j*d+b0 : j*d+b1]
		for i, v := range x {
			yj[i] = v * scl
		}
		xjm = xj
	}
	return ok
}

// lagtf factorises T − λI = P·L·U for the tridiagonal T (diagonal a,
// superdiagonal b, subdiagonal c) with partial pivoting, as LAPACK's Dlagtf
// (tol = 0): on return a, b and d (the second superdiagonal) hold U, c the
// multipliers and in[k] whether rows k and k+1 were interchanged.
func lagtf(n int, a []float64, lambda float64, b, c, d []float64, in []bool) {
	a[0] -= lambda
	in[n-1] = false
	if n == 1 {
		return
	}
	scale1 := math.Abs(a[0]) + math.Abs(b[0])
	for k := 0; k < n-1; k++ {
		a[k+1] -= lambda
		scale2 := math.Abs(c[k]) + math.Abs(a[k+1])
		if k < n-2 {
			scale2 += math.Abs(b[k+1])
		}
		var piv1, piv2 float64
		if a[k] != 0 {
			piv1 = math.Abs(a[k]) / scale1
		}
		if c[k] == 0 {
			in[k] = false
			scale1 = scale2
			if k < n-2 {
				d[k] = 0
			}
			continue
		}
		piv2 = math.Abs(c[k]) / scale2
		if piv2 <= piv1 {
			in[k] = false
			scale1 = scale2
			c[k] /= a[k]
			a[k+1] -= c[k] * b[k]
			if k < n-2 {
				d[k] = 0
			}
		} else {
			in[k] = true
			mult := a[k] / c[k]
			a[k] = c[k]
			temp := a[k+1]
			a[k+1] = b[k] - mult*temp
			if k < n-2 {
				d[k] = b[k+1]
				b[k+1] = -mult * d[k]
			}
			b[k] = temp
			c[k] = mult
		}
	}
}

// lagtsFast sets y = (T − λI)⁻¹·(scl·src) from lagtf's factors, with U's
// rows divided by its diagonal (inv the reciprocals of the diagonal, b and
// d the superdiagonals times inv, so that each step of the back
// substitution has one multiply-subtract on its dependency chain; fa, fe
// L's multipliers arranged for the forward step, below), as long
// as no entry of the solution exceeds 2¹⁰⁰⁰ in magnitude or is NaN; it
// reports false (leaving y partly overwritten) if one does, the case where
// lagts would perturb a small nonzero pivot to avoid overflow (the caller
// passes a zero pivot as ±lagtsTol, as lagts perturbs it). It returns
// max |y[i]|.
func lagtsFast(n int, b, fa, fe, d, inv []float64, in []bool, src, y []float64, scl float64) (amax float64, ok bool) {
	if n == 0 {
		return 0, true
	}
	src, y, in, inv = src[:n], y[:n], in[:n], inv[:n]
	// Forward: L⁻¹·P, without a branch on the interchanges (their pattern
	// is data-dependent and mispredicts): with a = y[k−1], e = y[k] the
	// pair becomes (a, e − c·a), or (e, a − c·e) interchanged, that is
	// (u, fe·e + fa·a) with (fe, fa) = (1, −c) or (−c, 1) (the same
	// roundings), so that the recurrence in a is one multiply-add.
	fa, fe = fa[:n], fe[:n]
	a := src[0] * scl
	for k := 1; k < n; k++ {
		e := src[k] * scl
		var mask uint64
		if in[k-1] {
			mask = ^uint64(0)
		}
		ab, eb := math.Float64bits(a), math.Float64bits(e)
		y[k-1] = math.Float64frombits(ab&^mask | eb&mask)
		a = fe[k-1]*e + fa[k-1]*a
	}
	// Backward: U⁻¹ (U has two superdiagonals, b and d).
	const big = 0x1p1000
	k := n - 1
	y1 := a * inv[k]
	y[k] = y1
	amax = math.Abs(y1)
	if !(amax <= big) {
		return amax, false
	}
	if k = n - 2; k < 0 {
		return amax, true
	}
	y0 := y[k]*inv[k] - b[k]*y1
	y[k] = y0
	amax = fmax(amax, math.Abs(y0))
	if !(amax <= big) {
		return amax, false
	}
	b, d = b[:n], d[:n]
	for k = n - 3; k >= 0; k-- {
		t := (y[k]*inv[k] - d[k]*y1) - b[k]*y0
		y[k] = t
		if at := math.Abs(t); at > amax {
			amax = at
		} else if !(at <= big) {
			return at, false
		}
		if amax > big {
			return amax, false
		}
		y0, y1 = t, y0
	}
	return amax, true
}

// maxAbs returns max |x[i]|, or NaN if an x[i] is NaN.
func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		if v < 0 {
			v = -v
		}
		if v > m || v != v {
			m = v
		}
	}
	return m
}

// lagtsTol returns Dlagts's default perturbation of small pivots, ε·max
// |U| (ε if U = 0), from lagtf's factors.
func lagtsTol(n int, a, b, d []float64) float64 {
	tol := math.Abs(a[0])
	if n > 1 {
		tol = math.Max(tol, math.Max(math.Abs(a[1]), math.Abs(b[0])))
	}
	for k := 2; k < n; k++ {
		tol = math.Max(tol, math.Max(math.Abs(a[k]), math.Max(math.Abs(b[k-1]), math.Abs(d[k-2]))))
	}
	tol *= eps
	if tol == 0 {
		tol = eps
	}
	return tol
}

// lagts solves (T − λI)·x = y in place from lagtf's factors, perturbing
// small pivots of U as LAPACK's Dlagts with job = −1; tol ≤ 0 is replaced
// by ε·max|U| and the tolerance used is returned.
func lagts(n int, a, b, c, d []float64, in []bool, y []float64, tol float64) float64 {
	const sfmin = 0x1p-1022
	const bignum = 1 / sfmin
	if tol <= 0 {
		tol = lagtsTol(n, a, b, d)
	}
	for k := 1; k < n; k++ {
		if !in[k-1] {
			y[k] -= c[k-1] * y[k-1]
		} else {
			t := y[k-1]
			y[k-1] = y[k]
			y[k] = t - c[k-1]*y[k]
		}
	}
	for k := n - 1; k >= 0; k-- {
		t := y[k]
		if k <= n-3 {
			t -= b[k]*y[k+1] + d[k]*y[k+2]
		} else if k == n-2 {
			t -= b[k] * y[k+1]
		}
		ak := a[k]
		pert := math.Copysign(tol, ak)
		for {
			absak := math.Abs(ak)
			if absak < 1 {
				if absak < sfmin {
					if absak == 0 || math.Abs(t)*sfmin > absak {
						ak += pert
						pert *= 2
						continue
					}
					t *= bignum
					ak *= bignum
				} else if math.Abs(t) > absak*bignum {
					ak += pert
					pert *= 2
					continue
				}
			}
			break
		}
		y[k] = t / ak
	}
	return tol
}

// tridiagFull reduces the full symmetric n×n row-major a to tridiagonal form
// T = QᵀAQ as LAPACK's Dsytd2 with uplo = U (the same reflectors, Q =
// H_{n−2}⋯H_0, H_i = I − τ_i·hhᵀ, h[i] = 1, h[i+1:] = 0), but on both
// triangles, so that the symmetric product and rank-2 update of each step
// run on contiguous rows (gonum's Dsymv and Dsyr2 on one triangle read it
// with stride n). h[0:i] is stored in row i+1, a[i+1, 0:i]; diag and off
// receive T, tau the τ_i; p is scratch of 2n.
//
// Step i updates the leading (i+1)×(i+1) block, A −= h·wᵀ + w·hᵀ, of which
// the next steps read only row i and the leading i×i block. So row i is
// updated first (kernel.Ger2), the next reflector formed from it, and the
// leading block updated by kernel.Ger2Dot, which accumulates the next
// product A·h' = h'ᵀA (A symmetric, both triangles updated alike) down the
// rows while each is loaded: one pass over the matrix a step instead of a
// Dgemv and two Dger (the first step's product is a Dgemv).
func tridiagFull(n int, a, diag, off, tau, p []float64) {
	w, wn := p[:n], p[n:2*n] // this step's w; the next step's A·h
	ready := false           // beta, t are this step's and w holds its A·h
	var beta, t float64
	for i := n - 2; i >= 0; i-- {
		r := i + 1
		row := a[r*n : r*n+r] // A[r, 0:r] = A[0:r, r]
		if !ready {
			beta, t = larfg(row[i], row[:i])
		}
		off[i], tau[i] = beta, t
		have := ready
		ready = false
		if t != 0 {
			row[i] = 1
			m := i + 1
			h, wm := row[:m], w[:m]
			v := blas64.Vector{N: m, Inc: 1, Data: h}
			wv := blas64.Vector{N: m, Inc: 1, Data: wm}
			if have {
				for q := range wm {
					wm[q] *= t
				}
			} else {
				blk := blas64.General{Rows: m, Cols: m, Stride: n, Data: a}
				blas64.Gemv(blas.NoTrans, t, blk, v, 0, wv)
			}
			// w = τ·A·h − ½τ²(hᵀA·h)·h, then row i of A −= h·wᵀ + w·hᵀ.
			alpha := -0.5 * t * blas64.Dot(wv, v)
			blas64.Axpy(alpha, v, wv)
			kernel.Ger2(a[i*n:i*n+m], n, h[i:m], wm, wm[i:m], h)
			row[i] = beta
			if i > 0 {
				// The next reflector from the updated row i, and the
				// leading i×i block's update with its product A·h'.
				next := a[i*n : i*n+i]
				beta, t = larfg(next[i-1], next[:i-1])
				ready = true
				if t != 0 {
					next[i-1] = 1 // set to β by the next step
					kernel.Ger2Dot(a, n, h[:i], wm[:i], wm[:i], h[:i], next, wn[:i])
					w, wn = wn, w
				} else {
					kernel.Ger2(a, n, h[:i], wm[:i], wm[:i], h[:i])
				}
			}
		}
		diag[r] = a[r*n+r]
	}
	if n > 0 {
		diag[0] = a[0]
	}
}

// larfg is LAPACK's Dlarfg (incX = 1) without its rescaling of tiny or huge
// norms, which ProjectPSDSelect's scaling into [2⁻³⁰⁰, 2³⁰⁰] makes
// unnecessary (the entries stay below ‖A‖_F through the reduction, their
// squares finite): H·[x; α] = [0; β] with H = I − τ·hhᵀ, h = [x'; 1], x'
// overwriting x. gonum's Dnrm2 (a scaled, overflow-safe norm) was a fifth
// of a projection at d = 10.
func larfg(alpha float64, x []float64) (beta, tau float64) {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	if ss == 0 {
		return alpha, 0
	}
	beta = -math.Copysign(math.Sqrt(alpha*alpha+ss), alpha)
	tau = (beta - alpha) / beta
	scal := 1 / (alpha - beta)
	for i := range x {
		x[i] *= scal
	}
	return beta, tau
}

// tridiagLowerMax is the order from which tridiagFull is faster than
// tridiagLower (BenchmarkTridiag).
const tridiagLowerMax = 16

// tridiagLower is tridiagFull (the same reflectors and storage of h) with
// the symmetric product and rank-2 update of each step in plain Go on the
// lower triangle, rows contiguous: half the work of the full-matrix
// kernels and none of their per-call cost, which is the larger share below
// tridiagLowerMax (BenchmarkTridiag); the upper triangle is left stale.
func tridiagLower(n int, a, diag, off, tau, p []float64) {
	for i := n - 2; i >= 0; i-- {
		r := i + 1
		row := a[r*n : r*n+r]
		beta, t := larfg(row[i], row[:i])
		off[i], tau[i] = beta, t
		if t != 0 {
			row[i] = 1
			m := i + 1
			h, w := row[:m], p[:m]
			clear(w)
			// w = A·h, A[q, 0:q] giving both A[q, c]·h[c] and A[c, q]·h[q].
			for q := 0; q < m; q++ {
				aq := a[q*n : q*n+q]
				hq := h[q]
				hh, ww := h[:len(aq)], w[:len(aq)]
				var s float64
				for c, x := range aq {
					s += x * hh[c]
					ww[c] += x * hq
				}
				w[q] += s + a[q*n+q]*hq
			}
			// w = τ·A·h − ½τ²(hᵀA·h)·h.
			var dt float64
			for q := range w {
				w[q] *= t
				dt += w[q] * h[q]
			}
			alpha := -0.5 * t * dt
			for q := range w {
				w[q] += alpha * h[q]
			}
			// A −= h·wᵀ + w·hᵀ on the lower triangle.
			for q := 0; q < m; q++ {
				aq := a[q*n : q*n+q+1]
				hq, wq := h[q], w[q]
				hh, ww := h[:len(aq)], w[:len(aq)]
				for c := range aq {
					aq[c] = aq[c] - hq*ww[c] - wq*hh[c]
				}
			}
			row[i] = beta
		}
		diag[r] = a[r*n+r]
	}
	if n > 0 {
		diag[0] = a[0]
	}
}
