package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/filelock"
)

// hostileCase is one bad input of issue #15: the command must exit with
// code and print want on stderr (and nothing that looks like a crash).
type hostileCase struct {
	name string
	args []string
	code int
	want string
}

func checkHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: %v: exit %d, stderr %q; want exit %d and %q", c.name, c.args, code, stderr, c.code, c.want)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("%s: crashed: %s", c.name, stderr)
		}
	}
}

// TestHostileSizes: sizes that panicked or exhausted memory are refused
// before any work, naming the flag (issue #15, item 2; item 11 for
// --eval-nodes and --graph-file).
func TestHostileSizes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "never")
	edges := filepath.Join(dir, "edges.txt")
	os.WriteFile(edges, []byte("0 1\n"), 0o644)
	checkHostile(t, []hostileCase{
		{"log-points max int", []string{"run", "--iters", "100", "--log-points", "9223372036854775807", "--out", out}, 2, "--log-points must be in 1..1000000, got 9223372036854775807"},
		{"log-points 1e11", []string{"run", "--iters", "100", "--log-points", "100000000000", "--out", out}, 2, "--log-points must be in 1..1000000"},
		{"log-points above iters", []string{"run", "--iters", "100", "--log-points", "500", "--out", out}, 2, "--log-points must be <= the iterations (100), got 500"},
		{"log-points 3e9", []string{"run", "--iters", "3000000000", "--log-points", "3000000000", "--out", out}, 2, "--log-points must be in 1..1000000"},
		{"workers max int", []string{"run", "--iters", "100", "--workers", "9223372036854775807", "--out", out}, 2, "--workers must be in 0..4096, got 9223372036854775807"},
		{"workers 1e8", []string{"run", "--iters", "100", "--workers", "100000000", "--out", out}, 2, "--workers must be in 0..4096"},
		{"eval-nodes -2", []string{"run", "--eval-nodes", "-2", "--out", out}, 2, "--eval-nodes must be >= -1, got -2"},
		{"graph-file without graph file", []string{"run", "--graph-file", edges, "--out", out}, 2, `--graph-file: is only read when the graph is file, but the graph is "watts-strogatz"`},
		{"gap graph-file without graph file", []string{"gap", "--graph", "cycle", "--graph-file", edges}, 2, `--graph-file: is only read when the graph is file, but the graph is "cycle"`},
	})
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out folder")
	}
}

// TestHostilePaths: an --out or --checkpoint that cannot be written is
// refused before any work, with exit status 2 (issue #15, item 4), and a
// run refused after validation (by its data) leaves no empty --out folder
// (item 11).
func TestHostilePaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,1\n3,x,0\n"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []hostileCase{
		{"--out is a file", []string{"run", "--iters", "10", "--out", file}, 2, "--out " + file + ": is a file, not a directory"},
		{"--out under a file", []string{"run", "--iters", "10", "--out", filepath.Join(file, "sub")}, 2, file + " is a file, not a directory"},
		{"--checkpoint in a missing directory", []string{"run", "--iters", "10", "--out", out, "--checkpoint", filepath.Join(dir, "nodir", "c.ckpt")}, 2, "its directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{"--checkpoint is a directory", []string{"run", "--iters", "10", "--out", out, "--checkpoint", dir}, 2, "--checkpoint " + dir + ": is a directory, not a file"},
		{"refused by its data", []string{"run", "--data", bad, "--out", out}, 2, "bad.csv:2"},
	}
	if runtime.GOOS == "linux" {
		// /proc takes no new file, whoever the user (root included).
		cases = append(cases,
			hostileCase{"--out in /proc", []string{"run", "--iters", "2000000", "--out", "/proc/pairgossip-out"}, 2, "--out /proc/pairgossip-out: cannot write in /proc"},
			hostileCase{"--checkpoint in /proc", []string{"run", "--iters", "10", "--out", out, "--checkpoint", "/proc/c.ckpt"}, 2, "--checkpoint /proc/c.ckpt: cannot write in /proc"})
	}
	checkHostile(t, cases)
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out folder")
	}
	if os.Geteuid() != 0 { // root writes through the permissions
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		checkHostile(t, []hostileCase{
			{"read-only --out", []string{"run", "--iters", "2000000", "--out", ro}, 2, "--out " + ro + ": cannot write in " + ro + ": permission denied"},
			{"read-only --checkpoint", []string{"run", "--iters", "10", "--out", out, "--checkpoint", filepath.Join(ro, "c.ckpt")}, 2, "cannot write in " + ro},
		})
	}
}

// TestCheckpointLockAndStale: a checkpoint file another run holds is
// refused, naming its lock; the temporary file of a killed checkpoint write
// is removed with a warning (issue #15, item 9).
func TestCheckpointLockAndStale(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "c.ckpt")
	lock, err := filelock.Acquire(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	checkHostile(t, []hostileCase{
		{"checkpoint in use", []string{"run", "--iters", "10", "--no-optimum", "--out", filepath.Join(dir, "o1"), "--checkpoint", ckpt}, 2, "--checkpoint: " + ckpt + " is in use by another run"},
		{"resume in use", []string{"run", "--iters", "10", "--no-optimum", "--out", filepath.Join(dir, "o1"), "--resume", ckpt}, 2, "--resume: " + ckpt + " is in use by another run"},
	})
	lock.Unlock()
	stale := filepath.Join(dir, ".c.ckpt.tmp-4242")
	os.WriteFile(stale, make([]byte, 1<<16), 0o644)
	code, _, stderr := runCLI("run", "--iters", "10", "--log-points", "2", "--no-optimum", "--out", filepath.Join(dir, "o2"), "--checkpoint", ckpt)
	if code != 0 || !strings.Contains(stderr, "warning: removed "+stale+", the temporary file of a checkpoint write that was killed") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(ckpt); err != nil {
		t.Errorf("no checkpoint written: %v", err)
	}
	if _, err := os.Stat(filelock.LockPath(ckpt)); err == nil {
		t.Error("the run left its lock file")
	}
}

// TestJSONDiverged: --json prints the summary of a run that diverged too,
// with its status and error (issue #15, item 8).
func TestJSONDiverged(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "--problem", "auc-squared-hinge", "--graph", "complete", "--iters", "2000",
		"--gamma-c", "1e300", "--no-optimum", "--json", "--out", out)
	if code != 1 || !strings.Contains(stderr, "divergence at iteration") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout)
	}
	if sum["status"] != "diverged" || !strings.Contains(sum["error"].(string), "divergence at iteration") {
		t.Errorf("status %v, error %v", sum["status"], sum["error"])
	}
}

// TestHostileGap: gap refuses graphs over the edge limit for every family
// (not only complete), and those whose edges and eigensolver would not fit
// in memory; the closed forms need no graph (issue #15, item 3).
func TestHostileGap(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 1 << 30 }
	checkHostile(t, []hostileCase{
		{"cycle 1e9", []string{"gap", "--graph", "cycle", "--n", "1000000000"}, 2, "graph: cycle: about 1e+09 edges, more than the limit 268435456"},
		{"star 2e9", []string{"gap", "--graph", "star", "--n", "2000000000"}, 2, "graph: star: about 2e+09 edges, more than the limit"},
		{"path 2e9", []string{"gap", "--graph", "path", "--n", "2000000000"}, 2, "graph: path: about 2e+09 edges"},
		{"torus 2e9", []string{"gap", "--graph", "torus", "--n", "2000000000", "--rows", "40000", "--cols", "50000"}, 2, "graph: torus: about 4e+09 edges"},
		{"n over int32", []string{"gap", "--graph", "cycle", "--n", "3000000000"}, 2, "n must be <= 2147483647"},
		{"watts-strogatz memory", []string{"gap", "--graph", "watts-strogatz", "--n", "10000000"}, 2, "graph watts-strogatz with n = 10000000 needs about 4.25 GiB (edges, adjacency and the eigensolver's work space) but only 1 GiB is available"},
		{"erdos-renyi memory", []string{"gap", "--graph", "erdos-renyi", "--n", "100000", "--p", "0.1"}, 2, "graph erdos-renyi with n = 100000 needs about"},
		{"points per node memory", []string{"gap", "--graph", "cycle", "--n", "100000", "--points-per-node", "20"}, 2, "graph cycle with n = 100000 needs about"},
	})
	// 264 million edges in a closed form: no graph is built (the test's
	// memory limit of 1 GiB would refuse building it).
	code, stdout, stderr := runCLI("gap", "--graph", "complete", "--n", "23000", "--json")
	if code != 0 || !strings.Contains(stdout, `"undirected_edges": 264488500`) || !strings.Contains(stdout, `"method": "closed-form"`) {
		t.Errorf("complete 23000: exit %d, %s%s", code, stdout, stderr)
	}
}
