package kernel

import "runtime"

// Build names the arithmetic of this build's Go code, on which a run's
// last bits depend beside the kernel implementation (Active): GOARCH, and
// on amd64 its GOAMD64 level ("amd64.v1" … "amd64.v4"). From GOAMD64=v3 on,
// and on arm64 and other architectures, the compiler fuses x*y + z into one
// FMA wherever the source does not round the product first — in the
// standard library's pure-Go math (math.Pow, math.Log1p, math/rand's
// normal draws) as well as in this module — so the same configuration and
// seed give other bits than the default amd64 build does, still the same
// for any worker count and schedule within the build (docs/design.md §4).
// summary.json records it ("build", "fused_multiply_add"), and a
// checkpoint or a cached optimum of one fused build is not taken by another.
func Build() string {
	if runtime.GOARCH == "amd64" {
		return "amd64." + goamd64
	}
	return runtime.GOARCH
}

// Fused reports whether this build fuses x*y + z into one rounding (see
// Build): false for the default amd64 build (GOAMD64=v1) and v2.
func Fused() bool { return fused }

// FusedBuild is Build for a build that fuses multiply-adds and "" for one
// that does not: what a checkpoint and a cached optimum carry, so that the
// default amd64 build keeps the identities written before they did.
func FusedBuild() string {
	if fused {
		return Build()
	}
	return ""
}

var fused = mulAdd(1+0x1p-30, 1-0x1p-30, -1) != 0 // 0 rounded, −2⁻⁶⁰ fused

// mulAdd returns a*b + c as this build compiles it: fused or not.
//
//go:noinline
func mulAdd(a, b, c float64) float64 { return a*b + c }
