package graph

import (
	"fmt"
	"slices"
	"strings"
)

// Partial draws a random graph one share at a time: the share of [lo, hi)
// is the edges whose lower end lies in [lo, hi), in the order of
// Graph.Edges, so that the shares of a partition of [0, n) laid end to end
// are the edge list Build returns (same edges, same order) — without any
// share drawing the whole graph. It is what an MPI rank holding the nodes
// [lo, hi) builds (package ranks), for the counter-based generators: Watts–
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

// Collectives is what a share's draw needs from the other shares of the
// same attempt (over MPI ranks: package ranks implements it; every share
// calls the same methods in the same order).
type Collectives interface {
	// Allgather returns the concatenation of every share's list (in any
	// order).
	Allgather(mine []int64) ([]int64, error)
	// Exchange sends out[s] to share s (out has one list per share) and
	// returns what the other shares sent this one, concatenated in any
	// order.
	Exchange(out [][]int64) ([]int64, error)
}

// Draw returns the edges of attempt t (0-based) whose lower end lies in
// share r of the partition bounds (bounds[0] = 0 < … < bounds[P] = n:
// share s holds [bounds[s], bounds[s+1])), in the order of Graph.Edges.
// Every share of the partition must call it for the same t: a Watts–
// Strogatz share gathers the lattice edges that lose their round-0 target
// (a handful, over all shares) and sends each rewired edge of its sources
// that lands below its source on another share's node to that share. One
// process drawing the whole graph passes bounds {0, n} and collectives
// that return what they are given.
//
// A share's work: Watts–Strogatz hashes only its own sources' lattice
// edges (and, on demand, the few others a closed-form question needs), so
// its time and memory (one bit a lattice edge of its own) are its share's;
// Erdős–Rényi scans the rows v > lo (the share of the smallest nodes scans
// nearly all), keeping only its pairs.
func (p *Partial) Draw(t int, bounds []int, r int, c Collectives) ([][2]int32, error) {
	if len(bounds) < 2 || r < 0 || r+1 >= len(bounds) || bounds[0] != 0 || bounds[len(bounds)-1] != p.N || !slices.IsSorted(bounds) {
		return nil, fmt.Errorf("graph: %s: share %d of the partition %v of [0, %d)", p.Name, r, bounds, p.N)
	}
	lo, hi := bounds[r], bounds[r+1]
	if p.Kind == "watts-strogatz" {
		return wattsStrogatzShare(p.N, p.half, p.p, attemptKey(p.seed, streamWattsStrogatz, t), bounds, r, c)
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
// edges whose lower end lies in share r (see Partial.Draw).
func wattsStrogatzShare(n, half int, p float64, key uint64, bounds []int, r int, c Collectives) ([][2]int32, error) {
	lo, hi := bounds[r], bounds[r+1]
	nl := hi - lo
	m := n * half
	span := nl * half // own lattice edges: (j−1)·n + u, u in [lo, hi), at bit (j−1)·nl + u − lo
	d := &wsDraw{n: n, half: half, m: m, targets: n - 1 - 2*half, key: key,
		rew: make([]uint64, (span+63)/64), share: &wsOwn{lo: lo, hi: hi, p: p}}
	if d.targets == 0 || p == 0 {
		d.share.p = 0
	}
	own := func(i int) (idx, u int) { // own edge i = bit i
		u = lo + i%nl
		return (i/nl)*n + u, u
	}
	if d.share.p > 0 && nl > 0 {
		forChunks(span, chunk, func(a, b int) {
			for i := a; i < b; i++ {
				if idx, _ := own(i); unitFloat(itemHash(key, idx)) < p {
					d.rew[i>>6] |= 1 << (i & 63)
				}
			}
		})
	}
	// Round 0's losers among this share's edges, then every share's,
	// resolved in index order as one process does.
	found := make([][]int64, (span+chunk-1)/chunk)
	forChunks(span, chunk, func(a, b int) {
		var lost []int64
		for i := a; i < b; i++ {
			if bit(d.rew, i) {
				if idx, u := own(i); d.firstClaim(u, d.target(idx, u, 0), idx) < idx {
					lost = append(lost, int64(idx))
				}
			}
		}
		found[a/chunk] = lost
	})
	all, err := c.Allgather(slices.Concat(found...))
	if err != nil {
		return nil, err
	}
	slices.Sort(all)
	losers := make([]int32, len(all))
	for i, x := range all {
		losers[i] = int32(x)
	}
	d.resolve(losers, func(u, w int) {})
	// This share's rewired edges that land below their source: on its own
	// nodes (kept), or on another share's (sent there).
	P := len(bounds) - 1
	owner := func(v int) int { s, _ := slices.BinarySearch(bounds, v+1); return s - 1 }
	type out struct {
		in   [][2]int32
		away [][]int64
	}
	outs := make([]out, (span+chunk-1)/chunk)
	forChunks(span, chunk, func(a, b int) {
		o := out{away: make([][]int64, P)}
		for i := a; i < b; i++ {
			if !bit(d.rew, i) {
				continue
			}
			idx, u := own(i)
			w, rewired := d.end(idx, u)
			if !rewired || w > u {
				continue
			}
			if w >= lo {
				o.in = append(o.in, [2]int32{int32(w), int32(u)})
			} else {
				s := owner(w)
				o.away[s] = append(o.away[s], int64(w)<<32|int64(u))
			}
		}
		outs[a/chunk] = o
	})
	away := make([][]int64, P)
	var incoming [][2]int32
	for _, o := range outs {
		incoming = append(incoming, o.in...)
		for s := range P {
			away[s] = append(away[s], o.away[s]...)
		}
	}
	outs = nil
	got, err := c.Exchange(away)
	if err != nil {
		return nil, err
	}
	for _, x := range got {
		w, u := int(x>>32), int(uint32(x))
		if w < lo || w >= hi || u <= w {
			return nil, fmt.Errorf("graph: %s: share %d [%d, %d) was sent the edge (%d, %d)", "watts-strogatz", r, lo, hi, w, u)
		}
		incoming = append(incoming, [2]int32{int32(w), int32(u)})
	}
	inStart := make([]int, nl+1)
	for _, e := range incoming {
		inStart[int(e[0])-lo+1]++
	}
	for k := range nl {
		inStart[k+1] += inStart[k]
	}
	inAdj := make([]int32, inStart[nl])
	cur := slices.Clone(inStart[:nl])
	for _, e := range incoming {
		inAdj[cur[int(e[0])-lo]] = e[1]
		cur[int(e[0])-lo]++
	}
	incoming, cur = nil, nil
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
