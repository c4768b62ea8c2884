package kernel

// SyncLinearTheta is SyncLinear that also stores θ: th[i] = c·z[i] (after
// the update of z). It panics if len(th), len(bar), len(x) or len(y)
// differs from len(z). The outputs z, th and bar must not overlap each
// other or the inputs.
//
// Reference (the generic implementation):
//
//	for i := range z {
//		d := x[i] - y[i]
//		z[i] += float64(w * d)
//		th[i] = c * z[i]
//		bar[i] = float64(a*bar[i]) + float64(b*th[i])
//		m += float64(d * th[i])
//	}
//
// z, th and bar are bit-identical to the reference in every implementation
// (no FMA); m agrees to within 4·(n+4)·2⁻⁵³·Σ|d_i·θ_i| (FMA, four
// accumulators of four lanes in avx2).
func SyncLinearTheta(z, th, bar, x, y []float64, w, c, a, b float64) (m float64) {
	n := len(z)
	if len(th) != n {
		lengthPanic("SyncLinearTheta", "th", len(th), n)
	}
	if len(bar) != n {
		lengthPanic("SyncLinearTheta", "bar", len(bar), n)
	}
	if len(x) != n {
		lengthPanic("SyncLinearTheta", "x", len(x), n)
	}
	if len(y) != n {
		lengthPanic("SyncLinearTheta", "y", len(y), n)
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.syncLinearTheta(ptr(z), ptr(th), ptr(bar), ptr(x), ptr(y), n, w, c, a, b)
	}
	return syncLinearThetaLong(f, z, th, bar, x, y, w, c, a, b)
}

func syncLinearThetaLong(f *funcs, z, th, bar, x, y []float64, w, c, a, b float64) (m float64) {
	for len(z) > 0 {
		k := min(len(z), chunk)
		m += f.syncLinearTheta(ptr(z), ptr(th), ptr(bar), ptr(x), ptr(y), k, w, c, a, b)
		z, th, bar, x, y = z[k:], th[k:], bar[k:], x[k:], y[k:]
	}
	return m
}

func syncLinearThetaGeneric(z, th, bar, x, y []float64, w, c, a, b float64) (m float64) {
	th, bar, x, y = th[:len(z)], bar[:len(z)], x[:len(z)], y[:len(z)]
	for i := range z {
		d := x[i] - y[i]
		z[i] += float64(w * d)
		th[i] = c * z[i]
		bar[i] = float64(a*bar[i]) + float64(b*th[i])
		m += float64(d * th[i])
	}
	return m
}
