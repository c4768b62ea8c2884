package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/pairgossip/pairgossip/network"
)

// Algorithm selects the method.
type Algorithm int

const (
	// Sync is Algorithm 2: every node takes a dual-averaging step each round.
	Sync Algorithm = iota
	// Async is Algorithm 3: only the two endpoints of the drawn edge update,
	// each on its own clock.
	Async
	// Centralized is Algorithm 1, the reference with all data in one place.
	Centralized
)

// AlgorithmNames lists the accepted names.
var AlgorithmNames = []string{"sync", "async", "centralized"}

func (a Algorithm) String() string {
	if int(a) >= 0 && int(a) < len(AlgorithmNames) {
		return AlgorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// ParseAlgorithm maps a name to an Algorithm.
func ParseAlgorithm(s string) (Algorithm, error) {
	switch strings.ToLower(s) {
	case "sync", "synchronous":
		return Sync, nil
	case "async", "asynchronous":
		return Async, nil
	case "centralized", "centralised", "central":
		return Centralized, nil
	}
	return 0, fmt.Errorf("unknown algorithm %q (valid: %s)", s, strings.Join(AlgorithmNames, ", "))
}

// Estimator selects how a node picks the second point of its gradient.
type Estimator int

const (
	// Gossip uses the propagated auxiliary observation y_k (the paper's method).
	Gossip Estimator = iota
	// Unbiased uses x_j with j uniform in [n], drawn afresh at each use (the
	// paper's idealised baseline).
	Unbiased
)

// EstimatorNames lists the accepted names.
var EstimatorNames = []string{"gossip", "unbiased"}

func (e Estimator) String() string {
	if int(e) >= 0 && int(e) < len(EstimatorNames) {
		return EstimatorNames[e]
	}
	return fmt.Sprintf("Estimator(%d)", int(e))
}

// ParseEstimator maps a name to an Estimator ("none" means gossip).
func ParseEstimator(s string) (Estimator, error) {
	switch strings.ToLower(s) {
	case "gossip", "none", "":
		return Gossip, nil
	case "unbiased":
		return Unbiased, nil
	}
	return 0, fmt.Errorf("unknown baseline %q (valid: %s)", s, strings.Join(EstimatorNames, ", "))
}

// Config holds the algorithm's parameters.
type Config struct {
	Algorithm Algorithm
	Estimator Estimator
	// Iters is T: rounds (Sync), events (Async) or steps (Centralized).
	Iters int64
	// GammaC and GammaAlpha give the step size γ(t) = c / t^(1/2+α).
	GammaC, GammaAlpha float64
	Seed               uint64
	// Workers for the synchronous round and the measurements (0: GOMAXPROCS).
	Workers int
	// LogPoints is the number of log-spaced iterations measured (the last
	// iteration is always one); 0 means 30.
	LogPoints int
	// Schedule is auto (default, also ""), plain, blocked, reduced or
	// reference: see Schedule and the executor table (executor.go). For the
	// synchronous algorithm with the gossip estimator, auto is the reduced
	// schedule (exec_reduced.go for AUC, exec_cone.go for metric learning
	// unless ExactPSD is set).
	Schedule Schedule
	// ExactPSD recomputes every node's PSD projection every synchronous
	// round (reference schedule), instead of reusing the projection of a node
	// whose z did not change (θ_k(t) = γ(t)·Proj(−z_k), exact in real
	// arithmetic because the cone is invariant under positive scaling).
	ExactPSD bool
	// Pin pins the workers of the synchronous pool and of the parallel
	// asynchronous executor to CPUs, one each, for the run (package
	// affinity); a no-op where it cannot help (Sim.Pinned says why). It never
	// changes results.
	Pin bool
	// EvalNodes is the number of nodes whose θ̄_k the objective, AUC and bias
	// are measured at: 0 picks automatically (all nodes when that is cheap,
	// else a seeded sample), a negative value means all nodes.
	EvalNodes int
	// Measure is how the objective, AUC and bias are measured at those
	// nodes: auto (the default: exactly while that is affordable, else by
	// sorting or by sampling pairs, problem/evalplan.go), exact or sampled.
	Measure MeasureMode
	// MeasurePrecision is the relative standard error a sampled measurement
	// aims at (0: 0.01, problem.DefaultPrecision).
	MeasurePrecision float64
	// StopChecks adds measurements between the log-spaced ones, at
	// iterations no more than StopCheckRatio apart (CheckSchedule), for a run
	// that stops at the first measurement meeting a target
	// (RunOptions.Stop): a target reached between two log points is then
	// seen at most that factor late. It changes the trace, never the state.
	StopChecks bool
	// Network is the network model (docs/networks.md): message loss,
	// churn, delays (Async), graph schedules and link failures, a recorded
	// edge stream, activation models. The zero value is the paper's
	// network, today's run bit for bit. Not for Centralized.
	Network network.Model
	// EdgeSink, if not nil, is given every activation in order of t
	// (--write-edges; see EdgeSink). Like a network model, it restricts
	// the run to the executors that draw through the network hook
	// (network.go): with the paper's network a synchronous AUC run then
	// takes the plain schedule instead of the reduced one (the same run up
	// to rounding).
	EdgeSink EdgeSink
}

// StopCheckRatio bounds the ratio of two consecutive measured iterations
// when Config.StopChecks is set: a run stopping at a target stops at most
// ×1.1 past the first iteration whose measurement would meet it (while the
// measured objective stays below the target from there on).
const StopCheckRatio = 1.1

// CheckSchedule returns the iterations measured by a run with
// Config.StopChecks: the log-spaced ones (LogSchedule) and, between them,
// every t_{j+1} = max(t_j + 1, ⌊t_j·StopCheckRatio⌋) from 1, so that two
// consecutive measured iterations differ by at most StopCheckRatio (or by
// one). ln(T)/ln(1.1) + 10 of them at most besides the log points: about
// 160 at T = 3·10⁶.
func CheckSchedule(T int64, points int) []int64 {
	log := LogSchedule(T, points)
	out := make([]int64, 0, len(log)+int(math.Log(float64(max(T, 1)))/math.Log(StopCheckRatio))+16)
	i := 0
	for t := int64(1); t <= T; {
		for i < len(log) && log[i] < t {
			out = appendNew(out, log[i])
			i++
		}
		out = appendNew(out, t)
		t = max(t+1, int64(float64(t)*StopCheckRatio))
	}
	for ; i < len(log); i++ {
		out = appendNew(out, log[i])
	}
	return out
}

func appendNew(s []int64, v int64) []int64 {
	if len(s) > 0 && s[len(s)-1] >= v {
		return s
	}
	return append(s, v)
}

// schedule returns the iterations a run with this configuration measures.
func (c Config) schedule() []int64 {
	if c.StopChecks {
		return CheckSchedule(c.Iters, c.LogPoints)
	}
	return LogSchedule(c.Iters, c.LogPoints)
}

// Validate checks the configuration on its own.
func (c Config) Validate() error {
	if c.Iters <= 0 {
		return fmt.Errorf("iterations must be >= 1, got %d", c.Iters)
	}
	if !(c.GammaC > 0) || math.IsInf(c.GammaC, 0) {
		return fmt.Errorf("step size constant c must be finite and > 0, got %g", c.GammaC)
	}
	if math.IsNaN(c.GammaAlpha) || c.GammaAlpha < 0 || c.GammaAlpha >= 0.5 {
		return fmt.Errorf("step size exponent alpha must be in [0, 0.5), got %g", c.GammaAlpha)
	}
	if c.Algorithm == Centralized && c.Estimator == Unbiased {
		return fmt.Errorf("the unbiased baseline applies to the gossip algorithms (sync, async), not centralized")
	}
	if c.Workers < 0 || c.LogPoints < 0 {
		return fmt.Errorf("workers and log points must be >= 0")
	}
	if c.Measure < MeasureAuto || c.Measure > MeasureSampled {
		return fmt.Errorf("unknown measurement mode %d", int(c.Measure))
	}
	if math.IsNaN(c.MeasurePrecision) || math.IsInf(c.MeasurePrecision, 0) || c.MeasurePrecision < 0 {
		return fmt.Errorf("measurement precision must be finite and >= 0, got %g", c.MeasurePrecision)
	}
	return c.checkNetwork()
}

// Gamma returns γ(t) = c / t^(1/2+α).
func (c Config) Gamma(t float64) float64 {
	if c.GammaAlpha == 0 {
		return c.GammaC / math.Sqrt(t)
	}
	return c.GammaC / math.Pow(t, 0.5+c.GammaAlpha)
}

// LogSchedule returns min(points, T) distinct iterations in [1, T], spaced
// evenly in log t and always including T: where two log-spaced values round
// to the same iteration (early on), the later one moves to the next
// iteration, so a run measures as many times as it was asked to.
func LogSchedule(T int64, points int) []int64 {
	if points <= 0 {
		points = 30
	}
	if T < 1 {
		return nil
	}
	out := make([]int64, 0, min(int64(points), T))
	lt := math.Log(float64(T))
	for i := 0; i < points; i++ {
		var v int64
		if points == 1 {
			v = T
		} else {
			v = int64(math.Round(math.Exp(lt * float64(i) / float64(points-1))))
		}
		v = max(1, min(v, T))
		if len(out) > 0 && v <= out[len(out)-1] {
			v = out[len(out)-1] + 1
		}
		if v > T {
			break
		}
		out = append(out, v)
	}
	if out[len(out)-1] != T {
		out[len(out)-1] = T
	}
	return out
}
