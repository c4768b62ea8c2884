package ranks

import (
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"slices"
	"sort"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/mpi"
)

// Tags of the set-up's point-to-point messages (the graph's cross-rank
// ends).
const (
	tagCrossLen = 17001
	tagCross    = 17002
	tagShareLen = 17003
	tagShare    = 17004
)

// drawShare draws this rank's share of the graph (graph.Partial: the edges
// whose lower end it owns, the graph's edge list order), attempt after
// attempt until the whole graph is connected — the check made over the
// ranks (shareStats) — as one process's generator does: the same edges,
// the same Tries. It sets the rank's edges and returns the graph's
// description and warnings.
func (l *local) drawShare(part *graph.Partial) (*output.GraphInfo, []string, error) {
	size := l.comm.Size()
	bounds := make([]int, size+1)
	for r := range size {
		bounds[r], _ = partition(l.n, size, r)
	}
	bounds[size] = l.n
	for t := range graph.MaxTries {
		edges, err := part.Draw(t, bounds, l.comm.Rank(), drawComm{l})
		if err != nil {
			return nil, nil, err
		}
		st, err := l.shareStats(edges)
		if err != nil {
			return nil, nil, err
		}
		if st.comps != 1 {
			continue
		}
		if err := l.setEdges(edges, -1); err != nil {
			return nil, nil, err
		}
		gi := &output.GraphInfo{Name: part.Name, Kind: part.Kind, N: l.n, UndirectedEdges: l.eStart[len(l.eStart)-1],
			MinDegree: st.minDeg, MaxDegree: st.maxDeg, Tries: t + 1}
		var warn []string
		if st.bipartite {
			warn = append(warn, graph.BipartiteWarning)
		}
		return gi, warn, nil
	}
	return nil, nil, part.NoneConnected()
}

// drawComm is graph.Partial's collectives over the ranks.
type drawComm struct{ l *local }

func (c drawComm) Allgather(mine []int64) ([]int64, error) { return c.l.allgatherInt64(mine) }

// Exchange sends out[s] to rank s and returns what the others sent this
// rank (in rank order): pair after pair in one order, the lower rank of a
// pair sending first (no deadlock), each list preceded by its length.
func (c drawComm) Exchange(out [][]int64) ([]int64, error) {
	comm := c.l.comm
	size, me := comm.Size(), comm.Rank()
	got := make([][]int64, size)
	send := func(to int) error {
		if err := comm.SendInt64([]int64{int64(len(out[to]))}, to, tagShareLen); err != nil {
			return err
		}
		if len(out[to]) == 0 {
			return nil
		}
		return comm.SendInt64(out[to], to, tagShare)
	}
	recv := func(from int) error {
		ln := []int64{0}
		if err := comm.RecvInt64(ln, from, tagShareLen); err != nil {
			return err
		}
		if ln[0] == 0 {
			return nil
		}
		got[from] = make([]int64, ln[0])
		return comm.RecvInt64(got[from], from, tagShare)
	}
	for a := 0; a < size; a++ {
		for b := a + 1; b < size; b++ {
			var err error
			switch me {
			case a:
				if err = send(b); err == nil {
					err = recv(b)
				}
			case b:
				if err = recv(a); err == nil {
					err = send(a)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return slices.Concat(got...), nil
}

// allgatherInt64 concatenates the ranks' slices in rank order, on every
// rank.
func (l *local) allgatherInt64(mine []int64) ([]int64, error) {
	size := l.comm.Size()
	ones := make([]int, size)
	for i := range ones {
		ones[i] = 1
	}
	counts := make([]int64, size)
	if err := l.comm.AllgathervInt64([]int64{int64(len(mine))}, ones, counts); err != nil {
		return nil, err
	}
	cs := make([]int, size)
	total := 0
	for r, c := range counts {
		cs[r] = int(c)
		total += cs[r]
	}
	all := make([]int64, total)
	if err := l.comm.AllgathervInt64(mine, cs, all); err != nil {
		return nil, err
	}
	return all, nil
}

// shareResult is what graph.Check and GraphInfo need of the whole graph,
// computed over the ranks' shares: the number of connected components,
// whether it is bipartite, and the smallest and largest degree.
type shareResult struct {
	comps          int64
	bipartite      bool
	minDeg, maxDeg int
}

// parityUF is a union–find whose links carry the parity of the path to
// the parent, so that a union closing an odd cycle is seen (the bipartite
// check).
type parityUF struct {
	parent []int32
	par    []uint8
	odd    bool
}

func newParityUF(n int) *parityUF {
	u := &parityUF{parent: make([]int32, n), par: make([]uint8, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
	return u
}

// find returns x's root and the parity of the path from x to it,
// compressing the path.
func (u *parityUF) find(x int32) (int32, uint8) {
	r, p := x, uint8(0)
	for u.parent[r] != r {
		p ^= u.par[r]
		r = u.parent[r]
	}
	c, cp := x, p
	for u.parent[c] != c {
		next, np := u.parent[c], cp^u.par[c]
		u.parent[c], u.par[c] = r, cp
		c, cp = next, np
	}
	return r, p
}

// union joins a and b with a path of parity odd between them (1 for an
// edge) and reports whether they were apart; a union within one set with
// the other parity marks the graph not bipartite.
func (u *parityUF) union(a, b int32, odd uint8) bool {
	ra, pa := u.find(a)
	rb, pb := u.find(b)
	if ra == rb {
		if pa^pb != odd {
			u.odd = true
		}
		return false
	}
	if ra > rb {
		ra, rb = rb, ra
	}
	u.parent[rb], u.par[rb] = ra, pa^pb^odd
	return true
}

// shareStats checks the graph whose edges are the ranks' shares (each
// rank's edges have their lower end in its nodes, so an edge's other end
// is this rank's or a later rank's). Each rank joins its edges in a
// union–find over its nodes and the later ranks' nodes its edges reach;
// each component has a node of the rank, the smallest of which represents
// it. A rank sends each later rank the ends it reaches there, with how
// many edges reach each and its representative and parity; the owner adds
// the counts to its nodes' degrees and turns each into an edge (with a
// parity) between its representative and the sender's. Those edges
// between components (deduplicated: at most one or two per pair of
// components) are gathered by every rank, which joins them in a union–find
// over the representatives: the components of the graph are the ranks'
// components less the unions that join two sets, the same answer on every
// rank. Messages go from lower to higher ranks, pair after pair in one
// order (no deadlock): O(cross-rank ends) bytes.
func (l *local) shareStats(edges [][2]int32) (shareResult, error) {
	lo, hi, nl := l.lo, l.hi, l.hi-l.lo
	// The ends in later ranks: sorted (with their edge's rank among the
	// crossing edges, to give each crossing edge its end's dense id without
	// a search), distinct ones numbered nl, nl+1, … with their counts.
	var keys []int64
	for _, e := range edges {
		if int(e[1]) >= hi {
			keys = append(keys, int64(e[1])<<32|int64(len(keys)))
		}
	}
	slices.Sort(keys)
	xid := make([]int32, len(keys))
	var fx, fcnt []int32
	for _, k := range keys {
		if v := int32(k >> 32); len(fx) == 0 || fx[len(fx)-1] != v {
			fx, fcnt = append(fx, v), append(fcnt, 0)
		}
		fcnt[len(fx)-1]++
		xid[uint32(k)] = int32(nl + len(fx) - 1)
	}
	keys = nil
	uf := newParityUF(nl + len(fx))
	deg := make([]int32, nl)
	c := 0
	for _, e := range edges {
		deg[int(e[0])-lo]++
		if int(e[1]) < hi {
			deg[int(e[1])-lo]++
			uf.union(e[0]-int32(lo), e[1]-int32(lo), 1)
		} else {
			uf.union(e[0]-int32(lo), xid[c], 1)
			c++
		}
	}
	xid = nil
	// Representatives: the smallest node of the rank in each component,
	// and each node's parity relative to it.
	rep := make([]int32, nl+len(fx))
	for i := range rep {
		rep[i] = -1
	}
	repPar := make([]uint8, nl+len(fx))
	var comps int64
	for k := range nl {
		r, p := uf.find(int32(k))
		if rep[r] < 0 {
			rep[r], repPar[r] = int32(lo+k), p
			comps++
		}
	}
	repOf := func(x int32) (int32, uint8) {
		r, p := uf.find(x)
		return rep[r], p ^ repPar[r]
	}
	// The ends in later ranks, to their owners.
	size, me := l.comm.Size(), l.comm.Rank()
	bounds := make([]int, size+1)
	for r := range size {
		bounds[r], _ = partition(l.n, size, r)
	}
	bounds[size] = l.n
	owner := func(v int) int { return sort.SearchInts(bounds, v+1) - 1 }
	type superKey struct{ a, b int32 }
	super := map[superKey]uint8{}
	for a := 0; a < size; a++ {
		for b := a + 1; b < size; b++ {
			switch me {
			case a:
				i0 := sort.Search(len(fx), func(i int) bool { return owner(int(fx[i])) >= b })
				i1 := sort.Search(len(fx), func(i int) bool { return owner(int(fx[i])) > b })
				msg := make([]int64, 0, 2*(i1-i0))
				for i := i0; i < i1; i++ {
					rp, p := repOf(int32(nl + i))
					msg = append(msg, int64(fx[i])<<32|int64(fcnt[i]), int64(rp)<<1|int64(p))
				}
				if err := l.comm.SendInt64([]int64{int64(len(msg))}, b, tagCrossLen); err != nil {
					return shareResult{}, err
				}
				if len(msg) > 0 {
					if err := l.comm.SendInt64(msg, b, tagCross); err != nil {
						return shareResult{}, err
					}
				}
			case b:
				ln := []int64{0}
				if err := l.comm.RecvInt64(ln, a, tagCrossLen); err != nil {
					return shareResult{}, err
				}
				if ln[0] == 0 {
					continue
				}
				msg := make([]int64, ln[0])
				if err := l.comm.RecvInt64(msg, a, tagCross); err != nil {
					return shareResult{}, err
				}
				for i := 0; i < len(msg); i += 2 {
					x := int32(msg[i] >> 32)
					if int(x) < lo || int(x) >= hi {
						return shareResult{}, fmt.Errorf("ranks: rank %d sent node %d to rank %d, which holds [%d, %d)", a, x, me, lo, hi)
					}
					deg[int(x)-lo] += int32(uint32(msg[i]))
					rs, ps := repOf(x - int32(lo))
					super[superKey{int32(msg[i+1] >> 1), rs}] |= 1 << (uint8(msg[i+1]&1) ^ ps)
				}
			}
		}
	}
	// The edges between components, on every rank.
	sk := make([]superKey, 0, len(super))
	for k := range super {
		sk = append(sk, k)
	}
	slices.SortFunc(sk, func(x, y superKey) int {
		if x.a != y.a {
			return int(x.a) - int(y.a)
		}
		return int(x.b) - int(y.b)
	})
	var mine []int64
	for _, k := range sk {
		for p := range uint8(2) {
			if super[k]>>p&1 != 0 {
				mine = append(mine, int64(k.a), int64(k.b)<<1|int64(p))
			}
		}
	}
	all, err := l.allgatherInt64(mine)
	if err != nil {
		return shareResult{}, err
	}
	minDeg, maxDeg := int64(l.n), int64(0)
	for _, d := range deg {
		minDeg, maxDeg = min(minDeg, int64(d)), max(maxDeg, int64(d))
	}
	odd := int64(0)
	if uf.odd {
		odd = 1
	}
	red := []int64{-minDeg, maxDeg, odd}
	sum := []int64{comps}
	if err := l.comm.AllreduceInt64(red, mpi.Max); err != nil {
		return shareResult{}, err
	}
	if err := l.comm.AllreduceInt64(sum, mpi.Sum); err != nil {
		return shareResult{}, err
	}
	// The union–find over the representatives the edges between components
	// name (dense ids in order of appearance: the same on every rank).
	ids := map[int32]int32{}
	dense := func(v int32) int32 {
		if i, ok := ids[v]; ok {
			return i
		}
		ids[v] = int32(len(ids))
		return ids[v]
	}
	type sedge struct {
		a, b int32
		p    uint8
	}
	se := make([]sedge, len(all)/2)
	for i := range se {
		se[i] = sedge{dense(int32(all[2*i])), dense(int32(all[2*i+1] >> 1)), uint8(all[2*i+1] & 1)}
	}
	suf := newParityUF(len(ids))
	comps = sum[0]
	for _, e := range se {
		if suf.union(e.a, e.b, e.p) {
			comps--
		}
	}
	return shareResult{comps: comps, bipartite: red[2] == 0 && !suf.odd, minDeg: int(-red[0]), maxDeg: int(red[1])}, nil
}

// setEdges makes edges this rank's share of the graph's edge list (those
// whose lower end it owns: one contiguous range, since the list is sorted)
// and learns every rank's range with one Allgatherv of the counts; total
// is the graph's number of edges when the caller knows it (−1 otherwise).
func (l *local) setEdges(edges [][2]int32, total int) error {
	size := l.comm.Size()
	counts := make([]int64, size)
	ones := make([]int, size)
	for i := range ones {
		ones[i] = 1
	}
	if err := l.comm.AllgathervInt64([]int64{int64(len(edges))}, ones, counts); err != nil {
		return err
	}
	l.myEdges = edges
	l.eStart = make([]int, size+1)
	for r, c := range counts {
		l.eStart[r+1] = l.eStart[r] + int(c)
	}
	if total >= 0 && l.eStart[size] != total {
		return fmt.Errorf("ranks: the ranks' edge ranges do not cover the graph's %d edges (%d)", total, l.eStart[size])
	}
	return nil
}
