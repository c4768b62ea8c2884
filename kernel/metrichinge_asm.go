//go:build amd64 && !noasm

package kernel

// metricHingeOf returns implementation f's MetricHinge8 kernel (nil: run the
// reference).
func metricHingeOf(f *funcs) func(r, a, x, q, lab *float64, d, stride, n int, sc *float64, diag int) {
	if f == avx512 {
		return metricHingeAVX512
	}
	return nil
}

// metricDistOf returns implementation f's MetricDist8 kernel (nil: run the
// reference).
func metricDistOf(f *funcs) func(out, theta, xk, x, delta *float64, d, stride int) {
	if f == avx512 {
		return metricDistAVX512
	}
	return nil
}

// gemm8Of returns implementation f's Gemm8 kernel (nil: run the reference).
func gemm8Of(f *funcs) func(out, a *float64, astride int, b *float64, bstride, d, n int) {
	if f == avx512 {
		return gemm8AVX512
	}
	return nil
}
