package pairgossip

import (
	"fmt"
	"math"
	"os"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/sysprobe"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// MemoryEstimate is the memory a run needs, by part, in bytes.
type MemoryEstimate struct {
	State, Graph, Measure, Solver int64
	// Network is the network model's own memory: a schedule's graphs and
	// tables, the churn's cursors or session file, a replayed stream (the
	// engine's per-node arrays and the delay queue are in State).
	Network int64
}

// Total is the sum of the parts.
func (m MemoryEstimate) Total() int64 { return m.State + m.Graph + m.Measure + m.Solver + m.Network }

func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

func (m MemoryEstimate) String() string {
	net := ""
	if m.Network > 0 {
		net = ", network " + gib(m.Network)
	}
	return fmt.Sprintf("%s (state %s, graph %s%s, measurement %s, optimum solver %s)",
		gib(m.Total()), gib(m.State), gib(m.Graph), net, gib(m.Measure), gib(m.Solver))
}

// estimateEdges bounds the number of undirected edges the graph will have,
// before building it.
func estimateEdges(cfg Config, n int) float64 {
	nf := float64(n)
	switch cfg.Graph {
	case "complete":
		return nf * (nf - 1) / 2
	case "cycle", "star", "path":
		return nf
	case "watts-strogatz":
		return nf * float64(max(cfg.GraphK, 2)/2)
	case "erdos-renyi":
		return cfg.GraphP * nf * (nf - 1) / 2
	case "grid", "torus":
		return 2 * nf
	case "geometric":
		r := cfg.GraphR
		if r <= 0 {
			r = 1.5 * math.Sqrt(math.Log(nf)/(math.Pi*nf))
		}
		return math.Min(nf*(nf-1)/2, nf*nf*math.Pi*r*r/2)
	case "file":
		if st, err := os.Stat(cfg.GraphFile); err == nil {
			return float64(st.Size()) / 4 // at least "a b\n" per edge
		}
	}
	return nf
}

// EstimateMemory returns the memory a run of cfg needs for n points of
// dimension d, with the given number of measurement workers, before anything
// large is allocated. The state and the executor's buffers are the engine's
// own estimate (engine.EstimateMemory, asked of the executor the run will
// use); the graph, the measurement and the optimum solver are counted here.
// A problem named by cfg.Problem has its shape (θ of d, or d×d for metric
// learning and similarity); for an objective a program passes in
// (Input.Objective) use EstimateMemoryInput.
func EstimateMemory(cfg Config, n, d, workers int) MemoryEstimate {
	return estimateMemory(cfg, n, d, workers, nil)
}

// EstimateMemoryInput is EstimateMemory for a run of PrepareInput with in:
// an Input.Objective is counted with its own shape (ObjectiveInfo: θ a
// vector of P or a d×d matrix) on the executors of a user objective, not as
// the problem Config.Problem names.
func EstimateMemoryInput(cfg Config, in Input, n, d, workers int) MemoryEstimate {
	return estimateMemory(cfg, n, d, workers, in.Objective)
}

func estimateMemory(cfg Config, n, d, workers int, obj problem.Objective) MemoryEstimate {
	cfg = cfg.WithDefaults()
	l, err := problem.ParseLoss(cfg.Problem)
	metric := err == nil && l.IsMetric()
	P := d
	pf := float64(d) // P, in floating point: d·d may overflow an int
	if metric {
		P, pf = d*d, float64(d)*float64(d)
	}
	if ok, matrix := problem.IsObjectiveProblem(cfg.Problem); ok {
		l = problem.Custom
		if matrix {
			P, pf = d*d, float64(d)*float64(d)
		}
	}
	if obj != nil {
		metric, l = false, problem.Custom
		switch info := obj.Info(); {
		case info.Matrix:
			P, pf = d*d, float64(d)*float64(d)
		case info.P > 0:
			P, pf = info.P, float64(info.P)
		default:
			P, pf = d, float64(d)
		}
	}
	k := max(cfg.PointsNode, 1)
	var m MemoryEstimate
	// Sizes whose state alone is beyond any machine would overflow the
	// int64 arithmetic below (a negative estimate passes every check):
	// saturate instead, so that the estimate only says "too large".
	rowsF := float64(n) + 64*float64(max(workers, 1)) + 1024 // the state's rows, the workers' and the measurement's buffers
	big := rowsF*(pf*8+float64(d)*16+64)*16 > 1<<58
	if metric && float64(n)*float64(n)*8 > 1<<58 { // the optimum solver's n×n
		big = true
	}
	if big || n < 0 || d < 0 {
		m.State = 1 << 60
		return m
	}
	row := int64(layout.Stride(P)) * 8
	rows := int64(n)
	if cfg.Algorithm == "centralized" {
		rows = 1
	}
	edges := 0.0
	if cfg.Algorithm != "centralized" {
		edges = estimateEdges(cfg, n/k) * float64(k*k)
		// Edge list (8 B) + CSR adjacency (2×4 B) + offsets.
		m.Graph = int64(edges*16) + int64(n)*8
	}
	// The problem's copy of the data, then the engine's state and executor.
	m.State = int64(n) * int64(d) * 8
	sh := engine.Shape{N: n, D: d, P: P, Loss: l, Edges: int(min(edges, math.MaxInt32))}
	sh.Reg, _ = problem.ParseReg(cfg.Reg)
	algo, _ := engine.ParseAlgorithm(cfg.Algorithm)
	est, _ := engine.ParseEstimator(cfg.Baseline)
	sched, _ := engine.ParseSchedule(cfg.Schedule)
	// The network model (a knob that does not parse is refused later,
	// naming it): the engine counts its per-node arrays and the delay
	// queue; the model its cursors, files and a schedule's phases.
	nm, nerr := cfg.NetworkModel(n)
	if nerr == nil && !nm.IsPerfect() {
		m.Network = nm.EstimateBytes(n)
		if len(nm.Schedule) == 0 {
			// The run's graph's phase: its p_e, p_k and 1/p_k (and the
			// weights' alias table).
			m.Network += network.PhaseBytes(n, edges, nm.Activation.Kind == network.ActWeights)
		}
		for _, ph := range nm.Schedule {
			pc := cfg
			pc.Graph, pc.GraphK, pc.GraphP, pc.GraphR, pc.GraphFile = ph.Spec.Kind, ph.Spec.K, ph.Spec.P, ph.Spec.Radius, ph.Spec.File
			pn := n
			if ph.Spec.N > 0 {
				pn = ph.Spec.N
			}
			pe := estimateEdges(pc, pn)
			m.Network += int64(pe*16) + int64(pn)*8 + network.PhaseBytes(pn, pe, nm.Activation.Kind == network.ActWeights)
		}
	} else {
		nm = network.Model{}
	}
	if em, err := engine.EstimateMemory(sh, engine.Config{Algorithm: algo, Estimator: est, Workers: workers, Schedule: sched, Network: nm}); err == nil {
		m.State += em.State + em.Executor
		if !nm.IsPerfect() {
			// The engine's part of the network (its per-node arrays, the
			// delay queue) is the network's too.
			if e0, err := engine.EstimateMemory(sh, engine.Config{Algorithm: algo, Estimator: est, Workers: workers, Schedule: sched}); err == nil {
				d := (em.State + em.Executor) - (e0.State + e0.Executor)
				m.State -= d
				m.Network += d
			}
		}
	} else {
		// A schedule that does not apply is refused later, with its reason;
		// count the state alone.
		m.State += 3*rows*row + 2*int64(n)*int64(layout.Stride(d))*8
	}
	// The measurement's buffers: the evaluator's own estimate (bounded by
	// its memory budget: sorted or sampled methods where pairwise would not
	// fit), plus each node's auxiliary index.
	mode, _ := engine.ParseMeasureMode(cfg.Measure)
	m.Measure = engine.MeasureMemory(sh, engine.Config{Algorithm: algo, Workers: workers, EvalNodes: cfg.EvalNodes,
		Measure: mode, MeasurePrecision: cfg.MeasurePrecision}) + rows*4
	workers = max(workers, 1)
	if metric {
		m.Solver = (int64(n)*int64(n) + 2*int64(n)*int64(d)) * 8
	} else {
		m.Solver = 4 * int64(n) * 8
	}
	if cfg.SkipOptimum {
		m.Solver = 0
	}
	if m.State < 0 || m.Graph < 0 || m.Measure < 0 || m.Solver < 0 || m.Network < 0 || m.Total() < 0 { // overflowed after all
		return MemoryEstimate{State: 1 << 60}
	}
	return m
}

// availableMemory is sysprobe.AvailableMemory, replaceable in tests.
var availableMemory = sysprobe.AvailableMemory

// checkMemory refuses a run that would not fit; obj is the run's
// Input.Objective (nil: the problem cfg names).
func checkMemory(cfg Config, n, d, workers int, obj problem.Objective) error {
	est := estimateMemory(cfg, n, d, workers, obj)
	if avail := availableMemory(); avail > 0 && est.Total() > avail {
		hint := "reduce n, d, the graph's density or --eval-nodes"
		if est.Network > est.Total()/2 {
			hint = "most of it is the network model's: shorten --delay, the --graph-schedule's phases or the --edge-stream, or reduce n or d"
		}
		return fmt.Errorf("this run needs about %s but only %s is available; %s", est, gib(avail), hint)
	}
	return nil
}
