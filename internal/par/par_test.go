package par

import (
	"sync/atomic"
	"testing"
)

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
