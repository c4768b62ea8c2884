package kernel

// DotDiff returns Σ (x[i] − y[i])·t[i], the AUC margin (x_k − y_k)ᵀθ. It
// panics if len(y) or len(t) differs from len(x).
//
// Reference (the generic implementation):
//
//	var s float64
//	for i := range x {
//		s += float64((x[i] - y[i]) * t[i])
//	}
//
// The avx2 implementation computes each difference exactly as the
// reference does, then accumulates with FMA in four accumulators of four
// lanes: the two agree to within 4·(n+4)·2⁻⁵³·Σ|(x[i]−y[i])·t[i]|.
func DotDiff(x, y, t []float64) float64 {
	if len(y) != len(x) {
		lengthPanic("DotDiff", "y", len(y), len(x))
	}
	if len(t) != len(x) {
		lengthPanic("DotDiff", "t", len(t), len(x))
	}
	f := cur.Load()
	if n := len(x); n <= chunk || !f.bounded {
		return f.dotDiff(ptr(x), ptr(y), ptr(t), n)
	}
	return dotDiffLong(f, x, y, t)
}

func dotDiffLong(f *funcs, x, y, t []float64) (r float64) {
	for len(x) > 0 {
		k := min(len(x), chunk)
		r += f.dotDiff(ptr(x), ptr(y), ptr(t), k)
		x, y, t = x[k:], y[k:], t[k:]
	}
	return r
}

func dotDiffGeneric(x, y, t []float64) float64 {
	y, t = y[:len(x)], t[:len(x)]
	var s float64
	for i := range x {
		s += float64((x[i] - y[i]) * t[i])
	}
	return s
}
