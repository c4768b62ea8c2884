package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// bySignal reports whether ctx, from signal.NotifyContext, was cancelled by
// one of its signals, not by its stop function: stop also runs when a panic
// unwinds the command (a deferred stop), and a panic must surface as
// itself, never as an interruption.
func bySignal(ctx context.Context) bool {
	return ctx.Err() != nil && context.Cause(ctx) != context.Canceled
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
