package network

import "github.com/pairgossip/pairgossip/internal/rng"

// OnlineSum returns node k's online iterations within lo … hi (1 ≤ lo ≤
// hi), Σ prefix[b−lo+1] − prefix[a−lo] over its online pieces [a, b], added
// up in their order from 0, and its last online iteration less lo − 1 (0:
// none): what a loop over Pieces' pieces gives, bit for bit
// (TestOnlineSumIsPieces). prefix has at least hi − lo + 2 entries,
// prefix[0] the one before lo: the prefix sums of a weight per iteration,
// sum the node's weight over its online iterations (the reduced schedule's
// Σ c_r over a quiet node's online rounds).
//
// It moves node k's cursor as Pieces does and is safe for concurrent calls
// on different nodes. It is Pieces' walk without the pieces: a node that
// does not contribute costs the reduced schedule its walk and its θ̄, and
// on a run's first rounds nearly every node is such a one (bench/RESULTS.md,
// "The churn walk in one piece").
func (nt *Net) OnlineSum(k int, lo, hi int64, prefix []float64) (on int64, sum float64, last int64) {
	ch := nt.churn
	base := lo - 1
	_ = prefix[hi-base]
	if ch == nil {
		sum += prefix[hi-base] - prefix[0]
		return hi - base, sum, hi - base
	}
	if ch.off != nil {
		for t := lo; t <= hi; {
			up, end := ch.span(k, t)
			e := min(end-1, hi)
			if up {
				a, b := t-base, e-base
				sum += prefix[b] - prefix[a-1]
				on += b - a + 1
				last = b
			}
			t = e + 1
		}
		return on, sum, last
	}
	c := &ch.cur[k]
	if c.start == 0 || lo < c.start || c.next <= lo {
		ch.online(k, lo)
	}
	ka := rng.HashKeyA(ch.domKey, uint64(k))
	a := int64(1)
	for {
		b := min(c.next-1, hi) - base
		if c.st&1 != 0 {
			sum += prefix[b] - prefix[a-1]
			on += b - a + 1
			last = b
		}
		if c.next > hi {
			return on, sum, last
		}
		ch.step(ka, c)
		a = c.start - base
	}
}
