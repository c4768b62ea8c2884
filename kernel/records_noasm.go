//go:build !amd64 || noasm

package kernel

// writeRecords and averageRecords are the reference without amd64 assembly.
func writeRecords(x []float64, sx int, yIdx []int32, z, bar []float64, sr, n int, nodes []int32, sc []float64) {
	writeRecordsGeneric(x, sx, yIdx, z, bar, sr, n, nodes, sc)
}

func averageRecords(z, bar []float64, sr, n int, nodes []int32, al, be float64) {
	averageRecordsGeneric(z, bar, sr, n, nodes, al, be)
}
