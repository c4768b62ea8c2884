package engine

import (
	"fmt"
	"time"
)

// Phase names a part of a run's time in a Profile.
type Phase int

// The phases. Serial and Parallel split an executor's time: the caller
// alone (drawing edges, the touched nodes in event order, the end of a
// round or block) and the passes over the nodes (crew.pass: on the pool's
// workers, or on the caller as one shard when handing them over would not
// pay). Every synchronous executor keeps them; the asynchronous ones keep
// neither. Setup, Pass, EventLoop, Independent and Tail break the reduced
// AUC schedule's blocks down (zero for the other schedules and for a small
// problem's blocks, which run as one loop): a block's phases follow one
// another, so that Setup + Pass + Independent + Tail is its time but for
// the end of block's few scalar operations.
const (
	PhaseSerial Phase = iota
	PhaseParallel
	// PhaseMeasure is the time in Sim.Measure.
	PhaseMeasure
	// PhaseSetup draws a block's edges, lists its touched nodes and finds
	// their first and last touches and the independent touches: serial.
	PhaseSetup
	// PhasePass is the pass over every record (the untouched nodes through
	// the whole block) and, with it, the touched nodes' advance to their
	// first touch and the event loop: on worker 0 while the other workers
	// take the untouched nodes when a pool runs the block, after the pass
	// on one worker.
	PhasePass
	// PhaseEventLoop is the part of PhasePass that worker 0 spends on the
	// touched nodes' advance and the touches in event order (the serial
	// work; it counts as PhaseSerial, not PhaseParallel).
	PhaseEventLoop
	// PhaseIndependent is the touches that are both endpoints' only one in
	// the block, which the workers run side by side (with a pool only).
	PhaseIndependent
	// PhaseTail is the touched nodes' advance from their last touch to the
	// block's end and their writes, the workers side by side.
	PhaseTail
	// NumPhases is the number of phases.
	NumPhases
)

var phaseNames = [NumPhases]string{"serial", "parallel", "measure", "setup", "pass", "event_loop", "independent_touches", "tail"}

func (p Phase) String() string {
	if p >= 0 && p < NumPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// PhaseTime is the time spent in a phase: wall time, and the calling
// thread's CPU time where the executor measures it (the reduced AUC
// schedule's pooled blocks, on Linux; zero elsewhere): unlike wall time,
// not inflated by other processes.
type PhaseTime struct {
	Wall, CPU time.Duration
}

// Profile is where a run's time went, by phase, with the reduced AUC
// schedule's touches: Touches counts them (a round's edge on its two
// endpoints) and ParallelTouches those the workers ran side by side
// instead of the serial event loop (the touches that are both endpoints'
// only one in their block, when the pool runs the block).
type Profile struct {
	Phases                   [NumPhases]PhaseTime
	Touches, ParallelTouches int64
}

// Wall returns the wall time of phase p.
func (p Profile) Wall(ph Phase) time.Duration { return p.Phases[ph].Wall }

// Sub returns p − q, phase by phase: the profile of what ran between two
// calls of Sim.Profile.
func (p Profile) Sub(q Profile) Profile {
	for i := range p.Phases {
		p.Phases[i].Wall -= q.Phases[i].Wall
		p.Phases[i].CPU -= q.Phases[i].CPU
	}
	p.Touches -= q.Touches
	p.ParallelTouches -= q.ParallelTouches
	return p
}

// stopwatch fills a run's Profile. An executor marks where its phases
// end: lap charges the time since the last mark to the phases named. While
// cpu is on (start(true): the caller has locked its goroutine to its
// thread) a mark also reads the thread's CPU time.
type stopwatch struct {
	prof    Profile
	last    time.Time
	lastCPU time.Duration
	cpu     bool
}

// start sets the first mark of an advance.
func (sw *stopwatch) start(cpu bool) {
	sw.cpu = cpu
	sw.last = time.Now()
	if cpu {
		sw.lastCPU, _ = threadCPU()
	}
}

// lap charges the time since the last mark to p and the phases in also,
// sets a new mark and returns the time charged.
func (sw *stopwatch) lap(p Phase, also ...Phase) PhaseTime {
	now := time.Now()
	d := PhaseTime{Wall: now.Sub(sw.last)}
	sw.last = now
	if sw.cpu {
		c, _ := threadCPU()
		d.CPU, sw.lastCPU = c-sw.lastCPU, c
	}
	sw.add(p, d)
	for _, q := range also {
		sw.add(q, d)
	}
	return d
}

// add charges d to p.
func (sw *stopwatch) add(p Phase, d PhaseTime) {
	sw.prof.Phases[p].Wall += d.Wall
	sw.prof.Phases[p].CPU += d.CPU
}
