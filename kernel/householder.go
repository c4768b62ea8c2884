package kernel

//go:generate sh -c "cd ../asm && go run . -kernel householder -out ../kernel/householder_amd64.s -stubs ../kernel/householder_amd64_stub.go"

// Householder applies the reflector H = I − τ·vvᵀ, v = [h; 1] (length rows
// + 1, rows = len(h)), to the (rows+1)×n block of the row-major y with row
// stride stride (row r at y[r·stride : r·stride+n]): each column c becomes
// H·y[:, c], as a back-transformation of n vectors stored by column. It
// panics if n > stride (with rows > 0), n < 0 or y is shorter than the
// block. h must not overlap y's block.
//
// Reference (the generic implementation):
//
//	for c := 0; c < n; c++ {
//		s := y[rows*stride+c]
//		for r, hr := range h {
//			s += float64(hr * y[r*stride+c])
//		}
//		s *= tau
//		y[rows*stride+c] -= s
//		for r, hr := range h {
//			y[r*stride+c] -= float64(hr * s)
//		}
//	}
//
// Every implementation is bit-identical to the reference (no FMA; the sums
// in order of r, a block of columns at a time).
func Householder(y []float64, stride, n int, h []float64, tau float64) {
	rows := len(h)
	if n < 0 {
		panic("kernel.Householder: n < 0")
	}
	if n == 0 {
		return
	}
	if rows > 0 && n > stride {
		panic("kernel.Householder: n > stride")
	}
	if len(y) < rows*stride+n {
		panic("kernel.Householder: y shorter than the block")
	}
	f := cur.Load()
	k := f.householder
	if k == nil || rows > chunk || n > chunk/max(1, rows) {
		householderGeneric(y, stride, n, h, tau)
		return
	}
	k(ptr(y), ptr(h), n, rows, stride, tau)
}

func householderGeneric(y []float64, stride, n int, h []float64, tau float64) {
	rows := len(h)
	last := y[rows*stride : rows*stride+n]
	for c := range last {
		s := last[c]
		for r, hr := range h {
			s += float64(hr * y[r*stride+c])
		}
		s *= tau
		last[c] -= s
		for r, hr := range h {
			y[r*stride+c] -= float64(hr * s)
		}
	}
}
