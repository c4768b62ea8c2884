//go:build amd64 && !noasm

package kernel

// writeRecords and averageRecords run the AVX-512 loops (../asm) when the
// avx512 implementation is active, the reference otherwise.
func writeRecords(x []float64, sx int, yIdx []int32, z, bar []float64, sr, n int, nodes []int32, sc []float64) {
	if cur.Load() == avx512 {
		writeRecordsAVX512(&x[0], sx, &yIdx[0], &z[0], &bar[0], sr, n, &nodes[0], len(nodes), &sc[0])
		return
	}
	writeRecordsGeneric(x, sx, yIdx, z, bar, sr, n, nodes, sc)
}

func averageRecords(z, bar []float64, sr, n int, nodes []int32, al, be float64) {
	if cur.Load() == avx512 {
		averageRecordsAVX512(&z[0], &bar[0], sr, n, &nodes[0], len(nodes), al, be)
		return
	}
	averageRecordsGeneric(z, bar, sr, n, nodes, al, be)
}
