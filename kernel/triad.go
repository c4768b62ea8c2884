package kernel

// Triad sets a[i] = b[i] + s·c[i], the STREAM triad. It panics if len(b)
// or len(c) differs from len(a). a may be b itself (the in-place axpy
// b += s·c); otherwise a must not overlap b or c.
//
// Reference (the generic implementation):
//
//	for i := range a {
//		a[i] = b[i] + float64(s*c[i])
//	}
//
// Every implementation is bit-identical to the reference (no FMA).
func Triad(a, b, c []float64, s float64) {
	if len(b) != len(a) {
		lengthPanic("Triad", "b", len(b), len(a))
	}
	if len(c) != len(a) {
		lengthPanic("Triad", "c", len(c), len(a))
	}
	f := cur.Load()
	for f.bounded && len(a) > chunk {
		f.triad(ptr(a), ptr(b), ptr(c), chunk, s)
		a, b, c = a[chunk:], b[chunk:], c[chunk:]
	}
	f.triad(ptr(a), ptr(b), ptr(c), len(a), s)
}

func triadGeneric(a, b, c []float64, s float64) {
	b, c = b[:len(a)], c[:len(a)]
	for i := range a {
		a[i] = b[i] + float64(s*c[i])
	}
}
