package engine

import (
	"io"

	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// The asynchronous schedule for metric learning (Algorithm 3, ψ = PSD cone,
// none or squared ℓ2; gossip or unbiased estimator): the cone structure of
// exec_cone.go brought to the event loop.
//
// As in the synchronous case θ_k = c_k·U_k with U_k = Proj_{S+}(−z_k) (PSD
// cone) or −z_k (none, squared ℓ2) and c_k = γ(m_k) (or γ(m_k)/(1 +
// 2m_kγ(m_k)λ)), here with node k's own clock m_k. U_k is cached per node,
// so an endpoint's hinge test is one d×d quadratic form, δᵀU_kδ, and θ_k is
// never rebuilt for a read. What an event needs besides is the projection
// of each endpoint's new −z_k, by problem.ProjectPSDSelect: Dsytrd, the
// eigenvalues (Dsterf's PWK iteration), and inverse iteration for the
// eigenvectors of the smaller side of the spectrum only, since Proj(A) =
// Σ_{λ>0} λvvᵀ = A + Σ_{λ<0} |λ|vvᵀ. When neither hinge is active both endpoints hold the
// same v = (z_i + z_j)/2 and one projection serves both.
//
// The earlier design did one full eigendecomposition of −v (Dsyev) shared
// by both endpoints and a rank-one eigen-update (problem.EigUpdate) for an
// endpoint with an active hinge. Dsyev's O(d³) accumulation of rotations in
// Dsteqr was most of an event; two selected projections cost less than one
// Dsyev plus the updates (bench/RESULTS.md, BenchmarkAsyncMetricEvent).
// Warm starts from a cached basis do not help: along a run z_j is far from
// diagonal in z_i's eigenbasis (off-diagonal mass 47–73% of ‖·‖², d = 40,
// events 500–4000), the averaging mixes two unrelated matrices.
//
// In real arithmetic this is Algorithm 3 exactly; in floating point z is the
// reference's bit for bit (the same updates in the same order) as long as no
// hinge test falls on its boundary by rounding, and θ, θ̄ agree with the
// reference to rounding (tested). An event touches the rows of its two
// endpoints only and uses its worker's workspace, so the parallel executor
// (exec_asyncpar.go) runs it unchanged and results are bit-identical for
// any number of workers.
//
// Under a network model (docs/networks.md) an event's deliveries are the
// reference's (state.netExchange, or state.sendDelayed under delays) and
// its steps follow: the hinge tests read θ_k = c_k·U_k, which the exchange
// does not change, so testing after it is testing before. A message that
// arrives later changes z_k but not θ_k (the reference keeps θ_k until k
// steps), which U_k, cached, already does. With a partial delivery the
// endpoints' z differ and each gets its own projection. Delays, an
// adaptive picker and an edge sink run on the serial loop (parallelNet).

// On the PSD cone an event costs an eigendecomposition, so the parallel
// executor takes it from asyncHeavyMinNodes nodes on (instead of
// asyncMinNodes) and runs levels from asyncHeavyMinLevel events on.
var (
	asyncHeavyMinNodes = 64
	asyncHeavyMinLevel = 2
)

// asyncConeExec is the asynchronous metric-learning schedule.
type asyncConeExec struct {
	s   *state
	cr  *crew
	U   layout.Matrix        // U_k: θ_k = c_k·U_k
	ck  []float64            // c_k (0 before node k's first activation)
	ws2 []*problem.Workspace // per worker, the second of an event's two projections (PSD cone)
	psd bool
}

// asyncConeFits reports whether the asynchronous metric schedule runs the
// problem.
func asyncConeFits(sh Shape, cfg Config, _ bool) error {
	return reasons(needAlgo(cfg, Async), needMetricCone(sh, cfg))
}

// asyncConeBytes is U and c, and per worker ProjectPSDSelect's buffers in
// the workspace (the vectors by row, d×d, and by column, d×(d rounded up
// to 8), O(d) vectors, Dsytrd's work), twice: the second workspace of an
// event's pair of projections (ws2) with its own d×d input and vectors.
func asyncConeBytes(sh Shape, _ Config, workers int) int64 {
	n, d := int64(sh.N), int64(sh.D)
	b := n*int64(layout.Stride(sh.P))*8 + n*8
	if sh.Reg == problem.RegPSD {
		per := (d*d+d*((d+7)&^7)+16*d+64*d)*8 + 160
		b += int64(max(1, workers)) * (2*per + 2*d*d*8)
	}
	return b
}

func newAsyncConeExec(s *state, cr *crew) executor {
	e := &asyncConeExec{s: s, cr: cr, U: layout.New(s.prob.N, s.prob.P), ck: make([]float64, s.prob.N),
		psd: s.prob.Reg.Kind == problem.RegPSD}
	if e.psd {
		e.ws2 = make([]*problem.Workspace, len(cr.ws))
		for w := range e.ws2 {
			e.ws2[w] = s.prob.NewWorkspace()
		}
	}
	return e
}

// scale returns c > 0 with θ = c·U for clock m.
func (e *asyncConeExec) scale(m float64) float64 {
	s := e.s
	g := s.gamma(m)
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return g / (1 + float64(2*m*g*r.Lambda))
	}
	return g
}

// advance runs events up to min(stop, t + 256).
func (e *asyncConeExec) advance(stop int64) error {
	return e.serialTo(min(stop, e.s.t+256))
}

// serialTo runs events in stream order until s.t reaches stop.
func (e *asyncConeExec) serialTo(stop int64) error {
	s := e.s
	if s.net != nil {
		return e.netSerialTo(stop)
	}
	for s.t < stop {
		i, j := s.drawEdge()
		t := s.t + 1
		nz, bad := e.event(i, j, t, 0)
		if err := s.endIters(t-1, t, 2, nz, eventDivergence(t, bad)); err != nil {
			return err
		}
	}
	return nil
}

// event is the asynchronous event t on edge (i, j), run by worker w: swap
// y_i ↔ y_j, the hinge tests at the endpoints' current θ, average z_i and
// z_j, then both gradients, both projections (one call for the two when
// both are needed, problem.ProjectPSDSelectPair; the same bits as two), and
// each endpoint's clock and running average.
func (e *asyncConeExec) event(i, j int, t int64, w int) (nonzero int64, bad int) {
	e.s.exchange(i, j)
	return e.steps(i, j, t, w, true)
}

// steps is both endpoints' part of event t on (i, j) after its exchange, as
// worker w: the hinge tests at θ_k = c_k·U_k (unchanged by the exchange),
// the gradients, the projections and the clocks. same says that z_i = z_j
// (a whole exchange): one projection then serves both when neither hinge
// is active.
func (e *asyncConeExec) steps(i, j int, t int64, w int, same bool) (nonzero int64, bad int) {
	s, p := e.s, e.s.prob
	ends := [2]int{i, j}
	var wt [2]float64 // the gradient's weight s·(1/p_k) when the hinge is active
	var aux [2]int
	for x, k := range ends {
		a := s.aux(k, t)
		aux[x] = a
		sg := 1.0
		if p.Label[k] != p.Label[a] {
			sg = -1
		}
		if sg*(p.B-float64(e.ck[k]*p.Dist(e.U.Row(k), s.X.Row(k), s.X.Row(a)))) < 1 {
			wt[x] = s.invP[k] * sg
		}
	}
	for x, k := range ends {
		if wt[x] != 0 {
			problem.AddOuterDiff(s.Z.Row(k), wt[x], s.X.Row(k), s.X.Row(aux[x]))
			nonzero++
		}
	}
	zi, zj, ui, uj := s.Z.Row(i), s.Z.Row(j), e.U.Row(i), e.U.Row(j)
	switch {
	case !e.psd:
		for a := range zi {
			ui[a], uj[a] = -zi[a], -zj[a]
		}
	case same && wt[0] == 0 && wt[1] == 0:
		// Both endpoints hold v: U_j = U_i.
		e.cr.ws[w].ProjectPSDSelect(ui, zi, -1)
		copy(uj, ui)
	default:
		// Two projections: their eigenvalue iterations side by side.
		problem.ProjectPSDSelectPair(e.cr.ws[w], e.ws2[w], ui, zi, uj, zj, -1)
	}
	bad = -1
	for _, k := range ends {
		u := e.U.Row(k)
		s.Count[k]++
		cnt := float64(s.Count[k])
		c := e.scale(cnt * s.invP[k])
		e.ck[k] = c
		ca, cb := 1-1/cnt, 1/cnt
		bar := s.ThetaBar.Row(k)
		for a := range bar {
			bar[a] = float64(ca*bar[a]) + float64(cb*float64(c*u[a]))
		}
		if !finite(bar) && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

// theta sets dst = θ_k = c_k·U_k.
func (e *asyncConeExec) theta(k int, dst []float64) {
	u, c := e.U.Row(k), e.ck[k]
	for a := range dst {
		dst[a] = c * u[a]
	}
}

// restore rebuilds c from the clocks and, off the PSD cone, U = −z; on the
// cone U comes from the checkpoint (applySaved): it is a function of z, but
// the checkpoint format (which carries U) predates that, and copying is
// cheaper than n projections.
func (e *asyncConeExec) restore() {
	s := e.s
	for k, cnt := range s.Count {
		e.ck[k] = 0
		if cnt > 0 {
			e.ck[k] = e.scale(float64(cnt) * s.invP[k])
		}
		if !e.psd {
			u := e.U.Row(k)
			for a, v := range s.Z.Row(k) {
				u[a] = -v
			}
		}
	}
}

// savedLen is the number of floats of U that checkpoints carry (PSD cone
// only).
func (e *asyncConeExec) savedLen() int {
	if !e.psd {
		return 0
	}
	return e.U.Rows * e.U.Cols
}

// writeSaved writes U row by row.
func (e *asyncConeExec) writeSaved(w io.Writer, fc *floatCodec) error {
	for k := 0; k < e.U.Rows; k++ {
		if err := fc.write(w, e.U.Row(k)); err != nil {
			return err
		}
	}
	return nil
}

func (e *asyncConeExec) checkSaved([]float64) error { return nil }

// applySaved copies U back.
func (e *asyncConeExec) applySaved(v []float64) {
	for k := 0; k < e.U.Rows; k++ {
		v = v[copy(e.U.Row(k), v):]
	}
}

// netEvent is event t on (i, j) under a network model without delays, as
// worker w: the deliveries fl, 1/p_k of t's phase, the steps.
func (e *asyncConeExec) netEvent(i, j int, t int64, w int, fl uint8) (nonzero int64, bad int) {
	s := e.s
	s.netExchange(i, j, fl)
	s.setInvP(t, i, j)
	return e.steps(i, j, t, w, fl&actBoth == actBoth)
}

// netSerialTo is serialTo under a network model, the reference's order:
// the arrivals due (delays), the activation, an idle event (an endpoint
// offline, no edge) changing nothing, the deliveries (queued under
// delays), 1/p_k of the phase, the steps.
func (e *asyncConeExec) netSerialTo(stop int64) error {
	s := e.s
	for s.t < stop {
		t := s.t + 1
		s.deliverDue(t)
		i, j, fl, err := s.activation(t)
		if err != nil {
			return err
		}
		s.t = t
		if fl&actOnline == 0 {
			continue
		}
		var nz int64
		var bad int
		if s.nx.queue != nil {
			if err := s.sendDelayed(t, i, j, fl); err != nil {
				return err
			}
			s.setInvP(t, i, j)
			nz, bad = e.steps(i, j, t, 0, false)
		} else {
			nz, bad = e.netEvent(i, j, t, 0, fl)
		}
		s.gradEvals += 2
		s.nonzero += nz
		if bad >= 0 {
			return s.diverged(divergence{t: t, node: bad})
		}
	}
	return nil
}
