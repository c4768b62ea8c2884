package graph

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Partial draws a random graph one share at a time: the share of [lo, hi)
// is the edges whose lower end lies in [lo, hi), in the order of
// Graph.Edges, so that the shares of a partition of [0, n) laid end to end
// are the edge list Build returns (same edges, same order) — without any
// share drawing the whole graph. It is what an MPI rank holding the nodes
// [lo, hi) builds (package dist), for the counter-based generators: Watts–
// Strogatz and Erdős–Rényi (p < 1) from n = 131072 on.
//
// Connectivity, which decides Build's redraws, is a property of the whole
// graph: the caller checks each attempt t = 0, 1, … over its shares and
// takes the first connected one (Build's graph, with Tries = t + 1), up to
// MaxTries; NoneConnected is Build's error when none is.
type Partial struct {
	Name, Kind string
	N          int
	half       int
	k          int
	p          float64
	seed       uint64
}

// NewPartial returns the share generator of spec, or nil when spec's graph
// is not drawn in shares (the other kinds; Watts–Strogatz and Erdős–Rényi
// below 131072 nodes, which draw from one sequential stream; Erdős–Rényi
// with p = 1): build that one whole with Build. Invalid parameters give
// Build's errors.
func NewPartial(spec Spec) (*Partial, error) {
	kind := strings.ToLower(strings.TrimSpace(spec.Kind))
	p := &Partial{Kind: kind, N: spec.N, k: spec.K, p: spec.P, seed: spec.Seed}
	var err error
	switch kind {
	case "watts-strogatz":
		p.Name, p.half, err = wattsStrogatzCheck(spec.N, spec.K, spec.P, spec.Seed)
	case "erdos-renyi":
		p.Name, err = erdosRenyiCheck(spec.N, spec.P, spec.Seed)
		if err == nil && spec.P == 1 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if spec.N < largeN {
		return nil, nil
	}
	return p, nil
}

// NoneConnected is Build's error when none of the MaxTries draws is
// connected.
func (p *Partial) NoneConnected() error {
	if p.Kind == "watts-strogatz" {
		return wattsStrogatzNone(p.N, p.k, p.p)
	}
	return erdosRenyiNone(p.N, p.p)
}

// Draw returns the edges of attempt t (0-based) whose lower end lies in
// [lo, hi), in the order of Graph.Edges. A Watts–Strogatz share needs the
// lattice edges of the other shares that lose their round-0 target (a
// handful): gather is called once with this share's and must return the
// concatenation of every share's list (an MPI Allgatherv over ranks whose
// ranges partition [0, n); in any order), and Draw must then be called for
// the same t by every share. One process drawing [0, n) passes a gather
// that returns its argument.
//
// A share's work: Watts–Strogatz hashes every lattice edge (n·⌊k/2⌋ bits
// and the targets of the rewired ones, to find those landing on its nodes),
// which is O(n·k) time but only three bits a lattice edge (rewired, lost
// in round 0, kept after all: 3·n·⌊k/2⌋/8 bytes) beyond its share; Erdős–
// Rényi scans the rows v > lo (the share of the smallest nodes scans
// nearly all), keeping only its pairs.
func (p *Partial) Draw(t, lo, hi int, gather func([]int64) ([]int64, error)) ([][2]int32, error) {
	if lo < 0 || hi > p.N || lo > hi {
		return nil, fmt.Errorf("graph: %s: share [%d, %d) outside [0, %d)", p.Name, lo, hi, p.N)
	}
	if p.Kind == "watts-strogatz" {
		return wattsStrogatzShare(p.N, p.half, p.p, attemptKey(p.seed, streamWattsStrogatz, t), lo, hi, gather)
	}
	lists := erdosRenyiLarge(p.N, p.p, attemptKey(p.seed, streamErdosRenyi, t), lo, hi)
	// The pairs come in order of (v, w): a stable counting sort by w gives
	// the order of (w, v).
	cnt := make([]int, hi-lo+1)
	for _, l := range lists {
		for _, e := range l {
			cnt[int(e[0])-lo+1]++
		}
	}
	for k := range hi - lo {
		cnt[k+1] += cnt[k]
	}
	edges := make([][2]int32, cnt[hi-lo])
	for b, l := range lists {
		for _, e := range l {
			edges[cnt[int(e[0])-lo]] = e
			cnt[int(e[0])-lo]++
		}
		lists[b] = nil
	}
	return edges, nil
}

// wattsStrogatzShare is wattsStrogatzLarge's edge list restricted to the
// edges whose lower end lies in [lo, hi) (see Partial.Draw).
func wattsStrogatzShare(n, half int, p float64, key uint64, lo, hi int, gather func([]int64) ([]int64, error)) ([][2]int32, error) {
	m := n * half
	words := (m + 63) / 64
	d := &wsDraw{n: n, half: half, m: m, targets: n - 1 - 2*half, key: key,
		rew: make([]uint64, words), lost: make([]uint64, words), back: make([]uint64, words)}
	if d.targets > 0 && p > 0 {
		forChunks(m, chunk, func(a, b int) {
			for idx := a; idx < b; idx++ {
				if unitFloat(itemHash(key, idx)) < p {
					d.rew[idx>>6] |= 1 << (idx & 63)
				}
			}
		})
	}
	// Round 0's losers among the lattice edges of this share's sources,
	// then every share's, resolved in index order as one process does.
	nl := hi - lo
	span := nl * half
	found := make([][]int64, (span+chunk-1)/chunk)
	forChunks(span, chunk, func(a, b int) {
		var lost []int64
		for i := a; i < b; i++ {
			u := lo + i%max(nl, 1)
			idx := (i/max(nl, 1))*n + u
			if bit(d.rew, idx) && d.firstClaim(u, d.target(idx, u, 0), idx) < idx {
				lost = append(lost, int64(idx))
			}
		}
		found[a/chunk] = lost
	})
	all, err := gather(slices.Concat(found...))
	if err != nil {
		return nil, err
	}
	slices.Sort(all)
	losers := make([]int32, len(all))
	for i, x := range all {
		losers[i] = int32(x)
	}
	d.resolve(losers, func(u, w int) {})
	// The rewired edges (u, w) from any source that land on this share's
	// nodes from above (w in [lo, hi), u > w).
	nChunks := (m + chunk - 1) / chunk
	incoming := make([][][2]int32, nChunks)
	forChunks(m, chunk, func(a, b int) {
		var in [][2]int32
		for wi := a >> 6; wi<<6 < b; wi++ {
			for word := d.rew[wi] &^ d.back[wi]; word != 0; word &= word - 1 {
				idx := wi<<6 + bits.TrailingZeros64(word)
				u := idx % n
				var w int
				if bit(d.lost, idx) {
					w = d.move(idx)
				} else {
					w = d.target(idx, u, 0)
				}
				if w >= lo && w < hi && u > w {
					in = append(in, [2]int32{int32(w), int32(u)})
				}
			}
		}
		incoming[a/chunk] = in
	})
	inStart := make([]int, nl+1)
	for _, l := range incoming {
		for _, e := range l {
			inStart[int(e[0])-lo+1]++
		}
	}
	for k := range nl {
		inStart[k+1] += inStart[k]
	}
	inAdj := make([]int32, inStart[nl])
	cur := slices.Clone(inStart[:nl])
	for c, l := range incoming {
		for _, e := range l {
			inAdj[cur[int(e[0])-lo]] = e[1]
			cur[int(e[0])-lo]++
		}
		incoming[c] = nil
	}
	cur = nil
	// The larger neighbours of node k: its own lattice edges' ends (kept
	// or rewired) above k, the kept lattice edges from k−j that wrap
	// around the ring (k < j), and the incoming rewired edges from above.
	upper := func(k int, out []int32) []int32 {
		for j := 1; j <= half; j++ {
			if w, _ := d.end((j-1)*n+k, k); w > k {
				out = append(out, int32(w))
			}
			if k < j {
				if s := k - j + n; !d.rewired((j-1)*n + s) {
					out = append(out, int32(s))
				}
			}
		}
		return append(out, inAdj[inStart[k-lo]:inStart[k-lo+1]]...)
	}
	start := make([]int, nl+1)
	forChunks(nl, chunk, func(a, b int) {
		buf := make([]int32, 0, 64)
		for k := lo + a; k < lo+b; k++ {
			start[k-lo+1] = len(upper(k, buf[:0]))
		}
	})
	for k := range nl {
		start[k+1] += start[k]
	}
	edges := make([][2]int32, start[nl])
	forChunks(nl, chunk, func(a, b int) {
		buf := make([]int32, 0, 64)
		for k := lo + a; k < lo+b; k++ {
			buf = upper(k, buf[:0])
			sortSmall(buf)
			for i, v := range buf {
				edges[start[k-lo]+i] = [2]int32{int32(k), v}
			}
		}
	})
	return edges, nil
}
