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
// it decides (an edge, a node, a block of rows), and whatever is gathered in
// an order that depends on the scheduling (the CSR scatter) is sorted
// afterwards. The tests change it to check exactly that.
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

// pairTask is a piece of one slice of a list of pair slices.
type pairTask struct{ list, lo, hi int }

// forPairs calls body on pieces of at most chunk pairs of every slice of
// lists, in parallel.
func forPairs(lists [][][2]int32, body func(pairs [][2]int32)) {
	var tasks []pairTask
	for l, pairs := range lists {
		for lo := 0; lo < len(pairs); lo += chunk {
			tasks = append(tasks, pairTask{l, lo, min(lo+chunk, len(pairs))})
		}
	}
	forChunks(len(tasks), 1, func(lo, hi int) {
		for _, t := range tasks[lo:hi] {
			body(lists[t.list][t.lo:t.hi])
		}
	})
}

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
// The CSR adjacency is built by a two-level counting sort, with no atomic
// operation and no global sort, so that the random accesses stay in cache:
// the nodes are cut into buckets of 2^shift consecutive ids, and
//
//  1. each piece of the input counts its half-edges (a→b and b→a) per
//     bucket of their source;
//  2. a prefix sum over (bucket, piece) gives every piece its own runs of
//     slots, and the pieces write their half-edges there (bucket by bucket
//     the half-edges are then in input order, whatever the scheduling);
//  3. each bucket, on its own, counts its nodes' degrees, writes their
//     offsets, scatters the targets into its slice of the adjacency (which
//     fits in cache), sorts each node's list and drops repeats.
//
// The edge list is read off the adjacency (the larger neighbours of each
// node, node by node), so it comes out sorted. Extra memory: 8 bytes per
// half-edge, freed before the edge list is allocated.
func assemble(name, kind string, n int, lists [][][2]int32) *Graph {
	m := 0
	for _, l := range lists {
		m += len(l)
	}
	shift := bucketShift(n, 2*m)
	nb := (n + 1<<shift - 1) >> shift
	start, half := partition(lists, nb, shift, true)
	clear(lists)
	// 3. Per bucket: degrees, offsets, scatter, sort, repeats.
	offsets := make([]int, n+1)
	offsets[n] = start[nb]
	adj := make([]int32, start[nb])
	upper := make([]int, nb+1)
	var repeats atomic.Bool
	forChunks(nb, 1, func(b, _ int) {
		lo, hi := b<<shift, min((b+1)<<shift, n)
		cur := getScratch(hi - lo)
		defer putScratch(cur)
		hs := half[start[b]:start[b+1]]
		for _, h := range hs {
			cur[uint32(h>>32)-uint32(lo)]++
		}
		o := 0
		for k := range cur {
			offsets[lo+k] = start[b] + o
			o, cur[k] = o+int(cur[k]), int32(o)
		}
		region := adj[start[b]:start[b+1]]
		for _, h := range hs {
			k := uint32(h>>32) - uint32(lo)
			region[cur[k]] = int32(uint32(h))
			cur[k]++
		}
		rep, up := false, 0
		for k := range cur {
			list := region[offsets[lo+k]-start[b] : cur[k]]
			sortSmall(list)
			for i := 1; i < len(list) && !rep; i++ {
				rep = list[i] == list[i-1]
			}
			up += countAbove(list, int32(lo+k))
		}
		upper[b+1] = up
		if rep {
			repeats.Store(true)
		}
	})
	half = nil
	g := &Graph{Name: name, Kind: kind, N: n, Offsets: offsets, Adj: adj, Tries: 1}
	if repeats.Load() {
		g.Offsets, g.Adj = dropRepeats(n, offsets, adj)
		g.Edges = edgesFromCSR(n, g.Offsets, g.Adj)
	} else {
		g.Edges = edgesFromBlocks(n, shift, offsets, adj, upper)
	}
	return g
}

// partition groups the half-edges of lists by bucket of their source
// (bucket b holds the nodes [b·2^shift, (b+1)·2^shift)): pair (a, b) gives
// the half-edge a→b, and also b→a when both is true. The half-edges of
// bucket b are half[start[b]:start[b+1]], each packed as source<<32 |
// target, in input order whatever the scheduling: each piece of the input
// counts its half-edges per bucket, a prefix sum over (bucket, piece) gives
// every piece its own runs of slots, and the pieces write them there.
func partition(lists [][][2]int32, nb, shift int, both bool) (start []int, half []uint64) {
	m := 0
	for _, l := range lists {
		m += len(l)
	}
	pieces := cutPairs(lists, max(1<<16, (m+511)/512))
	pos := make([]int, len(pieces)*nb)
	forChunks(len(pieces), 1, func(t, _ int) {
		c := pos[t*nb : (t+1)*nb]
		for _, e := range pieces[t] {
			c[e[0]>>shift]++
			if both {
				c[e[1]>>shift]++
			}
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
			a, b := uint32(e[0]), uint32(e[1])
			half[c[a>>shift]] = uint64(a)<<32 | uint64(b)
			c[a>>shift]++
			if both {
				half[c[b>>shift]] = uint64(b)<<32 | uint64(a)
				c[b>>shift]++
			}
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

// bucketShift chooses the bucket size 2^shift of assemble: about 2^18
// half-edges per bucket, so that a bucket's counters and adjacency stay in
// cache, and at most 1024 buckets, so that the pieces do not write to too
// many places at once.
func bucketShift(n, halfEdges int) int {
	per := float64(1<<18) * float64(n) / float64(max(halfEdges, 1))
	shift := 6
	for shift < 16 && float64(int(1)<<(shift+1)) <= per {
		shift++
	}
	for n>>shift > 1024 {
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

// dropRepeats removes the repeated entries of a CSR adjacency whose lists
// are sorted.
func dropRepeats(n int, offsets []int, adj []int32) ([]int, []int32) {
	deg := make([]int32, n)
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			nbrs := adj[offsets[k]:offsets[k+1]]
			d := min(len(nbrs), 1)
			for i := 1; i < len(nbrs); i++ {
				if nbrs[i] != nbrs[i-1] {
					d++
				}
			}
			deg[k] = int32(d)
		}
	})
	compact := make([]int, n+1)
	prefixOffsets(deg, compact, false)
	out := make([]int32, compact[n])
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(out[compact[k]:compact[k+1]], slices.Compact(adj[offsets[k]:offsets[k+1]]))
		}
	})
	return compact, out
}

// edgesFromCSR lists each edge (i, j), i < j, of a sorted CSR adjacency once,
// in lexicographic order: node by node, the neighbours larger than the
// node.
func edgesFromCSR(n int, offsets []int, adj []int32) [][2]int32 {
	const shift = 14
	upper := make([]int, (n+1<<shift-1)>>shift+1)
	forChunks(n, 1<<shift, func(lo, hi int) {
		s := 0
		for k := lo; k < hi; k++ {
			s += countAbove(adj[offsets[k]:offsets[k+1]], int32(k))
		}
		upper[lo>>shift+1] = s
	})
	return edgesFromBlocks(n, shift, offsets, adj, upper)
}

// edgesFromBlocks is edgesFromCSR when the number of edges (i, j), i < j,
// of each block of nodes [b·2^shift, (b+1)·2^shift) is known: upper[b+1]
// (upper[0] = 0). It overwrites upper with its prefix sums and writes the
// blocks in parallel.
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

// union joins the sets of a and b.
func (u unionFind) union(a, b int32) { u.unionJoined(a, b) }

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
// keep most accesses in cache (see components):
//
//  1. each block of 2^compShift consecutive nodes runs its own union–find
//     over the edges inside the block (setBlock numbers its components, the
//     largest one 0, and marks the nodes of that one in a bit set);
//  2. the edges between blocks join those numbers in a shared lock-free
//     union–find (join), which stops as soon as everything is joined. A
//     node's number is that of its block's largest component when its bit
//     is set (the bit set, n/8 bytes, stays in cache), and is read from the
//     array of local numbers only for the others.
//
// For graphs with locality (lattices, Watts–Strogatz, geometric graphs in
// cell order) step 2 works on a few numbers per block; for others it is a
// union–find over the nodes.
type blockComps struct {
	count  []int        // count[b] = first number of block b; count[blocks] = total
	inMain []uint64     // node is in its block's largest local component
	local  []uint16     // node → its local component's number within its block
	minor  atomic.Int64 // nodes outside their block's largest component
}

// newBlockComps returns the numbering of a graph on n nodes, to be filled
// by setBlock for every block and then closed by prefix.
func newBlockComps(n int) *blockComps {
	return &blockComps{
		count:  make([]int, (n+1<<compShift-1)>>compShift+1),
		inMain: make([]uint64, (n+63)/64),
		local:  make([]uint16, n),
	}
}

// setBlock numbers the components of the block that starts at node lo,
// given its union–find forest (parent[i] for node lo+i, parents smaller
// than children), which it flattens.
func (bc *blockComps) setBlock(lo int, parent []int32) {
	size := getScratch(len(parent))
	defer putScratch(size)
	for i, p := range parent {
		parent[i] = parent[p] // parents come first: already flat
		size[parent[i]]++
	}
	main := int32(0)
	for i, s := range size {
		if s > size[main] {
			main = int32(i)
		}
	}
	bc.minor.Add(int64(len(parent)) - int64(size[main]))
	c := 1
	for i, r := range parent {
		switch {
		case r == main:
			bc.local[lo+i] = 0
			bc.inMain[(lo+i)>>6] |= 1 << ((lo + i) & 63)
		case r == int32(i):
			bc.local[lo+i] = uint16(c)
			c++
		default:
			bc.local[lo+i] = bc.local[lo+int(r)]
		}
	}
	bc.count[lo>>compShift+1] = c
}

// prefix turns the per-block counts into first numbers and returns the
// total.
func (bc *blockComps) prefix() int {
	for b := 0; b+1 < len(bc.count); b++ {
		bc.count[b+1] += bc.count[b]
	}
	return bc.count[len(bc.count)-1]
}

// id returns the number of node v's local component.
func (bc *blockComps) id(v int32) int32 {
	if bit(bc.inMain, int(v)) {
		return int32(bc.count[v>>compShift])
	}
	return int32(bc.count[v>>compShift]) + int32(bc.local[v])
}

// join runs step 2. When the nodes outside their block's largest component
// (each block's smaller pieces) are at most an eighth of the graph, it
// first joins across their edges, edges(v, union) calling union(v, w) for
// the neighbours w of v in other blocks; then across all the edges between
// blocks, cross(t, union) calling union(a, b) for those of task t < tasks,
// each edge in one task, and stopping as soon as everything is joined. With
// locality, the smaller pieces are joined first and a few tasks then join
// the blocks' largest components to each other, so that most edges are
// never looked at; without, the count is exact all the same. It returns the
// number of components.
func (bc *blockComps) join(n int, edges func(v int32, union func(a, b int32)), tasks int, cross func(t int, union func(a, b int32))) int {
	total := bc.prefix()
	u := newUnionFind(total)
	var joins atomic.Int64
	run := func(body func(union func(a, b int32))) {
		j := int64(0)
		body(func(a, b int32) {
			if u.unionJoined(bc.id(a), bc.id(b)) {
				j++
			}
		})
		joins.Add(j)
	}
	if bc.minor.Load()*8 <= int64(n) {
		forChunks(n, 1<<compShift, func(lo, hi int) {
			run(func(union func(a, b int32)) {
				for w := lo >> 6; w<<6 < hi; w++ {
					for word := ^bc.inMain[w]; word != 0; word &= word - 1 {
						if v := w<<6 + bits.TrailingZeros64(word); v < hi {
							edges(int32(v), union)
						}
					}
				}
			})
		})
	}
	forChunks(tasks, 1, func(t, _ int) {
		if joins.Load() < int64(total-1) {
			run(func(union func(a, b int32)) { cross(t, union) })
		}
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

// components returns the number of connected components of a CSR graph
// (see blockComps).
func components(n int, offsets []int, adj []int32) int {
	bc := newBlockComps(n)
	forChunks(n, 1<<compShift, func(lo, hi int) {
		parent := getScratch(hi - lo)
		defer putScratch(parent)
		for i := range parent {
			parent[i] = int32(i)
		}
		for k := lo; k < hi; k++ {
			joinSmaller(parent, int32(k-lo), adj[offsets[k]:offsets[k+1]], int32(lo))
		}
		bc.setBlock(lo, parent)
	})
	outside := func(v int32, union func(a, b int32)) {
		for _, w := range adj[offsets[v]:offsets[v+1]] {
			if w>>compShift != v>>compShift {
				union(v, w)
			}
		}
	}
	return bc.join(n, outside, (n+chunk-1)/chunk, func(t int, union func(a, b int32)) {
		for k := t * chunk; k < min((t+1)*chunk, n); k++ {
			for _, v := range adj[offsets[k]:offsets[k+1]] {
				if int(v)>>compShift != k>>compShift && int(v) > k {
					union(int32(k), v)
				}
			}
		}
	})
}
