package pairgossip

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
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

// TestSaveModelNPY: --save-model's files are .npy version 1.0 with the
// header NumPy's format defines (checked byte for byte), the data row by
// row in little-endian float64, and, where python3 has NumPy, numpy.load
// (mmap_mode="r") reads them with shapes (n, P) and (P,).
func TestSaveModelNPY(t *testing.T) {
	n, d := 60, 3
	x, lab := memData(n, d)
	cfg := DefaultConfig()
	cfg.Problem, cfg.Iters, cfg.SkipOptimum, cfg.Reg, cfg.Lambda = "similarity", 50, true, "l2", 0.1
	run, err := PrepareInput(cfg, Input{X: x, N: n, D: d, Labels: lab, Edges: [][2]int32{{0, 1}, {1, 2}, {2, 0}}})
	if err == nil {
		t.Fatal("a graph that misses nodes was accepted")
	}
	cfg.Graph = "complete"
	run, err = PrepareInput(cfg, Input{X: x, N: n, D: d, Labels: lab})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if _, err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mf, err := run.SaveModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	P := d * d
	b, _ := os.ReadFile(mf.Nodes)
	// The format: magic, version 1.0, header length (LE uint16), the dict
	// with its keys in this order, spaces, a newline, 64-byte alignment.
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, P)
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	want := "\x93NUMPY\x01\x00" + string(b[8:10]) + dict + strings.Repeat(" ", hlen-len(dict)-1) + "\n"
	if string(b[:10+hlen]) != want || (10+hlen)%64 != 0 {
		t.Fatalf("header %q, want %q (64-aligned)", b[:10+hlen], want)
	}
	if len(b) != 10+hlen+n*P*8 {
		t.Fatalf("file has %d bytes, want %d", len(b), 10+hlen+n*P*8)
	}
	for k := 0; k < n; k++ {
		for a := 0; a < P; a++ {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[10+hlen+8*(k*P+a):]))
			if v != run.Sim.ThetaBar.Row(k)[a] {
				t.Fatalf("θ̄[%d][%d] = %v in the file, %v in the run", k, a, v, run.Sim.ThetaBar.Row(k)[a])
			}
		}
	}
	m, _ := os.ReadFile(mf.Mean)
	if !bytes.HasPrefix(m, []byte("\x93NUMPY\x01\x00")) || !bytes.Contains(m, []byte(fmt.Sprintf("'shape': (%d,), }", P))) || len(m)%8 != 0 {
		t.Fatalf("mean file header %q", m[:min(len(m), 80)])
	}
	// Refused when the disk is too small.
	freeDisk = func(string) (uint64, bool) { return 1 << 20, true }
	defer func() { freeDisk = diskFree }()
	if _, err := run.SaveModel(t.TempDir()); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("a model larger than the free space was written (%v)", err)
	}
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Skip("python3 with NumPy not available (apt-get install python3-numpy): the header was checked byte for byte instead")
	}
	out, err := exec.Command(py, "-c", `import sys, numpy as np
a = np.load(sys.argv[1], mmap_mode="r"); m = np.load(sys.argv[2], mmap_mode="r")
assert a.shape == (int(sys.argv[3]), int(sys.argv[4])) and m.shape == (int(sys.argv[4]),), (a.shape, m.shape)
assert np.allclose(a.mean(axis=0), m, rtol=1e-12, atol=1e-15)
print(repr(float(a[1, 2])))`, mf.Nodes, mf.Mean, fmt.Sprint(n), fmt.Sprint(P)).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy.load: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != fmt.Sprint(run.Sim.ThetaBar.Row(1)[2]) {
		t.Fatalf("NumPy reads θ̄[1][2] = %s, want %v", got, run.Sim.ThetaBar.Row(1)[2])
	}
}
