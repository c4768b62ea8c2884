package ranks

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/problem"
)

// The exact measurement methods over ranks: the pairwise one (small n),
// the sorted one (hinge losses, and the AUC of every AUC loss, at moderate
// n) and the streamed objective of the logistic loss (--measure exact).
// Each needs, for one evaluated vector, its n scores x_iᵀθ in one place.
// Every rank computes the scores of its own rows with the BLAS call the
// Evaluator uses (Gemm for the pairwise method, Gemv in blocks of
// problem.StreamBlock rows aligned as one process aligns them for the
// others: a score is a dot product of the row and θ, the same bits wherever
// it is computed), the vectors are dealt out round-robin, each vector's
// scores gathered (Gatherv) to the rank that owns it, which runs the
// Evaluator's own code on them (problem.ExactPairSums), and the per-vector
// results are gathered by every rank. A rank holds at most one vector's n
// scores (and its split into positives and negatives) at a time.

// maxExactN bounds n for the exact methods over ranks: one vector's scores
// are gathered to one rank (an MPI count, and 3·8·n bytes there).
const maxExactN = 1<<31 - 1

func checkExactOverRanks(n int, pl problem.EvalPlan) error {
	exact := pl.Obj != problem.MethodSampled || pl.AUC != problem.MethodSampled || pl.Bias == problem.MethodPairwise
	if exact && n > maxExactN {
		return fmt.Errorf("ranks: at n = %d the measurement would take the %s/%s/%s methods, whose exact parts gather a vector's n scores to one rank (at most %d): add --measure sampled",
			n, pl.Obj, pl.AUC, pl.Bias, maxExactN)
	}
	return nil
}

// localScores sets out (this rank's nl values) to x_kᵀθ for its rows, as
// the Evaluator's method computes them.
func (ms *measurer) localScores(theta []float64, pairwise bool, out []float64) {
	l := ms.l
	d, nl := l.d, l.hi-l.lo
	if nl == 0 {
		return
	}
	if pairwise {
		// scoresFor: Θ·Xᵀ, one element a dot product (k = d ≤ gonum's
		// block, so no split of the sum).
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: 1, Cols: d, Stride: d, Data: theta},
			blas64.General{Rows: nl, Cols: d, Stride: d, Data: l.x}, 0, blas64.General{Rows: 1, Cols: nl, Stride: nl, Data: out})
		return
	}
	// splitScores: Gemv over blocks of StreamBlock rows from 0; a rank's
	// first block starts at lo (a multiple of 64) so that every row keeps
	// its place in the kernel's groups of rows.
	SB := problem.StreamBlock
	for lo := l.lo; lo < l.hi; {
		hi := min(l.hi, (lo/SB+1)*SB)
		sub := blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: l.x[(lo-l.lo)*d:]}
		blas64.Gemv(blas.NoTrans, 1, sub, blas64.Vector{N: d, Inc: 1, Data: theta}, 0,
			blas64.Vector{N: hi - lo, Inc: 1, Data: out[lo-l.lo : hi-l.lo]})
		lo = hi
	}
}

// perVector runs fn on every evaluated vector c at the rank that owns it
// (c mod size) with the vector's n scores in index order (scores(c, out)
// sets this rank's part), and returns, on every rank, the width values fn
// wrote for each vector, in vector order. Once local.stop is set a rank
// runs fn no more (its vectors' values stay 0) but takes part in every
// collective, so that the ranks stay in step; it then votes to drop the
// measurement (Run's cut), and so do the others.
func (ms *measurer) perVector(m, width int, pairwise bool, theta func(c int) []float64, fn func(c int, all []float64, res []float64)) ([]float64, error) {
	l := ms.l
	size, me := l.comm.Size(), l.comm.Rank()
	counts := make([]int, size)
	for q := 0; q < size; q++ {
		lo, hi := partition(l.n, size, q)
		counts[q] = hi - lo
	}
	local := make([]float64, l.hi-l.lo)
	var all []float64
	var mine []float64
	res := make([]float64, width)
	for c := 0; c < m; c++ {
		owner := c % size
		if owner == me && all == nil {
			all = make([]float64, l.n)
		}
		ms.localScores(theta(c), pairwise, local)
		var recv []float64
		if owner == me {
			recv = all
		}
		if err := l.comm.GathervFloat64(local, counts, recv, owner); err != nil {
			return nil, err
		}
		if owner == me {
			clear(res)
			if l.stop.Load() {
				l.cuts++
			} else {
				fn(c, all, res)
			}
			mine = append(mine, res...)
		}
	}
	// Every rank's results, then in vector order.
	for q := 0; q < size; q++ {
		counts[q] = 0
		for c := q; c < m; c += size {
			counts[q] += width
		}
	}
	got := make([]float64, m*width)
	if err := l.comm.AllgathervFloat64(mine, counts, got); err != nil {
		return nil, err
	}
	out := make([]float64, m*width)
	off := mpi.Offsets(counts)
	for q := 0; q < size; q++ {
		x := off[q]
		for c := q; c < m; c += size {
			copy(out[c*width:(c+1)*width], got[x:x+width])
			x += width
		}
	}
	return out, nil
}

// split copies the scores of the positives and of the negatives, each in
// index order, into pos and neg.
func (ms *measurer) split(all, pos, neg []float64) {
	ip, in := 0, 0
	lb := &ms.l.labels
	for k, v := range all {
		if lb.at(k) == 1 {
			pos[ip] = v
			ip++
		} else {
			neg[in] = v
			in++
		}
	}
}

// exact sets obj (when wantObj) and auc (when wantAUC) of the vectors bars
// (len(obj) rows of P) by the exact methods objM and aucM.
func (ms *measurer) exact(bars, obj, auc []float64, objM, aucM problem.EvalMethod, wantObj, wantAUC bool) error {
	l := ms.l
	P, m := l.P, len(obj)
	method := objM
	if !wantObj {
		method = aucM
	}
	pairwise := method == problem.MethodPairwise
	npos := l.labels.npos
	pos, neg := make([]float64, npos), make([]float64, l.n-npos)
	res, err := ms.perVector(m, 2, pairwise, func(c int) []float64 { return bars[c*P : (c+1)*P] }, func(c int, all, r []float64) {
		ms.split(all, pos, neg)
		// The O(n₊n₋) sums look at local.stop between pieces: a cut
		// leaves them partial, and the measurement is dropped.
		r[0], r[1] = problem.ExactPairSums(l.loss, method, pos, neg, wantObj, wantAUC, &l.stop)
	})
	if err != nil {
		return err
	}
	n2 := float64(l.n) * float64(l.n)
	for c := 0; c < m; c++ {
		if wantObj {
			obj[c] = res[2*c]/n2 + l.reg.Value(bars[c*P:(c+1)*P])
		}
		if wantAUC {
			auc[c] = res[2*c+1]
		}
	}
	return nil
}

// biasPairwise is the Evaluator's biasPairwise for the AUC losses: th holds
// θ_k and y_k of each evaluated node (width P+1), omega is π_t(z̄).
func (ms *measurer) biasPairwise(th, omega []float64) (problem.BiasEstimate, error) {
	l := ms.l
	res := problem.BiasEstimate{Method: problem.MethodPairwise}
	m, P, d := len(ms.rows), l.P, l.d
	if m == 0 {
		return res, nil
	}
	// r = Xω, every row (one Gemv over the rank's rows; lo is a multiple
	// of 64, so every row keeps its place in the kernel's groups).
	nl := l.hi - l.lo
	rl := make([]float64, nl)
	if nl > 0 {
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: nl, Cols: d, Stride: d, Data: l.x}, blas64.Vector{N: d, Inc: 1, Data: omega}, 0,
			blas64.Vector{N: nl, Inc: 1, Data: rl})
	}
	size := l.comm.Size()
	counts := make([]int, size)
	for q := 0; q < size; q++ {
		lo, hi := partition(l.n, size, q)
		counts[q] = hi - lo
	}
	r := make([]float64, l.n)
	if err := l.comm.AllgathervFloat64(rl, counts, r); err != nil {
		return res, err
	}
	invN := 1 / float64(l.n)
	lb := &l.labels
	per, err := ms.perVector(m, 1, true, func(c int) []float64 { return th[c*(P+1) : c*(P+1)+P] }, func(c int, s, out []float64) {
		k := ms.rows[c]
		if lb.at(k) != 1 {
			return // ε_k = 0 for a negative node
		}
		var full float64
		for j := range s {
			if lb.at(j) == -1 {
				full += float64(l.loss.MarginDeriv(s[k]-s[j]) * (r[k] - r[j]))
			}
		}
		var est float64
		if j := int(th[c*(P+1)+P]); lb.at(j) == -1 {
			est = l.loss.MarginDeriv(s[k]-s[j]) * (r[k] - r[j])
		}
		out[0] = est - float64(full*invN)
	})
	if err != nil {
		return res, err
	}
	var sum float64
	for _, v := range per {
		sum += v
	}
	res.Value = sum / float64(m)
	return res, nil
}
