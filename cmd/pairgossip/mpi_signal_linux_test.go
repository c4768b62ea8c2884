package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// rankPIDs returns the processes running bin (the ranks; not mpirun, whose
// command line names bin too), found through /proc/PID/exe.
func rankPIDs(bin string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin {
			out = append(out, pid)
		}
	}
	return out
}

// TestMPIOneRankInterrupted: a signal that reaches one rank only stops the
// job as one: every rank agrees on the block, the trace and a "cancelled"
// summary are written, the checkpoint saved, and the job exits 130 (the
// ranks not signalled took the agreed cancellation for a failed collective
// and called MPI_Abort: exit 1, nothing written).
func TestMPIOneRankInterrupted(t *testing.T) {
	mpirun, dir, bin := mpiCommand(t)
	for _, rank := range []int{0, 1} {
		out := filepath.Join(dir, "out"+strconv.Itoa(rank))
		ckpt := filepath.Join(dir, "c"+strconv.Itoa(rank)+".ckpt")
		args := mpirunArgs(2)
		args = append(args, bin, "run", "--data", "synthetic-auc", "--dim", "16", "--n", "4000", "--iters", "100000000",
			"--loss", "0.3", "--churn", "geometric:up=300,down=100", "--no-optimum", "--log-points", "3", "--measure", "sampled",
			"--out", out, "--checkpoint", ckpt, "--checkpoint-every", "100ms")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, mpirun, args...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		// Both ranks running, past their set-up (a checkpoint written).
		deadline := time.Now().Add(time.Minute)
		var pids []int
		for time.Now().Before(deadline) {
			if pids = rankPIDs(bin); len(pids) == 2 {
				if _, err := os.Stat(ckpt); err == nil {
					break
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(pids) != 2 {
			cmd.Process.Kill()
			cmd.Wait()
			cancel()
			t.Fatalf("ranks %v of bin never both ran:\n%s", pids, buf.String())
		}
		// The rank with the lower pid is not always rank 0; either is one.
		syscall.Kill(pids[rank], syscall.SIGINT)
		err := cmd.Wait()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("one rank signalled: %v, want exit status 130\n%s", err, buf.String())
		}
		var sum struct {
			Status string `json:"status"`
		}
		b, rerr := os.ReadFile(filepath.Join(out, "summary.json"))
		if rerr != nil || json.Unmarshal(b, &sum) != nil || sum.Status != "cancelled" {
			t.Errorf("one rank signalled: summary %q (%v), want status cancelled\n%s", b, rerr, buf.String())
		}
		if _, err := os.Stat(filepath.Join(out, "trace.csv")); err != nil {
			t.Errorf("one rank signalled: no trace: %v", err)
		}
	}
}
