package network

import "math"

// The network model's draws are the same bits on every machine and build:
// Go may fuse x*y + z into one FMA (on arm64 always, on amd64 from
// GOAMD64=v3 on), which changes the last bit of a result, so every added
// product below, in a variable or not, is written float64(…) (the
// engine's rule, docs/design.md §4, "No implicit FMA"; Go may fuse across
// statements); and the math package's functions that a draw
// calls are pure Go (fused like the rest), or on amd64 assembly that takes
// an FMA path on CPUs that have one (math.Exp). The functions here are the
// algorithms of Go's math package, whose bits they give where the build
// does not fuse (TestNoFMAMath), written so that no build can fuse them,
// for the domains their callers use.

// fdlibm's constants of the logarithm (e_log.c, s_log1p.c) and of ln 2
// split for exact products (e_exp.c too).
const (
	ln2Hi = 6.93147180369123816490e-01 // ln 2, high 32 bits
	ln2Lo = 1.90821492927058770002e-10 // ln 2 − ln2Hi
	lg1   = 6.666666666666735130e-01
	lg2   = 3.999999999940941908e-01
	lg3   = 2.857142874366239149e-01
	lg4   = 2.222219843214978396e-01
	lg5   = 1.818357216161805012e-01
	lg6   = 1.531383769920937332e-01
	lg7   = 1.479819860511658591e-01

	sqrtHalfBits = 0x3fe6a09e667f3bcd // the bits of √½
)

// lnUnit returns ln v for a normal v > 0 (in the draws v = 1 − u in
// [2⁻⁵³, 1], exact for u = k·2⁻⁵³): fdlibm's e_log.c algorithm (Go's
// math.Log is the same one, and lnUnit gives its bits where math.Log is
// the rounded algorithm: TestLnUnitIsLog), without its special cases,
// which a normal v never takes, and with the reduction to [√½, √2) done on
// the bits, branch-free (too long for Go to inline; the call costs little
// beside it): a session draw is most of what churn costs the reduced
// schedule (bench/RESULTS.md, "Session draws").
//
//	v = 2ᵏ·z, z in [√½, √2), f = z − 1, s = f/(2 + f)
//	ln v = k·ln 2 + f − f²/2 + s·(f²/2 + R(s²))
func lnUnit(v float64) float64 {
	ix := math.Float64bits(v)
	d := ix - sqrtHalfBits
	k := float64(int64(d) >> 52)                    // v's exponent, one more when its mantissa is < √½
	f := math.Float64frombits(ix-d&(0xfff<<52)) - 1 // z − 1, z in [√½, √2)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := lg5 + float64(s4*lg7)
	t1 = lg3 + float64(s4*t1)
	t1 = lg1 + float64(s4*t1)
	t2 := lg4 + float64(s4*lg6)
	t2 = lg2 + float64(s4*t2)
	r := float64(s2*t1) + float64(s4*t2)
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// log1pNoFMA returns ln(1 + x) for x >= −1 (−Inf at −1): fdlibm's
// s_log1p.c, as math.Log1p. A geometric session's and delay's constant.
func log1pNoFMA(x float64) float64 {
	const (
		sqrt2M1     = 4.142135623730950488017e-01  // √2 − 1
		sqrt2HalfM1 = -2.928932188134524755992e-01 // √2/2 − 1
		small       = 1.0 / (1 << 29)
		tiny        = 1.0 / (1 << 54)
		two53       = 1 << 53
	)
	switch {
	case x == -1:
		return math.Inf(-1)
	case x < -1 || x != x:
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	}
	ax := math.Abs(x)
	var f, c float64
	var iu uint64
	k := 1
	if ax < sqrt2M1 {
		if ax < small {
			if ax < tiny {
				return x
			}
			return x - float64(x*x)*0.5
		}
		if x > sqrt2HalfM1 {
			k, f, iu = 0, x, 1
		}
	}
	if k != 0 {
		var u float64
		if ax < two53 {
			u = 1 + x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			if k > 0 { // the rounding of 1 + x, corrected
				c = 1 - (u - x)
			} else {
				c = x - (u - 1)
			}
			c /= u
		} else {
			u = x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
		}
		iu &= 0x000fffffffffffff
		if iu < 0x0006a09e667f3bcd { // u's mantissa below √2's
			u = math.Float64frombits(iu | 0x3ff0000000000000)
		} else {
			k++
			u = math.Float64frombits(iu | 0x3fe0000000000000)
			iu = (0x0010000000000000 - iu) >> 2
		}
		f = u - 1
	}
	fk := float64(k)
	hfsq := float64(0.5 * f * f)
	if iu == 0 { // |f| < 2⁻²⁰
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(fk * ln2Lo)
			return float64(fk*ln2Hi) + c
		}
		r := float64(hfsq * (1 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(fk*ln2Hi) - ((r - (float64(fk*ln2Lo) + c)) - f)
	}
	s := f / (2 + f)
	z := s * s
	p := lg6 + float64(z*lg7)
	p = lg5 + float64(z*p)
	p = lg4 + float64(z*p)
	p = lg3 + float64(z*p)
	p = lg2 + float64(z*p)
	p = lg1 + float64(z*p)
	r := float64(z * p)
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(fk*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(fk*ln2Lo) + c))) - f)
}

// cosNoFMA returns cos x for finite x in [0, 2³⁰): the Cephes algorithm
// of math.Cos (reduction modulo π/4 in three parts, a polynomial on the
// octant). The lognormal's Box–Muller draw, x = 2π·u.
func cosNoFMA(x float64) float64 {
	const (
		pi4A = 7.85398125648498535156e-1 // π/4 in three parts
		pi4B = 3.77489470793079817668e-8
		pi4C = 2.69515142907905952645e-15
		s0   = 1.58962301576546568060e-10 // sin's
		s1   = -2.50507477628578072866e-8
		s2   = 2.75573136213857245213e-6
		s3   = -1.98412698295895385996e-4
		s4   = 8.33333333332211858878e-3
		s5   = -1.66666666666666307295e-1
		c0   = -1.13585365213876817300e-11 // cos's
		c1   = 2.08757008419747316778e-9
		c2   = -2.75573141792967388112e-7
		c3   = 2.48015872888517045348e-5
		c4   = -1.38888888888730564116e-3
		c5   = 4.16666666666665929218e-2
	)
	x = math.Abs(x)
	j := uint64(x * (4 / math.Pi)) // x/(π/4)'s integer part
	y := float64(j)
	if j&1 == 1 { // zeros to the origin
		j++
		y++
	}
	j &= 7
	z := ((x - float64(y*pi4A)) - float64(y*pi4B)) - float64(y*pi4C)
	sign := false
	if j > 3 {
		j -= 4
		sign = !sign
	}
	if j > 1 {
		sign = !sign
	}
	zz := z * z
	if j == 1 || j == 2 {
		p := float64(s0*zz) + s1
		p = float64(p*zz) + s2
		p = float64(p*zz) + s3
		p = float64(p*zz) + s4
		p = float64(p*zz) + s5
		y = z + float64(float64(z*zz)*p)
	} else {
		p := float64(c0*zz) + c1
		p = float64(p*zz) + c2
		p = float64(p*zz) + c3
		p = float64(p*zz) + c4
		p = float64(p*zz) + c5
		y = 1.0 - float64(0.5*zz) + float64(float64(zz*zz)*p)
	}
	if sign {
		y = -y
	}
	return y
}

// expNoFMA returns eˣ: fdlibm's e_exp.c, the pure-Go math.Exp (on amd64
// and arm64 math.Exp is assembly, another algorithm, not always the same
// last bit: TestNoFMAMath bounds both). The lognormal's e^(μ+σZ).
func expNoFMA(x float64) float64 {
	const (
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)
		p1        = 1.66666666666666657415e-01
		p2        = -2.77777777770155933842e-03
		p3        = 6.61375632143793436117e-05
		p4        = -1.65339022054652515390e-06
		p5        = 4.13813679705723846039e-08
	)
	switch {
	case x != x:
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := r * r
	p := p4 + float64(t*p5)
	p = p3 + float64(t*p)
	p = p2 + float64(t*p)
	p = p1 + float64(t*p)
	c := r - float64(t*p)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// lnQuick returns ln v for a normal v > 0 to about 10⁻⁹ of itself (plus
// 10⁻¹⁵ absolute): the range of lnUnit split by its bits into 64 parts, in
// each a c ≈ 1/z with ln c at hand (c = 1 in the part that holds z = 1, so
// that ln v stays relative there), and ln z = log1p(z·c − 1) − ln c with
// |z·c − 1| < 0.008 by a polynomial of degree 4. No division and no branch,
// and small enough for Go to inline.
// It is never a draw's answer, only a fast guess at one whose error is
// bounded (lnQuickRel, lnQuickAbs): sessionDraw.length takes the guess's
// integer where no integer is within that bound of it, and lnUnit's
// otherwise, so the lengths are lnUnit's bit for bit
// (TestQuickLengthIsExact).
func lnQuick(v float64) float64 {
	d := math.Float64bits(v) - sqrtHalfBits
	e := &lnQuickTab[(d>>46)&63]
	r := math.Float64frombits(math.Float64bits(v)-d&(0xfff<<52))*e.c - 1
	r2 := r * r
	return (r + (float64(int64(d)>>52)*math.Ln2 - e.lc)) + r2*((-0.5+r*(1.0/3))+r2*(-0.25))
}

// lnQuick's error bound, |lnQuick(v) − ln v| ≤ lnQuickRel·|ln v| + lnQuickAbs,
// with a margin of ten and more over what it can reach: the polynomial's
// truncation (|r|⁴/5 of its value, ≤ 8·10⁻¹⁰, reached at the top of the part
// that holds z = 1, where r is up to 0.008) and roundings (≈ 10⁻¹⁶ of ln v,
// and ≈ 10⁻¹⁶ absolute from z·c, ln c and their sum: a part away from
// z = 1 cancels), which TestLnQuickBound measures.
const (
	lnQuickRel = 1e-8
	lnQuickAbs = 1e-14
)

// lnQuickTab is lnQuick's table: part i holds the z whose bits are
// √½'s + i·2⁴⁶ … + (i+1)·2⁴⁶.
var lnQuickTab = func() (tab [64]struct{ c, lc float64 }) {
	for i := range tab {
		lo := math.Float64frombits(sqrtHalfBits + uint64(i)<<46)
		hi := math.Float64frombits(sqrtHalfBits + uint64(i+1)<<46)
		if lo <= 1 && 1 < hi {
			tab[i].c, tab[i].lc = 1, 0
			continue
		}
		c := 2 / (lo + hi)
		tab[i].c, tab[i].lc = c, math.Log(c)
	}
	return tab
}()

// cos2piQuick returns cos(2π·u) for u in [0, 1] to within cosQuickAbs:
// the nearest half turn q/2 taken off exactly (w = u − q/2 in [−¼, ¼]),
// then (−1)^q·cos p, p = 2π·w in [−π/2, π/2], by its Taylor polynomial to
// p¹⁴ (remainder < 7·10⁻¹¹), the sign from a table instead of a branch the
// predictor cannot guess. A guess, as lnQuick: the lognormal's draw
// (sessionDraw.lognGuess). The polynomial in p² is evaluated by Estrin's
// scheme (pairs of terms, then pairs of pairs with p⁴ and p⁸), whose
// dependent chain is half Horner's: the cosine is the longest chain of
// that draw (bench/RESULTS.md, "The churn walk in one piece").
func cos2piQuick(u float64) float64 {
	q := math.Floor(u*2 + 0.5)
	p := (u - q*0.5) * (2 * math.Pi)
	p2 := p * p
	p4 := p2 * p2
	c01 := 1 + p2*(-1.0/2)
	c23 := 1.0/24 + p2*(-1.0/720)
	c45 := 1.0/40320 + p2*(-1.0/3628800)
	c67 := 1.0/479001600 + p2*(-1.0/87178291200)
	c := (c01 + p4*c23) + (p4*p4)*(c45+p4*c67)
	return halfTurn[int(q)&3] * c
}

// halfTurn is (−1)^q.
var halfTurn = [4]float64{1, -1, 1, -1}

// expQuick returns eʸ for y in [−700, 700] to within expQuickRel of itself:
// y = (64k + j)·ln2/64 + r with |r| ≤ ln2/128 (ln 2/64 split as fdlibm's
// ln2Hi/ln2Lo, so that the reduction is exact to a few ulps), eʸ =
// 2ᵏ·2^(j/64)·e^r, e^r by its Taylor polynomial to r⁵ (remainder < 3·10⁻¹⁷),
// by Estrin's scheme as cos2piQuick's, and 2ᵏ·2^(j/64) (exact) beside it.
// No division and no branch. A guess, as lnQuick.
func expQuick(y float64) float64 {
	kf := math.Floor(y*(64/math.Ln2) + 0.5)
	r := (y - kf*(ln2Hi/64)) - kf*(ln2Lo/64)
	n := int64(kf)
	r2 := r * r
	er := ((1 + r) + r2*(1.0/2+r*(1.0/6))) + (r2*r2)*(1.0/24+r*(1.0/120))
	return er * (expQuickTab[n&63] * math.Float64frombits(uint64(n>>6+1023)<<52))
}

// expQuickTab[j] is 2^(j/64).
var expQuickTab = func() (tab [64]float64) {
	for j := range tab {
		tab[j] = math.Exp2(float64(j) / 64)
	}
	return tab
}()

// The guesses' error bounds, with a margin of ten and more over what they
// reach (TestQuickBounds): cos2piQuick's absolute (its remainder, and the
// exact form's 2π·u rounded before its reduction), expQuick's relative.
const (
	cosQuickAbs = 1e-9
	expQuickRel = 1e-12
)
