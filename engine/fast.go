package engine

import (
	"math"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
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
// rebuilt from z when it is read (Measure, checkpoints, the end of Run).
// The synchronous loop keeps each node's next margin m, returned by the
// kernel, so a round is one pass per node; the two endpoints of the drawn
// edge get theirs recomputed after the swap of y, from their θ before the
// averaging of z. Each node's auxiliary point is copied into its record
// (YX), swapped with the indices, so a round streams through contiguous
// records.
//
// With ψ = 0 and the generic kernels this is bit-identical to the reference
// path (problem.PairGrad, Regularizer.Smooth, avg); the avx2 kernels
// accumulate the margin with FMA (z and θ̄ are still computed without FMA),
// and squared ℓ2 folds its factor into c: both change rounding only.

// Schedules of the synchronous and asynchronous loops.
const (
	// ScheduleAuto picks the fastest schedule that applies: reduced for the
	// synchronous algorithm with the gossip estimator (AUC with ψ = none or
	// squared ℓ2; metric learning with ψ = psd, none or squared ℓ2), which
	// is the algorithm exactly in real arithmetic and agrees with the others
	// to rounding; otherwise blocked (synchronous) or plain (asynchronous)
	// on the linear fast path, else reference.
	ScheduleAuto = "auto"
	// SchedulePlain is the fused one-pass update, node after node, each round.
	SchedulePlain = "plain"
	// ScheduleReference is the literal per-node transcription of the
	// algorithms (problem.PairGrad, Regularizer.Smooth), for every problem.
	ScheduleReference = "reference"
)

// Schedules lists the accepted schedule names.
var Schedules = []string{ScheduleAuto, SchedulePlain, ScheduleBlocked, ScheduleReduced, ScheduleReference}

// linearProblem reports whether the fast path applies to the problem.
func linearProblem(p *problem.Problem) bool {
	return !p.Loss.IsMetric() && p.Reg.Linear()
}

// gamma is s.cfg.Gamma(t), inlined for ψ's hot loops (Config.Gamma, a
// method on a value of the whole Config, is not).
func (s *Sim) gamma(t float64) float64 {
	if s.cfg.GammaAlpha == 0 {
		return s.cfg.GammaC / math.Sqrt(t)
	}
	return s.cfg.Gamma(t)
}

// smoothScale returns c with θ = c·z for clock t and step γ.
func (s *Sim) smoothScale(gamma, t float64) float64 {
	if r := s.prob.Reg; r.Kind == problem.RegL2Sq {
		return -gamma / (1 + 2*t*gamma*r.Lambda)
	}
	return -gamma
}

// swapY exchanges the auxiliary observations of i and j: index, label and
// the copied row.
func (s *Sim) swapY(i, j int) {
	s.Y[i], s.Y[j] = s.Y[j], s.Y[i]
	s.ylab[i], s.ylab[j] = s.ylab[j], s.ylab[i]
	yi, yj := s.YX.Row(i), s.YX.Row(j)
	for a := range yi {
		yi[a], yj[a] = yj[a], yi[a]
	}
}

// marginScaled returns Σ (x[i] − y[i])·(c·z[i]), the margin at θ = c·z, with
// the reference's rounding.
func marginScaled(x, y, z []float64, c float64) float64 {
	y, z = y[:len(x)], z[:len(x)]
	var m float64
	for i := range x {
		m += (x[i] - y[i]) * (c * z[i])
	}
	return m
}

// fastAux returns node k's second point at iteration t: its row and label.
func (s *Sim) fastAux(k int, t int64) ([]float64, int32) {
	if s.cfg.Estimator == Unbiased {
		j := rng.HashIntN(s.cfg.Seed^hashAux, uint64(k), uint64(t), s.prob.N)
		return s.X.Row(j), s.prob.Label[j]
	}
	return s.YX.Row(k), s.ylab[k]
}

// isFinite reports whether v is neither ±Inf nor NaN.
// Not v−v == 0: when v is a product, arm64 fuses v−v into one FMSUB that
// returns the product's rounding error, so a finite v could fail the test.
func isFinite(v float64) bool { return math.Abs(v) <= math.MaxFloat64 }

// syncFastPre is the start of a synchronous round on edge (i, j): swap y,
// compute the endpoints' margins at their θ before the averaging, average.
func (s *Sim) syncFastPre(i, j int) {
	s.swapY(i, j)
	if s.cfg.Estimator == Gossip {
		for _, k := range [2]int{i, j} {
			s.marg[k] = marginScaled(s.X.Row(k), s.YX.Row(k), s.Z.Row(k), s.cPrev)
		}
	} else {
		// The baseline draws a new point every round: keep the endpoints'
		// θ before the averaging.
		for e, k := range [2]int{i, j} {
			z, th := s.Z.Row(k), s.endTheta[e]
			for a := range th {
				th[a] = s.cPrev * z[a]
			}
		}
	}
	s.average(i, j)
}

// syncFastShard is the plain schedule's round t over nodes lo..hi−1.
func (s *Sim) syncFastShard(w, lo, hi int, t int64, gamma float64) {
	lab := s.prob.Label
	loss := s.prob.Loss
	tf := float64(t)
	c, a, b := s.smoothScale(gamma, tf), 1-1/tf, 1/tf
	gossip := s.cfg.Estimator == Gossip
	var nz int64
	for k := lo; k < hi; k++ {
		x, z, bar := s.X.Row(k), s.Z.Row(k), s.ThetaBar.Row(k)
		var y []float64
		var ly int32
		var m float64
		if gossip {
			y, ly, m = s.YX.Row(k), s.ylab[k], s.marg[k]
		} else {
			y, ly = s.fastAux(k, t)
			if lab[k] > ly {
				switch k {
				case s.roundI:
					m = marginScaled(x, y, s.endTheta[0], 1)
				case s.roundJ:
					m = marginScaled(x, y, s.endTheta[1], 1)
				default:
					m = marginScaled(x, y, z, s.cPrev)
				}
			}
		}
		var wt float64
		if lab[k] > ly {
			wt = loss.MarginDeriv(m)
			if wt != 0 {
				nz++
			}
		}
		m = kernel.SyncLinear(z, bar, x, y, wt, c, a, b)
		if gossip {
			s.marg[k] = m
		}
		if !isFinite(m) && s.badShard[w].field == "" {
			s.badShard[w] = badNode{k, "z (dual variable)"}
		}
	}
	s.nzShard[w] += nz
}

// asyncFastEvent is event t on edge (i, j) with the linear fast path, run
// by worker w. The caller marks Theta stale (workers run events
// concurrently).
func (s *Sim) asyncFastEvent(i, j int, t int64, w int) (nonzero int64, bad int) {
	if s.cfg.Estimator == Gossip {
		return s.asyncGossipEvent(i, j, &s.evSc[w].EventScalars)
	}
	lab := s.prob.Label
	s.swapY(i, j)
	ends := [2]int{i, j}
	var ys [2][]float64
	var ms [2]float64
	var contrib [2]bool
	for e, k := range ends {
		var ly int32
		ys[e], ly = s.fastAux(k, t)
		if contrib[e] = lab[k] > ly; contrib[e] {
			ms[e] = marginScaled(s.X.Row(k), ys[e], s.Z.Row(k), s.ck[k])
		}
	}
	s.average(i, j)
	bad = -1
	for e, k := range ends {
		var wt float64
		if contrib[e] {
			wt = s.invP[k] * s.prob.Loss.MarginDeriv(ms[e])
			if wt != 0 {
				nonzero++
			}
		}
		c, a, b := s.tick(k)
		m := kernel.SyncLinear(s.Z.Row(k), s.ThetaBar.Row(k), s.X.Row(k), ys[e], wt, c, a, b)
		if !isFinite(m) && bad < 0 {
			bad = k
		}
	}
	return nonzero, bad
}

// tick advances node k's clock by one activation and returns its new
// scale c (θ_k = c·z_k) and the running-average weights a = 1 − 1/count,
// b = 1/count.
func (s *Sim) tick(k int) (c, a, b float64) {
	s.Count[k]++
	cnt := float64(s.Count[k])
	mk := cnt * s.invP[k]
	c = s.smoothScale(s.gamma(mk), mk)
	s.ck[k] = c
	return c, 1 - 1/cnt, 1 / cnt
}

// asyncGossipEvent is asyncFastEvent with the gossip estimator: the swap of
// y, both margins and the averaging of z in one pass (kernel.EventPre), and
// for the logistic loss the whole event in one call (kernel.EventLogistic,
// the exponentials of both endpoints side by side). The generic kernels
// are the arithmetic of the unbiased path above, operation for operation.
// sc is the calling worker's scratch.
func (s *Sim) asyncGossipEvent(i, j int, sc *kernel.EventScalars) (nonzero int64, bad int) {
	lab := s.prob.Label
	s.Y[i], s.Y[j] = s.Y[j], s.Y[i]
	s.ylab[i], s.ylab[j] = s.ylab[j], s.ylab[i]
	for e, k := range [2]int{i, j} {
		sc.CPrev[e], sc.P[e] = s.ck[k], 0
		if lab[k] > s.ylab[k] {
			sc.P[e] = s.invP[k]
		}
		sc.C[e], sc.A[e], sc.B[e] = s.tick(k)
	}
	xi, yi, zi, bi := s.X.Row(i), s.YX.Row(i), s.Z.Row(i), s.ThetaBar.Row(i)
	xj, yj, zj, bj := s.X.Row(j), s.YX.Row(j), s.Z.Row(j), s.ThetaBar.Row(j)
	var mask int
	if s.prob.Loss == problem.AUCLogistic {
		var nz int
		nz, mask = kernel.EventLogistic(xi, yi, zi, bi, xj, yj, zj, bj, sc)
		nonzero = int64(nz)
	} else {
		var m [2]float64
		m[0], m[1] = kernel.EventPre(xi, yi, zi, xj, yj, zj, sc.CPrev[0], sc.CPrev[1])
		rows := [2][4][]float64{{zi, bi, xi, yi}, {zj, bj, xj, yj}}
		for e, r := range rows {
			var w float64
			if sc.P[e] != 0 {
				w = sc.P[e] * s.prob.Loss.MarginDeriv(m[e])
				if w != 0 {
					nonzero++
				}
			}
			if m2 := kernel.SyncLinear(r[0], r[1], r[2], r[3], w, sc.C[e], sc.A[e], sc.B[e]); !isFinite(m2) {
				mask |= 1 << e
			}
		}
	}
	switch {
	case mask&1 != 0:
		return nonzero, i
	case mask&2 != 0:
		return nonzero, j
	}
	return nonzero, -1
}

// syncTheta rebuilds Theta from Z after fast-path iterations.
func (s *Sim) syncTheta() {
	if !s.thetaStale {
		return
	}
	s.thetaStale = false
	if s.cone != nil {
		s.coneTheta()
		return
	}
	for k := 0; k < s.Z.Rows; k++ {
		c := s.cPrev
		if s.ck != nil {
			c = s.ck[k]
		}
		kernel.Scale(s.Theta.Row(k), s.Z.Row(k), c)
	}
}

// restoreDerived rebuilds the state derived from Y, the clocks and t after a
// checkpoint is read: the copied auxiliary rows and labels, the per-node
// smoothing scales and the last round's scale.
func (s *Sim) restoreDerived() {
	if s.YX.Rows == s.prob.N {
		for k, j := range s.Y {
			copy(s.YX.Row(k), s.X.Row(int(j)))
			s.ylab[k] = s.prob.Label[j]
		}
	}
	if s.ck != nil {
		for k, cnt := range s.Count {
			s.ck[k] = 0
			if cnt > 0 {
				m := float64(cnt) * s.invP[k]
				s.ck[k] = s.smoothScale(s.cfg.Gamma(m), m)
			}
		}
	}
	if s.cone != nil {
		s.coneRestore()
	}
	s.cPrev = 0
	if s.t > 0 {
		s.cPrev = s.smoothScale(s.cfg.Gamma(float64(s.t)), float64(s.t))
	}
	s.thetaStale = false
}
