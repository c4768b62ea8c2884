package kernel

// Scale sets dst[i] = c·src[i] (θ = c·z for a linear smoothing operator).
// It panics if len(src) != len(dst). dst may be src itself but must not
// otherwise overlap it.
//
// Reference (the generic implementation):
//
//	for i := range dst {
//		dst[i] = c * src[i]
//	}
//
// Every implementation is bit-identical to the reference (one rounding).
func Scale(dst, src []float64, c float64) {
	if len(src) != len(dst) {
		lengthPanic("Scale", "src", len(src), len(dst))
	}
	f := cur.Load()
	for f.bounded && len(dst) > chunk {
		f.scale(ptr(dst), ptr(src), chunk, c)
		dst, src = dst[chunk:], src[chunk:]
	}
	f.scale(ptr(dst), ptr(src), len(dst), c)
}

func scaleGeneric(dst, src []float64, c float64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = c * src[i]
	}
}
