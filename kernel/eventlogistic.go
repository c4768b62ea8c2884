package kernel

import "math"

// EventScalars are the per-endpoint scalars of EventLogistic, index 0 for
// endpoint i and 1 for j.
type EventScalars struct {
	// CPrev is the scale of the endpoint's θ = c·z before the event.
	CPrev [2]float64
	// P is 1/p_k when the endpoint's pair contributes (ℓ_k > ℓ_y, after
	// the swap of y), 0 when it does not.
	P [2]float64
	// C is the scale after the event; A = 1 − 1/count and B = 1/count
	// weigh the running average (count: the endpoint's activations,
	// this one included).
	C, A, B [2]float64
}

// EventLogistic is a whole asynchronous gossip event on edge (i, j) for
// the AUC logistic loss with a linear smoothing operator: EventPre (swap
// y_i ↔ y_j, margins m at θ = CPrev·z, z_i, z_j ← their average), then for
// each endpoint the weight w = P·φ'(m) (0 when P = 0) and the update of
// SyncLinear(z, bar, x, y, w, C, A, B). It returns the number of non-zero
// w and, in bits 0 and 1, whether the margin SyncLinear returns for i, j
// is not finite. Slices must have the length of zi (it panics otherwise)
// and must not overlap.
//
// Reference (the generic implementation):
//
//	m := EventPre(xi, yi, zi, xj, yj, zj, sc.CPrev[0], sc.CPrev[1])
//	for e, (x, y, z, bar) := range endpoints {
//		var w float64
//		if sc.P[e] != 0 {
//			w = sc.P[e] * g(m[e]) // g = −σ(−m) as LogisticRound computes it
//			if w != 0 { nonzero++ }
//		}
//		m2 := SyncLinear(z, bar, x, y, w, sc.C[e], sc.A[e], sc.B[e])
//		if !finite(m2) { bad |= 1 << e }
//	}
//
// The avx2 implementation is EventPre's and SyncLinear's avx2 arithmetic
// and LogisticRound's exponential, in one call (the margins with FMA, g
// within 3 ulp of the reference's).
func EventLogistic(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars) (nonzero, bad int) {
	n := len(zi)
	for k, s := range [...][]float64{xi, yi, bi, xj, yj, zj, bj} {
		if len(s) != n {
			lengthPanic("EventLogistic", [...]string{"xi", "yi", "bi", "xj", "yj", "zj", "bj"}[k], len(s), n)
		}
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.eventLogistic(ptr(xi), ptr(yi), ptr(zi), ptr(bi), ptr(xj), ptr(yj), ptr(zj), ptr(bj), n, &sc.CPrev[0])
	}
	// A row beyond one chunk: the split kernels, with the reference's g.
	mi, mj := EventPre(xi, yi, zi, xj, yj, zj, sc.CPrev[0], sc.CPrev[1])
	return eventPost(xi, yi, zi, bi, xj, yj, zj, bj, sc, [2]float64{mi, mj}, SyncLinear)
}

// negSigmoid is −σ(−m), as problem.Sigmoid computes σ (the reference).
func negSigmoid(m float64) float64 {
	if m <= 0 {
		return -(1 / (1 + math.Exp(m)))
	}
	e := math.Exp(-m)
	return -(e / (1 + e))
}

// eventPost is EventLogistic after EventPre (margins m), with the
// reference's g and the given SyncLinear.
func eventPost(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars, m [2]float64,
	syncLinear func(z, bar, x, y []float64, w, c, a, b float64) float64) (nonzero, bad int) {
	rows := [2][4][]float64{{zi, bi, xi, yi}, {zj, bj, xj, yj}}
	for e := range rows {
		var w float64
		if sc.P[e] != 0 {
			w = sc.P[e] * negSigmoid(m[e])
			if w != 0 {
				nonzero++
			}
		}
		r := rows[e]
		m2 := syncLinear(r[0], r[1], r[2], r[3], w, sc.C[e], sc.A[e], sc.B[e])
		if !(math.Abs(m2) <= math.MaxFloat64) {
			bad |= 1 << e
		}
	}
	return nonzero, bad
}

func eventLogisticGeneric(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars) (nonzero, bad int) {
	mi, mj := eventPreGeneric(xi, yi, zi, xj, yj, zj, sc.CPrev[0], sc.CPrev[1])
	return eventPost(xi, yi, zi, bi, xj, yj, zj, bj, sc, [2]float64{mi, mj}, syncLinearGeneric)
}
