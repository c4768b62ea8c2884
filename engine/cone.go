package engine

import (
	"io"
	"math"

	"github.com/pairgossip/pairgossip/layout"
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

// coneChunk is the most rounds one advance runs before writing every θ̄ into
// the records; it bounds the latency of cancellation and checkpoints.
const coneChunk = 256

// coneMaxUpdates is the most rank-one eigen-updates a node's decomposition
// takes before it is recomputed from z; it bounds the accumulated rounding
// (each update is backward stable to a few ulps of ‖z‖).
const coneMaxUpdates = 32

type coneState struct {
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
	delta      [][]float64 // per worker: δ
	bad        []int       // per worker: first non-finite node, −1 if none
	fn         func(w int, r layout.Range)
	endFn      func(w int, r layout.Range)
}

const coneGrad = 1 << 31

// coneApplies reports whether the reduced metric schedule can run p.
func coneApplies(p *problem.Problem, cfg Config) bool {
	r := p.Reg.Kind
	return p.Loss.IsMetric() && cfg.Algorithm == Sync && cfg.Estimator == Gossip &&
		(r == problem.RegPSD || r == problem.RegNone || r == problem.RegL2Sq)
}

func newConeState(s *Sim) *coneState {
	n, d := s.prob.N, s.prob.D
	nw := max(1, s.workers)
	cs := &coneState{
		U: layout.New(n, s.prob.P), q: make([]float64, n),
		alpha: make([]float64, n), beta: make([]float64, n),
		psd:   s.prob.Reg.Kind == problem.RegPSD,
		delta: make([][]float64, nw), bad: make([]int, nw),
		act: make([]uint32, 0, n),
	}
	for k := range cs.alpha {
		cs.alpha[k] = 1
	}
	for w := range cs.delta {
		cs.delta[w] = make([]float64, d)
		cs.bad[w] = -1
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
	cs.fn = s.coneWork
	cs.endFn = s.coneEnd
	return cs
}

// coneScale returns c(t) > 0 with θ = c(t)·U.
func (s *Sim) coneScale(t int64) float64 {
	tf := float64(t)
	g := s.cfg.Gamma(tf)
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return g / (1 + 2*tf*g*r.Lambda)
	}
	return g
}

// coneRound is one synchronous round of the reduced metric schedule.
func (s *Sim) coneRound() error {
	cs, p := s.cone, s.prob
	s.t++
	t := s.t
	i, j := s.drawEdge()
	s.roundI, s.roundJ = i, j
	s.average(i, j)
	s.swapY(i, j)
	for _, k := range [2]int{i, j} {
		cs.q[k] = p.Dist(cs.U.Row(k), s.X.Row(k), s.YX.Row(k))
	}
	tf := float64(t)
	cs.a, cs.b, cs.cNow = 1-1/tf, 1/tf, s.coneScale(t)
	a, bc := cs.a, cs.b*cs.cNow
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
		grad := sg*(B-prev*q[k]) < 1
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
		beta[k] = beta[k]*a + bc
	}
	cs.act = act
	d := p.D
	if s.pool != nil && len(act) >= 2 && len(act)*d*d*d >= coneMinPoolWork {
		s.pool.run(cs.fn)
	} else {
		s.coneWorkers(0, 1)
	}
	cs.c = cs.cNow
	s.gradEvals += int64(p.N)
	s.nonzero += nz
	s.thetaStale = true
	bad := cs.firstBad()
	if bad >= 0 {
		return &DivergenceError{Iter: t, Node: bad, Field: fieldOf(s.Z.Row(bad), cs.U.Row(bad))}
	}
	return nil
}

func (s *Sim) coneWork(w int, _ layout.Range) { s.coneWorkers(w, s.pool.size()) }

// coneWorkers updates the nodes act[w], act[w+W], … of the round: θ̄ written
// with the old U, the rank-one gradient added to z, U = Proj(−z), q.
func (s *Sim) coneWorkers(w, W int) {
	cs, p := s.cone, s.prob
	d := p.D
	delta, ws := cs.delta[w], s.ws[w]
	bc := cs.b * cs.cNow
	for e := w; e < len(cs.act); e += W {
		k := int(cs.act[e] &^ coneGrad)
		z, u, bar := s.Z.Row(k), cs.U.Row(k), s.ThetaBar.Row(k)
		al, be := cs.alpha[k], cs.beta[k]
		for a := range bar {
			bar[a] = al*bar[a] + be*u[a]
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
			if cs.act[e]&coneGrad != 0 && k != s.roundI && k != s.roundJ && cs.upd[k] < coneMaxUpdates {
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
		if (!finite(z) || !finite(u)) && (cs.bad[w] < 0 || k < cs.bad[w]) {
			cs.bad[w] = k
		}
	}
}

// firstBad returns the lowest node the workers found non-finite (−1: none)
// and clears their reports.
func (cs *coneState) firstBad() int {
	bad := -1
	for w, k := range cs.bad {
		if k >= 0 && (bad < 0 || k < bad) {
			bad = k
		}
		cs.bad[w] = -1
	}
	return bad
}

// coneEnd writes θ̄ = αθ̄⁰ + βU into the records of a shard.
func (s *Sim) coneEnd(w int, r layout.Range) {
	cs := s.cone
	for k := r.Lo; k < r.Hi; k++ {
		al, be := cs.alpha[k], cs.beta[k]
		if al == 1 && be == 0 {
			continue
		}
		bar, u := s.ThetaBar.Row(k), cs.U.Row(k)
		for a := range bar {
			bar[a] = al*bar[a] + be*u[a]
		}
		cs.alpha[k], cs.beta[k] = 1, 0
		if !finite(bar) && (cs.bad[w] < 0 || k < cs.bad[w]) {
			cs.bad[w] = k
		}
	}
}

// coneMaterialize writes every node's θ̄ into its record.
func (s *Sim) coneMaterialize() error {
	cs := s.cone
	if s.pool != nil && s.prob.N*s.prob.P >= poolMinWork {
		s.pool.run(cs.endFn)
	} else {
		s.coneEnd(0, layout.Range{Lo: 0, Hi: s.prob.N})
	}
	bad := cs.firstBad()
	if bad >= 0 {
		return &DivergenceError{Iter: s.t, Node: bad, Field: "theta_bar"}
	}
	return nil
}

// coneAdvance runs rounds up to min(stop, t + coneChunk), then writes θ̄.
func (s *Sim) coneAdvance(stop int64) error {
	end := min(stop, s.t+coneChunk)
	for s.t < end {
		if err := s.coneRound(); err != nil {
			s.coneMaterialize()
			return err
		}
	}
	return s.coneMaterialize()
}

// coneTheta sets Theta = c·U (syncTheta for this schedule).
func (s *Sim) coneTheta() {
	cs := s.cone
	for k := 0; k < s.Z.Rows; k++ {
		th, u := s.Theta.Row(k), cs.U.Row(k)
		for a := range th {
			th[a] = cs.c * u[a]
		}
	}
}

// coneRestore rebuilds U, q and c from z (or the saved eigendecompositions),
// y and t after a checkpoint is read: U_k is a function of z_k (of V_k and
// lam_k for the PSD cone, which the checkpoint holds), so this gives back the
// uninterrupted run's values bit for bit.
func (s *Sim) coneRestore() {
	cs := s.cone
	d := s.prob.D
	for k := 0; k < s.prob.N; k++ {
		z, u := s.Z.Row(k), cs.U.Row(k)
		if cs.psd {
			s.ws[0].ProjectFromEig(u, cs.V.Row(k), cs.lam[k*d:k*d+d])
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
		cs.c = s.coneScale(s.t)
	}
	for w := range cs.bad {
		cs.bad[w] = -1
	}
}

// RankOneUpdates returns the number of rank-one eigen-updates done in place
// of full eigendecompositions (reduced metric schedule, PSD cone).
func (s *Sim) RankOneUpdates() int64 {
	var n int64
	if s.cone != nil {
		for _, r := range s.cone.rank1 {
			n += r
		}
	}
	return n
}

// coneSavedLen is the number of floats of the reduced metric schedule's
// state that is not a function of z (the cached eigendecompositions: V, lam
// and the update counts), which checkpoints carry; 0 without it.
func (s *Sim) coneSavedLen() int {
	if s.cone == nil || !s.cone.psd {
		return 0
	}
	cs := s.cone
	return cs.V.Rows*cs.V.Cols + len(cs.lam) + len(cs.upd)
}

// writeConeSaved writes that state (V row by row, lam, the counts as floats).
func (s *Sim) writeConeSaved(w io.Writer, fc *floatCodec) error {
	cs := s.cone
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

// checkConeSaved validates what writeConeSaved wrote (coneSavedLen floats)
// before anything is applied.
func (s *Sim) checkConeSaved(v []float64) error {
	for k, u := range v[len(v)-len(s.cone.upd):] {
		if !(u >= 0 && u <= coneMaxUpdates) || u != math.Trunc(u) {
			return ckptErr("eigen-update count %v of node %d out of range", u, k)
		}
	}
	return nil
}

// applyConeSaved applies what checkConeSaved accepted.
func (s *Sim) applyConeSaved(v []float64) {
	cs := s.cone
	for k := 0; k < cs.V.Rows; k++ {
		v = v[copy(cs.V.Row(k), v):]
	}
	v = v[copy(cs.lam, v):]
	for k := range cs.upd {
		cs.upd[k] = uint8(v[k])
	}
}
