package ranks

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/output"
)

// netCases are the network models of the identity tests over ranks, by
// name (distCase.net): loss, one-way loss, churn with sessions of a few
// hundred rounds (several switches a node in a block) and both.
var netCases = map[string]network.Model{
	"loss":       {Loss: 0.3},
	"oneway":     {Loss: 0.4, LossOneWay: true},
	"churn":      {Churn: network.Churn{Dist: network.DistGeometric, Up: 300, Down: 100}},
	"loss+churn": {Loss: 0.3, LossOneWay: true, Churn: network.Churn{Dist: network.DistExponential, Up: 400, Down: 60}},
}

// singleProcessNet is singleProcess under the network model m: one
// process's run of cfg (pairgossip.Prepare) with its engine built again
// with m (pairgossip.Config does not carry a model on this branch).
func singleProcessNet(t *testing.T, cfg pairgossip.Config, m network.Model) (trace []byte, sum map[string]any, state []byte) {
	t.Helper()
	if m.IsPerfect() {
		return singleProcess(t, cfg)
	}
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run.Sim.Close()
	ecfg := run.Config.EngineConfig()
	ecfg.Network = m
	if run.Sim, err = engine.New(run.Problem, run.Graph, ecfg); err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	run.Network = m // the summary's network object, as a run given m by its flags
	if run.Sim.Schedule() != engine.ScheduleReduced {
		t.Fatalf("one process ran %s, want reduced", run.Sim.Schedule())
	}
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ck bytes.Buffer
	if err := run.Sim.WriteCheckpoint(&ck, nil, nil); err != nil {
		t.Fatal(err)
	}
	b := ck.Bytes()
	hl := binary.LittleEndian.Uint32(b[8:])
	state = b[12+int(hl) : len(b)-32]
	c := run.Sim.NetCounts()
	if c.Attempted == 0 || c.Delivered == c.Attempted && m.Loss > 0 {
		t.Fatalf("%s: counters %+v", m, c)
	}
	return output.TraceCSV(res.Trace), stripTimes(t, output.JSON(output.Summarize(run, res, nil))), state
}

// TestOneRankNetwork: under loss and churn the run over one rank gives one
// process's trace, summary, state (the network's section included) and
// network counters, bit for bit, the parallel passes with two workers.
func TestOneRankNetwork(t *testing.T) {
	for _, name := range []string{"loss", "oneway", "churn", "loss+churn"} {
		m := netCases[name]
		for _, n := range []int{3000, 20000} {
			cfg := testConfig(n, 3000)
			wantTrace, wantSum, wantState := singleProcessNet(t, cfg, m)
			r, err := PrepareModel(mpi.Self(), cfg, m)
			if err != nil {
				t.Fatal(err)
			}
			trace, err := r.Execute(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := output.TraceCSV(trace); !bytes.Equal(got, wantTrace) {
				t.Fatalf("%s n = %d: trace differs\n got %s\nwant %s", name, n, got, wantTrace)
			}
			gj, _ := json.Marshal(stripTimes(t, output.JSON(r.Summary(trace, 0, 0, nil))))
			wj, _ := json.Marshal(wantSum)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s n = %d: summary differs\n got %s\nwant %s", name, n, gj, wj)
			}
			var st bytes.Buffer
			if err := r.WriteState(&st); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(st.Bytes(), wantState) {
				t.Fatalf("%s n = %d: final state differs (%d vs %d bytes)", name, n, st.Len(), len(wantState))
			}
			last := trace[len(trace)-1]
			if last.Attempted == 0 || (m.Churn.Dist != "") != (last.Online < n) {
				t.Fatalf("%s n = %d: last record %+v", name, n, last)
			}
		}
	}
}

// TestRanksNetworkRefused: the models that need the whole graph are
// refused over ranks, naming the flag.
func TestRanksNetworkRefused(t *testing.T) {
	cfg := testConfig(3000, 100)
	for flag, m := range map[string]network.Model{
		"--activation": {Activation: network.Activation{Kind: network.ActClocks}},
		"--delay":      {Delay: network.Delay{Dist: network.DelayConstant, C: 1}},
	} {
		if _, err := PrepareModel(mpi.Self(), cfg, m); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
}

// TestOneRankNetworkResume: under loss and churn, a run stopped at an
// iteration with a checkpoint and resumed in a new Run ends in one
// process's uninterrupted trace and state (counters, c_k and the c of each
// node's last step included); the checkpoint is refused by a run of
// another model or of none.
func TestOneRankNetworkResume(t *testing.T) {
	m := netCases["loss+churn"]
	cfg := testConfig(20000, 3000)
	wantTrace, _, wantState := singleProcessNet(t, cfg, m)
	r, ck, unlock := checkpointed(t, cfg, m)
	r.StopAt = 1200
	if _, err := r.Execute(context.Background(), nil); err != ErrStopped {
		t.Fatalf("Execute: %v, want ErrStopped", err)
	}
	unlock()
	resume := func(m network.Model) (*Run, error) {
		r, err := PrepareModel(mpi.Self(), cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resume(ck)
		return r, err
	}
	for _, other := range []network.Model{{}, netCases["loss"]} {
		if _, err := resume(other); err == nil {
			t.Fatalf("resumed under %s", other)
		}
	}
	r2, err := resume(m)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Iter() < 1200 || r2.Iter() >= 3000 {
		t.Fatalf("resumed at iteration %d", r2.Iter())
	}
	finishResumed(t, r2, wantTrace, wantState)
}

// netIdentityCases are the runs of TestRanksNetworkIdentical: each model
// on the sampled measurement, and loss with churn on the exact methods
// (the automatic plan at n = 3000) and at n = 70001.
var netIdentityCases = []struct {
	c   distCase
	net string
}{
	{distCase{5000, "sampled", "auc", ""}, "loss"},
	{distCase{5000, "sampled", "auc", ""}, "oneway"},
	{distCase{5000, "sampled", "auc", ""}, "churn"},
	{distCase{3000, "auto", "auc", ""}, "loss+churn"},
	{distCase{70001, "sampled", "auc", ""}, "loss+churn"},
}

// TestRanksNetworkIdentical: under loss and churn the same run as 1, 2, 3
// and 4 MPI ranks gives the trace, the summary and the final state (the
// network's section included) of one process, bit for bit. It needs the
// build tag mpi and mpirun.
func TestRanksNetworkIdentical(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	for _, nc := range netIdentityCases {
		tc, m := nc.c, netCases[nc.net]
		n := tc.n
		cfg := workerConfig(tc)
		wantTrace, wantSum, wantState := singleProcessNet(t, cfg, m)
		for np := 1; np <= 4; np++ {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
			if cmd == nil {
				cancel()
				t.Skip(why)
			}
			cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+dir, "PAIRGOSSIP_DIST_CASE="+tc.String(), "PAIRGOSSIP_DIST_NET="+nc.net)
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s %s, %d ranks: %v\n%s", tc, nc.net, np, err, out)
			}
			if c := strings.Count(string(out), "--- PASS: TestRankWorker"); c != np {
				t.Fatalf("%s %s, %d ranks: %d workers passed\n%s", tc, nc.net, np, c, out)
			}
			trace, _ := os.ReadFile(filepath.Join(dir, "trace.csv"))
			if !bytes.Equal(trace, wantTrace) {
				t.Fatalf("%s %s, %d ranks: trace differs\n got %s\nwant %s", tc, nc.net, np, trace, wantTrace)
			}
			sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			gj, _ := json.Marshal(stripTimes(t, sb))
			wj, _ := json.Marshal(wantSum)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%s %s, %d ranks: summary differs\n got %s\nwant %s", tc, nc.net, np, gj, wj)
			}
			if st := assembleNetState(t, dir, n, 16, np, m.Churn.Dist != ""); !bytes.Equal(st, wantState) {
				t.Fatalf("%s %s, %d ranks: final state differs", tc, nc.net, np)
			}
			t.Logf("%s %s, %d ranks: trace, summary and state identical to one process", tc, nc.net, np)
		}
	}
}

// assembleNetState is assembleState for a run under a network model: the
// five state sections, the counters (rank 0's: every rank has them), and
// under churn c_k and the c of each node's last step, laid out as one
// process's sections.
func assembleNetState(t *testing.T, dir string, n, P, np int, churn bool) []byte {
	var sec [8]bytes.Buffer
	for r := 0; r < np; r++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("state.%d", r)))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := partition(n, np, r)
		nl := hi - lo
		sizes := []int{8 * nl * P, 8 * nl * P, 8 * nl * P, 4 * nl, 8 * nl, 24}
		if churn {
			sizes = append(sizes, 8*nl, 8*nl)
		}
		for s, z := range sizes {
			if len(b) < z {
				t.Fatalf("rank %d: state file too short", r)
			}
			if s != 5 || r == 0 {
				sec[s].Write(b[:z])
			}
			b = b[z:]
		}
		if len(b) != 0 {
			t.Fatalf("rank %d: %d bytes past the state", r, len(b))
		}
	}
	var all bytes.Buffer
	for s := range sec {
		all.Write(sec[s].Bytes())
	}
	return all.Bytes()
}

// TestRanksNetworkResume: under loss and churn, as 1 to 4 MPI ranks, a run
// stopped between two measurements with a checkpoint and resumed as as
// many ranks gives one process's uninterrupted trace, summary and state.
func TestRanksNetworkResume(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	const net = "loss+churn"
	tc := distCase{20000, "sampled", "auc", ""}
	m := netCases[net]
	wantTrace, wantSum, wantState := singleProcessNet(t, workerConfig(tc), m)
	run := func(np int, dir, mode string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankWorker$", "-test.v")
		if cmd == nil {
			t.Skip(why)
		}
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_DIST_WORKER="+dir, "PAIRGOSSIP_DIST_CASE="+tc.String(),
			"PAIRGOSSIP_DIST_MODE="+mode, "PAIRGOSSIP_DIST_NET="+net)
		return cmd.CombinedOutput()
	}
	for np := 1; np <= 4; np++ {
		dir := t.TempDir()
		if out, err := run(np, dir, "stop:1500"); err != nil {
			t.Fatalf("%d ranks, stop: %v\n%s", np, err, out)
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
		if st := assembleNetState(t, dir, tc.n, 16, np, true); !bytes.Equal(st, wantState) {
			t.Fatalf("%d ranks, resumed: final state differs", np)
		}
		t.Logf("%d ranks: stopped, resumed: trace, summary and state identical to one process", np)
	}
}
