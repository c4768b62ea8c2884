package kernel

// EventLogisticDirect returns the active implementation's EventLogistic
// on base pointers, for a caller that runs millions of events on rows of
// one length n and checks that length once: the returned function does no
// length check and reads the implementation once, here, not per call
// (EventLogistic does both per call, a measurable part of a d = 16 event).
// sc is &EventScalars.CPrev[0]. It returns nil when rows of length n need
// EventLogistic's chunked path (n beyond an assembly call's bound); the
// caller then calls EventLogistic. The arithmetic is EventLogistic's, bit
// for bit. A later Use does not change a function already returned.
func EventLogisticDirect(n int) func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (nonzero, bad int) {
	f := cur.Load()
	if n > chunk && f.bounded {
		return nil
	}
	return f.eventLogistic
}
