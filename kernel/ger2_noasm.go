//go:build !amd64 || noasm

package kernel

// ger2Of returns nil: only the amd64 assembly has a Ger2 kernel.
func ger2Of(*funcs) func(a, x, y, u, v *float64, n, rows, stride int) { return nil }

// ger2DotOf returns nil: only the amd64 assembly has a Ger2Dot kernel.
func ger2DotOf(*funcs) func(a, x, y, u, v, z, out *float64, n, rows, stride int) { return nil }
