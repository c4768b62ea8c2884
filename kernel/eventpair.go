package kernel

//go:generate sh -c "cd ../asm && go run . -kernel eventpair -out ../kernel/eventpair_amd64.s -stubs ../kernel/eventpair_amd64_stub.go"

// EventLogisticPairFunc is the signature of EventLogisticPairDirect's
// result: two events' rows (x, y, z, θ̄ of i, j, then of k, l), the row
// length and their scalars (&EventScalars.CPrev[0] of each).
type EventLogisticPairFunc func(xi, yi, zi, bi, xj, yj, zj, bj, xk, yk, zk, bk, xl, yl, zl, bl *float64, n int, sc, sc2 *float64) (nonzero, bad int)

// EventLogisticPairDirect returns the active implementation's two-event
// kernel for rows of length n, or nil when it has none (the generic
// implementation, no amd64 assembly, or rows beyond an assembly call's
// bound); the caller then runs the events one by one. The kernel runs
// EventLogistic on (i, j) with sc, then on (k, l) with sc2, for four
// distinct nodes whose rows do not overlap, with EventLogistic's results
// bit for bit: the two events' passes in one call and their four
// exponentials side by side in one register. It returns in bits 0–3 of
// nonzero which weights (i, j, k, l) are non-zero and in bits 0–3 of bad
// which endpoints' new margins are not finite; both events always run.
// Like EventLogisticDirect it checks no length, and a later Use does not
// change a function already returned.
func EventLogisticPairDirect(n int) EventLogisticPairFunc {
	f := cur.Load()
	if n > chunk && f.bounded {
		return nil
	}
	return f.eventPair
}
