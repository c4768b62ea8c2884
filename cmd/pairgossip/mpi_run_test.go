package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeManifestOneProcess: a single process asked to resume a
// checkpoint written over MPI ranks (a manifest) refuses it, naming the
// file and both numbers of ranks, before any work.
func TestResumeManifestOneProcess(t *testing.T) {
	if os.Getenv("OMPI_COMM_WORLD_SIZE") != "" {
		t.Skip("run under mpirun")
	}
	dir := t.TempDir()
	ck := filepath.Join(dir, "ckpt")
	os.WriteFile(ck, []byte(`{"format": "pairgossip-mpi-checkpoint", "version": 1, "ranks": 4, "n": 20000}`+"\n"), 0o644)
	code, _, stderr := runCLI("run", "--data", "synthetic-auc", "--n", "20000", "--dim", "16", "--graph", "watts-strogatz",
		"--algo", "sync", "--iters", "100", "--no-optimum", "--out", filepath.Join(dir, "out"), "--resume", ck)
	want := "checkpoint " + ck + " was written by 4 ranks; this run has 1: resume it with mpirun -np 4"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Fatal("--out was created")
	}
}
