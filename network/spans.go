package network

import (
	"math"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// Span returns whether node k is online at iteration t ≥ 1 and the first
// iteration end > t at which its state may change: node k keeps the state
// it has at t over t … end − 1 (math.MaxInt64: for ever). An executor that
// advances a node over many iterations at once (the reduced synchronous
// schedule) walks a node's sessions with it, O(1) a switch, instead of
// asking Online iteration by iteration.
//
// It moves node k's cursor as Online does and is safe for concurrent calls
// on different nodes. Unlike Online it also walks the cursor back when t is
// before the cursor's session (a session's start is its successor's start
// less its own length), so that asking about a block's first iteration
// after the draw asked about its last costs O(1) a session. For a session
// file, end is the next interval's start or the current one's end + 1 (two
// adjacent intervals give an end at which the state does not change).
func (nt *Net) Span(k int, t int64) (online bool, end int64) {
	if nt.churn == nil {
		return true, math.MaxInt64
	}
	return nt.churn.span(k, t)
}

func (ch *churn) span(k int, t int64) (bool, int64) {
	if ch.off != nil {
		on := ch.fileOnline(k, t)
		iv := ch.off[ch.offs[k]:ch.offs[k+1]]
		x := ch.fidx[k]
		switch {
		case !on:
			return false, iv[x][1] + 1
		case x < len(iv):
			return true, iv[x][0]
		}
		return true, math.MaxInt64
	}
	c := &ch.cur[k]
	on := ch.online(k, t)
	return on, c.next
}

// Pieces appends to dst the online pieces of node k within iterations lo …
// hi (1 ≤ lo ≤ hi), each as its first and last iteration, in order: the
// pieces a walk with Span cuts [lo, hi] into (TestPiecesAreOnline), in one
// call, so that the reduced schedule's walk of a node through a block
// makes one call, not one a session (bench/RESULTS.md, "Session draws").
// It moves node k's cursor as Span does and is safe for concurrent calls
// on different nodes.
func (nt *Net) Pieces(k int, lo, hi int64, dst []int64) []int64 {
	ch := nt.churn
	if ch == nil {
		return append(dst, lo, hi)
	}
	if ch.off != nil {
		for t := lo; t <= hi; {
			on, end := ch.span(k, t)
			e := min(end-1, hi)
			if on {
				dst = append(dst, t, e)
			}
			t = e + 1
		}
		return dst
	}
	ch.online(k, lo)
	c := &ch.cur[k]
	ka := rng.HashKeyA(ch.domKey, uint64(k))
	for {
		if c.st&1 != 0 {
			dst = append(dst, max(c.start, lo), min(c.next-1, hi))
		}
		if c.next > hi {
			return dst
		}
		ch.step(ka, c)
	}
}
