package kernel

import "math"

// LogisticRound advances a pack of nodes of the reduced synchronous
// schedule (AUC with the logistic loss φ(m) = log(1 + e^{−m}), a linear
// smoothing operator θ = c·z) through one round. Node i of the pack moves
// along its fixed direction δ_i = x_i − y_i; it is described by s₀ = δᵀz₀,
// q = δᵀδ, its accumulated gradient weight W, the weight η of δ in its
// running average, and m, its margin for this round. With c, a = 1 − 1/t and
// bc = c/t of round t, it computes g = φ'(m) = −σ(−m), W += g, η = a·η +
// bc·W and m = c·(s₀ + W·q), the margin of the next round. It returns the
// number of nodes with g ≠ 0 and whether every new m is finite. All slices
// must have the length of m (it panics otherwise); s0 and q are read only.
//
// Reference (the generic implementation):
//
//	for i := range m {
//		var g float64 // −σ(−m[i]), as problem.Sigmoid computes σ
//		if m[i] <= 0 {
//			g = -(1 / (1 + math.Exp(m[i])))
//		} else {
//			e := math.Exp(-m[i])
//			g = -(e / (1 + e))
//		}
//		if g != 0 {
//			nonzero++
//		}
//		w[i] += g
//		eta[i] = float64(a*eta[i]) + float64(bc*w[i])
//		m[i] = c * (s0[i] + float64(w[i]*q[i]))
//		finite = finite && math.Abs(m[i]) <= math.MaxFloat64
//	}
//
// The avx2 implementation computes the exponential itself, four lanes at a
// time (a degree-13 polynomial after range reduction; see ../asm), within 2
// ulp of math.Exp, so its g differs from the reference's in the last bits;
// everything after g is the reference's arithmetic. Zero and non-zero g
// (exp underflow at m > 745.13), NaN and infinities behave as in the
// reference.
func LogisticRound(s0, q, w, eta, m []float64, c, a, bc float64) (nonzero int, finite bool) {
	n := len(m)
	if len(s0) != n {
		lengthPanic("LogisticRound", "s0", len(s0), n)
	}
	if len(q) != n {
		lengthPanic("LogisticRound", "q", len(q), n)
	}
	if len(w) != n {
		lengthPanic("LogisticRound", "w", len(w), n)
	}
	if len(eta) != n {
		lengthPanic("LogisticRound", "eta", len(eta), n)
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.logisticRound(ptr(s0), ptr(q), ptr(w), ptr(eta), ptr(m), n, c, a, bc)
	}
	finite = true
	for len(m) > 0 {
		k := min(len(m), chunk)
		nz, fin := f.logisticRound(ptr(s0), ptr(q), ptr(w), ptr(eta), ptr(m), k, c, a, bc)
		nonzero += nz
		finite = finite && fin
		s0, q, w, eta, m = s0[k:], q[k:], w[k:], eta[k:], m[k:]
	}
	return nonzero, finite
}

func logisticRoundGeneric(s0, q, w, eta, m []float64, c, a, bc float64) (nonzero int, finite bool) {
	s0, q, w, eta = s0[:len(m)], q[:len(m)], w[:len(m)], eta[:len(m)]
	finite = true
	for i := range m {
		g := negSigmoid(m[i])
		if g != 0 {
			nonzero++
		}
		w[i] += g
		eta[i] = float64(a*eta[i]) + float64(bc*w[i])
		m[i] = c * (s0[i] + float64(w[i]*q[i]))
		finite = finite && math.Abs(m[i]) <= math.MaxFloat64
	}
	return nonzero, finite
}
