package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepNetworkKeys: a sweep over the loss gives one run per value with
// the value in its configuration (and so in its id), the other network keys
// are read, a boolean key takes only true or false, and a refused knob is
// named by its key.
func TestSweepNetworkKeys(t *testing.T) {
	s := mustParse(t, "base: {iters: 100, churn: \"geometric:up=50,down=5\", loss_oneway: true}\naxes:\n  loss: [0.1, 0.3, 0.5]\n")
	if len(s.Runs) != 3 {
		t.Fatalf("%d runs", len(s.Runs))
	}
	ids := map[string]bool{}
	for i, want := range []float64{0.1, 0.3, 0.5} {
		c := s.Runs[i].Config
		if c.Loss != want || !c.LossOneWay || c.Churn != "geometric:up=50,down=5" {
			t.Errorf("run %d: %+v", i, c)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		ids[s.Runs[i].ID] = true
	}
	if len(ids) != 3 {
		t.Error("the loss does not enter the run ids")
	}
	// The default loss leaves the id of the paper's run as it was.
	a := mustParse(t, "base: {iters: 100}\naxes:\n  seed: [1]\n")
	b := mustParse(t, "base: {iters: 100, loss: 0}\naxes:\n  seed: [1]\n")
	if a.Runs[0].ID != b.Runs[0].ID {
		t.Error("loss: 0 changes the run id")
	}
	if _, err := parseString(t, "base: {iters: 100, loss_oneway: 1}\n"); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("loss_oneway: 1: %v", err)
	}
	if _, err := parseString(t, "base: {iters: 100, loss: 2}\n"); err == nil || !strings.Contains(err.Error(), `key "loss"`) {
		t.Errorf("loss: 2: %v", err)
	}
}

// TestSweepNetworkFiles: the files of the network keys are resolved
// relative to the sweep file, as the data and graph files are.
func TestSweepNetworkFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "edges.txt"), []byte("1 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("base: {iters: 1, edge_stream: edges.txt, churn: \"file:c.txt\"}\naxes:\n  seed: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Resolved(s.Runs[0].Config)
	if c.EdgeStream != filepath.Join(dir, "edges.txt") || c.Churn != "file:"+filepath.Join(dir, "c.txt") {
		t.Errorf("resolved %q %q", c.EdgeStream, c.Churn)
	}
	if s.Runs[0].Config.EdgeStream != "edges.txt" {
		t.Errorf("the run keeps the path as written, got %q", s.Runs[0].Config.EdgeStream)
	}
}

// TestSweepOverLoss: a sweep over loss 0, 0.1, 0.3 runs (both algorithms),
// and the loss reaches the engine: the runs' results differ.
func TestSweepOverLoss(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "name: loss\nbase:\n  iters: 300\n  eval_nodes: 4\n  log_points: 4\n  graph: cycle\noptimum: false\naxes:\n  algorithm: [sync, async]\n  loss: [0, 0.1, 0.3]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1})
	if err != nil || rep.Ran != 6 || rep.Complete != 6 {
		t.Fatalf("%+v %v", rep, err)
	}
	rows, err := st.resultRows()
	if err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 2; a++ {
		seen := map[string]bool{}
		for l := 0; l < 3; l++ {
			seen[fmt.Sprint(rows[sw.Runs[3*a+l].ID])] = true
		}
		if len(seen) != 3 {
			t.Errorf("%s: the three losses give %d distinct results", sw.Runs[3*a].Config.Algorithm, len(seen))
		}
	}
}
