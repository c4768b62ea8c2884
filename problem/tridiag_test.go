package problem

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkTridiag: the tridiagonalisation of ProjectPSDSelect by BLAS-2
// calls on the full matrix (tridiagFull) beside plain Go on the lower
// triangle (tridiagLower), whose crossover sets tridiagLowerMax.
func BenchmarkTridiag(b *testing.B) {
	for _, n := range []int{8, 12, 16, 20, 24, 32, 40} {
		r := rand.New(rand.NewPCG(1, 2))
		a0 := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x := r.NormFloat64()
				a0[i*n+j], a0[j*n+i] = x, x
			}
		}
		a := make([]float64, n*n)
		diag, off, tau, p := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		b.Run(fmt.Sprintf("n=%d/full", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, a0)
				tridiagFull(n, a, diag, off, tau, p)
			}
		})
		b.Run(fmt.Sprintf("n=%d/lower", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, a0)
				tridiagLower(n, a, diag, off, tau, p)
			}
		})
	}
}
