package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkTridiag: the tridiagonalisation of ProjectPSDSelect by the
// kernels on the full matrix (tridiagFull) beside plain Go on the lower
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
		diag, off, tau, p := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, 2*n)
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

// TestTridiag: for orders 1..64 (random, graded and low-rank symmetric
// matrices) both reductions give A back from their reflectors and T, A =
// H_{n−2}⋯H_0·T·H_0⋯H_{n−2}, to 4nε‖A‖_F (tridiagFull with its fused
// update and product, Ger2 and Ger2Dot).
func TestTridiag(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 64; n++ {
		for kind := 0; kind < 3; kind++ {
			a0 := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					x := r.NormFloat64()
					switch kind {
					case 1:
						x *= math.Ldexp(1, -(i+j)/2)
					case 2:
						x = 0
					}
					a0[i*n+j], a0[j*n+i] = x, x
				}
			}
			if kind == 2 { // rank 2
				u, v := make([]float64, n), make([]float64, n)
				for i := range u {
					u[i], v[i] = r.NormFloat64(), r.NormFloat64()
				}
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						a0[i*n+j] = u[i]*u[j] - v[i]*v[j]
					}
				}
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						a0[i*n+j] = a0[j*n+i]
					}
				}
			}
			var fro float64
			for _, x := range a0 {
				fro += x * x
			}
			fro = math.Sqrt(fro)
			for k, f := range []func(int, []float64, []float64, []float64, []float64, []float64){tridiagFull, tridiagLower} {
				a := append([]float64(nil), a0...)
				diag, off, tau := make([]float64, n), make([]float64, n), make([]float64, n)
				f(n, a, diag, off, tau, make([]float64, 2*n))
				m := make([]float64, n*n)
				for i := 0; i < n; i++ {
					m[i*n+i] = diag[i]
					if i+1 < n {
						m[i*n+i+1], m[(i+1)*n+i] = off[i], off[i]
					}
				}
				h := make([]float64, n)
				for i := 0; i+1 < n; i++ {
					clear(h)
					copy(h, a[(i+1)*n:(i+1)*n+i])
					h[i] = 1
					// M = H·M·H, H = I − τhhᵀ: M −= τh(hᵀM), then M −= τ(Mh)hᵀ.
					for pass := 0; pass < 2; pass++ {
						for c := 0; c < n; c++ {
							var s float64
							for q := 0; q < n; q++ {
								if pass == 0 {
									s += h[q] * m[q*n+c]
								} else {
									s += m[c*n+q] * h[q]
								}
							}
							for q := 0; q < n; q++ {
								if pass == 0 {
									m[q*n+c] -= tau[i] * h[q] * s
								} else {
									m[c*n+q] -= tau[i] * s * h[q]
								}
							}
						}
					}
				}
				var worst float64
				for i := range m {
					worst = math.Max(worst, math.Abs(m[i]-a0[i]))
				}
				if tol := 4 * float64(n) * eps * fro; worst > tol {
					t.Fatalf("n=%d kind=%d reduction %d: |QTQᵀ − A| = %g > %g", n, kind, k, worst, tol)
				}
			}
		}
	}
}
