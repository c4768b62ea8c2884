package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/progress"
)

// runProgress is pairgossip run's status line (package progress) on stderr
// when it is a terminal, nothing otherwise: the set-up stage and its time,
// then the iterations done, the measurements taken, the last objective and
// the time left, then the centralized solve. A ticker redraws it every
// second, so the elapsed time moves on through a long set-up stage or a long
// measurement that report nothing.
type runProgress struct {
	line *progress.Line

	mu    sync.Mutex
	st    pairgossip.Progress
	phase time.Time // when the current phase began
	setup time.Time // when the set-up began
	exec  etaClock
	obj   float64 // the last objective measured
	hasOb bool
}

func newRunProgress(w io.Writer) *runProgress {
	p := &runProgress{line: progress.NewLine(w), setup: time.Now()}
	p.line.Every(time.Second, func() {
		p.mu.Lock()
		text := p.text(time.Now())
		p.mu.Unlock()
		if text != "" {
			p.line.Draw(text)
		}
	})
	return p
}

// update is the callback of PrepareWith and ExecuteWith.
func (p *runProgress) update(st pairgossip.Progress) {
	if !p.line.On() {
		return
	}
	now := time.Now()
	p.mu.Lock()
	changed := st.Phase != p.st.Phase
	if changed {
		p.phase = now
	}
	p.exec.update(st, now)
	p.st = st
	text := p.text(now)
	p.mu.Unlock()
	if changed {
		p.line.Draw(text)
	} else {
		p.line.DrawEvery(200*time.Millisecond, text)
	}
}

// record is the OnRecord callback: it keeps the objective for the line.
func (p *runProgress) record(r engine.Record) {
	p.mu.Lock()
	p.obj, p.hasOb = r.ObjMean, true
	p.mu.Unlock()
}

// clear erases the line before a message on stderr.
func (p *runProgress) clear() { p.line.Clear() }

func (p *runProgress) close() { p.line.Close() }

// text is the line for the state at now (p.mu held).
func (p *runProgress) text(now time.Time) string {
	st := p.st
	since := func(t time.Time) string { return now.Sub(t).Round(100 * time.Millisecond).String() }
	switch st.Phase {
	case "":
		return ""
	case pairgossip.PhaseData, pairgossip.PhaseProblem, pairgossip.PhaseGraph, pairgossip.PhaseEngine:
		return fmt.Sprintf("set-up: %s (%s, set-up %s)", stageText[st.Phase], since(p.phase), since(p.setup))
	case pairgossip.PhaseOptimum:
		return fmt.Sprintf("solving for the centralized optimum (%s)", since(p.phase))
	}
	s := fmt.Sprintf("%5.1f%%  iter %d/%d  measured %d/%d", 100*float64(st.Iter)/float64(max(st.Iters, 1)), st.Iter, st.Iters, st.Measured, st.Measures)
	if p.hasOb {
		s += fmt.Sprintf("  objective %.5g", p.obj)
	}
	if st.Phase == pairgossip.PhaseMeasure {
		s += fmt.Sprintf("  measuring (%s)", since(p.phase))
	}
	eta := "?"
	if d, ok := p.exec.eta(st, now); ok {
		eta = progress.FormatETA(d)
	}
	return s + "  ETA " + eta
}

var stageText = map[string]string{
	pairgossip.PhaseData:    "loading the data",
	pairgossip.PhaseProblem: "building the problem",
	pairgossip.PhaseGraph:   "building the graph",
	pairgossip.PhaseEngine:  "starting the engine",
}

// etaClock splits the time of a run between its rounds and its
// measurements, so that the time left counts both at their own rates:
// the rounds left at the rate of the rounds so far, and the measurements
// left at the mean time of the measurements so far. (An estimate by
// iterations alone is wrong at large n, where a measurement can take as
// long as thousands of rounds, and the log-spaced measurements are dense
// at the start.)
type etaClock struct {
	started   bool
	start     time.Time // the first rounds report
	iter0     int64     // the iteration then (a resumed run starts late)
	inMeasure bool
	mStart    time.Time     // the current measurement's start
	mTime     time.Duration // measurements finished since start
	mCount    int
}

func (c *etaClock) update(st pairgossip.Progress, now time.Time) {
	if st.Phase != pairgossip.PhaseRounds && st.Phase != pairgossip.PhaseMeasure {
		if c.inMeasure {
			c.mTime += now.Sub(c.mStart)
			c.mCount++
			c.inMeasure = false
		}
		return
	}
	if !c.started {
		c.started, c.start, c.iter0 = true, now, st.Iter
	}
	if c.inMeasure && st.Phase == pairgossip.PhaseRounds {
		c.mTime += now.Sub(c.mStart)
		c.mCount++
		c.inMeasure = false
	}
	if st.Phase == pairgossip.PhaseMeasure && !c.inMeasure {
		c.inMeasure, c.mStart = true, now
	}
}

// eta is the time left (ok false while there is nothing to go by).
func (c *etaClock) eta(st pairgossip.Progress, now time.Time) (time.Duration, bool) {
	if !c.started {
		return 0, false
	}
	mTime, mCount := c.mTime, c.mCount
	var current time.Duration
	if c.inMeasure {
		current = now.Sub(c.mStart)
	}
	rounds := now.Sub(c.start) - mTime - current
	done := st.Iter - c.iter0
	left := st.Iters - st.Iter
	var d time.Duration
	switch {
	case left == 0:
	case done > 0:
		d, _ = progress.ETA(rounds, float64(done), float64(done+left))
	default:
		return 0, false
	}
	measuresLeft := st.Measures - st.Measured
	if mCount > 0 && measuresLeft > 0 {
		mean := mTime / time.Duration(mCount)
		rest := float64(mean) * float64(measuresLeft)
		if c.inMeasure {
			rest -= float64(min(current, mean)) // the one under way is partly done
		}
		d = progress.Clamp(float64(d) + rest) // in float64: saturates instead of wrapping
	}
	return d, true
}
