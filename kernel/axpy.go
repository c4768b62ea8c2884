package kernel

// Axpy sets y[i] += a·x[i]. It panics if len(y) != len(x). y may be x
// itself but must not otherwise overlap it.
//
// Reference (the generic implementation):
//
//	for i := range x {
//		y[i] += float64(a * x[i])
//	}
//
// Every implementation rounds the product and then the sum (no FMA), so
// all are bit-identical to the reference.
func Axpy(a float64, x, y []float64) {
	if len(y) != len(x) {
		lengthPanic("Axpy", "y", len(y), len(x))
	}
	f := cur.Load()
	for f.bounded && len(x) > chunk {
		f.axpy(ptr(x), ptr(y), chunk, a)
		x, y = x[chunk:], y[chunk:]
	}
	f.axpy(ptr(x), ptr(y), len(x), a)
}

func axpyGeneric(a float64, x, y []float64) {
	y = y[:len(x)]
	for i := range x {
		y[i] += float64(a * x[i])
	}
}
