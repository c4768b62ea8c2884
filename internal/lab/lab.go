// Package lab holds the engine's benchmark probes: measurements of the
// engine's internals that are no part of its API, for cmd/bench and the
// benchmarks' tests only.
//
// The probes reach unexported state of package engine, and engine.Sim must
// not carry them as methods, so package engine sets these function
// variables in its init (engine imports lab; lab imports nothing of the
// engine, hence the sim arguments' type any: an *engine.Sim, or the probe
// returns an error naming what it got). A program that imports engine finds
// them set.
package lab

var (
	// MemoryCeiling runs events of the serial asynchronous gossip loop's
	// memory traffic with trivial arithmetic (the same edge stream, the
	// same prefetching by groups, and per event the lines the event kernel
	// touches, none of its arithmetic): its speed bounds the loop's at this
	// size. It writes junk into the state: the Sim is for nothing else
	// afterwards. It needs the fast path's serial loop (one worker, the
	// gossip estimator).
	MemoryCeiling func(sim any, events int64) error
	// MemoryCeilingWith is MemoryCeiling with another prefetching: every
	// group events, the lines the group ahead events further on touches
	// (group = ahead = 0: none).
	MemoryCeilingWith func(sim any, events int64, group, ahead int) error
	// AsyncPrefetch returns the serial asynchronous gossip loop's own
	// prefetching on a state that outgrows the caches (MemoryCeilingWith's
	// group and ahead).
	AsyncPrefetch func() (group, ahead int)
	// EigenCounts returns the PSD projections (eigendecompositions) a
	// metric-learning run did so far, and the rank-one eigen-updates done in
	// place of full ones (zero for the schedules that do none).
	EigenCounts func(sim any) (eigs, rankOne int64, err error)
	// AsyncLateDecide returns the parallel asynchronous executor's worker
	// count from which, under a network model, the workers that run the
	// events decide them (below it the serial window builder does), and
	// sets it to w when w > 0: the crossover is measured with it (bench
	// async --decide-from). Not safe while a run is being built.
	AsyncLateDecide func(w int) int
)
