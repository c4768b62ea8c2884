package graph

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// must returns a function that unwraps a constructor's result, failing the
// test on an error or on a graph that does not validate.
func must(t testing.TB) func(*Graph, error) *Graph {
	return func(g *Graph, err error) *Graph {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		return g
	}
}

func TestFromEdgesNormalises(t *testing.T) {
	mk := must(t)
	in := [][2]int32{{3, 1}, {0, 1}, {1, 3}, {2, 0}, {0, 1}, {1, 0}}
	orig := slices.Clone(in)
	g := mk(FromEdges("t", 5, in))
	if !slices.Equal(in, orig) {
		t.Fatal("FromEdges modified its input")
	}
	want := [][2]int32{{0, 1}, {0, 2}, {1, 3}}
	if !slices.Equal(g.Edges, want) {
		t.Fatalf("edges %v, want %v", g.Edges, want)
	}
	if g.N != 5 || g.UndirectedEdges() != 3 || g.OrderedEdges() != 6 {
		t.Fatalf("N=%d undirected=%d ordered=%d", g.N, g.UndirectedEdges(), g.OrderedEdges())
	}
	wantNb := [][]int32{{1, 2}, {0, 3}, {0}, {1}, {}}
	for k, nb := range wantNb {
		if !slices.Equal(g.Neighbors(k), nb) || g.Degree(k) != len(nb) {
			t.Errorf("node %d: neighbours %v degree %d, want %v", k, g.Neighbors(k), g.Degree(k), nb)
		}
	}
	if g.MaxDegree() != 2 || g.MinDegree() != 0 {
		t.Errorf("max/min degree %d/%d", g.MaxDegree(), g.MinDegree())
	}
	if !g.HasEdge(3, 1) || g.HasEdge(2, 3) {
		t.Error("HasEdge wrong")
	}
	if g.Connected() || g.Components() != 2 {
		t.Errorf("node 4 is isolated: components=%d", g.Components())
	}
}

func TestFromEdgesErrors(t *testing.T) {
	cases := []struct {
		n     int
		edges [][2]int32
		want  string
	}{
		{3, [][2]int32{{0, 1}, {2, 2}}, "edge 1 (2, 2) is a self-loop"},
		{3, [][2]int32{{0, 3}}, "outside [0, 3)"},
		{3, [][2]int32{{-1, 2}}, "outside [0, 3)"},
		{0, nil, "n must be >= 1"},
	}
	for _, c := range cases {
		_, err := FromEdges("x", c.n, c.edges)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromEdges(%d, %v): error %v, want %q", c.n, c.edges, err, c.want)
		}
	}
}

func TestConnectivityAndBipartite(t *testing.T) {
	mk := must(t)
	grid := mk(Grid(4, 5))
	if !grid.Bipartite() || !grid.Connected() {
		t.Error("a grid is connected and bipartite")
	}
	warn, err := Check(grid)
	if err != nil || len(warn) != 1 || !strings.Contains(warn[0], "graph is bipartite") {
		t.Errorf("Check(grid) = %q, %v; want one bipartite warning", warn, err)
	}
	odd := mk(Cycle(7))
	if odd.Bipartite() {
		t.Error("an odd cycle is not bipartite")
	}
	if warn, err := Check(odd); err != nil || len(warn) != 0 {
		t.Errorf("Check(C7) = %q, %v", warn, err)
	}
	if !mk(Cycle(8)).Bipartite() {
		t.Error("an even cycle is bipartite")
	}
	if !mk(Star(6)).Bipartite() || !mk(Path(5)).Bipartite() {
		t.Error("stars and paths are bipartite")
	}
	if mk(Complete(3)).Bipartite() {
		t.Error("K3 is not bipartite")
	}
	if mk(Torus(3, 4)).Bipartite() || !mk(Torus(4, 6)).Bipartite() {
		t.Error("a torus is bipartite iff both sides are even")
	}
	two := mk(FromEdges("two triangles", 6, [][2]int32{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}}))
	if two.Connected() || two.Components() != 2 || two.Bipartite() {
		t.Error("two disjoint triangles: disconnected, not bipartite")
	}
	if _, err := Check(two); err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Errorf("Check(two triangles) error %v, want disconnected", err)
	}
	// Bipartiteness is checked in every component.
	mixed := mk(FromEdges("edge+triangle", 5, [][2]int32{{0, 1}, {2, 3}, {3, 4}, {2, 4}}))
	if mixed.Bipartite() {
		t.Error("a triangle in the second component makes the graph non-bipartite")
	}
	if _, err := Check(mk(FromEdges("lonely", 1, nil))); err == nil {
		t.Error("a graph without edges must fail Check")
	}
	if _, err := Check(nil); err == nil {
		t.Error("Check(nil) must fail")
	}
}

func TestPSumsToTwo(t *testing.T) {
	mk := must(t)
	graphs := []*Graph{
		mk(Star(50)),
		mk(Complete(30)),
		mk(WattsStrogatz(300, 5, 0.3, 4)),
		mk(ErdosRenyi(300, 0.05, 4)),
		mk(RandomGeometric(300, 0.15, 4)),
	}
	for _, g := range graphs {
		sum := 0.0
		for k := 0; k < g.N; k++ {
			sum += g.P(k)
			if want := float64(g.Degree(k)) / float64(g.UndirectedEdges()); math.Abs(g.P(k)-want) > 1e-15 {
				t.Fatalf("%s: P(%d) = %v, want d/undirected = %v", g.Name, k, g.P(k), want)
			}
		}
		if math.Abs(sum-2) > 1e-12 {
			t.Errorf("%s: Σ p_k = %.15g, want 2", g.Name, sum)
		}
	}
	star := graphs[0]
	if star.P(0) != 1 || star.P(1) != 1.0/49 {
		t.Errorf("star: hub p=%v leaf p=%v, want 1 and 1/49", star.P(0), star.P(1))
	}
	if !math.IsNaN(mk(FromEdges("empty", 2, nil)).P(0)) {
		t.Error("P on a graph without edges should be NaN")
	}
}

func TestValidateDetectsCorruption(t *testing.T) {
	mk := must(t)
	g := mk(Cycle(5))
	bad := *g
	bad.Edges = slices.Clone(g.Edges)
	bad.Edges[0], bad.Edges[1] = bad.Edges[1], bad.Edges[0]
	if bad.Validate() == nil {
		t.Error("unsorted edges not detected")
	}
	bad = *g
	bad.Adj = slices.Clone(g.Adj)
	bad.Adj[0] = 0
	if bad.Validate() == nil {
		t.Error("corrupt adjacency not detected")
	}
	var nilGraph *Graph
	if nilGraph.Validate() == nil {
		t.Error("nil graph not detected")
	}
}

// TestCheckNamesIsolatedNodes: a graph in which nodes have no edge (an
// edge list from memory or a file that misses them) is refused naming
// those nodes, not only as disconnected.
func TestCheckNamesIsolatedNodes(t *testing.T) {
	g, err := FromEdges("memory", 6, [][2]int32{{0, 1}, {1, 2}, {2, 0}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(g)
	if want := "graph: memory has node 5 without an edge (6 nodes, 3 connected components); gossip needs a connected graph"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	g, _ = FromEdges("memory", 30, [][2]int32{{0, 1}})
	if _, err = Check(g); err == nil || !strings.Contains(err.Error(), "has nodes 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... without an edge") {
		t.Errorf("many: %v", err)
	}
	// Connected but in two pieces without isolated nodes: as before.
	g, _ = FromEdges("memory", 4, [][2]int32{{0, 1}, {2, 3}})
	if _, err = Check(g); err == nil || !strings.Contains(err.Error(), "memory is disconnected (2 connected components)") {
		t.Errorf("two pieces: %v", err)
	}
}

// TestCheckWarnsMergedEdges: repeated edges (the same pair twice, or i j
// and j i) are merged, as the edge-list loader always did, and no longer
// silently: Check warns with their number; a generator's graph has none.
func TestCheckWarnsMergedEdges(t *testing.T) {
	g, err := FromEdges("memory", 3, [][2]int32{{0, 1}, {1, 2}, {2, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	warn, err := Check(g)
	if err != nil || g.Merged != 2 || len(warn) != 1 ||
		warn[0] != "graph memory: 2 of its edges repeat another (the same pair, in either orientation) and were merged: 3 edges remain" {
		t.Errorf("merged %d, warnings %q, err %v", g.Merged, warn, err)
	}
	if tg, _ := Tensor(g, 2); tg.Merged != 2 {
		t.Errorf("the tensor product loses the source's merged count: %d", tg.Merged)
	}
	c, _ := Cycle(5)
	if warn, _ := Check(c); len(warn) != 0 {
		t.Errorf("cycle: %q", warn)
	}
}
