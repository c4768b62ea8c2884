package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/problem"
)

// TestCheckSchedule: the check schedule holds the log points, ends at T and
// never lets two consecutive measured iterations differ by more than
// StopCheckRatio (or by one).
func TestCheckSchedule(t *testing.T) {
	for _, T := range []int64{1, 2, 7, 100, 12345, 3300000} {
		for _, pts := range []int{1, 5, 30} {
			s := CheckSchedule(T, pts)
			if s[0] != 1 || s[len(s)-1] != T {
				t.Fatalf("T=%d: schedule %v..%v", T, s[0], s[len(s)-1])
			}
			for i := 1; i < len(s); i++ {
				if s[i] <= s[i-1] {
					t.Fatalf("T=%d: not ascending at %d", T, i)
				}
				if s[i] > s[i-1]+1 && float64(s[i]) > StopCheckRatio*float64(s[i-1]) {
					t.Fatalf("T=%d: %d after %d: ratio above %g", T, s[i], s[i-1], StopCheckRatio)
				}
			}
			for _, v := range LogSchedule(T, pts) {
				if !slices.Contains(s, v) {
					t.Fatalf("T=%d: log point %d missing", T, v)
				}
			}
			if T == 3300000 && len(s) > 200 {
				t.Fatalf("%d checks at T=%d", len(s), T)
			}
		}
	}
}

func stopSim(t testing.TB, algo Algorithm, iters int64, workers int, checks bool) *Sim {
	return stopSimSched(t, algo, iters, workers, checks, ScheduleAuto)
}

func stopSimSched(t testing.TB, algo Algorithm, iters int64, workers int, checks bool, sch Schedule) *Sim {
	t.Helper()
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 40, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.3, Seed: 1})
	s, err := New(p, g, Config{Algorithm: algo, Iters: iters, GammaC: 1, Seed: 4, LogPoints: 8, Workers: workers, StopChecks: checks, Schedule: sch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestStopChecksKeepState: the extra measurements change the trace, never
// the state reached at T where the schedule's bits do not depend on where a
// run pauses (plain, the asynchronous and centralized executors); the
// reduced schedule's blocks end at the measured iterations, so there the
// extra measurements move its rounding (as --log-points does), to 1e-12.
func TestStopChecksKeepState(t *testing.T) {
	a, b := stopSimSched(t, Sync, 3000, 1, false, ScheduleReduced), stopSimSched(t, Sync, 3000, 1, true, ScheduleReduced)
	ta, _ := a.Run(context.Background(), nil)
	tb, _ := b.Run(context.Background(), nil)
	if x, y := ta[len(ta)-1].ObjMean, tb[len(tb)-1].ObjMean; math.Abs(x-y) > 1e-12*math.Abs(x) {
		t.Fatalf("reduced: objective %v with checks, %v without", y, x)
	}
	for _, algo := range []Algorithm{Sync, Async, Centralized} {
		sch := ScheduleAuto
		if algo == Sync {
			sch = SchedulePlain
		}
		a, b := stopSimSched(t, algo, 3000, 1, false, sch), stopSimSched(t, algo, 3000, 1, true, sch)
		ta, _ := a.Run(context.Background(), nil)
		tb, _ := b.Run(context.Background(), nil)
		if len(tb) <= len(ta) {
			t.Fatalf("%s: %d records with checks, %d without", algo, len(tb), len(ta))
		}
		if a.StateChecksum() != b.StateChecksum() {
			t.Fatalf("%s: the checks changed the state", algo)
		}
	}
}

// TestStopAtRecord: Stop ends the run at the first record it accepts (the
// trace's last), for 1 and 2 workers alike, and a run resumed from a
// checkpoint taken before the stop, or at it, stops at the same iteration
// with the same bits.
func TestStopAtRecord(t *testing.T) {
	for _, algo := range []Algorithm{Sync, Async} {
		// The target: the objective of the measurement at the middle of
		// the schedule of a full run.
		full := stopSim(t, algo, 4000, 1, true)
		ft, err := full.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		target := ft[len(ft)/2].ObjMean
		first := slices.IndexFunc(ft, func(r Record) bool { return r.ObjMean <= target })
		stop := func(r Record) bool { return r.ObjMean <= target }
		var sums [][32]byte
		var want []Record
		for _, w := range []int{1, 2} {
			s := stopSim(t, algo, 4000, w, true)
			tr, err := s.RunWith(context.Background(), RunOptions{Stop: stop}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr) != first+1 || tr[len(tr)-1].Iter != ft[first].Iter || s.Iter() != ft[first].Iter {
				t.Fatalf("%s, %d workers: stopped at %d (%d records), want %d (%d)", algo, w, s.Iter(), len(tr), ft[first].Iter, first+1)
			}
			if want == nil {
				want = tr
			} else if !slices.EqualFunc(tr, want, sameRecord) {
				t.Fatalf("%s: traces differ with %d workers", algo, w)
			}
			sums = append(sums, s.StateChecksum())
		}
		if sums[0] != sums[1] {
			t.Fatalf("%s: states differ across worker counts", algo)
		}
		// Interrupt before the stop, checkpoint, resume.
		for _, cut := range []int64{ft[first/2].Iter, ft[first].Iter} {
			a := stopSim(t, algo, 4000, 1, true)
			ctx, cancel := context.WithCancel(context.Background())
			tr, err := a.RunWith(ctx, RunOptions{Stop: stop, OnRecord: func(r Record) {
				if r.Iter >= cut {
					cancel()
				}
			}}, nil)
			cancel()
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := a.WriteCheckpoint(&buf, []byte("id"), tr); err != nil {
				t.Fatal(err)
			}
			b := stopSim(t, algo, 4000, 2, true)
			tr, err = b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
			if err != nil {
				t.Fatal(err)
			}
			tr, err = b.RunWith(context.Background(), RunOptions{Stop: stop}, tr)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(tr, want, sameRecord) || b.StateChecksum() != sums[0] {
				t.Fatalf("%s: resumed at %d: stopped at %d, want %d, or other bits", algo, cut, b.Iter(), want[len(want)-1].Iter)
			}
		}
	}
}
