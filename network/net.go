package network

import (
	"fmt"
	"math"
	"os"
	"unsafe"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
)

// phaseNet is one phase's graph with its activation data.
type phaseNet struct {
	g      *graph.Graph
	length int64
	pairs  [][2]int32 // the activatable pairs (g.Edges, or a stream's pairs)
	pe     []float64  // p_e per pair: the probability an activation is that pair
	p      []float64  // p_k = Σ_{e∋k} p_e (sums to 2)
	invP   []float64  // 1/p_k (+Inf for a node never activated)
	// stream: the phase replays a recorded stream, whose pairs enter the
	// expected gossip matrix with their frequency per iteration
	// (iterations without a line activate nothing) in place of pairs and
	// pe: counted when a gap is asked for (EffectiveGap), not when the run
	// is built, since a run past the summary's gap size never asks.
	stream bool
	alias  alias // weights
}

// streamCounts returns the pairs of the stream's lines at iterations
// 1 … horizon, in order of first appearance, each with its count of lines
// over div: its frequency per iteration for div = horizon (an iteration
// without a line activates nothing), per line for div = the line count.
func streamCounts(s *Stream, horizon int64, div float64) (pairs [][2]int32, pe []float64) {
	idx := map[[2]int32]int{}
	for x := range s.T {
		if s.T[x] > horizon {
			break // T increases
		}
		e := [2]int32{min(s.I[x], s.J[x]), max(s.I[x], s.J[x])}
		y, ok := idx[e]
		if !ok {
			y = len(pairs)
			idx[e] = y
			pairs = append(pairs, e)
			pe = append(pe, 0)
		}
		pe[y]++
	}
	for y := range pe {
		pe[y] /= div
	}
	return pairs, pe
}

// streamFrequencies is streamCounts per iteration of 1 … horizon.
func streamFrequencies(s *Stream, horizon int64) (pairs [][2]int32, pe []float64) {
	return streamCounts(s, horizon, float64(horizon))
}

// Net is a Model instantiated for one run: the graph(s), the seed and the
// cursors. Build it with New. The per-iteration methods allocate nothing.
// Online may be called concurrently for different nodes; the other methods
// that take t are pure functions of their arguments except Edge (the
// engine's stream, a recorded stream's cursor, a picker), which the engine
// calls from one goroutine in order of t.
type Net struct {
	model  Model
	g      *graph.Graph
	n      int
	seed   uint64
	kind   string // activation kind, "" for edges
	loss   float64
	oneway bool
	linkUp float64

	dLoss, dDelay, dLink, dAct uint64
	// lossKey is rng.HashKey(dLoss) and lossMin ⌈q·2⁵³⌉: a message of
	// iteration t is delivered when rng.HashKeyed(lossKey, t, dir)>>11 ≥
	// lossMin, the same test as unit(rng.Hash(dLoss, t, dir)) ≥ q (unit's
	// value is that integer times 2⁻⁵³, exactly), without the float
	// conversion or the key's mix a draw (initDraws).
	lossKey, lossMin uint64

	churn  *churn
	phases []phaseNet
	ends   []int64 // ends[x] = Σ_{y<=x} length of phase y
	cycle  int64
	stream *Stream
	scur   int // the stream's replay cursor
	delay  Delay
	maxTau int
	// delayGeo is a geometric delay's log(1 − 1/(1 + mean)), once.
	delayGeo float64
	err      error
	fp       uint64 // Fingerprint, once computed (fpDone)
	fpDone   bool
}

// New builds the network of a run on graph g (the run's graph: every
// schedule phase must have g.N nodes) with the run's seed. It reads the
// files the model names (edge stream, churn sessions, weights, schedule
// edge lists) and builds the schedule's graphs; errors name the flag and
// file.
func New(m Model, g *graph.Graph, seed uint64) (*Net, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if g == nil || g.N < 1 {
		return nil, fmt.Errorf("network: no graph")
	}
	nt := &Net{model: m, g: g, n: g.N, seed: seed, kind: m.Activation.Kind, loss: m.Loss, oneway: m.LossOneWay,
		linkUp: m.LinkUp, delay: m.Delay, maxTau: m.Delay.bound(), delayGeo: log1pNoFMA(-1 / (1 + m.Delay.Mean)),
		dLoss: rng.Hash(seed, hashLoss, 0), dDelay: rng.Hash(seed, hashDelay, 0),
		dLink: rng.Hash(seed, hashLink, 0), dAct: rng.Hash(seed, hashActivation, 0)}
	nt.initDraws()
	if nt.kind == ActEdges {
		nt.kind = ""
	}
	if nt.linkUp == 0 {
		nt.linkUp = 1
	}
	if m.Churn.Dist != "" {
		ch, err := newChurn(m.Churn, g.N, seed)
		if err != nil {
			return nil, err
		}
		nt.churn = ch
	}
	if m.EdgeStream != "" || m.Stream != nil {
		if err := nt.initStream(m, g); err != nil {
			return nil, err
		}
		return nt, nil
	}
	sched := m.Schedule
	if len(sched) == 0 {
		sched = []Phase{{Graph: g, Length: math.MaxInt64}}
	}
	var weights map[[2]int32]weightLine
	used := map[[2]int32]bool{}
	var zeroErr error // reported after the lines that name no edge
	if nt.kind == ActWeights && m.Activation.File != "" {
		var err error
		if weights, err = readWeights(m.Activation.File, g.N); err != nil {
			return nil, err
		}
	}
	for x, ph := range sched {
		pg := ph.Graph
		if pg == nil {
			var err error
			if pg, err = graph.Build(ph.Spec); err != nil {
				return nil, fmt.Errorf("--graph-schedule: phase %d: %w", x+1, err)
			}
		}
		if pg.N != g.N {
			hint := ""
			if ph.Spec.Kind == "file" {
				hint = fmt.Sprintf(" (an edge list's n is its largest node id + 1; a header line \"# n = %d\" gives the run's n to a list whose last nodes have no edge)", g.N)
			}
			return nil, fmt.Errorf("--graph-schedule: phase %d (%s) has %d nodes; the run has %d%s", x+1, pg.Name, pg.N, g.N, hint)
		}
		if len(pg.Edges) == 0 {
			return nil, fmt.Errorf("--graph-schedule: phase %d (%s) has no edges", x+1, pg.Name)
		}
		pn := phaseNet{g: pg, length: ph.Length, pairs: pg.Edges}
		switch nt.kind {
		case "":
			pn.pe = make([]float64, len(pg.Edges))
			for y := range pn.pe {
				pn.pe[y] = 1 / float64(len(pg.Edges))
			}
		case ActClocks:
			pn.pe = clockP(pg)
		case ActWeights:
			w := make([]float64, len(pg.Edges))
			sum := 0.0
			for y, e := range pg.Edges {
				if weights != nil {
					if wl, ok := weights[e]; ok {
						w[y] = wl.w
						used[e] = true
					}
				} else {
					w[y] = m.Activation.Weights(int(e[0]), int(e[1]))
					if !(w[y] >= 0) || math.IsInf(w[y], 0) {
						return nil, fmt.Errorf("--activation: weight function gave %v for edge (%d, %d); weights must be finite and >= 0", w[y], e[0], e[1])
					}
				}
				sum += w[y]
			}
			if !(sum > 0) {
				if zeroErr == nil {
					zeroErr = fmt.Errorf("--activation: weights: every edge of %s has weight 0", pg.Name)
				}
				pn.pe = w // all 0; New fails below
				break
			}
			if math.IsInf(sum*float64(len(w)), 1) {
				// Finite weights whose sum, or its product with the
				// edge count (newAlias), overflows (1e308 on every edge):
				// the same probabilities from the weights over the
				// largest, whose sum is at most the edge count.
				w, sum = scaledWeights(w)
			}
			pn.pe = make([]float64, len(w))
			for y := range w {
				pn.pe[y] = w[y] / sum
			}
			pn.alias = newAlias(w)
		case ActAdaptive:
			if pr, ok := m.Activation.Picker.(EdgeProber); ok {
				pn.pe = pr.EdgeProbabilities(pg)
				if len(pn.pe) != len(pg.Edges) {
					return nil, fmt.Errorf("--activation: adaptive picker declared %d edge probabilities for %s, which has %d edges", len(pn.pe), pg.Name, len(pg.Edges))
				}
				sum := 0.0
				for y, v := range pn.pe {
					if !(v >= 0 && v <= 1) {
						return nil, fmt.Errorf("--activation: adaptive picker declared probability %v for edge %v of %s", v, pg.Edges[y], pg.Name)
					}
					sum += v
				}
				if math.Abs(sum-1) > 1e-9 {
					return nil, fmt.Errorf("--activation: adaptive picker's edge probabilities for %s sum to %.17g, not 1", pg.Name, sum)
				}
			} else {
				// The pilot draws at the phase's own iterations (under a
				// schedule a picker may choose by t among the phases'
				// graphs), in order over its instances: its x-th
				// iteration is x without a schedule.
				start, length, cycle := nt.cycle, ph.Length, int64(0)
				for _, q := range m.Schedule {
					cycle += q.Length // overflow: refused below, after the pilot
				}
				tOf := func(x int64) (int64, bool) {
					if len(m.Schedule) == 0 {
						return x, true
					}
					r, o := (x-1)/length, (x-1)%length
					if cycle <= 0 || r > (1<<53-start-o-1)/cycle {
						return 0, false
					}
					return r*cycle + start + o + 1, true
				}
				var err error
				if pn.pe, err = pilotP(m.Activation, pg, rng.Hash(seed, hashPilot, uint64(x)), tOf); err != nil {
					return nil, err
				}
			}
		}
		if nt.kind == "" {
			pn.p = graphP(pg) // bit for bit the engine's p_k
		} else {
			pn.p = nodeP(g.N, pn.pairs, pn.pe)
		}
		pn.invP = inverseP(pg, pn.p, nt.kind == "")
		nt.phases = append(nt.phases, pn)
		if len(m.Schedule) > 0 {
			nt.cycle += ph.Length
			if nt.cycle < 0 {
				return nil, fmt.Errorf("--graph-schedule: the phase lengths overflow")
			}
			nt.ends = append(nt.ends, nt.cycle)
		}
	}
	first := weightLine{line: math.MaxInt}
	var firstE [2]int32
	for e, wl := range weights {
		if !used[e] && wl.line < first.line {
			first, firstE = wl, e
		}
	}
	if first.line != math.MaxInt { // the first such line of the file
		return nil, fmt.Errorf("--activation: %s:%d: (%d, %d) is not an edge of the graph", m.Activation.File, first.line, firstE[0], firstE[1])
	}
	if zeroErr != nil {
		return nil, zeroErr
	}
	return nt, nil
}

// initStream sets up a recorded stream.
func (nt *Net) initStream(m Model, g *graph.Graph) error {
	s := m.Stream
	if s == nil {
		var err error
		if s, err = ReadStream(m.EdgeStream, g.N); err != nil {
			return err
		}
	}
	if m.Stream != nil { // a Go value: check what the reader checks
		if len(s.I) != len(s.T) || len(s.J) != len(s.T) || len(s.T) == 0 {
			return fmt.Errorf("--edge-stream: %s: T, I, J must have one equal, non-zero length", s.Name)
		}
		for x := range s.T {
			i, j := s.I[x], s.J[x]
			if s.T[x] < 1 || x > 0 && s.T[x] <= s.T[x-1] || i < 0 || j < 0 || int(i) >= g.N || int(j) >= g.N || i == j {
				return fmt.Errorf("--edge-stream: %s: activation %d (t = %d, %d %d) is invalid: t must strictly increase from 1, i ≠ j in [0, %d)", s.Name, x+1, s.T[x], i, j, g.N)
			}
		}
	}
	nt.stream = s
	pn := phaseNet{g: g, length: math.MaxInt64, stream: true}
	if m.StreamP == "empirical" {
		// The endpoints' frequencies per line.
		pn.pairs, pn.pe = streamCounts(s, s.Last(), float64(len(s.T)))
	} else {
		for x := range s.T {
			if edgeIndex(g, int(s.I[x]), int(s.J[x])) < 0 {
				return fmt.Errorf("--edge-stream: %s%s: activation %d (t = %d) is (%d, %d), not an edge of %s (p_k comes from the graph; use the empirical p_k for a stream of other contacts)", s.Name, streamLine(s.Name, x), x+1, s.T[x], s.I[x], s.J[x], g.Name)
			}
		}
		pn.pairs = g.Edges
		pn.pe = make([]float64, len(g.Edges))
		for y := range pn.pe {
			pn.pe[y] = 1 / float64(len(g.Edges))
		}
	}
	if m.StreamP == "empirical" {
		pn.p = nodeP(g.N, pn.pairs, pn.pe)
	} else {
		pn.p = graphP(g)
	}
	pn.invP = inverseP(g, pn.p, m.StreamP != "empirical")
	nt.phases = []phaseNet{pn}
	return nil
}

// Bytes returns the memory a Net holds beyond its graphs: churn cursors (32
// bytes per node, or a session file's 16 bytes per interval), a recorded
// stream (16 bytes per line) and per phase the activation tables (p_k and
// 1/p_k, 16 bytes per node; p_e, 8 bytes per edge, 16 more for weights).
func (nt *Net) Bytes() int64 {
	var b int64
	if nt.churn != nil {
		b += int64(len(nt.churn.cur))*int64(unsafe.Sizeof(cursor{})) + int64(len(nt.churn.off))*16 + int64(len(nt.churn.offs)+len(nt.churn.fidx))*8
	}
	if nt.stream != nil {
		b += int64(len(nt.stream.T)) * 16
	}
	for _, ph := range nt.phases {
		b += int64(len(ph.p)+len(ph.invP))*8 + int64(len(ph.pe))*8 + int64(len(ph.alias.prob))*16
	}
	return b
}

// EstimateBytes bounds, before a run builds its network, the memory the
// network of m will hold for n nodes besides what others count: the
// engine its per-node arrays and delay queue, the caller the graphs and
// their per-phase arrays (PhaseBytes: the run's graph's, or a schedule's
// phases'). Here: the churn's cursors, or a session file's records, a
// replayed stream's arrays and a weights file's table, bounded from the
// files' sizes (a line has at least 6 bytes; a session line takes about 80
// bytes while it is read and sorted, a stream line 16, a weights line about
// 64 in its table).
func (m Model) EstimateBytes(n int) int64 {
	var b int64
	if m.Activation.Kind == ActWeights && m.Activation.File != "" {
		b += maxLines(m.Activation.File) * 64
	}
	switch m.Churn.Dist {
	case "":
	case DistFile:
		b += maxLines(m.Churn.File)*80 + int64(n+1)*16
	default:
		b += int64(n) * int64(unsafe.Sizeof(cursor{}))
	}
	if m.EdgeStream != "" && m.Stream == nil {
		b += maxLines(m.EdgeStream) * 16
	}
	return b
}

// PhaseBytes is the memory of a built phase besides its graph, for a graph
// of n nodes and about edges edges: p_k and 1/p_k, p_e, and under
// weights activation the alias table.
func PhaseBytes(n int, edges float64, weights bool) int64 {
	per := 8.0
	if weights {
		per += 16
	}
	return int64(n)*16 + int64(edges*per)
}

// maxLines bounds the lines of the file at path from its size (0 when it
// cannot be read: the run then fails naming it).
func maxLines(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()/6 + 1
}

// Model returns the model the network was built from.
func (nt *Net) Model() Model { return nt.model }

// DefaultEdges reports whether the activation is the paper's: uniform over
// the edges of one static graph. The engine then keeps drawing from its own
// edge stream exactly as without a network model (so defaults are today's
// bits); Edge would give the same edges from the same stream.
func (nt *Net) DefaultEdges() bool {
	return nt.kind == "" && nt.stream == nil && nt.cycle == 0
}

// CheckHorizon refuses a run of iters iterations that a recorded stream does
// not cover.
func (nt *Net) CheckHorizon(iters int64) error {
	return nt.checkHorizon(iters)
}

// Warnings are what a run should say of the data the model read: a
// schedule phase's edge list whose edges repeat (merged, as the run's own
// graph file's are, which graph.Check warns of).
func (nt *Net) Warnings() []string {
	var out []string
	if len(nt.model.Schedule) == 0 {
		return nil
	}
	for x, ph := range nt.phases {
		if ph.g.Merged > 0 {
			out = append(out, fmt.Sprintf("--graph-schedule: phase %d (%s): %d of its edges repeat another (the same pair, in either orientation) and were merged: %d edges remain", x+1, ph.g.Name, ph.g.Merged, len(ph.g.Edges)))
		}
	}
	return out
}

func (nt *Net) checkHorizon(iters int64) error {
	if nt.stream != nil && iters > nt.stream.Last() {
		return fmt.Errorf("--edge-stream: %s ends at iteration %d; the run asks for %d iterations", nt.stream.Name, nt.stream.Last(), iters)
	}
	return nil
}

// phase returns the index of the phase in effect at iteration t and its
// phase instance (the count of phases begun before it, over all cycles).
func (nt *Net) phase(t int64) (idx int, instance uint64) {
	if nt.cycle == 0 {
		return 0, 0
	}
	r := (t - 1) % nt.cycle
	for idx = 0; nt.ends[idx] <= r; idx++ {
	}
	return idx, uint64((t-1)/nt.cycle)*uint64(len(nt.phases)) + uint64(idx)
}

// Graph returns the graph in effect at iteration t.
func (nt *Net) Graph(t int64) *graph.Graph {
	idx, _ := nt.phase(t)
	return nt.phases[idx].g
}

// P returns p_k, the probability that node k is an endpoint of an
// activation, for the phase of iteration t (a slice shared by the whole
// phase: do not modify). Σ_k p_k = 2.
func (nt *Net) P(t int64) []float64 {
	idx, _ := nt.phase(t)
	return nt.phases[idx].p
}

// InvP returns 1/p_k for the phase of iteration t (shared; do not modify):
// the 1/p_k weights of Algorithm 3. For uniform edges it is the engine's
// own expression |E|/(2d_k) (undirected edges over the degree), bit for bit.
func (nt *Net) InvP(t int64) []float64 {
	idx, _ := nt.phase(t)
	return nt.phases[idx].invP
}

// Phases returns the number of phases (1 without a schedule).
func (nt *Net) Phases() int { return len(nt.phases) }

// PhaseP returns p_k of phase x.
func (nt *Net) PhaseP(x int) []float64 { return nt.phases[x].p }

// Edge returns the edge activated at iteration t, ok false when the
// iteration activates nothing (a recorded stream without a line for t, a
// woken node without neighbours under node clocks, an invalid pick of an
// adaptive picker: see Err). edges is the engine's edge stream, used for
// uniform edges exactly as the engine draws (IntN over the phase graph's
// edge list); the other models are counter-based in (seed, t) and ignore
// it. view is consulted only by an adaptive picker (nil otherwise). The
// pair is returned with i < j except from a picker or a stream, which are
// returned as given.
func (nt *Net) Edge(t int64, edges *rng.Stream, view NodeView) (i, j int, ok bool) {
	if nt.stream != nil {
		return nt.stream.at(&nt.scur, t)
	}
	idx, _ := nt.phase(t)
	ph := &nt.phases[idx]
	switch nt.kind {
	case "":
		e := ph.g.Edges[edges.IntN(len(ph.g.Edges))]
		return int(e[0]), int(e[1]), true
	case ActClocks:
		u := rng.HashIntN(nt.dAct, uint64(t), 0, nt.n)
		nb := ph.g.Neighbors(u)
		if len(nb) == 0 {
			return 0, 0, false
		}
		v := int(nb[rng.HashIntN(nt.dAct, uint64(t), 1, len(nb))])
		return min(u, v), max(u, v), true
	case ActWeights:
		e := ph.pairs[ph.alias.draw(nt.dAct, uint64(t))]
		return int(e[0]), int(e[1]), true
	case ActAdaptive:
		i, j := nt.model.Activation.Picker.Next(t, Draw{nt.dAct, uint64(t)}, view)
		if i < 0 || j < 0 || i >= nt.n || j >= nt.n || edgeIndex(ph.g, i, j) < 0 {
			if nt.err == nil {
				nt.err = fmt.Errorf("--activation: adaptive picker gave (%d, %d) at iteration %d, not an edge of %s", i, j, t, ph.g.Name)
			}
			return 0, 0, false
		}
		return i, j, true
	}
	return 0, 0, false
}

// Err returns the first invalid pick of an adaptive picker, if any.
func (nt *Net) Err() error { return nt.err }

// Delivered says which messages of iteration t's exchange on (i, j)
// arrive: toJ for i → j, toI for j → i. A link that is down in the current
// phase instance delivers nothing; otherwise message loss applies (both
// together, or each direction alone with LossOneWay). It does not look at
// churn: an exchange with an offline endpoint does not happen at all (the
// engine asks Online first). The draws depend on t (and the edge, for link
// failures), not on how the edge was chosen.
func (nt *Net) Delivered(t int64, i, j int) (toI, toJ bool) {
	if nt.linkUp < 1 {
		idx, inst := nt.phase(t)
		if e := edgeIndex(nt.phases[idx].g, i, j); e >= 0 && unit(rng.Hash(nt.dLink, inst, uint64(e))) >= nt.linkUp {
			return false, false
		}
	}
	if nt.loss == 0 {
		return true, true
	}
	if !nt.oneway {
		ok := rng.HashKeyed(nt.lossKey, uint64(t), 2)>>11 >= nt.lossMin
		return ok, ok
	}
	toJ = rng.HashKeyed(nt.lossKey, uint64(t), DirToJ)>>11 >= nt.lossMin
	toI = rng.HashKeyed(nt.lossKey, uint64(t), DirToI)>>11 >= nt.lossMin
	return toI, toJ
}

// LossOnly reports whether Delivered is the two-way message loss alone (no
// link failures, no one-way loss): both messages arrive or neither, as
// DeliveredBit says.
func (nt *Net) LossOnly() bool { return nt.linkUp >= 1 && !nt.oneway }

// DeliveredBit is Delivered's answer at iteration t as one bit (1: both
// messages arrive, 0: neither) when LossOnly: the same draw, compared
// without a branch (a lost exchange is a coin the branch predictor cannot
// guess). Without loss it is 1 (lossMin 0), under q = 1 always 0.
func (nt *Net) DeliveredBit(t int64) uint64 {
	h := rng.HashKeyed(nt.lossKey, uint64(t), 2) >> 11
	return 1 ^ uint64(int64(h)-int64(nt.lossMin))>>63
}

// initDraws derives the loss draw's constants (Net.lossKey, lossMin) from
// dLoss and the loss q.
func (nt *Net) initDraws() {
	nt.lossKey = rng.HashKey(nt.dLoss)
	nt.lossMin = uint64(math.Ceil(nt.loss * 0x1p53)) // q·2⁵³ exact; 2⁵³ for q = 1: never delivered
}

// LinkUp reports whether the edge {i, j} is up at iteration t (always true
// without link failures; true for a pair that is not an edge of the phase).
func (nt *Net) LinkUp(t int64, i, j int) bool {
	if nt.linkUp >= 1 {
		return true
	}
	idx, inst := nt.phase(t)
	e := edgeIndex(nt.phases[idx].g, i, j)
	return e < 0 || unit(rng.Hash(nt.dLink, inst, uint64(e))) < nt.linkUp
}

// Swap reports whether the auxiliary observations are swapped given the
// deliveries: only when both directions arrive (a swap is a handshake).
func Swap(toI, toJ bool) bool { return toI && toJ }

// Churn reports whether the model has churn (Online can be false).
func (nt *Net) Churn() bool { return nt.churn != nil }

// Online reports whether node k is online at iteration t >= 1. It is O(1)
// amortised for non-decreasing t per node; an earlier t recomputes node k
// from t = 1. Safe for concurrent calls on different nodes.
func (nt *Net) Online(k int, t int64) bool {
	if nt.churn == nil {
		return true
	}
	return nt.churn.online(k, t)
}

// PrefetchOnline asks the memory system for the churn cursors of the nodes
// idx, the endpoints of upcoming activations, so that their loads overlap
// while earlier ones are decided (on 10⁶ nodes a cursor is a cache miss).
// It is a hint (kernel.PrefetchRows): Online's answers never depend on it.
// It does nothing without churn or with a churn file.
func (nt *Net) PrefetchOnline(idx []int32) {
	if nt.churn == nil || len(nt.churn.cur) == 0 {
		return
	}
	kernel.PrefetchRows(unsafe.Pointer(unsafe.SliceData(nt.churn.cur)), idx, int(unsafe.Sizeof(cursor{})), 1)
}

// OnlineCount returns the number of nodes online at iteration t (for the
// trace). It moves every node's cursor: do not call it concurrently with
// Online.
func (nt *Net) OnlineCount(t int64) int {
	if nt.churn == nil {
		return nt.n
	}
	c := 0
	for k := 0; k < nt.n; k++ {
		if nt.churn.online(k, t) {
			c++
		}
	}
	return c
}

// ResumeAt prepares the cursors for a run resumed at iteration t (after a
// checkpoint restore): every cursor restarts from t = 1 and is walked
// forward lazily by the next call. Nothing else in a Net depends on the
// past, so ResumeAt is all a restore needs (a Queue has its own state).
func (nt *Net) ResumeAt(t int64) {
	if nt.churn != nil {
		nt.churn.reset()
	}
	if nt.stream != nil {
		nt.scur = 0
		nt.stream.at(&nt.scur, t)
	}
}

// Delay returns the delay τ >= 0, in events, of the message of iteration t
// in direction dir (DirToJ or DirToI): a message sent at event t arrives at
// event t + τ. 0 without a delay model.
func (nt *Net) Delay(t int64, dir int) int {
	d := nt.delay
	switch d.Dist {
	case DelayConstant:
		return d.C
	case DelayUniform:
		return d.A + rng.HashIntN(nt.dDelay, uint64(t), uint64(dir), d.B-d.A+1)
	case DelayGeometric:
		// geometric on {0, 1, …} with mean μ: success 1/(1+μ), capped.
		u := unit(rng.Hash(nt.dDelay, uint64(t), uint64(dir)))
		x := math.Floor(lnUnit(1-u) / nt.delayGeo) // log1p(−u), exact 1 − u (fmath.go)
		if !(x < float64(d.Max)) {
			return d.Max
		}
		return int(x)
	}
	return 0
}

// MaxDelay returns the largest delay the model can give (0 without delays).
func (nt *Net) MaxDelay() int { return nt.maxTau }

// graphP returns g.P(k) for every node: p_k = 2d_k/|E| of uniform edges,
// exactly as the engine computes it.
func graphP(g *graph.Graph) []float64 {
	p := make([]float64, g.N)
	for k := range p {
		p[k] = g.P(k)
	}
	return p
}

// inverseP returns 1/p_k; uniform selects the engine's expression for
// uniform edges on g.
func inverseP(g *graph.Graph, p []float64, uniform bool) []float64 {
	inv := make([]float64, len(p))
	for k := range inv {
		if uniform {
			inv[k] = float64(g.UndirectedEdges()) / float64(g.Degree(k))
		} else {
			inv[k] = 1 / p[k]
		}
	}
	return inv
}

// scaledWeights returns w divided by its largest entry, and their sum.
func scaledWeights(w []float64) ([]float64, float64) {
	mx := 0.0
	for _, v := range w {
		mx = max(mx, v)
	}
	out := make([]float64, len(w))
	sum := 0.0
	for y, v := range w {
		out[y] = v / mx
		sum += out[y]
	}
	return out, sum
}
