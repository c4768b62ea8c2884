package guard

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

//go:noinline
func outOfRange(s []float64, i int) float64 { return s[i] }

func run(f func()) (err error) {
	defer Recover(&err)
	f()
	return nil
}

// TestCapture: a runtime error is returned as a *PanicError naming the
// function it happened in (the innermost frame outside runtime), with the
// runtime error as its cause and the stack excerpt starting there.
func TestCapture(t *testing.T) {
	err := run(func() { outOfRange(make([]float64, 2), 5) })
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *PanicError", err)
	}
	var re runtime.Error
	if !errors.As(err, &re) {
		t.Errorf("the runtime error is not the cause: %v", err)
	}
	// Every frame here is the library's (this package): the innermost is named.
	if !strings.HasSuffix(pe.Func, "guard.outOfRange") {
		t.Errorf("Func %q, want guard.outOfRange", pe.Func)
	}
	if !strings.HasPrefix(pe.Stack, "\t"+pe.Func+"\n") || !strings.Contains(err.Error(), "index out of range [5] with length 2") {
		t.Errorf("message %q", err)
	}
	// A panic handed over from another goroutine keeps its origin.
	if again := Capture(pe); again != pe {
		t.Error("a *PanicError was captured again")
	}
	if err := run(func() {}); err != nil {
		t.Errorf("no panic: %v", err)
	}
}

func TestLibrary(t *testing.T) {
	for fn, want := range map[string]bool{
		"github.com/pairgossip/pairgossip/engine.(*genericExec).step":  true,
		"github.com/pairgossip/pairgossip.PrepareWith":                 true,
		"github.com/pairgossip/pairgossip_test.(*scratchLoss).Grad":    false,
		"github.com/pairgossip/pairgossip/examples/pairwise-squared.f": false,
		"example.com/outside.(*sq).Grad":                               false,
		"github.com/pairgossip/pairgossipx.F":                          false,
	} {
		if got := library(fn); got != want {
			t.Errorf("library(%q) = %v, want %v", fn, got, want)
		}
	}
}
