package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/network"
)

// The network of a run (issue #34, docs/networks.md): one Config field per
// flag, each in its flag's syntax, so that the command line, a sweep file
// and a Go program set the same thing (cfg.Loss = 0.3 is --loss 0.3 is
// `loss: 0.3`). NetworkModel turns them into a network.Model; what only Go
// can give (a Weights function, an adaptive network.Picker, a stream in
// memory) comes through pairgossip.Input's Activation and Stream.

// netParams are the network's rows of the parameter table (params.go
// appends them), in the order of docs/networks.md §10.
var netParams = []*Param{
	{Field: "Loss", Flag: "loss", Key: "loss", JSON: "loss", Group: "network",
		Help: "message loss q: the exchange of an activated edge fails with probability q (no averaging,\n" +
			"no swap; the nodes still take their gradient steps); 0 is the paper's network",
		check: within(0, 1), only: onlyGossip},
	{Field: "LossOneWay", Flag: "loss-oneway", Key: "loss_oneway", JSON: "loss_oneway",
		Group: "network",
		Help: "with --loss: the two directions of an exchange fail independently, each with probability q;\n" +
			"a receiver averages with what arrived, the observations swap only when both arrive",
		only: func(c *Config) string {
			if why := onlyGossip(c); why != "" {
				return why
			}
			if c.Loss == 0 {
				return "it splits the loss of --loss into two directions, but --loss is 0"
			}
			return ""
		}},
	{Field: "Churn", Unset: "none", Flag: "churn", Key: "churn", JSON: "churn", Group: "network",
		Help: "node churn `SPEC`: exponential:up=U,down=D | geometric:up=U,down=D | lognormal:up=U,down=D[,sigma=S]\n" +
			"(mean online/offline session lengths in iterations) or file:PATH (lines \"node start end\", offline\n" +
			"spans); an offline node takes no step and its edges do nothing",
		check: netFiles("churn", network.ParseChurn, func(c network.Churn) []string {
			if c.Dist == network.DistFile {
				return []string{c.File}
			}
			return nil
		}), only: onlyGossip},
	{Field: "Delay", Unset: "none", Flag: "delay", Key: "delay", JSON: "delay", Group: "network",
		Help: "message delays `SPEC` of the asynchronous algorithm, in events: constant:C | uniform:A..B |\n" +
			"geometric:mean=M,max=X; the receiver averages with the z that was sent, on arrival",
		check: netParsed("delay", network.ParseDelay),
		only: func(c *Config) string {
			if algo, err := engine.ParseAlgorithm(c.Algorithm); err == nil && algo != engine.Async {
				return fmt.Sprintf("delays apply to the asynchronous algorithm (Algorithm 3), but the algorithm is %s", algo)
			}
			return ""
		}},
	{Field: "GraphSchedule", Unset: "none", Flag: "graph-schedule", Key: "graph_schedule", JSON: "graph_schedule", Group: "network",
		Help: "a changing graph `SPEC`: phases LEN:KIND[:key=value,...] or LEN:file:PATH separated by ';', cycled\n" +
			"(the keys each kind uses of n, k, p, radius, rows, cols, seed; watts-strogatz needs k and p, erdos-renyi p;\n" +
			"n defaults to the run's, seed to 0), e.g. \"5000:watts-strogatz:k=5,p=0.3;5000:cycle\"",
		check: netFiles("graph-schedule", network.ParseSchedule, func(s []network.Phase) []string {
			var files []string
			for _, ph := range s {
				if ph.Spec.Kind == "file" {
					files = append(files, ph.Spec.File)
				}
			}
			return files
		}),
		only: func(c *Config) string {
			if why := onlyGossip(c); why != "" {
				return why
			}
			if c.PointsNode > 1 {
				return fmt.Sprintf("its phases are graphs on all the data points, not G ⊗ K_k of --points-per-node %d (give --points-per-node 1)", c.PointsNode)
			}
			return ""
		}},
	{Field: "LinkUp", Unset: "1", Flag: "link-up", Key: "link_up", JSON: "link_up", Group: "network",
		Help: "link failures: within each phase of --graph-schedule every edge is up with probability `A`\n" +
			"(redrawn per phase instance; a down link delivers nothing); 1, the default: every link up",
		check: within(0, 1),
		givenZero: "0 is not accepted: it reads as every link down, but 0 is how a program leaves it unset " +
			"(every link up); a network that delivers nothing is --loss 1",
		only: func(c *Config) string {
			if c.LinkUp == 1 {
				return ""
			}
			if why := onlyGossip(c); why != "" {
				return why
			}
			if c.GraphSchedule == "" {
				return "link failures are drawn per phase of --graph-schedule, which is not given (a single phase of the run's graph redraws the links every phase length)"
			}
			return ""
		}},
	{Field: "EdgeStream", Unset: "none", Flag: "edge-stream", Key: "edge_stream", JSON: "edge_stream", Group: "network", Path: true,
		Help: "replay a recorded edge stream `FILE` as the activations: lines \"t i j\" (iteration, 0-based nodes);\n" +
			"an iteration without a line activates nothing; loss and churn still apply (see --write-edges)",
		check: fileExists, only: onlyGossip},
	{Field: "StreamP", Unset: "graph", Flag: "stream-p", Key: "stream_p", JSON: "stream_p", Choices: []string{"graph", "empirical"}, Noun: "p_k source", Group: "network",
		Help: "p_k of a replayed --edge-stream: graph (2d_k/|E| of the run's graph, so a written stream\n" +
			"replays bit for bit) or empirical (the stream's own endpoint frequencies)",
		only: func(c *Config) string {
			if c.StreamP == "graph" {
				return ""
			}
			if c.EdgeStream == "" {
				return "it is the p_k of a replayed stream, and --edge-stream is not given"
			}
			return ""
		}},
	{Field: "Activation", Unset: "edges", Flag: "activation", Key: "activation", JSON: "activation", Group: "network",
		Help: "which edge an iteration activates (`MODEL`): edges (uniform, the paper), clocks (each node wakes at\n" +
			"rate 1 and calls a uniform neighbour) or weights:FILE (lines \"i j w\": probability ∝ w)",
		check: netFiles("activation", network.ParseActivation, func(a network.Activation) []string {
			if a.Kind == network.ActWeights {
				return []string{a.File}
			}
			return nil
		}),
		only: func(c *Config) string {
			if c.Activation == network.ActEdges {
				return ""
			}
			return onlyGossip(c)
		}},
	{Field: "WriteEdges", Flag: "write-edges", JSON: "-", Group: "network",
		Help: "write every activation of the run, lost or not, to `FILE` as \"t i j\" lines (with a header naming\n" +
			"the seed and the network); --edge-stream FILE with the same seed, loss, churn and delays replays\n" +
			"the run bit for bit (not under --activation, --graph-schedule or --stop-at: docs/networks.md §7)",
		only: onlyGossip},
}

// onlyGossip: the network knobs apply to the gossip algorithms, not to the
// centralized one, which has no network.
func onlyGossip(c *Config) string {
	if algo, err := engine.ParseAlgorithm(c.Algorithm); err == nil && algo == engine.Centralized {
		return "the centralized algorithm (Algorithm 1) has no network"
	}
	return ""
}

// netFiles is netParsed, then the files the parsed value names must exist
// (found when a sweep is planned, as its data's and stream's are, rather
// than when its runs fail one by one).
func netFiles[T any](flag string, parse func(string) (T, error), files func(T) []string) func(v any) error {
	parsed := netParsed(flag, parse)
	return func(v any) error {
		if err := parsed(v); err != nil || v.(string) == "" {
			return err
		}
		x, _ := parse(v.(string))
		for _, f := range files(x) {
			if err := fileExists(f); err != nil {
				return err
			}
		}
		return nil
	}
}

// netParsed checks a string with one of package network's parsers, whose
// errors begin with the flag (the table's message names it again).
func netParsed[T any](flag string, parse func(string) (T, error)) func(v any) error {
	return func(v any) error {
		if v.(string) == "" {
			return nil
		}
		if _, err := parse(v.(string)); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "--"+flag+": "))
		}
		return nil
	}
}

// HasNetwork reports whether c asks for a network other than the paper's
// (any knob set; --write-edges alone records the paper's network and is not
// one).
func (c Config) HasNetwork() bool {
	m, err := c.NetworkModel(0)
	return err != nil || !m.IsPerfect()
}

// NetworkModel returns the network of c as a network.Model: each knob
// parsed by its network parser; a --graph-schedule phase that does not give
// n gets n (the run's number of nodes; 0 leaves it unset). The error names
// the flag.
func (c Config) NetworkModel(n int) (network.Model, error) {
	m := network.Model{Loss: c.Loss, LossOneWay: c.LossOneWay, LinkUp: c.LinkUp, EdgeStream: c.EdgeStream, StreamP: c.StreamP}
	var err error
	if c.Churn != "" {
		if m.Churn, err = network.ParseChurn(c.Churn); err != nil {
			return m, err
		}
	}
	if c.Delay != "" {
		if m.Delay, err = network.ParseDelay(c.Delay); err != nil {
			return m, err
		}
	}
	if c.GraphSchedule != "" {
		if m.Schedule, err = network.ParseSchedule(c.GraphSchedule); err != nil {
			return m, err
		}
		for x := range m.Schedule {
			s := &m.Schedule[x].Spec
			if s.N == 0 && s.File == "" && !(s.Rows > 0 && s.Cols > 0) {
				s.N = n
			}
		}
	}
	if c.Activation != "" {
		if m.Activation, err = network.ParseActivation(c.Activation); err != nil {
			return m, err
		}
	}
	return m, nil
}

// validateNetwork checks the knobs together (network.Model.Validate: the
// combinations that are refused, such as a stream with a schedule) and
// against the algorithm; the error is a *ParamError naming the knob.
func (c Config) validateNetwork() error {
	m, err := c.NetworkModel(0)
	if err == nil {
		err = m.Validate()
	}
	if err == nil {
		algo, _ := engine.ParseAlgorithm(c.Algorithm)
		err = m.CheckAlgorithm(algo == engine.Async)
	}
	return NetworkError(err)
}

// ValidateGapKnobs validates the network knobs of pairgossip gap as a run
// would (each knob's own checks, the model, and the rule that a knob that
// does not apply is refused naming it: --loss-oneway without --loss,
// --stream-p without --edge-stream), except --delay, which the gap takes
// and ignores (delays do not enter W̄).
func (c Config) ValidateGapKnobs() error {
	if err := c.validateApplies(func(p *Param) bool { return p.Group == "network" && p.Field != "Delay" }); err != nil {
		return err
	}
	m, err := c.NetworkModel(0)
	if err == nil {
		err = m.Validate()
	}
	return NetworkError(err)
}

// NetworkError returns an error of package network, which begins with the
// flag it is about ("--loss: ..."), as a *ParamError naming that
// parameter, so that a Go program reads Config.Loss and a sweep its key;
// other errors are returned as they are.
func NetworkError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range netParams {
		if rest, ok := strings.CutPrefix(msg, "--"+p.Flag+": "); ok {
			return &ParamError{Param: p, Err: errors.New(rest)}
		}
	}
	return err
}

// MapNetworkFiles returns c with every file its network knobs name passed
// through f: --edge-stream, the file of --churn file:PATH, the edge lists of
// --graph-schedule's LEN:file:PATH phases and --activation weights:FILE (a
// sweep resolves them relative to the sweep file).
func (c Config) MapNetworkFiles(f func(string) string) Config {
	if c.EdgeStream != "" {
		c.EdgeStream = f(c.EdgeStream)
	}
	// The keywords in any case, around spaces, as the parsers take them.
	if k, p, ok := strings.Cut(strings.TrimSpace(c.Churn), ":"); ok && strings.EqualFold(k, network.DistFile) && p != "" {
		c.Churn = network.DistFile + ":" + f(p)
	}
	if k, p, ok := strings.Cut(strings.TrimSpace(c.Activation), ":"); ok && strings.EqualFold(k, network.ActWeights) && p != "" {
		c.Activation = network.ActWeights + ":" + f(p)
	}
	if c.GraphSchedule != "" {
		parts := strings.Split(c.GraphSchedule, ";")
		for x, part := range parts {
			l, rest, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				continue
			}
			if kind, p, ok := strings.Cut(rest, ":"); ok && strings.EqualFold(strings.TrimSpace(kind), "file") && p != "" {
				parts[x] = l + ":file:" + f(p)
			}
		}
		c.GraphSchedule = strings.Join(parts, ";")
	}
	return c
}

// FileBlind returns c with the path of each file the run reads named
// network.FileToken ("FILE"): Data (a file, not a built-in set), LabelsFile,
// GraphFile, and the network model's files (--churn file:, --graph-schedule
// file phases, --edge-stream, --activation weights:). It is what a
// checkpoint identifies a run by (pairgossip.Run.Identity), the files'
// contents being identified apart (the data's rows and labels, the graph's
// edges, the network's Fingerprint): a run resumes from another folder, or
// with its files under other paths (a job's own scratch folder), and not
// with other contents.
func (c Config) FileBlind() Config {
	const f = network.FileToken
	if c.Data != "" && c.Data != "memory" && !isBuiltinData(c.Data) {
		c.Data = f
	}
	if c.LabelsFile != "" {
		c.LabelsFile = f
	}
	if c.GraphFile != "" {
		c.GraphFile = f
	}
	return c.MapNetworkFiles(func(string) string { return f })
}
