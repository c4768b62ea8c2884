package engine

import (
	"encoding/binary"
	"io"
	"math"
	"sync/atomic"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/hugepage"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// Sub-stream identifiers of the run's seed.
const (
	streamEdges = 1
	streamEval  = 2
	hashAux     = 3 // counter-based draws of the unbiased baseline
)

// state is what the algorithms of the paper act on, apart from how an
// executor schedules the work: the problem and graph, the node variables as
// structure-of-arrays matrices, the auxiliary observations, the clocks and
// the seeded edge stream. Every executor reads and writes this one state;
// what an executor keeps besides (margins, block buffers, cached
// eigendecompositions) lives in the executor.
type state struct {
	prob *problem.Problem
	g    *graph.Graph // nil for Centralized
	cfg  Config

	// yield, once set, asks an executor whose advance runs many windows
	// (the parallel asynchronous one) to return at the next point where
	// it may (s.t short of its stop, nothing drawn ahead), so that
	// Sim.RunWith sees a cancellation or a checkpoint that is due within
	// a window or two, whatever the distance to the next measurement.
	// Where it returns does not change any result.
	yield atomic.Bool

	// Z, Theta and ThetaBar hold z_k, θ_k and θ̄_k, one row per node (a
	// single row for Centralized). For the executors that stream every
	// node's record each round, X, YX, Z and ThetaBar are views into one
	// array of node records [x_k | y_k | z_k | θ̄_k] (layout.NewRecords), X
	// being the engine's copy of the data and YX[k] a copy of x_{Y[k]}, node
	// k's auxiliary point, so that an update streams through one contiguous
	// record per node. The compact layout (the reduced AUC schedule, which
	// touches each record twice per block of thousands of rounds) keeps no
	// copy: X is the problem's data, y_k is read through Y (yRow), and the
	// records are [z_k | θ̄_k] — 256 bytes a node less at d = 16.
	// Executors on the linear fast path keep θ implicit (θ_k = c·z_k): for
	// them Theta is allocated, and rows written, only when read (Sim.theta),
	// so that a large run whose measurement reads a few rows never holds a
	// second n×P matrix.
	X, YX, Z, ThetaBar, Theta layout.Matrix
	// Y[k] is the index of node k's auxiliary observation y_k in the data,
	// ylab[k] its label. While the asynchronous fast path runs, Y, ylab and
	// Count are current only after flushAux.
	Y    []int32
	ylab []int32
	// Count[k] is node k's activation count (Async); m_k = Count[k]/p_k.
	Count []int64
	invP  []float64 // 1/p_k (Async)
	// flushAux, when set, brings Y, ylab and Count of the given rows (nil:
	// all) up to date from an executor that keeps them packed with its
	// other per-node scalars while it runs (the asynchronous fast path,
	// exec_async.go). It is called before those fields are read outside
	// the executor (writeCommon: checkpoints and checksums; the
	// measurement's bias, which reads y of the evaluated rows) and by the
	// executor's close.
	flushAux func(rows []int)

	t                  int64 // iterations done
	edges              *rng.Stream
	edgeList           [][2]int32 // the graph's edges (a huge-page copy when large)
	gradEvals, nonzero int64

	// net is the run's network model and nx what the engine keeps of it
	// (network.go); both nil for the paper's network (Config.Network
	// perfect) without an EdgeSink, which runs exactly as before the model
	// existed.
	net *network.Net
	nx  *netRun
}

func newState(p *problem.Problem, g *graph.Graph, cfg Config, compact, storesTheta bool) *state {
	s := &state{prob: p, g: g, cfg: cfg}
	rows := s.rows()
	if compact && rows == p.N {
		rec := layout.NewRecordsWorkers(rows, cfg.Workers, p.P, p.P)
		s.X, s.Z, s.ThetaBar = p.X, rec[0], rec[1]
	} else {
		rec := layout.NewRecordsWorkers(rows, cfg.Workers, p.D, p.D, p.P, p.P)
		s.X, s.YX, s.Z, s.ThetaBar = rec[0], rec[1], rec[2], rec[3]
		if rows == p.N {
			s.X.CopyFrom(p.X)
			s.YX.CopyFrom(p.X)
		}
	}
	if storesTheta {
		s.Theta = layout.NewWorkers(rows, p.P, cfg.Workers)
	}
	s.Y = make([]int32, rows)
	s.ylab = make([]int32, rows)
	for k := range s.Y {
		s.Y[k] = int32(k)
	}
	if rows == p.N {
		copy(s.ylab, p.Label)
	}
	if cfg.Algorithm == Async {
		s.Count = make([]int64, rows)
		s.invP = make([]float64, rows)
		for k := range s.invP {
			s.invP[k] = float64(g.UndirectedEdges()) / float64(g.Degree(k)) // 1/p_k = |E|/(2d_k)
		}
	}
	s.edges = rng.New(cfg.Seed, streamEdges)
	if g != nil {
		s.edgeList = g.Edges
		if len(g.Edges)*8 >= hugepage.MinBytes {
			s.edgeList = make([][2]int32, len(g.Edges))
			hugepage.Advise(s.edgeList)
			copy(s.edgeList, g.Edges)
		}
	}
	return s
}

// stateMemory is the memory of a state of rows nodes: the node records
// (x, y, z, θ̄; z, θ̄ in the compact layout), Θ where the executor stores
// it, Y and its labels, the clocks (Async) and the huge-page copy of a
// large edge list.
func stateMemory(rows, d, P, edges int, algo Algorithm, compact, storesTheta bool) int64 {
	r := int64(rows)
	b := r*int64(2*layout.Stride(d)+2*layout.Stride(P))*8 + r*8
	if compact && algo != Centralized {
		b = r*int64(2*layout.Stride(P))*8 + r*8
	}
	if storesTheta {
		b += r * int64(layout.Stride(P)) * 8
	}
	if algo == Async {
		b += r * 16
	}
	if int64(edges)*8 >= hugepage.MinBytes {
		b += int64(edges) * 8
	}
	return b
}

// rows is the number of state rows: one per node, one for Centralized.
func (s *state) rows() int {
	if s.cfg.Algorithm == Centralized {
		return 1
	}
	return s.prob.N
}

// The network seam. What the network does to a run enters through these
// methods of the state and nowhere else, so that a network model (loss,
// churn, delays, changing graphs, activation models) is one component
// every executor consults:
//
//   - drawEdge and drawEdges are the only draws of the activated edges
//     (drawPair the centralized algorithm's pair of points);
//   - exchange (or, where an executor fuses the exchange with its margins,
//     swapY and average at the two points it calls them) is the only
//     exchange of an activated edge: a lost exchange skips it and nothing
//     else;
//   - the per-node steps run where each executor says so in its file
//     (docs/design.md §5 maps them), the places a predicate online(k, t)
//     guards.
//
// The edges come from one stream (s.edges, whose state a
// checkpoint saves), and every executor draws the same edges in the same
// order, so a model that keys its own draws by (seed, t, edge) keeps runs
// identical across schedules and worker counts.

// drawEdge returns the endpoints of an undirected edge drawn uniformly.
func (s *state) drawEdge() (int, int) {
	e := s.edgeList[s.edges.IntN(len(s.edgeList))]
	return int(e[0]), int(e[1])
}

// drawPair returns the centralized algorithm's pair of points, drawn
// uniformly in [n]² (Algorithm 1: no graph).
func (s *state) drawPair() (int, int) {
	return s.edges.IntN(s.prob.N), s.edges.IntN(s.prob.N)
}

// drawEdges draws len(ev)/2 edges as drawEdge does, one after the other,
// into ev (the endpoints of edge x at ev[2x], ev[2x+1]). It draws every
// edge's index first and reads the edge list afterwards: in one loop, each
// draw waited behind its random read of the edge list (20 MB at
// n = 10⁶, beyond most of the cache), while a loop of independent reads
// keeps many in flight. The draws, and so the edges, are drawEdge's.
func (s *state) drawEdges(ev []int32) {
	m := len(ev) / 2
	n := len(s.edgeList)
	if n > math.MaxInt32 { // an index would not fit in ev
		for x := 0; x < m; x++ {
			i, j := s.drawEdge()
			ev[2*x], ev[2*x+1] = int32(i), int32(j)
		}
		return
	}
	for x := 0; x < m; x++ {
		ev[2*x+1] = int32(s.edges.IntN(n))
	}
	el := s.edgeList
	for x := 0; x < m; x++ {
		e := el[ev[2*x+1]]
		ev[2*x], ev[2*x+1] = e[0], e[1]
	}
}

// aux returns the index of the second point node k uses at iteration t:
// y_k, or for the unbiased baseline a point drawn uniformly afresh
// (counter-based, keyed by seed, node and t).
func (s *state) aux(k int, t int64) int {
	if s.cfg.Estimator == Unbiased {
		return rng.HashIntN(s.cfg.Seed^hashAux, uint64(k), uint64(t), s.prob.N)
	}
	return int(s.Y[k])
}

// auxRow returns node k's second point at iteration t: its row and label.
func (s *state) auxRow(k int, t int64) ([]float64, int32) {
	_, y, ly := s.auxPoint(k, t)
	return y, ly
}

// auxPoint returns node k's second point at iteration t with its index:
// aux(k, t), its row and its label.
func (s *state) auxPoint(k int, t int64) (j int, y []float64, ly int32) {
	if s.cfg.Estimator == Unbiased {
		j := rng.HashIntN(s.cfg.Seed^hashAux, uint64(k), uint64(t), s.prob.N)
		return j, s.X.Row(j), s.prob.Label[j]
	}
	return int(s.Y[k]), s.yRow(k), s.ylab[k]
}

// yRow returns x_{y_k}: the copy in node k's record, or in the compact
// layout the data row itself.
func (s *state) yRow(k int) []float64 {
	if s.YX.Rows == 0 {
		return s.X.Row(int(s.Y[k]))
	}
	return s.YX.Row(k)
}

// average sets z_i, z_j ← (z_i + z_j)/2, both from the old values.
func (s *state) average(i, j int) {
	zi, zj := s.Z.Row(i), s.Z.Row(j)
	for a := range zi {
		v := (zi[a] + zj[a]) / 2
		zi[a], zj[a] = v, v
	}
}

// exchange is the gossip exchange of an activated edge (i, j): z_i and
// z_j averaged, y_i and y_j swapped (they touch different rows, so the
// order is free).
func (s *state) exchange(i, j int) {
	s.average(i, j)
	s.swapY(i, j)
}

// swapY exchanges the auxiliary observations of i and j: index, label and
// the copied row.
func (s *state) swapY(i, j int) {
	s.Y[i], s.Y[j] = s.Y[j], s.Y[i]
	s.ylab[i], s.ylab[j] = s.ylab[j], s.ylab[i]
	if s.YX.Rows == 0 {
		return
	}
	yi, yj := s.YX.Row(i), s.YX.Row(j)
	for a := range yi {
		yi[a], yj[a] = yj[a], yi[a]
	}
}

// gamma is s.cfg.Gamma(t), inlined for the hot loops (Config.Gamma, a
// method on a value of the whole Config, is not).
func (s *state) gamma(t float64) float64 {
	if s.cfg.GammaAlpha == 0 {
		return s.cfg.GammaC / math.Sqrt(t)
	}
	return s.cfg.Gamma(t)
}

// linearScale returns c with θ = π_t(z) = c·z for clock t and step γ, for
// the regularisers whose smoothing operator is linear (none, squared ℓ2).
func (s *state) linearScale(gamma, t float64) float64 {
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return -gamma / (1 + float64(2*t*gamma*r.Lambda))
	}
	return -gamma
}

// restoreAux rebuilds the copied auxiliary rows and labels from Y after a
// checkpoint is read.
func (s *state) restoreAux() {
	if s.rows() != s.prob.N {
		return
	}
	for k, j := range s.Y {
		if s.YX.Rows > 0 {
			copy(s.YX.Row(k), s.X.Row(int(j)))
		}
		s.ylab[k] = s.prob.Label[j]
	}
}

// writeCommon writes the state sections every checkpoint has: Z, Θ (each
// row as theta gives it), Θ̄ (row by row), Y and, for Async, the clocks.
func (s *state) writeCommon(w io.Writer, fc *floatCodec, theta func(k int, dst []float64)) error {
	if s.flushAux != nil {
		s.flushAux(nil)
	}
	buf := make([]float64, s.prob.P)
	for _, f := range []int{0, 1, 2} {
		for i := 0; i < s.Z.Rows; i++ {
			row := buf
			switch f {
			case 0:
				row = s.Z.Row(i)
			case 1:
				theta(i, buf)
			case 2:
				row = s.ThetaBar.Row(i)
			}
			if err := fc.write(w, row); err != nil {
				return err
			}
		}
	}
	if err := binary.Write(w, binary.LittleEndian, s.Y); err != nil {
		return err
	}
	if s.Count != nil {
		return binary.Write(w, binary.LittleEndian, s.Count)
	}
	return nil
}
