package engine

import (
	"unsafe"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
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

// blockMax bounds the rounds of one block of the blocked schedule.
var blockMax = 64

// blockRounds picks B of the blocked schedule for a synchronous run on n
// nodes.
func blockRounds(n int) int {
	return max(1, min(blockMax, n/16))
}

func blockedFits(sh Shape, cfg Config, auto bool) error {
	return reasons(needAlgo(cfg, Sync), needLinear(sh), needBlocks(sh, auto), needPerfectNet(cfg))
}

func blockedBytes(sh Shape, cfg Config, _ int) int64 {
	return linearSyncBytes(sh, cfg) + syncBlockBytes(sh.N, blockRounds(sh.N))
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

// shard advances the untouched nodes of shard rg through the block.
func (e *blockedExec) shard(w int, rg layout.Range, _ *task) {
	bl := e.bl
	var nz int64
	for k := rg.Lo; k < rg.Hi; k++ {
		if bl.stamp[k] == bl.gen {
			continue
		}
		for r := 1; r <= bl.rounds; r++ {
			t := bl.t0 + int64(r)
			c, ok := e.nodeRound(k, t, bl.coef[r], nil)
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
}
