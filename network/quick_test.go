package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// exactLength is a session's length from its definition, the form that
// sessionDraw.length gave before it guessed (lengthExact; its geometric and
// exponential lengths are pinned to math.Log1p's by
// TestSessionLengthsAreLog1p, its functions by TestNoFMAMath).
func exactLength(d *sessionDraw, h uint64) int64 { return d.lengthExact(h) }

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
	// The lognormal: its two uniforms come from one hash, so no u can be
	// steered onto an integer x; random draws at every σ, and
	// TestLognGuessBound for the bound the exactness rests on.
	for _, sigma := range []float64{0.05, 0.5, 1, 2, 4, 10} {
		for _, mean := range []float64{1.5, 30, 4500, 9e6} {
			d := newSessionDraw(DistLognormal, mean, sigma)
			for range 100_000 {
				h := r.Uint64()
				if got, want := d.length(h), exactLength(&d, h); got != want {
					t.Fatalf("lognormal mean %g σ %g, h %#x: length %d, the exact form %d", mean, sigma, h, got, want)
				}
			}
		}
	}
}

// TestLognLengthNearIntegers: the lognormal's length from its two
// uniforms is the exact form's where x falls on an integer m or beside it —
// the draws where the guess must give way, which a hash cannot be steered
// onto. For a random u2 and m, u1 = e^(−s²/2) with s = (ln m − μ)/(σ·cos 2πu2)
// (when s ≥ 0), on u1's grid of 1 − k·2⁻⁵³, and its neighbours.
func TestLognLengthNearIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	fell := 0
	for _, sigma := range []float64{0.05, 0.5, 1, 3, 10} {
		for _, mean := range []float64{1.5, 30, 4500, 9e6} {
			d := newSessionDraw(DistLognormal, mean, sigma)
			for range 4000 {
				u2 := r.Float64()
				m := 1 + math.Floor(math.Exp(r.Float64()*math.Log(min(1e14, 100*mean))))
				sv := (math.Log(m) - d.mu) / (sigma * math.Cos(2*math.Pi*u2))
				if !(sv >= 0) || sv > 8.5 {
					continue
				}
				k := math.Round(-math.Expm1(-sv*sv/2) * 0x1p53) // u1 = 1 − k·2⁻⁵³
				for dk := -6.0; dk <= 6; dk++ {
					if kk := k + dk; kk >= 0 && kk < 0x1p53 {
						u1 := 1 - kk*0x1p-53
						want := clampLength(math.Ceil(d.lognExact(u1, u2)))
						if got := d.lognLength(u1, u2); got != want {
							t.Fatalf("σ %g mean %g, u1 %v u2 %v: length %d, the exact form %d", sigma, mean, u1, u2, got, want)
						}
						if _, ok := guessed(d.lognGuess(u1, u2)); !ok {
							fell++
						}
					}
				}
			}
		}
	}
	if fell == 0 {
		t.Fatal("no draw near an integer fell back to the exact form: the test does not reach it")
	}
	t.Logf("%d draws near an integer fell back to the exact form", fell)
}

// TestLognGuessBound: the lognormal's guess is within a tenth of its
// bound of the exact form's e^(μ+σZ), over u1 spread over its exponents
// and crowded near 1 (Z near 0, where √ is steep), u2 near the quarter
// turns (where the cosine's quadrant changes) and at random, for σ from
// 0.05 to 10 — the bound is what makes the lengths exact.
func TestLognGuessBound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sigma := range []float64{0.05, 0.5, 1, 3, 10} {
		for _, mean := range []float64{1.5, 4500, 9e6} {
			d := newSessionDraw(DistLognormal, mean, sigma)
			worst, finite := 0.0, 0
			try := func(u1, u2 float64) {
				x, b := d.lognGuess(u1, u2)
				z := math.Sqrt(-2*lnUnit(u1)) * cosNoFMA(2*math.Pi*u2)
				xe := expNoFMA(d.mu + float64(d.sigma*z))
				if math.IsInf(b, 1) || xe > 1e300 || x > 1<<50 {
					return
				}
				finite++
				if e := math.Abs(x-xe) / b; e > worst {
					worst = e
					if e > 0.1 {
						t.Fatalf("σ %g mean %g, u1 %v u2 %v: guess %v, exact %v, bound %v (%.3g of it)", sigma, mean, u1, u2, x, xe, b, e)
					}
				}
			}
			for range 200_000 {
				u2 := r.Float64()
				try(math.Ldexp(1+r.Float64(), -1-r.IntN(53)), u2)
				try(1-float64(1+r.Uint64N(1<<30))*0x1p-53, u2)
				q := float64(r.IntN(5)) / 4
				try(r.Float64(), min(1, max(0, q+float64(r.Int64N(2001)-1000)*0x1p-53)))
			}
			try(1, 0.3)
			if finite == 0 {
				t.Fatalf("σ %g: no guess had a bound", sigma)
			}
			t.Logf("σ %g mean %g: at most %.3g of the bound", sigma, mean, worst)
		}
	}
}

// TestQuickBounds measures cos2piQuick and expQuick against the math
// package: under a tenth of the bounds the draws rely on.
func TestQuickBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	wc, we := 0.0, 0.0
	for range 1_000_000 {
		u := r.Float64()
		if i := r.IntN(4); i > 0 { // near a quarter or eighth turn
			u = min(1, max(0, float64(r.IntN(9))/8+float64(r.Int64N(1<<20)-1<<19)*0x1p-53))
		}
		wc = max(wc, math.Abs(cos2piQuick(u)-math.Cos(2*math.Pi*u))/cosQuickAbs)
		y := (r.Float64()*2 - 1) * 700
		we = max(we, math.Abs(expQuick(y)-math.Exp(y))/math.Exp(y)/expQuickRel)
	}
	wc = max(wc, math.Abs(cos2piQuick(1)-1)/cosQuickAbs)
	if wc > 0.1 || we > 0.1 {
		t.Fatalf("cos2piQuick reaches %.3g of its bound, expQuick %.3g", wc, we)
	}
	t.Logf("cos2piQuick at most %.3g of its bound, expQuick %.3g", wc, we)
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

// FuzzSessionLength: a geometric, exponential or lognormal length for any
// hash, mean and σ is the exact form's. near moves a geometric's or an
// exponential's u onto the grid point whose x is closest to an integer (the
// draws where the guess must give way).
func FuzzSessionLength(f *testing.F) {
	f.Add(uint64(0x9e3779b97f4a7c15), 4500.0, uint8(0), 1.0, false)
	f.Add(uint64(1)<<11, 1.5, uint8(1), 1.0, true)
	f.Add(uint64(12345)<<20, 3e9, uint8(0), 1.0, true)
	f.Add(uint64(0xdeadbeef), 4500.0, uint8(2), 2.5, false)
	f.Fuzz(func(t *testing.T, h uint64, mean float64, kind uint8, sigma float64, near bool) {
		if !(mean > 1 && mean < 1e15) || !(sigma > 0 && sigma <= 10) {
			return
		}
		dist := []string{DistGeometric, DistExponential, DistLognormal}[kind%3]
		d := newSessionDraw(dist, mean, sigma)
		if near && dist != DistLognormal {
			// the integer nearest to x, and back to u on its grid
			m := max(1, math.Round(lnUnit(1-unit(h))*d.scale))
			h = uint64(math.Round(-math.Expm1(m/d.scale)*0x1p53)) << 11
		}
		if got, want := d.length(h), exactLength(&d, h); got != want {
			t.Fatalf("%s mean %g σ %g, h %#x: length %d, the exact form %d", dist, mean, sigma, h, got, want)
		}
	})
}

// TestUnitC: unitC(h) is 1 − unit(h), bit for bit, at both ends of the
// range and at random.
func TestUnitC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hs := []uint64{0, 1, 1 << 11, 1<<11 - 1, math.MaxUint64, math.MaxUint64 - 1<<11, 1 << 63}
	for range 100000 {
		hs = append(hs, r.Uint64())
	}
	for _, h := range hs {
		if a, b := unitC(h), 1-unit(h); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("h %#x: unitC %v, 1 − unit %v", h, a, b)
		}
	}
}
