package engine

import (
	"unsafe"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
)

// The temporally blocked synchronous schedule (linear fast path).
//
// A round couples only the two endpoints of its edge; every other node's
// update depends on its own record alone. So within a block of B rounds,
// the nodes that no edge of the block touches evolve independently: each is
// advanced B rounds in a row while its record is in cache (one trip to
// memory per block instead of one per round), over the worker pool. The
// touched nodes (at most 2B) are then advanced round by round in event
// order, with the swaps and averagings of their edges. Every node sees
// exactly the operations of the plain schedule, in the same order: results
// are bit-identical.
//
// Under a network model (docs/networks.md) a block's activations are drawn
// ahead (beginNet: state.activations, in order of t); a round without an
// exchange (an endpoint offline, every message lost, no edge) touches no
// node, a round with one runs the plain schedule's netPre on its endpoints.
// Under churn an offline node is frozen in the rounds it is offline, in the
// untouched nodes' pass as among the touched ones, and an online one steps
// with its own count of online rounds c_k and θ = c_k·z_k with the c of its
// last step (exec_plain.go's churnShard). An adaptive picker (its edges
// read the state each round) and an edge sink run on the plain schedule.

// blockMax bounds the rounds of one block of the blocked schedule.
var blockMax = 64

// blockRounds picks B of the blocked schedule for a synchronous run on n
// nodes.
func blockRounds(n int) int {
	return max(1, min(blockMax, n/16))
}

func blockedFits(sh Shape, cfg Config, auto bool) error {
	return reasons(needAlgo(cfg, Sync), needLinear(sh), needBlocks(sh, auto), needBlockedNet(cfg))
}

// needBlockedNet is the blocked schedules' network rule: every model whose
// activations can be drawn a block ahead — not an adaptive picker's, whose
// edges read the state — and no edge sink.
func needBlockedNet(cfg Config) fitCheck {
	return fitCheck{netFits(cfg) || cfg.EdgeSink == nil && cfg.Network.Activation.Kind != network.ActAdaptive,
		"no adaptive picker and no edge sink (--write-edges; a block's edges are drawn ahead: the plain schedule runs them)"}
}

func blockedBytes(sh Shape, cfg Config, _ int) int64 {
	b := linearSyncBytes(sh, cfg) + syncBlockBytes(sh.N, blockRounds(sh.N))
	if !cfg.Network.IsPerfect() {
		b += int64(blockRounds(sh.N)) // a block's flags
	}
	return b
}

// syncBlock is one block of rounds: its edges, the coefficients of each
// round, and which nodes its edges touch.
type syncBlock struct {
	edges   [][2]int32
	coef    []roundCoef
	stamp   []uint32 // per node: gen when touched in the current block
	gen     uint32
	touched []int32
	pf      [2]uintptr // begin's prefetch addresses
	rounds  int        // B of the current block
	maxB    int        // the largest B
	t0      int64      // iterations done before the block
	// fl[r−1] is round r's activation flags under a network model
	// (beginNet; nil otherwise).
	fl []uint8
}

// newSyncBlock allocates the blocks of a run on n nodes, of at most maxB
// rounds each.
func newSyncBlock(n, maxB int) *syncBlock {
	return &syncBlock{
		maxB:    maxB,
		edges:   make([][2]int32, maxB),
		touched: make([]int32, 0, 2*maxB),
		coef:    make([]roundCoef, maxB+1),
		stamp:   make([]uint32, n),
	}
}

func syncBlockBytes(n, maxB int) int64 { return int64(n)*4 + int64(maxB)*(8+8+32) }

// begin starts a block of at most stop − s.t rounds after the rounds of l:
// it draws the block's edges from the stream, marks their endpoints as
// touched (a new generation of stamps; clearOnWrap is also cleared when the
// stamps wrap) and computes each round's coefficients. It returns B.
func (bl *syncBlock) begin(l *linearSync, stop int64, clearOnWrap []uint32) int {
	s := l.s
	B := int(min(int64(bl.maxB), stop-s.t))
	bl.rounds, bl.t0 = B, s.t
	bl.gen++
	if bl.gen == 0 {
		clear(bl.stamp)
		clear(clearOnWrap)
		bl.gen = 1
	}
	bl.touched = bl.touched[:0]
	bl.coef[0] = roundCoef{c: l.cPrev}
	// The edges first, all their indices drawn before the edge list is
	// read (drawEdges: the same draws as drawEdge's, the list's random
	// reads overlapping instead of each waiting behind the next draw).
	s.drawEdges(unsafe.Slice(&bl.edges[0][0], 2*B))
	// The stamps of the endpoints blockStampAhead rounds on are asked for
	// ahead when they outgrow the L2 cache: the random reads then overlap
	// instead of each waiting in turn behind the loop's branch.
	pfOn := len(bl.stamp)*4 > kernel.CacheL2()
	for r := 1; r <= B; r++ {
		if ra := r + blockStampAhead; pfOn && ra <= B {
			e := bl.edges[ra-1]
			bl.pf[0], bl.pf[1] = uintptr(unsafe.Pointer(&bl.stamp[e[0]])), uintptr(unsafe.Pointer(&bl.stamp[e[1]]))
			kernel.Prefetch(bl.pf[:])
		}
		for _, k := range bl.edges[r-1] {
			if bl.stamp[k] != bl.gen {
				bl.stamp[k] = bl.gen
				bl.touched = append(bl.touched, k)
			}
		}
		tf := float64(s.t + int64(r))
		g := s.cfg.Gamma(tf)
		bl.coef[r] = roundCoef{c: s.linearScale(g, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: bl.coef[r-1].c}
	}
	return B
}

// beginNet is begin under a network model: the block's activations from
// state.activations (the counters and the churn cursors in order of t); a
// round without an exchange (no edge, an endpoint offline, every message
// lost) gets the edge (−1, −1) and touches no node.
func (bl *syncBlock) beginNet(l *linearSync, stop int64) (int, error) {
	s := l.s
	B := int(min(int64(bl.maxB), stop-s.t))
	if bl.fl == nil {
		bl.fl = make([]uint8, bl.maxB)
	}
	if err := s.drawBlock(B, bl.edges, bl.fl, &bl.gen, bl.stamp); err != nil {
		return 0, err
	}
	bl.rounds, bl.t0, bl.touched = B, s.t, bl.touched[:0]
	bl.coef[0] = roundCoef{c: l.cPrev}
	for r := 1; r <= B; r++ {
		if f := bl.fl[r-1]; f&actOnline == 0 || f&actBoth == 0 {
			bl.edges[r-1] = [2]int32{-1, -1}
		} else {
			for _, k := range bl.edges[r-1] {
				if bl.stamp[k] != bl.gen {
					bl.stamp[k] = bl.gen
					bl.touched = append(bl.touched, k)
				}
			}
		}
		tf := float64(s.t + int64(r))
		g := s.cfg.Gamma(tf)
		bl.coef[r] = roundCoef{c: s.linearScale(g, tf), a: 1 - 1/tf, b: 1 / tf, cPrev: bl.coef[r-1].c}
	}
	return B, nil
}

// blockStampAhead is how many rounds ahead begin asks for the stamps of a
// round's endpoints.
const blockStampAhead = 16

// blockedExec is the blocked schedule.
type blockedExec struct {
	*linearSync
	bl *syncBlock
	fn func(w int, r layout.Range, tk *task) // shard, bound once
}

func newBlockedExec(s *state, cr *crew) executor {
	e := &blockedExec{linearSync: newLinearSync(s, cr), bl: newSyncBlock(s.rows(), blockRounds(s.rows()))}
	e.fn = e.shard
	return e
}

// advance runs one block of rounds, at most stop − s.t.
func (e *blockedExec) advance(stop int64) error {
	s, bl := e.s, e.bl
	e.cr.sw.start(false)
	defer e.cr.sw.lap(PhaseSerial)
	if s.net != nil {
		return e.netAdvance(stop)
	}
	B := bl.begin(e.linearSync, stop, nil)
	// Untouched nodes: B rounds each, in parallel.
	e.cr.pass(s.prob.N*s.prob.P*B >= poolMinWork, e.fn, task{}, s.prob.N)
	// Touched nodes: round by round, in event order.
	nonzero, first := e.cr.workers()
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		e.cPrev = bl.coef[r].cPrev
		e.pre(i, j)
		for _, k32 := range bl.touched {
			k := int(k32)
			nz, ok := e.nodeRound(k, t, bl.coef[r], e.endTh(k, i, j))
			if nz {
				nonzero++
			}
			if !ok {
				first.note(t, k, "")
			}
		}
		// As the plain schedule, stop at the end of the round of the first
		// divergence: the diverged node's state is then the plain
		// schedule's, and so is the field the report names.
		if first.found() && first.t <= t {
			break
		}
	}
	e.cPrev = bl.coef[B].c
	return s.endIters(bl.t0, bl.t0+int64(B), int64(s.prob.N), nonzero, first)
}

// shard advances the untouched nodes of shard rg through the block (under
// churn, in the rounds each is online).
func (e *blockedExec) shard(w int, rg layout.Range, _ *task) {
	bl := e.bl
	s := e.s
	churn := s.nx != nil && s.nx.cNode != nil
	var nz, evals int64
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue
		}
		for r := 1; r <= bl.rounds; r++ {
			t := bl.t0 + int64(r)
			var c, ok bool
			if churn {
				if !s.net.Online(k, t) {
					continue
				}
				evals++
				c, ok = e.churnRound(k, t, r, nil)
			} else {
				c, ok = e.nodeRound(k, t, bl.coef[r], nil)
			}
			if c {
				nz++
			}
			if !ok {
				e.cr.bad[w].note(t, k, "")
				break
			}
		}
	}
	e.cr.nz[w] += nz
	if churn {
		s.nx.evals[w] += evals
	}
}

// netAdvance is advance under a network model: the block drawn by
// beginNet, the rounds' exchanges through netPre, and under churn only the
// online nodes stepping (churnRound).
func (e *blockedExec) netAdvance(stop int64) error {
	s, bl, nx := e.s, e.bl, e.s.nx
	B, err := bl.beginNet(e.linearSync, stop)
	if err != nil {
		return err
	}
	e.cr.pass(s.prob.N*s.prob.P*B >= poolMinWork, e.fn, task{}, s.prob.N)
	nonzero, first := e.cr.workers()
	var evals int64
	for r := 1; r <= B; r++ {
		t := bl.t0 + int64(r)
		i, j := int(bl.edges[r-1][0]), int(bl.edges[r-1][1])
		e.cPrev = bl.coef[r].cPrev
		if i >= 0 {
			e.netPre(i, j, bl.fl[r-1])
		}
		for _, k32 := range bl.touched {
			k := int(k32)
			var nz, ok bool
			if nx.cNode != nil {
				if !s.net.Online(k, t) {
					continue
				}
				evals++
				nz, ok = e.churnRound(k, t, r, e.endTh(k, i, j))
			} else {
				nz, ok = e.nodeRound(k, t, bl.coef[r], e.endTh(k, i, j))
			}
			if nz {
				nonzero++
			}
			if !ok {
				first.note(t, k, "")
			}
		}
		if first.found() && first.t <= t {
			break
		}
	}
	e.cPrev = bl.coef[B].c
	per := int64(s.prob.N)
	if nx.cNode != nil {
		per = 0
		for w, v := range nx.evals {
			evals += v
			nx.evals[w] = 0
		}
		s.gradEvals += evals
	}
	return s.endIters(bl.t0, bl.t0+int64(B), per, nonzero, first)
}

// churnRound is node k's update in round r of the block under churn (it is
// online): its count of online rounds c_k, θ = c·z_k with the c of its
// last step before, and that c kept (exec_plain.go's churnShard).
func (e *blockedExec) churnRound(k int, t int64, r int, endTh []float64) (nonzero, ok bool) {
	nx := e.s.nx
	nx.rounds[k]++
	cnt := float64(nx.rounds[k])
	c := e.bl.coef[r].c
	nonzero, ok = e.nodeRound(k, t, roundCoef{c: c, a: 1 - 1/cnt, b: 1 / cnt, cPrev: nx.cNode[k]}, endTh)
	nx.cNode[k] = c
	return nonzero, ok
}
