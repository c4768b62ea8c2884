package pairgossip

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// memData returns a generated data set: n points of dimension d, labels ±1.
func memData(n, d int) ([]float64, []int32) {
	r := rng.New(4, 4)
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := 0; i < n; i++ {
		lab[i] = -1
		if i%3 == 0 {
			lab[i] = 1
		}
		for a := 0; a < d; a++ {
			x[i*d+a] = r.Normal() + 0.5*float64(lab[i])
		}
	}
	return x, lab
}

// TestInputMatchesFiles: a run built from X, labels and an edge list in
// memory gives the same trace and final state as the same data and graph
// written to a CSV file and an edge-list file, for the built-in AUC loss
// and for multipartite ranking.
func TestInputMatchesFiles(t *testing.T) {
	n, d := 90, 4
	x, lab := memData(n, d)
	var edges [][2]int32
	for i := 0; i < n; i++ {
		edges = append(edges, [2]int32{int32(i), int32((i + 1) % n)}, [2]int32{int32(i), int32((i + 5) % n)})
	}
	dir := t.TempDir()
	var csv, el strings.Builder
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			fmt.Fprintf(&csv, "%v,", x[i*d+a]) // %v: the shortest text that reads back to the same float64
		}
		fmt.Fprintf(&csv, "%d\n", lab[i])
	}
	for _, e := range edges {
		fmt.Fprintf(&el, "%d %d\n", e[0], e[1])
	}
	dataPath, graphPath := filepath.Join(dir, "d.csv"), filepath.Join(dir, "g.txt")
	os.WriteFile(dataPath, []byte(csv.String()), 0o644)
	os.WriteFile(graphPath, []byte(el.String()), 0o644)
	for _, prob := range []string{"auc", "ranking"} {
		for _, algo := range []string{"sync", "async"} {
			cfg := DefaultConfig()
			cfg.Problem, cfg.Algorithm, cfg.Iters, cfg.SkipOptimum, cfg.LogPoints, cfg.Workers = prob, algo, 800, true, 6, 2
			fcfg := cfg
			fcfg.Data, fcfg.Graph, fcfg.GraphFile = dataPath, "file", graphPath
			labels := lab
			if prob == "ranking" { // levels 0 < 1, as the CSV loader orders -1 < 1
				labels = make([]int32, n)
				for i, l := range lab {
					labels[i] = (l + 1) / 2
				}
			}
			want := runOnce(t, fcfg, Input{})
			got := runOnce(t, cfg, Input{X: x, N: n, D: d, Labels: labels, Edges: edges})
			if got.sum != want.sum || len(got.trace) != len(want.trace) {
				t.Fatalf("%s %s: state from memory differs from files", prob, algo)
			}
			for i := range got.trace {
				if got.trace[i] != want.trace[i] && !(math.IsNaN(got.trace[i].AUCMean) && math.IsNaN(want.trace[i].AUCMean)) {
					t.Fatalf("%s %s: record %d differs:\n%+v\n%+v", prob, algo, i, got.trace[i], want.trace[i])
				}
			}
		}
	}
}

type onceResult struct {
	sum   [32]byte
	trace []Record
}

func runOnce(t *testing.T, cfg Config, in Input) onceResult {
	t.Helper()
	run, err := PrepareInput(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return onceResult{run.Sim.StateChecksum(), res.Trace}
}

// TestInputParamErrorsSayInput: a data or graph parameter set beside the
// data or graph a program gives (Input.X, Input.Edges) is refused for that
// reason, not for the placeholder Prepare validates in their place.
func TestInputParamErrorsSayInput(t *testing.T) {
	n := 30
	x, labels := make([]float64, 2*n), make([]int32, n)
	for k := range labels {
		x[2*k], x[2*k+1], labels[k] = float64(k%5), float64(k%3), int32(k%2)
	}
	var edges [][2]int32
	for k := 0; k < n; k++ {
		edges = append(edges, [2]int32{int32(k), int32((k + 1) % n)})
	}
	for _, c := range []struct {
		set  func(*Config)
		in   Input
		want string
	}{
		{func(c *Config) { c.Dim = 2 }, Input{X: x, N: n, D: 2, Labels: labels}, "Config.Dim: does not apply: the data is the program's (Input.X: 30 points of dimension 2)"},
		{func(c *Config) { c.GraphK = 7 }, Input{X: x, N: n, D: 2, Labels: labels, Edges: edges}, "Config.GraphK: does not apply: the graph is the program's (Input.Edges)"},
	} {
		cfg := DefaultConfig()
		cfg.Iters = 10
		c.set(&cfg)
		if _, err := PrepareInput(cfg, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}
