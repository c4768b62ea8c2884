package engine

import (
	"io"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
)

// The linear fast path: AUC losses with ψ = 0 or squared ℓ2, where the
// smoothing operator is linear, θ = c·z with c = −γ(t)/(1 + 2tγ(t)λ). A node's
// update is then one fused pass over its record (kernel.SyncLinear),
//
//	z += w·(x − y);  θ = c·z;  θ̄ = a·θ̄ + b·θ;  m = (x − y)ᵀθ,
//
// where w = scale·φ'(m_old) when the pair contributes (ℓ_k > ℓ_y) and 0
// otherwise, m_old being the margin at the node's previous θ. θ is not
// stored: it is c·z at every node after a synchronous round (θ_k = c_k·z_k
// after an asynchronous event, c_k from node k's own clock), and Theta is
// computed from z when it is read (theta).
// The synchronous loop keeps each node's next margin m, returned by the
// kernel, so a round is one pass per node; the two endpoints of the drawn
// edge get theirs recomputed after the swap of y, from their θ before the
// averaging of z. Each node's auxiliary point is copied into its record
// (YX), swapped with the indices, so a round streams through contiguous
// records.
//
// With ψ = 0 and the generic kernels this is bit-identical to the reference
// executor (problem.PairGrad, Regularizer.Smooth, avg); the avx2 and avx512
// kernels accumulate the margin with FMA (z and θ̄ are still computed
// without FMA), and squared ℓ2 folds its factor into c: both change
// rounding only.

func plainFits(sh Shape, cfg Config, _ bool) error {
	return reasons(needAlgo(cfg, Sync), needLinear(sh))
}

func plainBytes(sh Shape, cfg Config, _ int) int64 { return linearSyncBytes(sh, cfg) }

// linearSync is what the synchronous executors of the linear fast path
// (plain, blocked, reduced) share: each node's next margin, the scale of
// the last round, the endpoints' θ before the averaging (unbiased baseline).
type linearSync struct {
	s        *state
	cr       *crew
	marg     []float64 // each node's margin for the next round (gossip estimator)
	cPrev    float64   // c of the last round
	endTheta [2][]float64
}

func newLinearSync(s *state, cr *crew) *linearSync {
	return &linearSync{s: s, cr: cr, marg: make([]float64, s.rows()),
		endTheta: [2][]float64{make([]float64, s.prob.P), make([]float64, s.prob.P)}}
}

func linearSyncBytes(sh Shape, cfg Config) int64 { return int64(sh.rows(cfg.Algorithm)) * 8 }

// roundCoef is round t's coefficients: θ = c·z, θ̄ = a·θ̄ + b·θ, and the
// previous round's c.
type roundCoef struct {
	c, a, b, cPrev float64
}

// coef returns the coefficients of round t with step γ.
func (l *linearSync) coef(t int64, gamma float64) roundCoef {
	tf := float64(t)
	return roundCoef{c: l.s.linearScale(gamma, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: l.cPrev}
}

// marginScaled returns Σ (x[i] − y[i])·(c·z[i]), the margin at θ = c·z, with
// the reference's rounding (the conversion keeps Go from fusing the
// multiply-add into an FMA on arm64).
func marginScaled(x, y, z []float64, c float64) float64 {
	y, z = y[:len(x)], z[:len(x)]
	var m float64
	for i := range x {
		m += float64((x[i] - y[i]) * (c * z[i]))
	}
	return m
}

// pre is the start of a synchronous round on edge (i, j): swap y, compute
// the endpoints' margins at their θ before the averaging, average.
func (l *linearSync) pre(i, j int) {
	s := l.s
	s.swapY(i, j)
	if s.cfg.Estimator == Gossip {
		for _, k := range [2]int{i, j} {
			l.marg[k] = marginScaled(s.X.Row(k), s.YX.Row(k), s.Z.Row(k), l.cPrev)
		}
	} else {
		// The baseline draws a new point every round: keep the endpoints'
		// θ before the averaging.
		for e, k := range [2]int{i, j} {
			z, th := s.Z.Row(k), l.endTheta[e]
			for a := range th {
				th[a] = l.cPrev * z[a]
			}
		}
	}
	s.average(i, j)
}

// nodeRound is node k's update in round t (coefficients cf); it reports
// whether the gradient was non-zero and whether the node stayed finite.
// endTh is non-nil for an endpoint of the round's edge under the unbiased
// baseline: its θ before the averaging.
func (l *linearSync) nodeRound(k int, t int64, cf roundCoef, endTh []float64) (nonzero, ok bool) {
	s := l.s
	lab := s.prob.Label
	x, z, bar := s.X.Row(k), s.Z.Row(k), s.ThetaBar.Row(k)
	var y []float64
	var ly int32
	var m float64
	gossip := s.cfg.Estimator == Gossip
	if gossip {
		y, ly, m = s.YX.Row(k), s.ylab[k], l.marg[k]
	} else {
		y, ly = s.auxRow(k, t)
		if lab[k] > ly {
			if endTh != nil {
				m = marginScaled(x, y, endTh, 1)
			} else {
				m = marginScaled(x, y, z, cf.cPrev)
			}
		}
	}
	var wt float64
	if lab[k] > ly {
		wt = s.prob.Loss.MarginDeriv(m)
	}
	m = kernel.SyncLinear(z, bar, x, y, wt, cf.c, cf.a, cf.b)
	if gossip {
		l.marg[k] = m
	}
	return wt != 0, isFinite(m)
}

// endTh returns the θ before the averaging of node k when it is an endpoint
// of edge (i, j) under the unbiased baseline, else nil.
func (l *linearSync) endTh(k, i, j int) []float64 {
	if l.s.cfg.Estimator == Unbiased {
		switch k {
		case i:
			return l.endTheta[0]
		case j:
			return l.endTheta[1]
		}
	}
	return nil
}

// theta sets dst = θ_k = c·z_k: the c of the last round, or under churn
// (nx.cNode, kept by the plain, blocked and reduced schedules) the c of
// node k's last step, an offline node keeping its θ.
func (l *linearSync) theta(k int, dst []float64) {
	c := l.cPrev
	if nx := l.s.nx; nx != nil && nx.cNode != nil {
		c = nx.cNode[k]
	}
	kernel.Scale(dst, l.s.Z.Row(k), c)
}

// The margins are part of the state a checkpoint carries.
func (l *linearSync) savedLen() int                                { return len(l.marg) }
func (l *linearSync) writeSaved(w io.Writer, fc *floatCodec) error { return fc.write(w, l.marg) }
func (l *linearSync) checkSaved([]float64) error                   { return nil }
func (l *linearSync) applySaved(v []float64)                       { copy(l.marg, v) }

// restore sets the last round's scale from the clock.
func (l *linearSync) restore() {
	s := l.s
	l.cPrev = 0
	if s.t > 0 {
		l.cPrev = s.linearScale(s.cfg.Gamma(float64(s.t)), float64(s.t))
	}
}

// plainExec is the plain schedule: every round, every node's fused update,
// node after node, over the crew's row shards.
type plainExec struct {
	*linearSync
	fn func(w int, r layout.Range, tk *task) // shard, bound once
}

func newPlainExec(s *state, cr *crew) executor {
	e := &plainExec{linearSync: newLinearSync(s, cr)}
	e.fn = e.shard
	return e
}

// advance runs rounds up to stop, about 4·10⁶ node-coordinate updates (at
// most 256 rounds) per call.
func (e *plainExec) advance(stop int64) error {
	s := e.s
	if s.net != nil {
		return e.netAdvance(stop) // network.go
	}
	end := min(stop, s.t+max(1, min(256, int64(4<<20)/int64(s.prob.N*s.prob.P))))
	big := s.prob.N*s.prob.P >= poolMinWork
	e.cr.sw.start(false)
	defer e.cr.sw.lap(PhaseSerial)
	for s.t < end {
		s.t++
		t := s.t
		i, j := s.drawEdge()
		e.pre(i, j)
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		e.cr.pass(big, e.fn, tk, s.prob.N)
		e.cPrev = s.linearScale(tk.gamma, float64(t))
		nz, first := e.cr.workers()
		if err := s.endIters(t-1, t, int64(s.prob.N), nz, first); err != nil {
			return err
		}
	}
	return nil
}

// shard is round tk.t over the nodes of r.
func (e *plainExec) shard(w int, r layout.Range, tk *task) {
	cf := e.coef(tk.t, tk.gamma)
	var nz int64
	for k := r.Lo; k < r.Hi; k++ {
		c, ok := e.nodeRound(k, tk.t, cf, e.endTh(k, tk.i, tk.j))
		if c {
			nz++
		}
		if !ok {
			e.cr.bad[w].note(tk.t, k, "")
		}
	}
	e.cr.nz[w] += nz
}
