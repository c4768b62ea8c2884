package pairgossip

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
)

// TestResumeNamesWhatDiffers: a checkpoint keeps its run's configuration,
// so that a resume with other flags is refused naming them, by flag, with
// both values; with the same flags over other data the refusal says the
// data or the graph differ; the same run resumes.
func TestResumeNamesWhatDiffers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Data, cfg.N, cfg.Iters, cfg.SkipOptimum, cfg.Workers = "synthetic-auc", 60, 200, true, 1
	run, res := executed(t, cfg)
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	if err := run.SaveCheckpoint(ck, res.Trace); err != nil {
		t.Fatal(err)
	}
	resume := func(c Config) error {
		r, err := Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, err = r.Resume(ck)
		return err
	}
	if err := resume(cfg); err != nil {
		t.Fatalf("the same run: %v", err)
	}
	other := cfg
	other.Iters, other.Seed, other.Workers = 300, 9, 2 // workers do not count
	err := resume(other)
	var me *engine.MismatchError
	if !errors.As(err, &me) || !errors.Is(err, engine.ErrCheckpoint) ||
		!strings.Contains(err.Error(), "written by a run with --iters 200, --seed 1; this run has --iters 300, --seed 9") {
		t.Errorf("other flags: %v", err)
	}
	data := cfg
	data.DataSeed = 2
	if err := resume(data); err == nil || !strings.Contains(err.Error(), "--data-seed 1") {
		t.Errorf("another data seed: %v", err)
	}
	// The same flags over an edited data file.
	csv := filepath.Join(t.TempDir(), "d.csv")
	write := func(last string) {
		var b strings.Builder
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "%d,%d,%d\n", i%7, i%5, i%2)
		}
		b.WriteString(last)
		if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("1,2,1\n")
	file := cfg
	file.Data, file.N = csv, 0
	r, res := executed(t, file)
	if err := r.SaveCheckpoint(ck, res.Trace); err != nil {
		t.Fatal(err)
	}
	write("1,3,1\n")
	if err := resume(file); err == nil || !strings.Contains(err.Error(), "the same flags over other data or another graph") {
		t.Errorf("an edited data file: %v", err)
	}
}
