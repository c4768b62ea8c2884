package network

import "math"

// lnUnit returns ln v for a normal v > 0, in the draws v in [2⁻⁵³, 1] (a session draw's 1 − u, exact
// for u = k·2⁻⁵³): fdlibm's e_log.c algorithm (Go's math.Log is the same
// one, and lnUnit gives its bits: TestLnUnitIsLog), without its special
// cases, which a normal v in (0, 1] never takes, and with the reduction
// to [√½, √2) done on the bits, branch-free, so that it inlines into the
// churn walk: a session draw is most of what churn costs the reduced
// schedule (bench/RESULTS.md, "Session draws").
//
//	v = 2ᵏ·z, z in [√½, √2), f = z − 1, s = f/(2 + f)
//	ln v = k·ln 2 + f − f²/2 + s·(f²/2 + R(s²))
func lnUnit(v float64) float64 {
	const (
		ln2Hi    = 6.93147180369123816490e-01 // ln 2, high 32 bits
		ln2Lo    = 1.90821492927058770002e-10 // ln 2 − ln2Hi
		l1       = 6.666666666666735130e-01
		l2       = 3.999999999940941908e-01
		l3       = 2.857142874366239149e-01
		l4       = 2.222219843214978396e-01
		l5       = 1.818357216161805012e-01
		l6       = 1.531383769920937332e-01
		l7       = 1.479819860511658591e-01
		sqrtHalf = 0x3fe6a09e667f3bcd // the bits of √½
	)
	ix := math.Float64bits(v)
	d := ix - sqrtHalf
	k := float64(int64(d) >> 52)                    // v's exponent, one more when its mantissa is < √½
	f := math.Float64frombits(ix-d&(0xfff<<52)) - 1 // z − 1, z in [√½, √2)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	// Every added product rounded on its own (fmath.go): the same bits
	// whether or not the build fuses multiply-adds.
	t1 := l5 + float64(s4*l7)
	t1 = l3 + float64(s4*t1)
	t1 = l1 + float64(s4*t1)
	t2 := l4 + float64(s4*l6)
	t2 = l2 + float64(s4*t2)
	r := float64(s2*t1) + float64(s4*t2)
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}
