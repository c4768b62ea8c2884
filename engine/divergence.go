package engine

import (
	"fmt"
	"math"
)

// DivergenceError reports a non-finite value in the state: the iteration
// and node where it first appeared (Node −1: not known — a run over MPI ranks whose collective naming
// the node failed),
// and which variable.
type DivergenceError struct {
	Iter  int64
	Node  int
	Field string
	// Measured: found by the measurement at Iter (its objective was not
	// finite: MeasuredDivergence), not by the executor, which checks z (or
	// the margins) as it goes; θ̄ may have turned non-finite, or the
	// objective's terms overflowed, at an earlier iteration.
	Measured bool
}

// Error names the step size by its field, GammaC (of engine.Config and
// pairgossip.Config); Message names it otherwise (the command line: the
// flag --gamma-c).
func (e *DivergenceError) Error() string { return e.Message("GammaC") }

// Message is the error's message with the step size constant called step.
func (e *DivergenceError) Message(step string) string {
	if e.Node < 0 {
		// The run over MPI ranks (package ranks) agreed on the iteration
		// but not on the node.
		return fmt.Sprintf("divergence at iteration %d: %s is not finite at a node (the ranks did not agree on which; one process with the same flags names it) (reduce %s?)", e.Iter, e.Field, step)
	}
	if e.Measured {
		what := e.Field + " is not finite"
		switch e.Field {
		case "objective":
			what = "the objective overflows (θ̄'s values are finite but too large)"
		case userObjective:
			what = "the objective is not finite (the loss returned ±Inf, or θ̄'s values are too large)"
		}
		return fmt.Sprintf("divergence found by the measurement at iteration %d, node %d: %s (reduce %s?)", e.Iter, e.Node, what, step)
	}
	return fmt.Sprintf("divergence at iteration %d, node %d: %s is not finite (reduce %s?)", e.Iter, e.Node, e.Field, step)
}

// userObjective is the Field of a measured divergence whose objective is
// a user's (problem.Objective): its loss may return ±Inf itself.
const userObjective = "objective of the user's loss"

// MeasuredDivergence is the divergence that a measurement at iteration t
// reveals when its objective (rec.ObjMean) is not finite: the first of the
// measured nodes (rows, in their order) whose θ̄_k (bar(c), c its index in
// rows) is not finite, or else the first whose objective obj[c] is not
// finite. A built-in loss is finite wherever θ̄ is, so its infinite or NaN
// objective (Inf − Inf) is θ̄'s values overflowing; a user's loss (builtin
// false) may return ±Inf itself, which is reported as such, or NaN, which
// is its own fault and not a divergence: nil then, and the caller says so.
// Sim.RunWith calls it after each measurement, package ranks (built-in
// losses only) with the rows it gathered over the ranks, so that both name
// the same node.
func MeasuredDivergence(t int64, rec Record, rows []int, bar func(c int) []float64, obj []float64, builtin bool) *DivergenceError {
	if isFinite(rec.ObjMean) {
		return nil
	}
	for c, k := range rows {
		if !finite(bar(c)) {
			return &DivergenceError{Iter: t, Node: k, Field: "theta_bar", Measured: true}
		}
	}
	for c, k := range rows {
		switch {
		case builtin && !isFinite(obj[c]):
			return &DivergenceError{Iter: t, Node: k, Field: "objective", Measured: true}
		case !builtin && math.IsInf(obj[c], 0):
			return &DivergenceError{Iter: t, Node: k, Field: userObjective, Measured: true}
		}
	}
	return nil
}

// divergence is the one record of "where did the state first turn
// non-finite" that every executor keeps, per worker while workers run and
// reduced in a fixed order afterwards, so the report is the one the serial
// algorithm would give: the earliest iteration, and in it the lowest node.
// The zero value (t = 0) means none; field, when set, names the variable
// (otherwise it is read off the materialised state).
type divergence struct {
	t     int64
	node  int
	field string
}

func (d divergence) found() bool { return d.t > 0 }

// before reports whether d comes before o in the serial order (anything
// comes before none).
func (d divergence) before(o divergence) bool {
	return !o.found() || d.t < o.t || (d.t == o.t && d.node < o.node)
}

// note keeps (t, node) if it comes before what d holds.
func (d *divergence) note(t int64, node int, field string) {
	if b := (divergence{t, node, field}); b.before(*d) {
		*d = b
	}
}

// firstOf returns the earliest of the per-worker records and clears them.
func firstOf(ds []divergence) divergence {
	var first divergence
	for w, d := range ds {
		if d.found() && d.before(first) {
			first = d
		}
		ds[w] = divergence{}
	}
	return first
}

// finite reports whether every value of v is finite: x − x is 0 for a
// finite x and NaN otherwise, and a sum with a NaN in it is NaN. Four
// accumulators, so that the adds are four independent chains instead of
// one (a d×d row of metric learning is 1600 of them at d = 40).
func finite(v []float64) bool {
	var a0, a1, a2, a3 float64
	for ; len(v) >= 4; v = v[4:] {
		a0 += v[0] - v[0]
		a1 += v[1] - v[1]
		a2 += v[2] - v[2]
		a3 += v[3] - v[3]
	}
	for _, x := range v {
		a0 += x - x
	}
	return a0+a1+a2+a3 == 0
}

// isFinite reports whether v is neither ±Inf nor NaN.
// Not v−v == 0: when v is a product, arm64 fuses v−v into one FMSUB that
// returns the product's rounding error, so a finite v could fail the test.
func isFinite(v float64) bool { return math.Abs(v) <= math.MaxFloat64 }

// fieldOf names the first non-finite variable of a node.
func fieldOf(z, th []float64) string {
	if !finite(z) {
		return "z (dual variable)"
	}
	if !finite(th) {
		return "theta"
	}
	return "theta_bar"
}

// endIters is the one epilogue of every executor: it ends iterations
// from+1 … to (a round, a block of rounds, a window of events), each of
// per gradient evaluations, nonzero of them non-zero. On a divergence
// (first found: the executor's or its workers' earliest) the run ends at
// its iteration, counted up to it, and the error names it (Sim.advance
// names the field when the executor leaves it empty); otherwise the clock
// moves to to.
func (s *state) endIters(from, to, per, nonzero int64, first divergence) error {
	if first.found() {
		to = first.t
	}
	s.gradEvals += per * (to - from)
	s.nonzero += nonzero
	s.t = to
	if first.found() {
		return &DivergenceError{Iter: first.t, Node: first.node, Field: first.field}
	}
	return nil
}

// eventDivergence is the divergence of event t whose event function
// reported bad (−1: none).
func eventDivergence(t int64, bad int) divergence {
	if bad < 0 {
		return divergence{}
	}
	return divergence{t: t, node: bad}
}

// diverged moves the clock to the iteration of d and returns its error; the
// caller (Sim) materialises the state and names the field when d does not.
func (s *state) diverged(d divergence) error {
	s.t = d.t
	return &DivergenceError{Iter: d.t, Node: d.node, Field: d.field}
}
