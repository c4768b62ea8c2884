package config_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	. "github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/network"
)

// TestNetworkKnobsValidate: each network knob is accepted with a good value
// and refused with a bad one, the error naming its flag (FlagMessage) and
// its Config field (ParamError).
func TestNetworkKnobsValidate(t *testing.T) {
	base := Base()
	async := base
	async.Algorithm = "async"
	for _, c := range []struct {
		name string
		cfg  Config
		set  func(*Config)
		want string // "" valid; else a substring of the flag message
	}{
		{"loss", base, func(c *Config) { c.Loss = 0.3 }, ""},
		{"loss>1", base, func(c *Config) { c.Loss = 1.5 }, "--loss must be in [0, 1]"},
		{"oneway", base, func(c *Config) { c.Loss, c.LossOneWay = 0.3, true }, ""},
		{"oneway without loss", base, func(c *Config) { c.LossOneWay = true }, "--loss-oneway: does not apply: it splits the loss of --loss into two directions, but --loss is 0"},
		{"churn", base, func(c *Config) { c.Churn = "geometric:up=100,down=10" }, ""},
		{"churn bad", base, func(c *Config) { c.Churn = "foo:up=1" }, "--churn: unknown distribution"},
		{"churn up<1", base, func(c *Config) { c.Churn = "exponential:up=0.5,down=10" }, "--churn: mean up time"},
		{"delay async", async, func(c *Config) { c.Delay = "uniform:0..5" }, ""},
		{"delay sync", base, func(c *Config) { c.Delay = "constant:3" }, "--delay: does not apply: delays apply to the asynchronous algorithm"},
		{"delay unbounded", async, func(c *Config) { c.Delay = "geometric:mean=3" }, "--delay"},
		{"schedule", base, func(c *Config) { c.GraphSchedule = "100:cycle;100:watts-strogatz:k=5,p=0.3" }, ""},
		{"schedule bad", base, func(c *Config) { c.GraphSchedule = "x:cycle" }, "--graph-schedule: phase 1"},
		{"schedule ignored key", base, func(c *Config) { c.GraphSchedule = "100:cycle:p=0.5" }, `unknown key "p"`},
		{"schedule ws without p", base, func(c *Config) { c.GraphSchedule = "100:watts-strogatz:k=5" }, "needs p="},
		{"schedule with points per node", base, func(c *Config) { c.GraphSchedule, c.PointsNode = "100:cycle", 3 }, "--graph-schedule: does not apply: its phases are graphs on all the data points"},
		{"schedule with the run's graph", base, func(c *Config) { c.GraphSchedule, c.Graph = "100:cycle", "cycle" }, "--graph: does not apply: under --graph-schedule each iteration's graph is its phase's"},
		{"schedule with --k", base, func(c *Config) { c.GraphSchedule, c.GraphK = "100:cycle", 9 }, "--k: does not apply: under --graph-schedule"},
		{"schedule with --p", base, func(c *Config) { c.GraphSchedule, c.GraphP = "100:cycle", 0.9 }, "--p: does not apply: under --graph-schedule"},
		{"link-up", base, func(c *Config) { c.GraphSchedule, c.LinkUp = "100:cycle", 0.5 }, ""},
		{"link-up alone", base, func(c *Config) { c.LinkUp = 0.5 }, "--link-up: does not apply"},
		{"link-up 1 alone", base, func(c *Config) { c.LinkUp = 1 }, ""},
		{"link-up >1", base, func(c *Config) { c.GraphSchedule, c.LinkUp = "100:cycle", 2 }, "--link-up must be in [0, 1]"},
		{"stream missing", base, func(c *Config) { c.EdgeStream = "/nonexistent/edges.txt" }, "--edge-stream: \"/nonexistent/edges.txt\": no such file"},
		{"stream-p alone", base, func(c *Config) { c.StreamP = "empirical" }, "--stream-p: does not apply"},
		{"stream-p bad", base, func(c *Config) { c.StreamP = "x" }, "--stream-p: unknown p_k source"},
		{"activation", base, func(c *Config) { c.Activation = "clocks" }, ""},
		{"activation bad", base, func(c *Config) { c.Activation = "adaptive" }, "--activation"},
		{"write-edges perfect", base, func(c *Config) { c.WriteEdges = "e.txt" }, ""},
		{"write-edges centralized", base, func(c *Config) { c.Algorithm, c.WriteEdges = "centralized", "e.txt" }, "--write-edges: does not apply: the centralized algorithm"},
		{"write-edges", base, func(c *Config) { c.Loss, c.WriteEdges = 0.1, "e.txt" }, ""},
	} {
		cfg := c.cfg
		c.set(&cfg)
		err := cfg.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, FlagMessage(err))
			}
			continue
		}
		var pe *ParamError
		if err == nil || !strings.Contains(FlagMessage(err), c.want) || !errors.As(err, &pe) {
			t.Errorf("%s: got %v (flag message %q), want a ParamError saying %q", c.name, err, FlagMessage(err), c.want)
		}
	}
}

// TestNetworkCentralizedRefused: every network knob is refused with the
// centralized algorithm, by its flag.
func TestNetworkCentralizedRefused(t *testing.T) {
	for _, set := range []func(*Config){
		func(c *Config) { c.Loss = 0.1 },
		func(c *Config) { c.Churn = "geometric:up=10,down=10" },
		func(c *Config) { c.GraphSchedule = "10:cycle" },
		func(c *Config) { c.Activation = "clocks" },
	} {
		c := Base()
		c.Algorithm = "centralized"
		set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(FlagMessage(err), "does not apply: the centralized algorithm (Algorithm 1) has no network") {
			t.Errorf("%+v: got %v", c, err)
		}
	}
}

// TestNetworkModel: the fields become the model the network package parses,
// a schedule phase without n gets the run's, and the default is perfect.
func TestNetworkModel(t *testing.T) {
	c := Base()
	if m, err := c.NetworkModel(10); err != nil || !m.IsPerfect() || c.HasNetwork() {
		t.Fatalf("default: %+v %v", m, err)
	}
	c.Loss, c.LossOneWay, c.Churn, c.GraphSchedule, c.LinkUp, c.Activation = 0.2, true, "geometric:up=5,down=5", "3:cycle;4:watts-strogatz:n=10,k=3,p=0.1", 0.9, "clocks"
	m, err := c.NetworkModel(12)
	if err != nil {
		t.Fatal(err)
	}
	want := network.Model{Loss: 0.2, LossOneWay: true, Churn: network.Churn{Dist: "geometric", Up: 5, Down: 5}, LinkUp: 0.9,
		Activation: network.Activation{Kind: "clocks"}}
	if m.Loss != want.Loss || !m.LossOneWay || m.Churn != want.Churn || m.LinkUp != 0.9 || m.Activation.Kind != "clocks" {
		t.Errorf("got %+v", m)
	}
	if len(m.Schedule) != 2 || m.Schedule[0].Spec.N != 12 || m.Schedule[0].Length != 3 || m.Schedule[1].Spec.N != 10 {
		t.Errorf("schedule %+v", m.Schedule)
	}
	if !c.HasNetwork() {
		t.Error("HasNetwork false")
	}
}

// TestNetworkJSONIdentity: the knobs at their defaults leave Config's JSON
// form (run ids, checkpoint identities) as it was; set, they enter it.
func TestNetworkJSONIdentity(t *testing.T) {
	b := string(mustJSON(t, Base()))
	for _, k := range []string{"loss", "churn", "delay", "graph_schedule", "link_up", "edge_stream", "stream_p", "activation", "write"} {
		if strings.Contains(b, `"`+k) {
			t.Errorf("the default JSON form names %s: %s", k, b)
		}
	}
	c := Base()
	c.Loss, c.WriteEdges = 0.3, "x"
	b = string(mustJSON(t, c))
	if !strings.Contains(b, `"loss":0.3`) || strings.Contains(b, "write") {
		t.Errorf("got %s", b)
	}
}

// TestMapNetworkFiles: every file a knob names goes through the mapping
// (a sweep resolves them relative to the sweep file), nothing else.
func TestMapNetworkFiles(t *testing.T) {
	c := Base()
	c.EdgeStream, c.Churn, c.Activation, c.GraphSchedule = "s.txt", "file:c.txt", "weights:w.txt", "5:file:g.txt; 6:cycle:n=4"
	m := c.MapNetworkFiles(func(p string) string { return "D/" + p })
	if m.EdgeStream != "D/s.txt" || m.Churn != "file:D/c.txt" || m.Activation != "weights:D/w.txt" || m.GraphSchedule != "5:file:D/g.txt; 6:cycle:n=4" {
		t.Errorf("got %q %q %q %q", m.EdgeStream, m.Churn, m.Activation, m.GraphSchedule)
	}
	// The keywords in any case, as the parsers take them: a sweep resolves
	// " FILE:c.txt" from its folder too.
	c = Base()
	c.Churn, c.Activation, c.GraphSchedule = " FILE:c.txt", "Weights:w.txt", "5:File:g.txt"
	if m := c.MapNetworkFiles(func(p string) string { return "D/" + p }); m.Churn != "file:D/c.txt" || m.Activation != "weights:D/w.txt" || m.GraphSchedule != "5:file:D/g.txt" {
		t.Errorf("other cases: got %q %q %q", m.Churn, m.Activation, m.GraphSchedule)
	}
	c = Base()
	c.Churn = "geometric:up=2,down=3"
	if m := c.MapNetworkFiles(func(p string) string { return "D/" + p }); m != c {
		t.Errorf("changed %+v", m)
	}
}

func mustJSON(t *testing.T, c Config) []byte {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFileBlind: every path of a file the run reads becomes FILE, in
// whatever case the parsers take its keyword, and nothing else changes:
// a built-in data set, "memory", parametric churn and generated phases
// keep their values.
func TestFileBlind(t *testing.T) {
	c := Base()
	c.Data, c.LabelsFile, c.GraphFile = "/scratch/job1/x.npy", "/scratch/job1/y.npy", "g.txt"
	c.EdgeStream, c.Churn, c.Activation, c.GraphSchedule = "s.txt", "FILE:c.txt", " Weights:w.txt", "5:file:g.txt; 6:cycle:n=4;7:File:h.txt"
	b := c.FileBlind()
	want := c
	want.Data, want.LabelsFile, want.GraphFile, want.EdgeStream = "FILE", "FILE", "FILE", "FILE"
	want.Churn, want.Activation, want.GraphSchedule = "file:FILE", "weights:FILE", "5:file:FILE; 6:cycle:n=4;7:file:FILE"
	if b != want {
		t.Errorf("FileBlind:\n got %+v\nwant %+v", b, want)
	}
	for _, data := range []string{"breast-cancer", "synthetic-auc", "memory"} {
		c := Base()
		c.Data, c.Churn, c.Activation = data, "geometric:up=2,down=3", "clocks"
		if b := c.FileBlind(); b != c {
			t.Errorf("%s: changed %+v", data, b)
		}
	}
}
