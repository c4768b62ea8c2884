package engine

import (
	"math"
	"slices"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/problem"
)

// Record is one measurement of the run, at θ̄_k of the evaluated nodes
// (docs/design.md §3).
type Record struct {
	Iter             int64
	GradEvals        int64 // gradient evaluations so far
	GradEvalsNonzero int64 // of which non-zero
	// Objective R_n(θ̄_k) over the evaluated nodes.
	ObjMean, ObjStd, ObjMin, ObjMax float64
	// AUCMean is the mean AUC of θ̄_k (NaN for metric learning).
	AUCMean float64
	// Bias is ε̄ᵀω (paper Sec. 3): ε_k = ∇f(θ_k; x_k, y_k) − ∇f_k(θ_k), the
	// error of node k's gradient estimate at the current state, averaged over
	// the evaluated nodes; ω = π_t(z̄) with z̄ the mean dual variable. Zero
	// for Centralized (its estimates are unbiased).
	Bias float64
	// Consensus is the mean over all nodes of ‖θ̄_k − mean θ̄‖.
	Consensus float64
}

// autoEvalCost is the budget, in pair-loss evaluations per measurement, under
// which all nodes are measured when EvalNodes = 0.
const autoEvalCost = 8e6

// measurer evaluates a state: the evaluated nodes, the problem's batched
// evaluator and scratch allocated once.
type measurer struct {
	rows                        []int // the evaluated nodes, sorted
	eval                        *problem.Evaluator
	ws                          *problem.Workspace // for π_t(z̄)
	obj, auc, zbar, omega, mean []float64
	aux                         []int32
}

// evalCount is the number of nodes measured: EvalNodes, or all nodes when
// that costs under autoEvalCost pair-loss evaluations, else a sample.
func evalCount(p *problem.Problem, cfg Config, rows int) int {
	m := rows
	switch {
	case cfg.EvalNodes > 0:
		m = min(cfg.EvalNodes, rows)
	case cfg.EvalNodes == 0:
		per := float64(len(p.Positives())) * float64(len(p.Negatives()))
		if p.Loss.IsMetric() {
			per = float64(p.N) * float64(p.N) * float64(p.D) * 2
		}
		if float64(rows)*per > autoEvalCost {
			m = max(16, min(rows, int(autoEvalCost/per)))
		}
	}
	return m
}

// sampleRows returns m distinct nodes of [0, rows), seeded, sorted: the
// first m of a seeded permutation up to 2¹⁶ nodes (as every earlier version
// did, so the nodes measured at the paper's sizes stay the same), Floyd's
// sampling beyond (O(m) instead of a permutation of every node).
func sampleRows(seed uint64, rows, m int) []int {
	r := rng.New(seed, streamEval)
	var out []int
	if rows <= 1<<16 {
		perm := make([]int, rows)
		r.Perm(perm)
		out = slices.Clone(perm[:m])
	} else {
		seen := make(map[int]struct{}, m)
		out = make([]int, 0, m)
		for j := rows - m; j < rows; j++ {
			v := r.IntN(j + 1)
			if _, dup := seen[v]; dup {
				v = j
			}
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func newMeasurer(s *state, workers int, ws *problem.Workspace) *measurer {
	p, rows := s.prob, s.rows()
	m := evalCount(p, s.cfg, rows)
	ms := &measurer{ws: ws}
	if m == rows {
		ms.rows = make([]int, rows)
		for k := range ms.rows {
			ms.rows[k] = k
		}
	} else {
		ms.rows = sampleRows(s.cfg.Seed, rows, m)
	}
	ms.eval = p.NewEvaluator(m, workers)
	ms.obj = make([]float64, m)
	ms.auc = make([]float64, m)
	ms.zbar = make([]float64, p.P)
	ms.omega = make([]float64, p.P)
	ms.mean = make([]float64, p.P)
	ms.aux = make([]int32, rows)
	return ms
}

// measure evaluates s, whose Theta must be materialised. Every reduction
// runs in a fixed order, so the record is the same for any worker count.
func (ms *measurer) measure(s *state) Record {
	p := s.prob
	rows := s.rows()
	r := Record{Iter: s.t, GradEvals: s.gradEvals, GradEvalsNonzero: s.nonzero}
	obj, auc := ms.obj, ms.auc
	ms.eval.Eval(s.ThetaBar, ms.rows, obj, auc)
	r.ObjMin, r.ObjMax = math.Inf(1), math.Inf(-1)
	var sum, aucSum float64
	for c := range obj {
		sum += obj[c]
		aucSum += auc[c]
		r.ObjMin = math.Min(r.ObjMin, obj[c])
		r.ObjMax = math.Max(r.ObjMax, obj[c])
	}
	m := float64(len(obj))
	r.ObjMean = sum / m
	r.AUCMean = aucSum / m
	var ss float64
	for _, v := range obj {
		ss += float64((v - r.ObjMean) * (v - r.ObjMean))
	}
	r.ObjStd = math.Sqrt(ss / m)

	if s.cfg.Algorithm == Centralized {
		return r
	}
	// Consensus spread.
	mean := ms.mean
	clear(mean)
	for k := 0; k < rows; k++ {
		for a, v := range s.ThetaBar.Row(k) {
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(rows)
	}
	var spread float64
	for k := 0; k < rows; k++ {
		var d2 float64
		for a, v := range s.ThetaBar.Row(k) {
			d2 += float64((v - mean[a]) * (v - mean[a]))
		}
		spread += math.Sqrt(d2)
	}
	r.Consensus = spread / float64(rows)

	// Bias: ω = π_t(z̄), clock t (the event count for Async, whose m_k are
	// unbiased estimates of it).
	if s.t > 0 {
		zbar := ms.zbar
		clear(zbar)
		for k := 0; k < rows; k++ {
			for a, v := range s.Z.Row(k) {
				zbar[a] += v
			}
		}
		for a := range zbar {
			zbar[a] /= float64(rows)
		}
		tf := float64(s.t)
		p.Reg.Smooth(ms.omega, zbar, s.cfg.Gamma(tf), tf, ms.ws)
		for k := range ms.aux {
			ms.aux[k] = int32(s.aux(k, s.t+1))
		}
		r.Bias = ms.eval.Bias(s.Theta, ms.aux, ms.rows, ms.omega)
	}
	return r
}
