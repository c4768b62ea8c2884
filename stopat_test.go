package pairgossip

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/pairgossip/pairgossip/config"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
)

func stopConfig(stopAt float64, iters int64, workers int) Config {
	c := DefaultConfig()
	c.Data, c.N, c.Dim, c.Iters, c.Workers, c.StopAt = "synthetic-auc", 512, 8, iters, workers, stopAt
	c.NoOptimumCache = true
	return c
}

func execStop(t *testing.T, c Config, opt ExecOptions) (*Run, *Result) {
	t.Helper()
	r, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	res, err := r.ExecuteWith(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

func relGap(rec engine.Record, opt float64) float64 { return (rec.ObjMean - opt) / opt }

// TestStopAtOvershoot: the run stops at most engine.StopCheckRatio past the
// first iteration at which a measurement meets the target (found by
// measuring every iteration of the same run, plain schedule: the same bits
// whatever the measured iterations).
func TestStopAtOvershoot(t *testing.T) {
	c := stopConfig(2, 6000, 1)
	c.N, c.Schedule, c.EvalNodes = 64, "plain", 8
	_, res := execStop(t, c, ExecOptions{})
	if !res.Reached {
		t.Fatal("not reached")
	}
	every := c
	every.StopAt, every.LogPoints, every.Iters, every.SkipOptimum = 0, int(res.Final.Iter), res.Final.Iter, true
	_, all := execStop(t, every, ExecOptions{})
	first := slices.IndexFunc(all.Trace, func(r engine.Record) bool { return Reached(r.ObjMean, res.Optimum.Value, 2) })
	if first < 0 {
		t.Fatal("no measurement of the dense run meets the target")
	}
	t1 := all.Trace[first].Iter
	if float64(res.Final.Iter) > engine.StopCheckRatio*float64(t1) && res.Final.Iter > t1+1 {
		t.Fatalf("stopped at %d, the target first met at %d: more than ×%g late", res.Final.Iter, t1, engine.StopCheckRatio)
	}
	t.Logf("stopped at %d, first met at %d", res.Final.Iter, t1)
}

// TestStopAtResume: a run with StopAt interrupted before its stop, then
// resumed from its checkpoint, stops at the same iteration with the same
// bits as an uninterrupted one; resuming the checkpoint of a run that
// stopped adds nothing.
func TestStopAtResume(t *testing.T) {
	c := stopConfig(1, 20000, 1)
	ref, refRes := execStop(t, c, ExecOptions{})
	stopIter := refRes.Final.Iter
	ckpt := filepath.Join(t.TempDir(), "ck")
	a, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	_, err = a.ExecuteWith(ctx, ExecOptions{Checkpoint: ckpt, CheckpointEvery: 1 << 40, OnRecord: func(r engine.Record) {
		if r.Iter >= stopIter/3 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	for i := 0; i < 2; i++ { // resume the interrupted run, then the stopped one
		b, err := Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		trace, err := b.Resume(ckpt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.ExecuteWith(context.Background(), ExecOptions{Trace: trace, Checkpoint: ckpt, CheckpointEvery: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Reached || !slices.Equal(res.Trace, refRes.Trace) || b.Sim.StateChecksum() != ref.Sim.StateChecksum() {
			t.Fatalf("resume %d: stopped at %d (reached %v), want %d, or other bits", i, res.Final.Iter, res.Reached, stopIter)
		}
		b.Close()
	}
}

// TestStopAtIdentity: StopAt 0 leaves the JSON form (run ids, checkpoint
// identities) as it was; a StopAt is part of it.
func TestStopAtIdentity(t *testing.T) {
	off, _ := json.Marshal(DefaultConfig())
	if strings.Contains(string(off), "stop_at") {
		t.Fatalf("stop_at in the JSON form of a run without it: %s", off)
	}
	c := DefaultConfig()
	c.StopAt = 0.1
	on, _ := json.Marshal(c)
	if !strings.Contains(string(on), `"stop_at":0.1`) {
		t.Fatalf("no stop_at in %s", on)
	}
}

// TestStopAtRefused: StopAt with SkipOptimum, and where the optimum is out
// of reach, is refused by name before any work.
func TestStopAtRefused(t *testing.T) {
	c := stopConfig(0.1, 100, 1)
	c.SkipOptimum = true
	if _, err := Prepare(c); err == nil || !strings.Contains(config.FlagMessage(err), "--stop-at") {
		t.Fatalf("with SkipOptimum: %v", err)
	}
	// An AUC problem out of the solver's reach today, if it still is.
	big := DefaultConfig()
	big.Data, big.N, big.Dim, big.Iters, big.Workers, big.SkipOptimum = "synthetic-auc", 30000, 2, 10, 1, true
	r, err := Prepare(big)
	if err != nil {
		t.Fatal(err)
	}
	why := r.optimumOutOfReach()
	r.Close()
	if why == "" {
		t.Skip("the optimum at n = 30000 is within reach: nothing to refuse")
	}
	big.SkipOptimum, big.StopAt = false, 0.1
	if _, err := Prepare(big); err == nil || !strings.Contains(config.FlagMessage(err), "--stop-at") || !strings.Contains(err.Error(), "out of reach") {
		t.Fatalf("out of reach: %v", err)
	}
}

// TestStopAtOptimumKeptOnCancel: a --stop-at run interrupted after its
// optimum was solved (its target) still reports that optimum, as a run
// that ends does: it is the problem's, whatever ended the run.
func TestStopAtOptimumKeptOnCancel(t *testing.T) {
	c := stopConfig(1e-9, 200000, 1)
	r, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := r.ExecuteWith(ctx, ExecOptions{OnRecord: func(engine.Record) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res == nil || res.Optimum == nil || !(res.Optimum.Value > 0) {
		t.Fatalf("the cancelled run reports no optimum: %+v", res)
	}
}
