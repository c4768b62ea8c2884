// Package guard turns a panic of user code (an Objective's method, a
// callback) into an error: Capture records the panic where it happened —
// the value, the user function it happened in and an excerpt of the stack —
// so that a goroutine of the library can hand it to the caller's goroutine
// and the caller return it as an error, instead of the panic killing the
// process or leaving a worker pool waiting for a goroutine that died.
package guard

import (
	"fmt"
	"runtime"
	"strings"
)

// PanicError is a panic recovered by the library. Func is the user function
// the panic happened in: the function outside the library that the library
// called (the user's method, or for a problem.Pairwise the function in its
// field), found on the stack as the frame just inside the innermost frame of
// the library that has one of another package inside it; when there is none
// (a panic of the library's own code), the innermost frame.
// Stack is an excerpt of the panicking goroutine's stack, innermost first.
type PanicError struct {
	Func  string
	Value any
	Stack string
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic in %s: %v\n%s", e.Func, e.Value, e.Stack)
}

// Unwrap returns the panic value when it is an error (a runtime error, or
// an error a user function panicked with).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// libraryPrefix is the import path of this module's packages; the frames
// of the packages ours (and of their internal tests) are the library's.
const libraryPrefix = "github.com/pairgossip/pairgossip"

// library reports whether a function (by its qualified name) is the
// library's: a package of this module, not an example's main or an outside
// test package (pairgossip_test).
func library(fn string) bool {
	if !strings.HasPrefix(fn, libraryPrefix) {
		return false
	}
	rest := fn[len(libraryPrefix):]
	return strings.HasPrefix(rest, ".") || (strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "/examples/"))
}

// maxFrames bounds the frames kept in PanicError.Stack.
const maxFrames = 12

// Capture returns the PanicError of a value recovered by the caller's
// deferred function (recover()'s result, non-nil). It must be called from
// that deferred function, while the panicking frames are still on the
// stack. A value that is already a *PanicError (a panic handed over from
// another goroutine) is returned as it is.
func Capture(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var (
		b       strings.Builder
		kept    int
		user    string
		inner   string
		prev    string // the previous (inner) frame, when it is not the library's
		started bool
	)
	for {
		f, more := frames.Next()
		fn := f.Function
		// Skip the recovering frames: everything up to runtime.gopanic.
		if !started {
			if fn == "runtime.gopanic" {
				started = true
			}
			if !more {
				break
			}
			continue
		}
		if strings.HasPrefix(fn, "runtime.") {
			if !more {
				break
			}
			continue
		}
		if inner == "" {
			inner = fn
		}
		if lib := library(fn); user == "" && lib && prev != "" {
			user = prev
		} else if !lib {
			prev = fn
		} else {
			prev = ""
		}
		if kept < maxFrames {
			fmt.Fprintf(&b, "\t%s\n\t\t%s:%d\n", fn, f.File, f.Line)
			kept++
		}
		if !more {
			break
		}
	}
	if user == "" {
		user = inner
	}
	if user == "" {
		user = "an unknown function"
	}
	return &PanicError{Func: user, Value: v, Stack: strings.TrimRight(b.String(), "\n")}
}

// Recover is a deferred call that turns a panic into *err: defer
// guard.Recover(&err).
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = Capture(v)
	}
}
