package kernel

//go:generate sh -c "cd ../asm && go run . -kernel eventlost -out ../kernel/eventlost_amd64.s -stubs ../kernel/eventlost_amd64_stub.go"

// EventLogisticLost is an asynchronous gossip event on edge (i, j) for the
// AUC logistic loss whose exchange was lost (a network model's message
// loss, docs/networks.md): nothing is swapped or averaged, and each
// endpoint takes its local step at its own y — the margin m at θ =
// CPrev·z, the weight w = P·φ'(m) (0 when P = 0), and the update of
// SyncLinear(z, bar, x, y, w, C, A, B). sc holds EventLogistic's scalars
// (P for each endpoint's own pair). It returns the number of non-zero w
// and, in bits 0 and 1, whether the margin SyncLinear returns for i, j is
// not finite. Slices must have the length of zi (it panics otherwise) and
// must not overlap; the x and y rows are only read.
//
// Reference (the generic implementation):
//
//	for e, (x, y, z, bar) := range endpoints {
//		var m float64
//		for a := range z {
//			m += (x[a] - y[a]) * (sc.CPrev[e] * z[a])
//		}
//		var w float64
//		if sc.P[e] != 0 {
//			w = sc.P[e] * g(m) // g = −σ(−m) as LogisticRound computes it
//			if w != 0 { nonzero++ }
//		}
//		m2 := SyncLinear(z, bar, x, y, w, sc.C[e], sc.A[e], sc.B[e])
//		if !finite(m2) { bad |= 1 << e }
//	}
//
// which is the engine's unfused arithmetic for a lost exchange operation
// for operation. The avx2 and avx512 implementations are EventLogistic's
// arithmetic without its exchange (the margins with FMA, g within 3 ulp of
// the reference's), in one call.
func EventLogisticLost(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars) (nonzero, bad int) {
	n := len(zi)
	for k, s := range [...][]float64{xi, yi, bi, xj, yj, zj, bj} {
		if len(s) != n {
			lengthPanic("EventLogisticLost", [...]string{"xi", "yi", "bi", "xj", "yj", "zj", "bj"}[k], len(s), n)
		}
	}
	f := cur.Load()
	if n <= chunk || !f.bounded {
		return f.eventLost(ptr(xi), ptr(yi), ptr(zi), ptr(bi), ptr(xj), ptr(yj), ptr(zj), ptr(bj), n, &sc.CPrev[0])
	}
	// A row beyond one chunk: the reference's margins (plain Go, so never
	// a long non-preemptible call), then the split SyncLinear.
	m := [2]float64{lostMargin(xi, yi, zi, sc.CPrev[0]), lostMargin(xj, yj, zj, sc.CPrev[1])}
	return eventPost(xi, yi, zi, bi, xj, yj, zj, bj, sc, m, SyncLinear)
}

// EventLogisticLostDirect returns the active implementation's
// EventLogisticLost for rows of length n without its checks (the engine's
// asynchronous loop calls it with rows it has checked once), or nil when
// rows of length n need the split path (then call EventLogisticLost). The
// function keeps the implementation active when it was returned.
func EventLogisticLostDirect(n int) func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (nonzero, bad int) {
	f := cur.Load()
	if n > chunk && f.bounded {
		return nil
	}
	return f.eventLost
}

// lostMargin is (x − y)ᵀ(c·z) in the reference's order.
func lostMargin(x, y, z []float64, c float64) (m float64) {
	y, z = y[:len(x)], z[:len(x)]
	for a := range x {
		m += float64((x[a] - y[a]) * float64(c*z[a]))
	}
	return m
}

func eventLostGeneric(xi, yi, zi, bi, xj, yj, zj, bj []float64, sc *EventScalars) (nonzero, bad int) {
	m := [2]float64{lostMargin(xi, yi, zi, sc.CPrev[0]), lostMargin(xj, yj, zj, sc.CPrev[1])}
	return eventPost(xi, yi, zi, bi, xj, yj, zj, bj, sc, m, syncLinearGeneric)
}
