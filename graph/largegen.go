package graph

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// largeN is the node count from which WattsStrogatz, ErdosRenyi and
// RandomGeometric draw with the parallel, counter-based generators of this
// file; below it they draw exactly as before from one sequential stream per
// attempt, so that small graphs keep their seeds (the golden graphs, the
// paper's n = 699 and 1000, the README's n = 100 000). Both are the same
// random models. The tests lower it to run the large generators on small
// graphs.
var largeN = 1 << 17

// attemptKey is the counter-based key of attempt t (0-based) of the large
// generator identified by stream: every draw of the attempt is
// rng.Hash(key, ·, ·) of what it decides, or a stream rng.New(key, block).
func attemptKey(seed, stream uint64, t int) uint64 {
	return rng.Hash(seed, stream, uint64(t))
}

// unitFloat maps a hash to [0, 1) with 53 random bits, like Stream.Float64.
func unitFloat(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// normPair returns {min(a, b), max(a, b)}.
func normPair(a, b int) [2]int32 { return [2]int32{int32(min(a, b)), int32(max(a, b))} }

// golden is the odd increment of SplitMix64 (2^64/φ).
const golden = 0x9e3779b97f4a7c15

// itemHash is the counter-based draw of item i under key: the (i+1)-th
// output of SplitMix64 started at key, a pure function of (key, i).
func itemHash(key uint64, i int) uint64 { return rng.Mix(key + uint64(i+1)*golden) }

// boundedHash returns a uniform integer in [0, n) derived from h and sub
// alone (Lemire's multiply-shift; a rejection moves on to the next counter).
func boundedHash(h, sub uint64, n int) int {
	for k := uint64(1); ; k++ {
		hi, lo := bits.Mul64(rng.Mix(h+(sub<<20+k)*0xd1b54a32d192ed03), uint64(n))
		if lo >= uint64(n) || lo >= -uint64(n)%uint64(n) {
			return int(hi)
		}
	}
}

// insertAfter sorts list whose first sorted entries are already in order,
// inserting the others one by one.
func insertAfter(list []int32, sorted int) {
	for i := max(sorted, 1); i < len(list); i++ {
		x := list[i]
		j := i
		for j > 0 && list[j-1] > x {
			list[j] = list[j-1]
			j--
		}
		list[j] = x
	}
}

// bit reports bit i of a bit set.
func bit(set []uint64, i int) bool { return set[i>>6]>>(i&63)&1 != 0 }

// wsDraw is one large Watts–Strogatz draw (see wattsStrogatzLarge).
type wsDraw struct {
	n, half, m, targets int
	key                 uint64
	rew                 []uint64   // lattice edge idx drew a rewiring in round 0
	lost                []uint64   // ... and lost its round-0 pair to a smaller index
	back                []uint64   // ... and found no free pair: it stays a lattice edge
	up                  []uint64   // a rewired edge's target is larger than its source
	moves               []wsMove   // the losers' outcomes, by increasing idx
	taken               [][2]int32 // the pairs the rewired losers took
	// share, when set, is a share's draw (wattsStrogatzShare): rew holds
	// only the bits of its own sources, the others are hashed when asked,
	// and lost and back are nil (moves says).
	share *wsOwn
}

// wsOwn is the range of sources [lo, hi) whose rewiring bits a share's
// rew holds: edge (j−1)·n + u at bit (j−1)·(hi−lo) + u − lo.
type wsOwn struct {
	lo, hi int
	p      float64
}

// rewBit reports whether lattice edge idx drew a rewiring in round 0.
func (d *wsDraw) rewBit(idx int) bool {
	if d.share == nil {
		return bit(d.rew, idx)
	}
	j, u := idx/d.n, idx%d.n
	if u >= d.share.lo && u < d.share.hi {
		return bit(d.rew, j*(d.share.hi-d.share.lo)+u-d.share.lo)
	}
	return d.targets > 0 && unitFloat(itemHash(d.key, idx)) < d.share.p
}

// lostBit reports whether rewired lattice edge idx lost its round-0 pair;
// backBit whether it then stayed a lattice edge.
func (d *wsDraw) lostBit(idx int) bool {
	if d.share == nil {
		return bit(d.lost, idx)
	}
	_, found := slices.BinarySearchFunc(d.moves, int32(idx), func(mv wsMove, x int32) int { return int(mv.idx - x) })
	return found
}

func (d *wsDraw) backBit(idx int) bool {
	if d.share == nil {
		return bit(d.back, idx)
	}
	i, found := slices.BinarySearchFunc(d.moves, int32(idx), func(mv wsMove, x int32) int { return int(mv.idx - x) })
	return found && d.moves[i].w < 0
}

// wsMove is where a loser of round 0 went: w, or −1 for its lattice edge.
type wsMove struct{ idx, w int32 }

// target is the target drawn in round r by lattice edge idx, whose source is u.
func (d *wsDraw) target(idx, u, round int) int {
	w := u + d.half + 1 + boundedHash(itemHash(d.key, idx), uint64(round), d.targets)
	if w >= d.n {
		w -= d.n
	}
	return w
}

// firstClaim returns the smallest index below limit of a lattice edge
// whose round-0 rewiring makes the pair {u, w}, or limit if there is none.
// Only the half lattice edges of u and the half of w can.
func (d *wsDraw) firstClaim(u, w, limit int) int {
	best := limit
	for i := u; i < best; i += d.n {
		if d.rewBit(i) && d.target(i, u, 0) == w {
			best = i
		}
	}
	for i := w; i < best; i += d.n {
		if d.rewBit(i) && d.target(i, w, 0) == u {
			best = i
		}
	}
	return best
}

// rewired reports whether lattice edge idx is rewired in the drawn graph.
func (d *wsDraw) rewired(idx int) bool { return d.rewBit(idx) && !d.backBit(idx) }

// rewiredIn returns the number of lattice edges in [lo, hi) that are
// rewired in the drawn graph (word-wise popcounts), only those rewired to a
// larger target if upOnly.
func (d *wsDraw) rewiredIn(lo, hi int, upOnly bool) int {
	c := 0
	for lo < hi {
		w := lo >> 6
		word := d.rew[w] &^ d.back[w]
		if upOnly {
			word &= d.up[w]
		}
		word >>= lo & 63
		span := min(64-lo&63, hi-lo)
		if span < 64 {
			word &= 1<<span - 1
		}
		c += bits.OnesCount64(word)
		lo += span
	}
	return c
}

// move returns where the loser idx went (−1: its lattice edge).
func (d *wsDraw) move(idx int) int {
	i, _ := slices.BinarySearchFunc(d.moves, int32(idx), func(mv wsMove, x int32) int { return int(mv.idx - x) })
	return int(d.moves[i].w)
}

// end returns the other end of lattice edge idx (source u, lattice end
// u+j mod n) in the drawn graph, and whether the edge was rewired.
func (d *wsDraw) end(idx, u int) (int, bool) {
	if d.rewBit(idx) {
		if !d.lostBit(idx) {
			return d.target(idx, u, 0), true
		}
		if w := d.move(idx); w >= 0 {
			return w, true
		}
	}
	v := u + idx/d.n + 1
	if v >= d.n {
		v -= d.n
	}
	return v, false
}

// resolve redraws the losers of round 0 (lattice edge indices, in
// increasing order, continuing the losers resolved by earlier calls), one
// after the other: each avoids every pair a round-0 winner or an earlier
// loser took; after 64 failed rounds it picks uniformly among the free
// targets, and keeps its lattice edge if there is none. It records their
// outcomes (lost, back, up, moves) and calls moved(u, w) for each one
// rewired to w.
func (d *wsDraw) resolve(losers []int32, moved func(u, w int)) {
	n, half, m, key := d.n, d.half, d.m, d.key
	free := func(u, w int) bool {
		return d.firstClaim(u, w, m) == m && !slices.Contains(d.taken, normPair(u, w))
	}
	for _, i := range losers {
		idx := int(i)
		if d.lost != nil {
			d.lost[idx>>6] |= 1 << (idx & 63)
		}
		u := idx % n
		w := -1
		for round := 1; round <= 64 && w < 0; round++ {
			if c := d.target(idx, u, round); free(u, c) {
				w = c
			}
		}
		if w < 0 {
			var cands []int
			for o := range d.targets {
				if c := (u + half + 1 + o) % n; free(u, c) {
					cands = append(cands, c)
				}
			}
			if len(cands) > 0 {
				w = cands[boundedHash(itemHash(key, idx), 1<<40, len(cands))]
			}
		}
		d.moves = append(d.moves, wsMove{int32(idx), int32(w)})
		if w < 0 {
			if d.back != nil {
				d.back[idx>>6] |= 1 << (idx & 63)
			}
		} else {
			if w > u && d.up != nil {
				d.up[idx>>6] |= 1 << (idx & 63)
			}
			d.taken = append(d.taken, normPair(u, w))
			moved(u, w)
		}
	}
}

// wattsStrogatzLarge draws one Watts–Strogatz graph for large n, in
// parallel, with draws keyed by the lattice edge so that no draw depends on
// which worker makes it or in which order, and builds its CSR adjacency
// from the closed form of the lattice, without an edge list to sort.
//
// Lattice edge idx = (j−1)·n + u joins u and u+j mod n (j = 1..half). With
// h = itemHash(key, idx), it is rewired when unitFloat(h) < p, to the pair
// {u, w} with w drawn uniformly, by boundedHash(h, r, ·) in round r, among
// the T = n−1−2·half nodes farther than half around the ring from u (so a
// rewired edge is never a self-loop and never lands on a lattice pair, kept
// or rewired away). Two rewired edges may draw the same pair: in round 0 the
// one of smallest index keeps it; whether a smaller index claims the same
// pair is a closed-form question (only the half lattice edges of u and the
// half of w can), so this pass is as parallel as the first. The losers (a
// handful: a pair is claimed twice with probability about 4·half·p/T) then
// redraw one after the other in index order, avoiding every pair already
// taken; after 64 failed rounds a loser picks uniformly among the free
// targets, and keeps its lattice edge if there is none. When T = 0 nothing
// is rewired.
func wattsStrogatzLarge(name string, n, half int, p float64, key uint64) *Graph {
	m := n * half
	d := &wsDraw{n: n, half: half, m: m, targets: n - 1 - 2*half, key: key,
		rew: make([]uint64, (m+63)/64), lost: make([]uint64, (m+63)/64), back: make([]uint64, (m+63)/64), up: make([]uint64, (m+63)/64)}
	if d.targets > 0 && p > 0 {
		forChunks(m, chunk, func(lo, hi int) {
			for idx := lo; idx < hi; idx++ {
				if unitFloat(itemHash(key, idx)) < p {
					d.rew[idx>>6] |= 1 << (idx & 63)
				}
			}
		})
	}
	// Round 0: every rewired edge takes its target; the losers and the
	// winners' incoming half-edges (w ← u) are collected per chunk.
	nChunks := (m + chunk - 1) / chunk
	losers := make([][]int32, nChunks)
	incoming := make([][][2]int32, nChunks+1)
	forChunks(m, chunk, func(lo, hi int) {
		var lost []int32
		in := make([][2]int32, 0, int(float64(hi-lo)*p*1.1)+16)
		for wi := lo >> 6; wi<<6 < hi; wi++ {
			for word := d.rew[wi]; word != 0; word &= word - 1 {
				idx := wi<<6 + bits.TrailingZeros64(word)
				u := idx % n
				w := d.target(idx, u, 0)
				if d.firstClaim(u, w, idx) < idx {
					lost = append(lost, int32(idx))
					continue
				}
				if w > u {
					d.up[wi] |= 1 << (idx & 63)
				}
				in = append(in, [2]int32{int32(w), int32(u)})
			}
		}
		losers[lo/chunk], incoming[lo/chunk] = lost, in
	})
	// The losers, in index order.
	var in [][2]int32
	for _, lost := range losers {
		d.resolve(lost, func(u, w int) { in = append(in, [2]int32{int32(w), int32(u)}) })
	}
	incoming[nChunks] = in
	// The incoming rewired half-edges (w ← u), grouped by block of w.
	const shift = compShift
	nb := (n + 1<<shift - 1) >> shift
	start, inc := partition(incoming, nb, shift, byFirst)
	clear(incoming)
	// Lattice edges (k−j, k) with k in [lo, hi) that are kept: their
	// indices (j−1)·n + (k−j mod n) form at most two runs.
	keptIn := func(j, lo, hi int) int {
		kept := 0
		for _, r := range [2][2]int{{max(lo, j), hi}, {lo, min(hi, j)}} {
			if r[0] < r[1] {
				s := r[0] - j
				if s < 0 {
					s += n
				}
				base := (j-1)*n + s
				kept += r[1] - r[0] - d.rewiredIn(base, base+r[1]-r[0], false)
			}
		}
		return kept
	}
	// Degrees and larger neighbours per block: every node has its half own
	// edges (to k+j, or rewired), the kept lattice edges from k−j and the
	// incoming rewired ones.
	sums := make([]int, nb+1)
	upper := make([]int, nb+1)
	forChunks(nb, 1, func(b, _ int) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		total := half*(hi-lo) + start[b+1] - start[b]
		up := 0
		for _, h := range inc[start[b]:start[b+1]] {
			if uint32(h) > uint32(h>>32) {
				up++
			}
		}
		for j := 1; j <= half; j++ {
			total += keptIn(j, lo, hi)
			base := (j - 1) * n
			if e := min(hi, n-j); e > lo { // own lattice ends k+j < n
				up += e - lo - d.rewiredIn(base+lo, base+e, false)
			}
			up += d.rewiredIn(base+lo, base+hi, true)
			for k := lo; k < min(hi, j); k++ { // kept k−j+n > k
				if !d.rewired(base + k - j + n) {
					up++
				}
			}
		}
		sums[b+1], upper[b+1] = total, up
	})
	for b := 0; b < nb; b++ {
		sums[b+1] += sums[b]
		upper[b+1] += upper[b]
	}
	offsets := make([]int, n+1)
	offsets[n] = sums[nb]
	adj := make([]int32, sums[nb])
	edges := make([][2]int32, upper[nb])
	bc := newBlockComps(n)
	forChunks(nb, 1, func(b, _ int) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		cur := getScratch(hi - lo) // incoming rewired edges, then next free slot
		defer putScratch(cur)
		for _, h := range inc[start[b]:start[b+1]] {
			cur[int(h>>32)-lo]++
		}
		// Each list: the kept lattice edges from k−half..k−1, the kept own
		// lattice edges to k+1..k+half, the rewired own edges, then (below)
		// the incoming rewired ones: only the rewired ones are out of order
		// (and the lattice edges that wrap around the ring).
		lattice := getScratch(hi - lo) // length of the sorted lattice part
		defer putScratch(lattice)
		o := sums[b]
		for k := lo; k < hi; k++ {
			offsets[k] = o
			i := o
			for j := half; j >= 1; j-- {
				s := k - j
				if s < 0 {
					s += n
				}
				if !d.rewired((j-1)*n + s) {
					adj[i] = int32(s)
					i++
				}
			}
			i0, r := i, i+half // own edges: kept ones up from i0, rewired ones down from i0+half
			for j := 1; j <= half; j++ {
				w, rewired := d.end((j-1)*n+k, k)
				if rewired {
					r--
					adj[r] = int32(w)
				} else {
					adj[i] = int32(w)
					i++
				}
			}
			lattice[k-lo] = int32(i - o)
			i = i0 + half
			o = i + int(cur[k-lo])
			cur[k-lo] = int32(i)
		}
		if o != sums[b+1] {
			panic("graph: watts-strogatz: degree count and adjacency disagree")
		}
		for _, h := range inc[start[b]:start[b+1]] {
			k := int(h>>32) - lo
			adj[cur[k]] = int32(uint32(h))
			cur[k]++
		}
		// Sort, write the edges to larger neighbours, and join the block's
		// own edges.
		parent := getScratch(hi - lo)
		defer putScratch(parent)
		e := upper[b]
		for k := lo; k < hi; k++ {
			list := adj[offsets[k]:cur[k-lo]]
			if k < half || k >= n-half {
				sortSmall(list) // the lattice part wraps around the ring
			} else {
				insertAfter(list, int(lattice[k-lo]))
			}
			joinSmaller(parent, int32(k-lo), list, int32(lo))
			for _, v := range list[len(list)-countAbove(list, int32(k)):] {
				edges[e] = [2]int32{int32(k), v}
				e++
			}
		}
		if e != upper[b+1] {
			panic("graph: watts-strogatz: edge count and adjacency disagree")
		}
		bc.setBlock(lo, parent)
	})
	g := &Graph{Name: name, Kind: "watts-strogatz", N: n, Edges: edges, Offsets: offsets, Adj: adj, Tries: 1}
	// The edges between blocks: incoming rewired edges from another block,
	// and lattice edges (k−j, k) from another block.
	g.comps = bc.join(nb, func(b int, union func(a, b int32)) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		for _, h := range inc[start[b]:start[b+1]] {
			if int(uint32(h))>>shift != b {
				union(int32(h>>32), int32(uint32(h)))
			}
		}
		for k := lo; k < min(lo+half, hi); k++ {
			for j := 1; j <= half; j++ {
				s := k - j
				if s < 0 {
					s += n
				}
				if s>>shift != b && !d.rewired((j-1)*n+s) {
					union(int32(k), int32(s))
				}
			}
		}
	})
	return g
}

// erBlockEdges is the expected number of edges of a block of
// erdosRenyiLarge (a variable for the tests only: the blocks define the
// streams, so changing it changes the graphs).
var erBlockEdges = 1 << 16

// erdosRenyiLarge draws one G(n, p) edge list for large n, 0 < p < 1: the
// pairs (w, v), w < v, in order of (v, w) are cut into blocks of whole rows
// v holding about erBlockEdges/p pairs each (at least n; the cut depends on
// n and p only), and each block is scanned with geometric skips (Batagelj–Brandes)
// from its own stream rng.New(key, block). A skip that would leave the
// block is cut at the block's end, which is exact since the skips are
// memoryless. Each block's edges come back as one list, only those (w, v)
// with w in [lo, hi) (a rank's share: [0, n) for the whole graph; blocks
// whose rows all lie below lo+1 are not scanned).
func erdosRenyiLarge(n int, p float64, key uint64, lo, hi int) [][][2]int32 {
	total := uint64(n) * uint64(n-1) / 2
	per := total
	if f := max(float64(erBlockEdges)/p, float64(n)); f < float64(total) {
		per = uint64(f)
	}
	blocks := int((total + per - 1) / per)
	// rowAt returns the first row v >= 1 with v(v−1)/2 >= c pairs before it.
	rowAt := func(c uint64) int {
		v := uint64((1 + math.Sqrt(1+8*float64(c))) / 2)
		for v > 1 && (v-1)*(v-2)/2 >= c {
			v--
		}
		for v*(v-1)/2 < c {
			v++
		}
		return int(min(max(v, 1), uint64(n)))
	}
	lp := math.Log1p(-p)
	limit := float64(n) * float64(n)
	lists := make([][][2]int32, blocks)
	forChunks(blocks, 1, func(b, _ int) {
		v0, v1 := rowAt(uint64(b)*per), n
		if b+1 < blocks {
			v1 = rowAt(uint64(b+1) * per)
		}
		if v1 <= lo {
			return
		}
		pairsIn := float64(v1)*float64(v1-1)/2 - float64(v0)*float64(v0-1)/2
		if lo > 0 || hi < n {
			pairsIn = keptPairs(v1, lo, hi) - keptPairs(v0, lo, hi)
		}
		mean := p * pairsIn
		out := make([][2]int32, 0, int(mean+6*math.Sqrt(mean)+16))
		s := rng.New(key, uint64(b))
		v, w := v0, -1
		for v < v1 {
			// math.Log1p, as in erdosRenyiEdges: math.Log would be faster,
			// but it has an assembly version on amd64 only, and the skips
			// must come out the same on every platform.
			skip := math.Floor(math.Log1p(-s.Float64()) / lp)
			if skip > limit {
				break
			}
			w += 1 + int(skip)
			for w >= v && v < v1 {
				w -= v
				v++
			}
			if v < v1 && w >= lo && w < hi {
				out = append(out, [2]int32{int32(w), int32(v)})
			}
		}
		lists[b] = out
	})
	return lists
}

// keptPairs is the number of pairs (w, v), w < v < a, with w in [lo, hi).
func keptPairs(a, lo, hi int) float64 {
	t := float64(min(a-1, hi) - lo) // rows lo+1 .. min(a−1, hi) keep v − lo
	if t <= 0 {
		return 0
	}
	return t*(t+1)/2 + float64(max(0, a-1-hi))*float64(hi-lo)
}

// geometricLarge draws one random geometric edge list for large n: node i
// sits at (unitFloat(Hash(key, i, 0)), unitFloat(Hash(key, i, 1))); the
// points are binned into the same cell grid as geometricEdges by a
// parallel counting sort (members of a cell in node order), and each block
// of cells pairs its points with those of the same cell and of the four
// cells after it (right, and the three below), so each pair is examined
// once. Each block's edges come back as one list.
func geometricLarge(n int, radius float64, key uint64) [][][2]int32 {
	xs := make([]float64, n)
	ys := make([]float64, n)
	forChunks(n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] = unitFloat(rng.Hash(key, uint64(i), 0))
			ys[i] = unitFloat(rng.Hash(key, uint64(i), 1))
		}
	})
	m := 1
	if radius < 1 {
		m = max(1, min(int(1/radius), int(math.Sqrt(float64(n)))))
	}
	cellOf := func(x float64) int { return min(int(x*float64(m)), m-1) }
	cells := m * m
	cnt := make([]int32, cells)
	forChunks(n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&cnt[cellOf(ys[i])*m+cellOf(xs[i])], 1)
		}
	})
	start := make([]int, cells+1)
	prefixOffsets(cnt, start, true)
	order := make([]int32, n)
	forChunks(n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := cellOf(ys[i])*m + cellOf(xs[i])
			order[atomic.AddInt32(&cnt[c], 1)-1] = int32(i)
		}
	})
	// Points in cell order, each cell's in node order.
	sx := make([]float64, n)
	sy := make([]float64, n)
	perTask := max(1, cells/max(1, n/chunk))
	forChunks(cells, perTask, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			mem := order[start[c]:start[c+1]]
			sortSmall(mem)
			for a, i := range mem {
				sx[start[c]+a], sy[start[c]+a] = xs[i], ys[i]
			}
		}
	})
	xs, ys = nil, nil
	r2 := radius * radius
	perPoint := math.Min(math.Pi*r2, 1) * float64(n) / 2
	lists := make([][][2]int32, (cells+perTask-1)/perTask)
	forChunks(cells, perTask, func(lo, hi int) {
		out := make([][2]int32, 0, int(float64(start[hi]-start[lo])*perPoint*1.1)+64)
		for c := lo; c < hi; c++ {
			cx, cy := c%m, c/m
			for a := start[c]; a < start[c+1]; a++ {
				x, y, id := sx[a], sy[a], order[a]
				scan := func(b0, b1 int) {
					for b := b0; b < b1; b++ {
						if dx, dy := x-sx[b], y-sy[b]; dx*dx+dy*dy <= r2 {
							out = append(out, [2]int32{id, order[b]})
						}
					}
				}
				scan(a+1, start[c+1])
				if cx+1 < m {
					scan(start[c+1], start[c+2])
				}
				if cy+1 < m {
					d := c + m
					scan(start[d-min(cx, 1)], start[d+min(m-1-cx, 1)+1])
				}
			}
		}
		lists[lo/perTask] = out
	})
	return lists
}
