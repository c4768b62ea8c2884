package network

import (
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// TestDefaultEdgesIsTheEngineStream: uniform edges on a static graph are the
// engine's own draw, and Edge reproduces it from the same stream.
func TestDefaultEdgesIsTheEngineStream(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 60, K: 4, P: 0.3, Seed: 2})
	nt := mustNet(t, Model{Loss: 0.2}, g, 9)
	if !nt.DefaultEdges() {
		t.Fatal("uniform edges are not the default draw")
	}
	engine, mine := rng.New(9, 1), rng.New(9, 1)
	for tt := int64(1); tt < 5000; tt++ {
		e := g.Edges[engine.IntN(len(g.Edges))]
		i, j, ok := nt.Edge(tt, mine, nil)
		if !ok || i != int(e[0]) || j != int(e[1]) {
			t.Fatalf("t=%d: Edge (%d, %d), engine (%d, %d)", tt, i, j, e[0], e[1])
		}
	}
	for _, m := range []Model{{Activation: Activation{Kind: ActClocks}}, {Schedule: []Phase{{Graph: g, Length: 5}}}} {
		if mustNet(t, m, g, 9).DefaultEdges() {
			t.Errorf("%v claims the default draw", m)
		}
	}
}

// frequencies draws iters edges and returns their empirical frequency per
// edge index of g.
func frequencies(t *testing.T, nt *Net, g *graph.Graph, iters int64) []float64 {
	f := make([]float64, len(g.Edges))
	for tt := int64(1); tt <= iters; tt++ {
		i, j, ok := nt.Edge(tt, rng.New(1, 1), nil)
		if !ok {
			t.Fatalf("t=%d activated nothing", tt)
		}
		x := edgeIndex(g, i, j)
		if x < 0 {
			t.Fatalf("t=%d: (%d, %d) is not an edge", tt, i, j)
		}
		f[x] += 1 / float64(iters)
	}
	return f
}

func checkP(t *testing.T, name string, nt *Net, g *graph.Graph, pe []float64) {
	t.Helper()
	sum := 0.0
	for _, p := range nt.P(1) {
		sum += p
	}
	if math.Abs(sum-2) > 1e-12 {
		t.Errorf("%s: Σ p_k = %.17g, want 2", name, sum)
	}
	want := nodeP(g.N, g.Edges, pe)
	for k, p := range nt.P(1) {
		if math.Abs(p-want[k]) > 1e-12 {
			t.Fatalf("%s: p_%d = %g, want %g", name, k, p, want[k])
		}
	}
}

func TestClocks(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "star", N: 6})
	nt := mustNet(t, Model{Activation: Activation{Kind: ActClocks}}, g, 4)
	// star: centre 0 of degree 5, leaves of degree 1; p_e = (1/6)(1/5 + 1)
	// and p_0 = 1/n + Σ_j 1/(n d_j) = 1/6 + 5/6 = 1.
	for x := range g.Edges {
		if pe := nt.phases[0].pe[x]; math.Abs(pe-(1.0/6)*(1.0/5+1)) > 1e-15 {
			t.Fatalf("p_e = %g", pe)
		}
	}
	if p := nt.P(1); math.Abs(p[0]-1) > 1e-15 || math.Abs(p[1]-0.2) > 1e-15 {
		t.Fatalf("p = %v", p)
	}
	ws := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 30, K: 4, P: 0.5, Seed: 3})
	nt = mustNet(t, Model{Activation: Activation{Kind: ActClocks}}, ws, 4)
	checkP(t, "clocks", nt, ws, clockP(ws))
	f := frequencies(t, nt, ws, 400000)
	for x, pe := range clockP(ws) {
		if math.Abs(f[x]-pe) > 5*math.Sqrt(pe/400000)+1e-4 {
			t.Errorf("edge %v: frequency %g, p_e %g", ws.Edges[x], f[x], pe)
		}
	}
}

func TestWeights(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 5})
	file := writeFile(t, "w.txt", "# i j w\n0 1 1\n2 1 2\n2 3 3\n3 4 0\n4 0 4\n")
	for _, a := range []Activation{{Kind: ActWeights, File: file},
		{Kind: ActWeights, Weights: func(i, j int) float64 {
			return map[[2]int]float64{{0, 1}: 1, {1, 2}: 2, {2, 3}: 3, {0, 4}: 4}[[2]int{i, j}]
		}}} {
		nt := mustNet(t, Model{Activation: a}, g, 6)
		want := make([]float64, len(g.Edges))
		for x, e := range g.Edges {
			want[x] = map[[2]int32]float64{{0, 1}: 0.1, {1, 2}: 0.2, {2, 3}: 0.3, {3, 4}: 0, {0, 4}: 0.4}[e]
		}
		checkP(t, "weights", nt, g, want)
		f := frequencies(t, nt, g, 200000)
		for x := range f {
			if want[x] == 0 && f[x] != 0 {
				t.Errorf("edge %v of weight 0 drawn", g.Edges[x])
			}
			if math.Abs(f[x]-want[x]) > 0.005 {
				t.Errorf("edge %v: frequency %g, want %g", g.Edges[x], f[x], want[x])
			}
		}
	}
	for content, msg := range map[string]string{
		"0 1\n":          "w.txt:1: expected `i j w`",
		"0 1 -1\n":       "w.txt:1: weight \"-1\"",
		"0 1 NaN\n":      "w.txt:1: weight",
		"0 1 0x1p1\n":    "w.txt:1: weight \"0x1p1\"",
		"0 1 1_0\n":      "w.txt:1: weight \"1_0\"",
		"0 7 1\n":        "w.txt:1: (0, 7) is not a pair",
		"0 1 1\n1 0 2\n": "w.txt:2: edge (1, 0) repeats line 1",
		"0 2 1\n":        "w.txt:1: (0, 2) is not an edge",
		"0 1 0\n":        "every edge of cycle",
	} {
		_, err := New(Model{Activation: Activation{Kind: ActWeights, File: writeFile(t, "w.txt", content)}}, g, 1)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--activation: ") {
			t.Errorf("%q: %v, want %q", content, err, msg)
		}
	}
}

// roundRobin picks edge t mod |E| of a fixed graph; declared says whether
// it declares its probabilities.
type roundRobin struct{ g *graph.Graph }

func (r roundRobin) Next(t int64, _ Draw, _ NodeView) (int, int) {
	e := r.g.Edges[int(t)%len(r.g.Edges)]
	return int(e[0]), int(e[1])
}

type declared struct{ roundRobin }

func (declared) EdgeProbabilities(g *graph.Graph) []float64 {
	p := make([]float64, len(g.Edges))
	for x := range p {
		p[x] = 1 / float64(len(p))
	}
	return p
}

// leastActive calls the least activated node's first neighbour, ties broken
// by the iteration's draw: it uses the view.
type leastActive struct{ g *graph.Graph }

func (l leastActive) Next(t int64, d Draw, v NodeView) (int, int) {
	best := d.IntN(0, v.N())
	for k := 0; k < v.N(); k++ {
		if v.Activations(k) < v.Activations(best) {
			best = k
		}
	}
	return best, int(l.g.Neighbors(best)[0])
}

func TestAdaptive(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 5})
	uniform := declared{}.EdgeProbabilities(g)
	nt := mustNet(t, Model{Activation: Activation{Kind: ActAdaptive, Picker: declared{roundRobin{g}}}}, g, 1)
	checkP(t, "declared", nt, g, uniform)
	nt = mustNet(t, Model{Activation: Activation{Kind: ActAdaptive, Picker: roundRobin{g}, PilotDraws: 1000}}, g, 1)
	checkP(t, "pilot", nt, g, uniform) // 1000 draws cover each of 10 edges 100 times
	nt = mustNet(t, Model{Activation: Activation{Kind: ActAdaptive, Picker: leastActive{g}}}, g, 1)
	sum := 0.0
	for _, p := range nt.P(1) {
		sum += p
	}
	if math.Abs(sum-2) > 1e-9 {
		t.Errorf("leastActive: Σ p_k = %g", sum)
	}
	// picks go through to Edge with the view; a bad pick is reported.
	i, j, ok := nt.Edge(3, nil, &pilotView{zero: []float64{0}, act: []int64{5, 5, 0, 5, 5}})
	if !ok || i != 2 || j != 0 {
		t.Fatalf("Edge = (%d, %d, %v)", i, j, ok)
	}
	bad := mustNet(t, Model{Activation: Activation{Kind: ActAdaptive, Picker: declared{roundRobin{mustGraph(t, graph.Spec{Kind: "complete", N: 5})}}}}, mustGraph(t, graph.Spec{Kind: "cycle", N: 5}), 1)
	for tt := int64(0); tt < 10 && bad.Err() == nil; tt++ {
		bad.Edge(tt, nil, nil)
	}
	if bad.Err() == nil || !strings.Contains(bad.Err().Error(), "not an edge of cycle") {
		t.Fatalf("bad pick: %v", bad.Err())
	}
	if _, err := New(Model{Activation: Activation{Kind: ActAdaptive, Picker: roundRobin{g}}}, mustGraph(t, graph.Spec{Kind: "cycle", N: 5}), 1); err == nil ||
		!strings.Contains(err.Error(), "pilot draw") {
		t.Fatalf("pilot bad pick: %v", err)
	}
}

func TestScheduleAndLinks(t *testing.T) {
	a := mustGraph(t, graph.Spec{Kind: "cycle", N: 8})
	b := mustGraph(t, graph.Spec{Kind: "complete", N: 8})
	m := Model{Schedule: []Phase{{Graph: a, Length: 3}, {Spec: graph.Spec{Kind: "complete", N: 8}, Length: 2}}, LinkUp: 0.5}
	nt := mustNet(t, m, a, 2)
	wantPhase := []int{0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0}
	for x, w := range wantPhase {
		tt := int64(x + 1)
		idx, inst := nt.phase(tt)
		if idx != w || inst != uint64(x/5*2+w) {
			t.Fatalf("t=%d: phase %d instance %d", tt, idx, inst)
		}
		i, j, ok := nt.Edge(tt, rng.New(0, 1), nil)
		if !ok || !nt.Graph(tt).HasEdge(i, j) || (w == 0) != a.HasEdge(i, j) && w == 0 {
			t.Fatalf("t=%d: (%d, %d) from the wrong graph", tt, i, j)
		}
	}
	if p := nt.P(4); math.Abs(p[0]-2.0/8) > 1e-15 || math.Abs(nt.P(1)[0]-2.0/8) > 1e-15 || len(nt.PhaseP(1)) != 8 {
		t.Fatalf("p: %v %v", nt.P(4), nt.P(1))
	}
	// links: constant within a phase instance, up a fraction a overall
	up, total := 0, 0
	for inst := 0; inst < 400; inst++ {
		t0 := int64(inst/2*5 + 1 + inst%2*3) // first iteration of the instance
		g := b
		if inst%2 == 0 {
			g = a
		}
		for _, e := range g.Edges {
			u := nt.LinkUp(t0, int(e[0]), int(e[1]))
			if u2 := nt.LinkUp(t0+1, int(e[1]), int(e[0])); u2 != u {
				t.Fatal("a link changed within its phase instance")
			}
			ti, tj := nt.Delivered(t0, int(e[0]), int(e[1]))
			if ti != u || tj != u {
				t.Fatal("a down link delivered")
			}
			total++
			if u {
				up++
			}
		}
	}
	if f := float64(up) / float64(total); math.Abs(f-0.5) > 0.02 {
		t.Errorf("links up %g, want 0.5", f)
	}
	if _, err := New(Model{Schedule: []Phase{{Spec: graph.Spec{Kind: "cycle", N: 9}, Length: 3}}}, a, 1); err == nil ||
		!strings.Contains(err.Error(), "--graph-schedule: phase 1 (cycle") || !strings.Contains(err.Error(), "has 9 nodes; the run has 8") {
		t.Fatalf("n mismatch: %v", err)
	}
	if _, err := New(Model{Schedule: []Phase{{Spec: graph.Spec{Kind: "file", File: "/nonexistent/g"}, Length: 3}}}, a, 1); err == nil ||
		!strings.HasPrefix(err.Error(), "--graph-schedule: phase 1:") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestPSumsToTwo: every model's p_k sums to 2.
func TestPSumsToTwo(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 40, K: 4, P: 0.3, Seed: 5})
	s := &Stream{Name: "s", T: []int64{1, 2, 4}, I: []int32{g.Edges[0][0], g.Edges[3][0], g.Edges[3][1]}, J: []int32{g.Edges[0][1], g.Edges[3][1], g.Edges[3][0]}}
	for name, m := range map[string]Model{
		"edges":     {},
		"clocks":    {Activation: Activation{Kind: ActClocks}},
		"weights":   {Activation: Activation{Kind: ActWeights, Weights: func(i, j int) float64 { return float64(i + j) }}},
		"adaptive":  {Activation: Activation{Kind: ActAdaptive, Picker: leastActive{g}, PilotDraws: 5000}},
		"stream":    {Stream: s},
		"empirical": {Stream: s, StreamP: "empirical"},
		"schedule":  {Schedule: []Phase{{Graph: g, Length: 2}, {Spec: graph.Spec{Kind: "complete", N: 40}, Length: 1}}, Activation: Activation{Kind: ActClocks}},
	} {
		nt := mustNet(t, m, g, 1)
		for x := 0; x < nt.Phases(); x++ {
			sum := 0.0
			for _, p := range nt.PhaseP(x) {
				sum += p
			}
			if math.Abs(sum-2) > 1e-12 {
				t.Errorf("%s phase %d: Σ p_k = %.17g", name, x, sum)
			}
		}
	}
}

// TestNoAllocation: the per-iteration calls allocate nothing.
func TestNoAllocation(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 100, K: 4, P: 0.3, Seed: 5})
	for name, m := range map[string]Model{
		"clocks":  {Loss: 0.3, LossOneWay: true, Churn: Churn{Dist: DistLognormal, Up: 10, Down: 3}, Delay: Delay{Dist: DelayGeometric, Mean: 2, Max: 9}, Activation: Activation{Kind: ActClocks}},
		"weights": {Loss: 0.3, Activation: Activation{Kind: ActWeights, Weights: func(i, j int) float64 { return 1 }}},
		"links":   {Schedule: []Phase{{Graph: g, Length: 7}}, LinkUp: 0.5},
	} {
		nt := mustNet(t, m, g, 1)
		st := rng.New(1, 1)
		tt := int64(0)
		allocs := testing.AllocsPerRun(1000, func() {
			tt++
			i, j, _ := nt.Edge(tt, st, nil)
			nt.Delivered(tt, i, j)
			nt.Delay(tt, DirToJ)
			nt.Online(i, tt)
			nt.P(tt)
		})
		if allocs != 0 {
			t.Errorf("%s: %g allocations per iteration", name, allocs)
		}
	}
}

// TestInvPIsTheEngines: for uniform edges 1/p_k is the engine's |E|/(2d_k)
// bit for bit (engine/state.go); otherwise 1/p_k.
func TestInvPIsTheEngines(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 99, K: 6, P: 0.4, Seed: 5})
	for _, m := range []Model{{}, {Schedule: []Phase{{Graph: g, Length: 4}}}} {
		inv := mustNet(t, m, g, 1).InvP(1)
		for k := range inv {
			if inv[k] != float64(g.UndirectedEdges())/float64(g.Degree(k)) {
				t.Fatalf("1/p_%d = %v", k, inv[k])
			}
		}
	}
	nt := mustNet(t, Model{Activation: Activation{Kind: ActClocks}}, g, 1)
	for k, p := range nt.P(1) {
		if nt.InvP(1)[k] != 1/p {
			t.Fatal("clocks: InvP is not 1/p")
		}
	}
}

// TestAliasExact: the alias table's probabilities, summed over its columns,
// are the normalised weights (up to rounding), for skewed weights too.
func TestAliasExact(t *testing.T) {
	for _, w := range [][]float64{{1, 2, 3, 4}, {0, 1e-9, 5, 0, 1}, {7}, {1, 1, 1, 0}} {
		a := newAlias(w)
		got := make([]float64, len(w))
		for c := range a.prob {
			got[a.out[c]] += a.prob[c] / float64(len(a.prob))
			got[a.alt[c]] += (1 - a.prob[c]) / float64(len(a.prob))
		}
		sum := 0.0
		for _, v := range w {
			sum += v
		}
		for x := range w {
			if math.Abs(got[x]-w[x]/sum) > 1e-12 || w[x] == 0 && got[x] != 0 {
				t.Errorf("%v: outcome %d has probability %g, want %g", w, x, got[x], w[x]/sum)
			}
		}
	}
}

type badDeclared struct{ roundRobin }

func (badDeclared) EdgeProbabilities(g *graph.Graph) []float64 {
	return make([]float64, len(g.Edges)) // sums to 0
}

func TestRefusedGoValues(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 5})
	if _, err := New(Model{Activation: Activation{Kind: ActAdaptive, Picker: badDeclared{roundRobin{g}}}}, g, 1); err == nil ||
		!strings.Contains(err.Error(), "sum to 0, not 1") {
		t.Errorf("bad declared probabilities: %v", err)
	}
	for _, s := range []*Stream{
		{Name: "go", T: []int64{1, 1}, I: []int32{0, 1}, J: []int32{1, 2}},
		{Name: "go", T: []int64{1}, I: []int32{0}, J: []int32{9}},
		{Name: "go", T: []int64{1}, I: []int32{0}},
	} {
		if nt, err := New(Model{Stream: s, StreamP: "empirical"}, g, 1); err == nil || nt != nil || !strings.HasPrefix(err.Error(), "--edge-stream: go: ") {
			t.Errorf("%+v: %v", s, err)
		}
	}
	// the first line of a weights file that names no edge is the one named
	file := writeFile(t, "w.txt", "0 1 1\n0 2 1\n1 3 1\n0 3 1\n")
	for x := 0; x < 5; x++ {
		if _, err := New(Model{Activation: Activation{Kind: ActWeights, File: file}}, g, 1); err == nil || !strings.Contains(err.Error(), "w.txt:2: (0, 2)") {
			t.Fatalf("weights: %v", err)
		}
	}
}

// TestDrawKeyed: a picker's draws are functions of (seed, t, k) alone.
func TestDrawKeyed(t *testing.T) {
	a, b := Draw{dom: 9, t: 4}, Draw{dom: 9, t: 4}
	if a.Uint64(3) != b.Uint64(3) || a.Float64(2) != b.Float64(2) || a.IntN(1, 1000) != b.IntN(1, 1000) {
		t.Fatal("same key, different draws")
	}
	if a.Uint64(3) == (Draw{dom: 9, t: 5}).Uint64(3) || a.Uint64(3) == a.Uint64(4) {
		t.Fatal("different keys, same draw")
	}
	if f := a.Float64(7); !(f >= 0 && f < 1) {
		t.Fatal(f)
	}
}

// TestWeightsHuge: finite weights whose sum overflows (1e308 on every
// edge, or one 1e308 among ones, whose product with the edge count does)
// give the probabilities of the same weights scaled down, the same p_k and
// the same edge draws, where they gave every edge probability 0.
func TestWeightsHuge(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 40})
	for _, c := range []struct {
		name       string
		huge, norm func(i, j int) float64
	}{
		{"all 1e308", func(i, j int) float64 { return 1e308 }, func(i, j int) float64 { return 1 }},
		{"one 1e308", func(i, j int) float64 {
			if i == 0 {
				return 1e308
			}
			return 1e300
		}, func(i, j int) float64 {
			if i == 0 {
				return 1e8
			}
			return 1
		}},
	} {
		a := mustNet(t, Model{Activation: Activation{Kind: ActWeights, Weights: c.huge}}, g, 3)
		b := mustNet(t, Model{Activation: Activation{Kind: ActWeights, Weights: c.norm}}, g, 3)
		pa, pb := a.P(1), b.P(1)
		for k := range pa {
			if !(pa[k] > 0) || math.Abs(pa[k]-pb[k]) > 1e-13*pb[k] {
				t.Fatalf("%s: p_%d = %v, scaled weights give %v", c.name, k, pa[k], pb[k])
			}
		}
		ea, eb := rng.New(9, 0), rng.New(9, 0)
		for tt := int64(1); tt <= 2000; tt++ {
			i, j, _ := a.Edge(tt, ea, nil)
			k, l, _ := b.Edge(tt, eb, nil)
			if i != k || j != l {
				t.Fatalf("%s: t %d: edge (%d, %d), scaled weights (%d, %d)", c.name, tt, i, j, k, l)
			}
		}
	}
}

// phasedRoundRobin picks a uniform edge of the schedule's graph in effect
// at t (phases of length L, cycled): a picker that chooses by t.
type phasedRoundRobin struct {
	gs []*graph.Graph
	L  int64
}

func (p phasedRoundRobin) Next(t int64, d Draw, _ NodeView) (int, int) {
	g := p.gs[((t-1)/p.L)%int64(len(p.gs))]
	e := g.Edges[d.IntN(0, len(g.Edges))]
	return int(e[0]), int(e[1])
}

// TestAdaptivePilotPhases: under a schedule each phase's pilot draws at
// that phase's own iterations, so that a picker choosing among the
// phases' graphs by t passes it (the pilot drew at t = 1, 2, … for every
// phase, and the second phase's was refused at once), and each phase's
// p_k is its uniform picks': d_k/|E| of its graph.
func TestAdaptivePilotPhases(t *testing.T) {
	ws := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 30, K: 4, P: 0.3, Seed: 2})
	cy := mustGraph(t, graph.Spec{Kind: "cycle", N: 30})
	const L = 7
	m := Model{Schedule: []Phase{{Graph: ws, Length: L}, {Graph: cy, Length: L}},
		Activation: Activation{Kind: ActAdaptive, Picker: phasedRoundRobin{[]*graph.Graph{ws, cy}, L}, PilotDraws: 1000 * L}}
	nt, err := New(m, ws, 1)
	if err != nil {
		t.Fatal(err)
	}
	for x, g := range []*graph.Graph{ws, cy} {
		p := nt.P(int64(x*L + 1))
		for k := range g.N {
			// Uniform edges: p_k = d_k/|E|, to the pilot's sampling error
			// (7000 draws: a few per cent).
			if want := float64(g.Degree(k)) / float64(len(g.Edges)); math.Abs(p[k]-want) > 0.25*want {
				t.Fatalf("phase %d: p_%d = %g, want about %g", x, k, p[k], want)
			}
		}
	}
}

// TestAdaptiveFingerprint: a checkpoint's fingerprint sees an adaptive
// picker's p_e, so that a run resumed under another picker or another
// pilot size is refused (it resumed silently under either).
func TestAdaptiveFingerprint(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 30, K: 4, P: 0.3, Seed: 2})
	fp := func(a Activation) uint64 {
		nt, err := New(Model{Activation: a}, g, 1)
		if err != nil {
			t.Fatal(err)
		}
		return nt.Fingerprint()
	}
	rr := fp(Activation{Kind: ActAdaptive, Picker: roundRobin{g}})
	if rr == 0 || rr != fp(Activation{Kind: ActAdaptive, Picker: roundRobin{g}}) {
		t.Fatalf("the same picker: fingerprints %x", rr)
	}
	for name, a := range map[string]Activation{
		"another picker":                    {Kind: ActAdaptive, Picker: leastActive{g}},
		"a random picker, 5000 pilot draws": {Kind: ActAdaptive, Picker: phasedRoundRobin{[]*graph.Graph{g}, 1}, PilotDraws: 5000},
		"the same, 7000 pilot draws":        {Kind: ActAdaptive, Picker: phasedRoundRobin{[]*graph.Graph{g}, 1}, PilotDraws: 7000},
	} {
		if fp(a) == rr {
			t.Errorf("%s: the same fingerprint", name)
		}
	}
	pick := phasedRoundRobin{[]*graph.Graph{g}, 1}
	if fp(Activation{Kind: ActAdaptive, Picker: pick, PilotDraws: 5000}) == fp(Activation{Kind: ActAdaptive, Picker: pick, PilotDraws: 7000}) {
		t.Error("another pilot size: the same fingerprint")
	}
}
