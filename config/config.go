// Package config is the configuration of a run: Config, every field of
// which is a parameter of one table (Params) that gives its flag, sweep
// key, JSON name, help and validation (Config.Validate). The root package
// (pairgossip.Prepare) runs a Config; the command line binds the table to
// its flags (internal/cli.BindFlags) and package sweep reads its keys from
// it.
package config

import (
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/problem"
)

// Config is everything that defines a run. Its JSON form is written to
// summary.json and identifies a run in sweeps. Each field is a parameter of
// the table in params.go (Params), which gives its flag, sweep key, JSON name, help
// and validation (Validate).
type Config struct {
	// Problem is the pairwise loss, by name: a built-in loss
	// (problem.LossNames: auc-logistic, also called auc or logistic;
	// auc-hinge, or hinge; auc-squared-hinge, or squared-hinge;
	// metric-hinge, or metric), or an objective built on problem.Objective
	// (problem.ObjectiveProblemNames: ranking, ranking-hinge,
	// ranking-squared-hinge, similarity). With pairgossip.PrepareInput and
	// Input.Objective it is set to the objective's name.
	Problem string `json:"problem"`
	// Data is a built-in data set (breast-cancer, synthetic,
	// synthetic-auc, synthetic-metric: package dataset's Spec constants) or
	// the path of a file: CSV, LIBSVM, NumPy .npy (the labels from
	// LabelsFile, or the y.npy beside it) or .npz. With pairgossip.PrepareInput and Input.X it is
	// set to "memory".
	Data string `json:"data"`
	// DataSeed seeds the synthetic data set (kept apart from Seed so that
	// repeated runs share their data, as in the paper).
	DataSeed uint64 `json:"data_seed"`
	// LabelColumn is the 1-based label column of a CSV file (0: last).
	LabelColumn int `json:"label_column,omitempty"`
	// CSVHeader says whether a CSV file's first line holds column names:
	// auto (empty), present or absent. LabelName names the label column in
	// that header; DropColumns lists columns to ignore, comma-separated
	// 1-based numbers or header names. LIBSVMDim forces the dimension of a
	// LIBSVM file (0: the largest index).
	CSVHeader   string `json:"csv_header,omitempty"`
	LabelName   string `json:"label_name,omitempty"`
	DropColumns string `json:"drop_columns,omitempty"`
	LIBSVMDim   int    `json:"libsvm_dim,omitempty"`
	// LabelsFile is the .npy file of the labels of a NumPy .npy Data file
	// (empty: the y.npy beside it, by dataset.NPYLabelsPath's rule).
	LabelsFile string `json:"labels_file,omitempty"`
	// N, Dim and Classes size the synthetic-auc and synthetic-metric data
	// sets (0: their defaults); they must be 0 for the other data.
	N       int `json:"n,omitempty"`
	Dim     int `json:"dim,omitempty"`
	Classes int `json:"classes,omitempty"`
	// Graph is complete, cycle, star, path, watts-strogatz, erdos-renyi,
	// grid, torus, geometric or file; the node count comes from the data.
	Graph      string  `json:"graph"`
	GraphK     int     `json:"graph_k,omitempty"`      // Watts–Strogatz k
	GraphP     float64 `json:"graph_p,omitempty"`      // Watts–Strogatz rewiring / Erdős–Rényi edge probability
	GraphR     float64 `json:"graph_radius,omitempty"` // random geometric radius (--graph-radius)
	GraphFile  string  `json:"graph_file,omitempty"`   // edge list, with Graph = file
	GraphRows  int     `json:"graph_rows,omitempty"`   // grid / torus shape (0: near-square)
	GraphCols  int     `json:"graph_cols,omitempty"`
	GraphSeed  uint64  `json:"graph_seed"`
	PointsNode int     `json:"points_per_node"` // k points per physical node (G ⊗ K_k); 1 = the paper's setting
	// Algorithm is sync, async or centralized; Baseline is gossip or unbiased.
	Algorithm string `json:"algorithm"`
	Baseline  string `json:"baseline"`
	Iters     int64  `json:"iters"`
	// Reg is none, l2, l1, l2-ball or psd (metric learning default: psd).
	Reg    string  `json:"reg"`
	Lambda float64 `json:"lambda,omitempty"`
	// Radius is the ℓ2 ball's radius (--ball-radius, sweep key ball_radius;
	// its JSON name stays "radius", which run ids hash).
	Radius float64 `json:"radius,omitempty"`
	// B is the metric-learning threshold b.
	B          float64 `json:"b,omitempty"`
	GammaC     float64 `json:"gamma_c"`
	GammaAlpha float64 `json:"gamma_alpha"`
	Seed       uint64  `json:"seed"`
	LogPoints  int     `json:"log_points"`
	EvalNodes  int     `json:"eval_nodes"`
	// Measure is how the objective, AUC and bias are measured: auto (empty:
	// exact while affordable, else exact by sorting, else sampled), exact
	// or sampled; MeasurePrecision the relative standard error a sampled
	// measurement aims at (0: 1%).
	Measure          string  `json:"measure,omitempty"`
	MeasurePrecision float64 `json:"measure_precision,omitempty"`
	// Schedule is auto (empty), plain, blocked, reduced or reference
	// (engine.Config.Schedule). Schedules agree to rounding, not bit for bit,
	// so it is part of the identity.
	Schedule string `json:"schedule,omitempty"`
	// Workers does not change results; it is kept out of the JSON identity.
	Workers int `json:"-"`
	// Pin pins the workers to CPUs (package affinity; a no-op where it cannot
	// help). It does not change results and is kept out of the identity.
	Pin bool `json:"-"`
	// SkipOptimum skips the centralized full-batch solve.
	SkipOptimum bool `json:"-"`
	// NoOptimumCache solves the optimum without reading or writing the
	// cache of optima (pairgossip.OptimumCacheDir). It does not change results.
	NoOptimumCache bool `json:"-"`
	// StopAt, when above 0, ends the run at the first measurement whose
	// mean objective is within StopAt of the optimum, relatively:
	// (objective − R_n(θ*))/|R_n(θ*)| ≤ StopAt (pairgossip.Reached). The optimum is
	// solved (or taken from the cache of optima) before the run, and the
	// run measures between the log points at iterations at most
	// engine.StopCheckRatio apart, so that it stops at most that factor
	// late; Iters stays the cap. 0 (the default) is off, and keeps the
	// JSON form, hence run ids and checkpoint identities, as they were.
	StopAt float64 `json:"stop_at,omitempty"`

	// The network (issue #34; docs/networks.md gives each model's
	// semantics): one field per flag, in the flag's syntax, all zero for
	// the paper's network (and then absent from the JSON form, so run ids
	// and checkpoint identities stay as they were). Loss is q (--loss),
	// LossOneWay splits it per direction; Churn (network.ParseChurn), Delay
	// (network.ParseDelay, asynchronous only), GraphSchedule
	// (network.ParseSchedule) with LinkUp (0: unset, every link up; a 0
	// given as a flag or a sweep key is refused), EdgeStream with StreamP, and
	// Activation (network.ParseActivation). NetworkModel converts them;
	// pairgossip.Input's Activation and Stream add what only Go can give (an
	// adaptive network.Picker, a weights function, a stream in memory).
	Loss          float64 `json:"loss,omitempty"`
	LossOneWay    bool    `json:"loss_oneway,omitempty"`
	Churn         string  `json:"churn,omitempty"`
	Delay         string  `json:"delay,omitempty"`
	GraphSchedule string  `json:"graph_schedule,omitempty"`
	LinkUp        float64 `json:"link_up,omitempty"`
	EdgeStream    string  `json:"edge_stream,omitempty"`
	StreamP       string  `json:"stream_p,omitempty"`
	Activation    string  `json:"activation,omitempty"`
	// WriteEdges is a file to which the run writes its activations (`t i j`
	// lines, network.CreateStream); an output, kept out of the identity.
	WriteEdges string `json:"-"`
}

// Default is the paper's AUC experiment: Breast Cancer, Watts–Strogatz
// (k = 5, p = 0.3), synchronous gossip, γ(t) = 1/√t.
func Default() Config {
	return Config{Problem: "auc", Data: "breast-cancer", DataSeed: 1, Graph: "watts-strogatz", GraphK: 5, GraphP: 0.3,
		GraphSeed: 1, PointsNode: 1, Algorithm: "sync", Baseline: "gossip", Iters: 5000, Reg: "none",
		Lambda: 0, Radius: 1, B: 2, GammaC: 1, GammaAlpha: 0, Seed: 1, LogPoints: 30}
}

// WithDefaults returns cfg with the defaults that depend on other fields
// filled in: an empty Reg is "psd" for metric learning (θ must be a metric)
// and "none" otherwise. pairgossip.Prepare applies it and keeps the result in
// Run.Config, so summaries, identities and sweep run ids name the
// regulariser actually used.
func (c Config) WithDefaults() Config {
	if c.Reg == "" {
		c.Reg = "none"
		if l, err := problem.ParseLoss(c.Problem); err == nil && l.IsMetric() {
			c.Reg = "psd"
		}
	}
	return c
}

// EngineConfig is the engine's configuration of a run of c: the parsed
// names (algorithm, estimator, schedule, measurement mode), the numbers
// the engine takes and the network model (NetworkModel). It is the one conversion from Config to engine.Config,
// which pairgossip.Prepare and the run over MPI ranks (package ranks) both
// use. c is expected valid (Validate): a name it does not parse is left at
// its zero value, which engine.Config.Validate reports.
func (c Config) EngineConfig() engine.Config {
	algo, _ := engine.ParseAlgorithm(c.Algorithm)
	est, _ := engine.ParseEstimator(c.Baseline)
	mode, _ := engine.ParseMeasureMode(c.Measure)
	// The network's knobs (a schedule phase without n is given it by
	// pairgossip.Prepare, which knows the graph: NetworkModel(n)).
	net, _ := c.NetworkModel(0)
	return engine.Config{Network: net, Algorithm: algo, Estimator: est, Iters: c.Iters, GammaC: c.GammaC,
		GammaAlpha: c.GammaAlpha, Seed: c.Seed, Workers: c.Workers, Pin: c.Pin, LogPoints: c.LogPoints, EvalNodes: c.EvalNodes,
		Schedule: engine.Schedule(c.Schedule), Measure: mode, MeasurePrecision: c.MeasurePrecision, StopChecks: c.StopAt > 0}
}
