//go:build !amd64 || noasm

package kernel

// householderOf returns nil: only the amd64 assembly has a Householder
// kernel.
func householderOf(*funcs) func(y, h *float64, n, rows, stride int, tau float64) { return nil }
