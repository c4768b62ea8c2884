package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/kernel"
)

// copyFiles copies the named files of src into a new folder and returns it.
func copyFiles(t *testing.T, src string, names ...string) string {
	t.Helper()
	dst := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestResumeOtherPaths: a checkpoint identifies the files its run read by
// their contents, not their paths: the same data, graph and network files
// copied to another folder (a job's own scratch folder, a resume from
// another working directory) resume it to the uninterrupted run's trace,
// and an edited copy is refused.
func TestResumeOtherPaths(t *testing.T) {
	a := t.TempDir()
	var data, edges strings.Builder
	for i := 0; i < 40; i++ {
		data.WriteString(strings.Repeat("0.5,", 2) + []string{"-1", "0.25", "1.5"}[i%3] + "," + []string{"0", "1"}[i%2] + "\n")
		edges.WriteString(itoa(i) + " " + itoa((i+1)%40) + "\n")
	}
	files := map[string]string{"d.csv": data.String(), "g.txt": edges.String(), "sessions.txt": "3 10 40\n7 5 9\n"}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(a, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := copyFiles(t, a, "d.csv", "g.txt", "sessions.txt")
	args := func(dir, out string, more ...string) []string {
		return append([]string{"run", "--data", filepath.Join(dir, "d.csv"), "--graph", "file", "--graph-file", filepath.Join(dir, "g.txt"),
			"--churn", "file:" + filepath.Join(dir, "sessions.txt"), "--algo", "async", "--iters", "400", "--log-points", "4", "--no-optimum", "--out", out}, more...)
	}
	tmp := t.TempDir()
	ck := filepath.Join(tmp, "run.ckpt")
	if code, _, stderr := runCLI(args(a, filepath.Join(tmp, "a"), "--checkpoint", ck)...); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	if code, _, stderr := runCLI(args(b, filepath.Join(tmp, "b"), "--resume", ck)...); code != 0 {
		t.Fatalf("the same files under other paths: exit %d: %s", code, stderr)
	}
	if x, y := readFile(t, filepath.Join(tmp, "a", "trace.csv")), readFile(t, filepath.Join(tmp, "b", "trace.csv")); !bytes.Equal(x, y) {
		t.Error("resumed under other paths: the trace differs")
	}
	for n, edit := range map[string][2]string{"d.csv": {"0.25", "0.35"}, "g.txt": {"0 1\n", "0 2\n"}, "sessions.txt": {"3 10", "4 10"}} {
		c := copyFiles(t, a, "d.csv", "g.txt", "sessions.txt")
		edited := strings.Replace(files[n], edit[0], edit[1], 1)
		if err := os.WriteFile(filepath.Join(c, n), []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(args(c, filepath.Join(tmp, "c"), "--resume", ck)...); code != 2 || !strings.Contains(stderr, "checkpoint") {
			t.Errorf("%s edited: exit %d, want a refusal: %s", n, code, stderr)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestResumeLegacyCheckpoint: a checkpoint written before files were
// identified by their contents alone (testdata/legacy-checkpoint/run.ckpt,
// written by that version with the flags below, from this folder) still
// resumes with the same paths, to the trace that version wrote.
func TestResumeLegacyCheckpoint(t *testing.T) {
	dir := filepath.Join("testdata", "legacy-checkpoint")
	if k := strings.TrimSpace(string(readFile(t, filepath.Join(dir, "kernel")))); k != kernel.Active() {
		t.Skipf("the checkpoint was written with the %s kernels, this CPU runs %s (a checkpoint resumes on the kernels that wrote it)", k, kernel.Active())
	}
	out := filepath.Join(t.TempDir(), "o")
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	if err := os.WriteFile(ck, readFile(t, filepath.Join(dir, "run.ckpt")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("run", "--data", dir+"/d.csv", "--churn", "file:"+dir+"/sessions.txt", "--graph", "cycle", "--algo", "async",
		"--iters", "400", "--log-points", "4", "--no-optimum", "--resume", ck, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "trace.csv")), readFile(t, filepath.Join(dir, "trace.csv"))) {
		t.Error("the trace differs from the one the checkpoint's run wrote")
	}
}
