//go:build amd64 && !noasm

package kernel

// ger2Of returns implementation f's Ger2 kernel (nil: the generic loop).
func ger2Of(f *funcs) func(a, x, y, u, v *float64, n, rows, stride int) {
	switch f {
	case avx2:
		return ger2AVX2
	case avx512:
		return ger2AVX512
	}
	return nil
}

// ger2DotOf returns implementation f's Ger2Dot kernel (nil: the generic
// loop).
func ger2DotOf(f *funcs) func(a, x, y, u, v, z, out *float64, n, rows, stride int) {
	switch f {
	case avx2:
		return ger2DotAVX2
	case avx512:
		return ger2DotAVX512
	}
	return nil
}
