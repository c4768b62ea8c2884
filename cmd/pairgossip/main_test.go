package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := realMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestBadInput: every bad flag or input gives a one-line error naming it and exit status 2.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,3\n4,5\n"), 0o644)
	oneClass := filepath.Join(dir, "one.csv")
	os.WriteFile(oneClass, []byte("1,2,1\n3,4,1\n"), 0o644)
	nanFile := filepath.Join(dir, "nan.csv")
	os.WriteFile(nanFile, []byte("1,2,1\nNaN,4,0\n"), 0o644)
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, nil, 0o644)
	edges := filepath.Join(dir, "edges.txt")
	os.WriteFile(edges, []byte("0 1\n1 1\n"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--out", out, "--graph", "hypercube"}, `unknown graph "hypercube"`},
		{[]string{"run", "--out", out, "--problem", "ordinal-svm"}, `unknown problem "ordinal-svm"`},
		{[]string{"run", "--out", out, "--iters", "0"}, "--iters must be >= 1"},
		{[]string{"run", "--out", out, "--gamma-c", "-1"}, "--gamma-c must be > 0"},
		{[]string{"run", "--out", out, "--gamma-alpha", "0.7"}, "--gamma-alpha"},
		{[]string{"run", "--out", out, "--algo", "magic"}, `unknown algorithm "magic"`},
		{[]string{"run", "--out", out, "--baseline", "biased"}, `unknown baseline "biased"`},
		{[]string{"run", "--out", out, "--reg", "l3"}, `unknown regulariser "l3"`},
		{[]string{"run", "--out", out, "--reg", "psd"}, "psd regulariser needs a matrix parameter"},
		{[]string{"run", "--out", out, "--data", bad}, "bad.csv:2"},
		{[]string{"run", "--out", out, "--data", oneClass}, "one.csv"},
		{[]string{"run", "--out", out, "--data", nanFile}, "nan.csv:2"},
		{[]string{"run", "--out", out, "--data", empty}, "empty.csv"},
		{[]string{"run", "--out", out, "--data", filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{"run", "--out", out, "--graph", "file", "--graph-file", edges}, "edges.txt:2"},
		{[]string{"run", "--out", out, "--points-per-node", "2"}, "points per node 2 does not divide the 699"},
		{[]string{"run", "--iters", "10"}, "--out DIR is required"},
		{[]string{"run", "--out", out, "--frobnicate"}, "frobnicate"},
		{[]string{"gap", "--graph", "cycle", "--n", "1"}, "--n must be >= 2"},
		{[]string{"gap", "--graph", "erdos-renyi", "--n", "50", "--p", "1.5"}, "--p must be in [0, 1]"},
		{[]string{"gap", "--graph", "star2"}, `unknown graph "star2"`},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
			continue
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "trace.csv")); err == nil {
		t.Error("a rejected run wrote trace.csv")
	}
}

func TestGapJSON(t *testing.T) {
	code, stdout, stderr := runCLI("gap", "--graph", "cycle", "--n", "699", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, stdout)
	}
	for _, k := range []string{"graph", "n", "undirected_edges", "spectral_gap"} {
		if _, ok := v[k]; !ok {
			t.Errorf("missing %q", k)
		}
	}
	if g := v["spectral_gap"].(float64); g < 5.775e-8 || g > 5.785e-8 {
		t.Errorf("cycle 699 gap %g, paper 5.78e-8", g)
	}
}

// TestRunWritesOutputsAndIsDeterministic runs the main job twice with the
// same seed (bit-identical trace.csv) and once with another (different).
func TestRunWritesOutputsAndIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	run := func(name, seed, workers string) []byte {
		out := filepath.Join(dir, name)
		code, _, stderr := runCLI("run", "--problem", "auc", "--data", "breast-cancer", "--graph", "watts-strogatz",
			"--algo", "sync", "--iters", "300", "--seed", seed, "--workers", workers, "--log-points", "8", "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "trace.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run("a", "1", "1"), run("b", "1", "2"), run("c", "2", "2")
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different worker count: trace.csv differs")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave the same trace.csv")
	}
	header := strings.SplitN(string(a), "\n", 2)[0]
	for _, col := range []string{"iter", "grad_evals", "objective_mean", "objective_std", "objective_min", "objective_max", "auc_mean", "bias", "consensus"} {
		if !strings.Contains(header, col) {
			t.Errorf("trace.csv lacks column %s", col)
		}
	}
	var sum map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, "a", "summary.json"))
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"config", "seed", "objective_mean", "auc_mean", "bias", "consensus", "optimum_objective", "wall_seconds"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	if sum["status"] != "complete" {
		t.Errorf("status %v", sum["status"])
	}
}

// divergedRe matches a divergence's message: found by the executor or by
// a measurement (whose objective overflows first at such a step size).
var divergedRe = regexp.MustCompile(`divergence (found by the measurement )?at iteration \d+, node \d+: `)

func TestDivergenceExitsNonZero(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCLI("run", "--problem", "auc-squared-hinge", "--graph", "complete", "--iters", "2000",
		"--gamma-c", "1e300", "--no-optimum", "--out", out)
	if code != 1 || !divergedRe.MatchString(stderr) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || !strings.Contains(string(raw), `"status": "diverged"`) {
		t.Fatalf("summary.json does not record the divergence: %v %s", err, raw)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"run", "--help"}, {"gap", "-h"}, {"help", "run"}} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 || len(stdout)+len(stderr) < 100 {
			t.Errorf("%v: exit %d, output %q", args, code, stdout+stderr)
		}
	}
}

// TestRunFlagsFromTable: run's parameters are validated before any work
// (nothing is created), the deprecated --radius still sets the geometric
// graph's radius with a warning, and summary.json keeps its JSON names.
func TestRunFlagsFromTable(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "never")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ball-radius", "0"}, "--ball-radius must be > 0, got 0"},
		{[]string{"--graph-radius", "-1"}, "--graph-radius must be >= 0, got -1"},
		{[]string{"--graph", "file"}, "--graph-file must be given when the graph is file"},
		{[]string{"--schedule", "fast"}, `--schedule: unknown schedule "fast"`},
		{[]string{"--algo", "centralized", "--baseline", "unbiased"}, "--baseline: unbiased applies to the gossip algorithms"},
	} {
		code, _, stderr := runCLI(append([]string{"run", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a rejected run created its --out folder")
	}
	code, _, stderr := runCLI("gap", "--graph", "geometric", "--n", "50", "--radius", "-1")
	if code != 2 || !strings.Contains(stderr, "warning: --radius is deprecated: use --graph-radius") || !strings.Contains(stderr, "--graph-radius must be >= 0") {
		t.Errorf("gap --radius -1: exit %d, stderr %q", code, stderr)
	}

	out = filepath.Join(dir, "geo")
	code, _, stderr = runCLI("run", "--graph", "geometric", "--radius", "0.3", "--reg", "l2-ball", "--ball-radius", "2",
		"--schedule", "auto", "--iters", "20", "--log-points", "2", "--eval-nodes", "4", "--no-optimum", "--out", out)
	if code != 0 || !strings.Contains(stderr, "warning: --radius is deprecated") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Config map[string]any `json:"config"`
	}
	raw, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Config["graph_radius"] != 0.3 || sum.Config["radius"] != 2.0 || sum.Config["reg"] != "l2-ball" {
		t.Fatalf("summary.json config %v", sum.Config)
	}
	if _, ok := sum.Config["schedule"]; ok {
		t.Fatalf("--schedule auto is in the identity: %v", sum.Config)
	}
	code, _, stderr = runCLI("run", "--help")
	if code != 0 || !strings.Contains(stderr, "-graph-radius") || !strings.Contains(stderr, "deprecated: the old name of --graph-radius") {
		t.Errorf("run --help: %s", stderr)
	}
}
