package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exactLength is a session's length from its definition, the lnUnit form
// that sessionDraw.length gave before it guessed with lnQuick.
func exactLength(d *sessionDraw, h uint64) int64 {
	u := unit(h)
	var x float64
	if d.kind == sessionExp {
		x = math.Ceil(-d.mean * lnUnit(1-u))
	} else {
		x = math.Ceil(lnUnit(1-u) / d.geo)
	}
	if !(x >= 1) {
		return 1
	}
	if x > 1<<62 {
		return 1 << 62
	}
	return int64(x)
}

// TestQuickLengthIsExact: the geometric and exponential lengths are the
// lnUnit form's, on random draws, at the extremes of u, and on the u whose
// x falls on an integer or a few ulps beside it (where the guess must give
// way to lnUnit), for means from 1.5 to 10¹².
func TestQuickLengthIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	exact := 0
	for _, mean := range []float64{1.5, 2, 7, 500, 4500, 9e6, 3.3e9, 1e12} {
		for _, dist := range []string{DistGeometric, DistExponential} {
			d := newSessionDraw(dist, mean, 1)
			check := func(h uint64) {
				t.Helper()
				if got, want := d.length(h), exactLength(&d, h); got != want {
					t.Fatalf("%s mean %g, u = %v (h %#x): length %d, the lnUnit form %d", dist, mean, unit(h), h, got, want)
				}
			}
			for range 200_000 {
				check(r.Uint64())
			}
			for j := uint64(0); j < 64; j++ { // u = j·2⁻⁵³ near 0, and near 1
				check(j << 11)
				check((1<<53 - 1 - j) << 11)
			}
			// u such that x = ln(1 − u)·scale is the integer m, and its
			// neighbours on u's grid of 2⁻⁵³.
			for range 3000 {
				m := 1 + math.Floor(math.Exp(r.Float64()*math.Log(min(1e15, 36*mean))))
				ustar := -math.Expm1(m / d.scale)
				j := uint64(math.Round(ustar * 0x1p53))
				for dj := uint64(0); dj < 7; dj++ {
					if jj := j + dj - 3; jj < 1<<53 {
						h := jj << 11
						if g := lnQuick(1-unit(h)) * d.scale; math.Abs(g-math.Round(g)) <= lnQuickRel*g+d.slack {
							exact++
						}
						check(h)
					}
				}
			}
		}
	}
	if exact == 0 {
		t.Fatal("no draw near an integer took lnUnit's path: the test does not reach it")
	}
	t.Logf("%d draws near an integer took lnUnit's path", exact)
}

// TestLnQuickBound measures lnQuick's error against math.Log over v in
// [2⁻⁵³, 1] (spread over the exponents, and crowded near 1, where ln v is
// small and lnQuick must stay relative): it must stay under a tenth of the
// bound the draws rely on.
func TestLnQuickBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	var at float64
	try := func(v float64) {
		want := math.Log(v)
		e := math.Abs(lnQuick(v)-want) / (lnQuickRel*math.Abs(want) + lnQuickAbs)
		if e > worst {
			worst, at = e, v
		}
	}
	for range 2_000_000 {
		try(math.Ldexp(1+r.Float64(), -1-r.IntN(53))) // every exponent
		try(1 - float64(1+r.Uint64N(1<<40))*0x1p-53)  // near 1
		try(math.Float64frombits(math.Float64bits(1) + r.Uint64N(1<<20)))
		try(float64(1+r.Uint64N(1<<53-1)) * 0x1p-53) // u's own grid
	}
	for i := range lnQuickTab { // both ends of every part
		for _, b := range []uint64{sqrtHalfBits + uint64(i)<<46, sqrtHalfBits + uint64(i+1)<<46 - 1} {
			for _, e := range []int{0, -1, -20, -52} {
				try(math.Ldexp(math.Float64frombits(b), e))
			}
		}
	}
	try(1)
	if worst > 0.1 {
		t.Fatalf("lnQuick's error reaches %.3g of its bound at v = %v (%#x)", worst, at, math.Float64bits(at))
	}
	t.Logf("lnQuick's error: at most %.3g of its bound (v = %v)", worst, at)
}

// FuzzSessionLength: a geometric or exponential length for any hash and
// mean is the lnUnit form's. near moves u onto the grid point whose x is
// closest to an integer (the draws where the guess must give way).
func FuzzSessionLength(f *testing.F) {
	f.Add(uint64(0x9e3779b97f4a7c15), 4500.0, false, false)
	f.Add(uint64(1)<<11, 1.5, true, true)
	f.Add(uint64(12345)<<20, 3e9, true, false)
	f.Fuzz(func(t *testing.T, h uint64, mean float64, exp, near bool) {
		if !(mean > 1 && mean < 1e15) {
			return
		}
		dist := DistGeometric
		if exp {
			dist = DistExponential
		}
		d := newSessionDraw(dist, mean, 1)
		if near {
			// the integer nearest to x, and back to u on its grid
			m := max(1, math.Round(lnUnit(1-unit(h))*d.scale))
			h = uint64(math.Round(-math.Expm1(m/d.scale)*0x1p53)) << 11
		}
		if got, want := d.length(h), exactLength(&d, h); got != want {
			t.Fatalf("%s mean %g, u = %v: length %d, the lnUnit form %d", dist, mean, unit(h), got, want)
		}
	})
}
