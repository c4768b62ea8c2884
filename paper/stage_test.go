package paper

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/internal/atomicfile"
)

// TestWriteFailureLeavesNothing (issue "Nothing silent, nothing lost",
// case 11): a write that fails midway (a full disk) leaves neither partial
// traces and figures nor a changed earlier report: into a new directory,
// nothing is created; into one holding a report, it stays as it was. No
// temporary directory is left beside it either.
func TestWriteFailureLeavesNothing(t *testing.T) {
	plan := tinyPlan()
	plan.Runs = 1
	for _, existing := range []bool{false, true} {
		parent := t.TempDir()
		out := filepath.Join(parent, "report")
		old := []byte("an earlier report")
		if existing {
			if err := os.MkdirAll(filepath.Join(out, "figures"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"report.html", "figures/fig1a.png"} {
				if err := os.WriteFile(filepath.Join(out, f), old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		writes := 0
		writeFile = func(path string, b []byte) error {
			if writes++; writes == 10 {
				return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
			}
			return atomicfile.WriteBytes(path, b)
		}
		_, err := Reproduce(context.Background(), Options{Out: out, Plan: plan, Seed: 1})
		writeFile = atomicfile.WriteBytes
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("existing %v: err %v, want ENOSPC", existing, err)
		}
		ents, _ := os.ReadDir(parent)
		switch {
		case !existing && len(ents) != 0:
			t.Errorf("a failed reproduction into a new directory left %d entries beside it (%s)", len(ents), ents[0].Name())
		case existing && len(ents) != 1:
			t.Errorf("a failed reproduction left %d entries beside the output directory", len(ents)-1)
		}
		if existing {
			var files []string
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return err
			})
			if len(files) != 2 {
				t.Errorf("the output directory holds %d files after a failed reproduction, want the 2 it held: %v", len(files), files)
			}
			for _, f := range files {
				if b, _ := os.ReadFile(f); !bytes.Equal(b, old) {
					t.Errorf("%s changed", f)
				}
			}
		}
	}
}

// TestReproduceIntoExisting: a reproduction into a directory that holds
// other files moves its own in and keeps the others.
func TestReproduceIntoExisting(t *testing.T) {
	plan := tinyPlan()
	plan.Runs = 1
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Reproduce(context.Background(), Options{Out: out, Plan: plan, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"notes.txt", "report.html", "results.json", "table1.csv", "figures"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range ents {
		if filepath.Join(filepath.Dir(out), e.Name()) != out {
			t.Errorf("left beside the output: %s", e.Name())
		}
	}
}

// TestRunsBound (case 9): Runs beyond MaxRuns is invalid, and Estimate
// gives finite figures for any count, without building a job.
func TestRunsBound(t *testing.T) {
	p := FullPlan()
	p.Runs = MaxRuns + 1
	if p.Validate() == nil {
		t.Error("Runs > MaxRuns accepted")
	}
	p.Runs = math.MaxInt
	cpu, mem := Estimate(p)
	if math.IsInf(cpu, 0) || math.IsNaN(cpu) || math.IsInf(mem, 0) || !(cpu > 1e15) || !(mem > 1e18) {
		t.Errorf("Estimate at MaxInt runs: %g s, %g B", cpu, mem)
	}
	p.Runs = 8
	if cpu, mem := Estimate(p); !(cpu > 10 && cpu < 1e4 && mem > 1e5 && mem < 1e8) {
		t.Errorf("Estimate of the full plan: %g s, %g B", cpu, mem)
	}
}

// TestInterruptible: a computation that takes no context does not hold up
// an interrupt (Table 1's dense eigenproblems held an interrupted
// reproduction for up to a second each); uninterrupted, its result comes
// back.
func TestInterruptible(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := interruptible(ctx, func() (int, error) { <-release; return 1, nil })
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(t0))
	}
	if v, err := interruptible(context.Background(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("%d, %v", v, err)
	}
}
