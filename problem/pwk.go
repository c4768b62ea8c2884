package problem

import "math"

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
	var r pwkRun
	r.init(d, e)
	for r.next() {
		r.sweep()
		r.endSweep()
	}
	return r.result()
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
