package problem

import (
	"fmt"
	"math"
	"strings"
)

// Measurement at large n (issue #14, item 3).
//
// The Evaluator measures the objective R_n(θ), the AUC and the bias term in
// one of these ways, chosen once when it is built (EvalOptions.Mode; the
// automatic rule is planEval's):
//
//   - MethodPairwise: the exact double sum, pair by pair, with an m×n score
//     matrix (AUC) or, for metric learning, the upper triangle of X θs Xᵀ
//     (θs = θ + θᵀ) by 256×256 tiles per worker (metricStreamSum). It is
//     the only method at small n, so the paper's figures and the golden
//     checksums do not move.
//   - MethodSorted: exact in O(n log n) per parameter vector, in O(n) memory
//     per worker: the hinge and squared-hinge pair sums from the sorted
//     scores (sortedPairSums), the AUC by counting (Mann–Whitney).
//   - MethodStreamed: exact pair by pair in bounded memory (the logistic
//     loss and metric learning have no sorted form): what EvalExact falls
//     back to when the pairwise method's buffers would not fit; the bias term
//     summed over every j in blocks.
//   - MethodExactFast: the logistic pair sum by the fast grid expansion
//     (fastsum.go), exact to its a-priori bound (at most about 1e-11 of
//     the value at the default grid; Estimate.ObjBound), in O(n·d) per
//     vector: chosen automatically where the pairwise method is over the
//     budget, so only at sizes where the pairwise method was never used and
//     the paper's figures and golden checksums stay as they were; the AUC
//     by sorting.
//   - MethodSampled: an incomplete U-statistic. B pairs are drawn from a
//     seeded counter-based stream (pair b is a pure function of the seed and
//     b), the same for every evaluated vector and every measurement of a run
//     (common random numbers: the trace is smooth and differences between
//     nodes are not sampling noise). AUC losses draw (i, j) uniform over
//     positives × negatives and scale the mean loss by n₊n₋/n²; metric
//     learning draws (i, j) uniform over [n]². The standard error of the mean
//     over the evaluated vectors is the sample standard deviation, over the
//     pairs, of the per-pair mean loss, divided by √B and scaled like the
//     objective. B comes from a pilot of pilotBlocks blocks: the smallest
//     whole number of blocks for which the standard error is Precision times
//     the estimate (objective and, when it is sampled too, AUC), at least the
//     pilot, at most MaxPairs and the pairs the time budget affords.
//
// Every reduction runs in a fixed order over fixed blocks, so results do not
// depend on the number of workers.

// EvalMode selects how the Evaluator measures.
type EvalMode int

const (
	// EvalAuto is exact where that is affordable, else sampled (planEval).
	EvalAuto EvalMode = iota
	// EvalExact never samples: the pairwise method where its buffers fit the
	// memory budget, else the sorted or streamed forms, whatever the time.
	EvalExact
	// EvalSampled always samples the objective, the AUC and the bias term.
	EvalSampled
)

// EvalModeNames lists the accepted names, in EvalMode order.
var EvalModeNames = []string{"auto", "exact", "sampled"}

func (m EvalMode) String() string {
	if int(m) >= 0 && int(m) < len(EvalModeNames) {
		return EvalModeNames[m]
	}
	return fmt.Sprintf("EvalMode(%d)", int(m))
}

// ParseEvalMode maps a name ("" is auto) to an EvalMode.
func ParseEvalMode(s string) (EvalMode, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return EvalAuto, nil
	case "exact":
		return EvalExact, nil
	case "sampled", "sample":
		return EvalSampled, nil
	}
	return 0, fmt.Errorf("unknown measurement mode %q (valid: %s)", s, strings.Join(EvalModeNames, ", "))
}

// EvalMethod is how one measured value was computed. The zero value is the
// pairwise method, so a record that predates the field reads as exact.
type EvalMethod uint8

const (
	MethodPairwise  EvalMethod = iota // exact, pair by pair (the small-n method)
	MethodSorted                      // exact, by sorting the scores
	MethodStreamed                    // exact, pair by pair in bounded memory
	MethodSampled                     // incomplete U-statistic, with a standard error
	MethodExactFast                   // exact to a stated bound, by the fast pair sums (logistic)
)

var methodNames = []string{"exact", "exact-sorted", "exact-streamed", "sampled", "exact-fast"}

func (m EvalMethod) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("EvalMethod(%d)", int(m))
}

// Exact reports whether the method gives the exact value (up to rounding).
func (m EvalMethod) Exact() bool { return m != MethodSampled }

// Defaults of EvalOptions.
const (
	// DefaultPrecision is the relative standard error a sample aims at.
	DefaultPrecision = 0.01
	// DefaultMaxPairs caps the pairs of one sample.
	DefaultMaxPairs = 1 << 20
	// DefaultBudget is the time one measurement may take on one worker
	// when it is chosen automatically, in cost units (see the cost
	// constants). It is what a budget of half as much on two workers chose
	// before the plan stopped depending on the worker count.
	DefaultBudget = 5e8
	// DefaultMemBudget bounds the buffers of the pairwise method (the m×n
	// score matrix; metric learning's tiles are small).
	DefaultMemBudget = 256 << 20
)

// EvalOptions configures an Evaluator. The zero value is the automatic
// choice with the defaults.
type EvalOptions struct {
	Mode EvalMode
	// Precision is the relative standard error aimed at when sampling
	// (0: DefaultPrecision).
	Precision float64
	// Seed seeds the pair stream.
	Seed uint64
	// MaxPairs caps the sampled pairs (0: DefaultMaxPairs).
	MaxPairs int64
	// Budget is the time budget of one measurement in cost units (0:
	// DefaultBudget). It decides between the methods under EvalAuto and
	// caps the sample size.
	Budget float64
	// MemBudget bounds the pairwise method's buffers in bytes (0:
	// DefaultMemBudget).
	MemBudget int64
}

func (o EvalOptions) withDefaults() EvalOptions {
	if !(o.Precision > 0) || math.IsInf(o.Precision, 0) {
		o.Precision = DefaultPrecision
	}
	if o.MaxPairs <= 0 {
		o.MaxPairs = DefaultMaxPairs
	}
	if !(o.Budget > 0) {
		o.Budget = DefaultBudget
	}
	if o.MemBudget <= 0 {
		o.MemBudget = DefaultMemBudget
	}
	return o
}

// Cost model, in cost units of CPU time (about a flop-equivalent each, as
// calibrated with BenchmarkMeasureLarge (engine), BenchmarkEvalPairwise and
// BenchmarkRadixSort (problem): bench/RESULTS.md, "Measurements cited by
// comments outside the engine"):
// a multiply-add streamed from X (the scores, memory-bound), of a
// cache-resident block product, a pair of the pairwise method, a score
// radix-sorted and swept, a row of X gathered at random, a loss or
// derivative evaluated. Estimates are per measurement of m vectors divided
// by the workers (the vectors, blocks or segments are shared out among
// them); the budget is a wall time on idle cores as the calibration
// gives it. They are estimates: a loaded machine takes longer.
const (
	costScore       = 0.8 // per multiply-add of X·θ, streaming X
	costGemm        = 0.4 // per multiply-add of a cache-resident block product
	costPairLogit   = 1.8 // per pair of the pairwise method, logistic (one log per pair)
	costPairHinge   = 0.8 // per pair of the pairwise method, hinge losses (active pairs only)
	costMetricPr    = 12  // per unordered pair of the metric pairwise method, beyond the Gram product
	costSortKey     = 50  // per score radix-sorted and swept
	costGather      = 40  // per row of X gathered at random
	costHinge       = 2   // per hinge loss or derivative
	costSoftplus    = 20  // per logistic loss
	costSigmoidCall = 15  // per logistic derivative
	costFastPoint   = 70  // per score of the fast logistic sum (binning, 13 compensated moments)
	costFastFixed   = 1e6 // per vector of the fast logistic sum (its FFTs, a few thousand bins)
)

// EvalPlan is the Evaluator's choice of methods and its cost estimates.
type EvalPlan struct {
	Obj, AUC, Bias EvalMethod
	// Cost is the estimated time of one measurement of the objective and
	// AUC (cost units, on one worker); BiasCost that of the bias term.
	Cost, BiasCost float64
	// MaxPairs is the largest sample the budget affords (0 when nothing is
	// sampled); BiasSamples the j's of a sampled bias term.
	MaxPairs, BiasSamples int64
	// Bytes is the memory of the evaluator's buffers.
	Bytes int64
	// Distinct: when the plan samples, the buffers of the exact methods
	// for one vector are there too, so that a measurement whose m vectors
	// hold u < m distinct values takes the plan for u vectors on one
	// worker when that one is exact (the sorted forms or the fast sums,
	// with the AUC by sorting) and measures each distinct value once. The
	// first measurement of a run, where every θ̄_k is 0, is then exact at
	// any n the one-vector plan affords (Evaluator.Estimate).
	Distinct bool
}

// evalShape is what planEval needs to know of a problem.
type evalShape struct {
	loss                Loss
	n, npos, nneg, d, p int
}

func (p *Problem) shape() evalShape {
	return evalShape{p.Loss, p.N, len(p.pos), len(p.neg), p.D, p.P}
}

// Block sizes: pairs per sampled block (and the bias term's j's), pilot
// blocks, rows per streamed block of X.
const (
	sampleBlock = 1024
	pilotBlocks = 8
	streamBlock = 512
	metricTile  = 256
)

func log2f(x int) float64 { return math.Log2(math.Max(2, float64(x))) }

// costs returns the estimated times (per worker) of each method for m
// vectors: the pairwise objective and AUC, the sorted ones, the streamed
// exact objective, a sampled pair, and the exact bias term (streamed) and a
// sampled bias j.
type planCosts struct {
	pairwise, sorted, streamed, perPair, biasStream, perBiasJ float64
	// fast: the logistic objective by the fast sums and the AUC by
	// sorting, together (+Inf for the other losses); fastSerial the same
	// on one worker.
	fast, fastSerial float64
	pairwiseBytes    int64
}

func (sh evalShape) costs(m, workers int) planCosts {
	n, d := float64(sh.n), float64(sh.d)
	mf := float64(m)
	w := float64(min(max(workers, 1), max(m, 1)))
	var c planCosts
	if sh.loss.IsMetric() {
		c.pairwise = mf * (n*d*d*costGemm + n*n/2*d*costGemm + n*n/2*costMetricPr) / w
		// Per worker q, a tile of X·θs by transposed blocks, the tile's
		// row sums, θs and the bias's Ωs·x_k; Xᵀ and the labels; the θ
		// rows.
		c.pairwiseBytes = int64(workers)*(int64(sh.n)+int64(metricTile)*int64(sh.d)+metricTile+int64(sh.p)+int64(sh.d))*8 +
			int64(sh.n)*int64(sh.d+1)*8 + int64(m)*int64(sh.p)*8
		c.sorted = math.Inf(1)
		c.fast, c.fastSerial = math.Inf(1), math.Inf(1)
		c.streamed = c.pairwise
		c.perPair = (2*costGather + mf*(d*d*costGemm+d+costHinge)) / w
		c.biasStream = mf * n * (2*d*d + costHinge) / w
		c.perBiasJ = (costGather + mf*(2*d*d+costHinge)) / w
		return c
	}
	np, nn := float64(sh.npos), float64(sh.nneg)
	scores := mf * n * d * costScore
	loss, deriv, pair := float64(costHinge), float64(costHinge), float64(costPairHinge)
	if sh.loss == AUCLogistic {
		loss, deriv, pair = costSoftplus, costSigmoidCall, costPairLogit
	}
	c.pairwise = (scores + mf*np*nn*pair) / w
	c.pairwiseBytes = int64(m)*int64(sh.n)*8 + int64(workers)*3*int64(sh.n)*8 + int64(m)*int64(sh.p)*8
	c.sorted = (scores + mf*n*costSortKey) / w
	c.fast, c.fastSerial = math.Inf(1), math.Inf(1)
	if sh.loss == AUCLogistic {
		c.streamed = c.pairwise
		c.fast = c.sorted + mf*(n*costFastPoint+costFastFixed)/w
		c.fastSerial = c.fast * w
	} else {
		c.streamed = c.sorted
	}
	c.perPair = (2*costGather + 2*d + mf*(d*costGemm+loss)) / w
	c.biasStream = (nn*(d+1)*costScore + mf*nn*(d*costGemm+deriv)) / w
	c.perBiasJ = (costGather + mf*(d*costGemm+deriv)) / w
	return c
}

// planEval chooses the methods for m vectors (the automatic rule):
//
//  1. The pairwise method (today's, bit for bit) when its estimated time is
//     within the budget and its buffers within the memory budget.
//  2. Otherwise, for the hinge and squared-hinge losses, the sorted exact
//     form when its time is within the budget, and for the logistic loss
//     the fast sums (MethodExactFast, exact to their bound) with the AUC by
//     sorting when both fit; the AUC of every AUC loss likewise by sorting
//     when that fits beside what the objective takes.
//  3. Otherwise sampled, with as many pairs as the budget affords (at most
//     MaxPairs, at least the pilot).
//
// The bias term is the pairwise one with the pairwise method, else summed
// exactly over every j in blocks (streamed) when that fits in what is left
// of the budget and in a quarter of it, else sampled (at most
// maxBiasSamples j's and a quarter of the budget): never skipped.
//
// The budget covers the evaluator alone; the engine's passes over the whole
// state (mean θ̄, consensus, z̄: three reads of n·P values, most of a
// measurement at n = 10⁷ in BenchmarkMeasureLarge) come on top.
//
// Every time is one worker's: the choice, the sample sizes and so the
// trace never depend on the worker count (workers sizes the buffers only).
// A run on many workers measures faster than the budget says, never
// differently.
//
// EvalExact takes the pairwise method when its buffers fit, else the sorted
// or streamed forms; EvalSampled samples everything.
func planEval(sh evalShape, m, workers int, o EvalOptions) EvalPlan {
	c := sh.costs(m, 1)
	metric := sh.loss.IsMetric()
	hinge := sh.loss == AUCHinge || sh.loss == AUCSquaredHinge
	var pl EvalPlan
	left := o.Budget
	pairsFor := func(budget, per float64) int64 {
		b := int64(budget / per)
		b = min(b, o.MaxPairs) / sampleBlock * sampleBlock
		return max(b, pilotBlocks*sampleBlock)
	}
	switch o.Mode {
	case EvalSampled:
		pl.Obj, pl.AUC, pl.Bias = MethodSampled, MethodSampled, MethodSampled
	case EvalExact:
		switch {
		case c.pairwiseBytes <= o.MemBudget:
			pl.Obj, pl.AUC, pl.Bias = MethodPairwise, MethodPairwise, MethodPairwise
		case hinge:
			pl.Obj, pl.AUC, pl.Bias = MethodSorted, MethodSorted, MethodStreamed
		default:
			pl.Obj, pl.AUC, pl.Bias = MethodStreamed, MethodSorted, MethodStreamed
		}
	default:
		switch {
		case c.pairwise <= left && c.pairwiseBytes <= o.MemBudget:
			pl.Obj, pl.AUC, pl.Bias = MethodPairwise, MethodPairwise, MethodPairwise
			left -= c.pairwise
		case hinge && c.sorted <= left:
			pl.Obj, pl.AUC = MethodSorted, MethodSorted
			left -= c.sorted
		case c.fastSerial <= left:
			// Judged on one worker's time, so that the choice, and with it
			// the trace, is the same for any number of workers.
			pl.Obj, pl.AUC = MethodExactFast, MethodSorted
			left -= c.fast
		default:
			pl.Obj = MethodSampled
			// The sample may take up to a quarter of the budget; the AUC is
			// sorted if that fits in the rest.
			left -= o.Budget / 4
			if !metric && c.sorted <= left {
				pl.AUC = MethodSorted
				left -= c.sorted
			} else {
				pl.AUC = MethodSampled
			}
		}
		if pl.Obj != MethodPairwise {
			if c.biasStream <= math.Min(left, o.Budget/4) {
				pl.Bias = MethodStreamed
			} else {
				pl.Bias = MethodSampled
			}
		}
	}
	if metric {
		pl.AUC = MethodPairwise // there is no AUC: NaN
	}
	switch pl.Obj {
	case MethodPairwise:
		pl.Cost = c.pairwise
	case MethodSorted:
		pl.Cost = c.sorted
	case MethodStreamed:
		pl.Cost = c.streamed
	case MethodExactFast:
		pl.Cost = c.fast
	}
	if pl.Obj == MethodSampled || pl.AUC == MethodSampled {
		pl.MaxPairs = pairsFor(o.Budget/4, c.perPair)
		pl.Cost += float64(pl.MaxPairs) * c.perPair
		if pl.AUC == MethodSorted {
			pl.Cost += c.sorted
		}
	}
	switch pl.Bias {
	case MethodStreamed:
		pl.BiasCost = c.biasStream
	case MethodSampled:
		pl.BiasSamples = min(pairsFor(o.Budget/4, c.perBiasJ), maxBiasSamples)
		pl.BiasCost = float64(pl.BiasSamples) * c.perBiasJ
	}
	if m > 1 && !metric && o.Mode == EvalAuto && (pl.Obj == MethodSampled || pl.AUC == MethodSampled) {
		pl.Distinct = distinctExact(planEval(sh, 1, 1, o))
	}
	pl.Bytes = planBytes(sh, m, workers, pl, c)
	return pl
}

// distinctExact reports whether a plan for the distinct vectors of a
// measurement is one Estimate may take instead of the sampling plan: the
// objective by the sorted forms or the fast sums, the AUC by sorting (the
// buffers allocLarge adds for EvalPlan.Distinct).
func distinctExact(pl EvalPlan) bool {
	return (pl.Obj == MethodSorted || pl.Obj == MethodExactFast) && pl.AUC == MethodSorted
}

// planBytes is the memory of the buffers the plan needs.
func planBytes(sh evalShape, m, workers int, pl EvalPlan, c planCosts) int64 {
	if pl.Obj == MethodPairwise {
		return c.pairwiseBytes
	}
	w := int64(workers)
	n, d := int64(sh.n), int64(sh.d)
	b := int64(m)*int64(sh.p)*8 + int64(m)*8*4 // θ rows, per-vector results
	if pl.Obj == MethodExactFast || pl.Distinct && sh.loss == AUCLogistic {
		// Per worker the grid's moments, outputs and spectra at a few
		// thousand bins (the value alone keeps nothing per point).
		b += w * (5 << 20)
	}
	if pl.Obj == MethodSorted || pl.AUC == MethodSorted || pl.Obj == MethodStreamed || pl.Obj == MethodExactFast || pl.Distinct {
		if sh.loss.IsMetric() {
			// q, the tile's X·θs by transposed blocks and its row sums.
			b += w * (n + metricTile*d + metricTile) * 8
		} else {
			// keys of the scores, radix buffer, e^s (logistic), a block of scores.
			b += w * (n + max(int64(sh.npos), int64(sh.nneg)) + int64(sh.nneg) + streamBlock) * 8
		}
	}
	if pl.Obj == MethodSampled || pl.AUC == MethodSampled || pl.Bias != MethodPairwise {
		// Per worker a block of differences and one of products; per block
		// of the largest sample its per-vector sums.
		blocks := max(pl.MaxPairs, DefaultMaxPairs) / sampleBlock
		b += w*sampleBlock*(d+int64(max(m, sh.d)))*8 + blocks*int64(2*m+4)*8
	}
	return b
}

// EvalMemory returns the bytes of an evaluator for m vectors on a problem of
// n points (npos positive ones for the AUC losses) of dimension d, before
// building it (the run's memory estimate).
func EvalMemory(loss Loss, n, npos, d, m, workers int, o EvalOptions) int64 {
	sh := evalShape{loss, n, npos, n - npos, d, loss.ParamDim(d)}
	if loss.IsMetric() {
		sh.npos, sh.nneg = 0, 0
	}
	return planEval(sh, m, max(workers, 1), o.withDefaults()).Bytes
}
