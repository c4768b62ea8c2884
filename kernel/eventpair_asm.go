//go:build amd64 && !noasm

package kernel

// eventPairOf returns implementation f's two-event kernel (nil: none).
func eventPairOf(f *funcs) EventLogisticPairFunc {
	switch f {
	case avx2:
		return eventLogisticPairAVX2
	case avx512:
		return eventLogisticPairAVX512
	}
	return nil
}
