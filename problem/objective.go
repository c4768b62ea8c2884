package problem

import (
	"fmt"
	"math"
	"slices"

	"github.com/pairgossip/pairgossip/internal/guard"
	"github.com/pairgossip/pairgossip/layout"
)

// A pairwise objective the engine does not know (issue #20).
//
// Objective is what a program implements to run its own pairwise loss
// f(θ; x_i, x_j) through every algorithm: the shape of θ, whether a pair
// contributes, the loss of one pair and its (sub)gradient added into a
// buffer, and a name and parameters for the run's identity. The engine calls
// these methods; it never looks inside. Pairwise is the same as a struct of
// functions (the style of gonum's optimize.Problem{Func, Grad}).
//
// A Problem built with NewObjective has Loss == Custom and routes PairLoss,
// PairGrad, the measurement (exact and sampled objective, bias term), the
// centralized optimum and the checkpoints' identity through its Objective.
// The built-in losses are instances of the interface too (Builtin): they
// keep their specialised paths (SIMD kernels, the reduced schedule, the
// rank-one cone), chosen when they apply.
//
// Rounding: the engine's generic executors call Grad on the node's current
// θ exactly where the reference executor calls PairGrad, so a user copy of
// a built-in loss that does the same arithmetic gives the same bits.
//
// Concurrency. The engine calls Contributes, Loss and Grad (and Score and
// SmoothLoss, when implemented) from several goroutines at once: the
// workers of the run (engine.Config.Workers), of the measurement (the
// Evaluator's workers) and of the centralized solver
// (OptimumOptions.Workers). Each call gets arguments of its own: g and theta
// are never shared by two calls in flight (xi and xj, rows of the data, are
// read-only and may be). An implementation must therefore not write state
// that outlives the call — no scratch buffer in the receiver, no counter,
// no cache — unless it synchronises it itself (a sync.Pool of buffers is
// safe and allocates nothing once warm); a loss that keeps a scratch buffer
// in its receiver races, and its results are undefined. In return the
// results do not depend on the number of workers: the same seed gives the
// same bits for any worker count. With one worker (Workers = 1 in each of
// the three) every call is made by one goroutine at a time, so a loss that
// cannot be made safe still runs correctly, serially.
//
// Fast sums. An Objective whose pair loss is 1{ℓ_i > ℓ_j} φ((x_i − x_j)ᵀθ)
// with φ a built-in AUC surrogate may say so by implementing
// ScoreDifference (levels.go): with the logistic or squared hinge its
// centralized optimum is then solved on the fast pair sums at any n, level
// by level (the declaration is checked against Contributes once, when the
// problem is built).
//
// Panics. A panic in one of these methods, on whatever goroutine, does not
// kill the process: the run stops and engine.Sim.Run, Problem.Solve and
// pairgossip's Execute return a *PanicError naming the user function, the
// panic's value and an excerpt of the stack.
type Objective interface {
	// Info describes the objective: name, parameters, shape of θ, smoothness.
	Info() ObjectiveInfo
	// Contributes reports whether a pair of points with labels li, lj can
	// have a non-zero loss (AUC: li > lj). Loss and Grad are only called for
	// contributing pairs, so sparse label structure stays cheap.
	Contributes(li, lj int32) bool
	// Loss returns f(θ; x_i, x_j) for the points of indices i and j, whose
	// rows are xi and xj (the indices let a loss read per-point data of its
	// own, such as real-valued targets).
	Loss(theta, xi, xj []float64, i, j int) float64
	// Grad adds w·∇_θ f(θ; x_i, x_j) (a subgradient where f is not
	// differentiable) to g and reports whether it added anything non-zero.
	// It must not allocate: it runs once per node per round.
	Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool
}

// ObjectiveInfo describes an Objective.
type ObjectiveInfo struct {
	// Name identifies the loss (it names the run's problem and is part of a
	// checkpoint's identity); Params its parameters, as text, also part of
	// the identity (a resumed run with another loss or other parameters is
	// refused).
	Name, Params string
	// Matrix: θ is a d×d matrix, row-major (P = d²); otherwise θ is a
	// vector of P (P = 0 means d).
	Matrix bool
	P      int
	// Smooth: f is differentiable in θ, so the centralized optimum is
	// solved with L-BFGS (for ψ = none or l2); otherwise with a proximal
	// method (see SolveObjective).
	Smooth bool
}

// ParamDim is the dimension of θ for data of dimension d.
func (in ObjectiveInfo) ParamDim(d int) int {
	switch {
	case in.Matrix:
		return d * d
	case in.P > 0:
		return in.P
	}
	return d
}

// Scorer is implemented by an Objective whose θ scores points (ranking):
// the measurement then reports, in the AUC column, the pairwise ranking
// accuracy (C-index) of the scores over the pairs with different labels,
// which is the AUC when there are two labels.
type Scorer interface {
	Score(theta, x []float64) float64
}

// HuberSmoother is implemented by a non-smooth Objective whose
// non-differentiable part is a hinge [v]₊: SmoothLoss returns the loss with
// the hinge Huber-smoothed by mu (mu = 0: the exact loss) and adds w times
// its gradient to g (g may be nil). The centralized solver then decreases
// mu to OptimumOptions.FinalMu, as it does for the built-in hinge losses.
type HuberSmoother interface {
	SmoothLoss(g []float64, w float64, theta, xi, xj []float64, i, j int, mu float64) float64
}

// Pairwise is an Objective given as functions, in the style of
// gonum/optimize.Problem: Func is f of one pair, GradFunc adds w·∇f into g;
// both are required (NewObjective refuses a Pairwise without one). Contrib
// may be nil (every pair contributes). The functions are called as
// Objective's methods are, from several goroutines at once (see Objective:
// they must not share mutable state).
type Pairwise struct {
	Name, Params string
	Matrix       bool
	P            int
	Smooth       bool
	Contrib      func(li, lj int32) bool
	Func         func(theta, xi, xj []float64, i, j int) float64
	GradFunc     func(g []float64, w float64, theta, xi, xj []float64, i, j int) bool
}

// Info implements Objective.
func (f *Pairwise) Info() ObjectiveInfo {
	return ObjectiveInfo{Name: f.Name, Params: f.Params, Matrix: f.Matrix, P: f.P, Smooth: f.Smooth}
}

// Contributes implements Objective.
func (f *Pairwise) Contributes(li, lj int32) bool { return f.Contrib == nil || f.Contrib(li, lj) }

// Loss implements Objective.
func (f *Pairwise) Loss(theta, xi, xj []float64, i, j int) float64 {
	return f.Func(theta, xi, xj, i, j)
}

// Grad implements Objective.
func (f *Pairwise) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	return f.GradFunc(g, w, theta, xi, xj, i, j)
}

// PanicError is a panic of a user objective's method, recovered by the
// library and returned as an error (see Objective): Func names the user
// function, Value is the panic's value and Stack an excerpt of the stack
// where it happened.
type PanicError = guard.PanicError

// Custom is the Loss of a Problem built with NewObjective: the loss is
// Problem.Obj.
const Custom Loss = 100

// NewObjective builds a problem from a user objective, dense row-major
// data x (n×d, copied) and labels (any int32 values; the objective's
// Contributes gives them their meaning).
func NewObjective(obj Objective, reg Regularizer, n, d int, x []float64, labels []int32) (*Problem, error) {
	return newObjectiveProblem(obj, reg, n, d, x, labels, false)
}

// NewObjectiveShared is NewObjective reading x in place where its layout
// allows (see NewShared).
func NewObjectiveShared(obj Objective, reg Regularizer, n, d int, x []float64, labels []int32) (*Problem, error) {
	return newObjectiveProblem(obj, reg, n, d, x, labels, true)
}

func newObjectiveProblem(obj Objective, reg Regularizer, n, d int, x []float64, labels []int32, share bool) (_ *Problem, err error) {
	if err := CheckObjective(obj); err != nil {
		return nil, err
	}
	defer guard.Recover(&err) // Info and Contributes are user code
	in := obj.Info()
	if err := checkData(n, d, x, labels); err != nil {
		return nil, err
	}
	if reg.Kind == RegPSD {
		if !in.Matrix {
			return nil, fmt.Errorf("problem: the psd regulariser needs a matrix parameter, and %s's θ is a vector", in.Name)
		}
		reg.D = d
	}
	if err := reg.Validate(); err != nil {
		return nil, fmt.Errorf("problem: %w", err)
	}
	p := &Problem{Loss: Custom, Obj: obj, Reg: reg, N: n, D: d, P: in.ParamDim(d), Label: slices.Clone(labels)}
	if p.levels, err = scoreDifferenceLevels(obj, in, d, labels); err != nil {
		return nil, err
	}
	if share {
		p.X, _ = layout.Adopt(n, d, x)
	} else {
		p.X = layout.FromDense(n, d, x)
	}
	any := false
	for i := 0; i < n && !any; i++ {
		for j := 0; j < n; j++ {
			if obj.Contributes(labels[i], labels[j]) {
				any = true
				break
			}
		}
		if i > 64 && !any {
			break
		}
	}
	if !any {
		// A cheap check on the first labels only: a problem where no pair
		// contributes has a constant objective.
		first := labels[0]
		for _, l := range labels {
			if obj.Contributes(first, l) || obj.Contributes(l, first) {
				any = true
				break
			}
		}
		if !any {
			return nil, fmt.Errorf("problem: no pair of points contributes to %s with these labels", in.Name)
		}
	}
	return p, nil
}

// CheckObjective reports what makes obj unusable before any of its methods
// is called for a pair: a nil objective, a Pairwise (nil, or without its Func
// or GradFunc), an empty name (ObjectiveInfo.Name), a negative
// ObjectiveInfo.P. A panic of Info is returned as a *PanicError.
func CheckObjective(obj Objective) (err error) {
	if obj == nil {
		return fmt.Errorf("problem: nil objective")
	}
	if pw, ok := obj.(*Pairwise); ok {
		switch {
		case pw == nil:
			return fmt.Errorf("problem: nil *Pairwise objective")
		case pw.Func == nil && pw.GradFunc == nil:
			return fmt.Errorf("problem: Pairwise %q has neither Func (the loss of a pair) nor GradFunc (its gradient)", pw.Name)
		case pw.Func == nil:
			return fmt.Errorf("problem: Pairwise %q has no Func (the loss of a pair)", pw.Name)
		case pw.GradFunc == nil:
			return fmt.Errorf("problem: Pairwise %q has no GradFunc (the gradient of a pair's loss)", pw.Name)
		}
	}
	defer guard.Recover(&err)
	in := obj.Info()
	if in.Name == "" {
		return fmt.Errorf("problem: the objective has no name (ObjectiveInfo.Name)")
	}
	if in.P < 0 {
		return fmt.Errorf("problem: %s: ObjectiveInfo.P must be >= 0 (0: θ has the data's dimension), got %d", in.Name, in.P)
	}
	return nil
}

// ObjectiveID is the objective's part of a run's identity: name and
// parameters ("" for the built-in losses, whose Loss says it).
func (p *Problem) ObjectiveID() string {
	if p.Obj == nil {
		return ""
	}
	in := p.Obj.Info()
	return in.Name + "(" + in.Params + ")"
}

// Name is the problem's loss name: the objective's for a custom one.
func (p *Problem) Name() string {
	if p.Obj != nil {
		return p.Obj.Info().Name
	}
	return p.Loss.String()
}

// AsObjective returns the problem's loss as an Objective: the user's, or the
// built-in loss as an instance of the interface (Builtin).
func (p *Problem) AsObjective() Objective {
	if p.Obj != nil {
		return p.Obj
	}
	return Builtin(p.Loss, p.B, p.Label)
}

// Builtin returns a built-in loss as an Objective, with the same arithmetic
// as Problem.PairLoss and PairGrad (b is the metric threshold; labels are
// the points' labels, which the metric loss's s_ij reads by index). The
// engine runs the built-ins on their specialised paths; this form is what
// a program that wants to treat every loss alike uses.
func Builtin(l Loss, b float64, labels []int32) Objective { return builtinObjective{l, b, labels} }

type builtinObjective struct {
	l      Loss
	b      float64
	labels []int32
}

func (o builtinObjective) Info() ObjectiveInfo {
	params := ""
	if o.l.IsMetric() {
		params = fmt.Sprintf("b=%g", o.b)
	}
	return ObjectiveInfo{Name: o.l.String(), Params: params, Matrix: o.l.IsMetric(), Smooth: o.l.Smooth()}
}

func (o builtinObjective) Contributes(li, lj int32) bool { return o.l.IsMetric() || li > lj }

func (o builtinObjective) sign(i, j int) float64 {
	if o.labels[i] == o.labels[j] {
		return 1
	}
	return -1
}

func (o builtinObjective) Loss(theta, xi, xj []float64, i, j int) float64 {
	if o.l.IsMetric() {
		return math.Max(0, 1-float64(o.sign(i, j)*(o.b-dist(theta, xi, xj))))
	}
	return o.l.MarginLoss(margin(theta, xi, xj))
}

func (o builtinObjective) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	if o.l.IsMetric() {
		s := o.sign(i, j)
		if s*(o.b-dist(theta, xi, xj)) >= 1 {
			return false
		}
		AddOuterDiff(g, w*s, xi, xj)
		return w*s != 0
	}
	w *= o.l.MarginDeriv(margin(theta, xi, xj))
	if w == 0 {
		return false
	}
	AddScaledDiff(g, w, xi, xj)
	return true
}

// dist is Problem.Dist with d = len(xi).
func dist(theta, xi, xj []float64) float64 {
	d := len(xi)
	var s float64
	for a := 0; a < d; a++ {
		da := xi[a] - xj[a]
		if da == 0 {
			continue
		}
		row := theta[a*d : a*d+d]
		var r float64
		for c := range row {
			r += float64(row[c] * (xi[c] - xj[c]))
		}
		s += float64(da * r)
	}
	return s
}

// Margin returns (x_i − x_j)ᵀθ with the engine's rounding (each product
// rounded on its own, no FMA): what a user loss that should match a
// built-in bit for bit computes its margin with.
func Margin(theta, xi, xj []float64) float64 { return margin(theta, xi, xj) }

// AddScaledDiff adds w·(x_i − x_j) to g with the engine's rounding.
func AddScaledDiff(g []float64, w float64, xi, xj []float64) {
	xj = xj[:len(xi)]
	g = g[:len(xi)]
	for a := range xi {
		g[a] += float64(w * (xi[a] - xj[a]))
	}
}
