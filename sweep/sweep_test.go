package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/pairgossip/pairgossip/internal/figure"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip"
)

func parseString(t *testing.T, text string) (*Sweep, error) {
	t.Helper()
	return Parse("s.yaml", []byte(text))
}

func mustParse(t *testing.T, text string) *Sweep {
	t.Helper()
	s, err := parseString(t, text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExampleSweep(t *testing.T) {
	s, err := Load("../examples/sweep-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 24 {
		t.Fatalf("%d runs, want 24", len(s.Runs))
	}
	// Product order: first axis slowest, last fastest.
	want := [][]string{{"complete", "sync", "1"}, {"complete", "sync", "2"}, {"complete", "sync", "3"}, {"complete", "sync", "4"},
		{"complete", "async", "1"}}
	for i, w := range want {
		if got := strings.Join(s.Runs[i].Labels, " "); got != strings.Join(w, " ") {
			t.Errorf("run %d: %s, want %s", i, got, strings.Join(w, " "))
		}
	}
	last := s.Runs[23]
	if last.Config.Graph != "cycle" || last.Config.Algorithm != "async" || last.Config.Seed != 4 {
		t.Errorf("last run: %+v", last.Config)
	}
	ids := map[string]bool{}
	for _, r := range s.Runs {
		b, _ := json.Marshal(r.Config)
		h := sha256.Sum256(b)
		if r.ID != hex.EncodeToString(h[:])[:16] {
			t.Fatalf("run %d: id %s is not the hash of its config", r.Index, r.ID)
		}
		ids[r.ID] = true
		if r.Config.Iters != 1000 || r.Config.EvalNodes != 16 || r.Config.Reg != "none" {
			t.Fatalf("run %d: base not applied: %+v", r.Index, r.Config)
		}
	}
	if len(ids) != 24 {
		t.Fatal("ids not unique")
	}
}

func TestIDsStable(t *testing.T) {
	a := mustParse(t, "base: {iters: 100, problem: auc}\naxes:\n  seed: [1, 2]\n")
	b := mustParse(t, "# same runs, keys in another order and spelled differently\nbase:\n  problem: auc\n  iters: 100\n  gamma_c: 1.0\naxes:\n  seed: {range: [1, 2]}\n")
	if a.PlanHash() != b.PlanHash() || a.Runs[1].ID != b.Runs[1].ID {
		t.Fatalf("ids differ: %s %s", a.Runs[1].ID, b.Runs[1].ID)
	}
	c := mustParse(t, "base: {iters: 101, problem: auc}\naxes:\n  seed: [1, 2]\n")
	if c.Runs[0].ID == a.Runs[0].ID {
		t.Fatal("different configurations, same id")
	}
	// Defaults are those of pairgossip run.
	def := pairgossip.DefaultConfig()
	def.Iters, def.Seed = 100, 1
	if a.Runs[0].ID != RunID(def) {
		t.Fatalf("base over defaults: %+v", a.Runs[0].Config)
	}
	m := mustParse(t, "base: {problem: metric, data: synthetic, gamma_c: 0.01}\n")
	if len(m.Runs) != 1 || m.Runs[0].Config.Reg != "psd" {
		t.Fatalf("metric default regulariser: %+v", m.Runs)
	}
}

func TestGenerators(t *testing.T) {
	s := mustParse(t, `axes:
  gamma_c: {logspace: [0.01, 1, 5]}
  graph_p: {linspace: [0.1, 0.5, 3]}
  seed: {range: [10, 1, -4]}
`)
	labels := func(a Axis) string {
		var out []string
		for _, v := range a.Values {
			out = append(out, v.Label)
		}
		return strings.Join(out, " ")
	}
	for i, want := range []string{"0.01 0.0316227766017 0.1 0.316227766017 1", "0.1 0.3 0.5", "10 6 2"} {
		if got := labels(s.Axes[i]); got != want {
			t.Errorf("axis %s: %s, want %s", s.Axes[i].Name, got, want)
		}
	}
	if len(s.Runs) != 45 || s.Runs[44].Config.GammaC != 1 || s.Runs[44].Config.GraphP != 0.5 || s.Runs[44].Config.Seed != 2 {
		t.Fatalf("runs: %d, last %+v", len(s.Runs), s.Runs[len(s.Runs)-1].Config)
	}
}

func TestBundleAxis(t *testing.T) {
	s := mustParse(t, `axes:
  regulariser:
    - {reg: none}
    - {reg: l2, lambda: 0.01}
  seed: [1, 2]
`)
	if len(s.Runs) != 4 || s.Runs[2].Config.Reg != "l2" || s.Runs[2].Config.Lambda != 0.01 || s.Runs[2].Labels[0] != "reg=l2,lambda=0.01" {
		t.Fatalf("%+v", s.Runs)
	}
	if strings.Join(s.Axes[0].Keys, ",") != "reg,lambda" {
		t.Fatalf("keys %v", s.Axes[0].Keys)
	}
}

func TestBadFiles(t *testing.T) {
	cases := []struct{ text, want string }{
		{"base:\n  iters: 100\n  foo: 1\n", `s.yaml:3: unknown key "foo" (valid: problem, data`},
		{"bases:\n  iters: 100\n", `s.yaml:1: unknown key "bases" (valid: name, base, axes, optimum)`},
		{"axes:\n  seed: []\n", `s.yaml:2: axis "seed" is empty`},
		{"axes:\n  seed:\n", `s.yaml:2: axis "seed" is empty`},
		{"axes:\n  seed: {range: [5, 1]}\n", `s.yaml:2: axis "seed": key "seed": range [5, 1]: no values (hi < lo with a positive step)`},
		{"axes:\n  gamma_c: {linspace: [0.1, 1, 0]}\n", `s.yaml:2: axis "gamma_c" is empty`},
		{"base:\n  iters: abc\n", `s.yaml:2: key "iters": expected an integer, got "abc"`},
		{"base:\n  iters: 1.5\n", `s.yaml:2: key "iters": expected an integer, got "1.5"`},
		{"base:\n  gamma_c: fast\n", `s.yaml:2: key "gamma_c": expected a number, got "fast"`},
		{"base:\n  graph: 3\n", `s.yaml:2: key "graph": expected a string, got "3"`},
		{"base:\n  seed: -2\n", `s.yaml:2: key "seed": expected a non-negative integer, got "-2"`},
		{"axes:\n  seed: [1, x]\n", `s.yaml:2: axis "seed": key "seed": expected a non-negative integer, got "x"`},
		{"axes:\n  seed:\n    - 1\n    - 2.5\n", `s.yaml:4: axis "seed": key "seed": expected a non-negative integer, got "2.5"`},
		{"axes:\n  graph: [complete, hypercube]\n", `s.yaml:2: axis "graph": key "graph": unknown value "hypercube"`},
		{"axes:\n  algo: [sync]\n", `s.yaml:2: unknown key "algo"`},
		{"axes:\n  x:\n    - {seed: 1}\n    - {sede: 2}\n", `s.yaml:4: unknown key "sede"`},
		{"axes:\n  seed: 3\n", `s.yaml:2: axis "seed": expected a list`},
		{"axes:\n  seed: {logspace: [1, 10, 3]}\n", `s.yaml:2: axis "seed": logspace gives real values`},
		{"axes:\n  seed: {steps: [1, 10]}\n", `s.yaml:2: axis "seed": unknown key "steps"`},
		{"axes:\n  seed: [1, 2, 1]\n", `s.yaml:2: axis "seed": value 1 repeats`},
		{"axes:\n  seed: [1]\n  x: [{seed: 2}]\n", `s.yaml:3: key "seed" is set by both axis "seed" and axis "x"`},
		{"base:\n  iters: 1\n  iters: 2\n", `s.yaml:3: key "iters" appears twice`},
		{"base:\n  iters: 1\n---\naxes:\n  loss: [0.1, 0.2]\n", `s.yaml:3: a second YAML document`},
		{"base:\n  iters: 1\n...\naxes:\n  loss: [0.1, 0.2]\n", `s.yaml:4: text after the end of the document (... at line 3)`},
		{"base:\n  gamma_c: [1, 2]\n", `s.yaml:2: key "gamma_c": expected a number, got a list`},
		{"base:\n  iters: 0\n", `s.yaml:2: key "iters": must be >= 1, got 0`},
		{"base:\n  gamma_alpha: 0.5\n", `s.yaml:2: key "gamma_alpha": must be in [0, 0.5)`},
		{"base:\n  data: no-such-file.csv\n", `s.yaml:2: key "data": "no-such-file.csv": no such file`},
		{"base:\n  problem: ordinal-svm\n", `s.yaml:2: key "problem": unknown problem "ordinal-svm"`},
		{"axes:\n  seed: [1, 2\n", `s.yaml:`},
		{"", `s.yaml:1: empty sweep file`},
		{"- 1\n- 2\n", `s.yaml:1: expected a mapping`},
		{"optimum: maybe\n", `s.yaml:1: key "optimum": expected true or false`},
		{"axes:\n  x:\n    - {reg: none}\n    - {reg: none, lambda: 0}\n", `have the same configuration`},
		// The network knobs in other spellings are the same run (they got
		// two ids and ran twice).
		{"axes:\n  churn: [\"geometric:up=500,down=100\", \"geometric:down=100,up=500.0\"]\n", `have the same configuration`},
		{"axes:\n  algorithm: [async]\n  delay: [\"constant:3\", \" constant:3\"]\n", `have the same configuration`},
		{"axes:\n  x:\n    - {loss: 0.1}\n    - {loss: 0.1, activation: edges}\n", `have the same configuration`},
		{"axes:\n  x:\n    - {loss: 0.1}\n    - {loss: 0.1, churn: none}\n", `have the same configuration`},
	}
	for _, c := range cases {
		_, err := parseString(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestDecimalNumbers: numbers in sweep files are ordinary decimal numbers;
// YAML's octal, hexadecimal, binary and underscore spellings (010 would be
// 8) are refused with the line, the key and the reason, and range ends near
// the limits of 64-bit integers give exact values or the right message.
func TestDecimalNumbers(t *testing.T) {
	bad := []struct{ text, want string }{
		{"base:\n  iters: 010\n", `s.yaml:2: key "iters": "010": a leading 0 is not accepted (YAML reads 010 as octal 8)`},
		{"base:\n  iters: 0o10\n", `s.yaml:2: key "iters": "0o10": hexadecimal, octal and binary numbers are not accepted`},
		{"base:\n  iters: 0x10\n", `s.yaml:2: key "iters": "0x10": hexadecimal, octal and binary numbers are not accepted`},
		{"base:\n  iters: 0b11\n", `s.yaml:2: key "iters": "0b11": hexadecimal, octal and binary numbers are not accepted`},
		{"base:\n  iters: 1_000\n", `s.yaml:2: key "iters": "1_000": underscores are not accepted in numbers`},
		{"base:\n  iters: -0x10\n", `s.yaml:2: key "iters": "-0x10": hexadecimal, octal and binary`},
		{"base:\n  seed: 017\n", `s.yaml:2: key "seed": "017": a leading 0 is not accepted`},
		{"base:\n  gamma_c: 1_0.5\n", `s.yaml:2: key "gamma_c": "1_0.5": underscores are not accepted in numbers`},
		{"base:\n  gamma_c: 0x1p-2\n", `s.yaml:2: key "gamma_c": expected a number, got "0x1p-2"`},
		{"base:\n  gamma_c: .inf\n", `s.yaml:2: key "gamma_c": expected a finite number, got ".inf"`},
		{"base:\n  loss: 1e-400\n", `s.yaml:2: key "loss": 1e-400 is not zero but below the smallest float64`},
		{"axes:\n  loss: [0.1, 1e-400]\n", `s.yaml:2: axis "loss": key "loss": 1e-400 is not zero but below the smallest float64`},
		{"axes:\n  loss: {linspace: [1e-400, 0.5, 3]}\n", `s.yaml:2: axis "loss": linspace: 1e-400 is not zero but below`},
		{"base:\n  gamma_c: !!float 0x10\n", `s.yaml:2: key "gamma_c": "0x10": hexadecimal, octal and binary`},
		{"axes:\n  seed: [1, 010]\n", `s.yaml:2: axis "seed": key "seed": "010": a leading 0 is not accepted`},
		{"axes:\n  seed: {range: [010, 12]}\n", `s.yaml:2: axis "seed": range: "010": a leading 0 is not accepted`},
		{"axes:\n  gamma_c: {linspace: [0x1, 2, 3]}\n", `s.yaml:2: axis "gamma_c": linspace: "0x1": hexadecimal`},
		{"axes:\n  gamma_c: {logspace: [1, 1_0, 3]}\n", `s.yaml:2: axis "gamma_c": logspace: "1_0": underscores`},
		// 64-bit limits: exact messages, never a wrapped-around value.
		{"base:\n  seed: 18446744073709551616\n", `s.yaml:2: key "seed": 18446744073709551616 is out of range: expected a non-negative integer up to 18446744073709551615`},
		{"base:\n  iters: 9223372036854775808\n", `s.yaml:2: key "iters": 9223372036854775808 is out of range: expected an integer in [-9223372036854775808, 9223372036854775807]`},
		{"axes:\n  seed: {range: [18446744073709551615, 18446744073709551616]}\n", `s.yaml:2: axis "seed": key "seed": range [18446744073709551615, 18446744073709551616]: 18446744073709551616 is out of range: expected a non-negative integer up to 18446744073709551615`},
		{"axes:\n  seed: {range: [0, 18446744073709551615]}\n", `s.yaml:2: axis "seed": key "seed": range [0, 18446744073709551615]: 18446744073709551616 values, more than the limit`},
		{"axes:\n  seed: {range: [-3, 2]}\n", `s.yaml:2: axis "seed": key "seed": range [-3, 2]: -3 is out of range: expected a non-negative integer`},
		{"axes:\n  seed: {range: [1, 10, 0]}\n", `range [1, 10, 0]: the step must not be 0`},
		{"axes:\n  seed: {range: [10, 1, 18446744073709551615]}\n", `range [10, 1, 18446744073709551615]: no values (hi < lo with a positive step)`},
		{"axes:\n  iters: {range: [9223372036854775806, 9223372036854775808]}\n", `range [9223372036854775806, 9223372036854775808]: 9223372036854775808 is out of range`},
		{"axes:\n  iters: {range: [-9223372036854775809, -9223372036854775808]}\n", `range [-9223372036854775809, -9223372036854775808]: -9223372036854775809 is out of range`},
	}
	for _, c := range bad {
		_, err := parseString(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	good := []struct {
		text string
		want []string // labels of the first axis, or the seed of the base
	}{
		{"axes:\n  seed: [0, 10, +7]\n", []string{"0", "10", "7"}},
		{"axes:\n  seed: {range: [18446744073709551613, 18446744073709551615]}\n", []string{"18446744073709551613", "18446744073709551614", "18446744073709551615"}},
		{"axes:\n  seed: {range: [18446744073709551614, 18446744073709551616, 5]}\n", []string{"18446744073709551614"}},
		{"axes:\n  seed: {range: [18446744073709551615, 0, -9223372036854775808]}\n", []string{"18446744073709551615", "9223372036854775807"}},
		{"axes:\n  seed: {range: [1, 10, 9223372036854775807]}\n", []string{"1"}},
		{"axes:\n  gamma_c: [0.5, .25, 1e-2, 2E+1, 10]\n", []string{"0.5", "0.25", "0.01", "20", "10"}},
	}
	for _, c := range good {
		s, err := parseString(t, c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		var got []string
		for _, v := range s.Axes[0].Values {
			got = append(got, v.Label)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: values %v, want %v", c.text, got, c.want)
		}
	}
	s := mustParse(t, "base:\n  seed: 18446744073709551615\n  iters: 10\n")
	if s.Runs[0].Config.Seed != math.MaxUint64 || s.Runs[0].Config.Iters != 10 {
		t.Errorf("seed %d, iters %d", s.Runs[0].Config.Seed, s.Runs[0].Config.Iters)
	}
}

func TestShare(t *testing.T) {
	runs := make([]Run, 10)
	for i := range runs {
		runs[i].Index = i
	}
	seen := 0
	for task := 0; task < 4; task++ {
		sh := Share(runs, task, 4)
		for _, r := range sh {
			if r.Index != seen {
				t.Fatalf("task %d: run %d, want %d", task, r.Index, seen)
			}
			seen++
		}
	}
	if seen != 10 {
		t.Fatal(seen)
	}
}

const tiny = `name: tiny
base:
  iters: 60
  eval_nodes: 4
  log_points: 4
optimum: false
axes:
  graph: [complete, cycle]
  algorithm: [sync, async]
  seed: [1, 2]
`

func writeSweep(t *testing.T, dir, text string) *Sweep {
	t.Helper()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func open(t *testing.T, path string) *Store {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func count(t *testing.T, st *Store) Counts {
	t.Helper()
	c, err := st.Count()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExecuteResumeSplitMerge: a local run, a second run that does
// nothing, the same sweep split over tasks and merged (twice), compared.
func TestExecuteResumeSplitMerge(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, tiny)
	ctx := context.Background()
	local := open(t, filepath.Join(dir, "local.db"))
	var events int
	rep, err := Execute(ctx, sw, sw.Runs, local, Options{Cores: 2, OnEvent: func(Event) { events++ }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 8 || rep.Complete != 8 || events != 16 {
		t.Fatalf("%+v, %d events", rep, events)
	}
	if n := count(t, local).TraceRows; n != 8*4 {
		t.Fatalf("%d trace rows", n)
	}
	rep, err = Execute(ctx, sw, sw.Runs, local, Options{})
	if err != nil || rep.Ran != 0 || rep.Skipped != 8 {
		t.Fatalf("second run: %+v %v", rep, err)
	}
	// Split over 3 tasks, with other worker counts.
	tasks := filepath.Join(dir, "tasks")
	for task := 0; task < 3; task++ {
		st := open(t, TaskDB(tasks, task))
		if _, err := Execute(ctx, sw, Share(sw.Runs, task, 3), st, Options{Cores: 1, Workers: 1 + task%2}); err != nil {
			t.Fatal(err)
		}
	}
	merged := open(t, filepath.Join(dir, "merged.db"))
	srcs, _ := TaskDBs(tasks)
	if len(srcs) != 3 {
		t.Fatal(srcs)
	}
	for round := 0; round < 2; round++ {
		added := 0
		for _, src := range srcs {
			ms, err := merged.Merge(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			if ms.Conflicts != 0 {
				t.Fatalf("%+v", ms)
			}
			added += ms.Added
		}
		if want := []int{8, 0}[round]; added != want {
			t.Fatalf("merge round %d added %d, want %d", round, added, want)
		}
	}
	st, err := StatusOf([]*Store{merged}, nil)
	if err != nil || st.Total != 8 || st.Complete != 8 || !st.Done {
		t.Fatalf("%+v %v", st, err)
	}
	if lines, n, err := Diff(local, merged, 0); err != nil || n != 0 {
		t.Fatalf("diff: %v %v", lines, err)
	}
	// Diff sees a changed trace value and a missing run.
	if _, err := merged.db.Exec(`UPDATE traces SET bias = bias * (1 + 1e-15) + 1e-300 WHERE run_id = ? AND iter = 60`, sw.Runs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := merged.db.Exec(`DELETE FROM runs WHERE id = ?`, sw.Runs[1].ID); err != nil {
		t.Fatal(err)
	}
	lines, n, err := Diff(local, merged, 0)
	if err != nil || n != 2 || !strings.Contains(strings.Join(lines, "\n"), "bias") {
		t.Fatalf("diff after edits: %d %q %v", n, lines, err)
	}
}

func TestFailedRunsRetried(t *testing.T) {
	dir := t.TempDir()
	// auc with the psd regulariser fails at Prepare.
	sw := writeSweep(t, dir, "base: {iters: 20, log_points: 2, eval_nodes: 4}\noptimum: false\naxes:\n  reg: [none, psd]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{RerunFailed: true})
	if err != nil || rep.Complete != 1 || rep.Failed != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	var msg string
	errs, err := st.RunErrors()
	if err != nil || len(errs) != 1 || errs[0].Status != StatusFailed {
		t.Fatalf("run errors %+v %v", errs, err)
	}
	msg = errs[0].Error
	if !strings.Contains(msg, "psd") {
		t.Fatalf("error text %q", msg)
	}
	rep, _ = Execute(context.Background(), sw, sw.Runs, st, Options{RerunFailed: true})
	if rep.Ran != 1 || rep.Skipped != 1 {
		t.Fatalf("retry: %+v", rep)
	}
	rep, _ = Execute(context.Background(), sw, sw.Runs, st, Options{RerunFailed: false})
	if rep.Ran != 0 || rep.Skipped != 2 {
		t.Fatalf("no retry: %+v", rep)
	}
	s, _ := StatusOf([]*Store{st}, nil)
	if s.Total != 2 || s.Complete != 1 || s.Failed != 1 || s.Done {
		t.Fatalf("%+v", s)
	}
}

func TestDivergedIsFinal(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "base: {iters: 2000, graph: complete, log_points: 3, eval_nodes: 4, gamma_c: 1e300, problem: auc-squared-hinge}\noptimum: false\n")
	st := open(t, filepath.Join(dir, "d.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Diverged != 1 {
		t.Fatalf("γ = 1e300 did not diverge: %+v", rep)
	}
	var status, msg string
	errs, err := st.RunErrors()
	if err != nil || len(errs) != 1 {
		t.Fatalf("run errors %+v %v", errs, err)
	}
	status, msg = errs[0].Status, errs[0].Error
	if status != StatusDiverged || !strings.Contains(msg, "divergence") {
		t.Fatalf("stored %q %q", status, msg)
	}
	rep, _ = Execute(context.Background(), sw, sw.Runs, st, Options{RerunFailed: true})
	if rep.Ran != 0 {
		t.Fatalf("diverged run was run again: %+v", rep)
	}
}

func TestCancelledRunNotWritten(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, tiny)
	st := open(t, filepath.Join(dir, "c.db"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Execute(ctx, sw, sw.Runs, st, Options{})
	if err == nil || rep.Ran != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if n := count(t, st).Runs; n != 0 {
		t.Fatalf("%d rows after a cancelled sweep", n)
	}
	if n := count(t, st).Planned; n != 8 {
		t.Fatalf("plan has %d rows", n)
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, strings.Replace(tiny, "graph: [complete, cycle]", "gamma_c: {logspace: [0.1, 10, 3]}", 1))
	st := open(t, filepath.Join(dir, "r.db"))
	if _, err := Execute(context.Background(), sw, sw.Runs, st, Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := LoadReport(st, ReportOptions{Metrics: []string{"objective_mean", "auc_mean"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Keys, ",") != "gamma_c,algorithm" || rep.X != "gamma_c" || len(rep.Groups) != 6 {
		t.Fatalf("keys %v x %s groups %d", rep.Keys, rep.X, len(rep.Groups))
	}
	g := rep.Groups[0]
	if g.Runs != 2 || g.Complete != 2 || g.Values[0] != "0.1" || g.Values[1] != "sync" {
		t.Fatalf("%+v", g)
	}
	out := filepath.Join(dir, "out")
	if err := rep.Write(out, "test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.csv", "summary.html", "objective_mean-vs-gamma_c.png", "objective_mean-vs-gamma_c.svg", "auc_mean-vs-gamma_c.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "gamma_c,algorithm,runs,complete,diverged,failed,objective_mean_mean,objective_mean_std") {
		t.Fatalf("csv:\n%s", csv)
	}
	html, _ := os.ReadFile(filepath.Join(out, "summary.html"))
	if !strings.Contains(string(html), " ± ") || !strings.Contains(string(html), `src="objective_mean-vs-gamma_c.svg"`) {
		t.Fatal("html lacks mean ± std or the plot")
	}
	if _, err := LoadReport(st, ReportOptions{X: "graph"}); err == nil || !strings.Contains(err.Error(), "not a swept key") {
		t.Fatalf("bad --x: %v", err)
	}
	if _, err := LoadReport(st, ReportOptions{Metrics: []string{"speed"}}); err == nil {
		t.Fatal("bad metric accepted")
	}
}

func TestSlurmScript(t *testing.T) {
	s := SlurmScript(SlurmOptions{Binary: "/opt/pg bin/pairgossip", SweepFile: "/w/s.yaml", WorkDir: "/w", ResultsDir: "/r",
		Tasks: 4, Partition: "debug", Time: "00:10:00", CPUsPerTask: 2, PlanHash: "abc", Runs: 24, Name: "small sweep"})
	for _, want := range []string{"#!/bin/bash\n", "#SBATCH --array=0-3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=00:10:00\n",
		"#SBATCH --partition=debug\n", "#SBATCH --output=/r/logs/task-%a.out\n", "#SBATCH --job-name=pairgossip-small-sweep\n",
		`exec '/opt/pg bin/pairgossip' sweep run /w/s.yaml`, `--task-id "$SLURM_ARRAY_TASK_ID" --tasks 4 --results-dir /r`, "--plan-hash abc"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	// No command before the last #SBATCH line.
	lines := strings.Split(s, "\n")
	lastSbatch := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "#SBATCH") {
			lastSbatch = i
		}
	}
	for _, l := range lines[1:lastSbatch] {
		if !strings.HasPrefix(l, "#") {
			t.Fatalf("command %q before #SBATCH lines end", l)
		}
	}
	for _, c := range []struct {
		s  string
		ok bool
	}{{"00:10:00", true}, {"1-00:00:00", true}, {"100:00:00", true}, {"10:00", false}, {"00:60:00", false}} {
		if ValidTime(c.s) != c.ok {
			t.Errorf("ValidTime(%q) = %v", c.s, !c.ok)
		}
	}
	if Tasks(24, 5, 100) != 5 || Tasks(24, 0, 100) != 24 || Tasks(500, 0, 100) != 100 {
		t.Fatal("Tasks")
	}
}

func TestWorkers(t *testing.T) {
	sync := pairgossip.Config{Algorithm: "sync"}
	async := pairgossip.Config{Algorithm: "async"}
	if w := Workers(sync, 699, 9, 16); w != 1 {
		t.Errorf("small sync: %d", w)
	}
	if w := Workers(sync, 1000, 1600, 16); w != 16 {
		t.Errorf("metric sync: %d", w)
	}
	if w := Workers(async, 1000, 1600, 16); w != 1 {
		t.Errorf("metric async: %d", w)
	}
}

// TestRadiusKeys: ball_radius is the ℓ2 ball's radius (JSON name radius,
// so run ids do not change), graph_radius the geometric graph's; the old
// key radius still sets the ball's, with a warning naming the line.
func TestRadiusKeys(t *testing.T) {
	old := mustParse(t, "base: {reg: l2-ball, radius: 0.5}\naxes:\n  seed: [1, 2]\n")
	cur := mustParse(t, "base: {reg: l2-ball, ball_radius: 0.5}\naxes:\n  seed: [1, 2]\n")
	if old.Runs[0].Config.Radius != 0.5 || old.Runs[0].Config.GraphR != 0 || old.PlanHash() != cur.PlanHash() {
		t.Fatalf("radius: %+v; plans %s %s", old.Runs[0].Config, old.PlanHash(), cur.PlanHash())
	}
	if len(old.Warnings) != 1 || !strings.HasPrefix(old.Warnings[0], `s.yaml:1: key "radius" is deprecated: use ball_radius`) || len(cur.Warnings) != 0 {
		t.Fatalf("warnings %q and %q", old.Warnings, cur.Warnings)
	}
	if b, _ := json.Marshal(cur.Runs[0].Config); !strings.Contains(string(b), `"radius":0.5`) {
		t.Fatalf("the JSON name changed: %s", b)
	}
	g := mustParse(t, "base: {graph: geometric, graph_radius: 0.2}\n")
	if g.Runs[0].Config.GraphR != 0.2 || g.Runs[0].Config.Radius != 1 {
		t.Fatalf("graph_radius: %+v", g.Runs[0].Config)
	}
	ax := mustParse(t, "base: {reg: l2-ball}\naxes:\n  radius: [0.5, 1]\n")
	if ax.Axes[0].Name != "radius" || ax.Axes[0].Keys[0] != "ball_radius" || ax.Runs[1].Config.Radius != 1 ||
		len(ax.Warnings) != 1 || !strings.HasPrefix(ax.Warnings[0], "s.yaml:3:") {
		t.Fatalf("axes %+v, runs %+v, warnings %q", ax.Axes, ax.Runs, ax.Warnings)
	}
	bx := mustParse(t, "base: {reg: l2-ball}\naxes:\n  x:\n    - {radius: 2}\n    - {ball_radius: 3}\n")
	if bx.Axes[0].Keys[0] != "ball_radius" || bx.Runs[0].Labels[0] != "ball_radius=2" || bx.Runs[1].Labels[0] != "ball_radius=3" ||
		bx.Runs[1].Config.Radius != 3 || len(bx.Warnings) != 1 || !strings.HasPrefix(bx.Warnings[0], "s.yaml:4:") {
		t.Fatalf("axes %+v, runs %+v, warnings %q", bx.Axes, bx.Runs, bx.Warnings)
	}
	for _, c := range []struct{ text, want string }{
		{"base:\n  ball_radius: 0\n", `s.yaml:2: key "ball_radius": must be > 0, got 0`},
		{"base:\n  radius: -1\n", `s.yaml:2: key "ball_radius": must be > 0, got -1`},
		{"base:\n  graph_radius: -1\n", `s.yaml:2: key "graph_radius": must be >= 0, got -1`},
		{"base:\n  schedule: fast\n", `s.yaml:2: key "schedule": unknown value "fast" (valid: auto, plain`},
	} {
		if _, err := parseString(t, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestReportOldKeys: a report of a database whose sweep swept the ball's
// radius names the key ball_radius, whether the database recorded it so or
// by its old name, and takes either name for --x and --over.
func TestReportOldKeys(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "base: {iters: 30, log_points: 2, eval_nodes: 4, reg: l2-ball}\noptimum: false\naxes:\n  radius: [0.5, 1]\n  seed: [1, 2]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	if _, err := Execute(context.Background(), sw, sw.Runs, st, Options{}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		for _, x := range []string{"", "radius", "ball_radius"} {
			rep, err := LoadReport(st, ReportOptions{X: x})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(rep.Keys, ",") != "ball_radius" || rep.X != "ball_radius" || len(rep.Groups) != 2 ||
				rep.Groups[0].Values[0] != "0.5" || rep.Groups[1].Values[0] != "1" || rep.Groups[1].Complete != 2 {
				t.Fatalf("round %d, --x %q: keys %v x %s groups %+v", round, x, rep.Keys, rep.X, rep.Groups)
			}
		}
		rep, err := LoadReport(st, ReportOptions{Over: []string{"radius", "seed"}})
		if err != nil || len(rep.Keys) != 0 || len(rep.Groups) != 1 || rep.Over[0] != "ball_radius" {
			t.Fatalf("over radius: %+v %v", rep, err)
		}
		// A database written before the rename recorded the axis key as radius.
		if _, err := st.db.Exec(`UPDATE meta SET value = 'radius' WHERE key LIKE 'keys:%'`); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFailedRunNamesKey: a run refused by pairgossip's validation records
// the error with the sweep key, not the flag.
func TestFailedRunNamesKey(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "base: {iters: 20, log_points: 2, eval_nodes: 4, graph: file}\noptimum: false\n")
	st := open(t, filepath.Join(dir, "f.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{})
	if err != nil || rep.Failed != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	errs, err := st.RunErrors()
	if err != nil || len(errs) != 1 || errs[0].Error != `key "graph_file": must be given when the graph is file` {
		t.Fatalf("%+v %v", errs, err)
	}
}

// TestReportCurves: a sweep of 2 values × 3 seeds gives, for each metric,
// a curve figure with one curve per value and a band of ± one standard
// deviation over the 3 seeds, computed iteration by iteration from the
// stored traces.
func TestReportCurves(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "base: {iters: 200, log_points: 5, eval_nodes: 8, reg: l2}\noptimum: false\naxes:\n  lambda: [0.001, 0.1]\n  seed: [1, 2, 3]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	if _, err := Execute(context.Background(), sw, sw.Runs, st, Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := LoadReport(st, ReportOptions{Metrics: []string{"objective_mean", "consensus"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || strings.Join(rep.Keys, ",") != "lambda" {
		t.Fatalf("groups %d keys %v", len(rep.Groups), rep.Keys)
	}
	for _, g := range rep.Groups {
		c := g.Curves["objective_mean"]
		if c == nil || len(c.Iter) != 5 || c.Iter[4] != 200 {
			t.Fatalf("group %v: curve %+v", g.Values, c)
		}
		// The last point is the final values' aggregate.
		if c.Runs[4] != 3 || math.Abs(c.Mean[4]-g.Mean["objective_mean"]) > 1e-15 || math.Abs(c.Std[4]-g.Std["objective_mean"]) > 1e-15 || !(c.Std[4] > 0) {
			t.Fatalf("group %v: last point %v ± %v over %d runs, final values %v ± %v", g.Values, c.Mean[4], c.Std[4], c.Runs[4], g.Mean["objective_mean"], g.Std["objective_mean"])
		}
	}
	spec, ok := rep.CurveSpec("objective_mean")
	if !ok || len(spec.Curves) != 2 || spec.Curves[0].Lo == nil || !strings.Contains(spec.Curves[1].Label, "lambda=0.1") || !strings.Contains(spec.Curves[0].Label, "3 runs") {
		t.Fatalf("curve figure: %d curves %+v", len(spec.Curves), spec.Curves)
	}
	for _, m := range []string{"objective_mean", "consensus"} {
		sp, _ := rep.CurveSpec(m)
		if _, _, err := figure.Render(sp); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	out := filepath.Join(dir, "out")
	if err := rep.Write(out, "test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"objective_mean-curves.png", "objective_mean-curves.svg", "consensus-curves.svg", "objective_mean-vs-lambda.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "summary.html"))
	if !strings.Contains(string(html), "objective_mean-curves.svg") {
		t.Error("summary.html does not show the curves")
	}
}
