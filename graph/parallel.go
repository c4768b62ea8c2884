package graph

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pairgossip/pairgossip/internal/par"
)

// workers is the number of goroutines the builders use (0: GOMAXPROCS).
// Nothing a builder returns depends on it: the work is cut into chunks
// whose bounds depend only on the sizes, every random draw is keyed by what
// it decides (an edge, a node, a block of rows), the counting sorts give
// each chunk its own slots, what is gathered in an order that depends on
// the scheduling (the members of a geometric cell) is sorted afterwards,
// and the union–finds only ever answer with counts. The tests change it to
// check exactly that.
var workers = 0

// chunk is the default number of nodes or edges in one unit of parallel
// work. It is a multiple of 64 so that chunks of a bit set never share a
// word.
const chunk = 1 << 14

// forChunks calls body(lo, hi) for the chunks of [0, n) of length size, on
// the builders' workers.
func forChunks(n, size int, body func(lo, hi int)) { par.Chunks(n, size, workers, body) }

// scratchPool recycles the per-block scratch arrays (2^16 entries at most)
// of assemble, components and the large Watts–Strogatz builder, so that a
// build does not fault in fresh pages for each block.
var scratchPool = sync.Pool{New: func() any { return new([1 << compShift]int32) }}

// getScratch returns a zeroed scratch array of length n <= 2^compShift, to
// be handed back with putScratch.
func getScratch(n int) []int32 {
	s := scratchPool.Get().(*[1 << compShift]int32)[:n]
	clear(s)
	return s
}

// putScratch recycles a scratch array of getScratch.
func putScratch(s []int32) { scratchPool.Put((*[1 << compShift]int32)(s[:1<<compShift])) }

// prefixOffsets sets offsets[k] = Σ_{i<k} deg[k] for k = 0..n (len(offsets) =
// len(deg)+1) and, when cursor is true, overwrites deg[k] with offsets[k] (as
// the scatter cursor of node k). It runs in parallel over blocks: block
// sums, a serial scan over the blocks, then the fill.
func prefixOffsets(deg []int32, offsets []int, cursor bool) {
	n := len(deg)
	blocks := (n + chunk - 1) / chunk
	sums := make([]int, blocks+1)
	forChunks(n, chunk, func(lo, hi int) {
		s := 0
		for _, d := range deg[lo:hi] {
			s += int(d)
		}
		sums[lo/chunk+1] = s
	})
	for b := 0; b < blocks; b++ {
		sums[b+1] += sums[b]
	}
	forChunks(n, chunk, func(lo, hi int) {
		run := sums[lo/chunk]
		for k := lo; k < hi; k++ {
			offsets[k] = run
			run += int(deg[k])
			if cursor {
				deg[k] = int32(offsets[k])
			}
		}
	})
	offsets[n] = sums[blocks]
}

// sortSmall sorts a node's neighbour list: insertion sort for the short
// lists of sparse graphs, pdqsort beyond.
func sortSmall(a []int32) {
	if len(a) > 32 {
		slices.Sort(a)
		return
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}

// assemble builds the graph on n nodes whose undirected edges are the pairs
// of lists: in any order and orientation, repeats allowed (they are
// merged), ids in [0, n) and no self-loops (the caller has checked). It
// takes the lists over and drops them once they are read, so that their
// memory can be reused.
//
// No global sort and no atomic operation: the pairs are grouped by block of
// their larger end (partition, a two-level counting sort whose random
// accesses stay in cache), each block sorts its nodes' lists of smaller
// neighbours (half the degree) and drops repeats, and fromLower does the
// rest.
func assemble(name, kind string, n int, lists [][][2]int32) *Graph {
	m := 0
	for _, l := range lists {
		m += len(l)
	}
	shift := bucketShift(n, m)
	nb := (n + 1<<shift - 1) >> shift
	start, half := partition(lists, nb, shift, byMax)
	clear(lists)
	ws := make([]int32, len(half))
	lower := make([][2]int32, len(half))
	pieces := make([][][2]int32, nb)
	forChunks(nb, 1, func(b, _ int) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		hs := half[start[b]:start[b+1]]
		cur := getScratch(hi - lo)
		defer putScratch(cur)
		for _, h := range hs {
			cur[int(h>>32)-lo]++
		}
		o := int32(0)
		for k, c := range cur {
			cur[k] = o
			o += c
		}
		region := ws[start[b]:start[b+1]]
		for _, h := range hs {
			k := int(h>>32) - lo
			region[cur[k]] = int32(uint32(h))
			cur[k]++
		}
		out := lower[start[b]:start[b]]
		from := int32(0)
		for k := range cur {
			list := region[from:cur[k]]
			from = cur[k]
			sortSmall(list)
			for i, w := range list {
				if i == 0 || w != list[i-1] {
					out = append(out, [2]int32{w, int32(lo + k)})
				}
			}
		}
		pieces[b] = out
	})
	half, ws = nil, nil
	return fromLower(name, kind, n, pieces)
}

// fromLower builds the graph on n nodes whose edges are the pairs (w, v),
// w < v, of pieces: without repeats, the concatenation of the pieces sorted
// by (v, w), and the pairs of each v in one piece. That is each node's list
// of smaller neighbours, in order: the lower half of the adjacency. The
// upper half, which is also the sorted edge list, is its transpose: the
// pairs grouped by block of w (partition keeps their order), then by w
// within each block, come out sorted by (w, v). Each node's adjacency is
// then its lower list followed by its upper list, already in order: no
// sorting at all.
func fromLower(name, kind string, n int, pieces [][][2]int32) *Graph {
	m := 0
	for _, l := range pieces {
		m += len(l)
	}
	shift := bucketShift(n, m)
	nb := (n + 1<<shift - 1) >> shift
	start, half := partition(pieces, nb, shift, byFirst)
	edges := make([][2]int32, m)
	deg := make([]int32, n)   // upper, then total degrees
	lower := make([]int32, n) // lower degrees
	forChunks(nb, 1, func(b, _ int) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		hs := half[start[b]:start[b+1]]
		cur := getScratch(hi - lo)
		defer putScratch(cur)
		for _, h := range hs {
			cur[int(h>>32)-lo]++
		}
		o := int32(0)
		for k, c := range cur {
			deg[lo+k] = c
			cur[k] = o
			o += c
		}
		region := edges[start[b]:start[b+1]]
		for _, h := range hs {
			k := int(h>>32) - lo
			region[cur[k]] = [2]int32{int32(h >> 32), int32(uint32(h))}
			cur[k]++
		}
	})
	half = nil
	runs := func(pairs [][2]int32, col int, f func(k int, run [][2]int32)) {
		for i := 0; i < len(pairs); {
			j := i + 1
			for j < len(pairs) && pairs[j][col] == pairs[i][col] {
				j++
			}
			f(int(pairs[i][col]), pairs[i:j])
			i = j
		}
	}
	forChunks(len(pieces), 1, func(t, _ int) {
		runs(pieces[t], 1, func(v int, run [][2]int32) {
			lower[v] = int32(len(run))
			deg[v] += int32(len(run))
		})
	})
	offsets := make([]int, n+1)
	prefixOffsets(deg, offsets, false)
	adj := make([]int32, offsets[n])
	forChunks(len(pieces), 1, func(t, _ int) {
		runs(pieces[t], 1, func(v int, run [][2]int32) {
			out := adj[offsets[v]:]
			for i, e := range run {
				out[i] = e[0]
			}
		})
	})
	clear(pieces)
	forChunks(nb, 1, func(b, _ int) {
		runs(edges[start[b]:start[b+1]], 0, func(w int, run [][2]int32) {
			out := adj[offsets[w]+int(lower[w]):]
			for i, e := range run {
				out[i] = e[1]
			}
		})
	})
	return &Graph{Name: name, Kind: kind, N: n, Edges: edges, Offsets: offsets, Adj: adj, Tries: 1}
}

// Keys of partition: the first end of each pair, or its larger end.
const (
	byFirst = iota
	byMax
)

// partition groups the pairs of lists by block of a key end (bucket b
// holds the nodes [b·2^shift, (b+1)·2^shift)): the first end for byFirst,
// the larger one for byMax. The entries of bucket b are half[start[b]:
// start[b+1]], each packed as key<<32 | other end, in input order whatever
// the scheduling: each piece of the input counts its pairs per bucket, a
// prefix sum over (bucket, piece) gives every piece its own runs of slots,
// and the pieces write them there.
func partition(lists [][][2]int32, nb, shift, by int) (start []int, half []uint64) {
	m := 0
	for _, l := range lists {
		m += len(l)
	}
	pieces := cutPairs(lists, max(1<<16, (m+511)/512))
	pos := make([]int, len(pieces)*nb)
	forChunks(len(pieces), 1, func(t, _ int) {
		c := pos[t*nb : (t+1)*nb]
		for _, e := range pieces[t] {
			k := e[0]
			if by == byMax {
				k = max(e[0], e[1])
			}
			c[k>>shift]++
		}
	})
	start = make([]int, nb+1)
	run := 0
	for b := 0; b < nb; b++ {
		start[b] = run
		for t := range pieces {
			c := pos[t*nb+b]
			pos[t*nb+b] = run
			run += c
		}
	}
	start[nb] = run
	half = make([]uint64, run)
	forChunks(len(pieces), 1, func(t, _ int) {
		c := pos[t*nb : (t+1)*nb]
		for _, e := range pieces[t] {
			k, v := uint32(e[0]), uint32(e[1])
			if by == byMax && v > k {
				k, v = v, k
			}
			half[c[k>>shift]] = uint64(k)<<32 | uint64(v)
			c[k>>shift]++
		}
	})
	return start, half
}

// countAbove returns the number of entries of the sorted list greater
// than k.
func countAbove(list []int32, k int32) int {
	i := len(list)
	for i > 0 && list[i-1] > k {
		i--
	}
	return len(list) - i
}

// bucketShift chooses the bucket size 2^shift of partition: about 2^18
// entries per bucket, so that a bucket's counters and entries stay in
// cache, and at most 2^compShift nodes (the size of the scratch arrays).
func bucketShift(n, entries int) int {
	per := float64(1<<18) * float64(n) / float64(max(entries, 1))
	shift := 6
	for shift < compShift && float64(int(1)<<(shift+1)) <= per {
		shift++
	}
	return shift
}

// cutPairs cuts the lists into pieces of at most size pairs.
func cutPairs(lists [][][2]int32, size int) [][][2]int32 {
	var pieces [][][2]int32
	for _, l := range lists {
		for lo := 0; lo < len(l); lo += size {
			pieces = append(pieces, l[lo:min(lo+size, len(l))])
		}
	}
	return pieces
}

// edgesFromBlocks lists each edge (i, j), i < j, of a sorted CSR adjacency
// once, in lexicographic order (node by node, the neighbours larger than
// the node), given the number of such edges of each block of nodes
// [b·2^shift, (b+1)·2^shift): upper[b+1] (upper[0] = 0). It overwrites
// upper with its prefix sums and writes the blocks in parallel.
func edgesFromBlocks(n, shift int, offsets []int, adj []int32, upper []int) [][2]int32 {
	blocks := len(upper) - 1
	for b := 0; b < blocks; b++ {
		upper[b+1] += upper[b]
	}
	edges := make([][2]int32, upper[blocks])
	forChunks(n, 1<<shift, func(lo, hi int) {
		out := edges[upper[lo>>shift]:upper[lo>>shift+1]]
		i := 0
		for k := lo; k < hi; k++ {
			list := adj[offsets[k]:offsets[k+1]]
			for _, v := range list[len(list)-countAbove(list, int32(k)):] {
				out[i] = [2]int32{int32(k), v}
				i++
			}
		}
	})
	return edges
}

// fromNeighbours builds a graph given in closed form by its adjacency:
// degree(k) is the degree of node k and fill(k, nb) writes its neighbours
// in increasing order into nb (of length degree(k)). Both run in parallel
// over node blocks.
func fromNeighbours(name, kind string, n int, degree func(k int) int, fill func(k int, nb []int32)) *Graph {
	blocks := (n + chunk - 1) / chunk
	sums := make([]int, blocks+1)
	forChunks(n, chunk, func(lo, hi int) {
		s := 0
		for k := lo; k < hi; k++ {
			s += degree(k)
		}
		sums[lo/chunk+1] = s
	})
	for b := 0; b < blocks; b++ {
		sums[b+1] += sums[b]
	}
	offsets := make([]int, n+1)
	offsets[n] = sums[blocks]
	adj := make([]int32, sums[blocks])
	upper := make([]int, blocks+1)
	forChunks(n, chunk, func(lo, hi int) {
		o, up := sums[lo/chunk], 0
		for k := lo; k < hi; k++ {
			d := degree(k)
			offsets[k] = o
			fill(k, adj[o:o+d])
			up += countAbove(adj[o:o+d], int32(k))
			o += d
		}
		upper[lo/chunk+1] = up
	})
	g := &Graph{Name: name, Kind: kind, N: n, Offsets: offsets, Adj: adj, Tries: 1}
	g.Edges = edgesFromBlocks(n, bits.TrailingZeros(chunk), offsets, adj, upper)
	return g
}

// unionFind is a lock-free disjoint-set forest on int32 nodes for
// concurrent unions: a root is only ever linked (by compare-and-swap) below
// a smaller root, so every parent is smaller than its child, and finds
// halve their paths with compare-and-swap. The partition it ends with does
// not depend on the order of the unions.
type unionFind []int32

// newUnionFind returns n singletons.
func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			u[k] = int32(k)
		}
	})
	return u
}

// find returns the root of x.
func (u unionFind) find(x int32) int32 {
	for {
		p := atomic.LoadInt32(&u[x])
		if p == x {
			return x
		}
		gp := atomic.LoadInt32(&u[p])
		if gp == p {
			return p
		}
		atomic.CompareAndSwapInt32(&u[x], p, gp)
		x = gp
	}
}

// unionJoined joins the sets of a and b and reports whether they were
// apart (exactly one of several concurrent unions of two sets reports it).
func (u unionFind) unionJoined(a, b int32) bool {
	for {
		a, b = u.find(a), u.find(b)
		if a == b {
			return false
		}
		if a < b {
			a, b = b, a
		}
		if atomic.CompareAndSwapInt32(&u[a], a, b) {
			return true
		}
	}
}

// compShift is the block size 2^compShift of the connectivity check: a
// block's union–find (4 bytes a node) stays in cache, and a node's number
// within its block fits in 16 bits.
const compShift = 16

// blockComps numbers the connected components of a graph in two steps that
// keep most accesses in cache (the large Watts–Strogatz builder uses it as
// it writes the adjacency):
//
//  1. each block of 2^compShift consecutive nodes runs its own union–find
//     over the edges inside the block, and setBlock numbers its components;
//  2. join joins those numbers across the edges between blocks in a shared
//     lock-free union–find, and stops as soon as everything is joined.
type blockComps struct {
	count []int    // count[b] = first number of block b; count[blocks] = total
	local []uint16 // node → its local component's number within its block
}

// newBlockComps returns the numbering of a graph on n nodes, to be filled
// by setBlock for every block and then joined.
func newBlockComps(n int) *blockComps {
	return &blockComps{
		count: make([]int, (n+1<<compShift-1)>>compShift+1),
		local: make([]uint16, n),
	}
}

// setBlock numbers the components of the block that starts at node lo,
// given its union–find forest (parent[i] for node lo+i, parents smaller
// than children), in order of their smallest node.
func (bc *blockComps) setBlock(lo int, parent []int32) {
	c := 0
	for i, p := range parent {
		if int(p) == i {
			bc.local[lo+i] = uint16(c)
			c++
		} else {
			r := parent[p] // parents come first: already flat
			parent[i] = r
			bc.local[lo+i] = bc.local[lo+int(r)]
		}
	}
	bc.count[lo>>compShift+1] = c
}

// id returns the number of node v's local component.
func (bc *blockComps) id(v int32) int32 {
	return int32(bc.count[v>>compShift]) + int32(bc.local[v])
}

// join runs step 2: cross(t, union) must call union(a, b) for the edges
// between blocks of task t < tasks, each edge in one task. It stops as soon
// as everything is joined, and returns the number of components.
func (bc *blockComps) join(tasks int, cross func(t int, union func(a, b int32))) int {
	for b := 0; b+1 < len(bc.count); b++ {
		bc.count[b+1] += bc.count[b]
	}
	total := bc.count[len(bc.count)-1]
	u := newUnionFind(total)
	var joins atomic.Int64
	forChunks(tasks, 1, func(t, _ int) {
		if joins.Load() >= int64(total-1) {
			return
		}
		j := int64(0)
		cross(t, func(a, b int32) {
			if u.unionJoined(bc.id(a), bc.id(b)) {
				j++
			}
		})
		joins.Add(j)
	})
	return total - int(joins.Load())
}

// localFind is the sequential union–find of one block.
func localFind(parent []int32, x int32) int32 {
	for parent[x] != x {
		parent[x] = parent[parent[x]]
		x = parent[x]
	}
	return x
}

// joinSmaller joins, in the union–find of the block that starts at node lo,
// node lo+k to its neighbours in the block that are smaller than it (the
// sorted list nb holds all its neighbours). Blocks visit their nodes in
// increasing order, so node lo+k is still alone when its turn comes: it
// takes the root of its first such neighbour as parent, and later roots
// are linked below the smallest.
func joinSmaller(parent []int32, k int32, nb []int32, lo int32) {
	r := k
	for _, v := range nb {
		v -= lo
		if v >= k {
			break
		}
		if v < 0 {
			continue
		}
		rv := localFind(parent, v)
		switch {
		case r == k:
			r = rv
		case rv < r:
			parent[r] = rv
			r = rv
		case rv > r:
			parent[rv] = r
		}
	}
	parent[k] = r
}

// components returns the number of connected components of a CSR graph.
// A fixed sample of nodes tells whether the graph has locality (most edges
// inside blocks of 2^compShift consecutive nodes: lattices, rings, loaded
// meshes); if so the blocks run sequential union–finds in cache and only the
// edges between blocks go through the shared one (blockComponents);
// otherwise Afforest (afforest).
func components(n int, offsets []int, adj []int32) int {
	if n == 0 {
		return 0
	}
	inside, all := 0, 0
	for i := range 1024 {
		k := i * n / 1024
		for _, v := range adj[offsets[k]:offsets[k+1]] {
			if int(v)>>compShift == k>>compShift {
				inside++
			}
			all++
		}
	}
	if 2*inside >= all {
		return blockComponents(n, offsets, adj)
	}
	return afforest(n, offsets, adj)
}

// blockComponents counts components with blockComps: a sequential
// union–find per block over its inner edges, then the edges between blocks
// in node order until everything is joined.
func blockComponents(n int, offsets []int, adj []int32) int {
	bc := newBlockComps(n)
	forChunks(n, 1<<compShift, func(lo, hi int) {
		parent := getScratch(hi - lo)
		defer putScratch(parent)
		for k := lo; k < hi; k++ {
			joinSmaller(parent, int32(k-lo), adj[offsets[k]:offsets[k+1]], int32(lo))
		}
		bc.setBlock(lo, parent)
	})
	return bc.join((n+chunk-1)/chunk, func(t int, union func(a, b int32)) {
		for k := t * chunk; k < min((t+1)*chunk, n); k++ {
			for _, v := range adj[offsets[k]:offsets[k+1]] {
				if int(v)>>compShift != k>>compShift && int(v) > k {
					union(int32(k), v)
				}
			}
		}
	})
}

// afforest counts components by Afforest (Sutton, Ben-Nun and Barak, IPDPS
// 2018) on the lock-free union–find: first every node is joined to its
// first two neighbours (a forest that already spans most of the large
// components), then the largest component is estimated from a fixed sample
// of nodes, and only the nodes outside it join their other neighbours. An
// edge skipped that way has an end in that component when it is skipped,
// and the other end either is in it too or joins through its own edges, so
// the count is exact; most edges of a connected graph are never looked at.
func afforest(n int, offsets []int, adj []int32) int {
	const rounds = 2
	u := newUnionFind(n)
	var joins atomic.Int64 // successful unions: the count drops by one each
	for r := range rounds {
		forChunks(n, chunk, func(lo, hi int) {
			j := int64(0)
			for v := lo; v < hi; v++ {
				if offsets[v]+r < offsets[v+1] && u.unionJoined(int32(v), adj[offsets[v]+r]) {
					j++
				}
			}
			joins.Add(j)
		})
	}
	// The most frequent root of a fixed sample (the smallest on a tie).
	sample := make([]int32, 1024)
	for i := range sample {
		sample[i] = u.find(int32(i * n / len(sample)))
	}
	slices.Sort(sample)
	giant, best := sample[0], 0
	for i := 0; i < len(sample); {
		j := i + 1
		for j < len(sample) && sample[j] == sample[i] {
			j++
		}
		if j-i > best {
			giant, best = sample[i], j-i
		}
		i = j
	}
	forChunks(n, chunk, func(lo, hi int) {
		j := int64(0)
		for v := lo; v < hi; v++ {
			if u.find(int32(v)) == giant {
				continue
			}
			for _, w := range adj[min(offsets[v]+rounds, offsets[v+1]):offsets[v+1]] {
				if u.unionJoined(int32(v), w) {
					j++
				}
			}
		}
		joins.Add(j)
	})
	return n - int(joins.Load())
}
