//go:build amd64 && !noasm

package kernel

// householderOf returns implementation f's Householder kernel (nil: the
// generic loop).
func householderOf(f *funcs) func(y, h *float64, n, rows, stride int, tau float64) {
	switch f {
	case avx2:
		return householderAVX2
	case avx512:
		return householderAVX512
	}
	return nil
}
