package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxEdges bounds the number of undirected edges a generator will build
// (2^28 edges already take 4 GiB between the edge list and the adjacency).
const maxEdges = 1 << 28

// Graph is a simple undirected graph on nodes 0..N-1 (see the package
// documentation for the conventions). Build it with FromEdges, a generator,
// LoadEdgeList or Build; treat it as immutable afterwards.
type Graph struct {
	// Name describes the graph for humans, for example
	// "watts-strogatz(n=1000,k=5,p=0.3,seed=1)".
	Name string
	// Kind is the family that produced the graph: one of Kinds for the
	// generators and the loader ("file"), "tensor" for Tensor, and "edges"
	// for FromEdges.
	Kind string
	// N is the number of nodes.
	N int
	// Edges lists each undirected edge once as (i, j) with i < j, sorted
	// lexicographically, without duplicates or self-loops.
	Edges [][2]int32
	// Offsets and Adj are the CSR adjacency: the neighbours of node k are
	// Adj[Offsets[k]:Offsets[k+1]], in increasing order. len(Offsets) = N+1
	// and len(Adj) = 2·len(Edges).
	Offsets []int
	Adj     []int32
	// Tries is the number of draws a random generator made until the graph
	// was connected (the accepted draw included); it is 1 for deterministic
	// generators, loaded files and FromEdges.
	Tries int
	// Seed is the seed given to a random generator (0 for the others).
	Seed uint64
	// Merged is the number of edges of the list given to FromEdges (or of
	// an edge-list file) that repeat an earlier one, in either orientation,
	// and were merged into it; Check warns of them. 0 for the generators.
	Merged int

	// comps is the number of connected components when the constructor
	// knows it (the generators: their graphs are connected), 0 otherwise.
	comps int

	// closed records the generator family and its dimensions, for which
	// SpectralGap knows the Laplacian spectrum in closed form. It is set only
	// by the generators themselves, never for loaded or hand-built graphs.
	closed closedForm
}

// closedForm names a family with a known Laplacian spectrum.
type closedForm struct {
	kind       string // "", "complete", "cycle", "star", "path", "grid", "torus"
	rows, cols int    // grid and torus dimensions
}

// FromEdges builds a graph on n nodes from an undirected edge list. Each pair
// is normalised to (min, max), duplicates (in either orientation) are merged
// (counted in Merged, which Check warns of), and the list is sorted;
// self-loops and node ids outside [0, n) are errors.
// The input slice is not modified. The graph need not be connected (see
// Check).
func FromEdges(name string, n int, edges [][2]int32) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: %s: n must be >= 1, got n=%d", name, n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("graph: %s: n must be <= %d (node ids are int32), got n=%d", name, math.MaxInt32, n)
	}
	norm := make([][2]int32, len(edges))
	// Normalise in parallel; each block reports its first bad edge, and the
	// first of those is the one named, as a serial scan would.
	bad := make([]int, (len(edges)+chunk-1)/chunk)
	forChunks(len(edges), chunk, func(lo, hi int) {
		bad[lo/chunk] = -1
		for idx := lo; idx < hi; idx++ {
			a, b := edges[idx][0], edges[idx][1]
			if a < 0 || b < 0 || int(a) >= n || int(b) >= n || a == b {
				bad[lo/chunk] = idx
				return
			}
			norm[idx] = [2]int32{min(a, b), max(a, b)}
		}
	})
	for _, idx := range bad {
		if idx < 0 {
			continue
		}
		a, b := edges[idx][0], edges[idx][1]
		if a == b && a >= 0 && int(a) < n {
			return nil, fmt.Errorf("graph: %s: edge %d (%d, %d) is a self-loop", name, idx, a, b)
		}
		return nil, fmt.Errorf("graph: %s: edge %d (%d, %d) has a node id outside [0, %d)", name, idx, a, b, n)
	}
	g := assemble(name, "edges", n, [][][2]int32{norm})
	g.Merged = len(edges) - len(g.Edges)
	return g, nil
}

// compareEdges orders edges lexicographically.
func compareEdges(x, y [2]int32) int {
	if c := cmp.Compare(x[0], y[0]); c != 0 {
		return c
	}
	return cmp.Compare(x[1], y[1])
}

// Degree returns the number of neighbours of node k.
func (g *Graph) Degree(k int) int { return g.Offsets[k+1] - g.Offsets[k] }

// UndirectedEdges returns the number of undirected edges, len(Edges).
func (g *Graph) UndirectedEdges() int { return len(g.Edges) }

// OrderedEdges returns |E| in the paper's convention: the number of ordered
// pairs (i, j) with i ~ j, twice the number of undirected edges.
func (g *Graph) OrderedEdges() int { return 2 * len(g.Edges) }

// P returns p_k = 2·d_k/|E| (|E| ordered), the probability that node k is an
// endpoint of an edge drawn uniformly. The p_k sum to 2. P returns NaN for a
// graph without edges.
func (g *Graph) P(k int) float64 {
	if len(g.Edges) == 0 {
		return math.NaN()
	}
	return float64(2*g.Degree(k)) / float64(g.OrderedEdges())
}

// Neighbors returns the neighbours of node k in increasing order. The slice
// aliases the graph's storage and must not be modified.
func (g *Graph) Neighbors(k int) []int32 { return g.Adj[g.Offsets[k]:g.Offsets[k+1]:g.Offsets[k+1]] }

// HasEdge reports whether i and j are adjacent (binary search in the
// adjacency of i).
func (g *Graph) HasEdge(i, j int) bool {
	_, found := slices.BinarySearch(g.Neighbors(i), int32(j))
	return found
}

// MaxDegree returns the largest node degree (0 for a graph without nodes).
func (g *Graph) MaxDegree() int {
	m := 0
	for k := 0; k < g.N; k++ {
		m = max(m, g.Degree(k))
	}
	return m
}

// MinDegree returns the smallest node degree (0 for a graph without nodes).
func (g *Graph) MinDegree() int {
	if g.N == 0 {
		return 0
	}
	m := g.Degree(0)
	for k := 1; k < g.N; k++ {
		m = min(m, g.Degree(k))
	}
	return m
}

// Components returns the number of connected components: known from
// construction for the generated graphs (connected), otherwise counted by a
// parallel union–find that skips most edges (Afforest, see components).
func (g *Graph) Components() int {
	if g.comps > 0 {
		return g.comps
	}
	return components(g.N, g.Offsets, g.Adj)
}

// Connected reports whether the graph has exactly one connected component.
func (g *Graph) Connected() bool { return g.N > 0 && g.Components() == 1 }

// Bipartite reports whether the nodes can be 2-coloured so that every edge
// joins two colours (checked on every component). The gossip matrix of a
// bipartite graph has eigenvalue −1 when the graph is regular, and the
// convergence theory assumes a non-bipartite graph.
//
// The generated families with a closed form answer at once; otherwise a
// depth-first 2-colouring runs, which stops at the first edge between two
// nodes of one colour (most graphs that are not bipartite have short odd
// cycles everywhere). It is sequential: on the graphs that are bipartite in
// practice (lattices, trees) its accesses are local, and it beat a parallel
// union–find on the bipartite double cover by 3–4× at n = 10⁷.
func (g *Graph) Bipartite() bool {
	if b, ok := g.closed.bipartite(g.N); ok {
		return b
	}
	color := make([]int8, g.N) // 0 unvisited, ±1 colours
	stack := make([]int32, 0, 64)
	for s := 0; s < g.N; s++ {
		if color[s] != 0 {
			continue
		}
		color[s] = 1
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.Neighbors(int(u)) {
				switch color[v] {
				case 0:
					color[v] = -color[u]
					stack = append(stack, v)
				case color[u]:
					return false
				}
			}
		}
	}
	return true
}

// bipartite answers Bipartite for a closed-form family on n nodes; ok is
// false when c is not one.
func (c closedForm) bipartite(n int) (b, ok bool) {
	switch c.kind {
	case "complete":
		return n == 2, true
	case "cycle":
		return n%2 == 0, true
	case "star", "path", "grid":
		return true, true
	case "torus":
		return c.rows%2 == 0 && c.cols%2 == 0, true
	}
	return false, false
}

// Validate checks the structural invariants documented on Graph: edges
// normalised, sorted and unique, ids in range, and a CSR adjacency that
// agrees with the edge list. Graphs built by this package always pass; it is
// meant for graphs assembled by hand or deserialised.
func (g *Graph) Validate() error {
	if g == nil {
		return errors.New("graph: nil graph")
	}
	if g.N < 1 {
		return fmt.Errorf("graph: %s: n must be >= 1, got %d", g.Name, g.N)
	}
	for idx, e := range g.Edges {
		if e[0] < 0 || int(e[1]) >= g.N || e[0] >= e[1] {
			return fmt.Errorf("graph: %s: edge %d (%d, %d) is not a pair i < j in [0, %d)", g.Name, idx, e[0], e[1], g.N)
		}
		if idx > 0 && compareEdges(g.Edges[idx-1], e) >= 0 {
			return fmt.Errorf("graph: %s: edge %d (%d, %d) is out of order or duplicated", g.Name, idx, e[0], e[1])
		}
	}
	if len(g.Offsets) != g.N+1 || g.Offsets[0] != 0 || g.Offsets[g.N] != len(g.Adj) || len(g.Adj) != 2*len(g.Edges) {
		return fmt.Errorf("graph: %s: CSR adjacency has inconsistent lengths", g.Name)
	}
	for k := 0; k < g.N; k++ {
		if g.Offsets[k+1] < g.Offsets[k] {
			return fmt.Errorf("graph: %s: CSR offsets decrease at node %d", g.Name, k)
		}
		nb := g.Neighbors(k)
		for idx, v := range nb {
			if v < 0 || int(v) >= g.N || int(v) == k || (idx > 0 && nb[idx-1] >= v) {
				return fmt.Errorf("graph: %s: CSR adjacency of node %d is invalid", g.Name, k)
			}
		}
	}
	for idx, e := range g.Edges {
		if !g.HasEdge(int(e[0]), int(e[1])) || !g.HasEdge(int(e[1]), int(e[0])) {
			return fmt.Errorf("graph: %s: edge %d (%d, %d) is missing from the adjacency", g.Name, idx, e[0], e[1])
		}
	}
	return nil
}

// BipartiteWarning is Check's warning for a bipartite graph.
const BipartiteWarning = "graph is bipartite: the convergence theory assumes a non-bipartite graph"

// Check reports whether g is usable by the gossip algorithms. A nil graph, a
// graph without edges and a disconnected graph are errors; a bipartite graph
// gives a warning, since the convergence theory assumes a connected
// non-bipartite graph.
func Check(g *Graph) (warnings []string, err error) {
	if g == nil {
		return nil, errors.New("graph: nil graph")
	}
	if len(g.Edges) == 0 {
		return nil, fmt.Errorf("graph: %s has no edges", g.Name)
	}
	if c := g.Components(); c != 1 {
		if iso := g.isolated(maxNamed + 1); len(iso) > 0 {
			return nil, fmt.Errorf("graph: %s has %s without an edge (%d nodes, %d connected components); gossip needs a connected graph", g.Name, nodeList(iso), g.N, c)
		}
		return nil, fmt.Errorf("graph: %s is disconnected (%d connected components); gossip needs a connected graph", g.Name, c)
	}
	if g.Bipartite() {
		warnings = append(warnings, BipartiteWarning)
	}
	if g.Merged > 0 {
		warnings = append(warnings, fmt.Sprintf("graph %s: %d of its edges repeat another (the same pair, in either orientation) and were merged: %d edges remain", g.Name, g.Merged, len(g.Edges)))
	}
	return warnings, nil
}

// maxNamed is the number of nodes an error names before it says "...".
const maxNamed = 10

// isolated returns up to limit nodes of degree 0, in increasing order.
func (g *Graph) isolated(limit int) []int {
	var out []int
	for k := 0; k < g.N && len(out) < limit; k++ {
		if g.Offsets[k] == g.Offsets[k+1] {
			out = append(out, k)
		}
	}
	return out
}

// nodeList names nodes: "node 5", "nodes 5, 17", "nodes 0, 1, ... (more)".
func nodeList(ids []int) string {
	parts := make([]string, 0, len(ids))
	for i, k := range ids {
		if i == maxNamed {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(k))
	}
	if len(ids) == 1 {
		return "node " + parts[0]
	}
	return "nodes " + strings.Join(parts, ", ")
}
