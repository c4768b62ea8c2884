package pairgossip

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/network"
)

func smallNetConfig() Config {
	cfg := DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.EvalNodes, cfg.SkipOptimum = 60, 3, 8, true
	return cfg
}

// TestInputNetwork: what only Go gives (a weights function, a stream in
// memory) reaches the engine, and Config names it; a schedule phase
// without n gets the run's.
func TestInputNetwork(t *testing.T) {
	calls := 0
	w := func(i, j int) float64 { calls++; return float64(1 + (i+j)%3) }
	run, err := PrepareInput(smallNetConfig(), Input{Activation: network.Activation{Kind: network.ActWeights, Weights: w}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if run.Config.Activation != "weights:memory" || run.Network.Activation.Weights == nil || calls != len(run.Graph.Edges) {
		t.Errorf("activation %q, %d calls for %d edges", run.Config.Activation, calls, len(run.Graph.Edges))
	}
	if _, err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}

	cfg := smallNetConfig()
	g, _ := PrepareInput(cfg, Input{})
	e := g.Graph.Edges
	g.Close()
	st := &network.Stream{Name: "mem", T: []int64{1, 2, 5}, I: []int32{e[0][0], e[1][0], e[2][0]}, J: []int32{e[0][1], e[1][1], e[2][1]}}
	cfg.Iters = 5
	run, err = PrepareInput(cfg, Input{Stream: st})
	if err != nil {
		t.Fatal(err)
	}
	if run.Config.EdgeStream != MemoryName || run.Network.Stream != st {
		t.Errorf("stream: %q", run.Config.EdgeStream)
	}
	res, err := run.Execute(context.Background(), nil)
	run.Close()
	if err != nil || res.Final.Attempted != 3 {
		t.Fatalf("%v, %+v", err, res.Final)
	}
	// A contact trace in memory, of pairs that are not the graph's edges:
	// its own p_k (Config.StreamP "empirical") apply to it, as to a file
	// (they were refused as "--edge-stream is not given").
	contacts := &network.Stream{Name: "contacts", T: []int64{1, 2, 3, 4, 5}, I: []int32{0, 2, 0, 4, 1}, J: []int32{300, 400, 500, 600, 650}}
	cfg.StreamP = "empirical"
	run, err = PrepareInput(cfg, Input{Stream: contacts})
	if err != nil {
		t.Fatal(err)
	}
	if run.Network.StreamP != "empirical" {
		t.Errorf("p_k source %q", run.Network.StreamP)
	}
	res, err = run.Execute(context.Background(), nil)
	run.Close()
	if err != nil || res.Final.Attempted != 5 {
		t.Fatalf("empirical: %v, %+v", err, res.Final)
	}
	cfg.StreamP = ""
	if _, err := PrepareInput(cfg, Input{Stream: contacts}); err == nil || !strings.Contains(err.Error(), "not an edge") {
		t.Errorf("contacts with the graph's p_k: %v", err)
	}

	cfg = smallNetConfig()
	cfg.GraphSchedule = "20:watts-strogatz:k=5,p=0.3;20:cycle"
	run, err = Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if n := run.Network.Schedule[1].Spec.N; n != 699 {
		t.Errorf("the cycle phase has n = %d", n)
	}
}

// TestWriteEdgesLibrary: Config.WriteEdges writes the stream when the run
// ends, nothing under the name before; a run advanced before ExecuteWith
// (as a resumed one is) is refused naming Config.WriteEdges, and leaves no
// file.
func TestWriteEdgesLibrary(t *testing.T) {
	dir := t.TempDir()
	cfg := smallNetConfig()
	cfg.Loss, cfg.WriteEdges = 0.5, filepath.Join(dir, "e.txt")
	run, err := Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.WriteEdges); err == nil {
		t.Fatal("the stream exists before the run")
	}
	if _, err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	run.Close()
	b, err := os.ReadFile(cfg.WriteEdges)
	if err != nil || strings.Count(string(b), "\n")-strings.Count(string(b), "#") != 60 {
		t.Fatalf("%v: %q", err, b)
	}

	// Iterations outside Execute are not recorded: refused, not lost.
	cfg.WriteEdges = filepath.Join(dir, "f.txt")
	run, err = Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Sim.Advance(5); err == nil || !strings.Contains(config.FlagMessage(err), "--write-edges: the stream is written by Run.Execute") {
		t.Errorf("Advance: %v", err)
	}
	run.Close()

	// A resumed run: refused, and no file.
	ck := filepath.Join(dir, "ck")
	run, err = Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.ExecuteWith(context.Background(), ExecOptions{Checkpoint: ck, CheckpointEvery: time.Hour}); err != nil {
		t.Fatal(err)
	}
	run.Close()
	os.Remove(cfg.WriteEdges)
	run, err = Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	trace, err := run.Resume(ck)
	if err != nil {
		t.Fatal(err)
	}
	_, err = run.ExecuteWith(context.Background(), ExecOptions{Trace: trace})
	var pe *config.ParamError
	if !errors.As(err, &pe) || pe.Param.Field != "WriteEdges" || !strings.Contains(err.Error(), "a resumed run cannot write the whole stream") {
		t.Errorf("got %v", err)
	}
	if _, err := os.Stat(cfg.WriteEdges); err == nil {
		t.Error("a refused run wrote the stream")
	}
}

// TestWriteEdgesErrorNamesTheFlagOnce: a stream that cannot be written is
// named once by the flag (network's errors start with it; the wrapper
// names the field the command line turns into the flag).
func TestWriteEdgesErrorNamesTheFlagOnce(t *testing.T) {
	e := &writeEdgesError{errors.New("--write-edges: out/x: rename out/.x.tmp out/x: file exists")}
	if got, want := e.Error(), "Config.WriteEdges: out/x: rename out/.x.tmp out/x: file exists"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := config.FlagMessage(e); strings.Count(got, "write-edges") != 1 {
		t.Errorf("flag message %q names the flag more than once", got)
	}
}

// firstEdge picks the graph's first edge whatever the iteration.
type firstEdge struct{ e [2]int32 }

func (f firstEdge) Next(int64, network.Draw, network.NodeView) (int, int) {
	return int(f.e[0]), int(f.e[1])
}

// TestInputActivationRefused: a Go value of Input.Activation that the run
// would not use is refused, never dropped: with the centralized algorithm
// (it was accepted and "adaptive" recorded), without its Kind, or beside
// another Kind.
func TestInputActivationRefused(t *testing.T) {
	cfg := smallNetConfig()
	pick := firstEdge{[2]int32{0, 1}}
	w := func(i, j int) float64 { return 1 }
	central := cfg
	central.Algorithm = "centralized"
	complete := cfg
	complete.Graph = "complete" // every pair an edge
	for _, c := range []struct {
		name string
		cfg  Config
		in   Input
		want string
	}{
		{"centralized picker", central, Input{Activation: network.Activation{Kind: network.ActAdaptive, Picker: pick}}, "Input.Activation: does not apply: the centralized algorithm"},
		{"centralized stream", central, Input{Stream: &network.Stream{Name: "s", T: []int64{1}, I: []int32{0}, J: []int32{1}}}, "Input.Stream: does not apply: the centralized algorithm"},
		{"picker without Kind", cfg, Input{Activation: network.Activation{Picker: pick}}, "without its Kind"},
		{"weights without Kind", cfg, Input{Activation: network.Activation{Weights: w}}, "without its Kind"},
		{"picker beside clocks", cfg, Input{Activation: network.Activation{Kind: network.ActClocks, Picker: pick}}, "a Picker is given but the model is \"clocks\""},
		{"weights beside edges", cfg, Input{Activation: network.Activation{Kind: network.ActEdges, Weights: w}}, "a Weights function is given but the model is \"edges\""},
		// What a field gave is named by that field, not by the flag or
		// the Config field that would otherwise have given it.
		{"adaptive without a Picker", cfg, Input{Activation: network.Activation{Kind: network.ActAdaptive}}, "Input.Activation: adaptive needs a Picker"},
		{"a NaN weight", cfg, Input{Activation: network.Activation{Kind: network.ActWeights, Weights: func(i, j int) float64 { return math.NaN() }}}, "Input.Activation: weight function gave NaN"},
		{"a short stream", complete, Input{Stream: &network.Stream{Name: "s", T: []int64{1}, I: []int32{0}, J: []int32{1}}}, "Input.Stream: s ends at iteration 1"},
	} {
		if run, err := PrepareInput(c.cfg, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			if run != nil {
				run.Close()
			}
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestEstimateMemoryNetwork: the memory estimate counts the network
// model: the delay queue, the churn's cursors or session file, a
// replayed stream, each phase of a schedule; it counted none of them, and
// a run the estimate let through could need several times what it said
// (metric learning with delays of 10⁶ events: 4 MiB said, 1.6 GiB used).
func TestEstimateMemoryNetwork(t *testing.T) {
	base := DefaultConfig()
	base.Data, base.Algorithm = "synthetic-auc", "async"
	none := EstimateMemory(base, 1_000_000, 16, 2)
	if none.Network != 0 {
		t.Fatalf("no network model: network %d bytes", none.Network)
	}
	dir := t.TempDir()
	stream := filepath.Join(dir, "s.txt")
	if err := os.WriteFile(stream, bytes.Repeat([]byte("1 0 1\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(*Config)
		min  int64 // the least the model must add to the total
	}{
		// The run's graph's p_k, 1/p_k (16 bytes a node) and p_e (8 an edge).
		{"loss", func(c *Config) { c.Loss = 0.1 }, 1_000_000 * 16},
		// And the weights' alias table (16 more an edge: 2·10⁶ edges).
		{"weights", func(c *Config) { c.Activation = "weights:" + stream }, 1_000_000*16 + 2_000_000*24},
		// 2·(10⁶+1) slots of 16 floats and their headers.
		{"delay", func(c *Config) { c.Delay = "constant:1000000" }, 2_000_000 * 16 * 8},
		{"churn", func(c *Config) { c.Churn = "geometric:up=9000,down=1000" }, 1_000_000 * 32},
		{"stream", func(c *Config) { c.EdgeStream = stream }, 1000 * 16},
		// 8 phases of 5·10⁶ edges: 16 bytes an edge for the graph.
		{"schedule", func(c *Config) {
			c.Algorithm = "sync"
			c.GraphSchedule = strings.Repeat("1000:watts-strogatz:k=10,p=0.3;", 7) + "1000:watts-strogatz:k=10,p=0.3"
		}, 8 * 5_000_000 * 16},
	} {
		cfg := base
		c.set(&cfg)
		ref := base
		ref.Algorithm = cfg.Algorithm
		got := EstimateMemory(cfg, 1_000_000, 16, 2).Total() - EstimateMemory(ref, 1_000_000, 16, 2).Total()
		if got < c.min {
			t.Errorf("%s: the model adds %d bytes to the estimate, want at least %d", c.name, got, c.min)
		}
	}
	// Refused before it allocates: metric learning with delays of 10⁶
	// events holds 2·10⁶ messages of d² = 1600 floats.
	saved := availableMemory
	availableMemory = func() int64 { return 8 << 30 }
	defer func() { availableMemory = saved }()
	cfg := DefaultConfig()
	cfg.Problem, cfg.Data, cfg.N, cfg.Dim, cfg.Algorithm, cfg.Delay = "metric", "synthetic-metric", 1000, 40, "async", "constant:1000000"
	if _, err := Prepare(cfg); err == nil || !strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "network") {
		t.Fatalf("metric learning with delays of 10⁶ events: %v, want a refusal naming the network's memory", err)
	}
}
