package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestResultsInListOrder: jobs that end in the reverse of their order still
// have their results at their own positions.
func TestResultsInListOrder(t *testing.T) {
	const n = 8
	var list []Job[int]
	for i := range n {
		list = append(list, Job[int]{Name: fmt.Sprint(i), Cost: 1, Run: func(ctx context.Context) (int, error) {
			time.Sleep(time.Duration(n-i) * 3 * time.Millisecond) // the first ends last
			return i * i, nil
		}})
	}
	var ends []int
	res, err := Run(context.Background(), list, Options[int]{Slots: n, OnEnd: func(p Progress, v int) {
		if v != p.Job*p.Job {
			t.Errorf("OnEnd of job %d got %d", p.Job, v)
		}
		ends = append(ends, p.Job)
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Value != i*i || r.Err != nil || !r.Started || r.Wall <= 0 {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if len(ends) != n || ends[0] == 0 {
		t.Errorf("jobs ended in the order %v; want every job, not in list order (the test sleeps in reverse)", ends)
	}
}

// TestStartOrder: one slot runs the jobs one after the other, in list order
// or longest first (ties in list order).
func TestStartOrder(t *testing.T) {
	costs := []float64{1, 5, 3, 5, 2}
	for _, c := range []struct {
		longest bool
		want    string
	}{{false, "[0 1 2 3 4]"}, {true, "[1 3 2 4 0]"}} {
		var list []Job[struct{}]
		for _, cost := range costs {
			list = append(list, Job[struct{}]{Cost: cost, Run: func(context.Context) (struct{}, error) { return struct{}{}, nil }})
		}
		var starts []int
		var running []int
		_, err := Run(context.Background(), list, Options[struct{}]{Slots: 1, LongestFirst: c.longest,
			OnStart: func(p Progress) { starts = append(starts, p.Job); running = append(running, p.Running) }})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(starts) != c.want {
			t.Errorf("LongestFirst %v: started %v, want %s", c.longest, starts, c.want)
		}
		for _, r := range running {
			if r != 1 {
				t.Errorf("one slot, yet %d jobs ran at once", r)
			}
		}
	}
}

// TestSlots: jobs occupy their slots; the sum over running jobs never
// exceeds Slots, a job wider than Slots takes them all, and MaxRunning
// bounds the count.
func TestSlots(t *testing.T) {
	for _, c := range []struct {
		slots, maxRunning int
		widths            []int
		wantPeak          int // the most slots in use at once
		wantPeakJobs      int // the most jobs running at once
	}{
		{4, 0, []int{1, 1, 1, 1, 1, 1, 1, 1}, 4, 4},
		{4, 2, []int{1, 1, 1, 1, 1, 1}, 2, 2},
		{4, 0, []int{3, 3, 3}, 3, 1},          // two of width 3 never fit in 4
		{3, 0, []int{8, 1, 1}, 3, 2},          // width 8 is clamped to the 3 slots; it runs alone
		{4, 0, []int{2, 0, 0, 2, 0, 0}, 4, 3}, // width 0 counts as 1; the second 2 waits its turn (no overtaking)
	} {
		var mu sync.Mutex
		inUse, jobs, peak, peakJobs := 0, 0, 0, 0
		var list []Job[struct{}]
		for _, w := range c.widths {
			eff := max(1, min(w, c.slots))
			list = append(list, Job[struct{}]{Slots: w, Run: func(context.Context) (struct{}, error) {
				mu.Lock()
				inUse += eff
				jobs++
				peak, peakJobs = max(peak, inUse), max(peakJobs, jobs)
				mu.Unlock()
				time.Sleep(30 * time.Millisecond)
				mu.Lock()
				inUse -= eff
				jobs--
				mu.Unlock()
				return struct{}{}, nil
			}})
		}
		if _, err := Run(context.Background(), list, Options[struct{}]{Slots: c.slots, MaxRunning: c.maxRunning}); err != nil {
			t.Fatal(err)
		}
		if peak > c.slots || peakJobs > max(c.maxRunning, 0) && c.maxRunning > 0 {
			t.Errorf("%+v: %d slots and %d jobs at once", c, peak, peakJobs)
		}
		// With 30 ms jobs all started at once where they fit, the peaks are reached.
		if peak != c.wantPeak || peakJobs != c.wantPeakJobs {
			t.Errorf("%+v: peak %d slots, %d jobs; want %d, %d", c, peak, peakJobs, c.wantPeak, c.wantPeakJobs)
		}
	}
}

// TestFirstErrorCancels: the first failure cancels the running jobs and
// starts no other; Run returns it as the job returned it.
func TestFirstErrorCancels(t *testing.T) {
	boom := errors.New("boom")
	var cancelled atomic.Int32
	var list []Job[int]
	// Jobs 0 and 1 wait for cancellation, job 2 fails, jobs 3.. never start.
	for i := range 10 {
		list = append(list, Job[int]{Name: fmt.Sprint(i), Cost: 1, Run: func(ctx context.Context) (int, error) {
			if i == 2 {
				time.Sleep(5 * time.Millisecond)
				return 0, boom
			}
			select {
			case <-ctx.Done():
				cancelled.Add(1)
				return 0, ctx.Err()
			case <-time.After(10 * time.Second):
				return i, nil
			}
		}})
	}
	t0 := time.Now()
	res, err := Run(context.Background(), list, Options[int]{Slots: 3, OnEnd: func(p Progress, _ int) {
		t.Errorf("job %d ended without error", p.Job)
	}})
	if err != boom {
		t.Fatalf("Run returned %v, want the job's error", err)
	}
	if time.Since(t0) > 5*time.Second || cancelled.Load() != 2 {
		t.Fatalf("the running jobs were not cancelled (%d cancelled, %v)", cancelled.Load(), time.Since(t0))
	}
	for i, r := range res {
		switch {
		case i < 2 && (!r.Started || !errors.Is(r.Err, context.Canceled)):
			t.Errorf("job %d: %+v, want started and cancelled", i, r)
		case i == 2 && r.Err != boom:
			t.Errorf("job 2: %+v", r)
		case i > 2 && r.Started:
			t.Errorf("job %d started after the failure", i)
		}
	}
}

// TestContextCancelled: cancelling the caller's context stops the jobs and
// Run returns its error; no job starts after it.
func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started atomic.Int32
	var list []Job[struct{}]
	for range 6 {
		list = append(list, Job[struct{}]{Run: func(ctx context.Context) (struct{}, error) {
			if started.Add(1) == 2 {
				cancel()
			}
			<-ctx.Done()
			return struct{}{}, ctx.Err()
		}})
	}
	res, err := Run(ctx, list, Options[struct{}]{Slots: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if started.Load() != 2 || !res[0].Started || !res[1].Started || res[2].Started {
		t.Fatalf("%d jobs started: %+v", started.Load(), res)
	}

	// Already cancelled: nothing starts, and an empty list returns at once.
	res, err = Run(ctx, list, Options[struct{}]{})
	if !errors.Is(err, context.Canceled) || res[0].Started {
		t.Fatalf("cancelled before the start: %v %+v", err, res)
	}
	if res, err := Run(context.Background(), []Job[struct{}]{}, Options[struct{}]{}); err != nil || len(res) != 0 {
		t.Fatalf("no jobs: %v %v", res, err)
	}
}

// TestProgress: the counts, costs, fraction and ETA the callbacks see.
func TestProgress(t *testing.T) {
	costs := []float64{1, 2, 3, 4}
	var list []Job[float64]
	for i, c := range costs {
		list = append(list, Job[float64]{Name: fmt.Sprintf("job %d", i), Cost: c, Run: func(context.Context) (float64, error) {
			time.Sleep(time.Millisecond)
			return c, nil
		}})
	}
	var starts, ends []Progress
	_, err := Run(context.Background(), list, Options[float64]{Slots: 1,
		OnStart: func(p Progress) { starts = append(starts, p) },
		OnEnd:   func(p Progress, _ float64) { ends = append(ends, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 4 || len(ends) != 4 {
		t.Fatalf("%d starts, %d ends", len(starts), len(ends))
	}
	doneCost := 0.0
	for i, p := range ends {
		doneCost += costs[i]
		if p.Job != i || p.Name != fmt.Sprintf("job %d", i) || p.Done != i+1 || p.Total != 4 || p.Running != 0 ||
			p.DoneCost != doneCost || p.TotalCost != 10 || p.Fraction() != doneCost/10 {
			t.Errorf("end %d: %+v", i, p)
		}
		eta, ok := p.ETA()
		want := time.Duration(float64(p.Elapsed) * (10 - doneCost) / doneCost)
		if !ok || eta != want {
			t.Errorf("end %d: ETA %v %v, want %v", i, eta, ok, want)
		}
		if starts[i].Done != i || starts[i].Running != 1 || starts[i].Job != i {
			t.Errorf("start %d: %+v", i, starts[i])
		}
	}
	if _, ok := starts[0].ETA(); ok {
		t.Error("an ETA before anything ended")
	}
	if (Progress{}).Fraction() != 1 {
		t.Error("no cost at all: the fraction is not 1")
	}
}
