package problem

// Plain-Go vector loops of ProjectPSDSelect, for the short (≤ d) vectors of
// the Gram–Schmidt of inverse iteration, the reconstruction and the
// back-transformation at small orders, where a BLAS call's overhead is of
// the order of the work.

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

// reflectRows applies H_{d−2}⋯H_0, H_i = I − τ_i·hhᵀ with h[0:i] =
// a[i+1, 0:i] and h[i] = 1 (tridiagFull's reflectors, a row-major d×d), to
// each of the k rows of the row-major k×d y (the back-transformation of
// the eigenvectors) below order tridiagLowerMax, four rows at a time so
// that each h is loaded once for four vectors (from that order on
// ProjectPSDSelect uses kernel.Householder on the vectors by column). Every row gets the same operations in the same order: w =
// τ·(Σ_r h_r·y_r + y_i), summed in order of r, then y_r −= w·h_r.
func reflectRows(y, a, tau []float64, d, k int) {
	c := 0
	for ; c+4 <= k; c += 4 {
		y0, y1 := y[c*d:c*d+d], y[(c+1)*d:(c+1)*d+d]
		y2, y3 := y[(c+2)*d:(c+2)*d+d], y[(c+3)*d:(c+3)*d+d]
		for i := 0; i <= d-2; i++ {
			t := tau[i]
			if t == 0 {
				continue
			}
			h := a[(i+1)*d : (i+1)*d+i]
			r0, r1, r2, r3 := y0[:len(h)], y1[:len(h)], y2[:len(h)], y3[:len(h)]
			var s0, s1, s2, s3 float64
			for r, hr := range h {
				s0 += hr * r0[r]
				s1 += hr * r1[r]
				s2 += hr * r2[r]
				s3 += hr * r3[r]
			}
			w0, w1, w2, w3 := (s0+y0[i])*t, (s1+y1[i])*t, (s2+y2[i])*t, (s3+y3[i])*t
			for r, hr := range h {
				r0[r] -= w0 * hr
				r1[r] -= w1 * hr
				r2[r] -= w2 * hr
				r3[r] -= w3 * hr
			}
			y0[i] -= w0
			y1[i] -= w1
			y2[i] -= w2
			y3[i] -= w3
		}
	}
	for ; c < k; c++ {
		yc := y[c*d : c*d+d]
		for i := 0; i <= d-2; i++ {
			t := tau[i]
			if t == 0 {
				continue
			}
			h := a[(i+1)*d : (i+1)*d+i]
			r0 := yc[:len(h)]
			var s0 float64
			for r, hr := range h {
				s0 += hr * r0[r]
			}
			w0 := (s0 + yc[i]) * t
			for r, hr := range h {
				r0[r] -= w0 * hr
			}
			yc[i] -= w0
		}
	}
}
