//go:build netlib

package problem

import (
	"fmt"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// TestEigDrivers: every LAPACK driver of the netlib build projects like the
// Jacobi reference, to 1e-10 relative.
func TestEigDrivers(t *testing.T) {
	defer func(old string) { eigDriver = old }(eigDriver)
	s := rng.New(17, 0)
	for _, drv := range eigDrivers {
		eigDriver = drv
		for _, d := range []int{1, 3, 10, 40} {
			ws := NewWorkspace(d)
			for trial := 0; trial < 4; trial++ {
				v := randVec(s, d*d, 1)
				symmetric(v, d)
				if trial == 1 {
					v = withSpectrum(s, d, func(k int) float64 { return float64(1 - 2*(k%2)) })
				}
				if trial == 2 {
					v = withSpectrum(s, d, func(k int) float64 { return float64(k%3) - 1 })
				}
				if _, _, e := projectionError(ws, v, d); e > 1e-10 {
					t.Fatalf("%s d=%d trial %d: relative error %g", drv, d, trial, e)
				}
			}
		}
	}
}

// BenchmarkEigDrivers: one projection with each LAPACK driver (-tags netlib).
func BenchmarkEigDrivers(b *testing.B) {
	defer func(old string) { eigDriver = old }(eigDriver)
	for _, d := range []int{10, 40} {
		for _, drv := range eigDrivers {
			b.Run(fmt.Sprintf("d=%d/%s", d, drv), func(b *testing.B) {
				eigDriver = drv
				s := rng.New(5, 0)
				v := randVec(s, d*d, 1)
				symmetric(v, d)
				ws := NewWorkspace(d)
				dst := make([]float64, d*d)
				for b.Loop() {
					ws.ProjectPSD(dst, v, 1)
				}
			})
		}
	}
}
