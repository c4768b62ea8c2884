package network

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// NodeView is a read-only view of the nodes' local state that an adaptive
// Picker may consult. The engine implements it; slices it returns must not
// be modified or kept.
type NodeView interface {
	N() int
	Z(k int) []float64     // the dual variable z_k
	Theta(k int) []float64 // the primal iterate θ_k
	Activations(k int) int64
}

// Draw gives a Picker the counter-based random draws of one iteration t:
// Uint64(k), Float64(k) and IntN(k, n) are functions of (seed, t, k) alone,
// so a picker that uses only these and the view picks the same edge however
// and whenever it is asked.
type Draw struct{ dom, t uint64 }

// Uint64 returns the k-th 64-bit draw of the iteration.
func (d Draw) Uint64(k uint64) uint64 { return rng.Hash(d.dom, d.t, k) }

// Float64 returns the k-th uniform draw in [0, 1) of the iteration.
func (d Draw) Float64(k uint64) float64 { return unit(rng.Hash(d.dom, d.t, k)) }

// IntN returns the k-th uniform integer in [0, n) of the iteration.
func (d Draw) IntN(k uint64, n int) int { return rng.HashIntN(d.dom, d.t, k, n) }

// Picker is an adaptive activation scheme (the paper's concluding
// question): it picks iteration t's edge from the nodes' local state. It
// must return an edge of g (the phase's graph), i ≠ j, and be a function of
// (t, d, view) so that runs are reproducible.
//
// The 1/p_k weights of Algorithm 3 need p_k. A picker that knows its
// activation probabilities implements EdgeProber; otherwise New estimates
// them by a pilot: PilotDraws draws (default max(10⁵, 100·|edges|)) of Next
// for t = 1, 2, … with Draw keyed by the pilot's own identifier, against a
// view of the initial state (z = θ = 0 in dimension PilotDim, default 1)
// whose activation counts follow the pilot's own picks; p_e is the
// empirical frequency of edge e and p_k = Σ_{e∋k} p_e.
type Picker interface {
	Next(t int64, d Draw, view NodeView) (i, j int)
}

// EdgeProber is the optional method of a Picker that declares its
// activation probabilities: one per edge of g (in g.Edges' order), summing
// to 1.
type EdgeProber interface {
	EdgeProbabilities(g *graph.Graph) []float64
}

// alias is Vose's alias table over the outcomes of positive weight: a
// column of the table is drawn uniformly, then its own outcome with
// probability prob, else alt. Outcomes of weight 0 have no column and are
// never drawn, whatever the rounding.
type alias struct {
	out  []int32 // the outcome of each column
	prob []float64
	alt  []int32 // an outcome
}

func newAlias(w []float64) alias {
	var a alias
	sum := 0.0
	for x, v := range w {
		if v > 0 {
			a.out = append(a.out, int32(x))
			sum += v
		}
	}
	m := len(a.out)
	a.prob, a.alt = make([]float64, m), make([]int32, m)
	scaled := make([]float64, m)
	var small, large []int32 // columns
	for c, x := range a.out {
		scaled[c] = w[x] * float64(m) / sum
		if scaled[c] < 1 {
			small = append(small, int32(c))
		} else {
			large = append(large, int32(c))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alt[s] = scaled[s], a.out[l]
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// what is left has scaled weight 1 up to rounding
	for _, c := range append(large, small...) {
		a.prob[c], a.alt[c] = 1, a.out[c]
	}
	return a
}

// draw picks an outcome from the draws (dom, t, 0) and (dom, t, 1).
func (a *alias) draw(dom, t uint64) int {
	col := rng.HashIntN(dom, t, 0, len(a.prob))
	if unit(rng.Hash(dom, t, 1)) < a.prob[col] {
		return int(a.out[col])
	}
	return int(a.alt[col])
}

// edgeIndex returns the index of the edge {i, j} in g.Edges, or −1.
func edgeIndex(g *graph.Graph, i, j int) int {
	e := [2]int32{int32(min(i, j)), int32(max(i, j))}
	x, found := slices.BinarySearchFunc(g.Edges, e, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		return int(a[1]) - int(b[1])
	})
	if !found {
		return -1
	}
	return x
}

// weightLine is one line of a weights file.
type weightLine struct {
	w    float64
	line int
}

// readWeights reads `i j w` lines: w a finite weight >= 0, pairs given once
// (in either orientation). Errors name file:line.
func readWeights(path string, n int) (map[[2]int32]weightLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--activation: %w", err)
	}
	defer f.Close()
	out := map[[2]int32]weightLine{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(s)
		if len(fs) == 0 {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("--activation: %s:%d: %s", path, line, fmt.Sprintf(format, a...))
		}
		if len(fs) != 3 {
			return nil, bad("expected `i j w`, got %q", strings.TrimSpace(s))
		}
		a, e1 := strconv.ParseInt(fs[0], 10, 32)
		b, e2 := strconv.ParseInt(fs[1], 10, 32)
		w, e3 := plainFloat(fs[2])
		switch {
		case e1 != nil || e2 != nil:
			return nil, bad("expected two node ids, got %q %q", fs[0], fs[1])
		case e3 != nil || !(w >= 0) || math.IsInf(w, 0):
			return nil, bad("weight %q is not a finite number >= 0", fs[2])
		case a < 0 || b < 0 || a >= int64(n) || b >= int64(n) || a == b:
			return nil, bad("(%d, %d) is not a pair of distinct nodes in [0, %d)", a, b, n)
		}
		key := [2]int32{int32(min(a, b)), int32(max(a, b))}
		if prev, dup := out[key]; dup {
			return nil, bad("edge (%d, %d) repeats line %d", a, b, prev.line)
		}
		out[key] = weightLine{w, line}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--activation: %s:%d: %w", path, line+1, err)
	}
	return out, nil
}

// clockP returns p_e = (1/n)(1/d_i + 1/d_j) for every edge of g: a uniform
// node wakes and calls a uniform neighbour.
func clockP(g *graph.Graph) []float64 {
	pe := make([]float64, len(g.Edges))
	n := float64(g.N)
	for x, e := range g.Edges {
		pe[x] = (1/float64(g.Degree(int(e[0]))) + 1/float64(g.Degree(int(e[1])))) / n
	}
	return pe
}

// nodeP returns p_k = Σ_{e∋k} p_e.
func nodeP(n int, pairs [][2]int32, pe []float64) []float64 {
	p := make([]float64, n)
	for x, e := range pairs {
		p[e[0]] += pe[x]
		p[e[1]] += pe[x]
	}
	return p
}

// pilotView is the view an adaptive picker's pilot runs against.
type pilotView struct {
	zero []float64
	act  []int64
}

func (v *pilotView) N() int                  { return len(v.act) }
func (v *pilotView) Z(int) []float64         { return v.zero }
func (v *pilotView) Theta(int) []float64     { return v.zero }
func (v *pilotView) Activations(k int) int64 { return v.act[k] }

// pilotP estimates an adaptive picker's p_e on g (see Picker).
func pilotP(a Activation, g *graph.Graph, dom uint64, tOf func(x int64) (int64, bool)) ([]float64, error) {
	draws := a.PilotDraws
	if draws == 0 {
		draws = max(100000, 100*len(g.Edges))
	}
	dim := a.PilotDim
	if dim == 0 {
		dim = 1
	}
	view := &pilotView{zero: make([]float64, dim), act: make([]int64, g.N)}
	cnt := make([]float64, len(g.Edges))
	for x := 1; x <= draws; x++ {
		t, ok := tOf(int64(x))
		if !ok {
			return nil, fmt.Errorf("--activation: adaptive picker's pilot: the phase of %s has fewer than %d iterations before 2^53 to draw at; declare the probabilities (network.EdgeProber) or set PilotDraws", g.Name, draws)
		}
		i, j := a.Picker.Next(t, Draw{dom, uint64(x)}, view)
		e := -1
		if i >= 0 && j >= 0 && i < g.N && j < g.N {
			e = edgeIndex(g, i, j)
		}
		if e < 0 {
			return nil, fmt.Errorf("--activation: adaptive picker's pilot draw %d (t = %d) gave (%d, %d), not an edge of %s", x, t, i, j, g.Name)
		}
		cnt[e]++
		view.act[i]++
		view.act[j]++
	}
	for x := range cnt {
		cnt[x] /= float64(draws)
	}
	return cnt, nil
}
