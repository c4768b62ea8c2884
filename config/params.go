package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// Param is one parameter of Config, declared once in the table params:
// the names it goes by (the flag of pairgossip run, the key of a sweep file,
// the name in Config's JSON form), its help text, its default (the field of
// DefaultConfig), its kind (the field's type) and its validation. The flags
// of pairgossip run and gap are bound from the table (cli.BindFlags), the sweep
// keys come from it (package sweep), and Config.Validate runs its checks.
type Param struct {
	Field string // the Config field
	Flag  string // pairgossip run's flag, without the dashes
	// Key is the key of a sweep file ("": not settable in a sweep file: it
	// does not change results, or the sweep sets it by other means).
	Key string
	// JSON is the field's name in Config's JSON form: summary.json, sweep
	// databases and run ids ("-": kept out of it). The struct tag says the
	// same (a test checks it).
	JSON string
	Help string
	// Group "graph" marks the graph's parameters, which pairgossip gap
	// takes too; "network" the network's (config/network.go), which gap
	// takes too (but --write-edges) for the effective gap.
	Group string
	// Path: the value is a file name (a sweep file's relative paths are
	// relative to the sweep file).
	Path bool
	// Choices, if not nil, lists the values a string parameter takes; the
	// empty string is accepted too (it means Auto, or the default).
	Choices []string
	// Auto is what the command line calls the empty value ("auto" for the
	// schedule), when it has a name.
	Auto string
	// Unset is what the zero value, the parameter left unset, means where a
	// listing names it (a sweep report's cell): "edges" for the
	// activation, "1" for link_up. Empty: Auto when there is one, else the
	// zero itself ("0", "false") or "none" for a string (UnsetLabel).
	Unset string
	// Noun is what a value is called in errors ("unknown graph ...").
	Noun string
	// OldFlags and OldKeys are deprecated spellings, still accepted so that
	// existing scripts and sweep files keep working.
	OldFlags, OldKeys []string

	check func(v any) error // the value on its own (nil: any value)
	// givenZero, if not empty, is why a zero is refused where a user gives
	// it (a flag set, a sweep file's key): zero is how a program leaves the
	// parameter unset, and that is not what a zero given reads as
	// (--link-up 0 reads as every link down, but unset means every link up).
	givenZero string
	// only, if not nil, says when the parameter applies: "" when it does
	// in c, else why not ("applies to grid and torus, but the graph is
	// cycle"). A parameter given a value (neither zero nor its default)
	// where it does not apply is refused (Config.Validate: one rule for
	// every parameter that has a condition).
	only func(c *Config) string
}

// Kind is the type of a parameter's value.
type Kind int

// The kinds of parameters. Get and Set exchange their values as string,
// int64, uint64, float64 and bool.
const (
	KindString Kind = iota
	KindInt
	KindUint
	KindFloat
	KindBool
)

var params = []*Param{
	{Field: "Problem", Flag: "problem", Key: "problem", JSON: "problem",
		Help: "objective: auc (logistic), auc-hinge, auc-squared-hinge, metric; ranking (multipartite:\n" +
			"ordered levels, logistic surrogate), ranking-hinge, ranking-squared-hinge; similarity\n" +
			"(bilinear similarity learning, θ = W ∈ R^{d×d}, with --reg l2 or l2-ball)",
		check: func(v any) error { return problem.ParseProblemName(v.(string)) }},
	{Field: "Data", Flag: "data", Key: "data", JSON: "data", Path: true,
		Help: "breast-cancer (embedded), synthetic (the paper's metric-learning set), synthetic-auc\n" +
			"(two Gaussian classes, any --n and --dim), synthetic-metric (the paper's mixture at any\n" +
			"--n, --dim, --classes), or a file: CSV, LIBSVM, NumPy .npy (labels from the y.npy beside\n" +
			"it) or .npz",
		check: dataExists},
	{Field: "N", Unset: "default", Flag: "n", Key: "n", JSON: "n",
		Help:  "points (nodes) of synthetic-auc / synthetic-metric (0: their default, 1000)",
		check: atLeast(0),
		only:  onlyData("synthetic-auc and synthetic-metric", dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric)},
	{Field: "Dim", Unset: "default", Flag: "dim", Key: "dim", JSON: "dim",
		Help:  "dimension of synthetic-auc / synthetic-metric (0: 16 / 40)",
		check: atLeast(0),
		only:  onlyData("synthetic-auc and synthetic-metric", dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric)},
	{Field: "Classes", Unset: "10", Flag: "classes", Key: "classes", JSON: "classes",
		Help:  "classes of synthetic-metric (0: 10)",
		check: atLeast(0),
		only:  onlyClasses},
	{Field: "DataSeed", Flag: "data-seed", Key: "data_seed", JSON: "data_seed",
		Help: "seed of the synthetic data set"},
	{Field: "LabelColumn", Flag: "label-column", Key: "label_column", JSON: "label_column",
		Help: "CSV: 1-based label column (0: last; negative counts from the end); or --label-name",
		only: onlyFile("CSV", ".npy", ".npz", ".svm", ".libsvm")},
	{Field: "CSVHeader", Flag: "csv-header", Key: "csv_header", JSON: "csv_header", Choices: []string{"present", "absent"}, Auto: "auto", Noun: "CSV header mode",
		Help: "CSV: whether the first line holds column names: auto (when every feature field of it is\nnon-numeric text), present or absent",
		only: onlyFile("CSV", ".npy", ".npz", ".svm", ".libsvm")},
	{Field: "LabelName", Flag: "label-name", Key: "label_name", JSON: "label_name",
		Help: "CSV: the label column by its name in the header line (the file then has one)",
		only: onlyFile("CSV", ".npy", ".npz", ".svm", ".libsvm")},
	{Field: "DropColumns", Flag: "drop-columns", Key: "drop_columns", JSON: "drop_columns",
		Help:  "CSV: columns to ignore (an id column...): comma-separated 1-based numbers or header names",
		check: dropList,
		only:  onlyFile("CSV", ".npy", ".npz", ".svm", ".libsvm")},
	{Field: "LIBSVMDim", Unset: "from the file", Flag: "libsvm-dim", Key: "libsvm_dim", JSON: "libsvm_dim",
		Help: "LIBSVM: the dimension (0: the largest index in the file); an index above it is an error", check: atLeast(0),
		only: onlyFile("LIBSVM", ".npy", ".npz", ".csv")},
	{Field: "LabelsFile", Flag: "labels-file", Key: "labels_file", JSON: "labels_file", Path: true,
		Help:  "NumPy: the .npy file of the labels of a .npy --data file (default: the y.npy beside it)",
		check: fileExists,
		only:  onlyFile("NumPy .npy", ".npz", ".csv", ".svm", ".libsvm")},
	{Field: "Graph", Flag: "graph", Key: "graph", JSON: "graph", Group: "graph", Choices: graph.Kinds, Noun: "graph",
		Help: "topology: " + strings.Join(graph.Kinds, ", "),
		only: onlyStatic(nil)},
	{Field: "GraphK", Flag: "k", Key: "graph_k", JSON: "graph_k", Group: "graph",
		Help:  "Watts–Strogatz k: each node is joined to ⌊k/2⌋ neighbours on each side\nbefore rewiring (k = 5 gives degree 4, as in networkx and the paper)",
		check: atLeast(0),
		only:  onlyStatic(onlyGraph("watts-strogatz"))},
	{Field: "GraphP", Flag: "p", Key: "graph_p", JSON: "graph_p", Group: "graph",
		Help:  "Watts–Strogatz rewiring probability, or Erdős–Rényi edge probability",
		check: within(0, 1),
		only:  onlyStatic(onlyGraph("watts-strogatz", "erdos-renyi"))},
	{Field: "GraphR", Unset: "auto", Flag: "graph-radius", Key: "graph_radius", JSON: "graph_radius", Group: "graph", OldFlags: []string{"radius"},
		Help:  "random geometric graph: connection radius in the unit square (0: 1.5·sqrt(log n / (π n)));\nnot the ℓ2 ball's radius, which is --ball-radius",
		check: atLeast(0),
		only:  onlyStatic(onlyGraph("geometric"))},
	{Field: "GraphFile", Flag: "graph-file", Key: "graph_file", JSON: "graph_file", Group: "graph", Path: true,
		Help:  "edge list for --graph file: whitespace-separated node ids, # comments",
		check: fileExists},
	{Field: "GraphRows", Unset: "auto", Flag: "rows", Key: "graph_rows", JSON: "graph_rows", Group: "graph",
		Help: "grid/torus rows (0: near-square factorisation of n)", check: atLeast(0),
		only: onlyStatic(onlyGraph("grid", "torus"))},
	{Field: "GraphCols", Unset: "auto", Flag: "cols", Key: "graph_cols", JSON: "graph_cols", Group: "graph",
		Help: "grid/torus columns", check: atLeast(0),
		only: onlyStatic(onlyGraph("grid", "torus"))},
	{Field: "GraphSeed", Flag: "graph-seed", Key: "graph_seed", JSON: "graph_seed", Group: "graph",
		Help: "seed of the random graph; a disconnected draw is redrawn with a new sub-seed"},
	{Field: "PointsNode", Flag: "points-per-node", Key: "points_per_node", JSON: "points_per_node", Group: "graph",
		Help:  "k data points per physical node: runs on G ⊗ K_k (paper appendix), gap/k",
		check: atLeast(1)},
	{Field: "Algorithm", Flag: "algo", Key: "algorithm", JSON: "algorithm",
		Help:  "algorithm: sync (Alg. 2), async (Alg. 3), centralized (Alg. 1)",
		check: parsedBy(engine.ParseAlgorithm)},
	{Field: "Baseline", Flag: "baseline", Key: "baseline", JSON: "baseline",
		Help:  "gradient estimate: gossip (propagated y_k) or unbiased (x_j, j uniform, paper Fig. 2)",
		check: parsedBy(engine.ParseEstimator)},
	{Field: "Iters", Flag: "iters", Key: "iters", JSON: "iters",
		Help:  "iterations T: rounds (sync), edge events (async) or steps (centralized), at most 2^53",
		check: itersInRange},
	{Field: "Reg", Flag: "reg", Key: "reg", JSON: "reg",
		Help:  "regulariser ψ: none, l2 (λ‖θ‖²), l1 (λ‖θ‖₁), l2-ball (radius --ball-radius), psd (cone)\n(default: psd for metric learning, none otherwise)",
		check: parsedBy(problem.ParseReg)},
	{Field: "Lambda", Flag: "lambda", Key: "lambda", JSON: "lambda",
		Help: "λ of the l2 and l1 regularisers", check: atLeast(0),
		only: onlyReg(problem.RegL2Sq, problem.RegL1)},
	{Field: "Radius", Flag: "ball-radius", Key: "ball_radius", JSON: "radius", OldKeys: []string{"radius"},
		Help:  "radius of the l2-ball constraint (--reg l2-ball); not the geometric graph's, which is --graph-radius",
		check: above(0),
		only:  onlyReg(problem.RegL2Ball)},
	{Field: "B", Flag: "b", Key: "b", JSON: "b",
		Help: "metric learning threshold b > 0", check: above(0),
		only: onlyMetric},
	{Field: "GammaC", Flag: "gamma-c", Key: "gamma_c", JSON: "gamma_c",
		Help:  "step size constant c in γ(t) = c/t^(1/2+α) (metric learning wants ≈ 0.01)",
		check: above(0)},
	{Field: "GammaAlpha", Flag: "gamma-alpha", Key: "gamma_alpha", JSON: "gamma_alpha",
		Help:  "step size exponent α in [0, 0.5)",
		check: halfOpen(0, 0.5)},
	{Field: "Seed", Flag: "seed", Key: "seed", JSON: "seed",
		Help: "seed of the edge stream and of every per-node draw"},
	{Field: "LogPoints", Flag: "log-points", Key: "log_points", JSON: "log_points",
		Help: "number of log-spaced iterations measured (the last is always one); at most --iters\n(the default 30 is lowered to --iters) and at most 1000000", check: between(1, MaxLogPoints)},
	{Field: "EvalNodes", Flag: "eval-nodes", Key: "eval_nodes", JSON: "eval_nodes",
		Help: "nodes whose θ̄_k are measured: 0 = all when cheap, else a seeded sample; -1 = all", check: atLeast(-1)},
	{Field: "Measure", Flag: "measure", Key: "measure", JSON: "measure", Choices: problem.EvalModeNames, Auto: "auto", Noun: "measurement mode",
		Help: "how the objective, AUC and bias are measured: auto (exact pair by pair while that costs\n" +
			"under about a second a measurement, else exact by sorting for the hinge losses and the AUC,\n" +
			"else an incomplete U-statistic: a seeded sample of pairs, with its standard error in\n" +
			"trace.csv), exact, or sampled"},
	{Field: "MeasurePrecision", Unset: "0.01", Flag: "measure-precision", Key: "measure_precision", JSON: "measure_precision",
		Help:  "relative standard error a sampled measurement aims at (0: 0.01)",
		check: atLeast(0)},
	{Field: "Schedule", Flag: "schedule", Key: "schedule", JSON: "schedule", Choices: scheduleNames(), Auto: string(engine.ScheduleAuto), Noun: "schedule",
		Help: "how the iterations are executed: auto (reduced where it applies, else blocked/plain/reference),\nplain, blocked (bit-identical to the literal algorithm with the generic kernels), reduced\n(scalar recurrences between touches: exact in real arithmetic, agrees to ~1e-15), reference"},
	{Field: "StopAt", Unset: "off", Flag: "stop-at", Key: "stop_at", JSON: "stop_at",
		Help: "stop at the first measurement whose mean objective is within REL of the optimum,\n" +
			"(objective − optimum)/|optimum| ≤ REL (0: off): the optimum is solved (or taken from the\n" +
			"cache) before the run, measurements are added between the log points (at most ×1.1 apart,\n" +
			"so the run stops at most 10% past the first measurement that would meet it), and --iters\n" +
			"stays the cap (summary.json: stop \"reached\" or \"not reached\")",
		check: atLeast(0),
		only: func(c *Config) string {
			if c.SkipOptimum {
				return "it stops at a distance from the optimum, which --no-optimum skips"
			}
			return ""
		}},
	{Field: "Workers", Flag: "workers", JSON: "-",
		Help: "worker goroutines (0: all cores, at most 4096); results do not depend on it", check: between(0, MaxWorkers)},
	{Field: "Pin", Flag: "pin", JSON: "-",
		Help: "pin each worker to a CPU of the process's affinity mask (Linux; a no-op, with the\nreason in summary.json, where it cannot help); results do not depend on it"},
	{Field: "SkipOptimum", Flag: "no-optimum", JSON: "-",
		Help: "skip the centralized full-batch optimum R_n(θ*)"},
	{Field: "NoOptimumCache", Flag: "no-optimum-cache", JSON: "-",
		Help: "solve the optimum R_n(θ*) again instead of taking it from the cache of optima\n(os.UserCacheDir()/pairgossip/optimum), and do not store it there; results do not depend on it"},
}

func init() {
	params = append(params, netParams...)
	t := reflect.TypeOf(Config{})
	for _, p := range params {
		f, ok := t.FieldByName(p.Field)
		if !ok {
			panic("config: params names no field " + p.Field)
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64, reflect.Bool:
		default:
			panic("config: unsupported Config field type " + f.Type.String())
		}
	}
}

// Base is the configuration the command line and sweep files start
// from: DefaultConfig with Reg left empty, so that WithDefaults chooses it
// from the problem (psd for metric learning, none otherwise).
func Base() Config {
	c := Default()
	c.Reg = ""
	return c
}

// Params returns the table of Config's parameters, in the order of its
// fields.
func Params() []*Param { return slices.Clone(params) }

// ParamByKey returns the parameter a sweep file's key names; deprecated is
// true for an old spelling (Param.OldKeys).
func ParamByKey(key string) (p *Param, deprecated bool) {
	for _, p := range params {
		if p.Key != "" && p.Key == key {
			return p, false
		}
		if slices.Contains(p.OldKeys, key) {
			return p, true
		}
	}
	return nil, false
}

// ParamByFlag returns the parameter with the given flag (without the
// dashes), nil if none.
func ParamByFlag(flag string) *Param {
	for _, p := range params {
		if p.Flag == flag {
			return p
		}
	}
	return nil
}

// ParamByJSON returns the parameter with the given JSON name.
func ParamByJSON(name string) *Param {
	for _, p := range params {
		if p.JSON == name {
			return p
		}
	}
	return nil
}

// Ptr returns a pointer to the parameter's field of c (*string, *int,
// *int64, *uint64, *float64 or *bool): what a flag binds to.
func (p *Param) Ptr(c *Config) any {
	return reflect.ValueOf(c).Elem().FieldByName(p.Field).Addr().Interface()
}

// Kind is the kind of the parameter's value.
func (p *Param) Kind() Kind {
	switch p.Ptr(&Config{}).(type) {
	case *string:
		return KindString
	case *int, *int64:
		return KindInt
	case *uint64:
		return KindUint
	case *float64:
		return KindFloat
	}
	return KindBool
}

// Get returns the parameter's value in c, as a string, int64, uint64,
// float64 or bool (by Kind).
func (p *Param) Get(c *Config) any {
	switch f := p.Ptr(c).(type) {
	case *string:
		return *f
	case *int:
		return int64(*f)
	case *int64:
		return *f
	case *uint64:
		return *f
	case *float64:
		return *f
	case *bool:
		return *f
	}
	panic("unreachable")
}

// Set sets the parameter's value in c; v is of the type Get returns.
func (p *Param) Set(c *Config, v any) {
	switch f := p.Ptr(c).(type) {
	case *string:
		*f = v.(string)
	case *int:
		*f = int(v.(int64))
	case *int64:
		*f = v.(int64)
	case *uint64:
		*f = v.(uint64)
	case *float64:
		*f = v.(float64)
	case *bool:
		*f = v.(bool)
	}
}

// Allows reports whether a string is one of the parameter's Choices (or
// empty); true for a parameter without Choices.
func (p *Param) Allows(s string) bool {
	return p.Choices == nil || s == "" || slices.Contains(p.Choices, s)
}

// CheckValue validates a value of the parameter on its own (v of the type
// Get returns). The error says what is wrong without naming the parameter;
// Check and Config.Validate name it.
func (p *Param) CheckValue(v any) error {
	if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return fmt.Errorf("must be a finite number, got %v", x)
	}
	if s, ok := v.(string); ok && !p.Allows(s) {
		return fmt.Errorf("unknown %s %q (valid: %s)", p.Noun, s, strings.Join(p.Choices, ", "))
	}
	if p.check != nil {
		return p.check(v)
	}
	return nil
}

// CheckGiven refuses a zero given explicitly (a flag set, a sweep file's
// key) where zero would not mean what it reads as (Param.givenZero); v is
// of the type Get returns, and CheckValue is checked apart.
func (p *Param) CheckGiven(v any) error {
	if p.givenZero != "" && v == reflect.Zero(reflect.TypeOf(v)).Interface() {
		return errors.New(p.givenZero)
	}
	return nil
}

// Underflow says why the number s, which parsed to x, is refused when it is
// a non-zero number too small for a float64 (strconv.ParseFloat gives 0 for
// 1e-400 without an error: --loss 1e-400 would run without loss), or
// returns "".
func Underflow(s string, x float64) string {
	if x != 0 {
		return ""
	}
	m := strings.ToLower(strings.TrimLeft(s, "+-"))
	digits, exp := "123456789", "e"
	if h, ok := strings.CutPrefix(m, "0x"); ok {
		m, digits, exp = h, "123456789abcdef", "p"
	}
	if i := strings.Index(m, exp); i >= 0 {
		m = m[:i] // the mantissa
	}
	if !strings.ContainsAny(m, digits) {
		return ""
	}
	return fmt.Sprintf("%s is not zero but below the smallest float64 (4.9e-324): it would be read as 0", s)
}

// RefusesGivenZero reports whether CheckGiven can refuse a value.
func (p *Param) RefusesGivenZero() bool { return p.givenZero != "" }

// UnsetLabel is what the parameter left unset (its zero value, which
// Config's JSON form omits) means, as a listing shows it: Unset, else
// Auto, else "0", "false" or "none" by its kind.
func (p *Param) UnsetLabel() string {
	switch {
	case p.Unset != "":
		return p.Unset
	case p.Auto != "":
		return p.Auto
	}
	switch p.Kind() {
	case KindString:
		return "none"
	case KindBool:
		return "false"
	}
	return "0"
}

// Check validates the parameter's value in c on its own, as a *ParamError.
func (p *Param) Check(c *Config) error {
	if err := p.CheckValue(p.Get(c)); err != nil {
		return &ParamError{Param: p, Err: err}
	}
	return nil
}

// ParamError is an invalid value of a parameter. Its message names the
// parameter by its field of Config, as a Go program sets it
// ("Config.Iters must be >= 1, got 0"); FlagMessage names it by its flag
// ("--iters must be >= 1, got 0"), as the command line says it, and
// KeyMessage by its sweep key. One error, three readers: the table of
// parameters gives each name.
type ParamError struct {
	Param *Param
	Err   error // what is wrong, without the parameter's name
}

func (e *ParamError) Error() string { return named("Config."+e.Param.Field, e.Err.Error()) }
func (e *ParamError) Unwrap() error { return e.Err }

// Diff names the parameters whose values differ between a and b (a
// parameter kept out of the JSON form, Workers, aside), by flag with each
// side's value ("--iters 200" in was, "--iters 300" in now), in the
// table's order; a parameter without a flag by its Config field.
func Diff(a, b Config) (was, now []string) {
	for _, p := range params {
		if p.JSON == "-" {
			continue
		}
		x, y := fmt.Sprint(p.Get(&a)), fmt.Sprint(p.Get(&b))
		if x == y {
			continue
		}
		name := "Config." + p.Field
		if p.Flag != "" {
			name = "--" + p.Flag
		}
		show := func(v string) string {
			if v == "" {
				return name + " (unset)"
			}
			return name + " " + v
		}
		was, now = append(was, show(x)), append(now, show(y))
	}
	return was, now
}

// FlagMessage is the message naming the parameter by its flag of
// pairgossip run ("--iters must be >= 1, got 0").
func (e *ParamError) FlagMessage() string {
	if e.Param.Flag == "" {
		return e.Error()
	}
	return named("--"+e.Param.Flag, e.Err.Error())
}

// KeyMessage is the message naming the parameter by its sweep key
// (`key "iters": must be >= 1, got 0`), or by its flag when it has none.
func (e *ParamError) KeyMessage() string {
	if e.Param.Key == "" {
		return e.FlagMessage()
	}
	return fmt.Sprintf("key %q: %v", e.Param.Key, e.Err)
}

// FlagMessage returns err's message as the command line says it: an
// invalid parameter (a *ParamError anywhere in err's chain), and any
// parameter a message names as Config.Field, named by its flag; a
// divergence suggesting a smaller --gamma-c instead of GammaC. Other
// errors keep their message.
func FlagMessage(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var pe *ParamError
	if errors.As(err, &pe) {
		msg = strings.Replace(msg, pe.Error(), pe.FlagMessage(), 1)
	}
	var de *engine.DivergenceError
	if errors.As(err, &de) {
		msg = strings.Replace(msg, de.Error(), de.Message("--gamma-c"), 1)
	}
	// Any other mention of a parameter by its field ("give the labels file
	// (Config.LabelsFile)").
	return configField.ReplaceAllStringFunc(msg, func(m string) string {
		for _, p := range params {
			if p.Flag != "" && m == "Config."+p.Field {
				return "--" + p.Flag
			}
		}
		return m
	})
}

// configField matches a mention of a field of Config in a message.
// (a qualified engine.Config.X is left as it is: only a match that starts
// with "Config." is replaced).
var configField = regexp.MustCompile(`[\w.]*\bConfig\.[A-Z][A-Za-z0-9]*\b`)

// named prefixes a message with the name of what it is about: "--iters
// must be >= 1", "--graph: unknown graph ...".
func named(name, msg string) string {
	if strings.HasPrefix(msg, "must ") {
		return name + " " + msg
	}
	return name + ": " + msg
}

// Validate checks every parameter on its own (Param.Check), then those
// that go together: the algorithm and the graph, the graph file, the
// baseline. The error is a *ParamError naming the parameter at fault by its
// Config field (ParamError.FlagMessage names its flag, KeyMessage its sweep
// key). Reg may be empty (it
// is chosen by WithDefaults). pairgossip.Prepare calls Validate; the command line
// calls it before any work, and pairgossip sweep plan --check for every run.
func (c Config) Validate() error {
	for _, p := range params {
		if err := p.Check(&c); err != nil {
			return err
		}
	}
	algo, _ := engine.ParseAlgorithm(c.Algorithm)
	est, _ := engine.ParseEstimator(c.Baseline)
	switch {
	case c.Graph == "" && algo != engine.Centralized:
		return paramErrorf("Graph", "algorithm %s needs a graph", algo)
	case algo == engine.Centralized && est == engine.Unbiased:
		return paramErrorf("Baseline", "unbiased applies to the gossip algorithms (sync, async), not centralized")
	case int64(c.LogPoints) > c.Iters && c.LogPoints > Default().LogPoints:
		return paramErrorf("LogPoints", "must be <= the iterations (%d), got %d: a run measures at most once an iteration", c.Iters, c.LogPoints)
	}
	if err := c.validateGraphFile(); err != nil {
		return err
	}
	if err := c.validateApplies(func(*Param) bool { return true }); err != nil {
		return err
	}
	return c.validateNetwork()
}

// validateApplies refuses a parameter of those which selects that is given
// a value (neither zero nor its default: a sweep or a program that sets
// every parameter to its default is not refused) where it does not apply
// (Param.only). The seeds are not in the rule: one seed often drives a
// whole series of runs, some of which draw nothing with it.
func (c Config) validateApplies(which func(*Param) bool) error {
	def := Default()
	for _, p := range params {
		if p.only == nil || !which(p) {
			continue
		}
		v := p.Get(&c)
		if v == p.Get(&Config{}) || v == p.Get(&def) {
			continue
		}
		if why := p.only(&c); why != "" {
			return &ParamError{Param: p, Err: fmt.Errorf("does not apply: %s", why)}
		}
	}
	return nil
}

// onlyStatic: the parameter describes the run's graph, which a
// --graph-schedule replaces (each iteration's graph is its phase's), and
// then also meets next (if any).
func onlyStatic(next func(c *Config) string) func(c *Config) string {
	return func(c *Config) string {
		if c.GraphSchedule != "" {
			return "under --graph-schedule each iteration's graph is its phase's: give the graphs in the schedule's phases"
		}
		if next != nil {
			return next(c)
		}
		return ""
	}
}

// onlyGraph: the parameter applies to these graph kinds.
func onlyGraph(kinds ...string) func(c *Config) string {
	return func(c *Config) string {
		if c.Graph == "" || slices.Contains(kinds, strings.ToLower(c.Graph)) {
			return ""
		}
		return fmt.Sprintf("it applies to the graph %s, but the graph is %q", orList(kinds), c.Graph)
	}
}

// onlyData: the parameter applies to these built-in data sets.
func onlyData(what string, specs ...string) func(c *Config) string {
	return func(c *Config) string {
		if slices.Contains(specs, c.Data) {
			return ""
		}
		if c.Data == dataset.SpecSynthetic {
			return fmt.Sprintf("it sizes %s, but the data is %q, the paper's set as published (1000 points, dimension 40, 10 classes)", what, c.Data)
		}
		return fmt.Sprintf("it sizes %s, but the data is %q, which has its own size", what, c.Data)
	}
}

// onlyClasses: the classes apply to synthetic-metric, and to synthetic-auc
// when they are 2.
func onlyClasses(c *Config) string {
	if c.Data == dataset.SpecSyntheticAUC && c.Classes != 2 {
		return fmt.Sprintf("%s has 2 classes, got %d (%s takes more)", c.Data, c.Classes, dataset.SpecSyntheticMetric)
	}
	return onlyData("synthetic-metric", dataset.SpecSyntheticMetric, dataset.SpecSyntheticAUC)(c)
}

// onlyFile: the parameter applies to a data file of the format named; a
// built-in data set, or a file whose extension says another format, is
// refused.
func onlyFile(format string, otherExts ...string) func(c *Config) string {
	return func(c *Config) string {
		if isBuiltinData(c.Data) {
			return fmt.Sprintf("it applies to a %s data file, but the data is the built-in %q", format, c.Data)
		}
		if ext := strings.ToLower(filepath.Ext(c.Data)); slices.Contains(otherExts, ext) {
			return fmt.Sprintf("it applies to a %s data file, but the data %q is a %s file", format, c.Data, ext)
		}
		return ""
	}
}

// onlyReg: the parameter applies to these regularisers.
func onlyReg(kinds ...problem.RegKind) func(c *Config) string {
	return func(c *Config) string {
		rk, err := problem.ParseReg(c.WithDefaults().Reg)
		if err != nil || slices.Contains(kinds, rk) {
			return ""
		}
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = k.String()
		}
		return fmt.Sprintf("it applies to the regulariser %s, but the regulariser is %s", orList(names), rk)
	}
}

// onlyMetric: the threshold b applies to metric learning.
func onlyMetric(c *Config) string {
	if l, err := problem.ParseLoss(c.Problem); err != nil || l.IsMetric() {
		return ""
	}
	return fmt.Sprintf("it is the metric-learning threshold, but the problem is %s", c.Problem)
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// isBuiltinData reports whether a Data value names a built-in data set.
func isBuiltinData(s string) bool {
	return slices.Contains([]string{dataset.SpecBreastCancer, dataset.SpecSynthetic, dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric}, s)
}

// ValidateGraph checks the graph's parameters alone (Param.Group "graph"),
// what pairgossip gap takes: a graph must be given.
func (c Config) ValidateGraph() error {
	for _, p := range params {
		if p.Group == "graph" {
			if err := p.Check(&c); err != nil {
				return err
			}
		}
	}
	if c.Graph == "" {
		return paramErrorf("Graph", "must be given (valid: %s)", strings.Join(graph.Kinds, ", "))
	}
	if err := c.validateGraphFile(); err != nil {
		return err
	}
	return c.validateApplies(func(p *Param) bool { return p.Group == "graph" })
}

func (c Config) validateGraphFile() error {
	if c.Graph == "file" && c.GraphFile == "" {
		return paramErrorf("GraphFile", "must be given when the graph is file")
	}
	if c.Graph != "file" && c.GraphFile != "" {
		return paramErrorf("GraphFile", "is only read when the graph is file, but the graph is %q", c.Graph)
	}
	return nil
}

func paramErrorf(field, format string, a ...any) error {
	for _, p := range params {
		if p.Field == field {
			return &ParamError{Param: p, Err: fmt.Errorf(format, a...)}
		}
	}
	panic("config: no parameter " + field)
}

// toFloat returns a numeric value (int64, uint64 or float64) as a float64.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// MaxLogPoints bounds --log-points: each measurement is a record of the
// trace kept in memory and a pass over the evaluated nodes, and a run
// measured a million times is already measured far more often than a plot
// can show.
const MaxLogPoints = 1_000_000

// MaxWorkers bounds --workers: each worker is a goroutine with its own
// buffers. The bound is fixed (not a multiple of this machine's CPUs) so that
// a sweep checked on one machine is valid on another.
const MaxWorkers = 4096

// MaxIters bounds --iters: the clock t enters the step size γ(t) and the
// asynchronous clocks m_k as a float64, which counts every integer only up
// to 2^53; past it two iterations would share a clock value.
const MaxIters = 1 << 53

func itersInRange(v any) error {
	if err := atLeast(1)(v); err != nil {
		return err
	}
	if x, ok := v.(int64); ok && x > MaxIters || !ok && toFloat(v) > MaxIters { // in integers: 2^53+1 rounds to 2^53 as a float64
		return fmt.Errorf("must be <= 2^53 = %d (the clock t enters γ(t) as a float64, exact up to there), got %v", int64(MaxIters), v)
	}
	return nil
}

func atLeast(lo float64) func(v any) error {
	return func(v any) error {
		if toFloat(v) < lo {
			return fmt.Errorf("must be >= %v, got %v", lo, v)
		}
		return nil
	}
}

func above(lo float64) func(v any) error {
	return func(v any) error {
		if !(toFloat(v) > lo) {
			return fmt.Errorf("must be > %v, got %v", lo, v)
		}
		return nil
	}
}

// between: lo <= v <= hi, for integers (the message gives the bounds as
// such, "must be in 0..4096").
func between(lo, hi int64) func(v any) error {
	return func(v any) error {
		if x := toFloat(v); !(x >= float64(lo) && x <= float64(hi)) {
			return fmt.Errorf("must be in %d..%d, got %v", lo, hi, v)
		}
		return nil
	}
}

// within: lo <= v <= hi.
func within(lo, hi float64) func(v any) error {
	return func(v any) error {
		if x := toFloat(v); !(x >= lo && x <= hi) {
			return fmt.Errorf("must be in [%v, %v], got %v", lo, hi, v)
		}
		return nil
	}
}

// halfOpen: lo <= v < hi.
func halfOpen(lo, hi float64) func(v any) error {
	return func(v any) error {
		if x := toFloat(v); !(x >= lo && x < hi) {
			return fmt.Errorf("must be in [%v, %v), got %v", lo, hi, v)
		}
		return nil
	}
}

// parsedBy checks a string with a parser of the library (problem.ParseLoss,
// engine.ParseAlgorithm...), whose error lists the valid names.
func parsedBy[T any](parse func(string) (T, error)) func(v any) error {
	return func(v any) error {
		_, err := parse(v.(string))
		return err
	}
}

// dataExists: a built-in data set or an existing file.
func dataExists(v any) error {
	s := v.(string)
	builtins := []string{dataset.SpecBreastCancer, dataset.SpecSynthetic, dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric}
	if slices.Contains(builtins, s) {
		return nil
	}
	if s == "" {
		return fmt.Errorf("no data set given (%s or a file)", strings.Join(builtins, ", "))
	}
	if _, err := os.Stat(s); err != nil {
		return dataStatError(s, err, builtins)
	}
	return nil
}

// dataStatError says why the data path s cannot be opened: missing (and
// not a built-in), a symbolic link to nothing, a loop of links, a
// permission, as the system says.
func dataStatError(s string, err error, builtins []string) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%q: a loop of symbolic links (too many levels to resolve)", s)
	case errors.Is(err, fs.ErrNotExist):
		if target, lerr := os.Readlink(s); lerr == nil {
			return fmt.Errorf("%q: a symbolic link to %q, which does not exist", s, target)
		}
		return fmt.Errorf("%q: no such file (and not a built-in: %s)", s, strings.Join(builtins, ", "))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%q: %v", s, err)
}

// dropList: --drop-columns is empty or a comma-separated list of 1-based
// column numbers and names, none empty.
func dropList(v any) error {
	s := v.(string)
	if s == "" {
		return nil
	}
	for _, it := range strings.Split(s, ",") {
		it = strings.TrimSpace(it)
		if it == "" {
			return fmt.Errorf("an empty entry in %q (comma-separated column numbers or names)", s)
		}
		if n, err := strconv.Atoi(it); err == nil && n < 1 {
			return fmt.Errorf("column %d: columns are numbered from 1", n)
		}
	}
	return nil
}

// LoadOptions are the options of dataset.Load for c's data: the sizes of
// the synthetic sets, and how a CSV or LIBSVM file is read (pairgossip.Prepare uses
// them; so should anything else that loads a run's data, so that it reads
// the same data).
func (c Config) LoadOptions() dataset.LoadOptions {
	csv := dataset.CSVOptions{LabelColumn: c.LabelColumn, LabelName: c.LabelName}
	switch c.CSVHeader {
	case "present":
		csv.Header = dataset.HeaderPresent
	case "absent":
		csv.Header = dataset.HeaderAbsent
	}
	if c.DropColumns != "" {
		for _, it := range strings.Split(c.DropColumns, ",") {
			it = strings.TrimSpace(it)
			if n, err := strconv.Atoi(it); err == nil {
				csv.DropColumns = append(csv.DropColumns, n)
			} else {
				csv.DropNames = append(csv.DropNames, it)
			}
		}
	}
	return dataset.LoadOptions{Seed: c.DataSeed, N: c.N, Dim: c.Dim, Classes: c.Classes, Workers: c.Workers,
		CSV: csv, LIBSVM: dataset.LIBSVMOptions{D: c.LIBSVMDim},
		NPY: dataset.NPYOptions{Labels: c.LabelsFile, LabelsName: "Config.LabelsFile"}}
}

// fileExists: empty, or an existing file.
func fileExists(v any) error {
	if s := v.(string); s != "" {
		if _, err := os.Stat(s); err != nil {
			return fmt.Errorf("%q: no such file", s)
		}
	}
	return nil
}

// scheduleNames lists engine.Schedules as strings.
func scheduleNames() []string {
	out := make([]string, len(engine.Schedules))
	for i, v := range engine.Schedules {
		out[i] = string(v)
	}
	return out
}
