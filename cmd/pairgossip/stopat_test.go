package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestRunStopAt: run --stop-at stops at the first measurement within the
// target (summary.json: stop, reached, the iteration; the trace's last row
// is that measurement); with --no-optimum it is refused by name, exit 2,
// nothing written.
func TestRunStopAt(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	base := []string{"run", "--data", "synthetic-auc", "--n", "64", "--dim", "8", "--iters", "6000", "--out", out}
	code, _, errs := runCLI(append(base, "--stop-at", "2", "--no-optimum")...)
	if code != 2 || !strings.Contains(errs, "--stop-at") || !strings.Contains(errs, "--no-optimum") {
		t.Fatalf("--no-optimum: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused run wrote %s", out)
	}
	code, stdout, errs := runCLI(append(base, "--stop-at", "2", "--json")...)
	var s struct {
		Status, Stop string
		Reached      *bool
		StopAt       float64 `json:"stop_at"`
		Iter         int64
		Optimum      float64 `json:"optimum_objective"`
		Objective    float64 `json:"objective_mean"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &s) != nil {
		t.Fatalf("exit %d: %s %s", code, stdout, errs)
	}
	if s.Status != "complete" || s.Stop != "reached" || s.Reached == nil || !*s.Reached || s.StopAt != 2 || s.Iter >= 6000 ||
		(s.Objective-s.Optimum)/s.Optimum > 2 {
		t.Fatalf("summary: %+v", s)
	}
	tr, _ := os.ReadFile(filepath.Join(out, "trace.csv"))
	lines := strings.Split(strings.TrimSpace(string(tr)), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, strings.TrimSpace(jsonInt(s.Iter))+",") {
		t.Fatalf("the trace's last row %q is not the stopping measurement %d", last, s.Iter)
	}
	code, stdout, _ = runCLI(append(base[:len(base)-4], "--iters", "50", "--out", out, "--stop-at", "0.01", "--json")...)
	if code != 0 || !strings.Contains(stdout, `"stop": "not reached"`) || !strings.Contains(stdout, `"reached": false`) {
		t.Fatalf("not reached: %d %s", code, stdout)
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }

// TestSweepStopAt: stop_at is a sweep key; each swept run records whether
// it reached its target and where it stopped (the row's iter and summary),
// and a run without it keeps its run id and runs to its iterations.
func TestSweepStopAt(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte("name: stop\nbase:\n  data: synthetic-auc\n  n: 64\n  dim: 8\n  iters: 6000\n  eval_nodes: 4\noptimum: false\naxes:\n  stop_at: [0, 2]\n"), 0o644)
	db := filepath.Join(dir, "r.db")
	if code, out, errs := runCLI("sweep", "run", file, "--results", db); code != 0 {
		t.Fatalf("sweep run: %d %s %s", code, out, errs)
	}
	h, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rows, err := h.Query("SELECT iter, summary FROM runs")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]int64{}
	for rows.Next() {
		var iter int64
		var sum string
		rows.Scan(&iter, &sum)
		var s struct{ Stop string }
		json.Unmarshal([]byte(sum), &s)
		seen[s.Stop] = iter
	}
	if len(seen) != 2 || seen[""] != 6000 || seen["reached"] <= 0 || seen["reached"] >= 6000 {
		t.Fatalf("runs: %v", seen)
	}
}
