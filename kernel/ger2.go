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
	rows, n := ger2Lengths("Ger2", x, y, u, v)
	if !ger2Block("Ger2", a, stride, rows, n) {
		return
	}
	k := cur.Load().ger2
	if k == nil || n > chunk {
		ger2Generic(a, stride, x, y, u, v)
		return
	}
	ger2Chunks(rows, n, func(q, m int) {
		k(ptr(a[q*stride:]), ptr(x[q:]), ptr(y), ptr(u[q:]), ptr(v), n, m, stride)
	})
}

// ger2Lengths returns Ger2's rows = len(x) and n = len(y), and panics
// (naming kernel, the caller) unless len(u) = rows and len(v) = n.
func ger2Lengths(kernel string, x, y, u, v []float64) (rows, n int) {
	rows, n = len(x), len(y)
	if len(u) != rows {
		lengthPanic(kernel, "u", len(u), rows)
	}
	if len(v) != n {
		lengthPanic(kernel, "v", len(v), n)
	}
	return rows, n
}

// ger2Block reports whether the rows×n block of a with row stride stride
// has any element, and panics (naming kernel, the caller) if it has and
// n > stride with rows > 1 or a is shorter than the block.
func ger2Block(kernel string, a []float64, stride, rows, n int) bool {
	if rows == 0 || n == 0 {
		return false
	}
	if rows > 1 && n > stride {
		panic("kernel." + kernel + ": n > stride")
	}
	if len(a) < (rows-1)*stride+n {
		panic("kernel." + kernel + ": a shorter than the block")
	}
	return true
}

// ger2Chunks calls f(q, m) for consecutive runs of m rows from row q that
// cover rows 0..rows−1, each run at most max(1, chunk/n) rows, so that one
// (non-preemptible) assembly call handles about chunk elements at most.
func ger2Chunks(rows, n int, f func(q, m int)) {
	per := max(1, chunk/n)
	for q := 0; q < rows; q += per {
		f(q, min(per, rows-q))
	}
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
	rows, n := ger2Lengths("Ger2Dot", x, y, u, v)
	if len(z) != rows {
		lengthPanic("Ger2Dot", "z", len(z), rows)
	}
	if len(out) != n {
		lengthPanic("Ger2Dot", "out", len(out), n)
	}
	clear(out) // every implementation adds to out
	if !ger2Block("Ger2Dot", a, stride, rows, n) {
		return
	}
	k := cur.Load().ger2Dot
	if k == nil || n > chunk {
		ger2DotGeneric(a, stride, x, y, u, v, z, out)
		return
	}
	ger2Chunks(rows, n, func(q, m int) {
		k(ptr(a[q*stride:]), ptr(x[q:]), ptr(y), ptr(u[q:]), ptr(v), ptr(z[q:]), ptr(out), n, m, stride)
	})
}

// ger2DotGeneric is Ger2Dot's generic implementation: Ger2, then it adds
// zᵀ·a over the updated block to out (which Ger2Dot clears first).
func ger2DotGeneric(a []float64, stride int, x, y, u, v, z, out []float64) {
	ger2Generic(a, stride, x, y, u, v)
	n := len(out)
	for q, zq := range z[:len(x)] {
		row := a[q*stride : q*stride+n]
		for c, r := range row {
			out[c] += float64(zq * r)
		}
	}
}
