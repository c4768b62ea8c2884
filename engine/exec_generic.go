package engine

import (
	"io"
	"math"

	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// The generic executors (issue #20): a loss the engine does not know
// (problem.Custom, a problem.Objective) on the synchronous algorithm (plain
// schedule: every node each round, over the crew's row shards) and the
// asynchronous one (serial event loop, and the parallel executor of
// exec_asyncpar.go over its events), for every separable regulariser
// (none, l2, l1, l2-ball). The PSD cone and the centralized algorithm run
// on the reference executor, which calls the objective through
// Problem.PairGrad.
//
// θ is not stored: with a separable ψ, θ_k = π_τ(z_k) is a function of z_k
// and of node k's clock τ (the round t, or m_k = count_k/p_k), so it is
// recomputed, into a per-worker row, where it is read: before node k's
// gradient (at its previous clock; for the two endpoints of the drawn edge,
// from z before the averaging, kept aside in pre) and after it, for θ̄. The
// arithmetic is the reference executor's operation for operation
// (Regularizer.Smooth, the objective's Grad, avg), so the trajectory is the
// reference's bit for bit; it saves the reference's n×P matrix Θ and its
// memory traffic. A round allocates nothing.
//
// Under a network model (docs/networks.md) each iteration's activation is
// the reference's (state.activation): a round or event without an exchange
// leaves every z as it was, a partial delivery averages the receiving side
// only and keeps y. θ_k = π_τ(z_k) stays a function of z_k and the clock as
// long as z_k changes only at node k's steps and exchanges: not under
// delays (an arrival changes z_k between steps), which the reference runs.
// Under synchronous churn an offline node is frozen and keeps the θ of its
// last online round τ_k (kept per node, last, and in checkpoints), an
// online one steps with the global γ(t) and averages θ̄ with its count of
// online rounds c_k (the reference's netSyncShard); the blocked schedule
// refuses it. Asynchronous churn leaves an event with an offline endpoint
// idle; the clocks m_k = count_k/p_k read 1/p_k of node k's last
// activation (setInvP at each event, after θ before the event is formed).

func genericFits(sh Shape, cfg Config, _ bool) error {
	return reasons(fitCheck{cfg.Algorithm == Sync || cfg.Algorithm == Async, "the synchronous or asynchronous algorithm"}, needCustom(sh), needGenericNet(cfg))
}

// needGenericNet is the generic executors' network rule (see above): no
// delays.
func needGenericNet(cfg Config) fitCheck {
	return fitCheck{cfg.Network.Delay.Dist == "", "no delays (an arrival changes z_k between node k's steps: the reference runs them)"}
}

func separable(r problem.RegKind) bool { return r != problem.RegPSD }

func genericBytes(sh Shape, cfg Config, workers int) int64 {
	return int64(workers+1) * 4 * int64(layout.Stride(sh.P)) * 8
}

// genericExec runs a user objective without knowing it.
type genericExec struct {
	s   *state
	cr  *crew
	obj problem.Objective
	// Per worker: θ before the gradient, θ after it, and (asynchronous) the
	// two endpoints' θ before the averaging.
	th      []layout.Matrix
	endPrev [2][]float64 // synchronous: the endpoints' θ before the averaging
	fn      func(w int, r layout.Range, tk *task)
	// last[k] is τ_k, the round of node k's last step (0: none), under
	// synchronous churn (nil otherwise): θ_k = π_{τ_k}(z_k).
	last []int64
}

func newGenericExec(s *state, cr *crew) executor { return newGeneric(s, cr) }

// newGeneric is newGenericExec, typed (the blocked schedule embeds it).
func newGeneric(s *state, cr *crew) *genericExec {
	e := &genericExec{s: s, cr: cr, obj: s.prob.Obj}
	nw := len(cr.ws)
	e.th = make([]layout.Matrix, nw)
	for w := range e.th {
		e.th[w] = layout.New(4, s.prob.P)
	}
	e.endPrev = [2][]float64{make([]float64, s.prob.P), make([]float64, s.prob.P)}
	e.fn = e.shard
	if s.nx != nil && s.nx.churn && s.cfg.Algorithm == Sync {
		e.last = make([]int64, s.rows())
		e.fn = e.churnShard
	}
	return e
}

// smoothAt sets th = π_τ(z) at clock τ (0: θ = 0, the initial state).
func (e *genericExec) smoothAt(th, z []float64, tau float64, w int) {
	if tau == 0 {
		clear(th)
		return
	}
	e.s.prob.Reg.Smooth(th, z, e.s.cfg.Gamma(tau), tau, e.cr.ws[w])
}

// advance runs iterations towards stop: rounds (about 4·10⁶ node-coordinate
// updates, at most 256, per call) or a window of events.
func (e *genericExec) advance(stop int64) error {
	s := e.s
	if s.cfg.Algorithm == Async {
		return e.serialTo(min(stop, s.t+int64(asyncSerialWindow)))
	}
	end := min(stop, s.t+max(1, min(256, int64(4<<20)/int64(s.prob.N*s.prob.P))))
	big := s.prob.N*s.prob.P >= poolMinWork
	e.cr.sw.start(false)
	defer e.cr.sw.lap(PhaseSerial)
	if s.net != nil {
		return e.netAdvance(end, big)
	}
	for s.t < end {
		s.t++
		t := s.t
		i, j := s.drawEdge()
		// The reference averages, swaps y, then updates every node at its θ
		// of the last round: the endpoints' comes from z before averaging.
		tp := float64(t - 1)
		e.smoothAt(e.endPrev[0], s.Z.Row(i), tp, 0)
		e.smoothAt(e.endPrev[1], s.Z.Row(j), tp, 0)
		s.exchange(i, j)
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		e.cr.pass(big, e.fn, tk, s.prob.N)
		nz, first := e.cr.workers()
		if err := s.endIters(t-1, t, int64(s.prob.N), nz, first); err != nil {
			return err
		}
	}
	return nil
}

// shard is round tk.t over the nodes of r, as worker w.
func (e *genericExec) shard(w int, r layout.Range, tk *task) {
	s := e.s
	p, obj, ws := s.prob, e.obj, e.cr.ws[w]
	t, gamma := tk.t, tk.gamma
	tf := float64(t)
	prev, cur := e.th[w].Row(0), e.th[w].Row(1)
	lab := p.Label
	var nz int64
	for k := r.Lo; k < r.Hi; k++ {
		z := s.Z.Row(k)
		th := prev
		switch k {
		case tk.i:
			th = e.endPrev[0]
		case tk.j:
			th = e.endPrev[1]
		default:
			e.smoothAt(prev, z, tf-1, w)
		}
		j, y, ly := s.auxPoint(k, t)
		if obj.Contributes(lab[k], ly) && obj.Grad(z, 1, th, s.X.Row(k), y, k, j) {
			nz++
		}
		p.Reg.Smooth(cur, z, gamma, tf, ws)
		bar := s.ThetaBar.Row(k)
		avg(bar, cur, tf)
		if !finite(bar) {
			e.cr.bad[w].note(t, k, "")
		}
	}
	e.cr.nz[w] += nz
}

// clock returns node k's asynchronous clock m_k = count_k/p_k.
func (e *genericExec) clock(k int) float64 {
	return float64(e.s.Count[k]) * e.s.invP[k]
}

// event is asynchronous event t on edge (i, j), run by worker w: the
// reference's swap of y, averaging and the endpoints' updates.
func (e *genericExec) event(i, j int, t int64, w int) (nonzero int64, bad int) {
	s := e.s
	rows := e.th[w]
	pi, pj, cur := rows.Row(2), rows.Row(3), rows.Row(1)
	s.swapY(i, j)
	e.smoothAt(pi, s.Z.Row(i), e.clock(i), w)
	e.smoothAt(pj, s.Z.Row(j), e.clock(j), w)
	s.average(i, j)
	return e.steps(i, j, t, w, pi, pj, cur)
}

// steps is both endpoints' updates of event t on (i, j) after the
// exchange, as worker w: at θ = pi, pj (before the event), into cur.
func (e *genericExec) steps(i, j int, t int64, w int, pi, pj, cur []float64) (nonzero int64, bad int) {
	s := e.s
	p, obj := s.prob, e.obj
	bad = -1
	lab := p.Label
	for x, k := range [2]int{i, j} {
		th := pi
		if x == 1 {
			th = pj
		}
		z := s.Z.Row(k)
		jj, y, ly := s.auxPoint(k, t)
		if obj.Contributes(lab[k], ly) && obj.Grad(z, s.invP[k], th, s.X.Row(k), y, k, jj) {
			nonzero++
		}
		s.Count[k]++
		c := float64(s.Count[k])
		m := c * s.invP[k]
		p.Reg.Smooth(cur, z, s.cfg.Gamma(m), m, e.cr.ws[w])
		bar := s.ThetaBar.Row(k)
		avg(bar, cur, c)
		if !finite(bar) && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

// serialTo runs events in stream order until s.t reaches stop.
func (e *genericExec) serialTo(stop int64) error {
	s := e.s
	if s.net != nil {
		return e.netSerialTo(stop)
	}
	for s.t < stop {
		s.t++
		t := s.t
		i, j := s.drawEdge()
		nz, bad := e.event(i, j, t, 0)
		if err := s.endIters(t-1, t, 2, nz, eventDivergence(t, bad)); err != nil {
			return err
		}
	}
	return nil
}

// theta sets dst = θ_k at node k's clock.
func (e *genericExec) theta(k int, dst []float64) {
	tau := e.tau(k, e.s.t)
	if e.s.cfg.Algorithm == Async {
		tau = e.clock(k)
	}
	e.smoothAt(dst, e.s.Z.Row(k), tau, 0)
}

// tau returns the synchronous clock of node k's θ after round t: t, or
// under churn τ_k.
func (e *genericExec) tau(k int, t int64) float64 {
	if e.last != nil {
		return float64(e.last[k])
	}
	return float64(t)
}

// churnShard is round tk.t over the nodes of r under churn, as worker w:
// an offline node is frozen; an online one steps at its θ = π_{τ_k}(z_k)
// (an endpoint's from z before the averaging), takes θ = π_t(z_k) with the
// global γ(t), averages θ̄ with its count of online rounds c_k, and τ_k = t.
func (e *genericExec) churnShard(w int, r layout.Range, tk *task) {
	s := e.s
	p, obj, ws, nx := s.prob, e.obj, e.cr.ws[w], s.nx
	t, gamma := tk.t, tk.gamma
	tf := float64(t)
	prev, cur := e.th[w].Row(0), e.th[w].Row(1)
	lab := p.Label
	var nz, evals int64
	for k := r.Lo; k < r.Hi; k++ {
		if !s.net.Online(k, t) {
			continue
		}
		evals++
		nx.rounds[k]++
		z := s.Z.Row(k)
		th := prev
		switch k {
		case tk.i:
			th = e.endPrev[0]
		case tk.j:
			th = e.endPrev[1]
		default:
			e.smoothAt(prev, z, float64(e.last[k]), w)
		}
		j, y, ly := s.auxPoint(k, t)
		if obj.Contributes(lab[k], ly) && obj.Grad(z, 1, th, s.X.Row(k), y, k, j) {
			nz++
		}
		p.Reg.Smooth(cur, z, gamma, tf, ws)
		bar := s.ThetaBar.Row(k)
		avg(bar, cur, float64(nx.rounds[k]))
		e.last[k] = t
		if !finite(bar) {
			e.cr.bad[w].note(t, k, "")
		}
	}
	e.cr.nz[w] += nz
	nx.evals[w] += evals
}

// savedLen is the number of floats a checkpoint carries: τ_k under
// synchronous churn, nothing otherwise.
func (e *genericExec) savedLen() int { return len(e.last) }

// writeSaved writes τ_k, node by node, as floats (exact below 2⁵³).
func (e *genericExec) writeSaved(w io.Writer, fc *floatCodec) error {
	v := make([]float64, len(e.last))
	for k, x := range e.last {
		v[k] = float64(x)
	}
	return fc.write(w, v)
}

// checkSaved refuses a τ_k that is not a round: a non-negative integer
// below 2⁵³.
func (e *genericExec) checkSaved(v []float64) error {
	for k, x := range v {
		if !(x >= 0 && x < 1<<53) || x != math.Trunc(x) {
			return ckptErr("last online round %v of node %d out of range", x, k)
		}
	}
	return nil
}

// applySaved applies what checkSaved accepted.
func (e *genericExec) applySaved(v []float64) {
	for k, x := range v {
		e.last[k] = int64(x)
	}
}

// netAdvance is advance's synchronous rounds up to end under a network
// model (churn too: an offline node keeps θ = π_{τ_k}(z_k) of its last
// online round, e.last): the round's activation; with an
// exchange the endpoints' θ from z before it and the deliveries
// (state.netExchange), without one no endpoint.
func (e *genericExec) netAdvance(end int64, big bool) error {
	s := e.s
	for s.t < end {
		t := s.t + 1
		i, j, fl, err := s.activation(t)
		if err != nil {
			return err
		}
		s.t = t
		if fl&actOnline != 0 && fl&actBoth != 0 {
			e.smoothAt(e.endPrev[0], s.Z.Row(i), e.tau(i, t-1), 0)
			e.smoothAt(e.endPrev[1], s.Z.Row(j), e.tau(j, t-1), 0)
			s.netExchange(i, j, fl)
		} else {
			i, j = -1, -1
		}
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		e.cr.pass(big, e.fn, tk, s.prob.N)
		nz, first := e.cr.workers()
		per := int64(s.prob.N)
		if e.last != nil { // churn: the online nodes' evaluations
			per = 0
			for w, v := range s.nx.evals {
				s.gradEvals += v
				s.nx.evals[w] = 0
			}
		}
		if err := s.endIters(t-1, t, per, nz, first); err != nil {
			return err
		}
	}
	return nil
}

// netEvent is asynchronous event t on (i, j) with the deliveries fl (both
// endpoints online), as worker w: θ before the event at each endpoint's
// clock, then 1/p_k of t's phase, the deliveries and the steps.
func (e *genericExec) netEvent(i, j int, t int64, w int, fl uint8) (nonzero int64, bad int) {
	s := e.s
	rows := e.th[w]
	pi, pj, cur := rows.Row(2), rows.Row(3), rows.Row(1)
	e.smoothAt(pi, s.Z.Row(i), e.clock(i), w)
	e.smoothAt(pj, s.Z.Row(j), e.clock(j), w)
	s.setInvP(t, i, j)
	s.netExchange(i, j, fl)
	return e.steps(i, j, t, w, pi, pj, cur)
}

// netSerialTo is serialTo under a network model (not delays:
// needGenericNet): events in order, an idle one (an endpoint offline, no
// edge) changing nothing.
func (e *genericExec) netSerialTo(stop int64) error {
	s := e.s
	for s.t < stop {
		t := s.t + 1
		i, j, fl, err := s.activation(t)
		if err != nil {
			return err
		}
		s.t = t
		if fl&actOnline == 0 {
			continue
		}
		nz, bad := e.netEvent(i, j, t, 0, fl)
		s.gradEvals += 2
		s.nonzero += nz
		if bad >= 0 {
			return s.diverged(divergence{t: t, node: bad})
		}
	}
	return nil
}
