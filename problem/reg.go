package problem

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// RegKind identifies the regulariser ψ.
type RegKind int

const (
	// RegNone is ψ = 0: the smoothing operator is θ = −γ(t) z.
	RegNone RegKind = iota
	// RegL2Sq is ψ(θ) = λ‖θ‖²: a scaling.
	RegL2Sq
	// RegL1 is ψ(θ) = λ‖θ‖₁: a soft threshold.
	RegL1
	// RegL2Ball is the indicator of the ℓ2 ball of radius r: a projection.
	RegL2Ball
	// RegPSD is the indicator of the cone of positive semidefinite d×d
	// matrices (metric learning): a projection through an eigendecomposition.
	RegPSD
)

// RegNames lists the accepted regulariser names.
var RegNames = []string{"none", "l2", "l1", "l2-ball", "psd"}

func (k RegKind) String() string {
	if int(k) >= 0 && int(k) < len(RegNames) {
		return RegNames[k]
	}
	return fmt.Sprintf("RegKind(%d)", int(k))
}

// ParseReg maps a name of RegNames to a RegKind.
func ParseReg(s string) (RegKind, error) {
	switch strings.ToLower(s) {
	case "none", "":
		return RegNone, nil
	case "l2", "l2sq", "squared-l2":
		return RegL2Sq, nil
	case "l1":
		return RegL1, nil
	case "l2-ball", "ball":
		return RegL2Ball, nil
	case "psd", "psd-cone":
		return RegPSD, nil
	}
	return 0, fmt.Errorf("unknown regulariser %q (valid: %s)", s, strings.Join(RegNames, ", "))
}

// Regularizer is ψ with its parameter: Lambda for l2 and l1, Radius for the
// ball. The PSD cone needs D, the side of the matrix.
type Regularizer struct {
	Kind   RegKind
	Lambda float64
	Radius float64
	D      int // matrix side for RegPSD
}

// Validate checks the parameters.
func (r Regularizer) Validate() error {
	switch r.Kind {
	case RegL2Sq, RegL1:
		if !(r.Lambda >= 0) || math.IsInf(r.Lambda, 0) {
			return fmt.Errorf("regulariser %s: lambda must be finite and >= 0, got %g", r.Kind, r.Lambda)
		}
	case RegL2Ball:
		if !(r.Radius > 0) || math.IsInf(r.Radius, 0) {
			return fmt.Errorf("regulariser l2-ball: radius must be finite and > 0, got %g", r.Radius)
		}
	case RegPSD:
		if r.D < 1 {
			return fmt.Errorf("regulariser psd: matrix side must be >= 1, got %d", r.D)
		}
	case RegNone:
	default:
		return fmt.Errorf("unknown regulariser %d", int(r.Kind))
	}
	return nil
}

// Linear reports whether the smoothing operator is linear in z (ψ = 0 or
// squared ℓ2), which the fast schedules exploit.
func (r Regularizer) Linear() bool { return r.Kind == RegNone || r.Kind == RegL2Sq }

// Value returns ψ(θ). Indicators return 0 on their set (a tolerance of 1e-9
// relative is allowed for the ball) and +Inf off it; the PSD cone returns 0
// (averages of PSD iterates are PSD; use MinEigen to check).
func (r Regularizer) Value(theta []float64) float64 {
	switch r.Kind {
	case RegL2Sq:
		var s float64
		for _, v := range theta {
			s += float64(v * v)
		}
		return r.Lambda * s
	case RegL1:
		var s float64
		for _, v := range theta {
			s += math.Abs(v)
		}
		return r.Lambda * s
	case RegL2Ball:
		if norm2(theta) > r.Radius*(1+1e-9) {
			return math.Inf(1)
		}
	}
	return 0
}

// Prox sets dst = prox_{τψ}(v) = argmin_θ ‖θ − v‖²/2 + τψ(θ). dst may alias v.
// ws is needed (and reused) only by RegPSD.
func (r Regularizer) Prox(dst, v []float64, tau float64, ws *Workspace) {
	switch r.Kind {
	case RegNone:
		copy(dst, v)
	case RegL2Sq:
		s := 1 / (1 + float64(2*tau*r.Lambda))
		for i, x := range v {
			dst[i] = s * x
		}
	case RegL1:
		th := float64(tau * r.Lambda)
		for i, x := range v {
			switch {
			case x > th:
				dst[i] = x - th
			case x < -th:
				dst[i] = x + th
			default:
				dst[i] = 0
			}
		}
	case RegL2Ball:
		nv := norm2(v)
		s := 1.0
		if nv > r.Radius {
			s = r.Radius / nv
		}
		for i, x := range v {
			dst[i] = s * x
		}
	case RegPSD:
		ws.ProjectPSD(dst, v, 1)
	default:
		panic("problem: Prox on unknown regulariser")
	}
}

// Smooth computes the dual-averaging smoothing operator
//
//	θ = π_t(z) = prox_{tγψ}(−γ z),   γ = γ(t),
//
// the minimiser of zᵀθ + ‖θ‖²/(2γ) + tψ(θ) (docs/design.md §2.1: z is a sum
// of gradients, so θ moves against it; with ψ = 0, θ = −γz). theta and z
// must not alias unless ψ is separable (all kinds but RegPSD).
func (r Regularizer) Smooth(theta, z []float64, gamma, t float64, ws *Workspace) {
	switch r.Kind {
	case RegNone:
		for i, x := range z {
			theta[i] = -gamma * x
		}
	case RegPSD:
		// The cone is invariant under positive scaling: Proj(−γz) = γ Proj(−z).
		ws.ProjectPSD(theta, z, -gamma)
	default:
		for i, x := range z {
			theta[i] = -gamma * x
		}
		r.Prox(theta, theta, t*gamma, ws)
	}
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	return math.Sqrt(s)
}

// Workspace holds the per-worker buffers of the PSD projection, sized once by
// a LAPACK workspace query so that projections allocate nothing.
type Workspace struct {
	d    int
	a    []float64 // d×d: input (upper triangle), then eigenvectors (columns)
	w    []float64 // eigenvalues, ascending
	work []float64
	b    []float64 // d×d: positive eigenvectors scaled by sqrt(λ)
	eig  eigBuffers
	sel  selBuffers // ProjectPSDSelect's, allocated on first use
	// Eigs counts the eigendecompositions done through this workspace.
	Eigs int64
}

// NewWorkspace returns buffers for d×d projections (d = 0 gives an empty
// workspace for the vector regularisers).
func NewWorkspace(d int) *Workspace {
	ws := &Workspace{d: d}
	if d == 0 {
		return ws
	}
	ws.a = make([]float64, d*d)
	ws.w = make([]float64, d)
	ws.b = make([]float64, d*d)
	q := []float64{0}
	lapack64.Syev(lapack.EVNone, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ws.a}, ws.w, q, -1)
	ws.work = make([]float64, int(q[0]))
	ws.initEig()
	return ws
}

// ProjectPSD sets dst = Proj_{S+}(scale·v) for a symmetric d×d row-major v:
// the closest PSD matrix in Frobenius norm, V₊·diag(λ₊)·V₊ᵀ over the positive
// eigenpairs only (positivePart: Dsyev in the pure-Go build, Dsyevd with
// -tags netlib), reconstructed by one Dsyrk of V₊·diag(√λ₊). Non-finite input
// gives NaN.
// Only the upper triangle of v is read. Returns the number of positive
// eigenvalues. dst may alias v.
func (ws *Workspace) ProjectPSD(dst, v []float64, scale float64) int {
	d := ws.d
	if len(v) < d*d || len(dst) < d*d {
		panic("problem: ProjectPSD: short slice")
	}
	var vec, lam []float64
	var ld int
	ok := ws.load(v, scale)
	if ok {
		vec, ld, lam, ok = ws.positivePart()
		ws.Eigs++
	}
	if !ok {
		// Non-finite input, or the eigensolver failed to converge (not seen
		// on finite input): NaN out, so that the divergence guard stops the
		// run with the node named.
		for i := range dst[:d*d] {
			dst[i] = math.NaN()
		}
		return 0
	}
	return ws.syrkPositive(dst, vec, ld, lam)
}

// load copies the upper triangle of scale·v into ws.a and reports whether it
// is finite (LAPACK's eigensolvers are undefined on Inf and NaN).
func (ws *Workspace) load(v []float64, scale float64) bool {
	d := ws.d
	ok := true
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			x := scale * v[i*d+j]
			ws.a[i*d+j] = x
			// Not x−x == 0, which arm64 may fuse with the product.
			ok = ok && math.Abs(x) <= math.MaxFloat64
		}
	}
	return ok
}

// syrkPositive sets the d×d dst = Σ_{lam[c] > 0} lam[c]·v_c·v_cᵀ, v_c being
// column c of vec (row stride ld): b = V₊·diag(√λ₊), one Dsyrk b·bᵀ, the
// lower triangle mirrored. Returns the number of positive eigenvalues.
func (ws *Workspace) syrkPositive(dst, vec []float64, ld int, lam []float64) int {
	d := ws.d
	p := 0
	for _, l := range lam {
		if l > 0 {
			p++
		} else if l != l {
			// A NaN spectrum (non-finite input): NaN out, so that the
			// divergence guard stops the run with the node named.
			for i := range dst[:d*d] {
				dst[i] = math.NaN()
			}
			return 0
		}
	}
	clear(dst[:d*d])
	if p == 0 {
		return 0
	}
	for i := 0; i < d; i++ {
		row, c := vec[i*ld:i*ld+len(lam)], 0
		for k, l := range lam {
			if l > 0 {
				ws.b[i*p+c] = row[k] * math.Sqrt(l)
				c++
			}
		}
	}
	out := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: dst}
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: d, Cols: p, Stride: p, Data: ws.b[:d*p]}, 0, out)
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			dst[j*d+i] = dst[i*d+j]
		}
	}
	return p
}

// EigSym sets lam (ascending) and V (eigenvector c in column c, row-major
// d×d) to the eigendecomposition of the symmetric scale·v, whose upper
// triangle is read, with the build's LAPACK. It reports false if the solver
// failed to converge.
func (ws *Workspace) EigSym(V, lam, v []float64, scale float64) bool {
	d := ws.d
	if !ws.load(v, scale) {
		return false
	}
	ws.Eigs++
	vec, ok := ws.fullEig()
	if !ok {
		return false
	}
	copy(V[:d*d], vec[:d*d])
	copy(lam[:d], ws.w)
	return true
}

// ProjectFromEig sets dst = Proj_{S+}(V·diag(lam)·Vᵀ) = V₊·diag(λ₊)·V₊ᵀ and
// returns the number of positive eigenvalues.
func (ws *Workspace) ProjectFromEig(dst, V, lam []float64) int {
	return ws.syrkPositive(dst, V, ws.d, lam[:ws.d])
}

// MinEigen returns the smallest eigenvalue of the symmetric d×d matrix v.
func (ws *Workspace) MinEigen(v []float64) float64 {
	d := ws.d
	copy(ws.a, v[:d*d])
	ws.Eigs++
	lapack64.Syev(lapack.EVNone, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: ws.a}, ws.w, ws.work, len(ws.work))
	return ws.w[0]
}
