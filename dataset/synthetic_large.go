package dataset

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/pairgossip/pairgossip/internal/crng"
	"github.com/pairgossip/pairgossip/internal/par"
)

// Stream ids (the second argument of crng.New) of the counter-based
// generators, distinct from each other and from SyntheticStream. Each
// generator uses its id plus a small role number (0, 1, 2, ...) for its
// independent parts.
const (
	SyntheticAUCStream    uint64 = 0x73796e7461756300 // "syntauc\x00"
	SyntheticMetricStream uint64 = 0x73796e746d657400 // "syntmet\x00"
)

// SyntheticAUCConfig describes the synthetic binary-classification set for
// AUC maximization: two Gaussian classes with identity covariance whose
// means differ along the diagonal direction.
//
// Model, exactly: P = clamp(round(PositiveFraction·N), 1, N−1) points are
// positive (y = +1) and N − P negative (y = −1); which ones is decided by a
// pseudo-random permutation π of the rows (crng.NewPerm(N, Seed,
// SyntheticAUCStream)): row i is positive iff π(i) < P. Point i is
//
//	x_i = y_i · (Separation / (2√D)) · (1, 1, …, 1) + ε_i,   ε_i ~ N(0, I_D),
//
// so the class means are ±(Separation/2)·u with u = (1, …, 1)/√D a unit
// vector: ‖μ₊ − μ₋‖ = Separation, in units of the noise standard deviation.
// The best linear scorer is w ∝ u and its (Bayes-optimal) AUC is
// Φ(Separation/√2): 0.921 for the default Separation = 2. The D coordinates
// of ε_i are the first D normals of crng.New(Seed, SyntheticAUCStream+1, i),
// so row i depends on (Seed, i) alone and the data are bit-identical for any
// number of workers. The data are not standardized. Class 0 is named "-1"
// and class 1 "+1", so Dataset.Binary labels the positives +1.
type SyntheticAUCConfig struct {
	N                int     // number of points (default 1000); N >= 2
	D                int     // dimension (default 16); D >= 1
	Separation       float64 // distance between the class means (default 2); finite, >= 0
	PositiveFraction float64 // fraction of positive points (default 0.5); 0 < PositiveFraction < 1
	Seed             uint64  // the user seed
	Workers          int     // goroutines to generate with (0: GOMAXPROCS); the data do not depend on it
	MaxElements      int64   // limit on N·D: 0 means DefaultMaxElements, negative means no limit
}

// DefaultSyntheticAUC returns N = 1000, D = 16, Separation = 2,
// PositiveFraction = 0.5, Seed = 1.
func DefaultSyntheticAUC() SyntheticAUCConfig {
	return SyntheticAUCConfig{N: 1000, D: 16, Separation: 2, PositiveFraction: 0.5, Seed: 1}
}

// Validate checks the configuration; errors name the offending field.
func (cfg SyntheticAUCConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("dataset: SyntheticAUCConfig.%s", fmt.Sprintf(format, a...))
	}
	switch {
	case cfg.N < 2:
		return bad("N = %d: need at least 2 points", cfg.N)
	case cfg.D < 1:
		return bad("D = %d: need D >= 1", cfg.D)
	case !(cfg.Separation >= 0) || math.IsInf(cfg.Separation, 0):
		return bad("Separation = %v: need a finite Separation >= 0", cfg.Separation)
	case !(cfg.PositiveFraction > 0 && cfg.PositiveFraction < 1):
		return bad("PositiveFraction = %v: need 0 < PositiveFraction < 1", cfg.PositiveFraction)
	case cfg.N > math.MaxInt/cfg.D:
		return bad("N, D = %d, %d: N·D overflows int", cfg.N, cfg.D)
	}
	lim := resolveLimits(0, cfg.MaxElements)
	if lim.overElements(int64(cfg.N), int64(cfg.D)) {
		return bad("N, D = %d, %d: %s", cfg.N, cfg.D, lim.elementsMsg(int64(cfg.N), int64(cfg.D), false, "; raise MaxElements to allow more"))
	}
	return nil
}

// positives returns P, the number of positive points.
func (cfg SyntheticAUCConfig) positives() int {
	p := int(math.Floor(cfg.PositiveFraction*float64(cfg.N) + 0.5))
	return min(max(p, 1), cfg.N-1)
}

// SyntheticAUC generates the data set described by cfg (see
// SyntheticAUCConfig), in parallel over blocks of rows. Memory: the N×D
// matrix and N class indices, nothing else of size N.
func SyntheticAUC(cfg SyntheticAUCConfig) (*Dataset, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n, d := cfg.N, cfg.D
	pos := uint64(cfg.positives())
	perm := crng.NewPerm(uint64(n), cfg.Seed, SyntheticAUCStream)
	shift := cfg.Separation / (2 * math.Sqrt(float64(d)))
	x := newMatrix(n * d)
	class := make([]int32, n)
	key := crng.NewKey(cfg.Seed, SyntheticAUCStream+1)
	// |x| <= |shift| + 14 (the largest normal the ziggurat can return is
	// below 14), so the values are finite: no check needed.
	par.Blocks(n, cfg.Workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			c := int32(0)
			m := -shift
			if perm.At(uint64(i)) < pos {
				c, m = 1, shift
			}
			class[i] = c
			row := x[i*d : (i+1)*d : (i+1)*d]
			for j := range row {
				row[j] = m
			}
			st := key.Stream(uint64(i))
			st.AddNormals(row, 1)
		}
	})
	return &Dataset{
		Name:       SpecSyntheticAUC,
		N:          n,
		D:          d,
		X:          x,
		Class:      class,
		ClassNames: []string{"-1", "+1"},
		Source: fmt.Sprintf("synthetic two-Gaussian AUC set (pairgossip counter-based generator): N=%d D=%d Separation=%g PositiveFraction=%g (%d positives) Seed=%d; Bayes AUC Φ(Separation/√2) = %.4f",
			n, d, cfg.Separation, cfg.PositiveFraction, pos, cfg.Seed, 0.5*math.Erfc(-cfg.Separation/2)),
	}, nil
}

// SyntheticMetric generates the metric-learning mixture of SyntheticConfig
// at any size, in parallel, with counter-based randomness: the same model as
// Synthetic (K Gaussians N(μ_c, Sigma²·I_D), means μ_c = MeanScale·U a_c in a
// random S-dimensional subspace span(U), balanced classes in random order)
// but other random draws, so that every part is keyed by an index rather
// than taken in turn from one sequential stream:
//
//  1. Row r of G ∈ R^{D×S} is the first S normals of
//     crng.New(Seed, SyntheticMetricStream, r); U is G orthonormalized as in
//     Synthetic (QR with a positive diagonal of R).
//  2. a_c is the first S normals of crng.New(Seed, SyntheticMetricStream+1, c);
//     μ_c = MeanScale · U a_c.
//  3. Labels: with π = crng.NewPerm(N, Seed, SyntheticMetricStream+2), point
//     i gets class ordered[π(i)], where ordered lists class c ⌊N/K⌋ times,
//     plus once more for c < N mod K, in increasing c — the same counts as
//     Synthetic.
//  4. x_i = μ_{c_i} + Sigma·ε_i with ε_i the first D normals of
//     crng.New(Seed, SyntheticMetricStream+3, i).
//
// The output therefore depends on cfg (not on cfg.Workers) and differs from
// Synthetic's for the same cfg: Synthetic's single stream (rejection
// sampling, a Fisher–Yates shuffle) cannot be split between workers. Use
// Synthetic for the paper's exact set and SyntheticMetric for large N.
// Memory: the N×D matrix, N class indices and the K×D means.
func SyntheticMetric(cfg SyntheticConfig) (*Dataset, error) {
	ds, _, _, err := syntheticMetric(cfg)
	return ds, err
}

// syntheticMetric also returns the basis U (D×S) and the means (K×D), for tests.
func syntheticMetric(cfg SyntheticConfig) (ds *Dataset, u, means []float64, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	n, d, k, s := cfg.N, cfg.D, cfg.K, cfg.S
	seed := cfg.Seed

	g := make([]float64, d*s)
	par.Blocks(d, cfg.Workers, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			st := crng.New(seed, SyntheticMetricStream, uint64(r))
			st.AddNormals(g[r*s:(r+1)*s], 1)
		}
	})
	u, err = orthonormalize(g, d, s, seed)
	if err != nil {
		return nil, nil, nil, err
	}

	means = make([]float64, k*d)
	par.Blocks(k, cfg.Workers, func(_, lo, hi int) {
		coef := make([]float64, s)
		for c := lo; c < hi; c++ {
			clear(coef)
			st := crng.New(seed, SyntheticMetricStream+1, uint64(c))
			st.AddNormals(coef, 1)
			mu := means[c*d : (c+1)*d]
			for i := 0; i < d; i++ {
				sum := 0.0
				for j := 0; j < s; j++ {
					sum += u[i*s+j] * coef[j]
				}
				mu[i] = cfg.MeanScale * sum
			}
		}
	})

	perm := crng.NewPerm(uint64(n), seed, SyntheticMetricStream+2)
	q, rem := n/k, n%k
	big := rem * (q + 1) // positions of the classes with q+1 points
	divBig, divSmall := newDivider(q+1), newDivider(q)
	x := newMatrix(n * d)
	class := make([]int32, n)
	key := crng.NewKey(seed, SyntheticMetricStream+3)
	// The normals are below 14 in magnitude: if max|μ| + 14·Sigma is finite,
	// so is every value, and the rows need no check.
	check := !(maxAbs(means)+14*cfg.Sigma <= math.MaxFloat64)
	err = generateRows(n, cfg.Workers, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			p := int(perm.At(uint64(i)))
			var c int
			if p < big {
				c = divBig.div(p)
			} else {
				c = rem + divSmall.div(p-big)
			}
			class[i] = int32(c)
			row := x[i*d : (i+1)*d : (i+1)*d]
			copy(row, means[c*d:(c+1)*d])
			st := key.Stream(uint64(i))
			st.AddNormals(row, cfg.Sigma)
			if check {
				if err := finiteRow(row, i); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dataset: synthetic-metric: %w", err)
	}
	names := make([]string, k)
	for c := range names {
		names[c] = strconv.Itoa(c)
	}
	return &Dataset{
		Name:       SpecSyntheticMetric,
		N:          n,
		D:          d,
		X:          x,
		Class:      class,
		ClassNames: names,
		Source: fmt.Sprintf("synthetic Gaussian mixture (paper Sec. 4 model, pairgossip counter-based generator): N=%d D=%d K=%d S=%d MeanScale=%g Sigma=%g Seed=%d",
			n, d, k, s, cfg.MeanScale, cfg.Sigma, seed),
	}, u, means, nil
}

// newMatrix allocates the float64 array of a data set. (No huge-page hint:
// on a machine whose memory is fragmented, MADV_HUGEPAGE makes first-touch
// faults stall in compaction, several times the system time of the plain
// pages at 10⁷×16: bench/RESULTS.md, "Measurements cited by comments outside
// the engine". The engine copies X into its own layout,
// so X's page size does not matter later.)
func newMatrix(n int) []float64 {
	return make([]float64, n)
}

// generateRows calls rows(lo, hi) for the blocks of a static partition of
// [0, n) in parallel and returns the first error in block order, if any.
func generateRows(n, workers int, rows func(lo, hi int) error) error {
	workers = min(par.Workers(workers), max(n, 1))
	errs := make([]error, workers)
	par.Blocks(n, workers, func(w, lo, hi int) {
		errs[w] = rows(lo, hi)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// divider divides non-negative ints by a fixed d >= 1; below 2³² by a
// multiplication (Lemire, Kaser & Kurz, "Faster remainder by direct
// computation", 2019: ⌊n/d⌋ = ⌊c·n / 2⁶⁴⌋ with c = ⌈2⁶⁴/d⌉ for 32-bit n
// and d), exactly.
type divider struct {
	d int
	c uint64 // 0 when d == 1
}

func newDivider(d int) divider {
	dv := divider{d: d}
	if d > 1 && d < 1<<32 {
		dv.c = math.MaxUint64/uint64(d) + 1
	}
	return dv
}

func (dv divider) div(n int) int {
	if dv.c != 0 && n < 1<<32 {
		hi, _ := bits.Mul64(dv.c, uint64(n))
		return int(hi)
	}
	return n / dv.d
}

// maxAbs returns the largest magnitude in v (NaN if v holds one).
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); !(a <= m) {
			m = a
		}
	}
	return m
}

// finiteRow reports a non-finite value in row i (possible only for extreme
// MeanScale, Separation or Sigma).
func finiteRow(row []float64, i int) error {
	for j, v := range row {
		if v-v != 0 {
			return fmt.Errorf("row %d, feature %d: non-finite value %v (scale parameters too large)", i, j, v)
		}
	}
	return nil
}
