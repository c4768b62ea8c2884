package network

import (
	"math"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"gonum.org/v1/gonum/mat"
)

func gapOf(t *testing.T, m Model, g *graph.Graph, opt GapOptions) Gap {
	t.Helper()
	gp, err := mustNet(t, m, g, 1).EffectiveGap(opt)
	if err != nil {
		t.Fatal(err)
	}
	return gp
}

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// TestPerfectGapIsTheGraphs: the perfect network's effective gap is
// graph.SpectralGap's 1 − λ₂(I − L/|E|) (docs/design.md §2.2), and loss q
// scales it by 1 − q, one-way or not.
func TestPerfectGapIsTheGraphs(t *testing.T) {
	for _, spec := range []graph.Spec{{Kind: "watts-strogatz", N: 80, K: 4, P: 0.3, Seed: 2}, {Kind: "cycle", N: 40}, {Kind: "complete", N: 30}} {
		g := mustGraph(t, spec)
		want, err := graph.SpectralGap(g)
		if err != nil {
			t.Fatal(err)
		}
		p := gapOf(t, Model{}, g, GapOptions{})
		if !relClose(p.Value, want.Value, 1e-9) || p.Perfect != want.Value || p.Method != "dense" {
			t.Errorf("%s: effective %+v, graph %g", g.Name, p, want.Value)
		}
		for _, q := range []float64{0.1, 0.5} {
			for _, ow := range []bool{false, true} {
				l := gapOf(t, Model{Loss: q, LossOneWay: ow}, g, GapOptions{})
				if !relClose(l.Value, (1-q)*want.Value, 1e-9) {
					t.Errorf("%s loss %g oneway %v: %g, want %g", g.Name, q, ow, l.Value, (1-q)*want.Value)
				}
			}
		}
		if spec.Kind == "cycle" { // a schedule of one graph with links up a scales by a
			l := gapOf(t, Model{Schedule: []Phase{{Graph: g, Length: 9}}, LinkUp: 0.25}, g, GapOptions{})
			if !relClose(l.Value, 0.25*want.Value, 1e-9) {
				t.Errorf("link-up 0.25: %g, want %g", l.Value, 0.25*want.Value)
			}
		}
	}
}

// denseWbar builds W̄ = I − Σ_e s_e p_e (e_i − e_j)(e_i − e_j)ᵀ/2 directly
// from its definition and returns 1 − λ₂(W̄) from gonum's eigensolver.
func denseWbar(t *testing.T, n int, terms []struct {
	i, j  int
	s, pe float64
}) float64 {
	w := mat.NewSymDense(n, nil)
	for k := 0; k < n; k++ {
		w.SetSym(k, k, 1)
	}
	for _, e := range terms {
		c := e.s * e.pe / 2
		w.SetSym(e.i, e.i, w.At(e.i, e.i)-c)
		w.SetSym(e.j, e.j, w.At(e.j, e.j)-c)
		w.SetSym(e.i, e.j, w.At(e.i, e.j)+c)
	}
	var es mat.EigenSym
	if !es.Factorize(w, false) {
		t.Fatal("eigen")
	}
	ev := es.Values(nil)
	slices.Sort(ev)
	return 1 - ev[n-2]
}

func TestEffectiveGapAgainstDenseEigen(t *testing.T) {
	a := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.2, Seed: 4})
	b := mustGraph(t, graph.Spec{Kind: "cycle", N: 40})
	m := Model{Loss: 0.2, Churn: Churn{Dist: DistGeometric, Up: 9, Down: 3}, LinkUp: 0.8,
		Schedule: []Phase{{Graph: a, Length: 3}, {Graph: b, Length: 1}}, Activation: Activation{Kind: ActClocks}}
	var terms []struct {
		i, j  int
		s, pe float64
	}
	pi := 9.0 / 12
	for _, ph := range []struct {
		g    *graph.Graph
		frac float64
	}{{a, 0.75}, {b, 0.25}} {
		for _, e := range ph.g.Edges {
			i, j := int(e[0]), int(e[1])
			pe := (1/float64(ph.g.Degree(i)) + 1/float64(ph.g.Degree(j))) / 40
			terms = append(terms, struct {
				i, j  int
				s, pe float64
			}{i, j, 0.8 * 0.8 * pi * pi, ph.frac * pe})
		}
	}
	want := denseWbar(t, 40, terms)
	got := gapOf(t, m, a, GapOptions{})
	if !relClose(got.Value, want, 1e-9) {
		t.Fatalf("effective gap %g, direct W̄ %g", got.Value, want)
	}
	lz := gapOf(t, m, a, GapOptions{Method: "lanczos", Tol: 1e-8})
	if !relClose(lz.Value, want, 1e-6) || lz.Method != "lanczos" || lz.Iterations == 0 {
		t.Fatalf("lanczos %+v, dense %g", lz, want)
	}
}

func TestEffectiveGapLanczos(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 400, K: 6, P: 0.3, Seed: 7})
	m := Model{Loss: 0.1, Churn: Churn{Dist: DistExponential, Up: 50, Down: 10}, Activation: Activation{Kind: ActClocks}}
	d := gapOf(t, m, g, GapOptions{Method: "dense"})
	l := gapOf(t, m, g, GapOptions{Method: "lanczos"})
	if !relClose(l.Value, d.Value, 1e-5) || l.Residual > 1e-6*l.Value {
		t.Fatalf("lanczos %+v, dense %+v", l, d)
	}
	if _, err := mustNet(t, m, g, 1).EffectiveGap(GapOptions{Method: "qr"}); err == nil {
		t.Fatal("unknown method accepted")
	}
}

// TestStreamGap: a stream's effective gap uses its own frequencies per
// iteration: a stream that activates every edge of a cycle equally often,
// one edge per iteration, has the perfect cycle's gap; with every second
// iteration empty, half of it.
func TestStreamGap(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 12})
	want, _ := graph.SpectralGap(g)
	for _, stride := range []int64{1, 2} {
		s := &Stream{Name: "s"}
		for r := 0; r < 5; r++ {
			for _, e := range g.Edges {
				s.T = append(s.T, int64(len(s.T)+1)*stride)
				s.I, s.J = append(s.I, e[1]), append(s.J, e[0])
			}
		}
		got := gapOf(t, Model{Stream: s}, g, GapOptions{})
		if !relClose(got.Value, want.Value/float64(stride), 1e-9) {
			t.Errorf("stride %d: %g, want %g", stride, got.Value, want.Value/float64(stride))
		}
	}
}

func TestBytes(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 100})
	base := mustNet(t, Model{}, g, 1).Bytes()
	if base != 100*16+100*8 {
		t.Fatalf("perfect network: %d bytes", base)
	}
	if b := mustNet(t, Model{Churn: Churn{Dist: DistGeometric, Up: 3, Down: 3}}, g, 1).Bytes(); b != base+100*32 {
		t.Fatalf("churn: %d bytes, want %d (a 32-byte cursor a node)", b, base+100*32)
	}
}

// TestEffectiveGapTinyWeights: weights near the bottom of the floating-point
// range (links almost never up, nodes almost never online) give the gap
// of the same model scaled, by either method, where LAPACK's eigensolver
// panicked on the unscaled Laplacian; no edge ever active gives 0.
func TestEffectiveGapTinyWeights(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.2, Seed: 4})
	sched := []Phase{{Graph: g, Length: 10}}
	ref := gapOf(t, Model{LinkUp: 0.5, Schedule: sched}, g, GapOptions{})
	for _, a := range []float64{1e-100, 1e-200, 1e-300} {
		for _, method := range []string{"dense", "lanczos"} {
			got := gapOf(t, Model{LinkUp: a, Schedule: sched}, g, GapOptions{Method: method, Tol: 1e-10})
			if want := ref.Value * a / 0.5; !relClose(got.Value, want, 1e-6) {
				t.Fatalf("link-up %g, %s: gap %g, want %g", a, method, got.Value, want)
			}
		}
	}
	tiny := gapOf(t, Model{Churn: Churn{Dist: DistGeometric, Up: 1, Down: 1e100}}, g, GapOptions{})
	if !(tiny.Value > 0) || tiny.Value > 1e-190 {
		t.Fatalf("churn online 1e-100 of the time: gap %g", tiny.Value)
	}
}

// TestEffectiveGapChurnFileHorizon: a churn file's π_k is taken over the
// run's iterations when they are given (GapOptions.Horizon): a node
// offline over the file's whole span but online for the rest of a longer
// run does not make the gap 0; an empty file gives the perfect gap.
func TestEffectiveGapChurnFileHorizon(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 20})
	m := Model{Churn: Churn{Dist: DistFile, File: writeFile(t, "c.txt", "0 1 100\n1 50 60\n")}}
	if span := gapOf(t, m, g, GapOptions{}); span.Value > 1e-12 {
		t.Fatalf("over the file's span node 0 is never online: gap %g", span.Value)
	}
	if run := gapOf(t, m, g, GapOptions{Horizon: 300}); !(run.Value > 1e-3*run.Perfect) {
		t.Fatalf("over 300 iterations: gap %g (perfect %g)", run.Value, run.Perfect)
	}
	empty := gapOf(t, Model{Churn: Churn{Dist: DistFile, File: writeFile(t, "e.txt", "")}}, g, GapOptions{})
	if !relClose(empty.Value, empty.Perfect, 1e-9) {
		t.Fatalf("an empty churn file: gap %g, perfect %g", empty.Value, empty.Perfect)
	}
}
