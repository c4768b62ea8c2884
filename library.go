package pairgossip

import (
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/network"
	"slices"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// The engine as a research library (issue #20): a run from what a program
// holds in memory — its own pairwise objective, its data, its graph — and
// the objectives built on problem.Objective by name (ranking, similarity).

// MemoryName is what Config.Data and Config.Graph say when Input gave them.
const MemoryName = "memory"

// Input is what PrepareInput takes in place of Config's names. Every field
// is optional; a zero Input is Prepare.
type Input struct {
	// Objective is the run's pairwise loss (problem.Objective, or
	// problem.Pairwise's functions); Config.Problem becomes its name. The
	// labels are given to it as they are (Labels, or the data set's class
	// indices, in increasing numeric order of the labels).
	Objective problem.Objective
	// X holds N points of dimension D, row-major (N×D), with their Labels
	// (±1 for the AUC losses, class indices for metric learning, levels for
	// ranking, anything the Objective reads); they replace Config.Data.
	// They are copied.
	X      []float64
	N, D   int
	Labels []int32
	// Edges is the graph, undirected edges between nodes 0..n−1 (n the
	// number of points over Config.PointsNode); it replaces Config.Graph.
	// The graph must be connected (a node without an edge is named in the
	// error). An edge given twice, in the same or the other orientation, is
	// merged into one, as in an edge-list file, and Run.Warnings says how
	// many were.
	Edges [][2]int32
	// OptimumCacheKey lets the centralized optimum of Objective be cached
	// (Run.SolveOptimum): the cache cannot fingerprint a program's code, so
	// an objective's optimum is cached only under a key the program gives,
	// which must change whenever the objective's code does (a version
	// string). The key is combined with everything else that determines
	// the optimum (data, labels, regulariser, solver options). Empty: never
	// cached. Built-in problems are always cached.
	OptimumCacheKey string
	// Activation, when its Kind is set, replaces Config.Activation with
	// what only a program can give (docs/networks.md §8): an adaptive
	// scheme, Activation{Kind: network.ActAdaptive, Picker: p} (p_k from
	// the picker's EdgeProbabilities, or estimated by a seeded pilot), or
	// edge probabilities from a function, Activation{Kind:
	// network.ActWeights, Weights: f}. Config.Activation then names it
	// ("adaptive", "weights:memory").
	Activation network.Activation
	// Stream, if not nil, is a recorded edge stream in memory replayed as
	// the activations, in place of Config.EdgeStream (which then reads
	// "memory").
	Stream *network.Stream
}

// placeholderError rewrites an error of the validation of configFor's
// configuration that describes one of its placeholders (the data set or
// graph named in place of Input's) as what the caller gave: a Config.Dim
// set beside Input.X does not apply because Input gives the data, not
// because "synthetic" is the paper's set.
func (in Input) placeholderError(err error) error {
	var pe *config.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	msg := pe.Err.Error()
	switch {
	case in.X != nil && strings.Contains(msg, "but the data is "+strconv.Quote(dataset.SpecSynthetic)):
		return &config.ParamError{Param: pe.Param, Err: fmt.Errorf("does not apply: the data is the program's (Input.X: %d points of dimension %d), which has its own size and format", in.N, in.D)}
	case in.Edges != nil && strings.Contains(msg, `but the graph is "complete"`):
		return &config.ParamError{Param: pe.Param, Err: errors.New("does not apply: the graph is the program's (Input.Edges), which no graph parameter changes")}
	}
	return err
}

// configFor sets in cfg the names of what in gives, and returns the
// configuration to validate: cfg with placeholders that pass the checks of
// the names in gives (they are checked here instead).
func (in Input) configFor(cfg *Config) (Config, error) {
	v := *cfg
	if in.Objective != nil {
		if err := problem.CheckObjective(in.Objective); err != nil {
			return v, err
		}
		cfg.Problem, v.Problem = in.Objective.Info().Name, "auc"
	}
	if in.X != nil {
		if in.N < 2 || in.D < 1 || len(in.X) != in.N*in.D || len(in.Labels) != in.N {
			return v, fmt.Errorf("data: Input has %d values and %d labels for N = %d, D = %d (want N·D values, N labels, N >= 2, D >= 1)",
				len(in.X), len(in.Labels), in.N, in.D)
		}
		cfg.Data, v.Data = MemoryName, dataset.SpecSynthetic
	}
	if in.Edges != nil {
		cfg.Graph, v.Graph = MemoryName, "complete"
	}
	if in.Activation.Kind == "" && (in.Activation.Picker != nil || in.Activation.Weights != nil || in.Activation.File != "") {
		return v, errors.New("Input.Activation: a Picker, Weights or File is given without its Kind (network.ActAdaptive, network.ActWeights): it would not be used")
	}
	if in.Activation.Kind != "" || in.Stream != nil {
		if algo, err := engine.ParseAlgorithm(cfg.Algorithm); err == nil && algo == engine.Centralized {
			what := "Input.Activation"
			if in.Activation.Kind == "" {
				what = "Input.Stream"
			}
			return v, fmt.Errorf("%s: does not apply: the centralized algorithm (Algorithm 1) has no network", what)
		}
	}
	switch k := in.Activation.Kind; {
	case k == network.ActWeights && in.Activation.File == "":
		cfg.Activation, v.Activation = network.ActWeights+":"+MemoryName, ""
	case k != "":
		cfg.Activation, v.Activation = k, ""
		if k == network.ActWeights {
			cfg.Activation += ":" + in.Activation.File
		}
	}
	if in.Stream != nil {
		// Config.StreamP applies to the stream in memory (network checks
		// it), not to the file the placeholder lacks.
		cfg.EdgeStream, v.EdgeStream, v.StreamP = MemoryName, "", ""
	}
	return v, nil
}

// inputFieldError is an error about what a field of Input gave (a weight
// function, a picker, a stream in memory), named by that field rather than
// by the flag or the Config field that would have given it otherwise.
type inputFieldError struct {
	field string
	msg   string // without the name
	err   error
}

func (e *inputFieldError) Error() string { return e.field + ": " + e.msg }
func (e *inputFieldError) Unwrap() error { return e.err }

// nameFields names by its Input field an error about what in gave:
// Input.Activation for the activation model (--activation, Config.Activation
// otherwise), Input.Stream for a stream in memory (--edge-stream).
func (in Input) nameFields(err error) error {
	if err == nil {
		return nil
	}
	for _, f := range []struct {
		given       bool
		flag, field string
	}{{in.Activation.Kind != "", "activation", "Input.Activation"}, {in.Stream != nil, "edge-stream", "Input.Stream"}} {
		if !f.given {
			continue
		}
		var pe *config.ParamError
		if errors.As(err, &pe) && pe.Param.Flag == f.flag {
			return &inputFieldError{field: f.field, msg: pe.Err.Error(), err: err}
		}
		if rest, ok := strings.CutPrefix(err.Error(), "--"+f.flag+": "); ok {
			return &inputFieldError{field: f.field, msg: rest, err: err}
		}
	}
	return err
}

// network returns the run's network model on n nodes: vcfg's knobs (the
// configuration configFor returns) with what in gives, and, for a stream in
// memory, the p_k source cfg (the run's configuration) names.
func (in Input) network(cfg, vcfg Config, n int) (network.Model, error) {
	m, err := vcfg.NetworkModel(n)
	if err != nil {
		return m, config.NetworkError(err)
	}
	if in.Activation.Kind != "" {
		m.Activation = in.Activation
	}
	if in.Stream != nil {
		m.Stream, m.StreamP = in.Stream, cfg.StreamP
	}
	return m, config.NetworkError(m.Validate())
}

// load returns the data: Input's, or Config.Data loaded.
func (in Input) load(cfg Config) (*dataset.Dataset, error) {
	if in.X == nil {
		return dataset.Load(cfg.Data, cfg.LoadOptions())
	}
	ds := &dataset.Dataset{Name: MemoryName, N: in.N, D: in.D, X: slices.Clone(in.X), Class: slices.Clone(in.Labels)}
	return ds, nil
}

// objective returns the run's Objective, if it has one (Input.Objective, or
// a problem name of problem.ObjectiveProblemNames), and sets labels to what
// it reads: Input's labels as given, else the data set's class indices —
// for ranking the ordinal levels (numeric labels in increasing order).
func (in Input) objective(cfg Config, ds *dataset.Dataset, labels []int32) (problem.Objective, bool, error) {
	ok, _ := problem.IsObjectiveProblem(cfg.Problem)
	if in.Objective == nil && !ok {
		if in.X != nil {
			// A built-in loss on labels given in memory: they are taken as
			// they are (problem.New checks them).
			copy(labels, in.Labels)
			return nil, false, nil
		}
		return nil, false, nil
	}
	copy(labels, ds.Class)
	if in.X == nil && strings.HasPrefix(strings.ToLower(cfg.Problem), "rank") {
		if _, err := ds.Levels(); err != nil {
			return nil, false, fmt.Errorf("problem %s: %w", cfg.Problem, err)
		}
	}
	if in.Objective != nil {
		return in.Objective, true, nil
	}
	obj, err := problem.NewObjectiveByName(cfg.Problem, labels)
	return obj, true, err
}

// graph returns the graph: Input's edges, or Config.Graph built.
func (in Input) graph(cfg Config, n int) (*graph.Graph, error) {
	if in.Edges == nil {
		return graph.Build(graph.Spec{Kind: cfg.Graph, N: n, K: cfg.GraphK, P: cfg.GraphP, Radius: cfg.GraphR,
			Rows: cfg.GraphRows, Cols: cfg.GraphCols, Seed: cfg.GraphSeed, File: cfg.GraphFile})
	}
	return graph.FromEdges(MemoryName, n, in.Edges)
}
