package graph

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// threeDigits formats v to three significant digits as the paper's Table 1 does.
func threeDigits(v float64) string { return strconv.FormatFloat(v, 'e', 2, 64) }

// relErr returns |a − b| / |b|.
func relErr(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }

// TestTable1 reproduces the deterministic rows of the paper's Table 1, with
// both the closed forms and the dense eigensolver.
func TestTable1(t *testing.T) {
	mk := must(t)
	cases := []struct {
		g    *Graph
		want string
	}{
		{mk(Complete(699)), "1.43e-03"},
		{mk(Cycle(699)), "5.78e-08"},
		{mk(Complete(1000)), "1.00e-03"},
		{mk(Cycle(1000)), "1.97e-08"},
	}
	for _, c := range cases {
		auto, err := SpectralGap(c.g)
		if err != nil {
			t.Fatal(err)
		}
		if auto.Method != MethodClosedForm {
			t.Errorf("%s: automatic method %q, want closed-form", c.g.Name, auto.Method)
		}
		dense, err := SpectralGapWith(c.g, GapOptions{Method: MethodDense})
		if err != nil {
			t.Fatal(err)
		}
		for _, gap := range []Gap{auto, dense} {
			if got := threeDigits(gap.Value); got != c.want {
				t.Errorf("%s (%s): gap %s, paper %s", c.g.Name, gap.Method, got, c.want)
			}
			if want := gap.Lambda2L / float64(c.g.OrderedEdges()); gap.Value != want {
				t.Errorf("%s: gap %v is not β/|E| = %v", c.g.Name, gap.Value, want)
			}
		}
		if e := relErr(dense.Lambda2L, auto.Lambda2L); e > 1e-9 {
			t.Errorf("%s: dense β %.12g vs closed form %.12g (rel %.2g)", c.g.Name, dense.Lambda2L, auto.Lambda2L, e)
		}
	}
	// Complete: gap = n/(n(n−1)) = 1/(n−1) exactly.
	if g, _ := SpectralGap(cases[0].g); g.Value != 1.0/698 {
		t.Errorf("complete(699): gap %v, want 1/698", g.Value)
	}
}

// TestTable1WattsStrogatz compares the mean gap over 20 seeds of
// Watts–Strogatz(k=5, p=0.3) with the paper's single random draws.
func TestTable1WattsStrogatz(t *testing.T) {
	mk := must(t)
	for _, c := range []struct {
		n     int
		paper float64
	}{{699, 8.71e-5}, {1000, 6.23e-5}} {
		sum := 0.0
		const seeds = 20
		for seed := uint64(1); seed <= seeds; seed++ {
			g := mk(WattsStrogatz(c.n, 5, 0.3, seed))
			gap, err := SpectralGapWith(g, GapOptions{Method: MethodLanczos})
			if err != nil {
				t.Fatal(err)
			}
			sum += gap.Value
		}
		mean := sum / seeds
		t.Logf("watts-strogatz n=%d: mean gap %.3g over %d seeds, paper %.3g", c.n, mean, seeds, c.paper)
		if e := relErr(mean, c.paper); e > 0.15 {
			t.Errorf("n=%d: mean gap %.3g differs from the paper's %.3g by %.0f%%", c.n, mean, c.paper, 100*e)
		}
	}
}

// TestClosedFormsMatchDense checks every closed form against the dense
// eigensolver on small members of each family.
func TestClosedFormsMatchDense(t *testing.T) {
	mk := must(t)
	graphs := []*Graph{
		mk(Complete(2)), mk(Complete(17)),
		mk(Cycle(3)), mk(Cycle(4)), mk(Cycle(31)),
		mk(Path(2)), mk(Path(3)), mk(Path(40)),
		mk(Star(2)), mk(Star(3)), mk(Star(25)),
		mk(Grid(1, 9)), mk(Grid(2, 2)), mk(Grid(5, 8)), mk(Grid(12, 3)),
		mk(Torus(3, 3)), mk(Torus(3, 7)), mk(Torus(6, 4)),
	}
	for _, g := range graphs {
		cf, err := SpectralGapWith(g, GapOptions{Method: MethodClosedForm})
		if err != nil {
			t.Fatal(err)
		}
		dense, err := SpectralGapWith(g, GapOptions{Method: MethodDense})
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(dense.Lambda2L, cf.Lambda2L); e > 1e-10 {
			t.Errorf("%s: closed form β = %.15g, dense %.15g", g.Name, cf.Lambda2L, dense.Lambda2L)
		}
	}
}

// TestTensorGap checks the appendix proposition gap(G ⊗ K_k) = gap(G)/k on
// connected, non-bipartite, non-complete graphs, with the dense solver on
// both sides.
func TestTensorGap(t *testing.T) {
	mk := must(t)
	graphs := []*Graph{
		mk(WattsStrogatz(120, 5, 0.3, 7)),
		mk(ErdosRenyi(100, 0.08, 7)),
		mk(Cycle(15)),
		mk(RandomGeometric(90, 0.25, 7)),
	}
	for _, g := range graphs {
		if g.Bipartite() {
			t.Fatalf("%s is bipartite", g.Name)
		}
		base, err := SpectralGapWith(g, GapOptions{Method: MethodDense})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{2, 3} {
			tg := mk(Tensor(g, k))
			gap, err := SpectralGapWith(tg, GapOptions{Method: MethodDense})
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(gap.Value, base.Value/float64(k)); e > 1e-9 {
				t.Errorf("%s: gap(G⊗K_%d) = %.12g, gap(G)/k = %.12g", g.Name, k, gap.Value, base.Value/float64(k))
			}
			if e := relErr(gap.Lambda2L, float64(k)*base.Lambda2L); e > 1e-9 {
				t.Errorf("%s: β(G⊗K_%d) = %.12g, k·β(G) = %.12g", g.Name, k, gap.Lambda2L, float64(k)*base.Lambda2L)
			}
		}
	}
}

// TestLanczosMatchesDense compares the iterative solver with the dense one
// on graphs of 1000–1500 nodes (and a few smaller, harder ones), to 1e-6
// relative.
func TestLanczosMatchesDense(t *testing.T) {
	mk := must(t)
	asFile := func(g *Graph) *Graph { return mk(FromEdges(g.Name, g.N, g.Edges)) } // no closed form
	graphs := []*Graph{
		mk(WattsStrogatz(1000, 5, 0.3, 2)),
		mk(WattsStrogatz(1500, 5, 0.3, 3)),
		mk(ErdosRenyi(1200, 0.008, 2)),
		mk(RandomGeometric(800, 0.08, 2)),
		mk(Tensor(mk(WattsStrogatz(200, 5, 0.3, 4)), 3)),
		asFile(mk(Cycle(301))),
		asFile(mk(Grid(15, 20))),
		asFile(mk(Star(40))),
		mk(Complete(5)),
		mk(Path(3)),
	}
	for _, g := range graphs {
		dense, err := SpectralGapWith(g, GapOptions{Method: MethodDense})
		if err != nil {
			t.Fatal(err)
		}
		lz, err := SpectralGapWith(g, GapOptions{Method: MethodLanczos, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(lz.Lambda2L, dense.Lambda2L); e > 1e-6 {
			t.Errorf("%s: lanczos β %.12g, dense %.12g (rel %.2g)", g.Name, lz.Lambda2L, dense.Lambda2L, e)
		}
		if lz.Method != MethodLanczos || lz.Iterations < 1 || lz.Residual > DefaultGapTol*lz.Lambda2L {
			t.Errorf("%s: %+v", g.Name, lz)
		}
	}
}

// TestLanczosLarge runs the iterative solver on Watts–Strogatz with 10⁵
// nodes: it must finish well within a minute, agree with the value recorded
// when the test was written (checked then with three start vectors and
// tolerance 1e-10, all agreeing to 1e-13), and carry a small residual.
func TestLanczosLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 100000 Lanczos run skipped in -short mode")
	}
	start := time.Now()
	g := must(t)(WattsStrogatz(100000, 5, 0.3, 1))
	built := time.Since(start)
	gap, err := SpectralGap(g)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("watts-strogatz n=100000: built in %v, gap %.6g (β = %.12g, residual %.2g, %d products) in %v total",
		built, gap.Value, gap.Lambda2L, gap.Residual, gap.Iterations, elapsed)
	if gap.Method != MethodLanczos {
		t.Errorf("automatic method %q, want lanczos", gap.Method)
	}
	const recorded = 0.13511707234726
	if e := relErr(gap.Lambda2L, recorded); e > 1e-6 {
		t.Errorf("β = %.14g, recorded %.14g (rel %.2g)", gap.Lambda2L, recorded, e)
	}
	if gap.Residual > 1e-6*gap.Lambda2L {
		t.Errorf("residual %.3g > 1e-6·β", gap.Residual)
	}
	if elapsed > time.Minute {
		t.Errorf("took %v, more than a minute", elapsed)
	}
}

func TestLanczosReportsNonConvergence(t *testing.T) {
	g := must(t)(Path(3000))
	g = must(t)(FromEdges(g.Name, g.N, g.Edges))
	_, err := SpectralGapWith(g, GapOptions{Method: MethodLanczos, MaxIter: 300})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("error %v, want ErrNotConverged", err)
	}
}

func TestSpectralGapMethodsAndErrors(t *testing.T) {
	mk := must(t)
	small := mk(FromEdges("small", 4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {0, 2}}))
	if gap, err := SpectralGap(small); err != nil || gap.Method != MethodDense {
		t.Errorf("small hand-built graph: %+v, %v; want dense", gap, err)
	}
	large := mk(WattsStrogatz(DenseMaxN+1, 5, 0.3, 1))
	if gap, err := SpectralGap(large); err != nil || gap.Method != MethodLanczos {
		t.Errorf("n = DenseMaxN+1: %+v, %v; want lanczos", gap, err)
	}
	if _, err := SpectralGapWith(small, GapOptions{Method: MethodClosedForm}); err == nil || !strings.Contains(err.Error(), "no closed form") {
		t.Errorf("closed form on a hand-built graph: %v", err)
	}
	if _, err := SpectralGapWith(small, GapOptions{Method: "magic"}); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := SpectralGapWith(small, GapOptions{Tol: 2}); err == nil {
		t.Error("tolerance 2 accepted")
	}
	two := mk(FromEdges("two triangles", 6, [][2]int32{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}}))
	if _, err := SpectralGap(two); err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Errorf("disconnected graph: %v", err)
	}
	if _, err := SpectralGap(nil); err == nil {
		t.Error("nil graph accepted")
	}
	// Known small case: the path on 3 nodes has β = 1 and 2 undirected edges.
	if gap, _ := SpectralGap(mk(Path(3))); math.Abs(gap.Value-0.25) > 1e-15 {
		t.Errorf("path(3): gap %v, want 1/4", gap.Value)
	}
}

// TestSpectralGapContext: the graph's Lanczos iteration stops when its
// context is done, with an error wrapping the context's (it ran to its end
// on its own goroutine when pairgossip's network gap was interrupted).
func TestSpectralGapContext(t *testing.T) {
	g, err := Build(Spec{Kind: "watts-strogatz", N: 5000, K: 5, P: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SpectralGapContext(ctx, g, GapOptions{Method: MethodLanczos}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	a, err := SpectralGapContext(context.Background(), g, GapOptions{Method: MethodLanczos})
	b, err2 := SpectralGapWith(g, GapOptions{Method: MethodLanczos})
	if err != nil || err2 != nil || a != b {
		t.Fatalf("with a live context %+v %v, without %+v %v", a, err, b, err2)
	}
}

// TestHasClosedForm: the generator families with a closed-form gap have
// one, whatever their size; a drawn graph (Watts–Strogatz) and a graph
// from edges (even a cycle's) do not.
func TestHasClosedForm(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want bool
	}{
		{Spec{Kind: "complete", N: 7}, true}, {Spec{Kind: "cycle", N: 9}, true}, {Spec{Kind: "path", N: 5}, true},
		{Spec{Kind: "star", N: 6}, true}, {Spec{Kind: "grid", Rows: 3, Cols: 4}, true}, {Spec{Kind: "torus", Rows: 3, Cols: 5}, true},
		{Spec{Kind: "watts-strogatz", N: 50, K: 4, P: 0.3, Seed: 1}, false},
	} {
		g, err := Build(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := HasClosedForm(g); got != tc.want {
			t.Errorf("%s: HasClosedForm %v, want %v", g.Name, got, tc.want)
		}
	}
	g, err := FromEdges("ring", 4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if HasClosedForm(g) {
		t.Error("a graph from edges has a closed form")
	}
}
