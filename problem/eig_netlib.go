//go:build netlib

package problem

/*
#cgo LDFLAGS: -llapacke -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	blasnetlib "gonum.org/v1/netlib/blas/netlib"
	"gonum.org/v1/netlib/lapack/lapacke"
	lapacknetlib "gonum.org/v1/netlib/lapack/netlib"
)

// LAPACK names the BLAS/LAPACK implementation behind blas64 and lapack64:
// "gonum" (pure Go, the default build) or "openblas" (-tags netlib).
const LAPACK = "openblas"

// With -tags netlib every blas64 and lapack64 call goes to OpenBLAS through
// gonum/netlib (cgo). OpenBLAS runs single-threaded: the engine owns the
// parallelism (one worker per core, each with its own workspace). Setting
// OPENBLAS_NUM_THREADS from Go is too late at init, hence the call.
func init() {
	C.openblas_set_num_threads(1)
	blas64.Use(blasnetlib.Implementation{})
	lapack64.Use(lapacknetlib.Implementation{})
}

// eigDriver selects the LAPACK driver of positivePart; the default is the
// fastest measured here (bench/RESULTS.md, BenchmarkEigDrivers): Dsyevd.
// Dsyevr restricted to (0, ‖A‖_F] is slower although it forms only the
// positive half of the eigenvectors, because LAPACK's Dsyevr switches from
// MRRR to bisection and inverse iteration for a subset.
var eigDriver = "syevd"

// eigDrivers lists the drivers positivePart can use (-tags netlib).
var eigDrivers = []string{"syevd", "syevr", "syevr-positive", "syev"}

type eigBuffers struct {
	z      []float64 // d×d eigenvectors (columns), row-major
	isuppz []int32
	m      []int32
	work   []float64
	iwork  []int32
	dwork  []float64 // Dsyevd
	diwork []int32
	swork  []float64 // Dsyev
}

func (ws *Workspace) initEig() {
	d := ws.d
	e := &ws.eig
	e.z = make([]float64, d*d)
	e.isuppz = make([]int32, 2*d)
	e.m = make([]int32, 1)
	q, iq := []float64{0}, []int32{0}
	lapacke.Dsyevr('V', 'V', 'U', d, ws.a, d, 0, 1, 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, q, -1, iq, -1)
	e.work = make([]float64, int(q[0]))
	e.iwork = make([]int32, int(iq[0]))
	lapacke.Dsyevr('V', 'A', 'U', d, ws.a, d, 0, 0, 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, q, -1, iq, -1)
	e.work = make([]float64, max(len(e.work), int(q[0])))
	e.iwork = make([]int32, max(len(e.iwork), int(iq[0])))
	lapacke.Dsyevd('V', 'U', d, ws.a, d, ws.w, q, -1, iq, -1)
	e.dwork = make([]float64, int(q[0]))
	e.diwork = make([]int32, int(iq[0]))
	lapacke.Dsyev('V', 'U', d, ws.a, d, ws.w, q, -1)
	e.swork = make([]float64, int(q[0]))
}

// positivePart computes the eigenpairs of the symmetric matrix in the upper
// triangle of ws.a with positive eigenvalue, through OpenBLAS's LAPACK:
// eigenvector c is vec[i*ld + c], with eigenvalue lam[c].
func (ws *Workspace) positivePart(fro float64) (vec []float64, ld int, lam []float64, ok bool) {
	d := ws.d
	e := &ws.eig
	if !(fro > 0) || math.IsInf(fro, 0) {
		if fro == 0 {
			return e.z, d, ws.w[:0], true
		}
		return nil, 0, nil, false
	}
	switch eigDriver {
	case "syevr-positive": // only the eigenvalues in (0, ‖A‖_F] and their vectors
		vu := fro * (1 + 1e-8)
		ok = lapacke.Dsyevr('V', 'V', 'U', d, ws.a, d, 0, vu, 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, e.work, len(e.work), e.iwork, len(e.iwork))
		return e.z, d, ws.w[:e.m[0]], ok
	case "syevr":
		ok = lapacke.Dsyevr('V', 'A', 'U', d, ws.a, d, 0, 0, 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, e.work, len(e.work), e.iwork, len(e.iwork))
		vec = e.z
	case "syev":
		ok = lapacke.Dsyev('V', 'U', d, ws.a, d, ws.w, e.swork, len(e.swork))
		vec = ws.a
	default: // syevd
		ok = lapacke.Dsyevd('V', 'U', d, ws.a, d, ws.w, e.dwork, len(e.dwork), e.diwork, len(e.diwork))
		vec = ws.a
	}
	if !ok {
		return nil, 0, nil, false
	}
	p := 0
	for k := d - 1; k >= 0 && ws.w[k] > 0; k-- {
		p++
	}
	return vec[d-p:], d, ws.w[d-p:], true
}

// fullEig computes every eigenpair of the symmetric matrix in the upper
// triangle of ws.a (Dsyevd): eigenvalues ascending in ws.w, eigenvector c in
// column c of the returned row-major d×d matrix.
func (ws *Workspace) fullEig() ([]float64, bool) {
	e := &ws.eig
	ok := lapacke.Dsyevd('V', 'U', ws.d, ws.a, ws.d, ws.w, e.dwork, len(e.dwork), e.diwork, len(e.diwork))
	return ws.a, ok
}
