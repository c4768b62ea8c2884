package main

import (
	"bytes"
	"github.com/pairgossip/pairgossip/config"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/internal/progress"
)

// TestETAClock: the time left counts the rounds left at the rounds' rate and
// the measurements left at their mean time, each measured apart from the
// other.
func TestETAClock(t *testing.T) {
	var c etaClock
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	st := pairgossip.Progress{Phase: pairgossip.PhaseMeasure, Iter: 1, Iters: 1001, Measured: 0, Measures: 5}
	if _, ok := c.eta(st, t0); ok {
		t.Fatal("an estimate before any report")
	}
	c.update(st, t0) // measurement 1 at iteration 1: 2 s
	if _, ok := c.eta(st, at(time.Second)); ok {
		t.Fatal("an estimate before any round")
	}
	st = pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 101, Iters: 1001, Measured: 1, Measures: 5}
	c.update(pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 1, Iters: 1001, Measured: 1, Measures: 5}, at(2*time.Second))
	c.update(st, at(3*time.Second)) // 100 rounds took 1 s... since the measurement ended
	// Rounds left: 900 at 100/s = 9 s; measurements left: 4 at 2 s = 8 s.
	d, ok := c.eta(st, at(3*time.Second))
	if !ok || d != 17*time.Second {
		t.Fatalf("eta = %v, %v; want 17s", d, ok)
	}
	// A second measurement under way for 1 s of an expected 2 s.
	st.Phase = pairgossip.PhaseMeasure
	c.update(st, at(3*time.Second))
	d, ok = c.eta(st, at(4*time.Second))
	if !ok || d != 16*time.Second {
		t.Fatalf("eta during a measurement = %v, %v; want 16s", d, ok)
	}
	// It took 4 s: the mean is now 3 s; 3 left, 900 rounds at 100/s.
	st = pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 101, Iters: 1001, Measured: 2, Measures: 5}
	c.update(st, at(7*time.Second))
	d, ok = c.eta(st, at(7*time.Second))
	if !ok || d != 18*time.Second {
		t.Fatalf("eta after two measurements = %v, %v; want 18s", d, ok)
	}
	// The optimum phase ends the clock's last measurement.
	c.update(pairgossip.Progress{Phase: pairgossip.PhaseOptimum, Iter: 1001, Iters: 1001, Measured: 5, Measures: 5}, at(8*time.Second))
	if c.inMeasure {
		t.Fatal("still measuring in the optimum phase")
	}
}

// TestETAHugeRun: a run of 2^53 iterations at a few rounds a second (and a
// measurement that took an hour) is more time than a time.Duration holds;
// the estimate saturates at progress.MaxETA, shown as "> 100y", never a
// negative or wrapped value (the case 6).
func TestETAHugeRun(t *testing.T) {
	var c etaClock
	t0 := time.Unix(1000, 0)
	iters := int64(config.MaxIters)
	c.update(pairgossip.Progress{Phase: pairgossip.PhaseMeasure, Iter: 0, Iters: iters, Measures: 30}, t0)
	c.update(pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 0, Iters: iters, Measured: 1, Measures: 30}, t0.Add(time.Hour))
	st := pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 3, Iters: iters, Measured: 1, Measures: 30}
	for _, at := range []time.Duration{time.Hour + time.Second, 2 * time.Hour} {
		d, ok := c.eta(st, t0.Add(at))
		if !ok || d != progress.MaxETA {
			t.Fatalf("eta at %v = %v, %v; want the cap %v", at, d, ok, progress.MaxETA)
		}
	}
	if s := progress.FormatETA(progress.MaxETA); s != "> 100y" {
		t.Fatalf("FormatETA(MaxETA) = %q", s)
	}
	// Below the cap, the sum of rounds and measurements is as before.
	if d := progress.Clamp(float64(90 * time.Minute)); d != 90*time.Minute {
		t.Fatalf("Clamp(90m) = %v", d)
	}
}

// TestRunProgressText: what the line says in each phase.
func TestRunProgressText(t *testing.T) {
	p := &runProgress{setup: time.Unix(0, 0)}
	now := time.Unix(3, 0)
	p.st, p.phase = pairgossip.Progress{Phase: pairgossip.PhaseGraph}, time.Unix(1, 0)
	if got, want := p.text(now), "set-up: building the graph (2s, set-up 3s)"; got != want {
		t.Errorf("set-up line %q, want %q", got, want)
	}
	p.st = pairgossip.Progress{Phase: pairgossip.PhaseRounds, Iter: 250, Iters: 1000, Measured: 3, Measures: 30}
	p.obj, p.hasOb = 0.125, true
	got := p.text(now)
	for _, want := range []string{" 25.0%", "iter 250/1000", "measured 3/30", "objective 0.125", "ETA ?"} {
		if !strings.Contains(got, want) {
			t.Errorf("rounds line %q lacks %q", got, want)
		}
	}
	p.st.Phase, p.phase = pairgossip.PhaseMeasure, time.Unix(2, 500_000_000)
	if got := p.text(now); !strings.Contains(got, "measuring (500ms)") {
		t.Errorf("measure line %q", got)
	}
	p.st.Phase = pairgossip.PhaseOptimum
	if got := p.text(now); !strings.HasPrefix(got, "solving for the centralized optimum") {
		t.Errorf("optimum line %q", got)
	}
}

// TestRunProgressSilentOffTerminal: run writes no status line (no carriage
// return, nothing at all) when stderr is not a terminal.
func TestRunProgressSilentOffTerminal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "out")
	code := realMain([]string{"run", "--data", "synthetic-auc", "--n", "2000", "--dim", "8", "--graph", "watts-strogatz", "--iters", "300", "--no-optimum", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Fatalf("stderr not a terminal, yet written: %q", stderr.String())
	}
}
