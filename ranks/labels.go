package ranks

import (
	"math/bits"
	"sort"

	"github.com/pairgossip/pairgossip/mpi"
)

// labels is every node's AUC label as one bit (1: positive), known to
// every rank (n/8 bytes: 5 MB at n = 4·10⁷), with counts of positives per
// superblock of 8 words, so that the h-th positive or negative in index
// order — what the sampled measurement draws (problem.Problem's pos and
// neg lists) — is found without a list of n indices.
type labels struct {
	n     int
	words []uint64
	super []int64 // positives before superblock s (8 words each)
	npos  int
}

// gatherLabels builds labels from each rank's own labels (±1), the ranks'
// nodes being whole words (partition).
func gatherLabels(c mpi.Comm, n int, own []int32) (labels, error) {
	nw := (n + 63) / 64
	mine := make([]int64, (len(own)+63)/64)
	for i, v := range own {
		if v == 1 {
			mine[i/64] |= 1 << (i % 64)
		}
	}
	counts := make([]int, c.Size())
	for r := range counts {
		lo, hi := partition(n, c.Size(), r)
		counts[r] = (hi - lo + 63) / 64
	}
	all := make([]int64, nw)
	if err := c.AllgathervInt64(mine, counts, all); err != nil {
		return labels{}, err
	}
	lb := labels{n: n, words: make([]uint64, nw), super: make([]int64, nw/8+2)}
	var ones int64
	for w, v := range all {
		if w%8 == 0 {
			lb.super[w/8] = ones
		}
		lb.words[w] = uint64(v)
		ones += int64(bits.OnesCount64(uint64(v)))
	}
	lb.super[len(lb.super)-1] = ones
	lb.npos = int(ones)
	return lb, nil
}

// at returns node k's label, ±1.
func (lb *labels) at(k int) int32 {
	if lb.words[k/64]>>(k%64)&1 == 1 {
		return 1
	}
	return -1
}

// selectIdx returns the index of the h-th (0-based) positive node (pos)
// or negative node (!pos), in index order.
func (lb *labels) selectIdx(h int, pos bool) int {
	count := func(w int) int { // positives (or negatives) before word w
		s := w / 8
		c := int(lb.super[s])
		for x := s * 8; x < w; x++ {
			c += bits.OnesCount64(lb.words[x])
		}
		if pos {
			return c
		}
		return w*64 - c
	}
	// The last word w with count(w) <= h holds it.
	w := sort.Search(len(lb.words), func(w int) bool { return count(w) > h }) - 1
	rem := h - count(w)
	v := lb.words[w]
	if !pos {
		v = ^v
		if tail := lb.n - w*64; tail < 64 {
			v &= 1<<tail - 1
		}
	}
	for ; rem > 0; rem-- {
		v &= v - 1
	}
	return w*64 + bits.TrailingZeros64(v)
}
