// Package netchunk is the bookkeeping of the reduced synchronous schedule
// under a network model (docs/networks.md; engine/network_reduced.go): a
// node's segment between two touches cut into online pieces under churn,
// the chunks of untouched nodes walked piece by piece through a block, and
// the touched slots' switches by round. The engine's reduced executor and
// its form over MPI ranks (package ranks) both run it, so that the two
// stay one arithmetic, bit for bit; what a node's record is, where its
// rows live and what becomes of a non-finite margin is the caller's.
package netchunk

import "github.com/pairgossip/pairgossip/internal/redpack"

// Seg is a node's segment: S0 = δᵀz₀, Q = δᵀδ, W, H = Σ c_r W_r and
// Cs = Σ c_r over its online rounds so far, its next margin M, C0 its
// online rounds before the segment and On those in it; A is the block
// round its current online piece began (0: none open), Last its last
// online round in the block (0: none).
type Seg struct {
	S0, Q, W, H, Cs, M float64
	C0, On             int64
	A, Last            int32
}

// Start starts the count of a segment with margin m after c0 online rounds
// (S0 and Q as they were).
func (sg *Seg) Start(c0 int64, m float64) {
	sg.W, sg.H, sg.Cs, sg.M, sg.C0, sg.On = 0, 0, 0, m, c0, 0
}

// Open starts a segment from s₀ and q.
func (sg *Seg) Open(s0, q float64, c0 int64, m float64) {
	sg.S0, sg.Q = s0, q
	sg.Start(c0, m)
}

// Flush ends the segment's count and starts the next one's: on is its
// online rounds (0: offline throughout, nothing to write), and the
// record's update is θ̄ ← al·θ̄ + be·z, then unless avg z += W·δ with
// weight eta (redpack.Average, redpack.Write).
func (sg *Seg) Flush() (on int64, al, be, W, eta float64, avg bool) {
	on = sg.On
	if on == 0 {
		return 0, 0, 0, 0, 0, false
	}
	cEnd := sg.C0 + on
	f := float64(cEnd)
	al, be, W, eta, avg = float64(sg.C0)/f, sg.Cs/f, sg.W, sg.H/f, sg.W == 0 && sg.H == 0
	sg.C0, sg.On, sg.W, sg.H, sg.Cs = cEnd, 0, 0, 0, 0
	return on, al, be, W, eta, avg
}

// Block is the block under way: its first clock T0 (rounds T0+1 … T0+B)
// and CSum[r] = c_1 + … + c_r over its rounds.
type Block struct {
	T0   int64
	B    int
	CSum []float64
}

// Close ends the online piece of sg after block round b with the pack's
// W, η and margin.
func (bk *Block) Close(sg *Seg, W, eta, m float64, b int) {
	sg.W, sg.M = W, m
	if a := int(sg.A); b >= a {
		sg.H += eta * float64(bk.T0+int64(b))
		sg.Cs += bk.CSum[b] - bk.CSum[a-1]
		sg.On += int64(b - a + 1)
		sg.Last = int32(b)
	}
	sg.A = 0
}

// Join opens entry sl's online piece at block round r, in the pack p if
// it contributes.
func Join(p *redpack.Pack, sl int, sg *Seg, r int, contrib bool) {
	sg.A = int32(r)
	if contrib {
		p.Add(int32(sl), sg.S0, sg.Q, sg.W, 0, sg.M)
	}
}

// Leave closes entry sl's online piece, if one is open, after block round
// b, taking it out of the pack p (whose Pos is set) if it is there.
func (bk *Block) Leave(p *redpack.Pack, sl int, sg *Seg, b int) {
	if i := int(p.Pos[sl]) - 1; i >= 0 {
		bk.Close(sg, p.W[i], p.Eta[i], p.M[i], b)
		p.Remove(i)
	} else if sg.A > 0 {
		bk.Close(sg, sg.W, 0, sg.M, b)
	}
}

// Host is what a chunk's walk asks of its caller about node k.
type Host interface {
	// Node reports whether node k contributes, its online rounds before
	// the block and its margin.
	Node(k int) (contrib bool, c0 int64, m float64)
	// Segment returns s₀ = δᵀz and q = δᵀδ from node k's record.
	Segment(k int) (s0, q float64)
	// Pieces is Net.Pieces: node k's online pieces within clocks lo …
	// hi, appended to dst as first and last clock.
	Pieces(k int, lo, hi int64, dst []int64) []int64
	// OnlineSum is Net.OnlineSum: node k's online clocks within lo … hi,
	// Σ prefix[b−lo+1] − prefix[a−lo] over its online pieces [a, b] (in
	// their order, from 0) and its last online clock less lo − 1 (0:
	// none) — what successive Closes of a segment that does not
	// contribute (W = η = 0) add up over those pieces, with prefix the
	// block's CSum (TestQuietIsClose).
	OnlineSum(k int, lo, hi int64, prefix []float64) (on int64, sum float64, last int64)
	// Round advances p through block round r (entry i is node
	// nodes[p.Act[i]]) and returns its non-zero gradients.
	Round(p *redpack.Pack, r int, nodes []int32) int64
	// End writes node k's segment into its record at the block's end.
	End(k int, sg *Seg)
}

// Chunk is a worker's chunk of untouched nodes: the contributing ones
// (Nodes, the segments Segs), the pack of those that are online (Act: the
// index in the chunk), and the joins and leaves of their online pieces
// bucketed by round (head[r]: the first event of round r, −1 none; nxt
// chains them; ev: index<<1 | 1 for a join). A node that does not
// contribute never enters it: Add walks it through the block at once.
type Chunk struct {
	Nodes []int32
	Segs  []Seg
	Pk    redpack.Pack
	nc    Seg     // a non-contributing node's segment (Add)
	pcs   []int64 // a node's online pieces (walk)
	head  []int32
	used  []int32
	ev    []int32
	nxt   []int32
}

// NewChunk returns an empty chunk of size contributing nodes for blocks of
// at most B rounds.
func NewChunk(size, B int) Chunk {
	c := Chunk{Nodes: make([]int32, 0, size), Segs: make([]Seg, size), Pk: redpack.New(size)}
	c.Pk.Pos = make([]int32, size)
	c.head = make([]int32, B+2)
	for r := range c.head {
		c.head[r] = -1
	}
	c.used = make([]int32, 0, B+2)
	c.ev, c.nxt = make([]int32, 0, 8*size), make([]int32, 0, 8*size)
	c.pcs = make([]int64, 0, 16)
	return c
}

// Add takes untouched node k through the block bk: one that does not
// contribute only averages θ̄ over its online rounds, at once (h.End); a
// contributing one joins the chunk, whose pack then runs when it holds as
// many as it has room for (Run). Add returns the non-zero gradients of a
// run it made. The pack is full of contributing nodes each time it runs,
// however few of the nodes contribute (the kernel's time a node and round
// is lowest on full packs: exec_reduced.go, reducedChunk).
func (c *Chunk) Add(h Host, bk *Block, k int) int64 {
	contrib, c0, m := h.Node(k)
	if contrib {
		x := len(c.Nodes)
		c.Nodes = append(c.Nodes, int32(k))
		sg := &c.Segs[x]
		sg.A, sg.Last = 0, 0
		s0, q := h.Segment(k)
		sg.Open(s0, q, c0, m)
		c.walk(h, bk, k, x)
		if len(c.Nodes) == len(c.Segs) {
			return c.Run(h, bk)
		}
		return 0
	}
	sg := &c.nc
	sg.A = 0
	sg.Start(c0, m)
	var last int64
	sg.On, sg.Cs, last = h.OnlineSum(k, bk.T0+1, bk.T0+int64(bk.B), bk.CSum)
	sg.Last = int32(last)
	h.End(k, sg)
	return 0
}

// walk cuts contributing node k's block into its online pieces (h.Pieces)
// and notes their joins and leaves for entry x (a node that does not
// contribute takes h.OnlineSum's sums instead: Add).
func (c *Chunk) walk(h Host, bk *Block, k, x int) {
	B, t0 := bk.B, bk.T0
	c.pcs = h.Pieces(k, t0+1, t0+int64(B), c.pcs[:0])
	for i := 0; i+1 < len(c.pcs); i += 2 {
		a, b := int(c.pcs[i]-t0), int(c.pcs[i+1]-t0)
		c.event(a, x, true)
		if b < B {
			c.event(b+1, x, false)
		}
	}
}

// event notes entry x's join (or leave) at block round r.
func (c *Chunk) event(r, x int, join bool) {
	if c.head[r] < 0 {
		c.used = append(c.used, int32(r))
	}
	v := int32(x << 1)
	if join {
		v |= 1
	}
	c.ev, c.nxt = append(c.ev, v), append(c.nxt, c.head[r])
	c.head[r] = int32(len(c.ev) - 1)
}

// Run advances the chunk's contributing nodes through the block bk, each
// in the pack over its online pieces, writes them (h.End) and empties the
// chunk. It returns the non-zero gradients.
func (c *Chunk) Run(h Host, bk *Block) (nz int64) {
	B := bk.B
	p := &c.Pk
	for r := 1; r <= B; r++ {
		for v := c.head[r]; v >= 0; v = c.nxt[v] {
			x := int(c.ev[v] >> 1)
			sg := &c.Segs[x]
			if c.ev[v]&1 != 0 {
				Join(p, x, sg, r, true)
				continue
			}
			i := int(p.Pos[x]) - 1
			bk.Close(sg, p.W[i], p.Eta[i], p.M[i], r-1)
			p.Remove(i)
		}
		if len(p.M) > 0 {
			nz += h.Round(p, r, c.Nodes)
		}
	}
	for i, x := range p.Act {
		bk.Close(&c.Segs[x], p.W[i], p.Eta[i], p.M[i], B)
		p.Pos[x] = 0
	}
	p.Reset()
	for x, k := range c.Nodes {
		h.End(int(k), &c.Segs[x])
	}
	for _, r := range c.used {
		c.head[r] = -1
	}
	c.used, c.ev, c.nxt, c.Nodes = c.used[:0], c.ev[:0], c.nxt[:0], c.Nodes[:0]
	return nz
}

// Slots is the block's touched nodes (at most 2B, by slot): their
// segments and their switches by round (head[r]: the first slot whose
// state may change at block round r, −1 none; nxt chains them).
type Slots struct {
	Segs      []Seg
	head, nxt []int32
}

// NewSlots returns the slots of blocks of at most B rounds.
func NewSlots(B int) Slots {
	return Slots{Segs: make([]Seg, 2*B), head: make([]int32, B+2), nxt: make([]int32, 2*B)}
}

// Reset empties the switches of a block of B rounds.
func (s *Slots) Reset(B int) {
	for r := range s.head[:B+2] {
		s.head[r] = -1
	}
}

// chain notes that slot sl's state may next change at clock end (after
// the block: not noted).
func (s *Slots) chain(sl int, end int64, bk *Block) {
	if end-bk.T0 <= int64(bk.B) {
		r := int(end - bk.T0)
		s.nxt[sl], s.head[r] = s.head[r], int32(sl)
	}
}

// Begin opens slot sl's segment at the block's start from s₀, q, c0 and
// margin m, joins it if it is online (on, until clock end) at the first
// round and chains its next switch.
func (s *Slots) Begin(sl int, bk *Block, p *redpack.Pack, s0, q float64, c0 int64, m float64, on bool, end int64, contrib bool) {
	sg := &s.Segs[sl]
	sg.A, sg.Last = 0, 0
	sg.Open(s0, q, c0, m)
	if on {
		Join(p, sl, sg, 1, contrib)
	}
	s.chain(sl, end, bk)
}

// Wake switches the slots chained at block round r: span(sl, t) is
// Net.Span of slot sl's node, contrib(sl) whether it contributes.
func (s *Slots) Wake(r int, bk *Block, p *redpack.Pack, span func(sl int, t int64) (bool, int64), contrib func(sl int) bool) {
	for sl := s.head[r]; sl >= 0; {
		next := s.nxt[sl]
		sg := &s.Segs[sl]
		on, end := span(int(sl), bk.T0+int64(r))
		switch {
		case on && sg.A == 0:
			Join(p, int(sl), sg, r, contrib(int(sl)))
		case !on && sg.A > 0:
			bk.Leave(p, int(sl), sg, r-1)
		}
		s.chain(int(sl), end, bk)
		sl = next
	}
}
