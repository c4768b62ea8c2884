//go:build !unix

package graph

// processCPU is not measured on this platform.
func processCPU() float64 { return 0 }
