package network

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"runtime"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// mulAdd returns a*b + c as the build compiles it: fused or not.
//
//go:noinline
func mulAdd(a, b, c float64) float64 { return a*b + c }

// fusing reports whether this build fuses x*y + z (arm64; amd64 from
// GOAMD64=v3 on): then the pure-Go math functions are not the rounded
// algorithm the NoFMA ones are compared with. (1 + 2⁻³⁰)(1 − 2⁻³⁰) − 1 is
// 0 rounded and −2⁻⁶⁰ fused.
func fusing() bool { return mulAdd(1+0x1p-30, 1-0x1p-30, -1) != 0 }

// mathLogRounded reports whether math.Log is the rounded fdlibm algorithm
// in this build: assembly on amd64 and s390x, pure Go elsewhere.
func mathLogRounded() bool {
	return runtime.GOARCH == "amd64" || runtime.GOARCH == "s390x" || !fusing()
}

// noFMAInputs returns the inputs of TestNoFMAMath: the draws' own (1 − u,
// −1/mean, 2πu, μ + σz) and others across each function's domain.
func noFMAInputs() (logs, log1ps, coss, exps []float64) {
	logs = []float64{1, 0.5, 0x1p-53, 0x1p-52, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0),
		math.Nextafter(math.Sqrt2/2, 1), math.Nextafter(1, 0), 1 - 0x1p-53, 2, 4500, 1e6, 0x1p-1022, math.MaxFloat64}
	log1ps = []float64{-1, 0, 0x1p-60, -0x1p-60, 0x1p-30, -0x1p-30, math.Sqrt2 - 1, math.Sqrt2/2 - 1,
		-0.5, -1.0 / 4500, -1.0 / 1e6, 1, 1e10, 0x1p53, 0x1p60}
	coss = []float64{0, math.Pi / 4, math.Pi / 2, math.Pi, 3 * math.Pi / 2, math.Nextafter(2*math.Pi, 0), 1e6, 0x1p29}
	exps = []float64{0, 0x1p-30, -0x1p-30, 1, -1, 8.4, 700, -700, 709.7, -745, 710, -746}
	for x := uint64(0); x < 200_000; x++ {
		u := unit(rng.Hash(11, x, 0))
		logs = append(logs, 1-u, math.Ldexp(1+u, int(x%2000)-1000))
		// (Products rounded before they are added: the inputs too are the
		// same in every build.)
		log1ps = append(log1ps, -u, math.Ldexp(u, -int(x%60)), -1/(1+float64(1e4*u)))
		coss = append(coss, 2*math.Pi*u, 1e4*u)
		exps = append(exps, float64(1400*u)-700, 8.4+float64(6*(u-0.5)))
	}
	return
}

// TestNoFMAMath: the functions the draws take (fmath.go) give math's bits
// where math's are the rounded algorithm (lnUnit and math.Log; log1pNoFMA
// and cosNoFMA where the build does not fuse: math.Log1p and math.Cos are
// pure Go), expNoFMA is within 2 ulps of math.Exp (on amd64 another
// algorithm), and all of them give the same bits in every build: a
// checksum of their outputs on fixed inputs, which fails if a multiply-add
// in them is fused (GOAMD64=v3 and arm64 in CI).
func TestNoFMAMath(t *testing.T) {
	logs, log1ps, coss, exps := noFMAInputs()
	h := sha256.New()
	var b [8]byte
	put := func(v float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	ulps := func(a, b float64) float64 {
		return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
	}
	for _, v := range logs {
		got := lnUnit(v)
		if mathLogRounded() && math.Float64bits(got) != math.Float64bits(math.Log(v)) {
			t.Fatalf("lnUnit(%v) = %v, math.Log %v", v, got, math.Log(v))
		}
		put(got)
	}
	for _, x := range log1ps {
		got := log1pNoFMA(x)
		if !fusing() && math.Float64bits(got) != math.Float64bits(math.Log1p(x)) {
			t.Fatalf("log1pNoFMA(%v) = %v, math.Log1p %v", x, got, math.Log1p(x))
		}
		put(got)
	}
	for _, x := range coss {
		got := cosNoFMA(x)
		if !fusing() && math.Float64bits(got) != math.Float64bits(math.Cos(x)) {
			t.Fatalf("cosNoFMA(%v) = %v, math.Cos %v", x, got, math.Cos(x))
		}
		put(got)
	}
	for _, x := range exps {
		got, want := expNoFMA(x), math.Exp(x)
		// fdlibm's exp is within an ulp of eˣ, math.Exp's assembly (amd64,
		// arm64) within about 1.5 (7.271253240318021: fdlibm 0.75 ulp
		// below, the assembly 1.45 above), and it overflows a little early
		// (+Inf at 709.7).
		if got != want && !(ulps(got, want) <= 2) && !(math.IsInf(want, 1) && x < 709.78) {
			t.Fatalf("expNoFMA(%v) = %v, math.Exp %v (%.2g ulps)", x, got, want, ulps(got, want))
		}
		put(got)
	}
	for _, d := range []sessionDraw{newSessionDraw(DistGeometric, 4500, 1), newSessionDraw(DistExponential, 500, 1),
		newSessionDraw(DistLognormal, 4500, 1), newSessionDraw(DistLognormal, 90, 2.5)} {
		for x := uint64(0); x < 100_000; x++ {
			put(float64(d.length(rng.Hash(5, x, 0))))
		}
	}
	// The outputs' checksum, the same in every build (written by the
	// default amd64 build; a change of the functions on purpose changes it,
	// and the commit says why).
	const want = "6a218a0e8f0daf2d93ce1630a270b4d8935c52f34696908543a4999ebc9f8344"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("outputs' checksum %s, want %s (GOARCH %s, fusing %v): a multiply-add fused, or the functions changed",
			got, want, runtime.GOARCH, fusing())
	}
}
