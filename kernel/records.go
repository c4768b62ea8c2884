package kernel

import (
	"fmt"
	"math"
)

//go:generate sh -c "cd ../asm && go run . -kernel records -out ../kernel/records_amd64.s -stubs ../kernel/records_amd64_stub.go"

// WriteRecords writes, for each node k = nodes[e] of a list, its z and θ̄
// at the current point of a segment of the reduced synchronous schedule
// (the records' update at a block's end): with δ = x_k − x_{yIdx[k]} and
// al, be, w, eta = sc[4e], sc[4e+1], sc[4e+2], sc[4e+3], θ̄ ← al·θ̄ + be·z +
// eta·δ and z ← z + w·δ over the first n elements of the rows. Row r of x
// starts at x[r·sx], row k of z and of bar at z[k·sr] and bar[k·sr]. It
// panics unless len(sc) = 4·len(nodes) and every row it would read or
// write lies inside its slice. The rows of z and bar must not overlap x or
// each other (a node listed twice is updated twice, in turn).
//
// Reference (the generic implementation):
//
//	for e, k := range nodes {
//		al, be, w, eta := sc[4*e], sc[4*e+1], sc[4*e+2], sc[4*e+3]
//		xr, yr := x[k*sx:], x[yIdx[k]*sx:]
//		zr, br := z[k*sr:], bar[k*sr:]
//		for a := range n {
//			d, za := xr[a]-yr[a], zr[a]
//			br[a] = float64(al*br[a]) + float64(be*za) + float64(eta*d)
//			zr[a] = za + float64(w*d)
//		}
//	}
//
// Every implementation is bit-identical to the reference (no FMA); the
// avx512 one runs the rows eight elements at a time (../asm), the others
// are the reference.
func WriteRecords(x []float64, sx int, yIdx []int32, z, bar []float64, sr, n int, nodes []int32, sc []float64) {
	if len(sc) != 4*len(nodes) {
		lengthPanic("WriteRecords", "sc", len(sc), 4*len(nodes))
	}
	if n <= 0 || len(nodes) == 0 {
		return
	}
	rx, rz := lastRow(len(x), sx, n), min(lastRow(len(z), sr, n), lastRow(len(bar), sr, n))
	for _, k := range nodes {
		if k < 0 || int(k) >= len(yIdx) {
			panic(fmt.Sprintf("kernel.WriteRecords: node %d outside yIdx (length %d)", k, len(yIdx)))
		}
		if y := yIdx[k]; int(k) > rx || int(k) > rz || y < 0 || int(y) > rx {
			rowPanic("WriteRecords", int(k), int(y), sx, sr, n)
		}
	}
	if f := cur.Load().writeRecords; f != nil {
		f(&x[0], sx, &yIdx[0], &z[0], &bar[0], sr, n, &nodes[0], len(nodes), &sc[0])
		return
	}
	writeRecordsGeneric(x, sx, yIdx, z, bar, sr, n, nodes, sc)
}

// AverageRecords moves, for each node k of nodes, the running average of a
// node whose z stays: θ̄ ← al·θ̄ + be·z over the first n elements of the
// rows k of z and bar (row k at z[k·sr], bar[k·sr]). It panics unless every
// row lies inside its slice; the rows of bar must not overlap those of z.
//
// Reference (the generic implementation):
//
//	for _, k := range nodes {
//		zr, br := z[k*sr:], bar[k*sr:]
//		for a := range n {
//			br[a] = float64(al*br[a]) + float64(be*zr[a])
//		}
//	}
//
// Every implementation is bit-identical to the reference (no FMA).
func AverageRecords(z, bar []float64, sr, n int, nodes []int32, al, be float64) {
	if n <= 0 || len(nodes) == 0 {
		return
	}
	rz := min(lastRow(len(z), sr, n), lastRow(len(bar), sr, n))
	for _, k := range nodes {
		if k < 0 || int(k) > rz {
			rowPanic("AverageRecords", int(k), 0, 0, sr, n)
		}
	}
	if f := cur.Load().averageRecords; f != nil {
		f(&z[0], &bar[0], sr, n, &nodes[0], len(nodes), al, be)
		return
	}
	averageRecordsGeneric(z, bar, sr, n, nodes, al, be)
}

// lastRow is the last row r ≥ 0 whose elements r·stride … r·stride + n − 1
// lie in a slice of length l (n > 0), −1 if there is none.
func lastRow(l, stride, n int) int {
	switch {
	case n > l || stride < 0:
		return -1
	case stride == 0:
		return math.MaxInt
	}
	return (l - n) / stride
}

//go:noinline
func rowPanic(kernel string, k, y, sx, sr, n int) {
	panic(fmt.Sprintf("kernel.%s: node %d (y %d) has rows outside the slices (strides %d, %d; %d elements)", kernel, k, y, sx, sr, n))
}

func writeRecordsGeneric(x []float64, sx int, yIdx []int32, z, bar []float64, sr, n int, nodes []int32, sc []float64) {
	for e, k32 := range nodes {
		k := int(k32)
		al, be, w, eta := sc[4*e], sc[4*e+1], sc[4*e+2], sc[4*e+3]
		xr, yr := x[k*sx:k*sx+n], x[int(yIdx[k])*sx:][:n]
		zr, br := z[k*sr:k*sr+n], bar[k*sr:k*sr+n]
		for a := range n {
			d, za := xr[a]-yr[a], zr[a]
			br[a] = float64(al*br[a]) + float64(be*za) + float64(eta*d)
			zr[a] = za + float64(w*d)
		}
	}
}

func averageRecordsGeneric(z, bar []float64, sr, n int, nodes []int32, al, be float64) {
	for _, k32 := range nodes {
		k := int(k32)
		zr, br := z[k*sr:k*sr+n], bar[k*sr:k*sr+n]
		for a := range n {
			br[a] = float64(al*br[a]) + float64(be*zr[a])
		}
	}
}
