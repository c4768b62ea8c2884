package dataset

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// SyntheticConfig describes the synthetic metric-learning set (paper Sec. 4;
// docs/design.md §2.10 gives the spec and the class overlap it produces:
// with the defaults, Euclidean 5-NN accuracy ≈ 0.84 and LDA ≈ 0.91).
//
// Construction, with every draw from one seeded stream rng.New(Seed, SyntheticStream)
// in this order:
//
//  1. G ∈ R^{D×S} with i.i.d. N(0,1) entries, drawn row by row; U = Q of the
//     thin QR factorization G = QR (LAPACK Householder QR), with the signs of
//     U's columns chosen so that R has a positive diagonal, which makes U
//     unique: the Gram–Schmidt orthonormalization of G's columns. UᵀU = I_S.
//  2. For c = 0..K−1: a_c ~ N(0, I_S) and μ_c = MeanScale · U a_c.
//  3. Labels: class c gets ⌊N/K⌋ points, plus one for c < N mod K; the
//     class-ordered label list is then shuffled with a uniform permutation
//     (Fisher–Yates, rng.Stream.Perm): point i gets label ordered[perm[i]].
//  4. Points, i = 0..N−1 and coordinates in order: x_i = μ_{c_i} + Sigma·ε_i,
//     ε_i ~ N(0, I_D).
//
// The data are not standardized. Class names are "0".."K−1".
type SyntheticConfig struct {
	N         int     // number of points (default 1000); N >= K
	D         int     // dimension (default 40); D >= S
	K         int     // number of classes (default 10); K >= 2
	S         int     // dimension of the subspace holding the class means (default 5); 1 <= S <= D
	MeanScale float64 // scale of the class means (default 1); finite, >= 0
	Sigma     float64 // noise standard deviation σ (default 0.5); finite, > 0
	Seed      uint64  // the user seed

	// Workers is the number of goroutines SyntheticMetric generates with
	// (0: GOMAXPROCS); the data do not depend on it. Synthetic ignores it.
	Workers int
	// MaxElements limits N·D: 0 means DefaultMaxElements, negative means no
	// limit.
	MaxElements int64
}

// SyntheticStream is the sub-stream id (the second argument of rng.New) of
// the synthetic generator: "synthdat" in ASCII, distinct from other streams.
const SyntheticStream uint64 = 0x73796e7468646174

// DefaultSynthetic returns the paper-sized configuration: N = 1000, D = 40,
// K = 10, S = 5, MeanScale = 1, Sigma = 0.5, Seed = 1.
func DefaultSynthetic() SyntheticConfig {
	return SyntheticConfig{N: 1000, D: 40, K: 10, S: 5, MeanScale: 1, Sigma: 0.5, Seed: 1}
}

// Validate checks the configuration; errors name the offending field.
func (cfg SyntheticConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("dataset: SyntheticConfig.%s", fmt.Sprintf(format, a...))
	}
	switch {
	case cfg.K < 2:
		return bad("K = %d: need at least 2 classes", cfg.K)
	case cfg.N < cfg.K:
		return bad("N = %d: need at least one point per class (N >= K = %d)", cfg.N, cfg.K)
	case cfg.D < 1:
		return bad("D = %d: need D >= 1", cfg.D)
	case cfg.S < 1:
		return bad("S = %d: need S >= 1", cfg.S)
	case cfg.S > cfg.D:
		return bad("S = %d: the subspace dimension must be <= D = %d", cfg.S, cfg.D)
	case !(cfg.Sigma > 0) || math.IsInf(cfg.Sigma, 0):
		return bad("Sigma = %v: need a finite Sigma > 0", cfg.Sigma)
	case !(cfg.MeanScale >= 0) || math.IsInf(cfg.MeanScale, 0):
		return bad("MeanScale = %v: need a finite MeanScale >= 0", cfg.MeanScale)
	}
	if cfg.N > math.MaxInt/cfg.D {
		return bad("N, D = %d, %d: N·D overflows int", cfg.N, cfg.D)
	}
	lim := resolveLimits(0, cfg.MaxElements)
	if lim.overElements(int64(cfg.N), int64(cfg.D)) {
		return bad("N, D = %d, %d: %s", cfg.N, cfg.D, lim.elementsMsg(int64(cfg.N), int64(cfg.D), false, "; raise SyntheticConfig.MaxElements to allow more"))
	}
	return nil
}

// Synthetic generates the synthetic metric-learning data set described by
// cfg (see SyntheticConfig). The same cfg gives bit-identical data.
func Synthetic(cfg SyntheticConfig) (*Dataset, error) {
	ds, _, _, err := synthetic(cfg)
	return ds, err
}

// synthetic also returns the basis U (D×S row-major) and the class means
// (K×D row-major), for tests.
func synthetic(cfg SyntheticConfig) (ds *Dataset, u, means []float64, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	n, d, k, s := cfg.N, cfg.D, cfg.K, cfg.S
	st := rng.New(cfg.Seed, SyntheticStream)

	// 1. Orthonormal basis of a random S-dimensional subspace.
	g := make([]float64, d*s)
	for i := range g {
		g[i] = st.Normal()
	}
	if u, err = orthonormalize(g, d, s, cfg.Seed); err != nil {
		return nil, nil, nil, err
	}

	// 2. Class means μ_c = MeanScale · U a_c.
	means = make([]float64, k*d)
	coef := make([]float64, s)
	for c := 0; c < k; c++ {
		for j := range coef {
			coef[j] = st.Normal()
		}
		mu := means[c*d : (c+1)*d]
		for i := 0; i < d; i++ {
			sum := 0.0
			for j := 0; j < s; j++ {
				sum += u[i*s+j] * coef[j]
			}
			mu[i] = cfg.MeanScale * sum
		}
	}

	// 3. Balanced, shuffled labels.
	ordered := make([]int32, 0, n)
	for c := 0; c < k; c++ {
		cnt := n / k
		if c < n%k {
			cnt++
		}
		for range cnt {
			ordered = append(ordered, int32(c))
		}
	}
	perm := make([]int, n)
	st.Perm(perm)
	class := make([]int32, n)
	for i, p := range perm {
		class[i] = ordered[p]
	}

	// 4. Points.
	x := make([]float64, n*d)
	for i := 0; i < n; i++ {
		mu := means[int(class[i])*d : (int(class[i])+1)*d]
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = mu[j] + cfg.Sigma*st.Normal()
		}
	}

	names := make([]string, k)
	for c := range names {
		names[c] = strconv.Itoa(c)
	}
	ds = &Dataset{
		Name:       "synthetic",
		N:          n,
		D:          d,
		X:          x,
		Class:      class,
		ClassNames: names,
		Source: fmt.Sprintf("synthetic Gaussian mixture (pairgossip generator, paper Sec. 4): N=%d D=%d K=%d S=%d MeanScale=%g Sigma=%g Seed=%d",
			n, d, k, s, cfg.MeanScale, cfg.Sigma, cfg.Seed),
	}
	return ds, u, means, nil
}

// orthonormalize replaces the d×s row-major matrix g by U, the Q factor of
// its thin QR factorization with the signs of U's columns chosen so that R
// has a positive diagonal (the Gram–Schmidt orthonormalization of g's
// columns), and returns it.
func orthonormalize(g []float64, d, s int, seed uint64) ([]float64, error) {
	a := blas64.General{Rows: d, Cols: s, Stride: s, Data: g}
	tau := make([]float64, s)
	work := make([]float64, 1)
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, max(int(work[0]), d))
	lapack64.Geqrf(a, tau, work, len(work))
	sign := make([]float64, s)
	for j := 0; j < s; j++ {
		r := g[j*s+j]
		if r == 0 || math.IsNaN(r) { // probability zero for Gaussian G
			return nil, fmt.Errorf("dataset: synthetic: degenerate random subspace (seed %d)", seed)
		}
		sign[j] = math.Copysign(1, r)
	}
	lapack64.Orgqr(a, tau, work, -1)
	work = make([]float64, max(int(work[0]), s))
	lapack64.Orgqr(a, tau, work, len(work))
	u := g
	for i := 0; i < d; i++ {
		for j := 0; j < s; j++ {
			u[i*s+j] *= sign[j]
		}
	}
	return u, nil
}
