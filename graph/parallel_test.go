package graph

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// withLarge runs f with the large (parallel, counter-based) generators
// switched on from n = from.
func withLarge(t testing.TB, from int, f func()) {
	t.Helper()
	saved := largeN
	largeN = from
	defer func() { largeN = saved }()
	f()
}

// withWorkers runs f with the builders on w workers and GOMAXPROCS procs.
func withWorkers(w, procs int, f func()) {
	savedW := workers
	savedP := runtime.GOMAXPROCS(procs)
	workers = w
	defer func() { workers = savedW; runtime.GOMAXPROCS(savedP) }()
	f()
}

// sameGraph reports how a and b differ (Edges, Offsets, Adj, Tries), or "".
func sameGraph(a, b *Graph) string {
	switch {
	case !slices.Equal(a.Edges, b.Edges):
		return "edges differ"
	case !slices.Equal(a.Offsets, b.Offsets):
		return "offsets differ"
	case !slices.Equal(a.Adj, b.Adj):
		return "adjacency differs"
	case a.Tries != b.Tries:
		return fmt.Sprintf("tries %d vs %d", a.Tries, b.Tries)
	}
	return ""
}

// TestBuildersIndependentOfWorkers: every generator, FromEdges and Tensor
// give identical Edges, Offsets and Adj on 1, 2 and 8 workers (and
// GOMAXPROCS 1, 2, 8), the random ones with their large generators.
func TestBuildersIndependentOfWorkers(t *testing.T) {
	mk := must(t)
	r := rng.New(5, 6)
	raw := make([][2]int32, 60000)
	for i := range raw {
		raw[i] = [2]int32{int32(r.IntN(20000)), int32(r.IntN(20000))}
		if raw[i][0] == raw[i][1] {
			raw[i][1] = (raw[i][1] + 1) % 20000
		}
	}
	raw = append(raw, raw[:5000]...) // repeats
	builds := []struct {
		name string
		make func() *Graph
	}{
		{"watts-strogatz", func() *Graph { return mk(WattsStrogatz(150000, 5, 0.3, 7)) }},
		{"watts-strogatz k=8 p=1", func() *Graph { return mk(WattsStrogatz(40000, 8, 1, 7)) }},
		{"watts-strogatz crowded", func() *Graph { return mk(WattsStrogatz(40, 30, 1, 7)) }},
		{"erdos-renyi", func() *Graph { return mk(ErdosRenyi(30000, 0.0008, 7)) }},
		{"geometric", func() *Graph { return mk(RandomGeometric(30000, 0.015, 7)) }},
		{"grid", func() *Graph { return mk(Grid(300, 500)) }},
		{"torus", func() *Graph { return mk(Torus(301, 400)) }},
		{"cycle", func() *Graph { return mk(Cycle(100001)) }},
		{"path", func() *Graph { return mk(Path(100001)) }},
		{"star", func() *Graph { return mk(Star(100001)) }},
		{"complete", func() *Graph { return mk(Complete(700)) }},
		{"edges", func() *Graph { return mk(FromEdges("raw", 20000, raw)) }},
		{"tensor", func() *Graph { return mk(Tensor(mk(WattsStrogatz(3000, 5, 0.3, 7)), 3)) }},
	}
	withLarge(t, 3, func() {
		for _, b := range builds {
			var ref *Graph
			withWorkers(1, 1, func() { ref = b.make() })
			for _, c := range [][2]int{{2, 2}, {8, 8}, {8, 2}, {0, 3}} {
				var g *Graph
				withWorkers(c[0], c[1], func() { g = b.make() })
				if d := sameGraph(ref, g); d != "" {
					t.Errorf("%s: %d workers, GOMAXPROCS %d: %s from 1 worker", b.name, c[0], c[1], d)
				}
			}
		}
	})
}

// bfsComponents is the reference component count.
func bfsComponents(g *Graph) int {
	seen := make([]bool, g.N)
	comps := 0
	var stack []int32
	for s := range g.N {
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

// TestComponentsMatchBFS: the block union–find counts components like a
// BFS, on graphs of several blocks with and without locality, and so does
// the count the large Watts–Strogatz builder makes as it goes.
func TestComponentsMatchBFS(t *testing.T) {
	mk := must(t)
	r := rng.New(1, 2)
	const n = 3<<compShift + 123
	for _, m := range []int{0, n / 4, n / 2, n - 1000, n, 2 * n} {
		for _, local := range []bool{false, true} {
			edges := make([][2]int32, 0, m)
			for range m {
				a := r.IntN(n)
				b := r.IntN(n)
				if local {
					b = (a + 1 + r.IntN(3)) % n
				}
				if a != b {
					edges = append(edges, [2]int32{int32(a), int32(b)})
				}
			}
			g := mk(FromEdges("random", n, edges))
			for _, w := range []int{1, 2, 8} {
				withWorkers(w, w, func() {
					if got, want := g.Components(), bfsComponents(g); got != want {
						t.Errorf("m=%d local=%v workers=%d: %d components, BFS says %d", m, local, w, got, want)
					}
				})
			}
		}
	}
	for _, c := range []struct {
		n, half int
		p       float64
	}{{n, 1, 0.5}, {n, 1, 0.05}, {n, 2, 0.3}, {3000, 1, 0.6}, {50, 4, 1}} {
		for s := range uint64(3) {
			g := wattsStrogatzLarge("ws", c.n, c.half, c.p, s)
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if want := bfsComponents(g); g.comps != want || components(g.N, g.Offsets, g.Adj) != want {
				t.Errorf("watts-strogatz n=%d half=%d p=%g key=%d: builder counted %d components, union-find %d, BFS %d",
					c.n, c.half, c.p, s, g.comps, components(g.N, g.Offsets, g.Adj), want)
			}
		}
	}
}

// wsStats returns the fraction of long-range edges (ring distance > half:
// rewired) and the mean local clustering coefficient.
func wsStats(g *Graph, half int) (longRange, clustering float64) {
	long := 0
	for _, e := range g.Edges {
		d := int(e[1] - e[0])
		if min(d, g.N-d) > half {
			long++
		}
	}
	sum := 0.0
	for k := range g.N {
		nb := g.Neighbors(k)
		if len(nb) < 2 {
			continue
		}
		links := 0
		for i, a := range nb {
			for _, b := range nb[i+1:] {
				if g.HasEdge(int(a), int(b)) {
					links++
				}
			}
		}
		sum += 2 * float64(links) / float64(len(nb)*(len(nb)-1))
	}
	return float64(long) / float64(len(g.Edges)), sum / float64(g.N)
}

// TestWattsStrogatzLargeStatistics holds the parallel generator to the
// semantics of the sequential one: n·⌊k/2⌋ edges (mean degree exactly
// 2⌊k/2⌋), the lattice at p = 0, a fraction p of rewired edges within a few
// standard errors, a clustering coefficient that falls with p and agrees
// with the sequential generator's, and redraws until connected.
func TestWattsStrogatzLargeStatistics(t *testing.T) {
	mk := must(t)
	const n = 20000
	for _, k := range []int{4, 5, 6} {
		half := k / 2
		m := n * half
		prev := math.Inf(1)
		for _, p := range []float64{0, 0.1, 0.3, 0.6, 1} {
			old := mk(WattsStrogatz(n, k, p, 3))
			var g *Graph
			withLarge(t, 3, func() { g = mk(WattsStrogatz(n, k, p, 3)) })
			if len(g.Edges) != m || g.OrderedEdges() != 2*half*n {
				t.Fatalf("k=%d p=%g: %d edges, want %d (mean degree %d)", k, p, len(g.Edges), m, 2*half)
			}
			if p == 0 && !slices.Equal(g.Edges, old.Edges) {
				t.Fatalf("k=%d p=0: not the ring lattice", k)
			}
			frac, cc := wsStats(g, half)
			oldFrac, oldCC := wsStats(old, half)
			se := math.Sqrt(p * (1 - p) / float64(m))
			if math.Abs(frac-p) > 4*se+1e-12 {
				t.Errorf("k=%d p=%g: rewired fraction %.4f, want %g ± %.4f", k, p, frac, p, 4*se)
			}
			// The sequential generator may rewire onto a lattice pair whose
			// edge has left (probability about 2·half·p/n): slightly fewer
			// long-range edges.
			if math.Abs(oldFrac-p) > 4*se+4*float64(half)*p/n {
				t.Errorf("k=%d p=%g: sequential generator's rewired fraction %.4f", k, p, oldFrac)
			}
			if math.Abs(cc-oldCC) > 0.02+0.03*oldCC {
				t.Errorf("k=%d p=%g: clustering %.4f, sequential generator %.4f", k, p, cc, oldCC)
			}
			if cc >= prev {
				t.Errorf("k=%d: clustering %.4f at p=%g does not fall below %.4f", k, cc, p, prev)
			}
			prev = cc
			t.Logf("k=%d p=%-3g rewired %.4f (sequential %.4f), clustering %.4f (sequential %.4f), tries %d", k, p, frac, oldFrac, cc, oldCC, g.Tries)
		}
	}
	// Sparse rings are often disconnected: the retries are made and
	// reported.
	withLarge(t, 3, func() {
		retried := false
		for s := range uint64(20) {
			g := mk(WattsStrogatz(60, 2, 0.6, s))
			if !g.Connected() || g.Components() != 1 || bfsComponents(g) != 1 {
				t.Fatalf("seed %d: not connected", s)
			}
			retried = retried || g.Tries > 1
		}
		if !retried {
			t.Error("no draw of a sparse ring needed a retry")
		}
	})
}

// TestWattsStrogatzLargeCrowded: with few targets per node the rewired
// edges collide often; the losers still find free pairs or keep their
// lattice edge, and the graph stays simple with n·⌊k/2⌋ edges.
func TestWattsStrogatzLargeCrowded(t *testing.T) {
	mk := must(t)
	withLarge(t, 3, func() {
		for _, c := range []struct{ n, k int }{{12, 10}, {13, 10}, {20, 12}, {40, 30}, {200, 20}, {9, 4}} {
			for s := range uint64(5) {
				g := mk(WattsStrogatz(c.n, c.k, 1, s))
				if len(g.Edges) != c.n*(c.k/2) {
					t.Errorf("n=%d k=%d: %d edges, want %d", c.n, c.k, len(g.Edges), c.n*(c.k/2))
				}
			}
		}
	})
}

// TestErdosRenyiLarge: the blocked geometric skips give G(n, p): the edge
// count is binomial, and every pair appears with frequency p, across
// block boundaries included.
func TestErdosRenyiLarge(t *testing.T) {
	mk := must(t)
	withLarge(t, 3, func() {
		const n, p = 20000, 0.001
		g := mk(ErdosRenyi(n, p, 8))
		mean := p * n * (n - 1) / 2
		if d := math.Abs(float64(len(g.Edges)) - mean); d > 5*math.Sqrt(mean*(1-p)) {
			t.Errorf("%d edges, expected %.0f", len(g.Edges), mean)
		}
	})
	saved := erBlockEdges
	erBlockEdges = 1 // blocks of n pairs: several per graph
	defer func() { erBlockEdges = saved }()
	for _, c := range []struct {
		n int
		p float64
	}{{6, 0.5}, {9, 0.3}} {
		count := make(map[[2]int32]int)
		const draws = 1000
		for s := range uint64(draws) {
			for _, l := range erdosRenyiLarge(c.n, c.p, s, 0, c.n) {
				for _, e := range l {
					if e[0] < 0 || e[0] >= e[1] || int(e[1]) >= c.n {
						t.Fatalf("bad pair %v", e)
					}
					count[e]++
				}
			}
		}
		pairs := c.n * (c.n - 1) / 2
		if len(count) != pairs {
			t.Fatalf("n=%d: %d distinct pairs drawn, want %d", c.n, len(count), pairs)
		}
		sd := math.Sqrt(draws * c.p * (1 - c.p))
		for e, k := range count {
			if math.Abs(float64(k)-draws*c.p) > 5*sd {
				t.Errorf("n=%d p=%g: pair %v drawn %d times of %d", c.n, c.p, e, k, draws)
			}
		}
	}
}

// TestRandomGeometricLargeMatchesBruteForce: the parallel cell binning finds
// exactly the pairs within the radius.
func TestRandomGeometricLargeMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		n int
		r float64
	}{{3000, 0.04}, {500, 0.12}, {300, 0.5}, {50, 2}} {
		var g *Graph
		withLarge(t, 3, func() { g = must(t)(RandomGeometric(c.n, c.r, 21)) })
		key := attemptKey(21, streamRandomGeometric, g.Tries-1)
		xs, ys := make([]float64, c.n), make([]float64, c.n)
		for i := range xs {
			xs[i] = unitFloat(rng.Hash(key, uint64(i), 0))
			ys[i] = unitFloat(rng.Hash(key, uint64(i), 1))
		}
		var want [][2]int32
		for i := 0; i < c.n; i++ {
			for j := i + 1; j < c.n; j++ {
				if dx, dy := xs[i]-xs[j], ys[i]-ys[j]; dx*dx+dy*dy <= c.r*c.r {
					want = append(want, [2]int32{int32(i), int32(j)})
				}
			}
		}
		if !slices.Equal(g.Edges, want) {
			t.Errorf("n=%d r=%g: %d edges, brute force %d", c.n, c.r, len(g.Edges), len(want))
		}
	}
}

// TestComponentsBothWays: the block union–find and Afforest agree with BFS
// whatever the locality.
func TestComponentsBothWays(t *testing.T) {
	mk := must(t)
	r := rng.New(3, 4)
	const n = 3<<compShift + 77
	for _, m := range []int{n / 3, n - 500, n, 3 * n} {
		for _, local := range []bool{false, true} {
			edges := make([][2]int32, 0, m)
			for range m {
				a, b := r.IntN(n), r.IntN(n)
				if local {
					b = (a + 1 + r.IntN(5)) % n
				}
				if a != b {
					edges = append(edges, [2]int32{int32(a), int32(b)})
				}
			}
			g := mk(FromEdges("random", n, edges))
			want := bfsComponents(g)
			if b, a := blockComponents(g.N, g.Offsets, g.Adj), afforest(g.N, g.Offsets, g.Adj); b != want || a != want {
				t.Errorf("m=%d local=%v: block union-find %d, Afforest %d, BFS %d", m, local, b, a, want)
			}
		}
	}
}
