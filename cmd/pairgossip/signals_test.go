package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCentralizedLargeN (issue "Nothing silent, nothing lost", case 10):
// --algo centralized on synthetic-auc at n = 6000 runs (its measurement
// asked for 16 nodes of its one-row state and panicked, and the panic was
// reported as "interrupted during the set-up", exit 130).
func TestCentralizedLargeN(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("run", "--data", "synthetic-auc", "--n", "6000", "--algo", "centralized", "--iters", "100",
		"--no-optimum", "--out", out)
	if code != 0 || !strings.Contains(stdout, "(6000 nodes)") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "trace.csv")); err != nil {
		t.Fatal(err)
	}
}

// TestPanicIsNotAnInterrupt: a panic in a command, after its deferred
// calls cancelled the signal context (as cmdRun's deferred stop does), is
// reported as an internal error with its value and stack, exit 1, never as
// an interruption.
func TestPanicIsNotAnInterrupt(t *testing.T) {
	var stderr bytes.Buffer
	var watched bool
	err, code := guard(&stderr, "run", func() error {
		ctx, stop := notifyContext(context.Background())
		defer func() { watched = bySignal(ctx) }()
		defer stop()
		panic("boom")
	})
	if err != nil || code != internalError || watched {
		t.Fatalf("guard: err %v, code %d, bySignal %v", err, code, watched)
	}
	s := stderr.String()
	if !strings.Contains(s, "internal error") || !strings.Contains(s, "panic: boom") || !strings.Contains(s, "signals_test.go") || strings.Contains(s, "interrupt") {
		t.Fatalf("stderr: %s", s)
	}
	if err, code := guard(&stderr, "run", func() error { return context.Canceled }); err != context.Canceled || code >= 0 {
		t.Fatalf("guard without a panic: %v, %d", err, code)
	}
}
