package kernel

//go:generate sh -c "cd ../asm && go run . -kernel ger2 -out ../kernel/ger2_amd64.s -stubs ../kernel/ger2_amd64_stub.go"

// Ger2 applies the rank-2 update a −= x·yᵀ + u·vᵀ to the rows×n block of
// the row-major a with row stride stride, rows = len(x) = len(u), n =
// len(y) = len(v): row q is a[q·stride : q·stride+n]. It is the symmetric
// rank-2 update of a Householder tridiagonalisation step (x = v = h, y = u
// = w) on the full matrix, in one call instead of two BLAS Dger. It panics
// if len(u) ≠ len(x), len(v) ≠ len(y), n > stride (with rows > 1) or a is
// shorter than the block. The vectors must not overlap a.
//
// Reference (the generic implementation):
//
//	for q := range x {
//		row := a[q*stride : q*stride+n]
//		for c := range row {
//			row[c] = row[c] - float64(x[q]*y[c]) - float64(u[q]*v[c])
//		}
//	}
//
// Every implementation is bit-identical to the reference (no FMA), hence
// to a += (−x)·yᵀ then a += (−u)·vᵀ by two unfused rank-1 updates.
func Ger2(a []float64, stride int, x, y, u, v []float64) {
	rows, n := len(x), len(y)
	if len(u) != rows {
		lengthPanic("Ger2", "u", len(u), rows)
	}
	if len(v) != n {
		lengthPanic("Ger2", "v", len(v), n)
	}
	if rows == 0 || n == 0 {
		return
	}
	if rows > 1 && n > stride {
		panic("kernel.Ger2: n > stride")
	}
	if len(a) < (rows-1)*stride+n {
		panic("kernel.Ger2: a shorter than the block")
	}
	f := cur.Load()
	k := ger2Of(f)
	if k == nil || n > chunk {
		ger2Generic(a, stride, x, y, u, v)
		return
	}
	// Bound the elements of one (non-preemptible) call to about chunk.
	per := max(1, chunk/n)
	for rows > per {
		k(ptr(a), ptr(x), ptr(y), ptr(u), ptr(v), n, per, stride)
		a, x, u = a[per*stride:], x[per:], u[per:]
		rows -= per
	}
	k(ptr(a), ptr(x), ptr(y), ptr(u), ptr(v), n, rows, stride)
}

func ger2Generic(a []float64, stride int, x, y, u, v []float64) {
	n := len(y)
	v = v[:n]
	u = u[:len(x)]
	for q := range x {
		row := a[q*stride : q*stride+n]
		xq, uq := x[q], u[q]
		for c := range row {
			row[c] = row[c] - float64(xq*y[c]) - float64(uq*v[c])
		}
	}
}

// Ger2Dot is Ger2, then out = zᵀ·a over the updated rows×n block
// (len(z) = rows, len(out) = n): for a symmetric block, the product a·z,
// the next Householder step's A·h, accumulated down the rows while each is
// loaded (no horizontal sum a row). z may lie in a outside the block; out
// must not overlap any argument. The update is Ger2's, bit for bit; out is
// a reduction over the rows (the assembly uses FMA, within the usual bound
// of the reference's unfused sum).
//
// Reference (the generic implementation): Ger2, then
//
//	clear(out)
//	for q, zq := range z {
//		for c := range out {
//			out[c] += float64(zq * a[q*stride+c])
//		}
//	}
func Ger2Dot(a []float64, stride int, x, y, u, v, z, out []float64) {
	rows, n := len(x), len(y)
	if len(u) != rows {
		lengthPanic("Ger2Dot", "u", len(u), rows)
	}
	if len(v) != n {
		lengthPanic("Ger2Dot", "v", len(v), n)
	}
	if len(z) != rows {
		lengthPanic("Ger2Dot", "z", len(z), rows)
	}
	if len(out) != n {
		lengthPanic("Ger2Dot", "out", len(out), n)
	}
	clear(out)
	if rows == 0 || n == 0 {
		return
	}
	if rows > 1 && n > stride {
		panic("kernel.Ger2Dot: n > stride")
	}
	if len(a) < (rows-1)*stride+n {
		panic("kernel.Ger2Dot: a shorter than the block")
	}
	f := cur.Load()
	k := ger2DotOf(f)
	if k == nil || n > chunk {
		ger2DotGeneric(a, stride, x, y, u, v, z, out)
		return
	}
	per := max(1, chunk/n)
	for rows > per {
		k(ptr(a), ptr(x), ptr(y), ptr(u), ptr(v), ptr(z), ptr(out), n, per, stride)
		a, x, u, z = a[per*stride:], x[per:], u[per:], z[per:]
		rows -= per
	}
	k(ptr(a), ptr(x), ptr(y), ptr(u), ptr(v), ptr(z), ptr(out), n, rows, stride)
}

func ger2DotGeneric(a []float64, stride int, x, y, u, v, z, out []float64) {
	ger2Generic(a, stride, x, y, u, v)
	clear(out)
	n := len(out)
	for q, zq := range z[:len(x)] {
		row := a[q*stride : q*stride+n]
		for c, r := range row {
			out[c] += float64(zq * r)
		}
	}
}
