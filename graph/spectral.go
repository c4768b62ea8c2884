package graph

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pairgossip/pairgossip/internal/lanczos"
	"github.com/pairgossip/pairgossip/internal/rng"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Methods of SpectralGapWith.
const (
	MethodAuto       = "auto"
	MethodClosedForm = "closed-form"
	MethodDense      = "dense"
	MethodLanczos    = "lanczos"
)

// DenseMaxN is the largest node count for which the automatic method uses
// the dense eigensolver, whose time grows as n³ and memory as n² (8 MiB at
// 1024): it covers the paper's Table 1 graphs (n = 699 and 1000) exactly;
// larger graphs without a closed form use Lanczos on the sparse Laplacian,
// whose cost grows with the edges (docs/design.md §2.2).
const DenseMaxN = 1024

// Defaults of GapOptions.
const (
	DefaultGapTol     = 1e-6
	DefaultGapMaxIter = 20000
)

// streamLanczos identifies the random stream of the Lanczos start vector.
const streamLanczos uint64 = 0x67726170682f6c7a // "graph/lz"

// Gap is the spectral gap 1 − λ₂(W) of the gossip matrix W = I − L/|E|
// (|E| ordered pairs), together with how it was obtained.
type Gap struct {
	// Value is 1 − λ₂(W) = Lambda2L / |E| = Lambda2L / (2·UndirectedEdges).
	Value float64
	// Lambda2L is β_{n−1}, the second-smallest eigenvalue of the Laplacian
	// L = D − A (the algebraic connectivity).
	Lambda2L float64
	// Method is "closed-form", "dense" or "lanczos".
	Method string
	// Residual is, for "lanczos", ‖L y − β y‖ for the returned unit Ritz
	// vector y, recomputed explicitly at the end: some eigenvalue of L lies
	// within Residual of Lambda2L (and within Residual²/δ when the next
	// eigenvalue is δ away). It is 0 for the other methods.
	Residual float64
	// Iterations is the number of Laplacian–vector products of "lanczos"
	// (0 for the other methods).
	Iterations int
}

// GapOptions controls SpectralGapWith. The zero value selects the defaults.
type GapOptions struct {
	// Method is "" or "auto" (closed form when the generator family has one,
	// else dense when N <= DenseMaxN, else Lanczos), or forces
	// "closed-form" (an error when there is none), "dense" or "lanczos".
	Method string
	// Tol is the Lanczos stopping tolerance: the explicit residual must be
	// <= Tol·β, which bounds the relative error of β by Tol (in practice by
	// about Tol²·β/δ). Default DefaultGapTol.
	Tol float64
	// MaxIter caps the Lanczos Laplacian–vector products; reaching it is an
	// error, never a silently inaccurate value. Default DefaultGapMaxIter.
	MaxIter int
	// Seed selects the random Lanczos start vector.
	Seed uint64
}

// ErrNotConverged is wrapped by the error SpectralGapWith returns when the
// Lanczos iteration reaches MaxIter before the tolerance.
var ErrNotConverged = errors.New("lanczos did not converge")

// SpectralGap returns the spectral gap of g with the default options: a
// closed form for the generator families that have one (complete, cycle,
// star, path, grid, torus as built by this package; never for loaded
// files), the dense eigensolver up to DenseMaxN nodes, and thick-restart
// Lanczos beyond. g must be connected with at least one edge.
//
// Lanczos converges at a rate set by the relative distance between β_{n−1}
// and the next eigenvalue, compared with the width of the spectrum. For
// expander-like graphs (Watts–Strogatz, Erdős–Rényi, random geometric) that
// is fast even at n = 10⁵; for large graphs with a tiny gap that are not
// built by a closed-form generator (a loaded cycle-like or path-like file of
// 10⁵ nodes has β ≈ 4·10⁻⁹ against a spectrum width of 4) it is slow and
// usually stops at MaxIter with an error wrapping ErrNotConverged.
func SpectralGap(g *Graph) (Gap, error) { return SpectralGapWith(g, GapOptions{}) }

// SpectralGapWith is SpectralGap with explicit options.
func SpectralGapWith(g *Graph, opt GapOptions) (Gap, error) {
	return SpectralGapContext(context.Background(), g, opt)
}

// SpectralGapContext is SpectralGapWith whose Lanczos iteration stops when
// ctx is done, with an error wrapping ctx's (the closed forms and the dense
// eigensolver do not look at it).
func SpectralGapContext(ctx context.Context, g *Graph, opt GapOptions) (Gap, error) {
	if g == nil {
		return Gap{}, errors.New("graph: spectral gap: nil graph")
	}
	if g.N < 2 || len(g.Edges) == 0 {
		return Gap{}, fmt.Errorf("graph: spectral gap: %s has no edges", g.Name)
	}
	if !g.Connected() {
		return Gap{}, fmt.Errorf("graph: spectral gap: %s is disconnected (the gap is 0)", g.Name)
	}
	tol := opt.Tol
	if tol == 0 {
		tol = DefaultGapTol
	}
	if !(tol > 0 && tol < 1) {
		return Gap{}, fmt.Errorf("graph: spectral gap: tolerance must be in (0, 1), got %v", opt.Tol)
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = DefaultGapMaxIter
	}
	if maxIter < 0 {
		return Gap{}, fmt.Errorf("graph: spectral gap: MaxIter must be positive, got %d", opt.MaxIter)
	}
	edges := float64(g.OrderedEdges())
	method := opt.Method
	if method == "" || method == MethodAuto {
		switch {
		case g.closed.kind != "":
			method = MethodClosedForm
		case g.N <= DenseMaxN:
			method = MethodDense
		default:
			method = MethodLanczos
		}
	}
	switch method {
	case MethodClosedForm:
		beta, ok := closedFormLambda2(g)
		if !ok {
			return Gap{}, fmt.Errorf("graph: spectral gap: no closed form for %s (closed forms exist for complete, cycle, star, path, grid and torus graphs built by their generators)", g.Name)
		}
		return Gap{Value: beta / edges, Lambda2L: beta, Method: method}, nil
	case MethodDense:
		beta, err := denseLambda2(g)
		if err != nil {
			return Gap{}, err
		}
		return Gap{Value: beta / edges, Lambda2L: beta, Method: method}, nil
	case MethodLanczos:
		res, err := lanczosLambda2(ctx, g, tol, maxIter, opt.Seed)
		if err != nil {
			return Gap{}, err
		}
		return Gap{Value: res.Theta / edges, Lambda2L: res.Theta, Method: method, Residual: res.Resid, Iterations: res.Iters}, nil
	}
	return Gap{}, fmt.Errorf("graph: spectral gap: unknown method %q; valid methods are auto, closed-form, dense, lanczos", opt.Method)
}

// sin2 returns 4·sin²(x/2) = 2 − 2cos(x) without cancellation for small x.
func sin2(x float64) float64 {
	s := math.Sin(x / 2)
	return 4 * s * s
}

// closedFormLambda2 returns β_{n−1} for the generator families with a known
// Laplacian spectrum:
//
//	complete K_n   β = n
//	cycle C_n      β = 2 − 2cos(2π/n)
//	path P_n       β = 2 − 2cos(π/n)
//	star K_{1,n−1} β = 1 (β = 2 for n = 2, a single edge)
//	grid r×c       Cartesian product P_r □ P_c: β = min over the dimensions > 1 of 2 − 2cos(π/m)
//	torus r×c      C_r □ C_c: β = min(2 − 2cos(2π/r), 2 − 2cos(2π/c))
//
// (the Laplacian eigenvalues of a Cartesian product are the sums of those of
// the factors, and each factor has eigenvalue 0).
func closedFormLambda2(g *Graph) (float64, bool) {
	n := float64(g.N)
	switch g.closed.kind {
	case "complete":
		return n, true
	case "cycle":
		return sin2(2 * math.Pi / n), true
	case "path":
		return sin2(math.Pi / n), true
	case "star":
		if g.N == 2 {
			return 2, true
		}
		return 1, true
	case "grid":
		beta := math.Inf(1)
		for _, m := range []int{g.closed.rows, g.closed.cols} {
			if m > 1 {
				beta = math.Min(beta, sin2(math.Pi/float64(m)))
			}
		}
		return beta, true
	case "torus":
		return math.Min(sin2(2*math.Pi/float64(g.closed.rows)), sin2(2*math.Pi/float64(g.closed.cols))), true
	}
	return 0, false
}

// HasClosedForm reports whether g's spectral gap has a closed form (its
// generator family is one of closedFormLambda2's): SpectralGap then costs
// nothing at any n.
func HasClosedForm(g *Graph) bool {
	_, ok := closedFormLambda2(g)
	return ok
}

// denseLambda2 returns β_{n−1} from all eigenvalues of the dense Laplacian
// (LAPACK Dsyev, eigenvalues only).
func denseLambda2(g *Graph) (float64, error) {
	n := g.N
	if float64(n)*float64(n) > 1<<31 {
		return 0, fmt.Errorf("graph: spectral gap: n=%d is too large for the dense eigensolver; use lanczos", n)
	}
	a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	for k := 0; k < n; k++ {
		a.Data[k*n+k] = float64(g.Degree(k))
	}
	for _, e := range g.Edges {
		a.Data[int(e[0])*n+int(e[1])] = -1
	}
	w := make([]float64, n)
	work := []float64{0}
	lapack64.Syev(lapack.EVNone, a, w, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Syev(lapack.EVNone, a, w, work, len(work)) {
		return 0, fmt.Errorf("graph: spectral gap: dense eigensolver failed to converge on %s", g.Name)
	}
	return w[1], nil
}

// laplacianMul sets dst = L x for the Laplacian L = D − A of g.
func laplacianMul(g *Graph, dst, x []float64) {
	for k := range dst {
		sum := 0.0
		for _, j := range g.Adj[g.Offsets[k]:g.Offsets[k+1]] {
			sum += x[j]
		}
		dst[k] = float64(g.Offsets[k+1]-g.Offsets[k])*x[k] - sum
	}
}

// lanczosLambda2 computes β_{n−1}(L), the smallest eigenvalue of g's
// Laplacian on the complement of the all-ones vector, by the thick-restart
// Lanczos iteration of package lanczos (Gershgorin's 2·max degree bounds
// ‖L‖).
func lanczosLambda2(ctx context.Context, g *Graph, tol float64, maxIter int, seed uint64) (lanczos.Result, error) {
	res, err := lanczos.Smallest(ctx, g.N, func(dst, x []float64) { laplacianMul(g, dst, x) },
		2*float64(g.MaxDegree()), tol, maxIter, rng.New(seed, streamLanczos))
	var nc *lanczos.NotConverged
	switch {
	case errors.As(err, &nc):
		return res, fmt.Errorf("graph: spectral gap: %w on %s after %d Laplacian products (estimate β = %.6g, residual %.2g > %.2g·β); the graph's gap is probably too small for an iterative method",
			ErrNotConverged, g.Name, nc.Iters, nc.Estimate, nc.Resid, tol)
	case err != nil:
		return res, fmt.Errorf("graph: spectral gap: %w on %s", err, g.Name)
	}
	return res, nil
}
