package par

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pairgossip/pairgossip/internal/guard"
)

func TestBlocksCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		for _, w := range []int{1, 2, 3, 8, 200} {
			hits := make([]atomic.Int32, n)
			blocks := make([][2]int, min(w, max(n, 1)))
			var calls atomic.Int32
			Blocks(n, w, func(worker, lo, hi int) {
				calls.Add(1)
				if lo >= hi {
					t.Errorf("n=%d w=%d: empty block [%d, %d)", n, w, lo, hi)
				}
				blocks[worker] = [2]int{lo, hi}
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
			})
			for i := range hits {
				if hits[i].Load() != 1 {
					t.Fatalf("n=%d w=%d: index %d covered %d times", n, w, i, hits[i].Load())
				}
			}
			if want := min(w, n); int(calls.Load()) != want {
				t.Errorf("n=%d w=%d: %d blocks, want %d", n, w, calls.Load(), want)
			}
			for k := 1; k < int(calls.Load()); k++ {
				if blocks[k][0] != blocks[k-1][1] {
					t.Errorf("n=%d w=%d: block %d starts at %d, the previous ends at %d", n, w, k, blocks[k][0], blocks[k-1][1])
				}
			}
		}
	}
}

func TestChunksCoversEachIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, chunk, workers int }{
		{0, 4, 2}, {1, 4, 2}, {10, 3, 1}, {10, 3, 4}, {1000, 64, 8}, {1000, 1, 3}, {7, 0, 2},
	} {
		hits := make([]atomic.Int32, c.n)
		var bad atomic.Bool
		Chunks(c.n, c.chunk, c.workers, func(lo, hi int) {
			if lo%max(c.chunk, 1) != 0 || hi-lo > max(c.chunk, 1) || (hi != c.n && hi-lo != max(c.chunk, 1)) {
				bad.Store(true)
			}
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
		})
		if bad.Load() {
			t.Errorf("%+v: a chunk other than [c·chunk, min((c+1)·chunk, n))", c)
		}
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("%+v: index %d visited %d times", c, i, hits[i].Load())
			}
		}
	}
}

// TestPanicReachesCaller: a panic in one goroutine of a loop does not kill
// the process; the other goroutines finish and the caller sees the panic as
// a *guard.PanicError naming the function it happened in.
func TestPanicReachesCaller(t *testing.T) {
	for _, loop := range []string{"blocks", "chunks"} {
		var done atomic.Int32
		func() {
			defer func() {
				pe, ok := recover().(*guard.PanicError)
				if !ok || !strings.Contains(pe.Error(), "index out of range") {
					t.Errorf("%s: recovered %v, want a *guard.PanicError", loop, pe)
				}
			}()
			body := func(i int) {
				if i == 3 {
					var s []int
					_ = s[i]
				}
				done.Add(1)
			}
			if loop == "blocks" {
				For(8, 4, func(_, i int) { body(i) })
			} else {
				Chunks(8, 1, 4, func(lo, _ int) { body(lo) })
			}
			t.Errorf("%s: no panic", loop)
		}()
		if done.Load() < 6 { // blocks: 3's block stops at 3 (2 and 3 of [2, 4) lost at most)
			t.Errorf("%s: %d iterations ran", loop, done.Load())
		}
	}
}
