//go:build netlib

package problem

/*
#cgo LDFLAGS: -llapacke -lopenblas
void openblas_set_num_threads(int);
char* openblas_get_corename(void);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	blasnetlib "gonum.org/v1/netlib/blas/netlib"
	"gonum.org/v1/netlib/lapack/lapacke"
	lapacknetlib "gonum.org/v1/netlib/lapack/netlib"
)

// LAPACK names the BLAS/LAPACK implementation behind blas64 and lapack64:
// "gonum" (pure Go, the default build) or "openblas" (-tags netlib).
const LAPACK = "openblas"

// BLASCore names the kernels OpenBLAS chose for this CPU at load time
// (openblas_get_corename: Haswell, SkylakeX, Cooperlake, Zen, …; the
// environment variable OPENBLAS_CORETYPE picks another the CPU can run).
// Its results, bit for bit, depend on them: a dot product or a matrix
// product adds in the order of its kernel's blocking.
func BLASCore() string { return C.GoString(C.openblas_get_corename()) }

// With -tags netlib every blas64 and lapack64 call goes to OpenBLAS through
// gonum/netlib (cgo). OpenBLAS runs single-threaded: the engine owns the
// parallelism (one worker per core, each with its own workspace). Setting
// OPENBLAS_NUM_THREADS from Go is too late at init, hence the call.
func init() {
	C.openblas_set_num_threads(1)
	blas64.Use(blasnetlib.Implementation{})
	lapack64.Use(lapacknetlib.Implementation{})
}

// eigDriver selects the LAPACK driver of positivePart (the alternatives are
// there for BenchmarkEigDrivers); the default, Dsyevd, was the fastest at
// d = 10 and within run-to-run noise of the full Dsyevr at d = 40
// (bench/RESULTS.md).
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
// triangle of ws.a that the projection may need, through OpenBLAS's LAPACK:
// eigenvector c is vec[i*ld + c], with eigenvalue lam[c]; syrkPositive keeps
// the positive ones.
func (ws *Workspace) positivePart() (vec []float64, ld int, lam []float64, ok bool) {
	d := ws.d
	e := &ws.eig
	switch eigDriver {
	case "syevr-positive": // only the eigenvalues in (0, ‖A‖_F] and their vectors
		fro := lapack64.Lansy(lapack.Frobenius, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ws.a}, nil)
		if fro == 0 {
			return e.z, d, ws.w[:0], true
		}
		ok = lapacke.Dsyevr('V', 'V', 'U', d, ws.a, d, 0, fro*(1+1e-8), 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, e.work, len(e.work), e.iwork, len(e.iwork))
		return e.z, d, ws.w[:e.m[0]], ok
	case "syevr":
		ok = lapacke.Dsyevr('V', 'A', 'U', d, ws.a, d, 0, 0, 0, 0, 0, e.m, ws.w, e.z, d, e.isuppz, e.work, len(e.work), e.iwork, len(e.iwork))
		return e.z, d, ws.w, ok
	case "syev":
		ok = lapacke.Dsyev('V', 'U', d, ws.a, d, ws.w, e.swork, len(e.swork))
		return ws.a, d, ws.w, ok
	}
	vec, ok = ws.fullEig()
	return vec, d, ws.w, ok
}

// fullEig computes every eigenpair of the symmetric matrix in the upper
// triangle of ws.a (Dsyevd): eigenvalues ascending in ws.w, eigenvector c in
// column c of the returned row-major d×d matrix.
func (ws *Workspace) fullEig() ([]float64, bool) {
	e := &ws.eig
	ok := lapacke.Dsyevd('V', 'U', ws.d, ws.a, ws.d, ws.w, e.dwork, len(e.dwork), e.diwork, len(e.diwork))
	return ws.a, ok
}
