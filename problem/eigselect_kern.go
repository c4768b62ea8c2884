package problem

// Plain-Go vector loops of ProjectPSDSelect, for the short (≤ d) vectors of
// the back-transformation, the Gram–Schmidt of inverse iteration and the
// reconstruction, where a BLAS call's overhead is of the order of the work.

// dotv returns Σ x[i]·y[i] (four partial sums, then (s0+s1)+(s2+s3)).
func dotv(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyv sets y += a·x.
func axpyv(a float64, x, y []float64) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(x); i++ {
		y[i] += a * x[i]
	}
}

// scalv sets x *= a.
func scalv(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

// syrkUpper adds Σ_c y_c·y_cᵀ over the k rows y_c of the row-major k×d y
// to the upper triangle of the row-major d×d dst, four rows of y at a time
// (dst[i, j] += ((y₀ᵢy₀ⱼ + y₁ᵢy₁ⱼ) + y₂ᵢy₂ⱼ) + y₃ᵢy₃ⱼ, in that order).
func syrkUpper(dst, y []float64, d, k int) {
	c := 0
	for ; c+4 <= k; c += 4 {
		y0, y1 := y[c*d:c*d+d], y[(c+1)*d:(c+1)*d+d]
		y2, y3 := y[(c+2)*d:(c+2)*d+d], y[(c+3)*d:(c+3)*d+d]
		for i := 0; i < d; i++ {
			a0, a1, a2, a3 := y0[i], y1[i], y2[i], y3[i]
			row := dst[i*d+i : i*d+d]
			r0, r1, r2, r3 := y0[i:], y1[i:], y2[i:], y3[i:]
			r0, r1, r2, r3 = r0[:len(row)], r1[:len(row)], r2[:len(row)], r3[:len(row)]
			for j := range row {
				row[j] += a0*r0[j] + a1*r1[j] + a2*r2[j] + a3*r3[j]
			}
		}
	}
	for ; c < k; c++ {
		yc := y[c*d : c*d+d]
		for i := 0; i < d; i++ {
			row := dst[i*d+i : i*d+d]
			axpyv(yc[i], yc[i:], row)
		}
	}
}
