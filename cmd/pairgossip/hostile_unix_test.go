//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifo makes a named pipe that a goroutine fills with content once a
// reader opens it (the stream of --data <(cat f.csv)).
func fifo(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(content)
		f.Close()
	}()
	return p
}

// TestPipedData: data from a pipe is read once (the format sniffed from a
// buffered prefix, not by reopening the stream, which found it empty), and
// a stream without line ends is bounded by the longest line (issue #15,
// items 3 and 6).
func TestPipedData(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	csv := fifo(t, dir, "pipe-csv", "1,2,1\n3,4,0\n5,1,1\n2,2,0\n")
	code, stdout, stderr := runCLI("run", "--data", csv, "--graph", "complete", "--iters", "20", "--log-points", "2", "--no-optimum", "--out", out)
	if code != 0 || !strings.Contains(stdout, "(4 nodes)") {
		t.Fatalf("CSV from a pipe: exit %d: %s%s", code, stdout, stderr)
	}
	svm := fifo(t, dir, "pipe-svm", "1 1:2 3:1\n-1 2:1\n1 1:1\n-1 3:2\n")
	code, stdout, stderr = runCLI("run", "--data", svm, "--graph", "complete", "--iters", "20", "--log-points", "2", "--no-optimum", "--out", out)
	if code != 0 || !strings.Contains(stdout, "(4 nodes)") {
		t.Fatalf("LIBSVM from a pipe: exit %d: %s%s", code, stdout, stderr)
	}
	checkHostile(t, []hostileCase{
		{"NumPy from a pipe", []string{"run", "--data", fifo(t, dir, "pipe.npy", "\x93NUMPY"), "--out", out}, 2, "NumPy data must be a regular file, not a pipe"},
		{"empty pipe", []string{"run", "--data", fifo(t, dir, "pipe-empty", ""), "--out", out}, 2, "pipe-empty: empty file (no data lines)"},
	})
	if _, err := os.Stat("/dev/zero"); err == nil {
		checkHostile(t, []hostileCase{
			{"/dev/zero", []string{"run", "--data", "/dev/zero", "--out", out}, 2, "/dev/zero:1: line longer than 67108864 bytes (64.0 MiB), the longest a data line may be"},
		})
	}
}

// TestInterruptDuringSetup: SIGTERM stops a run still in its set-up (here
// reading data from a pipe that nobody writes), with exit status 143
// (128 + SIGTERM's number, as a shell reports it) and
// nothing written (issue #15, item 2: a long set-up loop could not be
// interrupted).
func TestInterruptDuringSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and signals a real process")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "never-written")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "--data", p, "--out", out, "--checkpoint", filepath.Join(dir, "c.ckpt"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The process blocks opening the pipe once it has taken the checkpoint's
	// lock: wait for the lock file, then signal it.
	for i := 0; i < 2000; i++ {
		if _, err := os.Stat(filepath.Join(dir, "c.ckpt.lock")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGTERM did not stop the set-up")
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 || !strings.Contains(stderr.String(), "interrupted during the set-up; nothing was written") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted set-up created --out")
	}
}

// TestBySignal: a signal context cancelled by SIGHUP (handled as SIGTERM)
// is cancelled by a signal, and the exit status is 129 (128 + SIGHUP's
// number); one cancelled by its stop function is not, and a command
// stopped without a signal of its own exits 130.
func TestBySignal(t *testing.T) {
	ctx, stop := notifyContext(context.Background())
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the context")
	}
	stop()
	stop() // twice, as a deferred stop after an explicit one
	if !bySignal(ctx) {
		t.Errorf("cancelled by SIGHUP: bySignal false (cause %v)", context.Cause(ctx))
	}
	if got := interruptStatus(); got != 129 {
		t.Errorf("stopped by SIGHUP: exit status %d, want 129", got)
	}
	ctx, stop = notifyContext(context.Background())
	stop()
	if bySignal(ctx) {
		t.Error("cancelled by stop: bySignal true")
	}
	if got := interruptStatus(); got != 130 {
		t.Errorf("no signal since the command began: exit status %d, want 130", got)
	}
}
