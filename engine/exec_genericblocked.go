package engine

import (
	"github.com/pairgossip/pairgossip/layout"
)

// The temporally blocked synchronous schedule for a user objective
// (problem.Custom, a problem.Objective the engine does not know), the
// counterpart of exec_blocked.go for the generic executor of
// exec_generic.go.
//
// A round couples only the two endpoints of its edge; every other node's
// update depends on its own record (z_k, θ̄_k, x_k, its fixed y_k) and its
// clock alone. So within a block of B rounds the nodes that no edge of the
// block touches evolve independently: each does its B gradient steps in a
// row while its record is in cache, over the worker pool's shards. The
// touched nodes (at most 2B) then follow round by round in event order,
// with the averagings and swaps of their edges, as the plain schedule runs
// them.
//
// Every node performs the generic plain schedule's operations in the same
// order (Regularizer.Smooth, the objective's Grad, avg), so the results are
// bit-identical to it, hence to the built-in reference for a loss that does
// the built-in's arithmetic. One thing is saved besides memory traffic: an
// untouched node's θ at the start of round t is π_{t−1}(z_k) with the z_k it
// had at the end of round t − 1, which is exactly the θ that round computed
// for θ̄; the plain schedule recomputes it (it does not keep θ), the block
// reuses it. Regularizer.Smooth is a function of (z, γ, t) only, so the bits
// are the same.
//
// All of a block runs within one call of advance: nothing of it outlives
// the call, so the executor adds no checkpoint section (the generic
// executor's are empty) and a checkpoint taken between blocks resumes
// bit-identically.
//
// Under a network model (docs/networks.md; not churn nor delays, nor an
// adaptive picker or an edge sink, needBlockedNet) a block's activations are drawn ahead
// (state.activations); a round without an exchange touches no node, one
// with an exchange applies its deliveries (state.netExchange).

// genericBlockedFits: a user objective with a separable ψ on the
// synchronous algorithm; auto takes it when a block has more than one
// round (n ≥ 32), as for the built-in blocked schedule.
func genericBlockedFits(sh Shape, cfg Config, auto bool) error {
	return reasons(needAlgo(cfg, Sync), needCustom(sh), needBlocks(sh, auto), needGenericNet(cfg), needBlockedNet(cfg),
		fitCheck{cfg.Network.Churn.Dist == "", "no churn (the generic schedule runs it: θ_k of an offline node kept per node)"})
}

func genericBlockedBytes(sh Shape, cfg Config, workers int) int64 {
	b := genericBytes(sh, cfg, workers) + genericBlockBytes(sh.N, blockRounds(sh.N))
	if !cfg.Network.IsPerfect() {
		b += int64(blockRounds(sh.N)) // a block's flags
	}
	return b
}

// genericBlock is one block of rounds: its edges, γ of each round, and
// which nodes its edges touch.
type genericBlock struct {
	edges   [][2]int32
	gamma   []float64 // gamma[r] = γ(t0 + r), r = 0..B (gamma[0] unused when t0 = 0)
	stamp   []uint32  // per node: gen when touched in the current block
	gen     uint32
	touched []int32
	rounds  int   // B of the current block
	t0      int64 // iterations done before the block
	// fl[r−1] is round r's activation flags under a network model (nil
	// otherwise); its edge is (−1, −1) when it has no exchange.
	fl []uint8
}

func newGenericBlock(n, maxB int) *genericBlock {
	return &genericBlock{
		edges:   make([][2]int32, maxB),
		gamma:   make([]float64, maxB+1),
		stamp:   make([]uint32, n),
		touched: make([]int32, 0, 2*maxB),
	}
}

// genericBlockBytes is what newGenericBlock allocates: the stamps, and per
// round of the largest block an edge, a γ and two touched slots.
func genericBlockBytes(n, maxB int) int64 {
	return int64(n)*4 + int64(maxB)*(8+8+8) + 8
}

// genericBlockedExec is the blocked schedule for a user objective.
type genericBlockedExec struct {
	*genericExec
	bl *genericBlock
	fn func(w int, r layout.Range, tk *task) // untouched, bound once
}

func newGenericBlockedExec(s *state, cr *crew) executor {
	e := &genericBlockedExec{
		genericExec: newGeneric(s, cr),
		bl:          newGenericBlock(s.rows(), blockRounds(s.rows())),
	}
	e.fn = e.untouched
	return e
}

// begin starts a block of at most stop − s.t rounds: it draws the block's
// edges from the stream (in the order the plain schedule draws them), marks
// their endpoints as touched and evaluates each round's γ. It returns B.
func (e *genericBlockedExec) begin(stop int64) int {
	s, bl := e.s, e.bl
	B := int(min(int64(len(bl.edges)), stop-s.t))
	bl.rounds, bl.t0 = B, s.t
	bl.gen++
	if bl.gen == 0 {
		clear(bl.stamp)
		bl.gen = 1
	}
	bl.touched = bl.touched[:0]
	if s.t > 0 {
		bl.gamma[0] = s.cfg.Gamma(float64(s.t))
	}
	for r := 1; r <= B; r++ {
		i, j := s.drawEdge()
		bl.edges[r-1] = [2]int32{int32(i), int32(j)}
		bl.touch(i, j)
		bl.gamma[r] = s.cfg.Gamma(float64(s.t + int64(r)))
	}
	return B
}

// touch marks i and j as touched in the current block.
func (bl *genericBlock) touch(i, j int) {
	for _, k := range [2]int{i, j} {
		if bl.stamp[k] != bl.gen {
			bl.stamp[k] = bl.gen
			bl.touched = append(bl.touched, int32(k))
		}
	}
}

// beginNet is begin under a network model: the block's activations
// (state.activations, in order of t); a round without an exchange gets the
// edge (-1, -1) and touches no node.
func (e *genericBlockedExec) beginNet(stop int64) (int, error) {
	s, bl := e.s, e.bl
	B := int(min(int64(len(bl.edges)), stop-s.t))
	if bl.fl == nil {
		bl.fl = make([]uint8, len(bl.edges))
	}
	if err := s.drawBlock(B, bl.edges, bl.fl, &bl.gen, bl.stamp); err != nil {
		return 0, err
	}
	bl.rounds, bl.t0, bl.touched = B, s.t, bl.touched[:0]
	if s.t > 0 {
		bl.gamma[0] = s.cfg.Gamma(float64(s.t))
	}
	for r := 1; r <= B; r++ {
		if f := bl.fl[r-1]; f&actOnline == 0 || f&actBoth == 0 {
			bl.edges[r-1] = [2]int32{-1, -1}
		} else {
			bl.touch(int(bl.edges[r-1][0]), int(bl.edges[r-1][1]))
		}
		bl.gamma[r] = s.cfg.Gamma(float64(s.t + int64(r)))
	}
	return B, nil
}

// advance runs one block of rounds, at most stop − s.t.
func (e *genericBlockedExec) advance(stop int64) error {
	s, bl := e.s, e.bl
	e.cr.sw.start(false)
	defer e.cr.sw.lap(PhaseSerial)
	var B int
	if s.net != nil {
		var err error
		if B, err = e.beginNet(stop); err != nil {
			return err
		}
	} else {
		B = e.begin(stop)
	}
	// Untouched nodes: B rounds each, in parallel where the plain schedule
	// runs a round in parallel (once a block instead of once a round; a
	// block of a few rounds of a small problem is not worth a barrier:
	// BenchmarkGenericBlockedSmall, bench/results/generic.md).
	e.cr.pass(s.prob.N*s.prob.P >= poolMinWork, e.fn, task{}, s.prob.N)
	nonzero, first := e.cr.workers()
	// Touched nodes: round by round, in event order, as the plain schedule
	// does (exec_generic.go: the endpoints' θ from z before the averaging,
	// then the averaging, the swap of y, and every touched node's step).
	prev, cur := e.th[0].Row(0), e.th[0].Row(1)
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		tp := float64(t - 1)
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		if i >= 0 { // (−1, −1): a round without an exchange (network model)
			e.smoothAt(e.endPrev[0], s.Z.Row(i), tp, 0)
			e.smoothAt(e.endPrev[1], s.Z.Row(j), tp, 0)
			if bl.fl != nil {
				s.netExchange(i, j, bl.fl[r-1])
			} else {
				s.exchange(i, j)
			}
		}
		for _, k32 := range bl.touched {
			k := int(k32)
			th := prev
			switch k {
			case i:
				th = e.endPrev[0]
			case j:
				th = e.endPrev[1]
			default:
				e.smoothAt(prev, s.Z.Row(k), tp, 0)
			}
			nz, ok := e.step(0, k, t, bl.gamma[r], th, cur)
			if nz {
				nonzero++
			}
			if !ok {
				first.note(t, k, "")
			}
		}
		// As the plain schedule, stop at the end of the round of the first
		// divergence: the diverged node's z is then the plain schedule's,
		// and so is the field the report names.
		if first.found() && first.t <= t {
			break
		}
	}
	return s.endIters(bl.t0, bl.t0+int64(B), int64(s.prob.N), nonzero, first)
}

// step is node k's update of round t with step γ, as worker w, at θ = th
// (its θ of round t − 1): z_k += ∇f(th; x_k, y_k), cur = π_t(z_k),
// θ̄_k ← (1 − 1/t)θ̄_k + cur/t — the generic plain schedule's shard, node by
// node. It reports whether the gradient was non-zero and whether θ̄_k stayed
// finite.
func (e *genericBlockedExec) step(w, k int, t int64, gamma float64, th, cur []float64) (nonzero, ok bool) {
	s := e.s
	p := s.prob
	tf := float64(t)
	z := s.Z.Row(k)
	j, y, ly := s.auxPoint(k, t)
	nonzero = e.obj.Contributes(p.Label[k], ly) && e.obj.Grad(z, 1, th, s.X.Row(k), y, k, j)
	p.Reg.Smooth(cur, z, gamma, tf, e.cr.ws[w])
	bar := s.ThetaBar.Row(k)
	avg(bar, cur, tf)
	return nonzero, finite(bar)
}

// untouched advances the untouched nodes of shard rg through the block, as
// worker w. θ after round t is θ before round t + 1: the two rows swap.
func (e *genericBlockedExec) untouched(w int, rg layout.Range, _ *task) {
	s, bl := e.s, e.bl
	rows := e.th[w]
	t0 := float64(bl.t0)
	var nz int64
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue
		}
		prev, cur := rows.Row(0), rows.Row(1)
		if bl.t0 == 0 {
			clear(prev)
		} else {
			s.prob.Reg.Smooth(prev, s.Z.Row(k), bl.gamma[0], t0, e.cr.ws[w])
		}
		for r := 1; r <= bl.rounds; r++ {
			t := bl.t0 + int64(r)
			c, ok := e.step(w, k, t, bl.gamma[r], prev, cur)
			if c {
				nz++
			}
			if !ok {
				e.cr.bad[w].note(t, k, "")
				break
			}
			prev, cur = cur, prev
		}
	}
	e.cr.nz[w] += nz
}
