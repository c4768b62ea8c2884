//go:build !amd64 || noasm

package kernel

// metricHingeOf returns nil: only the amd64 assembly has a MetricHinge8
// kernel.
func metricHingeOf(*funcs) func(r, a, x, q, lab *float64, d, stride, n int, sc *float64, diag int) {
	return nil
}

// metricDistOf returns nil: only the amd64 assembly has a MetricDist8
// kernel.
func metricDistOf(*funcs) func(out, theta, xk, x, delta *float64, d, stride int) { return nil }

// gemm8Of returns nil: only the amd64 assembly has a Gemm8 kernel.
func gemm8Of(*funcs) func(out, a *float64, astride int, b *float64, bstride, d, n int) { return nil }
