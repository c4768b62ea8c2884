package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/sweep"
)

func buildSweepBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pairgossip")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func completeRuns(t *testing.T, st *sweep.Store) int {
	t.Helper()
	statuses, err := st.Statuses()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range statuses {
		if s == sweep.StatusComplete {
			n++
		}
	}
	return n
}

// TestSweepKillRestart is the acceptance test of sweep run: the 24-run
// example sweep, killed with SIGKILL part-way (twice), then restarted, ends
// with every run exactly once and results identical to an uninterrupted
// sweep.
func TestSweepKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the example sweep twice")
	}
	bin := buildSweepBinary(t)
	file, err := filepath.Abs("../../examples/sweep-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	refDB, db := filepath.Join(dir, "ref.db"), filepath.Join(dir, "killed.db")

	t0 := time.Now()
	if out, err := exec.Command(bin, "sweep", "run", file, "--results", refDB, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted sweep: %v\n%s", err, out)
	}
	t.Logf("uninterrupted sweep: %v", time.Since(t0))

	st, err := sweep.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	killedAt := 0
	for k := 0; k < 2; k++ {
		cmd := exec.Command(bin, "sweep", "run", file, "--results", db)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		target := killedAt + 3
		deadline := time.Now().Add(60 * time.Second)
		for completeRuns(t, st) < target {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no progress after 60 s:\n%s", stderr.String())
			}
			time.Sleep(15 * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		n := completeRuns(t, st)
		if n >= 24 {
			t.Fatalf("the sweep finished before it was killed; nothing tested")
		}
		if !strings.Contains(stderr.String(), strconv.Itoa(killedAt)+" already done") {
			t.Fatalf("restart %d did not skip the %d runs done:\n%s", k, killedAt, stderr.String())
		}
		t.Logf("kill %d: %d of 24 runs complete", k+1, n)
		killedAt = n
	}

	var stderr bytes.Buffer
	cmd := exec.Command(bin, "sweep", "run", file, "--results", db)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("restart: %v\n%s%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), strconv.Itoa(killedAt)+" already done, "+strconv.Itoa(24-killedAt)+" to run") {
		t.Fatalf("restart did not resume from %d:\n%s", killedAt, stderr.String())
	}
	ran := regexp.MustCompile(`(?m)^\[\d+/\d+\] run \d+ [0-9a-f]{16} .*: complete,`).FindAllString(stderr.String(), -1)
	if len(ran) != 24-killedAt {
		t.Fatalf("restart ran %d runs, want %d:\n%s", len(ran), 24-killedAt, stderr.String())
	}

	code, sout, serr := runCLI("sweep", "status", "--results", db, "--json")
	var s sweep.Status
	if code != 0 || json.Unmarshal([]byte(sout), &s) != nil {
		t.Fatalf("status: %d %s %s", code, sout, serr)
	}
	if s.Total != 24 || s.Complete != 24 || s.Failed != 0 || s.Pending != 0 {
		t.Fatalf("status %+v", s)
	}
	counts, err := st.Count()
	if err != nil {
		t.Fatal(err)
	}
	statuses, err := st.Statuses() // by id: the distinct runs
	if err != nil {
		t.Fatal(err)
	}
	rows, distinct, traces := counts.Runs, len(statuses), counts.TraceRows
	if rows != 24 || distinct != 24 || traces == 0 {
		t.Fatalf("%d rows, %d distinct, %d trace rows", rows, distinct, traces)
	}
	code, sout, serr = runCLI("sweep", "diff", refDB, db)
	if code != 0 || !strings.Contains(sout, "identical") {
		t.Fatalf("results differ from the uninterrupted sweep (exit %d):\n%s%s", code, sout, serr)
	}
}

const cliSweep = `name: cli
base:
  iters: 40
  eval_nodes: 4
  log_points: 3
optimum: false
axes:
  algorithm: [sync, async]
  gamma_c: [0.5, 1]
  seed: {range: [1, 2]}
`

func TestSweepCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(cliSweep), 0o644)

	code, out, errs := runCLI("sweep", "plan", file, "--json")
	var plan struct {
		Runs int `json:"runs"`
		Plan []struct {
			ID     string          `json:"id"`
			Axes   json.RawMessage `json:"axes"`
			Config map[string]any  `json:"config"`
		} `json:"plan"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || plan.Runs != 8 || len(plan.Plan) != 8 {
		t.Fatalf("plan: %d %s %s", code, out, errs)
	}
	var axes bytes.Buffer
	json.Compact(&axes, plan.Plan[1].Axes)
	if axes.String() != `{"algorithm":"sync","gamma_c":"0.5","seed":"2"}` || plan.Plan[1].Config["seed"] != 2.0 {
		t.Fatalf("plan[1]: %s %v", plan.Plan[1].Axes, plan.Plan[1].Config)
	}
	code, out, _ = runCLI("sweep", "plan", file)
	if code != 0 || !strings.HasPrefix(out, "sweep cli: 8 runs (algorithm 2 × gamma_c 2 × seed 2)") || !strings.Contains(out, plan.Plan[7].ID) {
		t.Fatalf("plan text: %s", out)
	}

	// Bad files and flags: exit status 2, FILE:LINE.
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("base:\n  iters: abc\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "plan", bad}, `bad.yaml:2: key "iters": expected an integer, got "abc"`},
		{[]string{"sweep", "run", bad, "--results", filepath.Join(dir, "x.db")}, `bad.yaml:2:`},
		{[]string{"sweep", "run", file}, "--results DB is required"},
		{[]string{"sweep", "run", file, "--results-dir", dir, "--tasks", "2", "--task-id", "2"}, "--task-id must be in [0, 2)"},
		{[]string{"sweep", "run", file, "--results", "x.db", "--plan-hash", "0000"}, "has changed since the job script was written"},
		{[]string{"sweep", "slurm", file, "--results-dir", dir, "--time", "1h"}, "--time must be HH:MM:SS"},
		{[]string{"sweep", "frob"}, `unknown sweep command "frob"`},
		{[]string{"sweep", "plan"}, "missing sweep file"},
		{[]string{"sweep", "plan", filepath.Join(dir, "none.yaml")}, "none.yaml"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}

	local := filepath.Join(dir, "local.db")
	code, out, errs = runCLI("sweep", "run", file, "--results", local)
	if code != 0 || !strings.Contains(out, "8 run now (8 complete, 0 diverged, 0 failed)") {
		t.Fatalf("run: %d %s %s", code, out, errs)
	}
	code, out, _ = runCLI("sweep", "status", "--results", local, "--json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["total"] != 8.0 || m["complete"] != 8.0 || m["failed"] != 0.0 {
		t.Fatalf("status: %s", out)
	}

	// The SLURM path without SLURM: write the script, run its tasks by hand, merge twice.
	rdir := filepath.Join(dir, "results")
	code, out, errs = runCLI("sweep", "slurm", file, "--results-dir", rdir, "--tasks", "3", "--partition", "debug", "--time", "00:05:00", "--cpus-per-task", "2")
	if code != 0 || !strings.Contains(out, "8 runs in 3 array tasks") {
		t.Fatalf("slurm: %d %s %s", code, out, errs)
	}
	script, err := os.ReadFile(filepath.Join(rdir, "sweep.sbatch"))
	if err != nil || !strings.Contains(string(script), "#SBATCH --array=0-2") || !strings.Contains(string(script), "#SBATCH --partition=debug") {
		t.Fatalf("script: %v\n%s", err, script)
	}
	hash := regexp.MustCompile(`--plan-hash ([0-9a-f]+)`).FindStringSubmatch(string(script))
	if hash == nil {
		t.Fatalf("script has no plan hash:\n%s", script)
	}
	for task := 0; task < 3; task++ {
		code, out, errs := runCLI("sweep", "run", file, "--task-id", strconv.Itoa(task), "--tasks", "3", "--results-dir", rdir, "--cores", "1", "--plan-hash", hash[1])
		if code != 0 {
			t.Fatalf("task %d: %s %s", task, out, errs)
		}
	}
	code, out, _ = runCLI("sweep", "status", "--results-dir", rdir, "--json")
	if code != 0 || !strings.Contains(out, `"complete": 8`) {
		t.Fatalf("status of the task databases: %s", out)
	}
	merged := filepath.Join(dir, "merged.db")
	for round, want := range []string{"8 runs added, 0 already present", "0 runs added, 8 already present"} {
		code, out, errs = runCLI("sweep", "merge", rdir, "--results", merged)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("merge %d: %d %s %s", round, code, out, errs)
		}
	}
	if code, out, errs = runCLI("sweep", "diff", local, merged); code != 0 {
		t.Fatalf("diff: %s %s", out, errs)
	}
	// diff fails on a different database.
	other := filepath.Join(dir, "other.db")
	os.WriteFile(file, []byte(strings.Replace(cliSweep, "iters: 40", "iters: 41", 1)), 0o644)
	runCLI("sweep", "run", file, "--results", other)
	if code, out, _ = runCLI("sweep", "diff", local, other); code != 1 || !strings.Contains(out, "only in") {
		t.Fatalf("diff of different sweeps: %d %s", code, out)
	}

	rep := filepath.Join(dir, "report")
	code, out, errs = runCLI("sweep", "report", merged, "--out", rep, "--x", "gamma_c")
	if code != 0 || !strings.Contains(out, "4 configurations (algorithm, gamma_c; aggregated over seed)") {
		t.Fatalf("report: %d %s %s", code, out, errs)
	}
	for _, f := range []string{"summary.csv", "summary.html", "objective_mean-vs-gamma_c.png", "objective_mean-vs-gamma_c.svg"} {
		if _, err := os.Stat(filepath.Join(rep, f)); err != nil {
			t.Error(err)
		}
	}
	if code, _, errs = runCLI("sweep", "report", merged, "--out", rep, "--x", "graph"); code != 2 || !strings.Contains(errs, "not a swept key") {
		t.Fatalf("report --x graph: %d %s", code, errs)
	}
	for _, args := range [][]string{{"sweep", "--help"}, {"help", "sweep"}, {"sweep", "run", "--help"}, {"sweep", "help", "report"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || len(out)+len(errs) < 200 {
			t.Errorf("%v: exit %d %q", args, code, out+errs)
		}
	}
}

// TestSweepProgress: off a terminal, sweep run reports a line per finished
// run and no status line (no carriage return); --quiet reports nothing.
func TestSweepProgress(t *testing.T) {
	run := sweep.Run{Index: 3, ID: "0123456789abcdef", Labels: []string{"cycle", "async"}}
	events := []sweep.Event{
		{Start: true, Run: run, Todo: 2, Running: 1},
		{Run: run, Outcome: &sweep.Outcome{Status: sweep.StatusComplete, Wall: 1234 * time.Millisecond}, Done: 1, Todo: 2},
		{Run: run, Outcome: &sweep.Outcome{Status: sweep.StatusFailed, Error: "no such file", Wall: 5 * time.Millisecond}, Done: 2, Todo: 2},
		{Run: run, Outcome: &sweep.Outcome{Status: sweep.StatusComplete, Wall: time.Second, Warnings: []string{"the graph is bipartite"}}, Done: 3, Todo: 3},
	}
	for _, quiet := range []bool{false, true} {
		var buf bytes.Buffer
		p := newSweepProgress(&buf, quiet)
		for _, e := range events {
			p.event(e)
		}
		p.close()
		want := "[1/2] run 3 0123456789abcdef (cycle async): complete, 1.2s\n" +
			"[2/2] run 3 0123456789abcdef (cycle async): failed: no such file, 0s\n" +
			"[3/3] run 3 0123456789abcdef (cycle async): complete, 1s\n  warning: the graph is bipartite\n"
		if quiet {
			want = ""
		}
		if buf.String() != want || p.warned != 1 {
			t.Errorf("quiet %v: wrote %q, want %q; %d runs warned", quiet, buf.String(), want, p.warned)
		}
	}
}

// TestSweepRunWarnings: a run's warnings (here a bipartite graph) are
// shown by sweep run, counted at its end even with --quiet, and listed by
// sweep status --warnings; they used to reach only the database.
func TestSweepRunWarnings(t *testing.T) {
	dir := t.TempDir()
	file, db := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "w.db")
	os.WriteFile(file, []byte("name: w\nbase:\n  iters: 40\n  data: synthetic-auc\n  n: 60\n  log_points: 2\n  graph_k: 2\n  graph_p: 0\noptimum: false\naxes:\n  seed: [1, 2]\n"), 0o644)
	code, _, errs := runCLI("sweep", "run", file, "--results", db)
	if code != 0 || strings.Count(errs, "\n  warning: ") != 2 || !strings.Contains(errs, "bipartite") ||
		!strings.Contains(errs, "warning: 2 of the runs ended with warnings (pairgossip sweep status --results "+db+" --warnings lists them)") {
		t.Fatalf("sweep run: exit %d, %s", code, errs)
	}
	code, out, errs := runCLI("sweep", "status", "--results", db, "--warnings")
	if code != 0 || strings.Count(out, "warning ") != 2 || !strings.Contains(out, "bipartite") {
		t.Fatalf("sweep status --warnings: exit %d, %s %s", code, out, errs)
	}
	// With a sweep file, its runs only (another sweep's: none); not with
	// --json, which prints the counts.
	other := filepath.Join(dir, "o.yaml")
	os.WriteFile(other, []byte("name: o\nbase:\n  iters: 40\n  data: synthetic-auc\n  n: 60\noptimum: false\naxes:\n  seed: [7]\n"), 0o644)
	if code, out, errs := runCLI("sweep", "status", other, "--results", db, "--warnings"); code != 0 || strings.Contains(out, "warning ") {
		t.Fatalf("sweep status OTHER --warnings: exit %d, %s %s", code, out, errs)
	}
	if code, _, errs := runCLI("sweep", "status", "--results", db, "--warnings", "--json"); code != 2 || !strings.Contains(errs, "--json prints the counts") {
		t.Fatalf("--warnings --json: exit %d, %s", code, errs)
	}
	os.Remove(db)
	if code, _, errs := runCLI("sweep", "run", file, "--results", db, "--quiet"); code != 0 || errs != "warning: 2 of the runs ended with warnings (pairgossip sweep status --results "+db+" --warnings lists them)\n" {
		t.Fatalf("sweep run --quiet: exit %d, %q", code, errs)
	}
}

// TestSweepPlanCheckNamesKeys: sweep plan --check validates every run with
// pairgossip's validation and names the sweep key at fault; a deprecated key
// is read with a warning; the usage lists the keys of the parameter table.
func TestSweepPlanCheckNamesKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte("base:\n  iters: 10\n  reg: l2-ball\n  radius: 0.5\naxes:\n  graph: [cycle, file]\n"), 0o644)
	code, _, errs := runCLI("sweep", "plan", file, "--check")
	if code != 2 || !strings.Contains(errs, `run 1 (file, id `) || !strings.Contains(errs, `key "graph_file": must be given when the graph is file`) {
		t.Fatalf("plan --check: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, `warning: `+file+`:4: key "radius" is deprecated: use ball_radius`) {
		t.Fatalf("no warning for the old key: %q", errs)
	}
	os.WriteFile(file, []byte("base:\n  iters: 10\n  reg: l2-ball\n  ball_radius: 0.5\naxes:\n  graph: [cycle, complete]\n"), 0o644)
	if code, out, errs := runCLI("sweep", "plan", file, "--check"); code != 0 || errs != "" || !strings.Contains(out, "2 runs") {
		t.Fatalf("plan --check of a valid sweep: exit %d %q %q", code, out, errs)
	}
	_, out, _ := runCLI("sweep", "--help")
	if !strings.Contains(out, "graph_radius") || !strings.Contains(out, "ball_radius") || !strings.Contains(out, "radius (now ball_radius)") {
		t.Errorf("sweep --help: %s", out)
	}
}
