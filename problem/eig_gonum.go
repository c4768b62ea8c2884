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

type eigBuffers struct {
	work []float64 // Dsyev with eigenvectors
}

func (ws *Workspace) initEig() {
	q := []float64{0}
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: ws.d, Stride: ws.d, Data: ws.a}, ws.w, q, -1)
	ws.eig.work = make([]float64, int(q[0]))
}

// positivePart computes the eigenpairs of the symmetric matrix in the upper
// triangle of ws.a with positive eigenvalue: eigenvector c is
// vec[i*ld + c], i = 0..d−1, with eigenvalue lam[c]. gonum has no
// selected-eigenvalue driver, so this is Dsyev (all pairs, ascending) and the
// last p of them.
func (ws *Workspace) positivePart(_ float64) (vec []float64, ld int, lam []float64, ok bool) {
	d := ws.d
	if _, ok = ws.fullEig(); !ok {
		return nil, 0, nil, false
	}
	p := 0
	for k := d - 1; k >= 0 && ws.w[k] > 0; k-- {
		p++
	}
	return ws.a[d-p:], d, ws.w[d-p:], true
}

// fullEig computes every eigenpair of the symmetric matrix in the upper
// triangle of ws.a: eigenvalues ascending in ws.w, eigenvector c in column c
// of the returned row-major d×d matrix.
func (ws *Workspace) fullEig() ([]float64, bool) {
	d := ws.d
	ok := lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ws.a}, ws.w, ws.eig.work, len(ws.eig.work))
	return ws.a, ok
}
