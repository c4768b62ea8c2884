package ranks

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/pairgossip/pairgossip/output"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// testConfig is a run the distributed executor supports, small enough for
// a unit test, large enough for several blocks and a sampled measurement.
func testConfig(n int, iters int64) pairgossip.Config {
	cfg := pairgossip.DefaultConfig()
	cfg.Data, cfg.N, cfg.Dim = "synthetic-auc", n, 16
	cfg.Iters, cfg.Measure, cfg.SkipOptimum = iters, "sampled", true
	cfg.Workers = 2
	cfg.LogPoints = 6
	return cfg
}

// singleProcess runs cfg on one process (pairgossip.Prepare) and returns
// its trace.csv, its summary without timings, and the state sections of
// its checkpoint (Z, Θ, Θ̄, Y, margins).
func singleProcess(t *testing.T, cfg pairgossip.Config) (trace []byte, sum map[string]any, state []byte) {
	t.Helper()
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ck bytes.Buffer
	if err := run.Sim.WriteCheckpoint(&ck, nil, nil); err != nil {
		t.Fatal(err)
	}
	b := ck.Bytes()
	hl := binary.LittleEndian.Uint32(b[8:])
	state = b[12+int(hl) : len(b)-32]
	return output.TraceCSV(res.Trace), stripTimes(t, output.JSON(output.Summarize(run, res, nil))), state
}

// stripTimes returns summary.json without what differs between two runs of
// the same configuration (wall time and timings).
func stripTimes(t *testing.T, b []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "wall_seconds")
	delete(m, "timing")
	// The effective gap needs the whole graph: one process computes it up
	// to output.SummaryGapMaxN, a run over ranks says it did not; the
	// model, its knobs and the counters must agree.
	if nw, ok := m["network"].(map[string]any); ok {
		for _, k := range []string{"effective_gap", "perfect_gap", "gap_ratio", "gap_method", "gap_residual"} {
			delete(nw, k)
		}
	}
	return m
}

func TestOneRankIdentical(t *testing.T) {
	for _, tc := range []distCase{{3000, "sampled", "auc", ""}, {70000, "sampled", "auc", ""}, {3000, "auto", "auc", ""}, {3000, "auto", "auc-hinge", ""}, {20000, "auto", "auc", ""},
		// The plan for 16 vectors samples, the one for one vector is exact
		// (EvalPlan.Distinct): the first rows, where the measured θ̄_k are
		// equal, are exact over ranks as in one process.
		{200000, "auto", "auc", ""}} {
		n := tc.n
		cfg := testConfig(n, 3000)
		cfg.Measure, cfg.Problem = tc.measure, tc.problem
		wantTrace, wantSum, wantState := singleProcess(t, cfg)
		r, err := Prepare(mpi.Self(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		trace, err := r.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := output.TraceCSV(trace); !bytes.Equal(got, wantTrace) {
			t.Fatalf("n = %d: trace differs\n got %s\nwant %s", n, got, wantTrace)
		}
		gotSum := stripTimes(t, output.JSON(r.Summary(trace, 0, 0, nil)))
		gj, _ := json.Marshal(gotSum)
		wj, _ := json.Marshal(wantSum)
		if !bytes.Equal(gj, wj) {
			t.Fatalf("n = %d: summary differs\n got %s\nwant %s", n, gj, wj)
		}
		var st bytes.Buffer
		if err := r.WriteState(&st); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(st.Bytes(), wantState) {
			t.Fatalf("n = %d: final state differs (%d vs %d bytes)", n, st.Len(), len(wantState))
		}
	}
}

// TestOneRankResume: stop at an iteration with a checkpoint, resume in a
// new Run, and get one process's uninterrupted trace and state; a damaged
// rank file is refused.
func TestOneRankResume(t *testing.T) {
	cfg := testConfig(20000, 3000)
	cfg.Measure, cfg.Problem = "auto", "auc-hinge"
	wantTrace, _, wantState := singleProcess(t, cfg)
	r, ck, unlock := checkpointed(t, cfg, cfg.WithDefaults().EngineConfig().Network)
	r.StopAt = 1200
	if _, err := r.Execute(context.Background(), nil); err != ErrStopped {
		t.Fatalf("Execute: %v, want ErrStopped", err)
	}
	unlock()
	resume := func() (*Run, error) {
		r, err := Prepare(mpi.Self(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resume(ck)
		return r, err
	}
	r2, err := resume()
	if err != nil {
		t.Fatal(err)
	}
	if r2.Iter() < 1200 || r2.Iter() >= 3000 {
		t.Fatalf("resumed at iteration %d", r2.Iter())
	}
	finishResumed(t, r2, wantTrace, wantState)
	// One byte of the rank file changed: refused.
	rf := ck + ".g1.rank0"
	b, err := os.ReadFile(rf)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	os.WriteFile(rf, b, 0o644)
	if _, err := resume(); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("damaged rank file: %v", err)
	}
}

// TestDataLimitPerRank: the data limit applies to a rank's rows: one rank
// of n = 2·10⁷, d = 16 (3.2·10⁸ values) is refused before allocating,
// naming the ranks that would do.
func TestDataLimitPerRank(t *testing.T) {
	cfg := testConfig(20_000_000, 100)
	_, err := Prepare(mpi.Self(), cfg)
	if err == nil || !strings.Contains(err.Error(), "data too large") || !strings.Contains(err.Error(), "use at least 2 ranks") {
		t.Fatalf("Prepare: %v", err)
	}
}

// TestPinNoted: a run over ranks takes Config.Pin through the one
// Config → engine.Config conversion and says in summary.json that it does
// not pin its workers; not asked, its note is the engine's own, so that one
// rank's summary stays one process's.
func TestPinNoted(t *testing.T) {
	cfg := testConfig(3000, 10)
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, engineNote := run.Sim.Pinned()
	run.Close()
	for _, pin := range []bool{false, true} {
		cfg.Pin = pin
		r, err := Prepare(mpi.Self(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.ecfg.Pin != pin {
			t.Errorf("--pin %v: the engine's configuration has Pin %v", pin, r.ecfg.Pin)
		}
		ex := r.Summary(nil, 0, 0, nil).Execution
		switch {
		case ex.PinnedCPUs != nil:
			t.Errorf("--pin %v: pinned CPUs %v reported", pin, ex.PinnedCPUs)
		case !pin && ex.PinNote != engineNote:
			t.Errorf("not asked: note %q, the engine's %q", ex.PinNote, engineNote)
		case pin && !strings.Contains(ex.PinNote, "bind the ranks"):
			t.Errorf("asked: note %q", ex.PinNote)
		}
	}
}

// TestSummaryPrecisionWarning: a run over ranks builds its summary.json
// with one process's code (output.Summary.SetTrace), so a sampled
// measurement that missed the precision asked for is warned of there too.
func TestSummaryPrecisionWarning(t *testing.T) {
	r, err := Prepare(mpi.Self(), testConfig(3000, 10))
	if err != nil {
		t.Fatal(err)
	}
	rec := engine.Record{Iter: 10, ObjMean: 0.5, ObjStdErr: 0.05, MeasurePairs: 1 << 20,
		Measure: engine.MeasureMethods{Obj: problem.MethodSampled, AUC: problem.MethodSampled, Bias: problem.MethodSampled}}
	s := r.Summary([]engine.Record{rec}, 0, 0, nil)
	if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[len(s.Warnings)-1], "did not reach the relative standard error") {
		t.Fatalf("warnings %q", s.Warnings)
	}
	if s.Iter != 10 || s.ObjectiveMean != 0.5 || s.MeasureMode != problem.MethodSampled.String() {
		t.Fatalf("final values: iter %d, objective %v, mode %q", s.Iter, s.ObjectiveMean, s.MeasureMode)
	}
}

// TestOneRankMeasureCut: a signal during a measurement cuts it short (it
// no longer waits for the passes over every node): Execute returns
// context.Canceled at once, with a checkpoint whose trace lacks that
// measurement, and the resumed run takes it again and gives one process's
// uninterrupted trace and state, with the sampled measurement and with
// the exact methods (that their per-vector work stops is
// TestPerVectorStops's, and the pair sums' TestExactPairSumsStop's in
// package problem; here the cut measurement is dropped and taken again).
func TestOneRankMeasureCut(t *testing.T) {
	for _, tc := range []struct {
		measure string
		n       int
	}{{"sampled", 20000}, {"exact", 3000}} {
		t.Run(tc.measure, func(t *testing.T) {
			cfg := testConfig(tc.n, 3000)
			cfg.Measure = tc.measure
			oneRankMeasureCut(t, cfg)
		})
	}
}

func oneRankMeasureCut(t *testing.T, cfg pairgossip.Config) {
	wantTrace, _, wantState := singleProcess(t, cfg)
	r, ck, unlock := checkpointed(t, cfg, cfg.WithDefaults().EngineConfig().Network)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	at := r.sched[3]
	measureStarts = func(l *local) {
		if l.t == at {
			cancel()
			for !l.stop.Load() { // context.AfterFunc runs on its own goroutine
				runtime.Gosched()
			}
		}
	}
	defer func() { measureStarts = nil }()
	trace, err := r.Execute(ctx, nil)
	unlock()
	if !errors.Is(err, context.Canceled) || len(trace) != 3 || r.Iter() != at {
		t.Fatalf("Execute: %v, %d records, at iteration %d; want context.Canceled, 3 records, at %d", err, len(trace), r.Iter(), at)
	}
	if r.l.cuts == 0 {
		t.Fatal("no pass of the measurement was cut short")
	}
	measureStarts = nil
	r2, err := Prepare(mpi.Self(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	prior, err := r2.Resume(ck)
	if err != nil {
		t.Fatal(err)
	}
	if len(prior) != 3 || r2.Iter() != at {
		t.Fatalf("checkpoint: %d records at iteration %d, want 3 at %d", len(prior), r2.Iter(), at)
	}
	finishResumed(t, r2, wantTrace, wantState)
}

// finishResumed runs the resumed r to its end and checks its trace and
// final state against one process's uninterrupted run.
func finishResumed(t *testing.T, r *Run, wantTrace, wantState []byte) {
	t.Helper()
	trace, err := r.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := output.TraceCSV(trace); !bytes.Equal(got, wantTrace) {
		t.Fatalf("resumed trace differs\n got %s\nwant %s", got, wantTrace)
	}
	var st bytes.Buffer
	if err := r.WriteState(&st); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st.Bytes(), wantState) {
		t.Fatal("resumed final state differs")
	}
}

// checkpointed prepares cfg under m as one rank with a checkpoint file in a
// temporary folder, locked: the run, the file, and the unlock.
func checkpointed(t *testing.T, cfg pairgossip.Config, m network.Model) (*Run, string, func()) {
	t.Helper()
	ck := filepath.Join(t.TempDir(), "ckpt")
	r, err := PrepareModel(mpi.Self(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := r.LockCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	r.Checkpoint = ck
	return r, ck, unlock
}

// TestPerVectorStops: once local.stop is set, perVector runs no vector's
// per-vector work (the exact methods' sort or O(n₊n₋) pair sums, the
// pairwise bias) and counts each as a cut, while taking part in every
// collective; unset, it runs every vector's.
func TestPerVectorStops(t *testing.T) {
	r, err := Prepare(mpi.Self(), testConfig(500, 100))
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, r.l.P)
	const m = 5
	for _, stop := range []bool{true, false} {
		r.l.stop.Store(stop)
		r.l.cuts = 0
		ran := 0
		out, err := r.ms.perVector(m, 1, false, func(int) []float64 { return theta }, func(c int, all, res []float64) {
			ran++
			res[0] = float64(c + 1)
		})
		if err != nil || len(out) != m {
			t.Fatalf("stop %v: %v, %d values", stop, err, len(out))
		}
		if want := map[bool]int{true: 0, false: m}[stop]; ran != want || r.l.cuts != int64(m-want) {
			t.Errorf("stop %v: ran %d vectors and cut %d, want %d and %d", stop, ran, r.l.cuts, want, m-want)
		}
	}
}

// TestOneRankResumeOtherPaths: a checkpoint over ranks names the network's
// files by their contents (the data's path still counts: its rows are not
// hashed here): a churn file copied elsewhere resumes it to one process's
// uninterrupted run; a resume with another flag is refused naming it; a
// manifest written before (its identity with the paths) resumes with them.
func TestOneRankResumeOtherPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("3 10 400\n7 5 900\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := testConfig(2000, 3000)
	cfg.Churn = "file:" + write("a.txt")
	wantTrace, _, wantState := singleProcess(t, cfg)
	for _, legacy := range []bool{false, true} {
		r, ck, unlock := checkpointed(t, cfg, mustModel(t, cfg))
		if legacy {
			r.ident = r.identLegacy // as a manifest written before
			r.identConfig = nil
		}
		r.StopAt = 1200
		if _, err := r.Execute(context.Background(), nil); err != ErrStopped {
			t.Fatalf("Execute: %v, want ErrStopped", err)
		}
		unlock()
		resume := func(c pairgossip.Config) (*Run, error) {
			r, err := Prepare(mpi.Self(), c)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Resume(ck)
			return r, err
		}
		moved := cfg
		moved.Churn = "file:" + write("b.txt")
		if legacy {
			if _, err := resume(moved); err == nil {
				t.Error("a manifest written before, under another path: taken")
			}
			r2, err := resume(cfg)
			if err != nil {
				t.Fatalf("a manifest written before, with its paths: %v", err)
			}
			finishResumed(t, r2, wantTrace, wantState)
			continue
		}
		r2, err := resume(moved)
		if err != nil {
			t.Fatalf("the churn file under another path: %v", err)
		}
		finishResumed(t, r2, wantTrace, wantState)
		seed := cfg
		seed.Seed = 9
		if _, err := resume(seed); err == nil || !strings.Contains(err.Error(), "saved by a run with --seed 1; this run has --seed 9") {
			t.Errorf("another seed: %v", err)
		}
	}
}

func mustModel(t *testing.T, cfg pairgossip.Config) network.Model {
	t.Helper()
	return cfg.WithDefaults().EngineConfig().Network
}
