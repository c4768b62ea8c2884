package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveStaleOnlyEarlierRuns: a run into an --out that an earlier run
// wrote removes that run's files it does not replace (its nodes.csv); a
// file of such a name that no pairgossip run wrote there is left in place
// with a warning, and an input of the run is never removed, whatever its
// name.
func TestRemoveStaleOnlyEarlierRuns(t *testing.T) {
	run := func(out string, extra ...string) string {
		t.Helper()
		args := append([]string{"run", "--iters", "50", "--no-optimum", "--out", out}, extra...)
		code, _, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		return stderr
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	// An earlier run's nodes.csv goes.
	out := filepath.Join(t.TempDir(), "out")
	run(out, "--trace-nodes")
	if stderr := run(out); !strings.Contains(stderr, "removed "+filepath.Join(out, "nodes.csv")+", an earlier run's") || exists(filepath.Join(out, "nodes.csv")) {
		t.Errorf("an earlier run's nodes.csv: stderr %q, still there: %v", stderr, exists(filepath.Join(out, "nodes.csv")))
	}

	// A user's nodes.csv in a folder no run wrote into stays.
	dir := t.TempDir()
	mine := filepath.Join(dir, "nodes.csv")
	os.WriteFile(mine, []byte("id,name\n"), 0o644)
	if stderr := run(dir); !strings.Contains(stderr, mine+" was not written by this run") || !exists(mine) {
		t.Errorf("a user's nodes.csv: stderr %q, still there: %v", stderr, exists(mine))
	}

	// An input named as a model file, in a folder an earlier run wrote
	// into, stays: the graph's edge list here.
	dir = t.TempDir()
	run(dir)
	edges := filepath.Join(dir, "theta_bar.npy")
	var b strings.Builder
	for k := 0; k < 699; k++ {
		fmt.Fprintf(&b, "%d %d\n", k, (k+1)%699)
	}
	os.WriteFile(edges, []byte(b.String()), 0o644)
	if stderr := run(dir, "--graph", "file", "--graph-file", edges); !strings.Contains(stderr, edges+", an input of this run") || !exists(edges) {
		t.Errorf("an input named theta_bar.npy: stderr %q, still there: %v", stderr, exists(edges))
	}
}

// TestResultLineSaysSampled: the result line of a sampled measurement says
// it is one, with its standard error; an exact one has none.
func TestResultLineSaysSampled(t *testing.T) {
	for _, c := range []struct {
		mode string
		want bool
	}{{"sampled", true}, {"exact", false}} {
		code, stdout, stderr := runCLI("run", "--iters", "100", "--measure", c.mode, "--no-optimum", "--out", filepath.Join(t.TempDir(), "o"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.mode, code, stderr)
		}
		if got := strings.Contains(stdout, "(sampled: standard error)"); got != c.want {
			t.Errorf("--measure %s: the result line %q", c.mode, stdout)
		}
	}
}
