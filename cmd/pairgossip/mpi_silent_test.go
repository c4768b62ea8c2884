package main

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

	"github.com/pairgossip/pairgossip/mpi"
)

// TestMPIRefusesWhatItCannotRun: case 1 of "Nothing silent, nothing lost",
// under mpirun (go test -tags mpi ./cmd/pairgossip/). Over 2 ranks, the
// objective problems (ranking with 2 and 3 levels, its hinge form,
// similarity) are refused naming the problem, never run as the AUC
// logistic loss under their label nor refused for ±1 labels,
// --save-model is refused instead of writing nothing, --write-edges and the
// network models that need the whole graph on every rank by name (loss and
// churn run over ranks: ranks' identity tests); every refusal before --out
// is created.
func TestMPIRefusesWhatItCannotRun(t *testing.T) {
	mpirun, dir, bin := mpiCommand(t)
	for _, levels := range []int{2, 3} {
		var b strings.Builder
		for i := 0; i < 600; i++ {
			fmt.Fprintf(&b, "%g,%g,%d\n", float64(i%13)/4, float64(i%7)-3, i%levels)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("ord%d.csv", levels)), []byte(b.String()), 0o644)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--problem", "ranking", "--data", filepath.Join(dir, "ord2.csv")}, "--problem ranking does not run over MPI ranks"},
		{[]string{"--problem", "ranking", "--data", filepath.Join(dir, "ord3.csv")}, "--problem ranking does not run over MPI ranks"},
		{[]string{"--problem", "ranking-hinge", "--data", filepath.Join(dir, "ord3.csv")}, "--problem ranking-hinge does not run over MPI ranks"},
		{[]string{"--problem", "similarity", "--data", filepath.Join(dir, "ord3.csv")}, "--problem similarity does not run over MPI ranks"},
		{[]string{"--data", "synthetic-auc", "--n", "3000", "--save-model"}, "--save-model: not available over MPI ranks"},
		// Loss and churn run over ranks (TestMPINetworkRun); the models
		// that need the whole graph on every rank do not.
		{[]string{"--data", "synthetic-auc", "--n", "3000", "--loss", "0.3", "--activation", "clocks"}, "--activation clocks: not available where the graph is not held whole"},
		{[]string{"--data", "synthetic-auc", "--n", "3000", "--write-edges", filepath.Join(dir, "e.txt")}, "--write-edges: not available over MPI ranks"},
	}
	for i, c := range cases {
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		args := mpirunArgs(2)
		args = append(args, bin, "run", "--graph", "watts-strogatz", "--algo", "sync", "--iters", "200", "--no-optimum", "--out", out)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		o, err := exec.CommandContext(ctx, mpirun, append(args, c.args...)...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(o), c.want) || strings.Contains(string(o), "±1") {
			t.Errorf("%v over 2 ranks: %v\n%s\nwant a refusal with %q", c.args, err, o, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "trace.csv")); err == nil {
			t.Errorf("%v: a refused run wrote trace.csv", c.args)
		}
	}
}

// TestMPINetworkRun: `run --loss --churn` over 3 ranks writes one process's
// trace.csv byte for byte, network columns included, and summary.json's
// network counters.
func TestMPINetworkRun(t *testing.T) {
	mpirun, dir, bin := mpiCommand(t)
	run := []string{"run", "--data", "synthetic-auc", "--n", "6000", "--graph", "watts-strogatz", "--iters", "2000",
		"--no-optimum", "--seed", "3", "--loss", "0.3", "--loss-oneway", "--churn", "geometric:up=900,down=100"}
	one := filepath.Join(dir, "one")
	if o, err := exec.Command(bin, append(run, "--out", one)...).CombinedOutput(); err != nil {
		t.Fatalf("one process: %v\n%s", err, o)
	}
	args := mpirunArgs(3)
	over := filepath.Join(dir, "ranks")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if o, err := exec.CommandContext(ctx, mpirun, append(append(args, bin), append(run, "--out", over)...)...).CombinedOutput(); err != nil {
		t.Fatalf("3 ranks: %v\n%s", err, o)
	}
	a, _ := os.ReadFile(filepath.Join(one, "trace.csv"))
	b, _ := os.ReadFile(filepath.Join(over, "trace.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) || !bytes.Contains(a, []byte("exchanges_delivered")) {
		t.Fatalf("traces differ or lack the network columns:\n%s\n%s", a, b)
	}
	for _, f := range []string{one, over} {
		sb, _ := os.ReadFile(filepath.Join(f, "summary.json"))
		if !bytes.Contains(sb, []byte(`"model": "--loss 0.3 --loss-oneway --churn geometric:up=900,down=100"`)) {
			t.Fatalf("%s: summary.json without the network model:\n%s", f, sb)
		}
	}
}

// TestMPIPeerDeathSaid: a rank killed (SIGKILL) mid-run leaves more than
// mpirun's message: the ranks it stops with SIGTERM say which they are and
// why the signal came (the smaller item).
func TestMPIPeerDeathSaid(t *testing.T) {
	mpirun, dir, bin := mpiCommand(t)
	args := mpirunArgs(3)
	args = append(args, bin, "run", "--data", "synthetic-auc", "--n", "200000", "--dim", "16", "--graph", "watts-strogatz",
		"--algo", "sync", "--iters", "100000000", "--log-points", "3", "--no-optimum", "--out", filepath.Join(dir, "out"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirun, args...)
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Rank 1, found by its environment, is killed once it runs rounds.
	victim := 0
	for deadline := time.Now().Add(time.Minute); victim == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
			if err == nil && exe == bin && strings.Contains("\x00"+string(env), "\x00OMPI_COMM_WORLD_RANK=1\x00") {
				fmt.Sscan(e.Name(), &victim)
			}
		}
	}
	if victim == 0 {
		cmd.Process.Kill()
		t.Fatalf("rank 1 not found\n%s", buf.String())
	}
	time.Sleep(3 * time.Second) // into the rounds
	if err := syscallKill(victim); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	out := buf.String()
	if !strings.Contains(out, "of 3: stopping on terminated: mpirun sends it to every rank when one of them dies") {
		t.Fatalf("no surviving rank said why it stopped:\n%s", out)
	}
}

func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// mpiCommand skips the test where it cannot run (no mpi tag, -short, under
// mpirun already, no mpirun) and otherwise returns mpirun's path, a
// temporary folder and the command built with -tags mpi in it.
func mpiCommand(t *testing.T) (mpirun, dir, bin string) {
	t.Helper()
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./cmd/pairgossip/ runs this test")
	}
	if testing.Short() || os.Getenv("OMPI_COMM_WORLD_SIZE") != "" {
		t.Skip("builds the command and runs mpirun")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found (apt-get install -y openmpi-bin)")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "pairgossip")
	if out, err := exec.Command("go", "build", "-tags", "mpi", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	return mpirun, dir, bin
}

// mpirunArgs are mpirun's options for np ranks on this machine (more ranks
// than cores; as root, which OpenMPI refuses without saying so).
func mpirunArgs(np int) []string {
	args := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
	if os.Geteuid() == 0 {
		args = append([]string{"--allow-run-as-root"}, args...)
	}
	return args
}

// TestMPIDivergenceSaid: a run over 2 ranks that diverges names one
// process's iteration and node, with --gamma-c (not the Go field) in
// summary.json as on stderr, status diverged, exit 1; rank 0 says it, once,
// not every rank.
func TestMPIDivergenceSaid(t *testing.T) {
	mpirun, dir, bin := mpiCommand(t)
	run := []string{"run", "--data", "synthetic-auc", "--n", "3000", "--dim", "16", "--iters", "3000", "--gamma-c", "1e307", "--no-optimum"}
	one := filepath.Join(dir, "one")
	o1, err := exec.Command(bin, append(run, "--out", one)...).CombinedOutput()
	if err == nil {
		t.Fatalf("one process did not diverge:\n%s", o1)
	}
	args := mpirunArgs(2)
	over := filepath.Join(dir, "ranks")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o2, err := exec.CommandContext(ctx, mpirun, append(append(args, bin), append(run, "--out", over)...)...).CombinedOutput()
	if err == nil {
		t.Fatalf("2 ranks did not fail:\n%s", o2)
	}
	if c := strings.Count(string(o2), "divergence at iteration 3, node 1469"); c != 1 {
		t.Errorf("2 ranks: the divergence said %d times, want once:\n%s", c, o2)
	}
	for _, f := range []string{one, over} {
		sb, _ := os.ReadFile(filepath.Join(f, "summary.json"))
		var s struct{ Status, Error string }
		if json.Unmarshal(sb, &s) != nil || s.Status != "diverged" || !strings.Contains(s.Error, "divergence at iteration 3, node 1469") ||
			!strings.Contains(s.Error, "--gamma-c") {
			t.Errorf("%s: summary.json %s", f, sb)
		}
	}
}
