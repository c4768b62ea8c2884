package dist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/mpi"
)

// The identity test over ranks: the same run as 1, 2, 3 and 4 MPI ranks
// (mpirun --oversubscribe on this machine) gives the trace, the summary
// (timings apart) and the final state of one process, bit for bit. It
// needs the build tag mpi and mpirun; without them it says so and skips.

// workerConfig is the run of the identity test: two sizes, one with
// engine's 64 fixed reduction segments (n ≥ 2¹⁶), rank boundaries inside
// segments, the sampled measurement (the streamed bias term, which the
// automatic plan takes at n = 2·10⁵, is checked by .ci/run's mpirun job).
func workerConfig(n int) pairgossip.Config {
	return testConfig(n, 4000)
}

func TestRanksIdentical(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./dist runs this test")
	}
	for _, n := range []int{5000, 70001} {
		cfg := workerConfig(n)
		wantTrace, wantSum, wantState := singleProcess(t, cfg)
		for np := 1; np <= 4; np++ {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
			if cmd == nil {
				cancel()
				t.Skip(why)
			}
			cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+dir, "PAIRGOSSIP_DIST_N="+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("n = %d, %d ranks: %v\n%s", n, np, err, out)
			}
			if c := strings.Count(string(out), "--- PASS: TestRankWorker"); c != np {
				t.Fatalf("n = %d, %d ranks: %d workers passed\n%s", n, np, c, out)
			}
			trace, _ := os.ReadFile(filepath.Join(dir, "trace.csv"))
			if !bytes.Equal(trace, wantTrace) {
				t.Fatalf("n = %d, %d ranks: trace differs\n got %s\nwant %s", n, np, trace, wantTrace)
			}
			sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			gj, _ := json.Marshal(stripTimes(t, sb))
			wj, _ := json.Marshal(wantSum)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("n = %d, %d ranks: summary differs\n got %s\nwant %s", n, np, gj, wj)
			}
			if st := assembleState(t, dir, n, 16, np); !bytes.Equal(st, wantState) {
				t.Fatalf("n = %d, %d ranks: final state differs", n, np)
			}
			t.Logf("n = %d, %d ranks: trace, summary and state identical to one process", n, np)
		}
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
	n, _ := strconv.Atoi(os.Getenv("PAIRGOSSIP_DIST_N"))
	c, err := mpi.Init()
	if err != nil {
		t.Fatal(err)
	}
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", c.Rank(), err)
		mpi.Abort(3)
	}
	r, err := Prepare(c, workerConfig(n))
	if err != nil {
		fail(err)
	}
	trace, err := r.Execute(context.Background(), nil)
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
		os.WriteFile(filepath.Join(dir, "trace.csv"), pairgossip.TraceCSV(trace), 0o644)
		os.WriteFile(filepath.Join(dir, "summary.json"), pairgossip.JSON(r.Summary(trace, 0, 0, nil)), 0o644)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
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
