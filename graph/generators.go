package graph

import (
	"fmt"
	"math"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// MaxTries is the number of draws the random generators make before giving
// up on finding a connected graph.
const MaxTries = 1000

// Sub-stream identifiers of the random generators: attempt t of a generator
// draws from rng.New(seed, rng.Hash(stream, t, 0)).
const (
	streamWattsStrogatz   uint64 = 0x67726170682f7773 // "graph/ws"
	streamErdosRenyi      uint64 = 0x67726170682f6572 // "graph/er"
	streamRandomGeometric uint64 = 0x67726170682f7267 // "graph/rg"
)

// attemptStream returns the random stream of attempt t (0-based) of the
// generator identified by stream.
func attemptStream(seed, stream uint64, t int) *rng.Stream {
	return rng.New(seed, rng.Hash(stream, uint64(t), 0))
}

// checkN validates a node count shared by the generators.
func checkN(gen string, n, minN int) error {
	if n < minN {
		return fmt.Errorf("graph: %s: n must be >= %d, got n=%d", gen, minN, n)
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("graph: %s: n must be <= %d, got n=%d", gen, math.MaxInt32, n)
	}
	return nil
}

// checkEdgeCount refuses graphs whose (expected) number of undirected edges
// exceeds maxEdges.
func checkEdgeCount(gen string, edges float64) error {
	if edges > maxEdges {
		return fmt.Errorf("graph: %s: about %.3g edges, more than the limit %d", gen, edges, maxEdges)
	}
	return nil
}

// checkProb validates a probability parameter.
func checkProb(gen, param string, p float64, allowZero bool) error {
	if math.IsNaN(p) || p < 0 || p > 1 || (!allowZero && p == 0) {
		lo := "["
		if !allowZero {
			lo = "("
		}
		return fmt.Errorf("graph: %s: %s must be in %s0, 1], got %s=%v", gen, param, lo, param, p)
	}
	return nil
}

// Complete returns the complete graph K_n (n >= 2).
func Complete(n int) (*Graph, error) {
	if err := checkN("complete", n, 2); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("complete", float64(n)*float64(n-1)/2); err != nil {
		return nil, err
	}
	g := fromNeighbours(fmt.Sprintf("complete(n=%d)", n), "complete", n,
		func(int) int { return n - 1 },
		func(k int, nb []int32) {
			for i := range nb {
				nb[i] = int32(i)
				if i >= k {
					nb[i]++
				}
			}
		})
	g.closed, g.comps = closedForm{kind: "complete"}, 1
	return g, nil
}

// Cycle returns the cycle C_n, node i joined to i±1 mod n (n >= 3).
func Cycle(n int) (*Graph, error) {
	if err := checkN("cycle", n, 3); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("cycle", float64(n)); err != nil {
		return nil, err
	}
	g := fromNeighbours(fmt.Sprintf("cycle(n=%d)", n), "cycle", n,
		func(int) int { return 2 },
		func(k int, nb []int32) {
			switch k {
			case 0:
				nb[0], nb[1] = 1, int32(n-1)
			case n - 1:
				nb[0], nb[1] = 0, int32(n-2)
			default:
				nb[0], nb[1] = int32(k-1), int32(k+1)
			}
		})
	g.closed, g.comps = closedForm{kind: "cycle"}, 1
	return g, nil
}

// Star returns the star K_{1,n−1} with hub 0 joined to every other node
// (n >= 2). It is the worst case for the degree imbalance of the p_k.
func Star(n int) (*Graph, error) {
	if err := checkN("star", n, 2); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("star", float64(n-1)); err != nil {
		return nil, err
	}
	g := fromNeighbours(fmt.Sprintf("star(n=%d)", n), "star", n,
		func(k int) int {
			if k == 0 {
				return n - 1
			}
			return 1
		},
		func(k int, nb []int32) {
			if k > 0 {
				nb[0] = 0
				return
			}
			for i := range nb {
				nb[i] = int32(i + 1)
			}
		})
	g.closed, g.comps = closedForm{kind: "star"}, 1
	return g, nil
}

// Path returns the path P_n, node i joined to i+1 (n >= 2).
func Path(n int) (*Graph, error) {
	if err := checkN("path", n, 2); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("path", float64(n-1)); err != nil {
		return nil, err
	}
	g := fromNeighbours(fmt.Sprintf("path(n=%d)", n), "path", n,
		func(k int) int {
			if k == 0 || k == n-1 {
				return 1
			}
			return 2
		},
		func(k int, nb []int32) {
			switch k {
			case 0:
				nb[0] = 1
			case n - 1:
				nb[0] = int32(n - 2)
			default:
				nb[0], nb[1] = int32(k-1), int32(k+1)
			}
		})
	g.closed, g.comps = closedForm{kind: "path"}, 1
	return g, nil
}

// checkDims validates grid and torus dimensions.
func checkDims(gen string, rows, cols, minDim int) error {
	if rows < minDim || cols < minDim {
		return fmt.Errorf("graph: %s: rows and cols must be >= %d, got rows=%d cols=%d", gen, minDim, rows, cols)
	}
	if int64(rows)*int64(cols) > math.MaxInt32 {
		return fmt.Errorf("graph: %s: rows×cols must be <= %d, got rows=%d cols=%d", gen, math.MaxInt32, rows, cols)
	}
	if rows*cols < 2 {
		return fmt.Errorf("graph: %s: rows×cols must be >= 2, got rows=%d cols=%d", gen, rows, cols)
	}
	return nil
}

// Grid returns the rows×cols grid (4-neighbour lattice without wrap-around);
// node (r, c) has index r·cols + c. rows, cols >= 1 with at least two nodes.
// A grid is bipartite.
func Grid(rows, cols int) (*Graph, error) {
	if err := checkDims("grid", rows, cols, 1); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("grid", float64(rows)*float64(cols-1)+float64(cols)*float64(rows-1)); err != nil {
		return nil, err
	}
	// Node u = r·cols + c: its neighbours up, left, right, down are in
	// increasing order.
	g := fromNeighbours(fmt.Sprintf("grid(rows=%d,cols=%d)", rows, cols), "grid", rows*cols,
		func(u int) int {
			r, c := u/cols, u%cols
			return b2i(r > 0) + b2i(c > 0) + b2i(c+1 < cols) + b2i(r+1 < rows)
		},
		func(u int, nb []int32) {
			r, c := u/cols, u%cols
			i := 0
			for _, e := range [4]struct {
				ok bool
				v  int
			}{{r > 0, u - cols}, {c > 0, u - 1}, {c+1 < cols, u + 1}, {r+1 < rows, u + cols}} {
				if e.ok {
					nb[i] = int32(e.v)
					i++
				}
			}
		})
	g.closed, g.comps = closedForm{kind: "grid", rows: rows, cols: cols}, 1
	return g, nil
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Torus returns the rows×cols torus (grid with wrap-around in both
// directions, every node of degree 4); node (r, c) has index r·cols + c.
// rows, cols >= 3 so that no edge is doubled. A torus is bipartite exactly
// when rows and cols are both even.
func Torus(rows, cols int) (*Graph, error) {
	if err := checkDims("torus", rows, cols, 3); err != nil {
		return nil, err
	}
	if err := checkEdgeCount("torus", 2*float64(rows)*float64(cols)); err != nil {
		return nil, err
	}
	// rows, cols >= 3: the four neighbours of every node are distinct.
	g := fromNeighbours(fmt.Sprintf("torus(rows=%d,cols=%d)", rows, cols), "torus", rows*cols,
		func(int) int { return 4 },
		func(u int, nb []int32) {
			r, c := u/cols, u%cols
			nb[0] = int32(((r+rows-1)%rows)*cols + c)
			nb[1] = int32(r*cols + (c+cols-1)%cols)
			nb[2] = int32(r*cols + (c+1)%cols)
			nb[3] = int32(((r+1)%rows)*cols + c)
			sortSmall(nb)
		})
	g.closed, g.comps = closedForm{kind: "torus", rows: rows, cols: cols}, 1
	return g, nil
}

// WattsStrogatz returns a connected Watts–Strogatz small-world graph with the
// semantics of networkx's watts_strogatz_graph (docs/design.md §2.3): a ring lattice
// joining each node to its ⌊k/2⌋ nearest neighbours on each side (so k = 5
// gives degree 4, like k = 4), then, for j = 1..⌊k/2⌋ and u = 0..n−1 in that
// order, the lattice edge (u, u+j mod n) is rewired with probability p to
// (u, w), w uniform over the nodes other than u and not already adjacent to
// u (the rewire is skipped when u is adjacent to every node). Rewiring keeps
// the number of edges, n·⌊k/2⌋.
//
// From n = 131072 (largeN) on, the draw is made in parallel from
// counter-based draws keyed by the lattice edge (see wattsStrogatzLarge):
// each lattice edge is still rewired with probability p, to a node w drawn
// uniformly among those farther than ⌊k/2⌋ around the ring from u and not
// already joined to u by a rewired edge (the one difference from the
// sequential process: it never lands on a lattice pair whose edge was
// rewired away, an event of probability about k·p/n). The graph of a given
// seed is then not the one earlier releases drew; below that size it is.
// Either way it is the same whatever the number of workers.
//
// A draw that is not connected is discarded and the graph is redrawn from
// the next sub-seed, up to MaxTries draws; Graph.Tries reports how many were
// made. Requires 2 <= k < n and 0 <= p <= 1.
func WattsStrogatz(n, k int, p float64, seed uint64) (*Graph, error) {
	const gen = "watts-strogatz"
	name, half, err := wattsStrogatzCheck(n, k, p, seed)
	if err != nil {
		return nil, err
	}
	g := drawConnected(seed, func(t int) *Graph {
		if n >= largeN {
			return wattsStrogatzLarge(name, n, half, p, attemptKey(seed, streamWattsStrogatz, t))
		}
		return assemble(name, gen, n, [][][2]int32{wattsStrogatzEdges(n, half, p, attemptStream(seed, streamWattsStrogatz, t))})
	})
	if g != nil {
		return g, nil
	}
	return nil, wattsStrogatzNone(n, k, p)
}

// wattsStrogatzCheck validates WattsStrogatz's parameters and returns the
// graph's name and ⌊k/2⌋.
func wattsStrogatzCheck(n, k int, p float64, seed uint64) (string, int, error) {
	const gen = "watts-strogatz"
	if err := checkN(gen, n, 3); err != nil {
		return "", 0, err
	}
	if k < 2 || k >= n {
		return "", 0, fmt.Errorf("graph: %s: k must be >= 2 and < n (each node joins ⌊k/2⌋ neighbours on each side), got k=%d with n=%d", gen, k, n)
	}
	if err := checkProb(gen, "p", p, true); err != nil {
		return "", 0, err
	}
	half := k / 2
	if err := checkEdgeCount(gen, float64(n)*float64(half)); err != nil {
		return "", 0, err
	}
	return fmt.Sprintf("watts-strogatz(n=%d,k=%d,p=%g,seed=%d)", n, k, p, seed), half, nil
}

// wattsStrogatzNone is WattsStrogatz's error when no draw was connected.
func wattsStrogatzNone(n, k int, p float64) error {
	return fmt.Errorf("graph: %s: no connected graph in %d draws (n=%d, k=%d, p=%g); increase k or decrease p", "watts-strogatz", MaxTries, n, k, p)
}

// wattsStrogatzEdges draws one Watts–Strogatz edge list (ring lattice with
// half neighbours per side, then rewiring with probability p).
func wattsStrogatzEdges(n, half int, p float64, s *rng.Stream) [][2]int32 {
	key := func(a, b int) uint64 {
		if a > b {
			a, b = b, a
		}
		return uint64(a)<<32 | uint64(b)
	}
	// Lattice edge (u, u+j) lives at index (j−1)·n + u and is replaced in
	// place when rewired; present holds the current edge set.
	edges := make([][2]int, n*half)
	present := make(map[uint64]struct{}, n*half)
	deg := make([]int, n)
	for j := 1; j <= half; j++ {
		for u := 0; u < n; u++ {
			v := (u + j) % n
			edges[(j-1)*n+u] = [2]int{u, v}
			present[key(u, v)] = struct{}{}
		}
	}
	for u := range deg {
		deg[u] = 2 * half
	}
	if p > 0 {
		for j := 1; j <= half; j++ {
			for u := 0; u < n; u++ {
				if s.Float64() >= p {
					continue
				}
				if deg[u] >= n-1 {
					continue // u is adjacent to every node: nothing to rewire to
				}
				w := s.IntN(n)
				for w == u || hasKey(present, key(u, w)) {
					w = s.IntN(n)
				}
				v := (u + j) % n
				delete(present, key(u, v))
				present[key(u, w)] = struct{}{}
				deg[v]--
				deg[w]++
				edges[(j-1)*n+u] = [2]int{u, w}
			}
		}
	}
	out := make([][2]int32, len(edges))
	for idx, e := range edges {
		out[idx] = [2]int32{int32(min(e[0], e[1])), int32(max(e[0], e[1]))}
	}
	return out
}

// hasKey reports whether the edge set holds k.
func hasKey(set map[uint64]struct{}, k uint64) bool {
	_, ok := set[k]
	return ok
}

// ErdosRenyi returns a connected Erdős–Rényi graph G(n, p): each of the
// n(n−1)/2 pairs is an edge independently with probability p. The pairs are
// visited with geometric skips (Batagelj–Brandes), so a draw costs
// O(n + edges). From n = 131072 (largeN) on, with p < 1, the rows are cut
// into blocks scanned in parallel, each with its own stream (see
// erdosRenyiLarge): the same G(n, p), but not the graph earlier releases
// drew for the seed. A draw that is not connected is discarded and the
// graph is redrawn from the next sub-seed, up to MaxTries draws; Graph.Tries
// reports how many were made. Requires n >= 2 and 0 < p <= 1; connectivity
// needs p somewhat above ln(n)/n.
func ErdosRenyi(n int, p float64, seed uint64) (*Graph, error) {
	const gen = "erdos-renyi"
	name, err := erdosRenyiCheck(n, p, seed)
	if err != nil {
		return nil, err
	}
	g := drawConnected(seed, func(t int) *Graph {
		if n >= largeN && p < 1 {
			return fromLower(name, gen, n, erdosRenyiLarge(n, p, attemptKey(seed, streamErdosRenyi, t), 0, n))
		}
		return assemble(name, gen, n, [][][2]int32{erdosRenyiEdges(n, p, attemptStream(seed, streamErdosRenyi, t))})
	})
	if g != nil {
		return g, nil
	}
	return nil, erdosRenyiNone(n, p)
}

// erdosRenyiCheck validates ErdosRenyi's parameters and returns the graph's
// name.
func erdosRenyiCheck(n int, p float64, seed uint64) (string, error) {
	const gen = "erdos-renyi"
	if err := checkN(gen, n, 2); err != nil {
		return "", err
	}
	if err := checkProb(gen, "p", p, false); err != nil {
		return "", err
	}
	if err := checkEdgeCount(gen, p*float64(n)*float64(n-1)/2); err != nil {
		return "", err
	}
	return fmt.Sprintf("erdos-renyi(n=%d,p=%g,seed=%d)", n, p, seed), nil
}

// erdosRenyiNone is ErdosRenyi's error when no draw was connected.
func erdosRenyiNone(n int, p float64) error {
	return fmt.Errorf("graph: %s: no connected graph in %d draws (n=%d, p=%g); increase p (connectivity needs p above about ln(n)/n = %.3g)",
		"erdos-renyi", MaxTries, n, p, math.Log(float64(n))/float64(n))
}

// erdosRenyiEdges draws one G(n, p) edge list as pairs (w, v), w < v, in
// increasing order of (v, w).
func erdosRenyiEdges(n int, p float64, s *rng.Stream) [][2]int32 {
	edges := make([][2]int32, 0, int(p*float64(n)*float64(n-1)/2*1.05)+16)
	if p == 1 {
		for v := 1; v < n; v++ {
			for w := 0; w < v; w++ {
				edges = append(edges, [2]int32{int32(w), int32(v)})
			}
		}
		return edges
	}
	lp := math.Log1p(-p)
	limit := float64(n) * float64(n)
	v, w := 1, -1
	for v < n {
		skip := math.Floor(math.Log1p(-s.Float64()) / lp)
		if skip > limit {
			break // beyond every remaining pair
		}
		w += 1 + int(skip)
		for w >= v && v < n {
			w -= v
			v++
		}
		if v < n {
			edges = append(edges, [2]int32{int32(w), int32(v)})
		}
	}
	return edges
}

// RandomGeometric returns a connected random geometric graph: n points
// uniform in the unit square, two nodes adjacent when their Euclidean
// distance is <= radius. Neighbours are found through a cell grid of side >=
// radius. From n = 131072 (largeN) on, the points are counter-based draws
// keyed by the node and the binning and the neighbour search run in
// parallel (see geometricLarge): the same model, but not the points earlier
// releases drew for the seed. A draw that is not connected is discarded
// and the points are redrawn from the next sub-seed, up to MaxTries draws;
// Graph.Tries reports how many were made. Requires n >= 2 and radius > 0;
// connectivity needs a radius somewhat above sqrt(ln(n)/(π n)).
func RandomGeometric(n int, radius float64, seed uint64) (*Graph, error) {
	const gen = "geometric"
	if err := checkN(gen, n, 2); err != nil {
		return nil, err
	}
	if math.IsNaN(radius) || radius <= 0 || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("graph: %s: radius must be positive and finite, got radius=%v", gen, radius)
	}
	if err := checkEdgeCount(gen, math.Min(math.Pi*radius*radius, 1)*float64(n)*float64(n-1)/2); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("geometric(n=%d,radius=%g,seed=%d)", n, radius, seed)
	g := drawConnected(seed, func(t int) *Graph {
		if n >= largeN {
			return assemble(name, gen, n, geometricLarge(n, radius, attemptKey(seed, streamRandomGeometric, t)))
		}
		return assemble(name, gen, n, [][][2]int32{geometricEdges(n, radius, attemptStream(seed, streamRandomGeometric, t))})
	})
	if g != nil {
		return g, nil
	}
	return nil, fmt.Errorf("graph: %s: no connected graph in %d draws (n=%d, radius=%g); increase radius (connectivity needs about sqrt(ln(n)/(π n)) = %.3g)",
		gen, MaxTries, n, radius, math.Sqrt(math.Log(float64(n))/(math.Pi*float64(n))))
}

// geometricEdges draws n points in the unit square (x then y for each node,
// in node order) and returns the pairs within distance radius.
func geometricEdges(n int, radius float64, s *rng.Stream) [][2]int32 {
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = s.Float64()
		ys[i] = s.Float64()
	}
	// m cells per side, each of side 1/m >= radius, at most about n cells.
	m := 1
	if radius < 1 {
		m = max(1, min(int(1/radius), int(math.Sqrt(float64(n)))))
	}
	cellOf := func(x float64) int { return min(int(x*float64(m)), m-1) }
	// Counting sort of the points by cell.
	start := make([]int, m*m+1)
	for i := range xs {
		start[cellOf(ys[i])*m+cellOf(xs[i])+1]++
	}
	for c := 0; c < m*m; c++ {
		start[c+1] += start[c]
	}
	members := make([]int32, n)
	fill := append([]int(nil), start[:m*m]...)
	for i := range xs {
		c := cellOf(ys[i])*m + cellOf(xs[i])
		members[fill[c]] = int32(i)
		fill[c]++
	}
	r2 := radius * radius
	var edges [][2]int32
	for i := range xs {
		cx, cy := cellOf(xs[i]), cellOf(ys[i])
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				x, y := cx+dx, cy+dy
				if x < 0 || y < 0 || x >= m || y >= m {
					continue
				}
				c := y*m + x
				for _, j := range members[start[c]:start[c+1]] {
					if int(j) <= i {
						continue
					}
					ddx, ddy := xs[i]-xs[j], ys[i]-ys[j]
					if ddx*ddx+ddy*ddy <= r2 {
						edges = append(edges, [2]int32{int32(i), j})
					}
				}
			}
		}
	}
	return edges
}

// Tensor returns G ⊗ K_k, the graph of the paper's appendix in which each
// physical node i of G is simulated by k virtual nodes (a, i), a = 0..k−1,
// with index a·n + i. It follows the adjacency used in the proof of the
// appendix proposition, A⊗ = 1_k 1_kᵀ ⊗ A: (a, i) ~ (b, j) iff i ~ j in G, for
// all a, b (a = b included). Hence |V⊗| = k·n, |E⊗| = k²·|E| and every degree
// is multiplied by k, and the spectral gap is gap(G)/k when G is connected,
// non-bipartite and not complete. (The appendix's prose also joins the k
// virtual nodes of a physical node to each other; that graph has more edges
// and the proposition does not hold for it, so the proof's adjacency is the
// one implemented.) Requires k >= 1; k = 1 returns a copy of G.
func Tensor(g *Graph, k int) (*Graph, error) {
	const gen = "tensor"
	if g == nil {
		return nil, fmt.Errorf("graph: %s: nil graph", gen)
	}
	if k < 1 {
		return nil, fmt.Errorf("graph: %s: k must be >= 1, got k=%d", gen, k)
	}
	if int64(k)*int64(g.N) > math.MaxInt32 {
		return nil, fmt.Errorf("graph: %s: k·n must be <= %d, got k=%d n=%d", gen, math.MaxInt32, k, g.N)
	}
	if err := checkEdgeCount(gen, float64(k)*float64(k)*float64(len(g.Edges))); err != nil {
		return nil, err
	}
	n := int32(g.N)
	edges := make([][2]int32, 0, k*k*len(g.Edges))
	for a := int32(0); a < int32(k); a++ {
		for b := int32(0); b < int32(k); b++ {
			for _, e := range g.Edges {
				x, y := a*n+e[0], b*n+e[1]
				edges = append(edges, [2]int32{min(x, y), max(x, y)})
			}
		}
	}
	out, err := FromEdges(fmt.Sprintf("tensor(%s,k=%d)", g.Name, k), k*g.N, edges)
	if err != nil {
		return nil, err
	}
	out.Kind = gen
	out.Merged = g.Merged // the source's repeats, not the product's own
	return out, nil
}

// drawConnected builds draw(t) for the attempts t = 0, 1, ... until one is
// connected, up to MaxTries draws, and records the attempts and the seed.
// It returns nil when none was, so that the caller can say which parameter
// to change.
func drawConnected(seed uint64, draw func(t int) *Graph) *Graph {
	for t := 0; t < MaxTries; t++ {
		if g := draw(t); g.Connected() {
			g.Tries, g.Seed, g.comps = t+1, seed, 1
			return g
		}
	}
	return nil
}
