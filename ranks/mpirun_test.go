package ranks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/mpi"
)

// The identity test over ranks: the same run as 1, 2, 3 and 4 MPI ranks
// (mpirun --oversubscribe on this machine) gives the trace, the summary
// (timings apart) and the final state of one process, bit for bit. It
// needs the build tag mpi and mpirun; without them it says so and skips.

// distCase is one run of the identity test: the size, the measurement
// mode and the loss.
type distCase struct {
	n       int
	measure string
	problem string
	file    string // "": generated; "npy", "csv": read from files (writeAUCData)
}

func (c distCase) String() string {
	s := fmt.Sprintf("%d:%s:%s", c.n, c.measure, c.problem)
	if c.file != "" {
		s += ":" + c.file
	}
	return s
}

func parseCase(s string) distCase {
	f := strings.Split(s, ":")
	n, _ := strconv.Atoi(f[0])
	c := distCase{n, f[1], f[2], ""}
	if len(f) > 3 {
		c.file = f[3]
	}
	return c
}

// identityCases are the runs of the identity test: the sampled measurement
// at two sizes, one with engine's 64 fixed reduction segments (n ≥ 2¹⁶),
// rank boundaries inside segments; and the exact methods the automatic plan
// takes at smaller sizes: pairwise objective, AUC and bias term (n =
// 3000), sorted objective and AUC (hinge, n = 20000), sampled objective
// with the sorted AUC (logistic, n = 20000), the streamed bias term in
// both; and n = 140000, above the size (131072) from which the Watts–
// Strogatz graph is drawn by each rank for its own nodes (graph.Partial).
var identityCases = []distCase{
	{5000, "sampled", "auc", ""},
	{70001, "sampled", "auc", ""},
	{3000, "auto", "auc-hinge", ""},
	{20000, "auto", "auc-hinge", ""},
	{20000, "auto", "auc", ""},
	{140000, "sampled", "auc", ""},
	{5000, "sampled", "auc", "npy"},
	{3000, "auto", "auc-hinge", "npy"},
	{5000, "sampled", "auc", "csv"},
	{3000, "auto", "auc-hinge", "csv"},
	{5000, "sampled", "auc", "csvh"},
	{3000, "auto", "auc", "csvh"},
	{5000, "sampled", "auc", "csvm"},
}

// workerConfig is the run of the identity test for case c; a case on
// files reads the one PAIRGOSSIP_DIST_DATA names (X.npy or data.csv
// beside it).
func workerConfig(c distCase) pairgossip.Config {
	cfg := testConfig(c.n, 4000)
	cfg.Measure, cfg.Problem = c.measure, c.problem
	switch c.file {
	case "npy":
		cfg.Data, cfg.N, cfg.Dim = os.Getenv("PAIRGOSSIP_DIST_DATA"), 0, 0
	case "csv":
		cfg.Data, cfg.N, cfg.Dim = filepath.Join(filepath.Dir(os.Getenv("PAIRGOSSIP_DIST_DATA")), "data.csv"), 0, 0
	case "csvh":
		cfg.Data, cfg.N, cfg.Dim = filepath.Join(filepath.Dir(os.Getenv("PAIRGOSSIP_DIST_DATA")), "data_h.csv"), 0, 0
	case "csvm":
		cfg.Data, cfg.N, cfg.Dim = filepath.Join(filepath.Dir(os.Getenv("PAIRGOSSIP_DIST_DATA")), "data_m.csv"), 0, 0
	case "file": // TestRanksCSVError
		cfg.Data, cfg.N, cfg.Dim = os.Getenv("PAIRGOSSIP_DIST_DATA"), 0, 0
	}
	return cfg
}

func TestRanksIdentical(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	for _, tc := range identityCases {
		n := tc.n
		if tc.file != "" {
			t.Setenv("PAIRGOSSIP_DIST_DATA", writeAUCData(t, t.TempDir(), n))
		}
		cfg := workerConfig(tc)
		wantTrace, wantSum, wantState := singleProcess(t, cfg)
		for np := 1; np <= 4; np++ {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
			if cmd == nil {
				cancel()
				t.Skip(why)
			}
			cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+dir, "PAIRGOSSIP_DIST_CASE="+tc.String())
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s, %d ranks: %v\n%s", tc, np, err, out)
			}
			if c := strings.Count(string(out), "--- PASS: TestRankWorker"); c != np {
				t.Fatalf("%s, %d ranks: %d workers passed\n%s", tc, np, c, out)
			}
			trace, _ := os.ReadFile(filepath.Join(dir, "trace.csv"))
			if !bytes.Equal(trace, wantTrace) {
				t.Fatalf("%s, %d ranks: trace differs\n got %s\nwant %s", tc, np, trace, wantTrace)
			}
			sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			gj, _ := json.Marshal(stripTimes(t, sb))
			wj, _ := json.Marshal(wantSum)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s, %d ranks: summary differs\n got %s\nwant %s", tc, np, gj, wj)
			}
			if st := assembleState(t, dir, n, 16, np); !bytes.Equal(st, wantState) {
				t.Fatalf("%s, %d ranks: final state differs", tc, np)
			}
			t.Logf("%s, %d ranks: trace, summary and state identical to one process", tc, np)
		}
	}
}

// graphCases are the graphs of TestRanksGraphShares, all drawn by each
// rank for its own nodes (n >= 131072): Watts–Strogatz with the default k
// and p and with k = 2, p = 0 (a cycle of even length: bipartite, the
// warning computed over the ranks), and Erdős–Rényi at p = ln(n)/n
// (disconnected draws are redrawn: Tries > 1, decided over the ranks).
var graphCases = []struct {
	kind string
	k    int
	p    float64
}{{"watts-strogatz", 5, 0.3}, {"watts-strogatz", 2, 0}, {"erdos-renyi", 0, 11.85 / 140000}}

// TestRanksGraphShares: as 1 to 4 ranks, each rank's edges are exactly the
// single-process graph's edges whose lower end it owns, in order, and the
// graph's description (edges, degrees, tries) and warnings are one
// process's.
func TestRanksGraphShares(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	for np := 1; np <= 4; np++ {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankGraphWorker$", "-test.v")
		if cmd == nil {
			cancel()
			t.Skip(why)
		}
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_GRAPHS=1")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", np, err, out)
		}
		if c := strings.Count(string(out), "--- PASS: TestRankGraphWorker"); c != np {
			t.Fatalf("%d ranks: %d workers passed\n%s", np, c, out)
		}
		t.Logf("%d ranks: every rank's edges, the graph's description and warnings are one process's", np)
	}
}

// TestRankGraphWorker is one rank of TestRanksGraphShares.
func TestRankGraphWorker(t *testing.T) {
	if os.Getenv("PAIRGOSSIP_DIST_GRAPHS") == "" {
		t.Skip("a rank of TestRanksGraphShares")
	}
	c, err := mpi.Init()
	if err != nil {
		t.Fatal(err)
	}
	for _, gc := range graphCases {
		cfg := testConfig(140000, 10)
		cfg.Graph, cfg.GraphK, cfg.GraphP = gc.kind, gc.k, gc.p
		r, err := Prepare(c, cfg)
		if err == nil {
			err = checkLocalEdges(c, r)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "rank %d, %s: %v\n", c.Rank(), gc.kind, err)
			mpi.Abort(3)
		}
		if c.Rank() == 0 {
			t.Logf("%s: %d tries, warnings %q", r.Graph.Name, r.Graph.Tries, r.Warnings)
		}
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// TestRanksResume stops a run over 1 to 4 ranks at an iteration with a
// checkpoint (a manifest and one file per rank), resumes it as as many
// ranks, and compares the trace, the summary and the final state with the
// uninterrupted single process; resuming with another number of ranks is
// refused with a message naming the manifest and both numbers.
func TestRanksResume(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	tc := distCase{20000, "auto", "auc-hinge", ""}
	wantTrace, wantSum, wantState := singleProcess(t, workerConfig(tc))
	run := func(np int, dir, mode string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
		if cmd == nil {
			t.Skip(why)
		}
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+dir, "PAIRGOSSIP_DIST_CASE="+tc.String(), "PAIRGOSSIP_DIST_MODE="+mode)
		return cmd.CombinedOutput()
	}
	for np := 1; np <= 4; np++ {
		dir := t.TempDir()
		// 1500 is no measurement point: the checkpoint falls between two.
		if out, err := run(np, dir, "stop:1500"); err != nil {
			t.Fatalf("%d ranks, stop: %v\n%s", np, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "trace.csv")); err == nil {
			t.Fatalf("%d ranks: the stopped run ran to the end", np)
		}
		m, err := os.ReadFile(filepath.Join(dir, "ckpt"))
		if err != nil {
			t.Fatalf("%d ranks: no manifest: %v", np, err)
		}
		var man Manifest
		if err := json.Unmarshal(m, &man); err != nil || man.Ranks != np || man.Iter < 1500 || man.Iter >= 4000 {
			t.Fatalf("%d ranks: manifest %s (%v)", np, m, err)
		}
		other := np%4 + 1
		out, err := run(other, dir, "resume")
		want := fmt.Sprintf("checkpoint %s was written by %d ranks; this job has %d", filepath.Join(dir, "ckpt"), np, other)
		if err == nil || !strings.Contains(string(out), want) {
			t.Fatalf("%d ranks, resumed as %d: %v, want the message %q\n%s", np, other, err, want, out)
		}
		if out, err := run(np, dir, "resume"); err != nil {
			t.Fatalf("%d ranks, resume: %v\n%s", np, err, out)
		}
		trace, _ := os.ReadFile(filepath.Join(dir, "trace.csv"))
		if !bytes.Equal(trace, wantTrace) {
			t.Fatalf("%d ranks, resumed: trace differs\n got %s\nwant %s", np, trace, wantTrace)
		}
		sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
		gj, _ := json.Marshal(stripTimes(t, sb))
		wj, _ := json.Marshal(wantSum)
		if !bytes.Equal(gj, wj) {
			t.Fatalf("%d ranks, resumed: summary differs\n got %s\nwant %s", np, gj, wj)
		}
		if st := assembleState(t, dir, tc.n, 16, np); !bytes.Equal(st, wantState) {
			t.Fatalf("%d ranks, resumed: final state differs", np)
		}
		t.Logf("%d ranks: stopped at iteration %d, resumed: trace, summary and state identical to one process; %d ranks refused", np, man.Iter, other)
	}
}

// assembleState lays the ranks' state files out as one process's sections.
func assembleState(t *testing.T, dir string, n, P, np int) []byte {
	var sec [5]bytes.Buffer
	for r := 0; r < np; r++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("state.%d", r)))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := partition(n, np, r)
		nl := hi - lo
		sizes := []int{8 * nl * P, 8 * nl * P, 8 * nl * P, 4 * nl, 8 * nl}
		for s, z := range sizes {
			if len(b) < z {
				t.Fatalf("rank %d: state file too short", r)
			}
			sec[s].Write(b[:z])
			b = b[z:]
		}
	}
	var all bytes.Buffer
	for s := range sec {
		all.Write(sec[s].Bytes())
	}
	return all.Bytes()
}

// TestRankWorker is one rank of TestRanksIdentical.
func TestRankWorker(t *testing.T) {
	dir := os.Getenv("PAIRGOSSIP_DIST_WORKER")
	if dir == "" {
		t.Skip("a rank of TestRanksIdentical")
	}
	tc := parseCase(os.Getenv("PAIRGOSSIP_DIST_CASE"))
	c, err := mpi.Init()
	if err != nil {
		t.Fatal(err)
	}
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", c.Rank(), err)
		mpi.Abort(3)
	}
	// A network model (TestRanksNetworkIdentical): netCases by name.
	r, err := PrepareModel(c, workerConfig(tc), netCases[os.Getenv("PAIRGOSSIP_DIST_NET")])
	if os.Getenv("PAIRGOSSIP_DIST_WANT_ERROR") != "" { // TestRanksCSVError
		fmt.Printf("rank %d error: %v\n", c.Rank(), err)
		if err := c.Finalize(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		fail(err)
	}
	// A rank holds only its share of the edges: those whose lower end it
	// owns, and the ranks' shares add up to the graph.
	if err := checkLocalEdges(c, r); err != nil {
		fail(err)
	}
	// Checkpoints (TestRanksResume): stop at an iteration with a checkpoint,
	// or resume from one.
	mode := os.Getenv("PAIRGOSSIP_DIST_MODE")
	if mode != "" {
		ck := filepath.Join(dir, "ckpt")
		unlock, err := r.LockCheckpoint(ck)
		if err != nil {
			fail(err)
		}
		defer unlock()
		r.Checkpoint = ck
		if at, ok := strings.CutPrefix(mode, "stop:"); ok {
			r.StopAt, _ = strconv.ParseInt(at, 10, 64)
		} else if _, err := r.Resume(ck); err != nil {
			fail(err)
		}
	}
	trace, err := r.Execute(context.Background(), nil)
	if err == ErrStopped {
		if err := c.Finalize(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		fail(err)
	}
	var st bytes.Buffer
	if err := r.WriteState(&st); err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("state.%d", c.Rank())), st.Bytes(), 0o644); err != nil {
		fail(err)
	}
	if c.Rank() == 0 {
		os.WriteFile(filepath.Join(dir, "trace.csv"), output.TraceCSV(trace), 0o644)
		os.WriteFile(filepath.Join(dir, "summary.json"), output.JSON(r.Summary(trace, 0, 0, nil)), 0o644)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

// TestRanksCSVError: a bad value in a CSV file is reported by every rank
// with one process's message (FILE:LINE: column C: ...): on a line of
// rank 2 of 3, and, with a second bad line on rank 1, that one (the first
// in file order); and on the header-detection line, where one process's
// message carries its hint.
func TestRanksCSVError(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	const n, np = 3000, 3
	dir := filepath.Dir(writeAUCData(t, t.TempDir(), n))
	good, err := os.ReadFile(filepath.Join(dir, "data.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lo1, _ := partition(n, np, 1)
	lo2, hi2 := partition(n, np, 2)
	for _, bad := range [][]int{{(lo2 + hi2) / 2}, {lo1 + 5, hi2 - 3}, {0}, {(lo2 + hi2) / 2, n - 1}} {
		lines := strings.SplitAfter(string(good), "\n")
		for _, i := range bad {
			f := strings.Split(lines[i], ",")
			f[2] = "0.5x"
			lines[i] = strings.Join(f, ",")
		}
		path := filepath.Join(t.TempDir(), "bad.csv")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := workerConfig(distCase{n, "sampled", "auc", "file"})
		cfg.Data = path
		_, err := pairgossip.Prepare(cfg)
		if err == nil {
			t.Fatalf("bad lines %v: one process loads the file", bad)
		}
		want := err.Error()
		if !strings.Contains(want, fmt.Sprintf("%s:%d: column 3:", path, bad[0]+1)) {
			t.Fatalf("bad lines %v: one process says %q", bad, want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
		if cmd == nil {
			cancel()
			t.Skip(why)
		}
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+t.TempDir(), "PAIRGOSSIP_DIST_CASE=3000:sampled:auc:file",
			"PAIRGOSSIP_DIST_DATA="+path, "PAIRGOSSIP_DIST_WANT_ERROR=1")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("bad lines %v: %v\n%s", bad, err, out)
		}
		for r := range np {
			if !strings.Contains(string(out), fmt.Sprintf("rank %d error: %s\n", r, want)) {
				t.Fatalf("bad lines %v: rank %d does not report %q\n%s", bad, r, want, out)
			}
		}
		t.Logf("bad lines %v: every rank reports %q", bad, want)
	}
}

// checkLocalEdges checks that r holds exactly the edges of the whole graph
// whose lower end is in [Lo, Hi), in the graph's order, that the graph's
// description and warnings are one process's, and that the ranks' counts
// add up to |E|.
func checkLocalEdges(c mpi.Comm, r *Run) error {
	cfg := r.Config
	g, err := graph.Build(graph.Spec{Kind: cfg.Graph, N: r.l.n, K: cfg.GraphK, P: cfg.GraphP, Radius: cfg.GraphR,
		Rows: cfg.GraphRows, Cols: cfg.GraphCols, Seed: cfg.GraphSeed, File: cfg.GraphFile})
	if err != nil {
		return err
	}
	var want [][2]int32
	for _, e := range g.Edges {
		if int(e[0]) >= r.Lo() && int(e[0]) < r.Hi() {
			want = append(want, e)
		}
	}
	if !slices.Equal(r.l.myEdges, want) {
		return fmt.Errorf("rank %d holds %d edges, not the graph's %d edges whose lower end is in [%d, %d) (of %d)", c.Rank(), r.LocalEdges(), len(want), r.Lo(), r.Hi(), len(g.Edges))
	}
	info := output.GraphInfo{Name: g.Name, Kind: g.Kind, N: g.N, UndirectedEdges: g.UndirectedEdges(),
		MinDegree: g.MinDegree(), MaxDegree: g.MaxDegree(), Tries: g.Tries}
	if *r.Graph != info {
		return fmt.Errorf("rank %d: graph %+v, one process's %+v", c.Rank(), *r.Graph, info)
	}
	warn, err := graph.Check(g)
	if err != nil {
		return err
	}
	if !slices.Equal(r.Warnings, warn) {
		return fmt.Errorf("rank %d: warnings %q, one process's %q", c.Rank(), r.Warnings, warn)
	}
	sum := []int64{int64(r.LocalEdges())}
	if err := c.AllreduceInt64(sum, mpi.Sum); err != nil {
		return err
	}
	if int(sum[0]) != len(g.Edges) {
		return fmt.Errorf("the ranks hold %d edges, the graph has %d", sum[0], len(g.Edges))
	}
	// (Not Erdős–Rényi: rank r holds the pairs whose lower end it owns,
	// a share 1 − (r/P)² − … skewed towards rank 0.)
	if c.Size() > 1 && g.Kind != "erdos-renyi" && 2*r.LocalEdges() > len(g.Edges)*3/c.Size() {
		return fmt.Errorf("rank %d holds %d of %d edges: more than 1.5 times its share", c.Rank(), r.LocalEdges(), len(g.Edges))
	}
	return nil
}

func mpirunCmd(ctx context.Context, np int, prog string, args ...string) (*exec.Cmd, string) {
	path, err := exec.LookPath("mpirun")
	if err != nil {
		return nil, "mpirun not found (apt-get install -y openmpi-bin)"
	}
	a := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
	if os.Geteuid() == 0 {
		a = append([]string{"--allow-run-as-root"}, a...)
	}
	return exec.CommandContext(ctx, path, append(append(a, prog), args...)...), ""
}
