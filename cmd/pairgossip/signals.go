package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals that stop a command: SIGINT (Ctrl-C),
// SIGTERM (sent by SLURM's scancel and at a job's time limit, by mpirun to
// every rank when one dies, by kill) and SIGHUP (a closed terminal), all
// handled alike: the command stops at its next check, saves its checkpoint
// and writes what it has.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// caught is the last stop signal a command's context received (nil: none
// since the command began), read by realMain for the exit status.
var caught atomic.Value // of signalCause

// signalCause is the cause of a context cancelled by a stop signal.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return c.sig.String() + " signal received" }

// notifyContext is signal.NotifyContext over stopSignals, whose cause
// (context.Cause) names the signal, so that the exit status can say which
// one stopped the command (interruptStatus).
func notifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	caught.Store(signalCause{})
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			caught.Store(signalCause{s})
			cancel(signalCause{s})
		case <-done:
		}
	}()
	var once atomic.Bool
	return ctx, func() {
		if once.CompareAndSwap(false, true) {
			signal.Stop(ch)
			close(done)
		}
		cancel(nil)
	}
}

// bySignal reports whether ctx, from notifyContext (or
// signal.NotifyContext), was cancelled by one of its signals, not by its
// stop function: stop also runs when a panic unwinds the command (a
// deferred stop), and a panic must surface as itself, never as an
// interruption.
func bySignal(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) != context.Canceled
}

// interruptStatus is the exit status of a command a signal stopped: 128
// plus the signal's number, as a shell reports a process that signal
// ended — 130 for SIGINT (Ctrl-C), 143 for SIGTERM, 129 for SIGHUP — so
// that a batch system or a script can tell a cancelled job from a user's
// Ctrl-C. A command that stopped because of a signal it did not receive
// itself (an MPI rank that agreed to stop with a signalled one) exits 130.
func interruptStatus() int {
	c, _ := caught.Load().(signalCause)
	if s, ok := c.sig.(syscall.Signal); ok && s > 0 && s < 64 {
		return 128 + int(s)
	}
	return 130
}

// internalError is the exit status of a panic recovered in a command: the
// run failed, because of a bug in the program.
const internalError = 1

// guard runs cmd and turns a panic in its goroutine into a report on
// stderr, the panic's value and the stack, "internal error" named, and
// exit status internalError: never 130 and never "interrupted", whatever
// the deferred calls the panic ran (they cancel the commands' signal
// contexts).
func guard(stderr io.Writer, name string, cmd func() error) (err error, code int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "pairgossip %s: internal error (a bug; please report it with the command line): panic: %v\n\n%s", name, v, debug.Stack())
			err, code = nil, internalError
		}
	}()
	return cmd(), -1
}
