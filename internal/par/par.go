// Package par runs independent loop iterations over a fixed number of
// goroutines with a static, deterministic partition. It is for measurement
// and set-up work; the simulation's hot loop uses the engine's long-lived
// worker pool instead.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pairgossip/pairgossip/internal/guard"
)

// A panic in body (user code: an Objective's Loss or Grad) on one of the
// goroutines For, Blocks and Chunks start would kill the process, however
// the caller recovers. Each goroutine recovers it instead
// (guard.Capture, which keeps the stack where it happened), the others run
// to their end, and the first panic is raised again on the calling
// goroutine as a *guard.PanicError, for the library's entry points to
// return as an error. With one goroutine body runs on the caller and a
// panic propagates as it is.

// firstPanic keeps the first panic of a parallel loop.
type firstPanic struct {
	once sync.Once
	pe   *guard.PanicError
}

// catch is deferred by each goroutine of a loop.
func (f *firstPanic) catch() {
	if v := recover(); v != nil {
		pe := guard.Capture(v)
		f.once.Do(func() { f.pe = pe })
	}
}

// raise panics on the caller with the loop's first panic, if any.
func (f *firstPanic) raise() {
	if f.pe != nil {
		panic(f.pe)
	}
}

// Workers returns w if w > 0, else GOMAXPROCS.
func Workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// For calls body(worker, i) for i in [0, n), splitting the range into at most
// workers contiguous blocks, one goroutine each. worker is in [0, workers)
// and identifies the block, so body can use per-worker scratch.
func For(n, workers int, body func(worker, i int)) {
	Blocks(n, workers, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			body(w, i)
		}
	})
}

// Blocks calls body(worker, lo, hi) once for each block [lo, hi) of a static
// partition of [0, n) into at most workers contiguous, non-empty blocks of
// near-equal size, one goroutine each (worker = block number, in order).
// With one worker (or n <= 1) it runs on the calling goroutine.
func Blocks(n, workers int, body func(worker, lo, hi int)) {
	workers = min(Workers(workers), n)
	if workers <= 1 {
		if n > 0 {
			body(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	var fp firstPanic
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fp.catch()
			body(w, lo, hi)
		}()
	}
	wg.Wait()
	fp.raise()
}

// Chunks calls body(lo, hi) for the consecutive chunks [lo, hi) of [0, n),
// each of length chunk (the last one shorter), on at most workers
// goroutines that take the chunks in turn from a shared counter, so that a
// slow core does not hold the others back. The chunks themselves depend
// only on n and chunk, never on workers: code that keys its work on the
// chunk bounds is deterministic whatever the worker count.
func Chunks(n, chunk, workers int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	chunk = max(chunk, 1)
	count := (n + chunk - 1) / chunk
	workers = min(Workers(workers), count)
	if workers <= 1 {
		for lo := 0; lo < n; lo += chunk {
			body(lo, min(lo+chunk, n))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var fp firstPanic
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fp.catch()
			for {
				c := int(next.Add(1) - 1)
				if c >= count {
					return
				}
				lo := c * chunk
				body(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	fp.raise()
}
