package network

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestPerfectGapIsTheGraphs: the perfect network's effective gap, by the
// dense eigensolver on W̄, is graph.SpectralGap's 1 − λ₂(I − L/|E|)
// (docs/design.md §2.2), and loss q scales it by 1 − q, one-way or not.
func TestPerfectGapIsTheGraphs(t *testing.T) {
	for _, spec := range []graph.Spec{{Kind: "watts-strogatz", N: 80, K: 4, P: 0.3, Seed: 2}, {Kind: "cycle", N: 40}, {Kind: "complete", N: 30}} {
		g := mustGraph(t, spec)
		want, err := graph.SpectralGap(g)
		if err != nil {
			t.Fatal(err)
		}
		p := gapOf(t, Model{}, g, GapOptions{Method: "dense"})
		if !relClose(p.Value, want.Value, 1e-9) || p.Perfect != want.Value || p.Method != "dense" {
			t.Errorf("%s: effective %+v, graph %g", g.Name, p, want.Value)
		}
		for _, q := range []float64{0.1, 0.5} {
			for _, ow := range []bool{false, true} {
				l := gapOf(t, Model{Loss: q, LossOneWay: ow}, g, GapOptions{Method: "dense"})
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
		// A line far past the run's iterations: over the run (Horizon)
		// the gap is the stream's before it, not diluted by its span.
		last := s.T[len(s.T)-1]
		s.T, s.I, s.J = append(s.T, 1<<40), append(s.I, 0), append(s.J, 1)
		run := gapOf(t, Model{Stream: s}, g, GapOptions{Horizon: last})
		if !relClose(run.Value, want.Value/float64(stride), 1e-9) {
			t.Errorf("stride %d, over the run's %d iterations: %g, want %g", stride, last, run.Value, want.Value/float64(stride))
		}
		if whole := gapOf(t, Model{Stream: s}, g, GapOptions{}); !(whole.Value < 1e-6*run.Value) {
			t.Errorf("stride %d, over the stream's span: %g, want ≈ 0", stride, whole.Value)
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
	for _, method := range []string{"dense", "lanczos"} {
		// Exactly 0, by the expected graph's parts: not an eigensolver's
		// rounding of 0.
		if span := gapOf(t, m, g, GapOptions{Method: method}); span.Value != 0 || !strings.Contains(span.Method, "disconnected") {
			t.Fatalf("%s: over the file's span node 0 is never online: gap %g (%s), want 0", method, span.Value, span.Method)
		}
	}
	if run := gapOf(t, m, g, GapOptions{Horizon: 300}); !(run.Value > 1e-3*run.Perfect) {
		t.Fatalf("over 300 iterations: gap %g (perfect %g)", run.Value, run.Perfect)
	}
	empty := gapOf(t, Model{Churn: Churn{Dist: DistFile, File: writeFile(t, "e.txt", "")}}, g, GapOptions{})
	if !relClose(empty.Value, empty.Perfect, 1e-9) {
		t.Fatalf("an empty churn file: gap %g, perfect %g", empty.Value, empty.Perfect)
	}
}

// TestLossOnlyGapIsScaled: under loss alone (two-way or one-way, with or
// without delays) W̄ = I − (1 − q)L/|E|, so the effective gap is (1 − q)
// times the graph's (Model.GapScale, method "scaled"): it equals the dense
// eigensolve of W̄ to 1e-12 relative, up to the dense eigensolver's own
// absolute accuracy, about n ulps of ‖L̄‖ ≤ (1 − q)·2·max degree/|E| (which
// dominates for path-, cycle- and star-like spectra, λ₂ ≪ ‖L̄‖). "auto"
// is the scaled gap at every n.
func TestLossOnlyGapIsScaled(t *testing.T) {
	specs := []graph.Spec{{Kind: "path", N: 1024}, {Kind: "cycle", N: 600}, {Kind: "complete", N: 200}, {Kind: "star", N: 500},
		{Kind: "grid", Rows: 20, Cols: 30}, {Kind: "torus", Rows: 16, Cols: 16}, {Kind: "watts-strogatz", N: 500, K: 5, P: 0.3, Seed: 1}}
	models := []Model{{Loss: 0.3}, {Loss: 0.9, LossOneWay: true}, {Loss: 0.5, Delay: Delay{Dist: DelayGeometric, Mean: 2, Max: 9}}}
	for x, spec := range specs {
		g := mustGraph(t, spec)
		want, err := graph.SpectralGap(g)
		if err != nil {
			t.Fatal(err)
		}
		for y, m := range models {
			if x%2 == 1 && y == 2 {
				continue // delays: every other graph is enough
			}
			f, ok := m.GapScale()
			if !ok || f != 1-m.Loss {
				t.Fatalf("%s: GapScale %v, %v; want %v, true", m, f, ok, 1-m.Loss)
			}
			nt := mustNet(t, m, g, 1)
			d, err := nt.EffectiveGap(GapOptions{Method: "dense"})
			if err != nil || d.Method != "dense" {
				t.Fatalf("%s %s: dense at n = %d: %+v, %v", g.Name, m, g.N, d, err)
			}
			s := gapOf(t, m, g, GapOptions{Method: MethodScaled})
			if a := gapOf(t, m, g, GapOptions{}); a != s {
				t.Errorf("%s %s: auto %+v, want the scaled %+v (exact, one eigensolve where dense takes two)", g.Name, m, a, s)
			}
			norm := f * 2 * float64(g.MaxDegree()) / float64(g.OrderedEdges())
			if math.Abs(s.Value-d.Value) > 1e-12*d.Value+float64(g.N)*0x1p-52*norm {
				t.Errorf("%s %s: scaled %.17g, dense %.17g (rel %.2g)", g.Name, m, s.Value, d.Value, math.Abs(s.Value-d.Value)/d.Value)
			}
			if s.Value != f*want.Value || s.Perfect != want.Value || s.PerfectMethod != want.Method || s.Method != want.Method+" × (1 − q)" {
				t.Errorf("%s %s: scaled %+v, graph %+v", g.Name, m, s, want)
			}
		}
	}
	// Beyond DenseMaxN: the closed form, where Lanczos on W̄ does not
	// converge (a path of 2000 nodes: λ₂ ≈ 6e-10 against ‖L̄‖ ≈ 1e-3).
	g := mustGraph(t, graph.Spec{Kind: "path", N: 2000})
	pg, _ := graph.SpectralGap(g)
	if a := gapOf(t, Model{Loss: 0.3}, g, GapOptions{}); a.Value != 0.7*pg.Value || a.Method != "closed-form × (1 − q)" {
		t.Errorf("path(2000) --loss 0.3: %+v, want 0.7 × %g", a, pg.Value)
	}
	// No factor: a churn file, a schedule, link failures, a stream, a
	// non-uniform activation; "scaled" is then refused.
	for _, m := range []Model{{Loss: 0.3, Churn: Churn{Dist: DistFile, File: writeFile(t, "c.txt", "0 1 100\n")}}, {Schedule: []Phase{{Graph: g, Length: 5}}},
		{Schedule: []Phase{{Graph: g, Length: 5}}, LinkUp: 0.5}, {Stream: &Stream{Name: "s", T: []int64{1}, I: []int32{0}, J: []int32{1}}},
		{Activation: Activation{Kind: ActClocks}}} {
		if _, ok := m.GapScale(); ok {
			t.Errorf("%s: GapScale ok", m)
		}
		if _, err := mustNet(t, m, g, 1).EffectiveGap(GapOptions{Method: MethodScaled}); err == nil {
			t.Errorf("%s: method scaled accepted", m)
		}
	}
}

// TestChurnGapIsScaled: under parametric churn π_k is the same π for
// every node, so W̄ = I − (1 − q)π²L/|E| and the effective gap is exactly
// (1 − q)π² times the graph's: it equals the dense eigensolve of W̄ (to
// its accuracy, as in TestLossOnlyGapIsScaled), and beyond
// graph.DenseMaxN "auto" takes it (Lanczos did not converge on such gaps,
// which need no eigensolve).
func TestChurnGapIsScaled(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 500, K: 5, P: 0.3, Seed: 1})
	for _, m := range []Model{
		{Churn: Churn{Dist: DistExponential, Up: 90, Down: 10}},
		{Loss: 0.3, Churn: Churn{Dist: DistGeometric, Up: 9, Down: 1}},
		{Loss: 0.2, LossOneWay: true, Churn: Churn{Dist: DistLognormal, Up: 50, Down: 20, Sigma: 2}},
	} {
		f, ok := m.GapScale()
		nt := mustNet(t, m, g, 1)
		pi := nt.churn.pi(0, 0)
		if !ok || f != (1-m.Loss)*(pi*pi) {
			t.Fatalf("%s: GapScale %v, %v; want (1 − q)π² = %v", m, f, ok, (1-m.Loss)*(pi*pi))
		}
		d, err := nt.EffectiveGap(GapOptions{Method: "dense"})
		if err != nil {
			t.Fatal(err)
		}
		s := gapOf(t, m, g, GapOptions{Method: MethodScaled})
		norm := f * 2 * float64(g.MaxDegree()) / float64(g.OrderedEdges())
		if math.Abs(s.Value-d.Value) > 1e-12*d.Value+float64(g.N)*0x1p-52*norm || !strings.HasSuffix(s.Method, " × (1 − q)π²") {
			t.Errorf("%s: scaled %.17g (%s), dense %.17g", m, s.Value, s.Method, d.Value)
		}
	}
	big := mustGraph(t, graph.Spec{Kind: "cycle", N: 4000})
	pg, _ := graph.SpectralGap(big)
	m := Model{Churn: Churn{Dist: DistExponential, Up: 90, Down: 10}}
	f, _ := m.GapScale()
	if a := gapOf(t, m, big, GapOptions{}); a.Value != f*pg.Value || a.Method != "closed-form × (1 − q)π²" {
		t.Errorf("cycle(4000) under churn: %+v, want %g × %g", a, f, pg.Value)
	}
}

// TestEffectiveGapNotConverged: a Lanczos iteration that does not converge
// is an error wrapping graph.ErrNotConverged that names no estimate, with
// the graph's gap (Perfect) known and the effective gap NaN, never the
// unconverged estimate.
func TestEffectiveGapNotConverged(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 2000})
	pg, _ := graph.SpectralGap(g)
	// Node clocks: no scaled form, so Lanczos at this n (a schedule's
	// perfect gap would be a Lanczos iteration too).
	m := Model{Activation: Activation{Kind: ActClocks}}
	gp, err := mustNet(t, m, g, 1).EffectiveGap(GapOptions{MaxIter: 300})
	if !errors.Is(err, graph.ErrNotConverged) || strings.Contains(err.Error(), "estimate") {
		t.Fatalf("error %v, want ErrNotConverged without an estimate", err)
	}
	if !math.IsNaN(gp.Value) || gp.Perfect != pg.Value || gp.PerfectMethod != "closed-form" || gp.Method != "lanczos" {
		t.Fatalf("gap %+v with the error; want Value NaN, Perfect %g (closed-form)", gp, pg.Value)
	}
}

// TestEffectiveGapCancel: the Lanczos iteration stops promptly once its
// context is done (Ctrl-C in pairgossip gap), with an error wrapping
// context.Canceled; a context done before the call stops it before the
// first product. Uninterrupted, this eigensolve runs for tens of seconds.
func TestEffectiveGapCancel(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 40000})
	path := mustGraph(t, graph.Spec{Kind: "path", N: 40000})
	nt := mustNet(t, Model{Schedule: []Phase{{Graph: g, Length: 10}, {Graph: path, Length: 10}}}, g, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Under a schedule the perfect gap is an eigensolve too: neither is known.
	if gp, err := nt.EffectiveGapContext(ctx, GapOptions{}); !errors.Is(err, context.Canceled) || !math.IsNaN(gp.Value) || !math.IsNaN(gp.Perfect) {
		t.Fatalf("cancelled before: %+v, %v", gp, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		gp  Gap
		err error
	}
	done := make(chan result, 1)
	go func() {
		gp, err := nt.EffectiveGapContext(ctx, GapOptions{})
		done <- result{gp, err}
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	sent := time.Now()
	select {
	case r := <-done:
		if took := time.Since(sent); took > 500*time.Millisecond {
			t.Errorf("returned %v after the cancellation", took)
		}
		if !errors.Is(r.err, context.Canceled) || !math.IsNaN(r.gp.Value) {
			t.Errorf("after the cancellation: %+v, %v", r.gp, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Lanczos iteration did not stop 10 s after its context was cancelled")
	}
}

// TestScheduleGapPerfect: under a schedule, which replaces the run's graph,
// the perfect gap is the paper's network on the phases averaged by their
// lengths: a one-phase schedule of the run's graph gives the graph's gap, a
// faultless schedule's effective gap is its perfect one, and loss q scales
// it by 1 − q — whatever graph the run was given (a cycle here, whose gap
// was the perfect one before).
func TestScheduleGapPerfect(t *testing.T) {
	run := mustGraph(t, graph.Spec{Kind: "cycle", N: 60})
	ws := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 60, K: 4, P: 0.3, Seed: 2})
	star := mustGraph(t, graph.Spec{Kind: "star", N: 60})
	want, _ := graph.SpectralGap(ws)
	one := gapOf(t, Model{Schedule: []Phase{{Graph: ws, Length: 7}}}, run, GapOptions{})
	if !relClose(one.Perfect, want.Value, 1e-10) || !strings.Contains(one.PerfectMethod, "schedule") {
		t.Fatalf("one phase: perfect %g (%s), the phase graph's gap %g", one.Perfect, one.PerfectMethod, want.Value)
	}
	two := []Phase{{Graph: ws, Length: 30}, {Graph: star, Length: 10}}
	for _, method := range []string{"dense", "lanczos"} {
		plain := gapOf(t, Model{Schedule: two}, run, GapOptions{Method: method, Tol: 1e-12})
		if !relClose(plain.Value, plain.Perfect, 1e-9) {
			t.Fatalf("%s: a faultless schedule: gap %g, perfect %g", method, plain.Value, plain.Perfect)
		}
		lossy := gapOf(t, Model{Schedule: two, Loss: 0.25}, run, GapOptions{Method: method, Tol: 1e-12})
		if !relClose(lossy.Value, 0.75*plain.Perfect, 1e-9) || lossy.Perfect != plain.Perfect {
			t.Fatalf("%s: loss 0.25: gap %g, perfect %g; want 0.75 × %g", method, lossy.Value, lossy.Perfect, plain.Perfect)
		}
	}
}

// TestScheduleGapHorizon: over a horizon (the run's T) a schedule's phases
// weigh the iterations each takes in 1 … T: a run that ends within its first
// phase has that phase's gap (the second, never reached, does not count),
// one that ends within a later cycle counts the full cycles and the part of
// the last, and without a horizon the phases weigh their lengths.
func TestScheduleGapHorizon(t *testing.T) {
	run := mustGraph(t, graph.Spec{Kind: "cycle", N: 60})
	ws := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 60, K: 4, P: 0.3, Seed: 2})
	star := mustGraph(t, graph.Spec{Kind: "star", N: 60})
	two := []Phase{{Graph: ws, Length: 30}, {Graph: star, Length: 10}}
	nt := mustNet(t, Model{Schedule: two, Loss: 0.5}, run, 1)
	for _, tc := range []struct {
		horizon int64
		want    []float64
	}{{0, []float64{0.75, 0.25}}, {20, []float64{1, 0}}, {30, []float64{1, 0}}, {35, []float64{30. / 35, 5. / 35}},
		{40, []float64{0.75, 0.25}}, {100, []float64{80. / 100, 20. / 100}}, {75, []float64{60. / 75, 15. / 75}}} {
		if got := nt.phaseFractions(tc.horizon); !slices.Equal(got, tc.want) {
			t.Errorf("horizon %d: fractions %v, want %v", tc.horizon, got, tc.want)
		}
	}
	first := gapOf(t, Model{Schedule: two[:1], Loss: 0.5}, run, GapOptions{Horizon: 20})
	short, err := nt.EffectiveGap(GapOptions{Horizon: 20})
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(short.Value, first.Value, 1e-12) || !relClose(short.Perfect, first.Perfect, 1e-12) {
		t.Errorf("a run within the first phase: gap %g (perfect %g), want the first phase's %g (%g)", short.Value, short.Perfect, first.Value, first.Perfect)
	}
	whole, err := nt.EffectiveGap(GapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cycle, err := nt.EffectiveGap(GapOptions{Horizon: 400})
	if err != nil {
		t.Fatal(err)
	}
	if cycle.Value != whole.Value || cycle.Perfect != whole.Perfect || relClose(whole.Value, short.Value, 1e-3) {
		t.Errorf("10 whole cycles: %g, no horizon: %g, first phase only: %g", cycle.Value, whole.Value, short.Value)
	}
}

// TestUntilDone: a computation that does not look at ctx (a dense
// eigensolve) is left to finish on its own when ctx is done: the caller
// gets ctx's error at once, and the result when it comes first.
func TestUntilDone(t *testing.T) {
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := untilDone(ctx, func() (float64, error) { <-release; return 1, nil })
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	close(release)
	if v, err := untilDone(context.Background(), func() (float64, error) { return 2, nil }); v != 2 || err != nil {
		t.Fatalf("not cancelled: %v %v", v, err)
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	if v, err := untilDone(live, func() (float64, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("live context: %v %v", v, err)
	}
}

// TestLanczosSharedSolver: the effective gap's Lanczos is the graph's own
// thick-restart iteration (package lanczos): on a random geometric graph
// of 20 000 nodes under parametric churn, forced to Lanczos, it gives
// (1 − q)π² times the graph's gap, which the graph's solver computes; the
// explicit restarts it had before did not converge there (20 000 products,
// no value).
func TestLanczosSharedSolver(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "geometric", N: 20000, Seed: 1})
	pg, err := graph.SpectralGap(g)
	if err != nil {
		t.Fatal(err)
	}
	m := Model{Loss: 0.1, Churn: Churn{Dist: DistExponential, Up: 90, Down: 10}}
	f, _ := m.GapScale()
	got := gapOf(t, m, g, GapOptions{Method: "lanczos"})
	if got.Method != "lanczos" || !relClose(got.Value, f*pg.Value, 1e-6) {
		t.Fatalf("lanczos %.10g (%s, %d products), want (1 − q)π² × %.10g = %.10g", got.Value, got.Method, got.Iterations, pg.Value, f*pg.Value)
	}
}

// TestGapBelowResolution: a connected expected graph whose edge weights are
// spread over 16 orders of magnitude has a positive λ₂ that the dense
// eigensolver cannot tell from its rounding (it came out negative, and was
// reported): it is refused, ErrBelowResolution, never given; a spread of
// 10⁴ is resolved, and agrees with Lanczos.
func TestGapBelowResolution(t *testing.T) {
	const n = 300
	pairs := make([][2]int32, n)
	for i := range pairs {
		pairs[i] = [2]int32{int32(i), int32((i + 1) % n)}
	}
	weights := func(big float64) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		w[0], w[1] = big, big
		return w
	}
	for _, big := range []float64{1e16, 1e20, 1e300} {
		v, _, _, none, err := laplacianLambda2(context.Background(), "dense", n, pairs, weights(big), GapOptions{})
		if !errors.Is(err, ErrBelowResolution) || none != "" {
			t.Errorf("spread %g: λ₂ %g, %q, %v; want ErrBelowResolution", big, v, none, err)
		}
	}
	d, _, _, _, err := laplacianLambda2(context.Background(), "dense", n, pairs, weights(1e4), GapOptions{})
	if err != nil || !(d > 0) {
		t.Fatalf("spread 1e4: dense λ₂ %g, %v", d, err)
	}
	l, _, _, _, err := laplacianLambda2(context.Background(), "lanczos", n, pairs, weights(1e4), GapOptions{})
	if err != nil || !relClose(d, l, 1e-5) {
		t.Errorf("spread 1e4: dense %g, lanczos %g (%v)", d, l, err)
	}
}
