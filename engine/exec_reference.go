package engine

import (
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// The reference executor: the algorithms as the paper writes them, node by
// node, for every loss and regulariser (problem.PairGrad for the gradient,
// Regularizer.Smooth for π_t). This is the file to read next to the paper
// (docs/design.md §2.4–§2.7); every other executor computes the same thing
// faster and is tested against this one.
//
// Algorithm 2 (synchronous gossip dual averaging), round t:
//
//	draw an edge (i, j) uniformly
//	z_i, z_j ← (z_i + z_j)/2;  y_i ↔ y_j
//	for every node k:  z_k += ∇f(θ_k; x_k, y_k);  θ_k = π_t(z_k);
//	                   θ̄_k ← (1 − 1/t) θ̄_k + θ_k/t
//
// Algorithm 3 (asynchronous gossip dual averaging), event t:
//
//	draw an edge (i, j) uniformly
//	y_i ↔ y_j;  z_i, z_j ← (z_i + z_j)/2
//	for k in {i, j}:  z_k += ∇f(θ_k; x_k, y_k)/p_k;  m_k += 1/p_k;
//	                  θ_k = π_{m_k}(z_k);  θ̄_k ← (1 − 1/(m_k p_k)) θ̄_k + θ_k/(m_k p_k)
//
// (m_k p_k is node k's activation count, kept as an integer). Algorithm 1
// (centralized stochastic dual averaging) draws (i, j) uniformly in [n]² and
// takes the step on the single state row. The unbiased baseline replaces
// y_k by x_j, j uniform in [n], drawn afresh at each use (state.aux).
type referenceExec struct {
	s  *state
	cr *crew
	fn func(w int, r layout.Range, tk *task) // syncShard, bound once
}

func newReferenceExec(s *state, cr *crew) executor {
	e := &referenceExec{s: s, cr: cr}
	e.fn = e.syncShard
	return e
}

func referenceBytes(Shape, Config, int) int64 { return 0 }

// advance runs iterations one by one up to stop, at most 256 (or, for the
// synchronous algorithm, about 4·10⁶ node-coordinate updates) per call.
func (e *referenceExec) advance(stop int64) error {
	s := e.s
	chunk := int64(256)
	if s.cfg.Algorithm == Sync {
		chunk = max(1, min(256, int64(4<<20)/int64(s.prob.N*s.prob.P)))
		e.cr.sw.start(false)
		defer e.cr.sw.lap(PhaseSerial)
	}
	return e.serialTo(min(stop, s.t+chunk))
}

// serialTo runs iterations until s.t reaches stop.
func (e *referenceExec) serialTo(stop int64) error {
	for e.s.t < stop {
		if err := e.step(); err != nil {
			return err
		}
	}
	return nil
}

// step performs one iteration.
func (e *referenceExec) step() error {
	s := e.s
	if s.net != nil {
		return e.netStep() // network.go: the same rules under a network model
	}
	s.t++
	t := s.t
	switch s.cfg.Algorithm {
	case Sync:
		i, j := s.drawEdge()
		s.exchange(i, j)
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		e.cr.pass(s.prob.N*s.prob.P >= poolMinWork, e.fn, tk, s.prob.N)
		nz, first := e.cr.workers()
		return s.endIters(t-1, t, int64(s.prob.N), nz, first)
	case Async:
		i, j := s.drawEdge()
		nz, bad := e.event(i, j, t, 0)
		return s.endIters(t-1, t, 2, nz, eventDivergence(t, bad))
	case Centralized:
		i, j := s.drawPair()
		z, th := s.Z.Row(0), s.Theta.Row(0)
		var nz int64
		if s.prob.PairGrad(z, 1, th, i, j) {
			nz = 1
		}
		s.prob.Reg.Smooth(th, z, s.cfg.Gamma(float64(t)), float64(t), e.cr.ws[0])
		avg(s.ThetaBar.Row(0), th, float64(t))
		var first divergence
		if !finite(s.ThetaBar.Row(0)) || !finite(z) {
			first = divergence{t: t, node: 0, field: "theta"}
		}
		return s.endIters(t-1, t, 1, nz, first)
	}
	return nil
}

// avg sets θ̄ ← (1 − 1/c) θ̄ + θ/c. The explicit conversions keep each
// product rounded on its own (Go may fuse x*y + z into one FMA on arm64,
// which would break the bit-identity with the fused kernels' references).
func avg(bar, th []float64, c float64) {
	a, b := 1-1/c, 1/c
	for i := range bar {
		bar[i] = float64(a*bar[i]) + float64(b*th[i])
	}
}

// syncShard is the synchronous update of nodes r.Lo..r.Hi−1 at round tk.t:
// z_k += ∇f(θ_k; x_k, y_k); θ_k = π_t(z_k); θ̄_k ← (1 − 1/t)θ̄_k + θ_k/t.
func (e *referenceExec) syncShard(w int, r layout.Range, tk *task) {
	s := e.s
	p, ws := s.prob, e.cr.ws[w]
	t, gamma := tk.t, tk.gamma
	tf := float64(t)
	var nz int64
	// The PSD cone is a cone: π_t(z) = γ(t)·Proj(−z). A node whose z did not
	// change this round (no gradient, not an endpoint of the drawn edge) needs
	// no eigendecomposition: θ_k(t) = (γ(t)/γ(t−1))·θ_k(t−1), exact in real
	// arithmetic (one rounding per round in floating point).
	cone := p.Reg.Kind == problem.RegPSD && !s.cfg.ExactPSD && t > 1
	ratio := 0.0
	if cone {
		ratio = gamma / s.cfg.Gamma(tf-1)
	}
	for k := r.Lo; k < r.Hi; k++ {
		z, th := s.Z.Row(k), s.Theta.Row(k)
		changed := p.PairGrad(z, 1, th, k, s.aux(k, t))
		if changed {
			nz++
		}
		if cone && !changed && k != tk.i && k != tk.j {
			for a := range th {
				th[a] *= ratio
			}
		} else {
			p.Reg.Smooth(th, z, gamma, tf, ws)
		}
		bar := s.ThetaBar.Row(k)
		avg(bar, th, tf)
		if !finite(bar) {
			e.cr.bad[w].note(t, k, "")
		}
	}
	e.cr.nz[w] += nz
}

// node is node k's half of an asynchronous event t, run by worker w:
// z_k += ∇f(θ_k; x_k, y_k)/p_k; m_k += 1/p_k; θ_k = π_{m_k}(z_k);
// θ̄_k ← (1 − 1/(m_k p_k)) θ̄_k + θ_k/(m_k p_k), where m_k p_k is the
// activation count (kept as an integer, so m_k carries no rounding drift).
// It reports whether the gradient was non-zero and whether θ̄_k is finite.
func (e *referenceExec) node(k int, t int64, w int) (nonzero, ok bool) {
	s := e.s
	p := s.prob
	z, th := s.Z.Row(k), s.Theta.Row(k)
	nonzero = p.PairGrad(z, s.invP[k], th, k, s.aux(k, t))
	s.Count[k]++
	c := float64(s.Count[k])
	m := c * s.invP[k]
	p.Reg.Smooth(th, z, s.cfg.Gamma(m), m, e.cr.ws[w])
	bar := s.ThetaBar.Row(k)
	avg(bar, th, c)
	return nonzero, finite(bar)
}

// event is the whole asynchronous event t on edge (i, j), run by worker w:
// swap y_i ↔ y_j, average z_i and z_j, then each endpoint's update. It
// touches rows i and j only, and returns the first endpoint that turned
// non-finite (−1: none).
func (e *referenceExec) event(i, j int, t int64, w int) (nonzero int64, bad int) {
	e.s.exchange(i, j)
	return e.steps(i, j, t, w)
}

// steps is both endpoints' updates of event t on (i, j), run by worker w,
// after the exchange.
func (e *referenceExec) steps(i, j int, t int64, w int) (nonzero int64, bad int) {
	bad = -1
	for _, k := range [2]int{i, j} {
		nz, ok := e.node(k, t, w)
		if nz {
			nonzero++
		}
		if !ok && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

func (e *referenceExec) theta(k int, dst []float64) { copy(dst, e.s.Theta.Row(k)) }
