package kernel

// SyncLinear is the fused synchronous update of one node whose smoothing
// operator is linear, θ = c·z (ψ = 0: c = −γ(t); squared ℓ2, λ‖θ‖²:
// c = −γ(t)/(1 + 2tγ(t)λ)). With w the gradient's scalar factor for the
// pair (x, y) (see the package documentation), in one pass over the row it
// adds the gradient w·(x − y) to the dual variable z, takes θ = c·z,
// updates the running average θ̄ ← a·θ̄ + b·θ (a = 1 − 1/t, b = 1/t), and
// returns m = (x − y)ᵀθ, the margin the node needs next round if its
// auxiliary point y stays the same. θ itself is not stored (Scale rebuilds
// it from z). It panics if len(bar), len(x) or len(y) differs from len(z).
// The outputs z and bar must not overlap each other or the inputs.
//
// Reference (the generic implementation):
//
//	for i := range z {
//		d := x[i] - y[i]
//		z[i] += float64(w * d)
//		th := c * z[i]
//		bar[i] = float64(a*bar[i]) + float64(b*th)
//		m += float64(d * th)
//	}
//
// z and bar are bit-identical to the reference in every implementation (no
// FMA); the avx2 implementation accumulates m with FMA in four accumulators
// of four lanes, agreeing with the reference to within
// 4·(n+4)·2⁻⁵³·Σ|d_i·θ_i|.
func SyncLinear(z, bar, x, y []float64, w, c, a, b float64) (m float64) {
	n := len(z)
	if len(bar) != n {
		lengthPanic("SyncLinear", "bar", len(bar), n)
	}
	if len(x) != n {
		lengthPanic("SyncLinear", "x", len(x), n)
	}
	if len(y) != n {
		lengthPanic("SyncLinear", "y", len(y), n)
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.syncLinear(ptr(z), ptr(bar), ptr(x), ptr(y), n, w, c, a, b)
	}
	return syncLinearLong(f, z, bar, x, y, w, c, a, b)
}

func syncLinearLong(f *funcs, z, bar, x, y []float64, w, c, a, b float64) (m float64) {
	for len(z) > 0 {
		k := min(len(z), chunk)
		m += f.syncLinear(ptr(z), ptr(bar), ptr(x), ptr(y), k, w, c, a, b)
		z, bar, x, y = z[k:], bar[k:], x[k:], y[k:]
	}
	return m
}

func syncLinearGeneric(z, bar, x, y []float64, w, c, a, b float64) (m float64) {
	bar, x, y = bar[:len(z)], x[:len(z)], y[:len(z)]
	for i := range z {
		d := x[i] - y[i]
		z[i] += float64(w * d)
		th := c * z[i]
		bar[i] = float64(a*bar[i]) + float64(b*th)
		m += float64(d * th)
	}
	return m
}
