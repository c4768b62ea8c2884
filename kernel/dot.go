package kernel

// Dot returns Σ x[i]·y[i]. It panics if len(y) != len(x).
//
// Reference (the generic implementation):
//
//	var s float64
//	for i := range x {
//		s += float64(x[i] * y[i])
//	}
//
// The avx2 implementation keeps four accumulators of four lanes and fuses
// each multiply-add (FMA), so it rounds differently: the two agree to
// within 4·(n+4)·2⁻⁵³·Σ|x[i]·y[i]| (the tests' tolerance).
func Dot(x, y []float64) float64 {
	if len(y) != len(x) {
		lengthPanic("Dot", "y", len(y), len(x))
	}
	f := cur.Load()
	if n := len(x); n <= chunk || !f.bounded {
		return f.dot(ptr(x), ptr(y), n)
	}
	return dotLong(f, x, y)
}

func dotLong(f *funcs, x, y []float64) (r float64) {
	for len(x) > 0 {
		k := min(len(x), chunk)
		r += f.dot(ptr(x), ptr(y), k)
		x, y = x[k:], y[k:]
	}
	return r
}

func dotGeneric(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for i := range x {
		s += float64(x[i] * y[i])
	}
	return s
}
