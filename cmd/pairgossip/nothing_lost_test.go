package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestReproduceRefusals (issue "Nothing silent, nothing lost", cases 9 and
// 11): a --runs count past the bound is refused at once with the bound and
// an estimate of what it would cost, whatever its size (it built every job
// first, and 2⁶³−1 panicked); an --out that cannot be written is refused
// before any work, exit 2, as run's is (it failed with exit 1 after the
// optima). Nothing is created.
func TestReproduceRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []hostileCase{
		{"--runs 10000000", []string{"reproduce", "--runs", "10000000", "--out", out}, 2,
			"--runs 10000000: at most 1000 seeds per setting (the paper uses 50); 10000000 would take about "},
		{"--runs 2^63-1", []string{"reproduce", "--runs", "9223372036854775807", "--out", out}, 2, "years of CPU time"},
		{"--runs 1001", []string{"reproduce", "--quick", "--runs", "1001", "--out", out}, 2, "of memory for the runs' traces"},
		{"--out is a file", []string{"reproduce", "--quick", "--out", file}, 2, "--out " + file + ": is a file, not a directory"},
		{"--out under a file", []string{"reproduce", "--quick", "--out", filepath.Join(file, "sub")}, 2, file + " is a file, not a directory"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, hostileCase{"--out in /proc", []string{"reproduce", "--quick", "--out", "/proc/pairgossip-out"}, 2, "--out /proc/pairgossip-out: cannot write in /proc"})
	}
	t0 := time.Now()
	checkHostile(t, cases)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the refusals took %v, want them at once", d)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused reproductions left %d entries", len(ents)-1)
	}
}

// TestSweepResultsNotRegular (case 11): --results naming an existing path
// that is not a regular file (/dev/null, a directory) is refused before
// anything is created (SQLite opened /dev/null as an empty database and
// created /dev/null-journal).
func TestSweepResultsNotRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(cliSweep), 0o644)
	cases := []hostileCase{
		{"--results a directory", []string{"sweep", "run", file, "--results", dir, "--quiet"}, 2, dir + ": not a results database (a directory)"},
	}
	_, journalBefore := os.Stat("/dev/null-journal")
	if _, err := os.Stat("/dev/null"); err == nil {
		cases = append(cases, hostileCase{"--results /dev/null", []string{"sweep", "run", file, "--results", "/dev/null", "--quiet"}, 2,
			"/dev/null: not a results database (not a regular file)"})
	}
	checkHostile(t, cases)
	if _, err := os.Stat("/dev/null-journal"); err == nil && journalBefore != nil {
		os.Remove("/dev/null-journal")
		t.Error("sweep run --results /dev/null created /dev/null-journal")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused sweeps left %d entries beside the sweep file", len(ents)-1)
	}
}
