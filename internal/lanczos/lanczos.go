// Package lanczos is the thick-restart Lanczos iteration that the graph's
// spectral gap (package graph) and the effective gap of a network model
// (package network) share: the smallest eigenvalue of a Laplacian-like
// operator on the complement of the all-ones vector, given as a product.
package lanczos

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pairgossip/pairgossip/internal/rng"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// removeMean projects x onto the complement of the all-ones vector.
func removeMean(x []float64) {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	for i := range x {
		x[i] -= mean
	}
}

// nrm2 returns the Euclidean norm of x.
func nrm2(x []float64) float64 {
	return blas64.Nrm2(blas64.Vector{N: len(x), Inc: 1, Data: x})
}

// Result is the outcome of Smallest: the eigenvalue θ, the residual
// ‖A y − θ y‖/‖y‖ of its Ritz vector y, computed explicitly, and the
// products with A taken.
type Result struct {
	Theta, Resid float64
	Iters        int
}

// NotConverged is Smallest's error when maxIter products were not enough:
// the last estimate and its residual, which a caller names or withholds.
type NotConverged struct {
	Iters           int
	Estimate, Resid float64
}

func (e *NotConverged) Error() string {
	return fmt.Sprintf("Lanczos did not converge after %d products (estimate %.6g, residual %.2g)", e.Iters, e.Estimate, e.Resid)
}

// Basis size and the number of Ritz vectors kept at a restart.
const (
	basisSize = 48
	keepSize  = 20
)

// Bytes is the memory Smallest holds for an operator of order n: the
// basis, a restart's kept vectors, and two work vectors.
func Bytes(n int) float64 { return float64(basisSize+keepSize+2) * float64(n) * 8 }

// Smallest computes the smallest eigenvalue of a symmetric positive
// semidefinite operator A of order n whose null space holds the all-ones
// vector (a Laplacian: λ₂ of a connected graph's, β_{n−1}), on the
// complement of that vector, by thick-restart Lanczos (Wu & Simon 2000)
// with full reorthogonalisation:
//
//   - every basis vector is kept orthogonal to 1 (deflating the null space)
//     and to the whole basis by classical Gram–Schmidt, repeated when the
//     vector loses more than 1/√2 of its norm (DGKS);
//   - the projected matrix H = Vᵀ L V is formed from the Gram–Schmidt
//     coefficients themselves and solved by a dense symmetric eigensolver
//     (Rayleigh–Ritz);
//   - when the basis is full, the lanczosKeep smallest Ritz vectors and the
//     residual direction start the next cycle.
//
// Krylov spaces do not depend on a shift, so this converges exactly as
// Lanczos on the largest eigenvalue of c·I − A would; the transform is not
// needed. Convergence is declared when the residual ‖A y − θ y‖ of the
// smallest Ritz pair, recomputed explicitly, is at most tol·θ.
//
// mul sets dst = A x; normA bounds ‖A‖ (Gershgorin: 2·max degree for a
// graph's Laplacian), the scale of a breakdown; stream draws the start
// vector. ctx, checked before each product, stops the iteration with its
// error.
func Smallest(ctx context.Context, n int, mul func(dst, x []float64), normA, tol float64, maxIter int, stream *rng.Stream) (Result, error) {
	m := min(basisSize, n-1) // the deflated space has dimension n−1
	keep := min(keepSize, m-1)
	breakdown := 1e-12 * normA

	V := make([]float64, m*n) // basis vectors as rows
	H := make([]float64, m*m) // projected matrix, row-major
	S := make([]float64, m*m) // Ritz vectors of H (columns)
	theta := make([]float64, m)
	h := make([]float64, m)
	h2 := make([]float64, m)
	w := make([]float64, n)
	y := make([]float64, n)
	var tmp []float64 // restart buffer, keep×n
	eigWork := []float64{0}
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: S}, theta, eigWork, -1)
	eigWork = make([]float64, int(eigWork[0]))

	// orth orthogonalises x against 1 and the rows 0..j−1 of V, twice when
	// needed, accumulating the coefficients into coef, and returns ‖x‖.
	orth := func(x []float64, j int, coef []float64) float64 {
		clear(coef[:j])
		before := nrm2(x)
		for pass := 0; pass < 2; pass++ {
			removeMean(x)
			if j > 0 {
				basis := blas64.General{Rows: j, Cols: n, Stride: n, Data: V[:j*n]}
				xv := blas64.Vector{N: n, Inc: 1, Data: x}
				cv := blas64.Vector{N: j, Inc: 1, Data: h2}
				blas64.Gemv(blas.NoTrans, 1, basis, xv, 0, cv)
				blas64.Gemv(blas.Trans, -1, basis, cv, 1, xv)
				for i := 0; i < j; i++ {
					coef[i] += h2[i]
				}
			}
			after := nrm2(x)
			if after > 0.7071*before {
				return after
			}
			before = after
		}
		return nrm2(x)
	}
	// randomVector fills row j of V with a random unit vector orthogonal to
	// 1 and rows 0..j−1.
	randomVector := func(j int) {
		row := V[j*n : (j+1)*n]
		for attempt := 0; ; attempt++ {
			for i := range row {
				row[i] = stream.Normal()
			}
			if nrm := orth(row, j, h); nrm > 1e-8*math.Sqrt(float64(n)) || attempt == 10 {
				blas64.Scal(1/nrm, blas64.Vector{N: n, Inc: 1, Data: row})
				return
			}
		}
	}

	randomVector(0)
	iters, start := 0, 0
	for {
		// Extend the basis from row start to m rows; w ends as the residual
		// direction and fnorm its norm.
		fnorm := 0.0
		for j := start; j < m; j++ {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			mul(w, V[j*n:(j+1)*n])
			iters++
			b := orth(w, j+1, h)
			for i := 0; i <= j; i++ {
				H[i*m+j] = h[i]
				H[j*m+i] = h[i]
			}
			if j+1 == m {
				fnorm = b
				break
			}
			if b <= breakdown {
				// The Krylov space is invariant: continue with a fresh
				// direction, uncoupled from the basis.
				randomVector(j + 1)
				H[(j+1)*m+j], H[j*m+j+1] = 0, 0
				continue
			}
			row := V[(j+1)*n : (j+2)*n]
			for i := range row {
				row[i] = w[i] / b
			}
			H[(j+1)*m+j], H[j*m+j+1] = b, b
		}

		// Rayleigh–Ritz on the projected matrix.
		copy(S, H)
		if !lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: S}, theta, eigWork, len(eigWork)) {
			return Result{}, errors.New("Lanczos projected eigenproblem failed")
		}
		estimate := fnorm * math.Abs(S[(m-1)*m])
		if estimate <= tol*theta[0] {
			// Form the Ritz vector y = V s₀ and check its residual
			// explicitly.
			basis := blas64.General{Rows: m, Cols: n, Stride: n, Data: V}
			blas64.Gemv(blas.Trans, 1, basis, blas64.Vector{N: m, Inc: m, Data: S}, 0, blas64.Vector{N: n, Inc: 1, Data: y})
			ynorm := nrm2(y)
			mul(w, y)
			iters++
			blas64.Axpy(-theta[0], blas64.Vector{N: n, Inc: 1, Data: y}, blas64.Vector{N: n, Inc: 1, Data: w})
			resid := nrm2(w) / ynorm
			if resid <= tol*theta[0] || m == n-1 {
				return Result{Theta: theta[0], Resid: resid, Iters: iters}, nil
			}
			if iters < maxIter {
				// Lost orthogonality made the estimate optimistic: restart
				// from the Ritz vector alone.
				copy(V[:n], y)
				blas64.Scal(1/ynorm, blas64.Vector{N: n, Inc: 1, Data: V[:n]})
				clear(H)
				start = 0
				continue
			}
			estimate = resid
		}
		if iters >= maxIter {
			return Result{}, &NotConverged{Iters: iters, Estimate: theta[0], Resid: estimate}
		}

		// Thick restart: keep the smallest Ritz vectors, then the residual
		// direction; H becomes diag(θ) bordered by the couplings fnorm·S[m−1,i].
		if tmp == nil {
			tmp = make([]float64, keep*n)
		}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1,
			blas64.General{Rows: m, Cols: keep, Stride: m, Data: S},
			blas64.General{Rows: m, Cols: n, Stride: n, Data: V},
			0, blas64.General{Rows: keep, Cols: n, Stride: n, Data: tmp})
		copy(V[:keep*n], tmp)
		clear(H)
		for i := 0; i < keep; i++ {
			H[i*m+i] = theta[i]
			c := fnorm * S[(m-1)*m+i]
			H[i*m+keep], H[keep*m+i] = c, c
		}
		if fnorm <= breakdown {
			randomVector(keep)
		} else {
			row := V[keep*n : (keep+1)*n]
			for i := range row {
				row[i] = w[i] / fnorm
			}
		}
		start = keep
	}
}
