package engine

import (
	"sync"

	"github.com/pairgossip/pairgossip/layout"
)

// pool is a fixed set of long-lived workers, one shard of rows each. run
// hands every worker the same round function and returns when all shards are
// done; the caller's goroutine works shard 0 itself, so a round costs one
// channel send and one WaitGroup signal per extra worker.
type pool struct {
	shards []layout.Range
	start  []chan func(w int, r layout.Range)
	wg     sync.WaitGroup
	runs   int64 // calls of run (read by tests: did the pool engage?)
}

// newPool starts one worker per shard (the caller is worker 0).
func newPool(shards []layout.Range) *pool {
	p := &pool{shards: shards}
	p.start = make([]chan func(int, layout.Range), len(p.shards))
	for w := 1; w < len(p.shards); w++ {
		ch := make(chan func(int, layout.Range))
		p.start[w] = ch
		go func() {
			for fn := range ch {
				fn(w, p.shards[w])
				p.wg.Done()
			}
		}()
	}
	return p
}

// size is the number of workers.
func (p *pool) size() int { return len(p.shards) }

// run executes fn on every shard in parallel.
func (p *pool) run(fn func(w int, r layout.Range)) {
	p.runs++
	p.wg.Add(len(p.shards) - 1)
	for w := 1; w < len(p.shards); w++ {
		p.start[w] <- fn
	}
	fn(0, p.shards[0])
	p.wg.Wait()
}

// close stops the workers.
func (p *pool) close() {
	for w := 1; w < len(p.start); w++ {
		close(p.start[w])
	}
}
