//go:build !linux

package engine

import "runtime"

// osYield yields the processor (the goroutine only, where the thread's
// CPU cannot be given away).
func osYield() { runtime.Gosched() }
