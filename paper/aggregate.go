package paper

import (
	"bytes"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"math"
)

// F is shorthand for the JSON float (NaN and ±Inf become null).
type F = output.Float

// Point is one log-spaced measurement averaged over the runs of a setting.
// All runs of a setting share the schedule (equal Iters and LogPoints).
type Point struct {
	Iter             int64 `json:"iter"`
	GradEvals        F     `json:"grad_evals"`         // mean over runs: all gradient evaluations so far
	GradEvalsNonzero F     `json:"grad_evals_nonzero"` // mean over runs: the non-zero ones
	// Objective is the mean over runs of the mean over evaluated nodes of R_n(θ̄_k).
	Objective F `json:"objective"`
	// ObjectiveNodeStd is the mean over runs of the standard deviation of
	// R_n(θ̄_k) across the evaluated nodes (the band of the figures).
	ObjectiveNodeStd F `json:"objective_node_std"`
	// ObjectiveSeedStd is the standard deviation across runs of the node mean.
	ObjectiveSeedStd F `json:"objective_seed_std"`
	ObjectiveMin     F `json:"objective_min"` // mean over runs of the minimum over nodes
	ObjectiveMax     F `json:"objective_max"` // mean over runs of the maximum over nodes
	AUC              F `json:"auc"`
	Bias             F `json:"bias"`          // mean over runs of ε̄ᵀω
	BiasSeedStd      F `json:"bias_seed_std"` // its standard deviation across runs
	Consensus        F `json:"consensus"`
}

// aggregate averages the traces of the successful runs. It returns an error
// when their schedules differ.
func aggregate(runs []runResult) ([]Point, error) {
	var ok []runResult
	for _, r := range runs {
		if r.Err == "" && len(r.Trace) > 0 {
			ok = append(ok, r)
		}
	}
	if len(ok) == 0 {
		return nil, nil
	}
	m := len(ok[0].Trace)
	for _, r := range ok {
		if len(r.Trace) != m {
			return nil, fmt.Errorf("runs have different schedules (%d and %d points)", m, len(r.Trace))
		}
		for i := range r.Trace {
			if r.Trace[i].Iter != ok[0].Trace[i].Iter {
				return nil, fmt.Errorf("runs have different schedules at point %d", i)
			}
		}
	}
	out := make([]Point, m)
	R := float64(len(ok))
	for i := range out {
		var ge, gn, obj, nstd, omin, omax, auc, bias, cons float64
		for _, r := range ok {
			t := r.Trace[i]
			ge += float64(t.GradEvals)
			gn += float64(t.GradEvalsNonzero)
			obj += t.ObjMean
			nstd += t.ObjStd
			omin += t.ObjMin
			omax += t.ObjMax
			auc += t.AUCMean
			bias += t.Bias
			cons += t.Consensus
		}
		obj /= R
		bias /= R
		var so, sb float64
		for _, r := range ok {
			t := r.Trace[i]
			so += (t.ObjMean - obj) * (t.ObjMean - obj)
			sb += (t.Bias - bias) * (t.Bias - bias)
		}
		if len(ok) > 1 {
			so, sb = math.Sqrt(so/(R-1)), math.Sqrt(sb/(R-1))
		} else { // one run has no spread across runs: undefined, not 0 (empty in the CSV)
			so, sb = math.NaN(), math.NaN()
		}
		out[i] = Point{Iter: ok[0].Trace[i].Iter, GradEvals: F(ge / R), GradEvalsNonzero: F(gn / R),
			Objective: F(obj), ObjectiveNodeStd: F(nstd / R), ObjectiveSeedStd: F(so), ObjectiveMin: F(omin / R),
			ObjectiveMax: F(omax / R), AUC: F(auc / R), Bias: F(bias), BiasSeedStd: F(sb), Consensus: F(cons / R)}
	}
	return out, nil
}

// MeanCSVColumns are the columns of a setting's mean trace CSV.
var MeanCSVColumns = []string{"iter", "grad_evals", "grad_evals_nonzero", "objective_mean", "objective_node_std",
	"objective_seed_std", "objective_min", "objective_max", "auc_mean", "bias_mean", "bias_seed_std", "consensus", "runs"}

func meanCSV(pts []Point, runs int) []byte {
	var b bytes.Buffer
	for i, c := range MeanCSVColumns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	b.WriteByte('\n')
	g := func(v F) string { return output.CSVFloat(float64(v)) }
	for _, p := range pts {
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n", p.Iter, g(p.GradEvals), g(p.GradEvalsNonzero),
			g(p.Objective), g(p.ObjectiveNodeStd), g(p.ObjectiveSeedStd), g(p.ObjectiveMin), g(p.ObjectiveMax),
			g(p.AUC), g(p.Bias), g(p.BiasSeedStd), g(p.Consensus), runs)
	}
	return b.Bytes()
}

// crossing returns the abscissa at which the curve (xs, ys) first falls to
// level or below, interpolating linearly in (log x, log y) between the two
// log points around the crossing (linearly in x when the lower abscissa is
// not positive). ok is false when the curve never reaches level.
func crossing(xs, ys []float64, level float64) (x float64, ok bool) {
	for i := range ys {
		if !(ys[i] <= level) {
			continue
		}
		if i == 0 {
			return xs[0], true
		}
		x0, x1, y0, y1 := xs[i-1], xs[i], ys[i-1], ys[i]
		if !(y0 > 0 && y1 > 0 && level > 0) || y0 == y1 {
			return x1, true
		}
		f := (math.Log(level) - math.Log(y0)) / (math.Log(y1) - math.Log(y0))
		if x0 > 0 && x1 > 0 {
			return math.Exp(math.Log(x0) + f*(math.Log(x1)-math.Log(x0))), true
		}
		return x0 + f*(x1-x0), true
	}
	return math.NaN(), false
}

// interpAt returns y at abscissa x by linear interpolation in (log x, y)
// between the points around it (NaN outside the range).
func interpAt(xs, ys []float64, x float64) float64 {
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] && x >= xs[i-1] {
			if xs[i] == xs[i-1] || xs[i-1] <= 0 {
				return ys[i]
			}
			f := (math.Log(x) - math.Log(xs[i-1])) / (math.Log(xs[i]) - math.Log(xs[i-1]))
			return ys[i-1] + f*(ys[i]-ys[i-1])
		}
	}
	if len(xs) > 0 && x == xs[0] {
		return ys[0]
	}
	return math.NaN()
}

func column(pts []Point, f func(Point) float64) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = f(p)
	}
	return out
}

func iters(pts []Point) []float64 {
	return column(pts, func(p Point) float64 { return float64(p.Iter) })
}

func runColumn(r runResult, f func(i int) float64) []float64 {
	out := make([]float64, len(r.Trace))
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// meanStd returns the mean and sample standard deviation of vs.
func meanStd(vs []float64) (float64, float64) {
	if len(vs) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, v := range vs {
		s += v
	}
	m := s / float64(len(vs))
	if len(vs) == 1 {
		return m, 0
	}
	var ss float64
	for _, v := range vs {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(vs)-1))
}
