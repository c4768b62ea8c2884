package engine

import (
	"io"
	"math"

	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// The reduced synchronous schedule for metric learning (ψ = PSD cone, none or
// squared ℓ2; gossip estimator).
//
// The smoothing operator is positively homogeneous here: θ_k(t) = c(t)·U_k with
//
//	U_k = Proj_{S+}(−z_k) (PSD cone) or −z_k (none, squared ℓ2),
//	c(t) = γ(t), or γ(t)/(1 + 2tγ(t)λ) for squared ℓ2,
//
// since the cone is invariant under positive scaling. U_k changes only in a
// round where z_k does: when node k is an endpoint of the drawn edge (its z
// is averaged) or its pair (x_k, y_k) has a non-zero hinge gradient. For
// every other node:
//
//   - the hinge test needs D_θ(x_k, y_k) = c(t−1)·q_k with q_k = δ_kᵀU_kδ_k,
//     δ_k = x_k − y_k, one scalar per node, recomputed when U_k or y_k
//     changes;
//   - the running average is θ̄_k = α_k θ̄⁰_k + β_k U_k, with the scalar
//     recurrences α ← a_t α, β ← a_t β + b_t c(t) (a_t = 1 − 1/t, b_t = 1/t);
//     it is written into the record (θ̄⁰ ← θ̄, α = 1, β = 0) when U_k changes
//     and at the end of every advance (at most coneChunk rounds).
//
// A round therefore costs O(n) scalar operations plus, for each node whose z
// changed, one rank-one update of z (the same arithmetic as
// problem.PairGrad), one projection — one symmetric eigendecomposition for
// the PSD cone — and one d×d quadratic form. The O(n·d²) passes of the
// reference schedule (θ rescaled, θ̄ averaged, D_θ(x_k, y_k) formed for every
// node, every round) are gone. In real arithmetic this is Algorithm 2
// exactly; in floating point z is the reference's bit for bit (the same
// updates in the same order) as long as no hinge test falls on its boundary
// by rounding, and θ, θ̄ agree with the reference to rounding (tested).
// Materialising θ̄ rounds differently from the recurrence, so results depend
// on where advances end: at multiples of coneChunk after each measured
// iteration, never on the worker count or on timing.
//
// Under a network model (docs/networks.md) a round's activation is the
// reference's (state.activation); with an exchange its deliveries apply
// (state.netExchange: y swapped only when both messages arrive) and its
// endpoints' U are recomputed, without one no node is an endpoint. Churn
// (an offline node keeps its θ while c(t) moves on) and an adaptive picker
// (its picks would read θ = c·U, which agrees with the reference's θ only
// to rounding) run on the reference.

// coneChunk is the most rounds one advance runs before writing every θ̄ into
// the records; it bounds the latency of cancellation and checkpoints.
const coneChunk = 256

// coneMinPoolWork is the pool threshold of the reduced metric schedule's
// changed nodes, counted as (nodes)·d³, the order of their eigen-work.
var coneMinPoolWork = 4096

// coneMaxUpdates is the most rank-one eigen-updates a node's decomposition
// takes before it is recomputed from z; it bounds the accumulated rounding
// (each update is backward stable to a few ulps of ‖z‖).
const coneMaxUpdates = 32

// coneExec is the reduced metric-learning schedule.
type coneExec struct {
	s  *state
	cr *crew

	U           layout.Matrix // U_k: θ_k = c·U_k
	q           []float64     // δ_kᵀU_kδ_k
	alpha, beta []float64     // θ̄_k = α_k θ̄⁰_k + β_k U_k
	c           float64       // c of the last round done (0 before the first)
	psd         bool

	// PSD cone: each node's eigendecomposition of −z_k (eigenvectors in the
	// columns of V_k, eigenvalues ascending in lam_k), kept so that a
	// gradient step, rank one, updates it (problem.EigUpdate) instead of
	// recomputing it; upd_k counts the updates since the last full one.
	V     layout.Matrix
	lam   []float64
	upd   []uint8
	eup   []*problem.EigUpdate // per worker
	rank1 []int64              // per worker: rank-one updates done

	// The round being worked on.
	act        []uint32 // nodes whose z changes, in order; bit 31: with a gradient
	a, b, cNow float64
	delta      [][]float64                           // per worker: δ
	fn         func(w int, r layout.Range, tk *task) // work, bound once
	endFn      func(w int, r layout.Range, tk *task) // end, bound once
}

const coneGrad = 1 << 31

// coneFits reports whether the reduced metric schedule can run the problem.
func coneFits(sh Shape, cfg Config, _ bool) error {
	return reasons(needAlgo(cfg, Sync), needGossip(cfg), needMetricCone(sh, cfg), needConeNet(cfg))
}

// needConeNet is the reduced metric schedule's network rule (see above).
func needConeNet(cfg Config) fitCheck {
	m := cfg.Network
	return fitCheck{m.Churn.Dist == "" && m.Activation.Kind != network.ActAdaptive,
		"no churn and no adaptive picker (θ = c·U with one c for every node; the reference runs them)"}
}

func coneBytes(sh Shape, _ Config, workers int) int64 {
	n, row := int64(sh.N), int64(layout.Stride(sh.P))*8
	b := n*row + n*(3*8+4) // U, q, α, β, the round's list
	if sh.Reg == problem.RegPSD {
		b += n*row + n*int64(sh.D)*8 + n // V, λ, update counts
	}
	return b + int64(max(1, workers))*int64(sh.D)*8
}

func newConeExec(s *state, cr *crew) executor {
	n, d := s.prob.N, s.prob.D
	nw := len(cr.ws)
	cs := &coneExec{
		s: s, cr: cr,
		U: layout.New(n, s.prob.P), q: make([]float64, n),
		alpha: make([]float64, n), beta: make([]float64, n),
		psd:   s.prob.Reg.Kind == problem.RegPSD,
		delta: make([][]float64, nw),
		act:   make([]uint32, 0, n),
	}
	for k := range cs.alpha {
		cs.alpha[k] = 1
	}
	for w := range cs.delta {
		cs.delta[w] = make([]float64, d)
	}
	if cs.psd {
		// z = 0: −z = I·0·Iᵀ.
		cs.V, cs.lam, cs.upd = layout.New(n, s.prob.P), make([]float64, n*d), make([]uint8, n)
		for k := 0; k < n; k++ {
			v := cs.V.Row(k)
			for a := 0; a < d; a++ {
				v[a*d+a] = 1
			}
		}
		cs.eup, cs.rank1 = make([]*problem.EigUpdate, nw), make([]int64, nw)
		for w := range cs.eup {
			cs.eup[w] = problem.NewEigUpdate(d)
		}
	}
	cs.fn = cs.work
	cs.endFn = cs.end
	return cs
}

// scale returns c(t) > 0 with θ = c(t)·U.
func (cs *coneExec) scale(t int64) float64 {
	s := cs.s
	tf := float64(t)
	g := s.cfg.Gamma(tf)
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return g / (1 + float64(2*tf*g*r.Lambda))
	}
	return g
}

// round is one synchronous round of the reduced metric schedule.
func (cs *coneExec) round() error {
	s, p := cs.s, cs.s.prob
	var i, j int
	if s.net != nil {
		t := s.t + 1
		var fl uint8
		var err error
		if i, j, fl, err = s.activation(t); err != nil {
			return err // s.t stays: round t did not happen
		}
		s.t = t
		if fl&actOnline != 0 && fl&actBoth != 0 {
			s.netExchange(i, j, fl)
		} else {
			i, j = -1, -1 // no exchange: no endpoint
		}
	} else {
		s.t++
		i, j = s.drawEdge()
		s.exchange(i, j)
	}
	t := s.t
	if i >= 0 {
		for _, k := range [2]int{i, j} {
			cs.q[k] = p.Dist(cs.U.Row(k), s.X.Row(k), s.YX.Row(k))
		}
	}
	tf := float64(t)
	cs.a, cs.b, cs.cNow = 1-1/tf, 1/tf, cs.scale(t)
	a, bc := cs.a, float64(cs.b*cs.cNow)
	prev, B := cs.c, p.B
	lab, ylab := p.Label, s.ylab
	q, alpha, beta := cs.q, cs.alpha, cs.beta
	act := cs.act[:0]
	var nz int64
	for k := range q {
		sg := 1.0
		if lab[k] != ylab[k] {
			sg = -1
		}
		grad := sg*(B-float64(prev*q[k])) < 1
		if grad || k == i || k == j {
			e := uint32(k)
			if grad {
				e |= coneGrad
				nz++
			}
			act = append(act, e)
			continue
		}
		alpha[k] *= a
		beta[k] = float64(beta[k]*a) + bc
	}
	cs.act = act
	d := p.D
	cs.cr.pass(len(act) >= 2 && len(act)*d*d*d >= coneMinPoolWork, cs.fn, task{t: t, i: i, j: j}, p.N)
	cs.c = cs.cNow
	_, bad := cs.cr.workers() // the non-zero gradients are counted above
	if bad.found() {
		bad.field = fieldOf(s.Z.Row(bad.node), cs.U.Row(bad.node))
	}
	return s.endIters(t-1, t, int64(p.N), nz, bad)
}

func (cs *coneExec) work(w int, _ layout.Range, tk *task) { cs.nodes(w, tk.ways, tk) }

// nodes updates the nodes act[w], act[w+W], … of round tk: θ̄ written
// with the old U, the rank-one gradient added to z, U = Proj(−z), q.
func (cs *coneExec) nodes(w, W int, tk *task) {
	s, p := cs.s, cs.s.prob
	d := p.D
	delta, ws := cs.delta[w], cs.cr.ws[w]
	bc := float64(cs.b * cs.cNow)
	for e := w; e < len(cs.act); e += W {
		k := int(cs.act[e] &^ coneGrad)
		z, u, bar := s.Z.Row(k), cs.U.Row(k), s.ThetaBar.Row(k)
		al, be := cs.alpha[k], cs.beta[k]
		for a := range bar {
			bar[a] = float64(al*bar[a]) + float64(be*u[a])
		}
		x, y := s.X.Row(k), s.YX.Row(k)
		// s_k = +1 for a pair of the same class: z += s_k·δδᵀ (problem.PairGrad
		// with scale 1), i.e. −z changes by ρ·δδᵀ with ρ = −s_k.
		sk := 1.0
		if p.Label[k] != s.ylab[k] {
			sk = -1
		}
		if cs.act[e]&coneGrad != 0 {
			problem.AddOuterDiff(z, sk, x, y)
		}
		if cs.psd {
			V, lam := cs.V.Row(k), cs.lam[k*d:k*d+d]
			done := false
			if cs.act[e]&coneGrad != 0 && k != tk.i && k != tk.j && cs.upd[k] < coneMaxUpdates {
				// −z changed by −s·δδᵀ only: update the decomposition.
				for a := range delta {
					delta[a] = x[a] - y[a]
				}
				if cs.eup[w].RankOneUpdate(V, lam, -sk, delta) {
					cs.upd[k]++
					cs.rank1[w]++
					done = true
				}
			}
			if !done {
				if !ws.EigSym(V, lam, z, -1) {
					for a := range lam {
						lam[a] = math.NaN()
					}
				}
				cs.upd[k] = 0
			}
			ws.ProjectFromEig(u, V, lam)
		} else {
			for a, v := range z {
				u[a] = -v
			}
		}
		cs.q[k] = p.Dist(u, x, y)
		cs.alpha[k], cs.beta[k] = cs.a, bc
		if !finite(z) || !finite(u) {
			cs.cr.bad[w].note(tk.t, k, "")
		}
	}
}

// end writes θ̄ = αθ̄⁰ + βU into the records of a shard.
func (cs *coneExec) end(w int, r layout.Range, _ *task) {
	s := cs.s
	for k := r.Lo; k < r.Hi; k++ {
		al, be := cs.alpha[k], cs.beta[k]
		if al == 1 && be == 0 {
			continue
		}
		bar, u := s.ThetaBar.Row(k), cs.U.Row(k)
		for a := range bar {
			bar[a] = float64(al*bar[a]) + float64(be*u[a])
		}
		cs.alpha[k], cs.beta[k] = 1, 0
		if !finite(bar) {
			cs.cr.bad[w].note(s.t, k, "theta_bar")
		}
	}
}

// writeBars writes every node's θ̄ into its record.
func (cs *coneExec) writeBars() error {
	s := cs.s
	cs.cr.pass(s.prob.N*s.prob.P >= poolMinWork, cs.endFn, task{}, s.prob.N)
	if bad := firstOf(cs.cr.bad); bad.found() {
		return s.diverged(bad)
	}
	return nil
}

// advance runs rounds up to min(stop, t + coneChunk), then writes θ̄.
func (cs *coneExec) advance(stop int64) error {
	s := cs.s
	end := min(stop, s.t+coneChunk)
	cs.cr.sw.start(false)
	defer cs.cr.sw.lap(PhaseSerial)
	for s.t < end {
		if err := cs.round(); err != nil {
			t := s.t
			cs.writeBars()
			s.t = t
			return err
		}
	}
	return cs.writeBars()
}

// theta sets dst = θ_k = c·U_k.
func (cs *coneExec) theta(k int, dst []float64) {
	u := cs.U.Row(k)
	for a := range dst {
		dst[a] = cs.c * u[a]
	}
}

// restore rebuilds U, q and c from z (or the saved eigendecompositions),
// y and t after a checkpoint is read: U_k is a function of z_k (of V_k and
// lam_k for the PSD cone, which the checkpoint holds), so this gives back the
// uninterrupted run's values bit for bit.
func (cs *coneExec) restore() {
	s := cs.s
	d := s.prob.D
	for k := 0; k < s.prob.N; k++ {
		z, u := s.Z.Row(k), cs.U.Row(k)
		if cs.psd {
			cs.cr.ws[0].ProjectFromEig(u, cs.V.Row(k), cs.lam[k*d:k*d+d])
		} else {
			for a, v := range z {
				u[a] = -v
			}
		}
		cs.q[k] = s.prob.Dist(u, s.X.Row(k), s.YX.Row(k))
		cs.alpha[k], cs.beta[k] = 1, 0
	}
	cs.c = 0
	if s.t > 0 {
		cs.c = cs.scale(s.t)
	}
	clear(cs.cr.bad)
}

// rankOne returns the number of rank-one eigen-updates done in place of
// full eigendecompositions.
func (cs *coneExec) rankOne() int64 {
	var n int64
	for _, r := range cs.rank1 {
		n += r
	}
	return n
}

// savedLen is the number of floats of the reduced metric schedule's state
// that is not a function of z (the cached eigendecompositions: V, lam and
// the update counts), which checkpoints carry; 0 without it.
func (cs *coneExec) savedLen() int {
	if !cs.psd {
		return 0
	}
	return cs.V.Rows*cs.V.Cols + len(cs.lam) + len(cs.upd)
}

// writeSaved writes that state (V row by row, lam, the counts as floats).
func (cs *coneExec) writeSaved(w io.Writer, fc *floatCodec) error {
	for k := 0; k < cs.V.Rows; k++ {
		if err := fc.write(w, cs.V.Row(k)); err != nil {
			return err
		}
	}
	if err := fc.write(w, cs.lam); err != nil {
		return err
	}
	upd := make([]float64, len(cs.upd))
	for k, u := range cs.upd {
		upd[k] = float64(u)
	}
	return fc.write(w, upd)
}

// checkSaved validates what writeSaved wrote (savedLen floats) before
// anything is applied.
func (cs *coneExec) checkSaved(v []float64) error {
	for k, u := range v[len(v)-len(cs.upd):] {
		if !(u >= 0 && u <= coneMaxUpdates) || u != math.Trunc(u) {
			return ckptErr("eigen-update count %v of node %d out of range", u, k)
		}
	}
	return nil
}

// applySaved applies what checkSaved accepted.
func (cs *coneExec) applySaved(v []float64) {
	for k := 0; k < cs.V.Rows; k++ {
		v = v[copy(cs.V.Row(k), v):]
	}
	v = v[copy(cs.lam, v):]
	for k := range cs.upd {
		cs.upd[k] = uint8(v[k])
	}
}
