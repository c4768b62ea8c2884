package graph

import (
	"slices"
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
// takes the lists over and drops them once the adjacency is built, so that
// their memory can be reused for the edge list.
//
// The CSR adjacency is built without sorting the edges: degrees are counted
// with atomic adds, a parallel prefix sum gives the offsets, the pairs are
// scattered with atomic cursors (in an order that depends on the
// scheduling), and each node's list is then sorted and cleared of repeats,
// which makes the result independent of that order. The edge list is read
// off the adjacency (the larger neighbours of each node, node by node), so
// it comes out sorted. Extra memory: a 4-byte counter per node.
func assemble(name, kind string, n int, lists [][][2]int32) *Graph {
	deg := make([]int32, n)
	forPairs(lists, func(pairs [][2]int32) {
		for _, e := range pairs {
			atomic.AddInt32(&deg[e[0]], 1)
			atomic.AddInt32(&deg[e[1]], 1)
		}
	})
	offsets := make([]int, n+1)
	prefixOffsets(deg, offsets, true)
	adj := make([]int32, offsets[n])
	forPairs(lists, func(pairs [][2]int32) {
		for _, e := range pairs {
			a, b := e[0], e[1]
			adj[atomic.AddInt32(&deg[a], 1)-1] = b
			adj[atomic.AddInt32(&deg[b], 1)-1] = a
		}
	})
	clear(lists)
	// Sort each list and drop repeats; deg becomes the number of distinct
	// neighbours.
	var repeats atomic.Bool
	forChunks(n, chunk, func(lo, hi int) {
		rep := false
		for k := lo; k < hi; k++ {
			nb := adj[offsets[k]:offsets[k+1]]
			sortSmall(nb)
			d := len(slices.Compact(nb))
			rep = rep || d != len(nb)
			deg[k] = int32(d)
		}
		if rep {
			repeats.Store(true)
		}
	})
	if repeats.Load() {
		compact := make([]int, n+1)
		prefixOffsets(deg, compact, false)
		out := make([]int32, compact[n])
		forChunks(n, chunk, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				copy(out[compact[k]:compact[k+1]], adj[offsets[k]:])
			}
		})
		offsets, adj = compact, out
	}
	g := &Graph{Name: name, Kind: kind, N: n, Offsets: offsets, Adj: adj, Tries: 1}
	g.Edges = edgesFromCSR(n, offsets, adj, deg)
	return g
}

// edgesFromCSR lists each edge (i, j), i < j, of a sorted CSR adjacency once,
// in lexicographic order: node by node, the neighbours larger than the
// node. scratch (one entry per node) is overwritten.
func edgesFromCSR(n int, offsets []int, adj []int32, scratch []int32) [][2]int32 {
	// scratch[k] = number of neighbours of k larger than k.
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			nb := adj[offsets[k]:offsets[k+1]]
			i, _ := slices.BinarySearch(nb, int32(k)+1)
			scratch[k] = int32(len(nb) - i)
		}
	})
	start := make([]int, n+1)
	prefixOffsets(scratch, start, false)
	edges := make([][2]int32, start[n])
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			nb := adj[offsets[k]:offsets[k+1]]
			up := nb[len(nb)-int(scratch[k]):]
			out := edges[start[k]:]
			for i, v := range up {
				out[i] = [2]int32{int32(k), v}
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
	deg := make([]int32, n)
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			deg[k] = int32(degree(k))
		}
	})
	offsets := make([]int, n+1)
	prefixOffsets(deg, offsets, false)
	adj := make([]int32, offsets[n])
	forChunks(n, chunk, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			fill(k, adj[offsets[k]:offsets[k+1]])
		}
	})
	g := &Graph{Name: name, Kind: kind, N: n, Offsets: offsets, Adj: adj, Tries: 1}
	g.Edges = edgesFromCSR(n, offsets, adj, deg)
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
func (u unionFind) union(a, b int32) {
	for {
		a, b = u.find(a), u.find(b)
		if a == b {
			return
		}
		if a < b {
			a, b = b, a
		}
		if atomic.CompareAndSwapInt32(&u[a], a, b) {
			return
		}
	}
}

// roots counts the sets.
func (u unionFind) roots() int {
	var total atomic.Int64
	forChunks(len(u), chunk, func(lo, hi int) {
		c := 0
		for k := lo; k < hi; k++ {
			if u[k] == int32(k) {
				c++
			}
		}
		total.Add(int64(c))
	})
	return int(total.Load())
}

// countComponents returns the number of connected components of the graph
// on n nodes with the edges of lists (parallel union–find).
func countComponents(n int, lists [][][2]int32) int {
	u := newUnionFind(n)
	forPairs(lists, func(pairs [][2]int32) {
		for _, e := range pairs {
			u.union(e[0], e[1])
		}
	})
	return u.roots()
}
