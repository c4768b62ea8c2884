package output

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/internal/sysprobe"
	"github.com/pairgossip/pairgossip/npy"
	"github.com/pairgossip/pairgossip/problem"
)

// TestSaveModelNPY: --save-model's files are .npy version 1.0 with the
// header NumPy's format defines (checked byte for byte), the data row by
// row in little-endian float64, and, where python3 has NumPy, numpy.load
// (mmap_mode="r") reads them with shapes (n, P) and (P,).
func TestSaveModelNPY(t *testing.T) {
	n, d := 60, 3
	x, lab := memData(n, d)
	cfg := pairgossip.DefaultConfig()
	cfg.Problem, cfg.Iters, cfg.SkipOptimum, cfg.Reg, cfg.Lambda = "similarity", 50, true, "l2", 0.1
	run, err := pairgossip.PrepareInput(cfg, pairgossip.Input{X: x, N: n, D: d, Labels: lab, Edges: [][2]int32{{0, 1}, {1, 2}, {2, 0}}})
	if err == nil {
		t.Fatal("a graph that misses nodes was accepted")
	}
	cfg.Graph = "complete"
	run, err = pairgossip.PrepareInput(cfg, pairgossip.Input{X: x, N: n, D: d, Labels: lab})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if _, err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mf, err := SaveModel(run, dir)
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
	defer func() { freeDisk = sysprobe.DiskFree }()
	if _, err := SaveModel(run, t.TempDir()); err == nil || !strings.Contains(err.Error(), "does not fit") {
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

// TestModelEqualsSavedNPY: the θ̄_k a program gets from Go (Run.Model,
// Result.Model) are bit for bit the rows of the saved theta_bar.npy, and
// their mean is theta_bar_mean.npy, both read back through package npy.
func TestModelEqualsSavedNPY(t *testing.T) {
	for _, algo := range []string{"sync", "async", "centralized"} {
		cfg := pairgossip.DefaultConfig()
		cfg.Algorithm, cfg.Iters, cfg.SkipOptimum, cfg.Workers = algo, 300, true, 2
		run, err := pairgossip.Prepare(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := run.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Model()
		mf, err := SaveModel(run, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := npy.ReadFile(mf.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		mean, err := npy.ReadFile(mf.Mean)
		if err != nil {
			t.Fatal(err)
		}
		wantRows := run.Data.N
		if algo == "centralized" {
			wantRows = 1
		}
		if m.Rows != wantRows || m.P != run.Problem.P || len(nodes.Shape) != 2 || nodes.Shape[0] != m.Rows || nodes.Shape[1] != m.P {
			t.Fatalf("%s: model %d×%d, file shape %v, want %d rows", algo, m.Rows, m.P, nodes.Shape, wantRows)
		}
		moved := false
		for i, v := range m.Data {
			if math.Float64bits(v) != math.Float64bits(nodes.Data[i]) {
				t.Fatalf("%s: θ̄ element %d: %v from Go, %v in the file", algo, i, v, nodes.Data[i])
			}
			moved = moved || v != 0
		}
		if !moved {
			t.Fatalf("%s: the model is all zeros", algo)
		}
		if len(mean.Shape) != 1 || mean.Shape[0] != m.P {
			t.Fatalf("%s: mean file shape %v", algo, mean.Shape)
		}
		for a, v := range m.Mean {
			if math.Float64bits(v) != math.Float64bits(mean.Data[a]) {
				t.Fatalf("%s: mean[%d] %v from Go, %v in the file", algo, a, v, mean.Data[a])
			}
			var s float64
			for k := 0; k < m.Rows; k++ {
				s += m.Row(k)[a]
			}
			if s/float64(m.Rows) != v {
				t.Fatalf("%s: mean[%d] = %v is not the rows' mean %v", algo, a, v, s/float64(m.Rows))
			}
		}
		run.Close()
	}
}

// nanObjective is a user loss that returns NaN for every pair (a bug a user
// makes: log of a negative number), with a well-defined gradient.
func nanObjective() *problem.Pairwise {
	return &problem.Pairwise{Name: "nan-loss", P: 3, Smooth: true,
		Contrib: func(li, lj int32) bool { return li > lj },
		Func:    func(theta, xi, xj []float64, i, j int) float64 { return math.Log(-1) },
		GradFunc: func(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
			for a := range g {
				g[a] += w * (xi[a] - xj[a])
			}
			return true
		}}
}

// TestInfLossDiverges: a user loss that returns +Inf stops the run at the
// measurement as a divergence that says the loss returned it (a built-in
// loss cannot: its infinite objective is θ̄ overflowing), status diverged.
func TestInfLossDiverges(t *testing.T) {
	x, lab := memData(60, 3)
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 2000, 5, true
	obj := nanObjective()
	obj.Func = func(theta, xi, xj []float64, i, j int) float64 { return math.Inf(1) }
	run, err := pairgossip.PrepareInput(cfg, pairgossip.Input{X: x, N: 60, D: 3, Labels: lab, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	var de *engine.DivergenceError
	if !errors.As(err, &de) || !de.Measured || de.Iter != 1 || !strings.Contains(err.Error(), "the loss returned ±Inf") {
		t.Fatalf("err = %v; want a divergence found by the first measurement naming the loss", err)
	}
	if s := Summarize(run, res, err); s.Status != "diverged" {
		t.Errorf("summary status %q", s.Status)
	}
}

// TestNaNLossStops: case 7 of "Nothing silent, nothing lost". A user loss
// returning NaN stops the run at its first measurement with an error that
// says so (never "complete" with a NaN objective), and a NaN optimum is an
// error, not a value reported as converged.
func TestNaNLossStops(t *testing.T) {
	x, lab := memData(60, 3)
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 2000, 5, true
	run, err := pairgossip.PrepareInput(cfg, pairgossip.Input{X: x, N: 60, D: 3, Labels: lab, Objective: nanObjective()})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "NaN") || !strings.Contains(err.Error(), "iteration 1") {
		t.Fatalf("err = %v; want the NaN objective at the first measurement", err)
	}
	if len(res.Trace) != 1 || run.Sim.Iter() >= cfg.Iters {
		t.Errorf("the run went on after the NaN measurement: %d records, iteration %d", len(res.Trace), run.Sim.Iter())
	}
	if s := Summarize(run, res, err); s.Status == "complete" {
		t.Error("summary says complete")
	}

	// The optimum alone (the measurement of an objective that is finite
	// where the run measures it and NaN elsewhere is not the point here).
	cfg.SkipOptimum = false
	cfg.Iters, cfg.LogPoints = 1, 1
	obj := nanObjective()
	var optimum atomic.Bool // set once the run's only measurement is taken
	obj.Func = func(theta, xi, xj []float64, i, j int) float64 {
		if !optimum.Load() {
			return 0.5
		}
		return math.NaN()
	}
	run2, err := pairgossip.PrepareInput(cfg, pairgossip.Input{X: x, N: 60, D: 3, Labels: lab, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	defer run2.Close()
	var rec int
	res, err = run2.Execute(context.Background(), func(pairgossip.Record) { rec++; optimum.Store(true) })
	if err == nil || !strings.Contains(err.Error(), "optimum") || res.Optimum != nil {
		t.Fatalf("err = %v, optimum %v; want an error for the NaN optimum", err, res.Optimum)
	}
}

// TestModelSpaceCheckedFirst: case 11. CheckModelSpace refuses a model the
// disk cannot take, for a directory yet to be created too (its nearest
// existing ancestor's file system), and SaveModel writes nothing then.
func TestModelSpaceCheckedFirst(t *testing.T) {
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 10, 1, true
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	dir := filepath.Join(t.TempDir(), "not", "yet")
	defer func(f func(string) (uint64, bool)) { freeDisk = f }(freeDisk)
	freeDisk = func(string) (uint64, bool) { return 1 << 20, true }
	if err := CheckModelSpace(run, dir); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("CheckModelSpace = %v; want does not fit", err)
	}
	if _, err := SaveModel(run, dir); err == nil {
		t.Fatal("SaveModel wrote a model the disk cannot take")
	}
	if _, err := os.Stat(filepath.Join(dir, ModelNodesFile)); err == nil {
		t.Error("a refused model was written")
	}
	freeDisk = func(string) (uint64, bool) { return 1 << 40, true }
	if err := CheckModelSpace(run, dir); err != nil {
		t.Fatal(err)
	}
}

// TestStopAt: a run with StopAt stops at its first measurement within the
// target (the trace's last; the one before is not), reports the optimum
// solved before it, and a run whose cap comes first says "not reached"; the
// same seed stops at the same iteration with the same bits for 1 and 2
// workers.
func TestStopAt(t *testing.T) {
	var want []engine.Record
	var sum [32]byte
	for _, w := range []int{1, 2} {
		r, res := execStop(t, stopConfig(1, 20000, w), pairgossip.ExecOptions{})
		if !res.Reached || res.Optimum == nil {
			t.Fatalf("not reached (optimum %v)", res.Optimum)
		}
		tr, opt := res.Trace, res.Optimum.Value
		if g := relGap(tr[len(tr)-1], opt); g > 1 {
			t.Fatalf("stopped at %d, %g above the optimum", res.Final.Iter, g)
		}
		if g := relGap(tr[len(tr)-2], opt); g <= 1 {
			t.Fatalf("the measurement before the stop, %d, met the target already (%g)", tr[len(tr)-2].Iter, g)
		}
		if res.Final.Iter >= 20000 || r.Sim.Iter() != res.Final.Iter {
			t.Fatalf("stopped at %d (sim %d)", res.Final.Iter, r.Sim.Iter())
		}
		s := Summarize(r, res, nil)
		if s.Stop != StopReached || s.Reached == nil || !*s.Reached || s.StopAt != 1 || s.Status != "complete" {
			t.Fatalf("summary: stop %q reached %v stop_at %v status %q", s.Stop, s.Reached, s.StopAt, s.Status)
		}
		if want == nil {
			want, sum = tr, r.Sim.StateChecksum()
		} else if !slices.Equal(tr, want) || r.Sim.StateChecksum() != sum {
			t.Fatalf("%d workers: stopped at %d, want %d, or other bits", w, res.Final.Iter, want[len(want)-1].Iter)
		}
	}
	r, res := execStop(t, stopConfig(0.01, 300, 1), pairgossip.ExecOptions{})
	if s := Summarize(r, res, nil); res.Reached || s.Stop != StopNotReached || *s.Reached || s.Iter != 300 {
		t.Fatalf("a cap before the target: stop %q, iteration %d", s.Stop, s.Iter)
	}
}

func stopConfig(stopAt float64, iters int64, workers int) pairgossip.Config {
	c := pairgossip.DefaultConfig()
	c.Data, c.N, c.Dim, c.Iters, c.Workers, c.StopAt = "synthetic-auc", 512, 8, iters, workers, stopAt
	c.NoOptimumCache = true
	return c
}

func execStop(t *testing.T, c pairgossip.Config, opt pairgossip.ExecOptions) (*pairgossip.Run, *pairgossip.Result) {
	t.Helper()
	r, err := pairgossip.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	res, err := r.ExecuteWith(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

func relGap(rec engine.Record, opt float64) float64 { return (rec.ObjMean - opt) / opt }

// TestTraceSuboptimalityColumns: with the optimum known, the last two
// columns of trace.csv are objective_mean − R_n(θ*) and that over
// |R_n(θ*)|; unknown, they are empty; the earlier columns keep their bytes.
func TestTraceSuboptimalityColumns(t *testing.T) {
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.NoOptimumCache = 400, 8, true
	_, res := executed(t, cfg)
	opt := res.Optimum.Value
	with, without := TraceCSVOptimum(res.Trace, opt), TraceCSV(res.Trace)
	rows, err := csv.NewReader(strings.NewReader(string(with))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if n := len(head); head[n-2] != "suboptimality" || head[n-1] != "suboptimality_rel" {
		t.Fatalf("the suboptimality columns must end the header: %v", head)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	wl := strings.Split(strings.TrimSpace(string(without)), "\n")
	for i, r := range rows[1:] {
		obj, _ := strconv.ParseFloat(r[col["objective_mean"]], 64)
		sub, err1 := strconv.ParseFloat(r[col["suboptimality"]], 64)
		rel, err2 := strconv.ParseFloat(r[col["suboptimality_rel"]], 64)
		if err1 != nil || err2 != nil || sub != obj-opt || rel != (obj-opt)/math.Abs(opt) || !(sub >= 0) {
			t.Fatalf("row %d: suboptimality %q, %q for objective %v, optimum %v", i, r[col["suboptimality"]], r[col["suboptimality_rel"]], obj, opt)
		}
		// Without the optimum: the same row up to the empty last fields.
		if w := wl[i+1]; w != strings.Join(r[:len(r)-2], ",")+",," {
			t.Fatalf("row %d without the optimum %q", i, w)
		}
	}
	if a, r := Suboptimality(1, 0); a != 1 || !math.IsNaN(r) {
		t.Fatalf("a zero optimum: relative %v, want no value", r)
	}
}

// TestTraceNodes: Result.Nodes (nodes.csv) holds every evaluated node at
// every measurement, with its degree; the statistics of a measurement's
// rows are the trace's record (the same values, summed in the same order).
func TestTraceNodes(t *testing.T) {
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum, cfg.EvalNodes = 500, 6, true, 20
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.ExecuteWith(context.Background(), pairgossip.ExecOptions{TraceNodes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nodes) != len(res.Trace)*20 {
		t.Fatalf("%d node rows for %d measurements of 20 nodes", len(res.Nodes), len(res.Trace))
	}
	for m, rec := range res.Trace {
		rows := res.Nodes[m*20 : (m+1)*20]
		obj, auc := make([]float64, 20), make([]float64, 20)
		for c, nr := range rows {
			if nr.Iter != rec.Iter || nr.Node != run.Sim.EvalNodes()[c] || nr.Degree != run.Graph.Degree(nr.Node) || nr.Degree == 0 {
				t.Fatalf("measurement %d, row %d: %+v", m, c, nr)
			}
			obj[c], auc[c] = nr.Objective, nr.AUC
		}
		var st pairgossip.Record
		st.SetNodeStats(obj, auc)
		if st.ObjMean != rec.ObjMean || st.ObjStd != rec.ObjStd || st.ObjMin != rec.ObjMin || st.AUCMean != rec.AUCMean {
			t.Fatalf("measurement %d: the nodes' statistics %+v differ from the record %+v", m, st, rec)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(string(NodesCSV(res.Nodes)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "iter,node,degree,objective,auc" || len(rows) != len(res.Nodes)+1 {
		t.Fatalf("nodes.csv: header %v, %d rows", rows[0], len(rows))
	}
	last := res.Nodes[len(res.Nodes)-1]
	if got := rows[len(rows)-1]; got[0] != strconv.FormatInt(last.Iter, 10) || got[3] != strconv.FormatFloat(last.Objective, 'g', -1, 64) {
		t.Fatalf("last row %v for %+v", got, last)
	}
}

// TestSummaryOptimumCached: summary.json says that a second run of the same
// problem (another seed, graph and algorithm) took its optimum from the
// cache of optima, with the method of the solve it reuses.
func TestSummaryOptimumCached(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	run := func(cfg pairgossip.Config) (*pairgossip.Run, *pairgossip.Result) {
		cfg.Iters, cfg.LogPoints = 50, 3
		r, res := execStop(t, cfg, pairgossip.ExecOptions{})
		return r, res
	}
	cfg := pairgossip.DefaultConfig()
	cfg.Reg, cfg.Lambda = "l2", 0.01
	_, r1 := run(cfg)
	c2 := cfg
	c2.Seed, c2.Graph, c2.Algorithm = 7, "cycle", "async"
	run2, r2 := run(c2)
	if r1.OptimumCached || !r2.OptimumCached {
		t.Fatalf("cached: first %v, second %v", r1.OptimumCached, r2.OptimumCached)
	}
	if s := Summarize(run2, r2, nil); !s.OptimumCached || s.OptimumMethod != r1.Optimum.Method {
		t.Fatalf("summary: optimum_cached %v, method %q", s.OptimumCached, s.OptimumMethod)
	}
}

// TestSummaryOptimumStdErr: the standard error of an incomplete-U optimum
// is in summary.json as optimum_stderr.
func TestSummaryOptimumStdErr(t *testing.T) {
	var s Summary
	s.OptimumStdErr = 1e-3
	if b, _ := json.Marshal(s); !strings.Contains(string(b), `"optimum_stderr":`) {
		t.Errorf("summary without optimum_stderr: %s", b)
	}
}

// TestInFlightAtLastMeasurement: summary.json's messages_in_flight sits
// beside the counters of the last measurement, so it is given only when the
// run's state is at that measurement: a run stopped after it (here, its
// last record dropped) has none, rather than a count of another iteration.
func TestInFlightAtLastMeasurement(t *testing.T) {
	cfg := pairgossip.DefaultConfig()
	cfg.Algorithm, cfg.Iters, cfg.SkipOptimum, cfg.Workers, cfg.Delay = "async", 400, true, 1, "constant:399"
	run, res := executed(t, cfg)
	s := Summarize(run, res, nil)
	if s.Network == nil || s.Network.MessagesInFlight == nil || *s.Network.MessagesInFlight != 2*399 {
		t.Fatalf("complete run: network %+v, want 798 messages in flight", s.Network)
	}
	res.Trace = res.Trace[:len(res.Trace)-1]
	s = Summarize(run, res, context.Canceled)
	if s.Network == nil || s.Network.MessagesInFlight != nil || s.Network.Delivered != res.Trace[len(res.Trace)-1].Delivered {
		t.Fatalf("state past the last record: network %+v, want no messages_in_flight and that record's counters", s.Network)
	}
}

// executed prepares and runs cfg; the run is closed when the test ends.
func executed(t *testing.T, cfg pairgossip.Config) (*pairgossip.Run, *pairgossip.Result) {
	t.Helper()
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run.Close)
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return run, res
}
