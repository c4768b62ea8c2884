package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
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
// is normalised to (min, max), duplicates (in either orientation) are merged,
// and the list is sorted; self-loops and node ids outside [0, n) are errors.
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
	for idx, e := range edges {
		a, b := e[0], e[1]
		if a < 0 || b < 0 || int(a) >= n || int(b) >= n {
			return nil, fmt.Errorf("graph: %s: edge %d (%d, %d) has a node id outside [0, %d)", name, idx, a, b, n)
		}
		if a == b {
			return nil, fmt.Errorf("graph: %s: edge %d (%d, %d) is a self-loop", name, idx, a, b)
		}
		if a > b {
			a, b = b, a
		}
		norm[idx] = [2]int32{a, b}
	}
	if !slices.IsSortedFunc(norm, compareEdges) {
		slices.SortFunc(norm, compareEdges)
	}
	norm = slices.Compact(norm)
	return newGraph(name, "edges", n, slices.Clip(norm)), nil
}

// compareEdges orders edges lexicographically.
func compareEdges(x, y [2]int32) int {
	if c := cmp.Compare(x[0], y[0]); c != 0 {
		return c
	}
	return cmp.Compare(x[1], y[1])
}

// newGraph wraps an already normalised, sorted, duplicate-free edge list and
// builds the CSR adjacency.
func newGraph(name, kind string, n int, edges [][2]int32) *Graph {
	g := &Graph{Name: name, Kind: kind, N: n, Edges: edges, Tries: 1}
	g.Offsets = make([]int, n+1)
	for _, e := range edges {
		g.Offsets[e[0]+1]++
		g.Offsets[e[1]+1]++
	}
	for k := 0; k < n; k++ {
		g.Offsets[k+1] += g.Offsets[k]
	}
	g.Adj = make([]int32, 2*len(edges))
	next := slices.Clone(g.Offsets[:n])
	// Edges are sorted, so every edge (i, k) with i < k comes before any
	// edge (k, j): each node receives its smaller neighbours in increasing
	// order, then its larger ones in increasing order.
	for _, e := range edges {
		a, b := e[0], e[1]
		g.Adj[next[a]] = b
		next[a]++
		g.Adj[next[b]] = a
		next[b]++
	}
	return g
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

// Components returns the number of connected components.
func (g *Graph) Components() int {
	seen := make([]bool, g.N)
	stack := make([]int32, 0, 64)
	comps := 0
	for s := 0; s < g.N; s++ {
		if seen[s] {
			continue
		}
		comps++
		seen[s] = true
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.Neighbors(int(u)) {
				if !seen[v] {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
	}
	return comps
}

// Connected reports whether the graph has exactly one connected component.
func (g *Graph) Connected() bool { return g.N > 0 && g.Components() == 1 }

// Bipartite reports whether the nodes can be 2-coloured so that every edge
// joins two colours (checked on every component). The gossip matrix of a
// bipartite graph has eigenvalue −1 when the graph is regular, and the
// convergence theory assumes a non-bipartite graph.
func (g *Graph) Bipartite() bool {
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
		return nil, fmt.Errorf("graph: %s is disconnected (%d connected components); gossip needs a connected graph", g.Name, c)
	}
	if g.Bipartite() {
		warnings = append(warnings, "graph is bipartite: the convergence theory assumes a non-bipartite graph")
	}
	return warnings, nil
}
