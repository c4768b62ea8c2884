package kernel

import (
	"fmt"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/hugepage"
)

// LatencyNs measures the latency of a dependent random read of memory: a
// pointer chase through the cache lines of a fresh array of the given
// size, each line holding the index of the next, in the order of one
// random cycle through them all (latencyCycle) (so every load misses the caches once the
// array outgrows them, and the next address is known only when the load
// returns). The array is advised into huge pages where the system allows
// (as the engine's large state is), so that the figure is the memory's
// and not the page walks'. It returns nanoseconds per load, the best of
// reps passes of steps loads each, after an untimed pass of steps loads.
// The cycle comes from a fixed seed. To measure main memory rather than
// cache, take bytes well above the last-level cache (e.g. 1 GiB). It
// panics if bytes holds fewer than 2 lines or steps or reps is below 1.
//
// The asynchronous gossip loop at 10⁶ nodes reads about 18 random lines an
// event (bench async); what it could reach is bounded by how many such
// loads a core keeps in flight: lines × latency / (ns per event).
func LatencyNs(bytes int64, steps, reps int) float64 {
	const line = 64
	lines := bytes / line
	if lines < 2 || steps < 1 || reps < 1 {
		panic(fmt.Sprintf("kernel.LatencyNs: bytes = %d (want ≥ 128), steps = %d and reps = %d must be positive", bytes, steps, reps))
	}
	if lines > 1<<32 {
		panic(fmt.Sprintf("kernel.LatencyNs: bytes = %d is over 256 GiB", bytes))
	}
	words := make([]uint32, lines*line/4)
	hugepage.Advise(words)
	const perLine = line / 4
	for k, next := range latencyCycle(lines) {
		words[int64(k)*perLine] = next
	}
	base := unsafe.Pointer(unsafe.SliceData(words))
	chase := func(p uint32, n int) uint32 {
		for range n {
			p = *(*uint32)(unsafe.Add(base, uintptr(p)*line))
		}
		return p
	}
	p := chase(0, steps)
	best := 0.0
	for r := range reps {
		t0 := time.Now()
		p = chase(p, steps)
		ns := float64(time.Since(t0).Nanoseconds()) / float64(steps)
		if r == 0 || ns < best {
			best = ns
		}
	}
	if p == ^uint32(0) { // keep the chase
		best++
	}
	return best
}

// latencyCycle returns next[k], the line after line k in one random cycle
// through all of them: the lines in a random order (a shuffle from a fixed
// seed), each linked to the one after it and the last to the first.
func latencyCycle(lines int64) []uint32 {
	perm := make([]uint32, lines)
	for i := range perm {
		perm[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	next := make([]uint32, lines)
	for i, k := range perm {
		next[k] = perm[(i+1)%len(perm)]
	}
	return next
}
