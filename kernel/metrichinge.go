package kernel

import "fmt"

//go:generate sh -c "cd ../asm && go run . -kernel metrichinge -out ../kernel/metrichinge_amd64.s -stubs ../kernel/metrichinge_amd64_stub.go"

// MetricHingeRows holds the per-row scalars of a MetricHinge8 block.
type MetricHingeRows struct {
	Q   [8]float64 // q_i = x_iᵀθx_i of the eight rows
	Lab [8]float64 // their class labels
	B   float64    // the hinge's margin b
}

// metricHingeColumns bounds the columns of one assembly call (assembly is
// not preemptible): the wrapper continues the lanes' sums across calls,
// which gives the same bits.
const metricHingeColumns = 1 << 12

// MetricHinge8 adds to each of the eight running sums r[lane] the metric
// learning hinge terms of its row i against n columns j (n = len(q)): with
// g_ij = Σ_l a[8l + lane]·x[l·stride + j] (a holds the rows' d entries
// transposed, eight lanes per l; x the d rows of Xᵀ from the first column,
// stride apart), D_ij = q_i + q_j − g_ij and u = b − D_ij, negated when
// lab[j] ≠ rows.Lab[lane], the term is h = 1 − u when h > 0 or h is NaN.
// With diag set the columns start at the block's own rows (column c is row
// c of the block) and lane r takes only the columns c > r (fewer than 8
// columns then run the reference).
//
// Reference (the generic implementation), for each column c in order:
//
//	for lane := range 8 {
//		if diag && c <= lane {
//			continue
//		}
//		var g float64
//		for l := range d {
//			g += float64(a[8*l+lane] * x[l*stride+c])
//		}
//		u := rows.B - (rows.Q[lane] + q[c] - g)
//		if lab[c] != rows.Lab[lane] {
//			u = -u
//		}
//		if h := 1 - u; h > 0 || h != h {
//			r[lane] += h
//		}
//	}
//
// The AVX-512 implementation computes the eight lanes side by side with the
// reference's operations in its order, without FMA, so its sums are
// bit-identical to the reference's (as are those of the other
// implementations, which run the reference); the terms of a row are those
// of the exact metric objective's double sum (package problem).
func MetricHinge8(r *[8]float64, a, x []float64, stride int, q, lab []float64, rows *MetricHingeRows, diag bool) {
	n, d := len(q), len(a)/8
	switch {
	case len(a)%8 != 0:
		panic(fmt.Sprintf("kernel.MetricHinge8: len(a) = %d is not a multiple of 8", len(a)))
	case len(lab) != n:
		lengthPanic("MetricHinge8", "lab", len(lab), n)
	case n > 0 && d > 0 && (stride < n || len(x) < (d-1)*stride+n):
		panic(fmt.Sprintf("kernel.MetricHinge8: len(x) = %d, stride = %d too short for %d rows of %d columns", len(x), stride, d, n))
	}
	if n == 0 {
		return
	}
	fn := cur.Load().metricHinge
	if fn == nil || (diag && n < 8) {
		metricHingeGeneric(r, a, x, stride, q, lab, rows, diag)
		return
	}
	var dg int
	if diag {
		dg = 1
	}
	// d = 0 (the evaluator's θ = 0, every entry g = +0): the kernel reads
	// no a and no x, so both point at r.
	pa, px := &r[0], &r[0]
	if d > 0 {
		pa = &a[0]
	}
	for c := 0; c < n; c += metricHingeColumns {
		w := min(metricHingeColumns, n-c)
		if d > 0 {
			px = &x[c]
		}
		fn(&r[0], pa, px, &q[c], &lab[c], d, stride, w, &rows.Q[0], dg)
		dg = 0
	}
}

func metricHingeGeneric(r *[8]float64, a, x []float64, stride int, q, lab []float64, rows *MetricHingeRows, diag bool) {
	d := len(a) / 8
	for c := range q {
		for lane := range 8 {
			if diag && c <= lane {
				continue
			}
			var g float64
			for l := range d {
				g += float64(a[8*l+lane] * x[l*stride+c])
			}
			u := rows.B - (rows.Q[lane] + q[c] - g)
			if lab[c] != rows.Lab[lane] {
				u = -u
			}
			if h := 1 - u; h > 0 || h != h {
				r[lane] += h
			}
		}
	}
}

// MetricDist8 sets out[lane] to the distance (x_k − x_j)ᵀθ(x_k − x_j) of
// point k (xk, d = len(xk) entries) to eight points j at once, their
// coordinates transposed: x[l·stride + lane] is coordinate l of the lane's
// point (eight consecutive columns of Xᵀ). theta is d×d, row-major; delta
// is scratch of 8·d.
//
// Reference (the generic implementation; problem.Problem.Dist's loops),
// for each lane:
//
//	var s float64
//	for a := range d {
//		da := xk[a] - x[a*stride+lane]
//		if da == 0 {
//			continue
//		}
//		var r float64
//		for c := range d {
//			r += float64(theta[a*d+c] * (xk[c] - x[c*stride+lane]))
//		}
//		s += float64(da * r)
//	}
//	out[lane] = s
//
// The AVX-512 implementation runs the eight lanes side by side with these
// operations in this order, without FMA: bit-identical to the reference.
func MetricDist8(out *[8]float64, theta, xk, x []float64, stride int, delta []float64) {
	d := len(xk)
	switch {
	case len(theta) != d*d:
		lengthPanic("MetricDist8", "theta", len(theta), d*d)
	case len(delta) < 8*d:
		lengthPanic("MetricDist8", "delta", len(delta), 8*d)
	case d > 0 && (stride < 8 || len(x) < (d-1)*stride+8):
		panic(fmt.Sprintf("kernel.MetricDist8: len(x) = %d, stride = %d too short for %d rows of 8", len(x), stride, d))
	}
	if d == 0 {
		*out = [8]float64{}
		return
	}
	if fn := cur.Load().metricDist; fn != nil {
		fn(&out[0], &theta[0], &xk[0], &x[0], &delta[0], d, stride)
		return
	}
	metricDistGeneric(out, theta, xk, x, stride)
}

func metricDistGeneric(out *[8]float64, theta, xk, x []float64, stride int) {
	d := len(xk)
	for lane := range 8 {
		var s float64
		for a := range d {
			da := xk[a] - x[a*stride+lane]
			if da == 0 {
				continue
			}
			var r float64
			for c := range d {
				r += float64(theta[a*d+c] * (xk[c] - x[c*stride+lane]))
			}
			s += float64(da * r)
		}
		out[lane] = s
	}
}

// Gemm8 sets out[8c + lane] = Σ_l a[l·astride + lane]·b[l·bstride + c] for
// c < n = len(out)/8 and l < d: eight rows of a product, transposed (a
// holds the rows' d entries, eight lanes per l; b is d×n, bstride apart),
// in the layout MetricHinge8 takes as its a.
//
// Reference (the generic implementation), for each c and lane:
//
//	var g float64
//	for l := range d {
//		g += float64(a[l*astride+lane] * b[l*bstride+c])
//	}
//	out[8*c+lane] = g
//
// These are the operations of gemmNN (package problem) for one entry, in
// its order, save that a zero a[l·astride + lane] is not skipped (adding
// its ±0 product changes nothing where b is finite). The AVX-512
// implementation computes eight lanes side by side with them, without FMA:
// bit-identical to the reference.
func Gemm8(out, a []float64, astride int, b []float64, bstride, d int) {
	n := len(out) / 8
	switch {
	case len(out)%8 != 0:
		panic(fmt.Sprintf("kernel.Gemm8: len(out) = %d is not a multiple of 8", len(out)))
	case d < 0:
		panic(fmt.Sprintf("kernel.Gemm8: d = %d", d))
	case d > 0 && (astride < 8 || len(a) < (d-1)*astride+8):
		panic(fmt.Sprintf("kernel.Gemm8: len(a) = %d, astride = %d too short for %d rows of 8", len(a), astride, d))
	case d > 0 && n > 0 && (bstride < n || len(b) < (d-1)*bstride+n):
		panic(fmt.Sprintf("kernel.Gemm8: len(b) = %d, bstride = %d too short for %d rows of %d", len(b), bstride, d, n))
	}
	if n == 0 {
		return
	}
	if d == 0 {
		clear(out)
		return
	}
	if fn := cur.Load().gemm8; fn != nil {
		for c := 0; c < n; c += metricHingeColumns {
			w := min(metricHingeColumns, n-c)
			fn(&out[8*c], &a[0], astride, &b[c], bstride, d, w)
		}
		return
	}
	gemm8Generic(out, a, astride, b, bstride, d)
}

func gemm8Generic(out, a []float64, astride int, b []float64, bstride, d int) {
	for c := range len(out) / 8 {
		for lane := range 8 {
			var g float64
			for l := range d {
				g += float64(a[l*astride+lane] * b[l*bstride+c])
			}
			out[8*c+lane] = g
		}
	}
}
