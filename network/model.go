package network

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/graph"
)

// Identifiers of the package's counter-based draws: the hash domain of a
// kind of draw is rng.Hash(seed, id, 0), and a draw is rng.Hash(domain, a, b)
// for its key (a, b). They are at least 16, clear of the engine's
// sub-streams (1 edges, 2 measurement, 3 unbiased baseline).
const (
	hashLoss       = 16 // (t, direction)
	hashChurn      = 17 // (node, session index)
	hashChurnStart = 18 // (node, 0): the initial state
	hashDelay      = 19 // (t, direction)
	hashLink       = 20 // (phase instance, edge index)
	hashActivation = 21 // (t, k): the activation draws of iteration t
	hashPilot      = 22 // (draw, k): the pilot that estimates an adaptive picker's p
)

// Directions of an exchange on an edge (i, j) as Net.Edge returns it.
const (
	DirToJ = 0 // i → j: j receives
	DirToI = 1 // j → i: i receives
)

// Model describes the network of a run. Its zero value is the paper's
// network: a static graph, edges activated uniformly, every exchange
// delivered at once, every node always online. Each field is one
// command-line flag (docs/networks.md).
type Model struct {
	// Loss is q (--loss): the exchange of an iteration fails with
	// probability q.
	Loss float64
	// LossOneWay (--loss-oneway): the two directions of an exchange fail
	// independently, each with probability q.
	LossOneWay bool
	// Churn (--churn): online and offline sessions per node.
	Churn Churn
	// Delay (--delay): message delays, Algorithm 3 only.
	Delay Delay
	// Schedule (--graph-schedule): phases of graphs, cycled. Empty means the
	// run's graph, static.
	Schedule []Phase
	// LinkUp is a (--link-up): within each phase instance of Schedule, each
	// edge is up with probability a. 0 means unset (every link up); a real
	// a must lie in (0, 1] and needs a Schedule.
	LinkUp float64
	// EdgeStream (--edge-stream): a file of `t i j` lines replayed as the
	// activation sequence (see ReadStream). Stream, when not nil, is used
	// instead of reading EdgeStream (the Go API).
	EdgeStream string
	Stream     *Stream
	// StreamP says where p_k comes from for a recorded stream: "" or "graph"
	// (uniform edges of the run's graph, so that a stream written by
	// --write-edges replays to the same run; every line must then be an
	// edge of the graph) or "empirical" (the stream's own frequencies).
	StreamP string
	// Activation (--activation): how iteration t's edge is chosen.
	Activation Activation
}

// Phase is one phase of a graph schedule: a graph for Length iterations.
// Graph, when not nil, is used; otherwise Spec is built with graph.Build.
type Phase struct {
	Spec   graph.Spec
	Graph  *graph.Graph
	Length int64
}

// Churn distributions.
const (
	DistExponential = "exponential"
	DistGeometric   = "geometric"
	DistLognormal   = "lognormal"
	DistFile        = "file"
)

// Churn describes node sessions. Dist "" means no churn. For the
// distributions, Up and Down are the mean online and offline session
// lengths in iterations; Sigma is the lognormal's shape (the standard
// deviation of the log, default 1). For "file", File lists offline
// intervals (see ReadSessions).
type Churn struct {
	Dist     string
	Up, Down float64
	Sigma    float64
	File     string
}

// Delay distributions.
const (
	DelayConstant  = "constant"
	DelayUniform   = "uniform"
	DelayGeometric = "geometric"
)

// Delay describes message delays τ ≥ 0 in events (Algorithm 3). Dist ""
// means none (τ = 0). "constant": τ = C. "uniform": τ uniform in {A..B}.
// "geometric": τ geometric on {0, 1, …} with mean Mean, capped at Max
// (required: delays are bounded).
type Delay struct {
	Dist string
	C    int
	A, B int
	Mean float64
	Max  int
}

// Activation kinds.
const (
	ActEdges    = "edges"
	ActClocks   = "clocks"
	ActWeights  = "weights"
	ActAdaptive = "adaptive"
)

// Activation chooses iteration t's edge. Kind "" or "edges": uniform over
// the edges (the paper; the engine's own stream). "clocks": node clocks
// (Boyd et al. 2006). "weights": edge probabilities from File (`i j w`
// lines) or from Weights (called once per edge of each graph, i < j).
// "adaptive": Picker chooses; PilotDraws and PilotDim set the pilot that
// estimates p when the picker does not declare it (see Picker).
type Activation struct {
	Kind       string
	File       string
	Weights    func(i, j int) float64
	Picker     Picker
	PilotDraws int
	PilotDim   int
}

// MaxDelay bounds every delay distribution's largest value, so that the
// in-flight queue (Queue) stays small.
const MaxDelay = 1 << 20

// IsPerfect reports whether m is the paper's network (the zero value, up to
// the spellings of the defaults: Activation "edges", LinkUp 1, StreamP
// "graph").
func (m Model) IsPerfect() bool {
	return m.Loss == 0 && !m.LossOneWay && m.Churn.Dist == "" && m.Delay.Dist == "" &&
		len(m.Schedule) == 0 && (m.LinkUp == 0 || m.LinkUp == 1) && m.EdgeStream == "" && m.Stream == nil &&
		(m.Activation.Kind == "" || m.Activation.Kind == ActEdges)
}

func isProb(x float64) bool { return x >= 0 && x <= 1 }

// Validate checks m without reading files or building graphs (New does
// those). Errors name the flag.
func (m Model) Validate() error {
	if !isProb(m.Loss) {
		return fmt.Errorf("--loss: %v is not a probability in [0, 1]", m.Loss)
	}
	if err := m.Churn.validate(); err != nil {
		return err
	}
	if err := m.Delay.validate(); err != nil {
		return err
	}
	for x, ph := range m.Schedule {
		if ph.Length < 1 {
			return fmt.Errorf("--graph-schedule: phase %d has length %d; a phase lasts at least one iteration", x+1, ph.Length)
		}
		if ph.Graph == nil && ph.Spec.Kind == "" {
			return fmt.Errorf("--graph-schedule: phase %d has no graph", x+1)
		}
	}
	if !(m.LinkUp >= 0 && m.LinkUp <= 1) {
		return fmt.Errorf("--link-up: %v is not a probability in (0, 1]", m.LinkUp)
	}
	if m.LinkUp != 0 && m.LinkUp != 1 && len(m.Schedule) == 0 {
		return fmt.Errorf("--link-up: link failures are drawn per phase instance and need --graph-schedule (a single phase of the run's graph, of the length after which links are redrawn)")
	}
	hasStream := m.EdgeStream != "" || m.Stream != nil
	if hasStream && len(m.Schedule) > 0 {
		return fmt.Errorf("--edge-stream: a recorded stream cannot be combined with --graph-schedule")
	}
	if hasStream && m.Activation.Kind != "" && m.Activation.Kind != ActEdges {
		return fmt.Errorf("--edge-stream: a recorded stream is the activation sequence; --activation %s cannot be combined with it", m.Activation.Kind)
	}
	switch m.StreamP {
	case "", "graph", "empirical":
	default:
		return fmt.Errorf("--edge-stream: p_k source %q is not one of graph, empirical", m.StreamP)
	}
	return m.Activation.validate()
}

// CheckAlgorithm refuses the knobs that do not apply to the algorithm:
// delays exist only for the asynchronous one (Algorithm 3).
func (m Model) CheckAlgorithm(async bool) error {
	if !async && m.Delay.Dist != "" {
		return fmt.Errorf("--delay: delays apply to the asynchronous algorithm (Algorithm 3) only; the synchronous round exchanges within the round")
	}
	return nil
}

// StreamHeader is the header comment of a stream written by --write-edges:
// the format, the seed and the model less its own stream (a run that
// replays a stream and writes it again names it on a line of its own): the
// model a replay must have to give the run's bits (ReplayNote), which
// replays this stream instead.
func StreamHeader(seed uint64, m Model) string {
	replayed := ""
	switch {
	case m.EdgeStream != "":
		replayed = "\nreplaying --edge-stream " + m.EdgeStream
	case m.Stream != nil:
		replayed = "\nreplaying a recorded stream"
	}
	m.EdgeStream, m.Stream, m.StreamP = "", nil, ""
	return fmt.Sprintf("pairgossip edge stream: lines `t i j` (iteration, 0-based endpoints), every activation, delivered or not\nseed %d\nnetwork %s%s", seed, m.String(), replayed)
}

func (c Churn) validate() error {
	switch c.Dist {
	case "":
		return nil
	case DistFile:
		if c.File == "" {
			return fmt.Errorf("--churn: file: no file name given")
		}
		return nil
	case DistExponential, DistGeometric, DistLognormal:
	default:
		return fmt.Errorf("--churn: unknown distribution %q; valid ones are exponential, geometric, lognormal, file", c.Dist)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"up", c.Up}, {"down", c.Down}} {
		if !(v.x >= 1) || math.IsInf(v.x, 0) {
			return fmt.Errorf("--churn: mean %s time %v must be a finite number of iterations >= 1", v.name, v.x)
		}
	}
	if c.Dist == DistLognormal && !(c.Sigma >= 0 && c.Sigma <= 10) {
		return fmt.Errorf("--churn: lognormal sigma %v must lie in (0, 10] (in Go, Churn.Sigma 0 means the default 1)", c.Sigma)
	}
	return nil
}

func (d Delay) validate() error {
	switch d.Dist {
	case "":
		return nil
	case DelayConstant:
		if d.C < 0 || d.C > MaxDelay {
			return fmt.Errorf("--delay: constant %d must lie in [0, %d]", d.C, MaxDelay)
		}
	case DelayUniform:
		if d.A < 0 || d.B < d.A || d.B > MaxDelay {
			return fmt.Errorf("--delay: uniform{%d..%d} needs 0 <= a <= b <= %d", d.A, d.B, MaxDelay)
		}
	case DelayGeometric:
		if !(d.Mean > 0) || math.IsInf(d.Mean, 0) {
			return fmt.Errorf("--delay: geometric mean %v must be a finite number > 0", d.Mean)
		}
		if d.Max < 1 || d.Max > MaxDelay {
			return fmt.Errorf("--delay: geometric delays must be bounded: max %d must lie in [1, %d]", d.Max, MaxDelay)
		}
	default:
		return fmt.Errorf("--delay: unknown distribution %q; valid ones are constant, uniform, geometric", d.Dist)
	}
	return nil
}

// bound returns the largest delay d can give.
func (d Delay) bound() int {
	switch d.Dist {
	case DelayConstant:
		return d.C
	case DelayUniform:
		return d.B
	case DelayGeometric:
		return d.Max
	}
	return 0
}

func (a Activation) validate() error {
	// A Go value the Kind does not read would be dropped without a word.
	switch {
	case a.Picker != nil && a.Kind != ActAdaptive:
		return fmt.Errorf("--activation: a Picker is given but the model is %q, which does not use it (Kind: network.ActAdaptive)", a.Kind)
	case a.Weights != nil && a.Kind != ActWeights:
		return fmt.Errorf("--activation: a Weights function is given but the model is %q, which does not use it (Kind: network.ActWeights)", a.Kind)
	case a.File != "" && a.Kind != ActWeights:
		return fmt.Errorf("--activation: a weights file %q is given but the model is %q, which does not read it (Kind: network.ActWeights)", a.File, a.Kind)
	case (a.PilotDraws != 0 || a.PilotDim != 0) && a.Kind != ActAdaptive:
		return fmt.Errorf("--activation: pilot draws and dimension apply to an adaptive picker, but the model is %q", a.Kind)
	}
	switch a.Kind {
	case "", ActEdges, ActClocks:
	case ActWeights:
		if a.File == "" && a.Weights == nil {
			return fmt.Errorf("--activation: weights needs a file (weights:FILE) or a weight function")
		}
	case ActAdaptive:
		if a.Picker == nil {
			return fmt.Errorf("--activation: adaptive needs a Picker (Go API only)")
		}
		if a.PilotDraws < 0 || a.PilotDim < 0 {
			return fmt.Errorf("--activation: adaptive pilot draws %d and dimension %d must be >= 0", a.PilotDraws, a.PilotDim)
		}
	default:
		return fmt.Errorf("--activation: unknown model %q; valid ones are edges, clocks, weights:FILE", a.Kind)
	}
	return nil
}

// String describes m in the flags' syntax (for headers and logs); the
// perfect network is "perfect".
func (m Model) String() string { return m.format(true) }

// FileBlind is String with each file the model reads named FILE, not by
// its path: what a checkpoint identifies the model by, the files' contents
// being identified apart (Net.Fingerprint), so that a run resumes from
// another folder or with the same file under another path (a job's own
// scratch folder), and not with another file's contents.
func (m Model) FileBlind() string { return m.format(false) }

// FileToken names a file in FileBlind.
const FileToken = "FILE"

func (m Model) format(paths bool) string {
	file := func(path string) string {
		if paths {
			return path
		}
		return FileToken
	}
	if m.IsPerfect() {
		return "perfect"
	}
	var p []string
	if m.Loss != 0 {
		p = append(p, "--loss "+strconv.FormatFloat(m.Loss, 'g', -1, 64))
	}
	if m.LossOneWay {
		p = append(p, "--loss-oneway")
	}
	if m.Churn.Dist == DistFile {
		p = append(p, "--churn file:"+file(m.Churn.File))
	} else if m.Churn.Dist != "" {
		p = append(p, "--churn "+m.Churn.String())
	}
	if m.Delay.Dist != "" {
		p = append(p, "--delay "+m.Delay.String())
	}
	if len(m.Schedule) > 0 {
		var ph []string
		for _, x := range m.Schedule {
			name := x.Spec.Kind
			switch {
			case x.Spec.Kind == "file" && !paths:
				name = "file(" + FileToken + ")"
			case x.Graph != nil:
				name = x.Graph.Name
			}
			ph = append(ph, fmt.Sprintf("%s×%d", name, x.Length))
		}
		p = append(p, "--graph-schedule "+strings.Join(ph, ","))
	}
	if m.LinkUp != 0 && m.LinkUp != 1 {
		p = append(p, "--link-up "+strconv.FormatFloat(m.LinkUp, 'g', -1, 64))
	}
	if m.EdgeStream != "" {
		p = append(p, "--edge-stream "+file(m.EdgeStream))
	} else if m.Stream != nil {
		p = append(p, "--edge-stream (given)")
	}
	if k := m.Activation.Kind; k != "" && k != ActEdges {
		s := "--activation " + k
		if k == ActWeights && m.Activation.File != "" {
			s += ":" + file(m.Activation.File)
		}
		p = append(p, s)
	}
	return strings.Join(p, " ")
}

// String gives c in ParseChurn's syntax.
func (c Churn) String() string {
	switch c.Dist {
	case "":
		return "none"
	case DistFile:
		return "file:" + c.File
	}
	s := fmt.Sprintf("%s:up=%g,down=%g", c.Dist, c.Up, c.Down)
	if c.Dist == DistLognormal && c.Sigma != 0 {
		s += fmt.Sprintf(",sigma=%g", c.Sigma)
	}
	return s
}

// String gives d in ParseDelay's syntax.
func (d Delay) String() string {
	switch d.Dist {
	case DelayConstant:
		return fmt.Sprintf("constant:%d", d.C)
	case DelayUniform:
		return fmt.Sprintf("uniform:%d..%d", d.A, d.B)
	case DelayGeometric:
		return fmt.Sprintf("geometric:mean=%g,max=%d", d.Mean, d.Max)
	}
	return "none"
}

// keyValues parses "k=v,k=v" for the named flag.
func keyValues(flag, s string, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || v == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", flag, kv)
		}
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			return nil, fmt.Errorf("%s: unknown key %q; valid keys are %s", flag, k, strings.Join(allowed, ", "))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s: %s given twice", flag, k)
		}
		out[k] = v
	}
	return out, nil
}

func parseFloat(flag, key, v string) (float64, error) {
	x, err := plainFloat(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s=%q is not a number", flag, key, v)
	}
	return x, nil
}

// plainFloat is strconv.ParseFloat without Go's literal syntax beyond
// plain decimals (1_000, 0x1p-2), refused as in data files: a typo should
// not pass for a number.
func plainFloat(v string) (float64, error) {
	if strings.ContainsAny(v, "_xXpP") {
		return 0, fmt.Errorf("%q is not a plain decimal number", v)
	}
	return strconv.ParseFloat(v, 64)
}

// ParseChurn parses the --churn flag: "none", "exponential:up=U,down=D",
// "geometric:up=U,down=D", "lognormal:up=U,down=D[,sigma=S]" or
// "file:PATH". The result is validated.
func ParseChurn(s string) (Churn, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return Churn{}, nil
	}
	dist, rest, _ := strings.Cut(s, ":")
	c := Churn{Dist: strings.ToLower(dist)}
	switch c.Dist {
	case DistFile:
		c.File = rest
	case DistExponential, DistGeometric, DistLognormal:
		keys := []string{"up", "down"}
		if c.Dist == DistLognormal {
			keys = append(keys, "sigma")
		}
		if strings.TrimSpace(rest) == "" {
			return Churn{}, fmt.Errorf("--churn: %s needs up=MEAN,down=MEAN (iterations), e.g. %s:up=4500,down=500", c.Dist, c.Dist)
		}
		kv, err := keyValues("--churn", rest, keys...)
		if err != nil {
			return Churn{}, err
		}
		for _, k := range []string{"up", "down"} {
			if _, ok := kv[k]; !ok {
				return Churn{}, fmt.Errorf("--churn: %s needs up=MEAN,down=MEAN (iterations)", c.Dist)
			}
		}
		if c.Up, err = parseFloat("--churn", "up", kv["up"]); err != nil {
			return Churn{}, err
		}
		if c.Down, err = parseFloat("--churn", "down", kv["down"]); err != nil {
			return Churn{}, err
		}
		if v, ok := kv["sigma"]; ok {
			if c.Sigma, err = parseFloat("--churn", "sigma", v); err != nil {
				return Churn{}, err
			}
			if c.Sigma == 0 {
				// Churn.Sigma 0 is the default 1 (the Go API's zero
				// value): a sigma=0 written out would run as 1.
				return Churn{}, fmt.Errorf("--churn: lognormal sigma=0 is not a distribution this model draws: give sigma in (0, 10], or leave it out for 1")
			}
		}
	}
	return c, c.validate()
}

// ParseDelay parses the --delay flag: "none", "constant:C", "uniform:A..B"
// or "geometric:mean=M,max=X". The result is validated (an unbounded
// geometric delay is refused).
func ParseDelay(s string) (Delay, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return Delay{}, nil
	}
	dist, rest, _ := strings.Cut(s, ":")
	d := Delay{Dist: strings.ToLower(dist)}
	var err error
	switch d.Dist {
	case DelayConstant:
		if d.C, err = strconv.Atoi(rest); err != nil {
			return Delay{}, fmt.Errorf("--delay: constant:%q is not an integer number of events", rest)
		}
	case DelayUniform:
		a, b, ok := strings.Cut(rest, "..")
		if !ok {
			return Delay{}, fmt.Errorf("--delay: uniform needs A..B, got %q", rest)
		}
		d.A, err = strconv.Atoi(a)
		if err == nil {
			d.B, err = strconv.Atoi(b)
		}
		if err != nil {
			return Delay{}, fmt.Errorf("--delay: uniform:%q needs integer bounds", rest)
		}
	case DelayGeometric:
		kv, err := keyValues("--delay", rest, "mean", "max")
		if err != nil {
			return Delay{}, err
		}
		if _, ok := kv["max"]; !ok {
			return Delay{}, fmt.Errorf("--delay: geometric delays must be bounded: give max=EVENTS")
		}
		if d.Mean, err = parseFloat("--delay", "mean", kv["mean"]); err != nil {
			return Delay{}, err
		}
		if d.Max, err = strconv.Atoi(kv["max"]); err != nil {
			return Delay{}, fmt.Errorf("--delay: max=%q is not an integer", kv["max"])
		}
	}
	return d, d.validate()
}

// ParseActivation parses the --activation flag: "edges", "clocks" or
// "weights:FILE" ("adaptive" exists only through the Go API).
func ParseActivation(s string) (Activation, error) {
	s = strings.TrimSpace(s)
	kind, rest, colon := strings.Cut(s, ":")
	a := Activation{Kind: strings.ToLower(kind)}
	switch a.Kind {
	case "", ActEdges, ActClocks:
		if rest != "" || colon {
			return Activation{}, fmt.Errorf("--activation: %s takes no argument", a.Kind)
		}
	case ActWeights:
		a.File = rest
	case ActAdaptive:
		return Activation{}, fmt.Errorf("--activation: adaptive pickers are Go values (network.Activation.Picker); the command line offers edges, clocks, weights:FILE")
	}
	return a, a.validate()
}

// phaseKeys are the keys of a --graph-schedule phase of each graph kind
// (graph.Spec's fields that kind uses), phaseNeeds those it must give, and
// phaseExample a phase that gives them.
var (
	phaseKeys = map[string][]string{
		"complete": {"n"}, "cycle": {"n"}, "star": {"n"}, "path": {"n"},
		"watts-strogatz": {"n", "k", "p", "seed"}, "erdos-renyi": {"n", "p", "seed"},
		"grid": {"n", "rows", "cols"}, "torus": {"n", "rows", "cols"},
		"geometric": {"n", "radius", "seed"}, "file": nil,
	}
	phaseNeeds   = map[string][]string{"watts-strogatz": {"k", "p"}, "erdos-renyi": {"p"}}
	phaseExample = map[string]string{"watts-strogatz": "100:watts-strogatz:k=5,p=0.3", "erdos-renyi": "100:erdos-renyi:p=0.01"}
)

// ParseSchedule parses the --graph-schedule flag: phases separated by ";",
// each "LENGTH:KIND[:key=value,...]" with the keys of graph.Spec that KIND
// uses (phaseKeys; another is refused) or "LENGTH:file:PATH". A
// watts-strogatz phase gives k and p, an erdos-renyi phase p; seed
// defaults to 0 (phases that omit it draw the same graph), n to the run's
// (Config.NetworkModel). Example:
// "5000:watts-strogatz:n=699,k=5,p=0.3,seed=1;5000:cycle:n=699".
func ParseSchedule(s string) ([]Phase, error) {
	var out []Phase
	for x, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		ls, rest, ok := strings.Cut(part, ":")
		length, err := strconv.ParseInt(ls, 10, 64)
		if !ok || err != nil || length < 1 {
			return nil, fmt.Errorf("--graph-schedule: phase %d %q: want LENGTH:KIND[:key=value,...] with LENGTH >= 1 iterations", x+1, part)
		}
		kind, args, _ := strings.Cut(rest, ":")
		spec := graph.Spec{Kind: strings.ToLower(kind)}
		keys, known := phaseKeys[spec.Kind]
		if !known {
			return nil, fmt.Errorf("--graph-schedule: phase %d: unknown graph kind %q; valid kinds are %s", x+1, kind, strings.Join(graph.Kinds, ", "))
		}
		var kv map[string]string
		if spec.Kind == "file" {
			spec.File = args
		} else if args != "" {
			// A key the kind does not use is refused, as the run's own
			// flags refuse one (--p with --graph cycle): it would be
			// ignored.
			var err error
			if kv, err = keyValues(fmt.Sprintf("--graph-schedule: phase %d (%s)", x+1, spec.Kind), args, keys...); err != nil {
				return nil, err
			}
			for k, v := range kv {
				var e error
				switch k {
				case "n":
					spec.N, e = strconv.Atoi(v)
				case "k":
					spec.K, e = strconv.Atoi(v)
				case "rows":
					spec.Rows, e = strconv.Atoi(v)
				case "cols":
					spec.Cols, e = strconv.Atoi(v)
				case "p":
					spec.P, e = plainFloat(v)
				case "radius":
					spec.Radius, e = plainFloat(v)
				case "seed":
					spec.Seed, e = strconv.ParseUint(v, 10, 64)
				}
				if e != nil {
					return nil, fmt.Errorf("--graph-schedule: phase %d: %s=%q is not a number", x+1, k, v)
				}
			}
		}
		// The parameters that define a random family's graph are given, not
		// defaulted: a phase without p would be a ring lattice where the
		// run's --p defaults to 0.3.
		for _, k := range phaseNeeds[spec.Kind] {
			if _, ok := kv[k]; !ok {
				return nil, fmt.Errorf("--graph-schedule: phase %d (%s) needs %s= (e.g. %q)", x+1, spec.Kind, k, phaseExample[spec.Kind])
			}
		}
		out = append(out, Phase{Spec: spec, Length: length})
	}
	return out, nil
}
