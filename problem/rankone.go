package problem

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Rank-one eigen-updates. A metric-learning gradient is rank one,
// z ← z + s·δδᵀ, so when the eigendecomposition of −z is known the new one
// follows from that of diag(λ) + ρ·wwᵀ (w = Vᵀδ, ρ = −s) in O(d²) plus one
// d×d matrix product, instead of a full O(d³) symmetric eigensolver with
// its larger constant:
//
//  1. deflation: a component with ρ|w_j| below tol leaves (λ_j, v_j)
//     unchanged; two eigenvalues closer than tol are rotated so that one of
//     them deflates (error below tol, as in LAPACK's Dlaed2);
//  2. the remaining eigenvalues are the roots of the secular equation
//     1 + ρ Σ w_j²/(λ_j − μ) = 0, one in each gap and one above the last,
//     each found from its nearer pole by the Bunch–Nielsen–Sorensen two-pole
//     rational iteration, safeguarded by bisection;
//  3. the eigenvectors come from Gu and Eisenstat's recomputed ŵ (Löwner's
//     formula), which keeps them orthogonal to working precision however
//     close the roots are to the poles; V ← V·Q by one Dgemm.
//
// tol = 8ε·max(|λ|max, ρ‖w‖²), so the result is the exact decomposition of
// a matrix within a few ulps of ‖A‖ of A + ρvvᵀ. Errors accumulate over
// successive updates; the engine recomputes a node's decomposition from
// scratch after a bounded number of them.

// EigUpdate holds the per-worker buffers of RankOneUpdate.
type EigUpdate struct {
	d                     int
	vw, q, vout           []float64 // d×d
	dd, u, tau, zhat, val []float64
	orig, k, src          []int
}

// NewEigUpdate returns buffers for d×d updates.
func NewEigUpdate(d int) *EigUpdate {
	return &EigUpdate{d: d,
		vw: make([]float64, d*d), q: make([]float64, d*d), vout: make([]float64, d*d),
		dd: make([]float64, d), u: make([]float64, d), tau: make([]float64, d), zhat: make([]float64, d), val: make([]float64, d),
		orig: make([]int, d), k: make([]int, d), src: make([]int, d)}
}

// RankOneUpdate replaces the eigendecomposition A = V·diag(lam)·Vᵀ (lam
// ascending, eigenvector c in column c of the row-major d×d V) by that of
// A + rho·v·vᵀ. It reports false, leaving V and lam unchanged, if the
// secular iteration did not converge (not seen; the caller then recomputes
// from scratch).
func (e *EigUpdate) RankOneUpdate(V, lam []float64, rho float64, v []float64) bool {
	d := e.d
	if d == 0 || rho == 0 {
		return true
	}
	// Work in an ascending basis with ρ > 0: for ρ < 0 decompose −A − |ρ|vvᵀ
	// (eigenvalues −lam, reversed) and negate at the end.
	flip := rho < 0
	r := math.Abs(rho)
	col := func(j int) int {
		if flip {
			return d - 1 - j
		}
		return j
	}
	var nrm2 float64
	for j := 0; j < d; j++ {
		c := col(j)
		var s float64
		for i := 0; i < d; i++ {
			s += V[i*d+c] * v[i]
		}
		e.u[j] = s
		nrm2 += s * s
		if flip {
			e.dd[j] = -lam[c]
		} else {
			e.dd[j] = lam[c]
		}
		for i := 0; i < d; i++ {
			e.vw[i*d+j] = V[i*d+c]
		}
	}
	if nrm2 == 0 {
		return true
	}
	rn := r * nrm2 // ρ' with u of unit norm
	nu := math.Sqrt(nrm2)
	for j := range e.u {
		e.u[j] /= nu
	}
	tol := 8 * eps * math.Max(math.Max(math.Abs(e.dd[0]), math.Abs(e.dd[d-1])), rn)

	// 1. Deflation.
	m := 0 // non-deflated indices e.k[:m]
	for j := 0; j < d; j++ {
		if rn*math.Abs(e.u[j]) <= tol {
			e.u[j] = 0
			continue
		}
		if m > 0 {
			p := e.k[m-1]
			if e.dd[j]-e.dd[p] <= tol {
				// Rotate (p, j) so that u_p = 0: p deflates.
				t := math.Hypot(e.u[p], e.u[j])
				c, s := e.u[j]/t, e.u[p]/t
				e.u[p], e.u[j] = 0, t
				dp, dj := e.dd[p], e.dd[j]
				e.dd[p], e.dd[j] = c*c*dp+s*s*dj, s*s*dp+c*c*dj
				for i := 0; i < d; i++ {
					vp, vj := e.vw[i*d+p], e.vw[i*d+j]
					e.vw[i*d+p], e.vw[i*d+j] = c*vp-s*vj, s*vp+c*vj
				}
				e.k[m-1] = j
				continue
			}
		}
		e.k[m] = j
		m++
	}
	K := e.k[:m]

	// 2. Secular roots: μ_i = dd[K[orig_i]] + τ_i.
	for i := 0; i < m; i++ {
		if !e.secularRoot(K, i, rn) {
			return false
		}
	}

	// 3. Gu–Eisenstat ŵ: ŵ_j² = Π_i(μ_i − δ_j) / (ρ' Π_{i≠j}(δ_i − δ_j)).
	for jj := 0; jj < m; jj++ {
		dj := e.dd[K[jj]]
		prod := (e.dd[K[e.orig[m-1]]] - dj + e.tau[m-1]) / rn
		for i := 0; i < jj; i++ {
			prod *= (e.dd[K[e.orig[i]]] - dj + e.tau[i]) / (e.dd[K[i]] - dj)
		}
		for i := jj + 1; i < m; i++ {
			prod *= (e.dd[K[e.orig[i-1]]] - dj + e.tau[i-1]) / (e.dd[K[i]] - dj)
		}
		e.zhat[jj] = math.Copysign(math.Sqrt(math.Max(prod, 0)), e.u[K[jj]])
	}

	// Eigenvalues (in the working sign) and their sources, sorted ascending:
	// src ≥ 0 is a deflated basis index, src < 0 is secular root −src−1.
	n := 0
	for j := 0; j < d; j++ {
		if e.u[j] != 0 {
			continue
		}
		e.val[n], e.src[n] = e.dd[j], j
		n++
	}
	// Merge in the m roots (both lists ascending), from the back.
	ndef := n
	a, b := ndef-1, m-1
	for o := d - 1; o >= 0; o-- {
		var mu float64
		if b >= 0 {
			mu = e.dd[K[e.orig[b]]] + e.tau[b]
		}
		if b >= 0 && (a < 0 || mu >= e.val[a]) {
			e.val[o], e.src[o] = mu, -b-1
			b--
		} else {
			e.val[o], e.src[o] = e.val[a], e.src[a]
			a--
		}
	}

	// Q (d×d, row-major, column o = the eigenvector of val[o] in the
	// rotated basis vw).
	clear(e.q)
	for o := 0; o < d; o++ {
		if s := e.src[o]; s >= 0 {
			e.q[s*d+o] = 1
			continue
		}
		i := -e.src[o] - 1
		oi := K[e.orig[i]]
		var nn float64
		for jj, j := range K {
			x := e.zhat[jj] / ((e.dd[j] - e.dd[oi]) - e.tau[i])
			e.q[j*d+o] = x
			nn += x * x
		}
		nn = 1 / math.Sqrt(nn)
		for _, j := range K {
			e.q[j*d+o] *= nn
		}
	}
	g := func(data []float64) blas64.General { return blas64.General{Rows: d, Cols: d, Stride: d, Data: data} }
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g(e.vw), g(e.q), 0, g(e.vout))
	// Back to the caller's sign and ascending order.
	for o := 0; o < d; o++ {
		c := o
		val := e.val[o]
		if flip {
			c, val = d-1-o, -val
		}
		lam[c] = val
		for i := 0; i < d; i++ {
			V[i*d+c] = e.vout[i*d+o]
		}
	}
	return true
}

const eps = 0x1p-53

// secularRoot finds root i of 1 + ρ Σ_j u_j²/(δ_j − μ) over the
// non-deflated δ_j = dd[K[j]], storing its origin pole and offset.
func (e *EigUpdate) secularRoot(K []int, i int, rn float64) bool {
	m := len(K)
	dd, u := e.dd, e.u
	var org int
	var lo, hi float64
	if i < m-1 {
		gap := dd[K[i+1]] - dd[K[i]]
		mid := gap / 2
		// f at the midpoint, from the left pole.
		f := 1.0
		for _, j := range K {
			f += rn * u[j] * u[j] / ((dd[j] - dd[K[i]]) - mid)
		}
		if f >= 0 {
			org, lo, hi = i, 0, mid
		} else {
			org, lo, hi = i+1, -mid, 0
		}
	} else {
		var zz float64
		for _, j := range K {
			zz += u[j] * u[j]
		}
		org, lo, hi = i, 0, rn*zz*(1+4*eps)+tiny(dd[K[i]])
	}
	base := dd[K[org]]
	pl := dd[K[i]] - base // the poles around the root, shifted
	var pr float64
	if i < m-1 {
		pr = dd[K[i+1]] - base
	}
	tau := (lo + hi) / 2
	for it := 0; it < 200; it++ {
		var psiL, psiR, dL, dR, absSum float64
		for jj, j := range K {
			inv := 1 / ((dd[j] - base) - tau)
			t := u[j] * u[j] * inv
			if jj <= i {
				psiL += t
				dL += t * inv
			} else {
				psiR += t
				dR += t * inv
			}
			absSum += math.Abs(t)
		}
		gv := 1 + rn*(psiL+psiR)
		if gv == 0 {
			break
		}
		if gv > 0 {
			hi = tau
		} else {
			lo = tau
		}
		if math.Abs(gv) <= 8*eps*float64(m)*(1+rn*absSum) || hi-lo <= 4*eps*math.Max(math.Abs(lo), math.Abs(hi)) {
			break
		}
		// Two-pole model: ψL ≈ aL + bL/(pl − x), ψR ≈ aR + bR/(pr − x).
		bL := dL * (pl - tau) * (pl - tau)
		aL := psiL - bL/(pl-tau)
		var x float64
		if i < m-1 {
			bR := dR * (pr - tau) * (pr - tau)
			aR := psiR - bR/(pr-tau)
			C, A, B, gp := 1+rn*(aL+aR), rn*bL, rn*bR, pr-pl
			bq := C*gp + A + B
			disc := bq*bq - 4*C*A*gp
			x = pl + 2*A*gp/(bq+math.Sqrt(math.Max(disc, 0)))
		} else {
			C := 1 + rn*aL
			x = math.NaN()
			if C > 0 {
				x = pl + rn*bL/C
			}
		}
		if !(x > lo && x < hi) {
			x = (lo + hi) / 2
		}
		if x == tau {
			break
		}
		tau = x
		if it == 199 {
			return false
		}
	}
	e.orig[i], e.tau[i] = org, tau
	return true
}

func tiny(x float64) float64 { return 4 * eps * math.Abs(x) }
