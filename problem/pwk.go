package problem

import (
	"math"
	"slices"
)

// pwkEigenvalues computes all eigenvalues of the unreduced symmetric
// tridiagonal block (diagonal d, off-diagonal e, len(e) ≥ len(d)−1) in
// ascending order into d, by the Pal–Walker–Kahan root-free QL/QR iteration
// as LAPACK's Dsterf (the same splitting, shifts, choice of QL or QR and
// iteration limit), written for ProjectPSDSelect's blocks. The inner step
// is rearranged to shorten its dependency chain, which is what a sweep
// costs: with c = p/r and s = b/r, Dsterf's γ = c·(α−σ) − s·γ' and
// p = γ²/c are computed as N = p·(α−σ) − b·γ', γ = N/r and p = N²/(r·p)
// (one division on the chain instead of two; c only where p vanishes).
// r·p is a product of two squares, so a sub-block whose largest entry lies
// outside [2⁻¹⁰⁰, 2¹⁰⁰] is scaled by a power of two (exact; Dsterf scales
// by Dlascl outside [√safmin/ε², √safmax/3]). e is overwritten. It reports
// false if the iteration did not converge in 30·len(d) sweeps.
func pwkEigenvalues(d, e []float64) bool {
	n := len(d)
	if n <= 1 {
		return true
	}
	e = e[:n-1]
	const eps2 = eps * eps
	nmaxit := 30 * n
	jtot := 0
	for l1 := 0; l1 < n; {
		if l1 > 0 {
			e[l1-1] = 0
		}
		m := l1
		for ; m < n-1; m++ {
			if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
				e[m] = 0
				break
			}
		}
		l, lend := l1, m
		lsv, lendsv := l, lend
		l1 = m + 1
		if lend == l {
			continue
		}
		var anorm float64
		for i := l; i <= lend; i++ {
			anorm = fmax(anorm, math.Abs(d[i]))
		}
		for i := l; i < lend; i++ {
			anorm = fmax(anorm, math.Abs(e[i]))
		}
		if anorm == 0 {
			continue
		}
		sigma := 1.0 // the power-of-two scaling of the block
		if anorm > 0x1p100 || anorm < 0x1p-100 {
			_, ex := math.Frexp(anorm)
			sigma = math.Ldexp(1, -ex)
			for i := l; i <= lend; i++ {
				d[i] *= sigma
			}
			for i := l; i < lend; i++ {
				e[i] *= sigma
			}
		}
		for i := l; i < lend; i++ {
			e[i] *= e[i]
		}
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			l, lend = lend, l
		}
		if lend >= l {
			// QL iteration.
			for l <= lend {
				m = l
				for ; m < lend; m++ {
					if math.Abs(e[m]) <= eps2*math.Abs(d[m]*d[m+1]) {
						break
					}
				}
				if m < lend {
					e[m] = 0
				}
				p := d[l]
				if m == l {
					l++
					continue
				}
				if m == l+1 {
					d[l], d[l+1] = dlae2(d[l], math.Sqrt(e[l]), d[l+1])
					e[l] = 0
					l += 2
					continue
				}
				if jtot == nmaxit {
					break
				}
				jtot++
				rte := math.Sqrt(e[l])
				sg := (d[l+1] - p) / (2 * rte)
				r := hypot1(sg)
				sg = p - rte/(sg+math.Copysign(r, sg))
				cp, cr, s := 1.0, 1.0, 0.0 // c = cp/cr
				gamma := d[m] - sg
				p = gamma * gamma
				dd, ee := d[l:m+1], e[l:m]
				for i := len(ee) - 1; i >= 0; i-- {
					bb := ee[i]
					r := p + bb
					if i != len(ee)-1 {
						ee[i+1] = s * r
					}
					ocp, ocr := cp, cr
					cp, cr = p, r
					s = bb / r
					oldgam := gamma
					alpha := dd[i]
					nn := p*(alpha-sg) - bb*oldgam // γ·r
					rp := r * p
					gamma = nn / r
					dd[i+1] = oldgam + (alpha - gamma)
					switch {
					case rp > 0x1p-900:
						p = nn * nn / rp
					case p != 0:
						p = (gamma * gamma) / (p / r)
					default:
						p = ocp / ocr * bb
					}
				}
				e[l] = s * p
				d[l] = sg + gamma
			}
		} else {
			// QR iteration.
			for l >= lend {
				m = l
				for ; m > lend; m-- {
					if math.Abs(e[m-1]) <= eps2*math.Abs(d[m]*d[m-1]) {
						break
					}
				}
				if m > lend {
					e[m-1] = 0
				}
				p := d[l]
				if m == l {
					l--
					continue
				}
				if m == l-1 {
					d[l], d[l-1] = dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
					e[l-1] = 0
					l -= 2
					continue
				}
				if jtot == nmaxit {
					break
				}
				jtot++
				rte := math.Sqrt(e[l-1])
				sg := (d[l-1] - p) / (2 * rte)
				r := hypot1(sg)
				sg = p - rte/(sg+math.Copysign(r, sg))
				cp, cr, s := 1.0, 1.0, 0.0 // c = cp/cr
				gamma := d[m] - sg
				p = gamma * gamma
				dd, ee := d[m:l+1], e[m:l]
				for i := range ee {
					bb := ee[i]
					r := p + bb
					if i != 0 {
						ee[i-1] = s * r
					}
					ocp, ocr := cp, cr
					cp, cr = p, r
					s = bb / r
					oldgam := gamma
					alpha := dd[i+1]
					nn := p*(alpha-sg) - bb*oldgam // γ·r
					rp := r * p
					gamma = nn / r
					dd[i] = oldgam + alpha - gamma
					switch {
					case rp > 0x1p-900:
						p = nn * nn / rp
					case p != 0:
						p = (gamma * gamma) / (p / r)
					default:
						p = ocp / ocr * bb
					}
				}
				e[l-1] = s * p
				d[l] = sg + gamma
			}
		}
		if sigma != 1 {
			for i := lsv; i <= lendsv; i++ {
				d[i] /= sigma
			}
		}
		if jtot >= nmaxit {
			break
		}
	}
	for _, v := range e {
		if v != 0 {
			return false
		}
	}
	slices.Sort(d)
	return true
}

// dlae2 returns the eigenvalues rt1 ≥ rt2 (by absolute value first) of the
// 2×2 symmetric [[a, b], [b, c]], as LAPACK's Dlae2.
func dlae2(a, b, c float64) (rt1, rt2 float64) {
	sm := a + c
	df := a - c
	adf := math.Abs(df)
	tb := b + b
	ab := math.Abs(tb)
	acmx, acmn := c, a
	if math.Abs(a) > math.Abs(c) {
		acmx, acmn = a, c
	}
	var rt float64
	switch {
	case adf > ab:
		rt = adf * math.Sqrt(1+(ab/adf)*(ab/adf))
	case adf < ab:
		rt = ab * math.Sqrt(1+(adf/ab)*(adf/ab))
	default:
		rt = ab * math.Sqrt2
	}
	switch {
	case sm < 0:
		rt1 = 0.5 * (sm - rt)
		rt2 = (acmx/rt1)*acmn - (b/rt1)*b
	case sm > 0:
		rt1 = 0.5 * (sm + rt)
		rt2 = (acmx/rt1)*acmn - (b/rt1)*b
	default:
		rt1 = 0.5 * rt
		rt2 = -0.5 * rt
	}
	return rt1, rt2
}

// fmax returns the larger of a and b, or b if b is NaN (math.Max is a call
// on amd64; here the arguments are finite).
func fmax(a, b float64) float64 {
	if !(b <= a) {
		return b
	}
	return a
}

// hypot1 returns √(x² + 1) (math.Hypot(x, 1) up to rounding, without its
// call and scaling: x² + 1 cannot overflow below 2⁵¹⁰).
func hypot1(x float64) float64 {
	if ax := math.Abs(x); ax >= 0x1p510 {
		return ax
	}
	return math.Sqrt(x*x + 1)
}
