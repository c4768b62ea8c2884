package network

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
)

func TestZeroModelIsPerfect(t *testing.T) {
	var m Model
	if !m.IsPerfect() || m.Validate() != nil || m.String() != "perfect" {
		t.Fatalf("zero model: perfect %v, validate %v, %q", m.IsPerfect(), m.Validate(), m.String())
	}
	spelled := Model{LinkUp: 1, Activation: Activation{Kind: ActEdges}}
	if !spelled.IsPerfect() {
		t.Fatal("the defaults spelled out are not perfect")
	}
	for _, m := range []Model{{Loss: 0.1}, {LossOneWay: true}, {Churn: Churn{Dist: DistGeometric, Up: 5, Down: 5}},
		{Delay: Delay{Dist: DelayConstant, C: 1}}, {Activation: Activation{Kind: ActClocks}}, {EdgeStream: "x"}} {
		if m.IsPerfect() {
			t.Errorf("%+v reported perfect", m)
		}
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	cases := []struct {
		m    Model
		want string
	}{
		{Model{Loss: 1.5}, "--loss: 1.5 is not a probability in [0, 1]"},
		{Model{Loss: -0.1}, "--loss:"},
		{Model{Churn: Churn{Dist: "weibull", Up: 2, Down: 2}}, "--churn: unknown distribution"},
		{Model{Churn: Churn{Dist: DistExponential, Up: 0.5, Down: 2}}, "--churn: mean up time 0.5"},
		{Model{Churn: Churn{Dist: DistFile}}, "--churn: file: no file name"},
		{Model{Delay: Delay{Dist: DelayGeometric, Mean: 2}}, "--delay: geometric delays must be bounded"},
		{Model{Delay: Delay{Dist: DelayUniform, A: 3, B: 1}}, "--delay: uniform{3..1}"},
		{Model{Delay: Delay{Dist: DelayConstant, C: -1}}, "--delay: constant -1"},
		{Model{Schedule: []Phase{{Spec: mustSpec("cycle"), Length: 0}}}, "--graph-schedule: phase 1 has length 0"},
		{Model{LinkUp: 0.5}, "--link-up: link failures are drawn per phase instance and need --graph-schedule"},
		{Model{LinkUp: 2, Schedule: []Phase{{Spec: mustSpec("cycle"), Length: 3}}}, "--link-up: 2"},
		{Model{EdgeStream: "s", Activation: Activation{Kind: ActClocks}}, "--edge-stream: a recorded stream is the activation sequence"},
		{Model{EdgeStream: "s", Schedule: []Phase{{Spec: mustSpec("cycle"), Length: 3}}}, "--edge-stream: a recorded stream cannot be combined"},
		{Model{Activation: Activation{Kind: "random"}}, "--activation: unknown model"},
		{Model{Activation: Activation{Kind: ActWeights}}, "--activation: weights needs a file"},
		{Model{Activation: Activation{Kind: ActAdaptive}}, "--activation: adaptive needs a Picker"},
	}
	for _, c := range cases {
		err := c.m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.m, err, c.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	c, err := ParseChurn("lognormal:up=100,down=10,sigma=0.5")
	if err != nil || c != (Churn{Dist: DistLognormal, Up: 100, Down: 10, Sigma: 0.5}) {
		t.Fatalf("ParseChurn: %+v %v", c, err)
	}
	if c2, _ := ParseChurn(c.String()); c2 != c {
		t.Fatalf("churn round trip: %+v", c2)
	}
	for _, bad := range []string{"exponential:up=10", "geometric:up=x,down=1", "exponential:up=10,down=1,sigma=1", "x:up=1,down=1",
		"lognormal:up=10,down=10,sigma=0", "geometric", "geometric:",
		// Go's literal syntax is not a plain number (a typo passed for 10).
		"geometric:up=1_0,down=2", "geometric:up=0x10,down=2", "lognormal:up=10,down=2,sigma=0x1p-1"} {
		if _, err := ParseChurn(bad); err == nil || !strings.HasPrefix(err.Error(), "--churn:") {
			t.Errorf("ParseChurn(%q): %v", bad, err)
		}
	}
	// A spec without its means says what it needs; sigma=0 is refused, not
	// run as the default 1.
	if _, err := ParseChurn("geometric"); err == nil || !strings.Contains(err.Error(), "needs up=MEAN,down=MEAN") {
		t.Errorf("geometric: %v", err)
	}
	if _, err := ParseChurn("lognormal:up=10,down=10,sigma=0"); err == nil || !strings.Contains(err.Error(), "sigma=0") {
		t.Errorf("sigma=0: %v", err)
	}
	if _, err := ParseChurn("lognormal:up=10,down=10,sigma=11"); err == nil || !strings.Contains(err.Error(), "must lie in (0, 10]") {
		t.Errorf("sigma=11: %v", err)
	}
	if _, err := ParseSchedule("100:erdos-renyi:p=0x1p-2"); err == nil || !strings.Contains(err.Error(), "is not a number") {
		t.Errorf("a hexadecimal p in a phase: %v", err)
	}
	for s, want := range map[string]Delay{
		"constant:3":             {Dist: DelayConstant, C: 3},
		"uniform:1..5":           {Dist: DelayUniform, A: 1, B: 5},
		"geometric:mean=2,max=9": {Dist: DelayGeometric, Mean: 2, Max: 9},
		"none":                   {},
	} {
		d, err := ParseDelay(s)
		if err != nil || d != want {
			t.Errorf("ParseDelay(%q) = %+v, %v", s, d, err)
		}
		if d2, _ := ParseDelay(d.String()); d2 != d {
			t.Errorf("delay round trip %q: %+v", s, d2)
		}
	}
	for _, bad := range []string{"geometric:mean=2", "uniform:3", "constant:x", "poisson:2"} {
		if _, err := ParseDelay(bad); err == nil || !strings.HasPrefix(err.Error(), "--delay:") {
			t.Errorf("ParseDelay(%q): %v", bad, err)
		}
	}
	a, err := ParseActivation("weights:w.txt")
	if err != nil || a.Kind != ActWeights || a.File != "w.txt" {
		t.Fatalf("ParseActivation: %+v %v", a, err)
	}
	if _, err := ParseActivation("adaptive"); err == nil {
		t.Fatal("adaptive accepted on the command line")
	}
	for _, bad := range []string{"clocks:", "edges:", "clocks:x"} {
		if _, err := ParseActivation(bad); err == nil || !strings.Contains(err.Error(), "takes no argument") {
			t.Errorf("ParseActivation(%q): %v", bad, err)
		}
	}
	ph, err := ParseSchedule("50:watts-strogatz:n=30,k=4,p=0.2,seed=3; 20:file:g.txt")
	if err != nil || len(ph) != 2 || ph[0].Length != 50 || ph[0].Spec.N != 30 || ph[0].Spec.K != 4 || ph[0].Spec.P != 0.2 ||
		ph[0].Spec.Seed != 3 || ph[1].Spec.File != "g.txt" || ph[1].Length != 20 {
		t.Fatalf("ParseSchedule: %+v %v", ph, err)
	}
	for _, bad := range []string{"0:cycle:n=5", "cycle:n=5", "5:cycle:m=5", "5:cycle:n=x"} {
		if _, err := ParseSchedule(bad); err == nil || !strings.HasPrefix(err.Error(), "--graph-schedule:") {
			t.Errorf("ParseSchedule(%q): %v", bad, err)
		}
	}
}

func TestCheckAlgorithmAndHeader(t *testing.T) {
	m := Model{Delay: Delay{Dist: DelayConstant, C: 2}, Loss: 0.25}
	if err := m.CheckAlgorithm(true); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckAlgorithm(false); err == nil || !strings.HasPrefix(err.Error(), "--delay: delays apply to the asynchronous") {
		t.Fatalf("sync with delays: %v", err)
	}
	h := StreamHeader(42, m)
	if !strings.Contains(h, "seed 42\n") || !strings.HasSuffix(h, "network --loss 0.25 --delay constant:2") {
		t.Fatalf("header %q", h)
	}
}

func TestModelString(t *testing.T) {
	m := Model{Loss: 0.1, LossOneWay: true, Churn: Churn{Dist: DistFile, File: "s.txt"},
		Delay: Delay{Dist: DelayUniform, A: 1, B: 3}, Schedule: []Phase{{Spec: mustSpec("cycle"), Length: 5}}, LinkUp: 0.9,
		Activation: Activation{Kind: ActWeights, File: "w.txt"}}
	want := "--loss 0.1 --loss-oneway --churn file:s.txt --delay uniform:1..3 --graph-schedule cycle×5 --link-up 0.9 --activation weights:w.txt"
	if got := m.String(); got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	if got := (Model{EdgeStream: "e.txt"}).String(); got != "--edge-stream e.txt" {
		t.Fatal(got)
	}
}

// TestParseScheduleKeys: a phase's keys are those its kind uses, and a
// random family's defining parameters are given: a key that would be
// ignored, or a p that would default to a ring lattice, is refused.
func TestParseScheduleKeys(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"100:cycle:p=0.5", `unknown key "p"`},
		{"100:complete:k=3", `unknown key "k"`},
		{"100:grid:seed=2", `unknown key "seed"`},
		{"100:watts-strogatz:k=5", "phase 1 (watts-strogatz) needs p="},
		{"100:watts-strogatz:p=0.3", "needs k="},
		{"100:watts-strogatz", "needs k="},
		{"10:cycle;100:erdos-renyi:seed=3", "phase 2 (erdos-renyi) needs p="},
		{"100:ring", `unknown graph kind "ring"`},
	} {
		if _, err := ParseSchedule(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.spec, err, c.want)
		}
	}
	for _, ok := range []string{"100:cycle", "100:cycle:n=30", "100:watts-strogatz:k=4,p=0,seed=2", "100:erdos-renyi:p=0.2",
		"100:grid:rows=5,cols=6", "100:geometric", "100:geometric:radius=0.3,seed=1", "100:file:g.txt", "5:torus:n=30"} {
		if _, err := ParseSchedule(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestScheduleFileMergedWarns: a schedule phase's edge list whose edges
// repeat is merged, as the run's own graph file is, and said (Net.Warnings,
// a run's warnings), not silently; a clean list and generated phases say
// nothing.
func TestScheduleFileMergedWarns(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 10})
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "%d %d\n", i, (i+1)%10)
	}
	clean := writeFile(t, "clean.txt", b.String())
	dup := writeFile(t, "dup.txt", b.String()+"1 0\n4 5\n")
	nt := mustNet(t, Model{Schedule: []Phase{{Spec: graph.Spec{Kind: "file", File: clean}, Length: 5}, {Spec: graph.Spec{Kind: "file", File: dup}, Length: 5},
		{Spec: graph.Spec{Kind: "cycle", N: 10}, Length: 5}}}, g, 1)
	w := nt.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "phase 2") || !strings.Contains(w[0], "2 of its edges repeat another") || !strings.Contains(w[0], "10 edges remain") {
		t.Errorf("warnings %q, want one for phase 2's 2 repeated edges", w)
	}
}
