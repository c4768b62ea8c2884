package pairgossip

import (
	"errors"
	"strings"

	"github.com/pairgossip/pairgossip/network"
)

// edgeRecorder is the engine's EdgeSink behind Config.WriteEdges
// (--write-edges): every activation of the run, as `t i j` lines, written
// through network.CreateStream (a temporary file in the target's folder,
// renamed to it when the run ends well, so that a reader never sees a
// partial stream under its name) with network.StreamHeader's header (the
// seed and the model). A stream is written by one run from its start: a
// resumed run refuses to write one (ExecuteWith).
type edgeRecorder struct {
	path, header string
	w            *network.StreamWriter
}

// Edge implements engine.EdgeSink.
func (e *edgeRecorder) Edge(t int64, i, j int) error {
	if e.w == nil {
		return &writeEdgesError{errors.New("the stream is written by Run.Execute and Run.ExecuteWith, from the run's first iteration; an iteration run outside them (engine.Sim.Advance) is not recorded")}
	}
	return e.w.Write(t, i, j)
}

func (e *edgeRecorder) start() error {
	w, err := network.CreateStream(e.path, e.header)
	if err != nil {
		return &writeEdgesError{err}
	}
	e.w = w
	return nil
}

func (e *edgeRecorder) finish() error {
	if e.w == nil {
		return nil
	}
	w := e.w
	e.w = nil
	if err := w.Close(); err != nil {
		return &writeEdgesError{err}
	}
	return nil
}

func (e *edgeRecorder) abort() {
	if e.w != nil {
		e.w.Abort()
		e.w = nil
	}
}

// writeEdgesError names the flag of a stream that cannot be written.
type writeEdgesError struct{ err error }

func (e *writeEdgesError) Error() string {
	// network's errors name the flag already: named once, as the field
	// (the command line's message names the flag for it).
	return "Config.WriteEdges: " + strings.TrimPrefix(e.err.Error(), "--write-edges: ")
}
func (e *writeEdgesError) Unwrap() error { return e.err }
