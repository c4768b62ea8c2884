package kernel

// AvgScaled sets bar[i] = a·bar[i] + bc·z[i]: the running-average update
// θ̄ ← a·θ̄ + b·θ of a node whose gradient is zero this round, so that z is
// unchanged and θ = c·z (pass bc = b·c). It panics if len(z) != len(bar).
// bar must not overlap z.
//
// Reference (the generic implementation):
//
//	for i := range bar {
//		bar[i] = float64(a*bar[i]) + float64(bc*z[i])
//	}
//
// Every implementation is bit-identical to the reference (no FMA). Note
// that bc·z[i] is rounded once, where SyncLinear rounds c·z[i] and then
// b·θ: the two paths differ in the last bit.
func AvgScaled(bar, z []float64, a, bc float64) {
	if len(z) != len(bar) {
		lengthPanic("AvgScaled", "z", len(z), len(bar))
	}
	f := cur.Load()
	for f.bounded && len(bar) > chunk {
		f.avgScaled(ptr(bar), ptr(z), chunk, a, bc)
		bar, z = bar[chunk:], z[chunk:]
	}
	f.avgScaled(ptr(bar), ptr(z), len(bar), a, bc)
}

func avgScaledGeneric(bar, z []float64, a, bc float64) {
	z = z[:len(bar)]
	for i := range bar {
		bar[i] = float64(a*bar[i]) + float64(bc*z[i])
	}
}
