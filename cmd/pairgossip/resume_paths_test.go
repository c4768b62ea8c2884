package main

import (
	"bytes"
	"os"
	"os/exec"
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
// identified by their contents alone still resumes with the paths it was
// written with, to the trace of that version's uninterrupted run.
// testdata/legacy-checkpoint/run.ckpt was written, from this folder, by
// that version (aa515f4) with PAIRGOSSIP_KERNEL=generic (kernels every CPU
// runs) and the flags below, stopped by SIGINT at iteration 11829201 of
// 2·10⁷; trace.csv is its uninterrupted run's.
func TestResumeLegacyCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and resumes 8·10⁶ events")
	}
	bin := buildBinary(t)
	dir := filepath.Join("testdata", "legacy-checkpoint")
	out := filepath.Join(t.TempDir(), "o")
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	if err := os.WriteFile(ck, readFile(t, filepath.Join(dir, "run.ckpt")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--data", dir+"/d.csv", "--churn", "file:"+dir+"/sessions.txt", "--graph", "cycle", "--algo", "async",
		"--iters", "20000000", "--log-points", "4", "--no-optimum", "--workers", "1", "--resume", ck, "--out", out)
	cmd.Env = append(os.Environ(), kernel.EnvVar+"=generic")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "trace.csv")), readFile(t, filepath.Join(dir, "trace.csv"))) {
		t.Error("the resumed trace differs from the one the checkpoint's version wrote uninterrupted")
	}
	// Under other paths (the same contents) it is refused, saying to use
	// its own: its identity holds them. (The resume above saved the state
	// over ck, in today's form: a fresh copy.)
	if err := os.WriteFile(ck, readFile(t, filepath.Join(dir, "run.ckpt")), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := copyFiles(t, dir, "d.csv", "sessions.txt")
	cmd = exec.Command(bin, "run", "--data", moved+"/d.csv", "--churn", "file:"+moved+"/sessions.txt", "--graph", "cycle", "--algo", "async",
		"--iters", "20000000", "--log-points", "4", "--no-optimum", "--workers", "1", "--resume", ck, "--out", out)
	cmd.Env = append(os.Environ(), kernel.EnvVar+"=generic")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "resume it with the paths it names") {
		t.Errorf("under other paths: %v: %s", err, b)
	}
}
