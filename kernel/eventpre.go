package kernel

// EventPre is the first pass of an asynchronous gossip event on edge
// (i, j) with a linear smoothing operator (θ = c·z): it swaps the
// endpoints' auxiliary rows y_i ↔ y_j, returns each endpoint's margin
// (x − y)ᵀθ at its θ = c·z before the averaging (with the swapped y), and
// averages z_i, z_j ← (z_i + z_j)/2. It panics if a slice's length differs
// from len(zi). The six slices must not overlap.
//
// Reference (the generic implementation):
//
//	for a := range zi {
//		yi[a], yj[a] = yj[a], yi[a]
//		mi += float64((xi[a] - yi[a]) * float64(ci*zi[a]))
//		mj += float64((xj[a] - yj[a]) * float64(cj*zj[a]))
//		v := (zi[a] + zj[a]) / 2
//		zi[a], zj[a] = v, v
//	}
//
// y and z are bit-identical to the reference in every implementation; the
// avx2 implementation accumulates the margins with FMA in four accumulators
// of four lanes (within 4·(n+4)·2⁻⁵³·Σ|terms| of the reference).
func EventPre(xi, yi, zi, xj, yj, zj []float64, ci, cj float64) (mi, mj float64) {
	n := len(zi)
	for k, s := range [...][]float64{xi, yi, xj, yj, zj} {
		if len(s) != n {
			lengthPanic("EventPre", [...]string{"xi", "yi", "xj", "yj", "zj"}[k], len(s), n)
		}
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.eventPre(ptr(xi), ptr(yi), ptr(zi), ptr(xj), ptr(yj), ptr(zj), n, ci, cj)
	}
	for len(zi) > 0 {
		k := min(len(zi), chunk)
		a, b := f.eventPre(ptr(xi), ptr(yi), ptr(zi), ptr(xj), ptr(yj), ptr(zj), k, ci, cj)
		mi, mj = mi+a, mj+b
		xi, yi, zi, xj, yj, zj = xi[k:], yi[k:], zi[k:], xj[k:], yj[k:], zj[k:]
	}
	return mi, mj
}

func eventPreGeneric(xi, yi, zi, xj, yj, zj []float64, ci, cj float64) (mi, mj float64) {
	xi, yi, xj, yj, zj = xi[:len(zi)], yi[:len(zi)], xj[:len(zi)], yj[:len(zi)], zj[:len(zi)]
	for a := range zi {
		yi[a], yj[a] = yj[a], yi[a]
		mi += float64((xi[a] - yi[a]) * float64(ci*zi[a]))
		mj += float64((xj[a] - yj[a]) * float64(cj*zj[a]))
		v := (zi[a] + zj[a]) / 2
		zi[a], zj[a] = v, v
	}
	return mi, mj
}
