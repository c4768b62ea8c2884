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
