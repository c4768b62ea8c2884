//go:build !netlib

package problem

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// LAPACK names the BLAS/LAPACK implementation behind blas64 and lapack64:
// "gonum" (pure Go, the default build) or "openblas" (-tags netlib).
const LAPACK = "gonum"

// BLASCore names the kernels OpenBLAS chose for this CPU (-tags netlib);
// "" in the default build, whose pure-Go BLAS has one set.
func BLASCore() string { return "" }

type eigBuffers struct {
	work []float64 // Dsyev with eigenvectors
}

func (ws *Workspace) initEig() {
	q := []float64{0}
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: ws.d, Stride: ws.d, Data: ws.a}, ws.w, q, -1)
	ws.eig.work = make([]float64, int(q[0]))
}

// positivePart computes the eigenpairs of the symmetric matrix in the upper
// triangle of ws.a that the projection may need: eigenvector c is
// vec[i*ld + c], i = 0..d−1, with eigenvalue lam[c]; syrkPositive keeps the
// positive ones. gonum has no selected-eigenvalue driver, so this is Dsyev:
// every pair.
func (ws *Workspace) positivePart() (vec []float64, ld int, lam []float64, ok bool) {
	vec, ok = ws.fullEig()
	return vec, ws.d, ws.w, ok
}

// fullEig computes every eigenpair of the symmetric matrix in the upper
// triangle of ws.a: eigenvalues ascending in ws.w, eigenvector c in column c
// of the returned row-major d×d matrix.
func (ws *Workspace) fullEig() ([]float64, bool) {
	d := ws.d
	ok := lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ws.a}, ws.w, ws.eig.work, len(ws.eig.work))
	return ws.a, ok
}
