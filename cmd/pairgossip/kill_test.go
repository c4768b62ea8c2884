package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// buildBinary compiles the command once per test binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pairgossip")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// withoutWall drops the only field allowed to differ between runs.
func withoutWall(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "wall_seconds")
	delete(m, "timing") // wall time too
	b, _ := json.Marshal(m)
	return b
}

// TestKillResumeBitIdentical kills a real `pairgossip run` with SIGKILL at
// random moments, resumes it from its checkpoint each time, and compares the
// final checkpoint (the whole state), trace.csv and summary.json (less the
// wall time) byte for byte with an uninterrupted run.
func TestKillResumeBitIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real process")
	}
	bin := buildBinary(t)
	// Each run takes a few tenths of a second, so that the kills land
	// between checkpoints (every 20 ms): the reduced schedule (the
	// synchronous default) does 400 000 rounds in about that time, the
	// blocked one 12 000.
	for _, algo := range []struct {
		name, algo, schedule, iters string
	}{{"sync", "sync", "auto", "400000"}, {"sync-blocked", "sync", "blocked", "12000"}, {"async", "async", "auto", "3000000"}} {
		t.Run(algo.name, func(t *testing.T) {
			dir := t.TempDir()
			args := func(out, ck string) []string {
				return []string{"run", "--algo", algo.algo, "--schedule", algo.schedule, "--iters", algo.iters, "--graph", "watts-strogatz",
					"--eval-nodes", "8", "--log-points", "20", "--no-optimum", "--workers", "2",
					"--out", filepath.Join(dir, out), "--checkpoint", filepath.Join(dir, ck), "--checkpoint-every", "20ms"}
			}
			t0 := time.Now()
			if out, err := exec.Command(bin, args("ref", "ref.ckpt")...).CombinedOutput(); err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			full := time.Since(t0)

			s := rng.New(uint64(len(algo.name)), 7)
			kills, resumes := 0, 0
			for attempt := 0; ; attempt++ {
				if attempt > 200 {
					t.Fatal("the run never finished")
				}
				a := args("killed", "killed.ckpt")
				if _, err := os.Stat(filepath.Join(dir, "killed.ckpt")); err == nil {
					a = append(a, "--resume", filepath.Join(dir, "killed.ckpt"))
				}
				cmd := exec.Command(bin, a...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				delay := time.Duration(float64(full) * (0.05 + 0.4*s.Float64()))
				if kills >= 5 {
					delay = time.Hour // enough kills: let it finish
				}
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("resumed run failed: %v\n%s", err, stderr.String())
					}
				case <-time.After(delay):
					cmd.Process.Kill() // SIGKILL
					<-done
					kills++
					if bytes.Contains(stderr.Bytes(), []byte("resuming from iteration")) {
						resumes++
					}
					continue
				}
				if bytes.Contains(stderr.Bytes(), []byte("resuming from iteration")) {
					resumes++
				}
				break
			}
			if kills == 0 || resumes == 0 {
				t.Fatalf("the run was killed %d times and resumed %d times", kills, resumes)
			}
			a, _ := os.ReadFile(filepath.Join(dir, "ref.ckpt"))
			b, _ := os.ReadFile(filepath.Join(dir, "killed.ckpt"))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("final state differs after %d kills (%d vs %d bytes)", kills, len(a), len(b))
			}
			ta, _ := os.ReadFile(filepath.Join(dir, "ref", "trace.csv"))
			tb, _ := os.ReadFile(filepath.Join(dir, "killed", "trace.csv"))
			if !bytes.Equal(ta, tb) {
				t.Fatalf("trace.csv differs after %d kills", kills)
			}
			if !bytes.Equal(withoutWall(t, filepath.Join(dir, "ref", "summary.json")), withoutWall(t, filepath.Join(dir, "killed", "summary.json"))) {
				t.Fatalf("summary.json differs after %d kills", kills)
			}
			t.Logf("%s: %d SIGKILLs, %d resumes, uninterrupted run %s", algo.name, kills, resumes, full.Round(time.Millisecond))
		})
	}
}

// TestSignalWritesCheckpoint: SIGTERM saves the state and exits cleanly, and
// the run can be resumed to the same end as an uninterrupted one.
func TestSignalWritesCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a real process")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	args := []string{"run", "--algo", "async", "--iters", "50000000", "--eval-nodes", "4", "--log-points", "10",
		"--no-optimum", "--out", filepath.Join(dir, "o"), "--checkpoint", filepath.Join(dir, "c"), "--checkpoint-every", "1h"}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130 after SIGINT, got %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err != nil {
		t.Fatalf("no checkpoint after SIGINT: %v\n%s", err, stderr.String())
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "o", "summary.json"))
	if !bytes.Contains(raw, []byte(`"status": "cancelled"`)) {
		t.Fatalf("summary.json: %s", raw)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("--resume")) {
		t.Fatalf("stderr does not say how to resume: %s", stderr.String())
	}
}
