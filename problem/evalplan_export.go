package problem

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// What a measurement split over processes (package ranks, issue #17) needs
// to reproduce the Evaluator's sampled and streamed methods bit for bit
// without a Problem holding every row: the plan, the block sizes, the
// stream keys and the serial product.

// Sizes and keys of the sampled measurement (sampled.go, evalplan.go).
const (
	SampleBlock    = sampleBlock
	PilotBlocks    = pilotBlocks
	StreamSegments = streamSegments
	KeyFirst       = keyFirst
	KeySecond      = keySecond
	KeyBias        = keyBias
)

// PlanEval returns the plan an Evaluator for m vectors would choose on an
// AUC problem of n points, npos of them positive, of dimension d (the
// metric loss: npos is ignored), with the given workers and options.
func PlanEval(loss Loss, n, npos, d, m, workers int, o EvalOptions) EvalPlan {
	sh := evalShape{loss, n, npos, n - npos, d, loss.ParamDim(d)}
	if loss.IsMetric() {
		sh.npos, sh.nneg = 0, 0
	}
	return planEval(sh, m, max(workers, 1), o.withDefaults())
}

// DistinctExact reports whether pl, the plan for a measurement's distinct
// vectors on one worker, is one that replaces a sampling plan (see
// EvalPlan.Distinct): exact by the sorted forms or the fast sums, the AUC by
// sorting.
func DistinctExact(pl EvalPlan) bool { return distinctExact(pl) }

// EvalPrecision is the precision a sampled measurement with options o aims
// at (o.Precision, or DefaultPrecision).
func EvalPrecision(o EvalOptions) float64 { return o.withDefaults().Precision }

// GemmSerial sets c = a·op(b) exactly as the Evaluator does (gonum's serial
// kernel in pieces).
func GemmSerial(tB blas.Transpose, a, b, c blas64.General) { gemm(tB, a, b, c) }
