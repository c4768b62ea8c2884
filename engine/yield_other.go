//go:build !linux

package engine

// osYield does nothing where the thread's CPU cannot be given away: the
// caller has already yielded the goroutine (runtime.Gosched).
func osYield() {}
