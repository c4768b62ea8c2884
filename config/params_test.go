package config_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip"
	. "github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/problem"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParamsCoverConfig: every field of Config has exactly one entry in the
// table, whose JSON name is the field's struct tag, and whose flag, key and
// deprecated spellings are unique.
func TestParamsCoverConfig(t *testing.T) {
	typ := reflect.TypeOf(Config{})
	count := map[string]int{}
	for _, p := range Params() {
		count[p.Field]++
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if count[f.Name] != 1 {
			t.Errorf("field %s has %d entries in the table, want 1", f.Name, count[f.Name])
		}
		delete(count, f.Name)
	}
	for name := range count {
		t.Errorf("the table names %s, which is not a field of Config", name)
	}
	if len(Params()) != typ.NumField() {
		t.Errorf("%d entries for %d fields", len(Params()), typ.NumField())
	}

	flags, keys := map[string]string{}, map[string]string{}
	claim := func(names map[string]string, name, field, what string) {
		if name == "" {
			return
		}
		if other, ok := names[name]; ok {
			t.Errorf("%s %q is used by both %s and %s", what, name, other, field)
		}
		names[name] = field
	}
	for _, p := range Params() {
		f, _ := typ.FieldByName(p.Field)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag != p.JSON {
			t.Errorf("%s: table JSON name %q, struct tag %q", p.Field, p.JSON, tag)
		}
		if p.Flag == "" || p.Help == "" {
			t.Errorf("%s: no flag or no help", p.Field)
		}
		claim(flags, p.Flag, p.Field, "flag")
		claim(keys, p.Key, p.Field, "key")
		for _, old := range p.OldFlags {
			claim(flags, old, p.Field, "flag")
		}
		for _, old := range p.OldKeys {
			claim(keys, old, p.Field, "key")
		}
		// The identity (JSON) and the sweep keys go together: a parameter kept
		// out of the JSON is no sweep key, and one in it can be set by its JSON
		// name (the key, or an old spelling of it), so sweep files and
		// databases written before a rename still work.
		switch {
		case p.JSON == "-" && p.Key != "":
			t.Errorf("%s: sweep key %q but kept out of the JSON identity", p.Field, p.Key)
		case p.JSON != "-" && p.Key != p.JSON && !contains(p.OldKeys, p.JSON):
			t.Errorf("%s: JSON name %q is neither its key %q nor an old spelling of it", p.Field, p.JSON, p.Key)
		}
		if q, _ := ParamByKey(p.Key); p.Key != "" && q != p {
			t.Errorf("ParamByKey(%q) is not %s", p.Key, p.Field)
		}
		if ParamByJSON(p.JSON) != p && p.JSON != "-" {
			t.Errorf("ParamByJSON(%q) is not %s", p.JSON, p.Field)
		}
		// Get and Set reach the field named.
		var c Config
		def := Default()
		p.Set(&c, p.Get(&def))
		got := reflect.ValueOf(c).FieldByName(p.Field).Interface()
		want := reflect.ValueOf(Default()).FieldByName(p.Field).Interface()
		if got != want {
			t.Errorf("%s: Set(Get(DefaultConfig)) gave %v, want %v", p.Field, got, want)
		}
	}
}

// TestNoNameClash: the current names are unambiguous across vocabularies:
// no flag, read as a key (- as _), is another parameter's key, and the sweep
// key of every parameter is its flag with _ for - but for the short flags
// named in pairgossip run --help.
func TestNoNameClash(t *testing.T) {
	short := map[string]string{"k": "graph_k", "p": "graph_p", "rows": "graph_rows", "cols": "graph_cols", "algo": "algorithm"}
	for _, p := range Params() {
		asKey := strings.ReplaceAll(p.Flag, "-", "_")
		if q, _ := ParamByKey(asKey); q != nil && q != p {
			t.Errorf("flag --%s of %s reads as the key of %s", p.Flag, p.Field, q.Field)
		}
		if p.Key == "" {
			continue
		}
		if want, ok := short[p.Flag]; ok {
			asKey = want
		}
		if p.Key != asKey {
			t.Errorf("%s: key %q is not its flag --%s with _ for -", p.Field, p.Key, p.Flag)
		}
	}
	// The two radii.
	g, _ := ParamByKey("graph_radius")
	b, _ := ParamByKey("ball_radius")
	if g.Field != "GraphR" || g.Flag != "graph-radius" || b.Field != "Radius" || b.Flag != "ball-radius" {
		t.Fatalf("graph radius %+v, ball radius %+v", g, b)
	}
	if old, deprecated := ParamByKey("radius"); old != b || !deprecated {
		t.Errorf("the old key radius is not a deprecated spelling of ball_radius")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestValidate: one message per parameter, naming its flag, or its key.
func TestValidate(t *testing.T) {
	for _, c := range []Config{Default(), Base()} {
		if err := c.Validate(); err != nil {
			t.Fatalf("the defaults are invalid: %v", err)
		}
	}
	cases := []struct {
		set     func(c *Config)
		msg, km string
	}{
		{func(c *Config) { c.Iters = 0 }, "--iters must be >= 1, got 0", `key "iters": must be >= 1, got 0`},
		{func(c *Config) { c.GammaC = -1 }, "--gamma-c must be > 0, got -1", `key "gamma_c": must be > 0, got -1`},
		{func(c *Config) { c.GammaAlpha = 0.5 }, "--gamma-alpha must be in [0, 0.5), got 0.5", `key "gamma_alpha": must be in [0, 0.5), got 0.5`},
		{func(c *Config) { c.GraphP = 1.5 }, "--p must be in [0, 1], got 1.5", `key "graph_p": must be in [0, 1], got 1.5`},
		{func(c *Config) { c.GraphR = -1 }, "--graph-radius must be >= 0, got -1", `key "graph_radius": must be >= 0, got -1`},
		{func(c *Config) { c.Radius = 0 }, "--ball-radius must be > 0, got 0", `key "ball_radius": must be > 0, got 0`},
		{func(c *Config) { c.Lambda = -0.1 }, "--lambda must be >= 0, got -0.1", `key "lambda": must be >= 0`},
		{func(c *Config) { c.B = 0 }, "--b must be > 0, got 0", `key "b": must be > 0`},
		{func(c *Config) { c.LogPoints = 0 }, "--log-points must be in 1..1000000, got 0", `key "log_points": must be in 1..1000000`},
		{func(c *Config) { c.LogPoints = math.MaxInt }, "--log-points must be in 1..1000000, got 9223372036854775807", `key "log_points"`},
		{func(c *Config) { c.Iters, c.LogPoints = 100, 101 }, "--log-points must be <= the iterations (100), got 101", `key "log_points": must be <= the iterations`},
		{func(c *Config) { c.EvalNodes = -2 }, "--eval-nodes must be >= -1, got -2", `key "eval_nodes": must be >= -1`},
		{func(c *Config) { c.GraphFile = "params.go" }, `--graph-file: is only read when the graph is file, but the graph is "watts-strogatz"`, `key "graph_file": is only read`},
		{func(c *Config) { c.PointsNode = -1 }, "--points-per-node must be >= 1, got -1", `key "points_per_node"`},
		{func(c *Config) { c.Workers = -1 }, "--workers must be in 0..4096, got -1", "--workers must be in 0..4096"},
		{func(c *Config) { c.Workers = math.MaxInt }, "--workers must be in 0..4096, got 9223372036854775807", "--workers must be in"},
		{func(c *Config) { c.Lambda = posInf() }, "--lambda must be a finite number, got +Inf", `key "lambda": must be a finite number`},
		{func(c *Config) { c.Problem = "ordinal-svm" }, `--problem: unknown problem "ordinal-svm"`, `key "problem": unknown problem "ordinal-svm"`},
		{func(c *Config) { c.Algorithm = "magic" }, `--algo: unknown algorithm "magic"`, `key "algorithm": unknown algorithm`},
		{func(c *Config) { c.Baseline = "biased" }, `--baseline: unknown baseline "biased"`, `key "baseline"`},
		{func(c *Config) { c.Reg = "l3" }, `--reg: unknown regulariser "l3"`, `key "reg"`},
		{func(c *Config) { c.Graph = "hypercube" }, `--graph: unknown graph "hypercube" (valid: complete,`, `key "graph": unknown graph`},
		{func(c *Config) { c.Schedule = "fast" }, `--schedule: unknown schedule "fast" (valid: auto, plain,`, `key "schedule"`},
		{func(c *Config) { c.Data = "no-such.csv" }, `--data: "no-such.csv": no such file`, `key "data": "no-such.csv": no such file`},
		{func(c *Config) { c.Graph, c.GraphFile = "file", "no-such.txt" }, `--graph-file: "no-such.txt": no such file`, `key "graph_file"`},
		{func(c *Config) { c.Graph = "file" }, "--graph-file must be given when the graph is file", `key "graph_file": must be given`},
		{func(c *Config) { c.Graph = "" }, "--graph: algorithm sync needs a graph", `key "graph": algorithm sync needs a graph`},
		{func(c *Config) { c.Algorithm, c.Baseline = "centralized", "unbiased" }, "--baseline: unbiased applies to the gossip algorithms", `key "baseline"`},
		{func(c *Config) { c.GraphRows = 3 }, `--rows: does not apply: it applies to the graph grid or torus, but the graph is "watts-strogatz"`, `key "graph_rows": does not apply`},
		{func(c *Config) { c.Graph, c.GraphK = "cycle", 4 }, `--k: does not apply: it applies to the graph watts-strogatz, but the graph is "cycle"`, `key "graph_k": does not apply`},
		{func(c *Config) { c.N = 10 }, `--n: does not apply: it sizes synthetic-auc and synthetic-metric, but the data is "breast-cancer"`, `key "n": does not apply`},
		{func(c *Config) { c.Lambda = 0.1 }, "--lambda: does not apply: it applies to the regulariser l2 or l1, but the regulariser is none", `key "lambda": does not apply`},
	}
	for _, tc := range cases {
		c := Default()
		tc.set(&c)
		err := c.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v is not a ParamError", tc.msg, err)
			continue
		}
		if !strings.HasPrefix(pe.FlagMessage(), tc.msg) || !strings.HasPrefix(pe.KeyMessage(), tc.km) {
			t.Errorf("got %q / %q, want %q / %q", pe.FlagMessage(), pe.KeyMessage(), tc.msg, tc.km)
		}
		// A Go caller reads the Config field's name where the command line
		// reads the flag ("Config.Iters must be >= 1, got 0").
		field := "Config." + pe.Param.Field + strings.TrimPrefix(tc.msg, "--"+pe.Param.Flag)
		if !strings.HasPrefix(err.Error(), field) || strings.Contains(err.Error(), "--") || FlagMessage(fmt.Errorf("wrapped: %w", err)) != "wrapped: "+pe.FlagMessage() {
			t.Errorf("got %q, want %q, without a flag", err, field)
		}
		// Prepare refuses it with the same message, before loading anything.
		if run, perr := pairgossip.Prepare(c); perr == nil || perr.Error() != err.Error() {
			t.Errorf("Prepare: %v, want %v", perr, err)
			if run != nil {
				run.Close()
			}
		}
	}
	// Valid extremes.
	c := Default()
	c.Iters, c.Workers = 10, MaxWorkers // the default 30 log points are lowered to the iterations
	if err := c.Validate(); err != nil {
		t.Errorf("10 iterations with the default log points: %v", err)
	}
	c = Default()
	c.Graph, c.Algorithm, c.Schedule, c.GraphP, c.GammaAlpha = "", "centralized", "auto", 1, 0.499
	if err := c.Validate(); err != nil {
		t.Errorf("centralized without a graph: %v", err)
	}
	c = Default()
	c.Graph = ""
	if err := c.ValidateGraph(); err == nil || !strings.Contains(FlagMessage(err), "--graph must be given") || !strings.Contains(err.Error(), "Config.Graph must be given") {
		t.Errorf("ValidateGraph without a graph: %v", err)
	}
	c.Graph, c.GraphP, c.Iters = "cycle", 2, 0 // ValidateGraph looks at the graph's parameters only
	if err := c.ValidateGraph(); err == nil || !strings.HasPrefix(FlagMessage(err), "--p must be in [0, 1]") {
		t.Errorf("ValidateGraph: %v", err)
	}
}

func posInf() float64 { return math.Inf(1) }

// TestDivergenceNames: a divergence tells a Go caller to reduce GammaC and
// the command line (FlagMessage) to reduce --gamma-c.
func TestDivergenceNames(t *testing.T) {
	err := fmt.Errorf("run: %w", &engine.DivergenceError{Iter: 7, Node: 3, Field: "z"})
	if got := err.Error(); !strings.HasSuffix(got, "z is not finite (reduce GammaC?)") {
		t.Errorf("Go: %q", got)
	}
	if got := FlagMessage(err); got != "run: divergence at iteration 7, node 3: z is not finite (reduce --gamma-c?)" {
		t.Errorf("command line: %q", got)
	}
}

// TestConfigDocListsValues: the doc comments of Config.Problem and
// Config.Data name every value the parser accepts (the lists the parsers
// use), so that they cannot fall behind again.
func TestConfigDocListsValues(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "config.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Config" {
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				for _, name := range fld.Names {
					docs[name.Name] = fld.Doc.Text()
				}
			}
		}
		return true
	})
	want := map[string][]string{
		"Problem": append(slices.Clone(problem.LossNames), problem.ObjectiveProblemNames...),
		"Data":    {dataset.SpecBreastCancer, dataset.SpecSynthetic, dataset.SpecSyntheticAUC, dataset.SpecSyntheticMetric, "CSV", "LIBSVM", ".npy", ".npz"},
	}
	for _, aliases := range []string{"auc", "logistic", "hinge", "squared-hinge", "metric"} {
		if problem.ParseProblemName(aliases) != nil {
			t.Fatalf("%q is no longer accepted: update this test and the doc", aliases)
		}
		want["Problem"] = append(want["Problem"], aliases)
	}
	for field, names := range want {
		doc := strings.Join(strings.Fields(docs[field]), " ")
		for _, name := range names {
			if !strings.Contains(doc, name) {
				t.Errorf("the doc of Config.%s does not list %q: %q", field, name, doc)
			}
		}
	}
}

// TestFlagMessageFields: the command line reads a parameter a message
// names as Config.Field by its flag; other text is left alone.
func TestFlagMessageFields(t *testing.T) {
	for in, want := range map[string]string{
		"give the labels file (Config.LabelsFile) otherwise":    "give the labels file (--labels-file) otherwise",
		"Config.GraphFile and Config.Graph":                     "--graph-file and --graph",
		"engine.Config.Schedule, Config.Workers, Config.NoSuch": "engine.Config.Schedule, --workers, Config.NoSuch",
	} {
		if got := FlagMessage(errors.New(in)); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestNPYLabelsFileMessage: a .npy data file without its labels file is
// refused naming the option that gives it: Config.LabelsFile for a Go
// caller, --labels-file on the command line; and --labels-file names it.
func TestNPYLabelsFileMessage(t *testing.T) {
	dir := t.TempDir()
	xPath := filepath.Join(dir, "X.npy")
	writeNPY(t, xPath, []float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)
	c := Default()
	c.Data, c.Iters, c.SkipOptimum = xPath, 10, true
	_, err := pairgossip.Prepare(c)
	if err == nil || !strings.Contains(err.Error(), "give the labels file (Config.LabelsFile) otherwise") ||
		!strings.Contains(FlagMessage(err), "give the labels file (--labels-file) otherwise") {
		t.Fatalf("got %v", err)
	}
	yPath := filepath.Join(dir, "classes.npy")
	writeNPY(t, yPath, []float64{0, 1, 0, 1}, 4, 0)
	c.LabelsFile, c.Graph = yPath, "cycle"
	run, err := pairgossip.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	run.Close()
}

// writeNPY writes a float64 .npy file of rows×cols (cols 0: a vector).
func writeNPY(t *testing.T, path string, v []float64, rows, cols int) {
	t.Helper()
	shape := fmt.Sprintf("(%d,)", rows)
	if cols > 0 {
		shape = fmt.Sprintf("(%d, %d)", rows, cols)
	}
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	b = append(b, h...)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnderflow: a non-zero number that parses to 0 is named; a zero, in
// any spelling, and a small number that is not 0 are not.
func TestUnderflow(t *testing.T) {
	for _, s := range []string{"1e-400", "-1e-400", "+2.5E-999", "0.0001e-320", "0x1p-2000"} {
		x, _ := strconv.ParseFloat(s, 64)
		if Underflow(s, x) == "" {
			t.Errorf("%q (read as %v): not refused", s, x)
		}
	}
	for _, s := range []string{"0", "-0", "0.0", "0e5", "0.000e-400", "0x0p5", "1e-320", "5e-324", "0.3"} {
		x, _ := strconv.ParseFloat(s, 64)
		if why := Underflow(s, x); why != "" {
			t.Errorf("%q: %s", s, why)
		}
	}
}
