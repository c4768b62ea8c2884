// Package redpack is the pack of the reduced synchronous schedule: the
// contributing nodes of a block whose scalar recurrences (s₀, q, W, η,
// next margin) are advanced side by side, round after round. The engine's
// reduced executor (engine/exec_reduced.go) and its form over MPI ranks
// (package ranks) both run their packs with it, so that the two stay one
// arithmetic, bit for bit.
//
// What an entry stands for (a node or a slot of the block's touched nodes)
// and what becomes of an entry whose margin turns non-finite is the
// caller's: Round only reports it.
package redpack

import (
	"math"
	"unsafe"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

// blockMax bounds the rounds of one block of the reduced schedule. A block
// costs two passes over the records plus, per round, work on the O(B)
// touched nodes (packed scalars and the running-average weights of
// restarted segments); Rounds balances the two.
const blockMax = 4096

// Rounds is B, the rounds of a block of the reduced schedule on n nodes:
// 16√n, at most blockMax (the bound decides from n = 65 536). A longer
// block spreads its passes over more rounds, a shorter one keeps fewer
// touched nodes; 16√n replaced 4√n, under which the passes dominated. To
// measure a factor, change it here and compare the time a round of
// `bench sync --n N --d 9 --workers 1 --schedule reduced --json` at a few n
// from 200 to 30 000 (it changes how the schedule rounds: the golden
// sync-reduced keys move). The engine and its form over ranks (package
// ranks) both take it from here, so that their blocks end at the same rounds.
func Rounds(n int) int {
	return max(1, min(blockMax, int(16*math.Sqrt(float64(n)))))
}

// Pack holds its entries' scalars side by side: Act lists the entries (a
// node's or a slot's index, as the caller uses it), S0, Q, W, Eta and M
// their s₀ = δᵀz₀, q = δᵀδ, gradient sum W, average weight η and next
// margin. Dead marks the entries a caller froze at a divergence (Add sets
// it false); Nu is the caller's count of the leading entries of one kind
// (the engine: its untouched nodes). Pos, if not nil, maps an index to 1 +
// its entry's place in the pack (0: not in it), kept by Add and Remove.
type Pack struct {
	Act              []int32
	S0, Q, W, Eta, M []float64
	Dead             []bool
	Pos              []int32
	Nu               int
}

// New returns an empty pack with room for c entries.
func New(c int) Pack {
	t := func() []float64 { return make([]float64, 0, c) }
	return Pack{Act: make([]int32, 0, c), S0: t(), Q: t(), W: t(), Eta: t(), M: t(), Dead: make([]bool, 0, c)}
}

// Add appends entry k with its scalars.
func (p *Pack) Add(k int32, s0, q, W, eta, m float64) {
	p.Act, p.S0, p.Q, p.W, p.Eta, p.M = append(p.Act, k), append(p.S0, s0), append(p.Q, q), append(p.W, W), append(p.Eta, eta), append(p.M, m)
	p.Dead = append(p.Dead, false)
	if p.Pos != nil {
		p.Pos[k] = int32(len(p.Act))
	}
}

// Remove takes entry i out of the pack; the last entry takes its place.
func (p *Pack) Remove(i int) {
	l := len(p.M) - 1
	if p.Pos != nil {
		p.Pos[p.Act[i]] = 0
		if i != l {
			p.Pos[p.Act[l]] = int32(i + 1)
		}
	}
	p.Act[i], p.S0[i], p.Q[i], p.W[i], p.Eta[i], p.M[i], p.Dead[i] = p.Act[l], p.S0[l], p.Q[l], p.W[l], p.Eta[l], p.M[l], p.Dead[l]
	p.Act, p.S0, p.Q, p.W, p.Eta, p.M, p.Dead = p.Act[:l], p.S0[:l], p.Q[:l], p.W[:l], p.Eta[:l], p.M[:l], p.Dead[:l]
}

// Reset empties the pack (Pos, which maps only entries, is left as it is).
func (p *Pack) Reset() {
	p.Act, p.S0, p.Q, p.W, p.Eta, p.M, p.Dead = p.Act[:0], p.S0[:0], p.Q[:0], p.W[:0], p.Eta[:0], p.M[:0], p.Dead[:0]
	p.Nu = 0
}

// WriteBack stores entry i's W, η and next margin at index Act[i] of W,
// eta and m (the per-slot arrays of the block's touched nodes).
func (p *Pack) WriteBack(i int, W, eta, m []float64) {
	sl := p.Act[i]
	W[sl], eta[sl], m[sl] = p.W[i], p.Eta[i], p.M[i]
}

// Round advances the first n entries through one round with smoothing
// scale c, averaging weight a and bc = b·c: g = φ'(m), W += g,
// η = a·η + bc·W, m = c·(s₀ + W·q), side by side. It returns the number
// of non-zero gradients and whether every margin it computed is finite
// (if not, the caller finds the non-finite ones with Finite).
func (p *Pack) Round(loss problem.Loss, n int, c, a, bc float64) (nz int64, fin bool) {
	s0, q, W, eta, m := p.S0[:n], p.Q[:n], p.W[:n], p.Eta[:n], p.M[:n]
	if loss == problem.AUCLogistic {
		// The fused round (the same arithmetic, with a vectorised
		// exponential in the avx2 and avx512 implementations).
		cnt, ok := kernel.LogisticRound(s0, q, W, eta, m, c, a, bc)
		return int64(cnt), ok
	}
	fin = true
	for i := range m {
		g := loss.MarginDeriv(m[i])
		if g != 0 {
			nz++
		}
		Wi := W[i] + g
		W[i] = Wi
		eta[i] = float64(a*eta[i]) + float64(bc*Wi)
		m[i] = c * (s0[i] + float64(Wi*q[i]))
		fin = fin && Finite(m[i])
	}
	return nz, fin
}

// Finite reports whether v is neither ±Inf nor NaN.
func Finite(v float64) bool { return math.Abs(v) <= math.MaxFloat64 }

// SegAvg returns α and β of the running average over rounds first..last
// of a block that starts after round t0 (1-based; last < first: no round,
// α = 1, β = 0), cSum[r] being c_1 + … + c_r over the block's rounds.
// With a_t = 1 − 1/t and b_t = 1/t the recurrences α ← a_t α,
// β ← a_t β + b_t c_t telescope: α = (t_first − 1)/t_last,
// β = (c_first + … + c_last)/t_last.
func SegAvg(t0 int64, cSum []float64, first, last int) (alpha, beta float64) {
	if last < first {
		return 1, 0
	}
	t := float64(t0)
	tl := t + float64(last)
	return (t + float64(first) - 1) / tl, (cSum[last] - cSum[first-1]) / tl
}

// The per-node loops run over n elements of rows given by address, without
// bounds checks (issue #18: ~10% of the paper-size round): the caller
// guarantees the rows.

// at is element a of the row at p; set stores v there.
func at(p unsafe.Pointer, a uintptr) float64     { return *(*float64)(unsafe.Add(p, a*8)) }
func set(p unsafe.Pointer, a uintptr, v float64) { *(*float64)(unsafe.Add(p, a*8)) = v }

// Segment returns s₀ = δᵀz and q = δᵀδ of a node whose rows x, y, z (n
// elements each) start at the given addresses, δ = x − y: the scalars of a
// segment that starts from z.
func Segment(x, y, z unsafe.Pointer, n int) (s0, q float64) {
	for a := range uintptr(n) {
		d := at(x, a) - at(y, a)
		s0 += float64(d * at(z, a))
		q += float64(d * d)
	}
	return s0, q
}

// Write writes a node's z and θ̄ (rows of n elements at z and bar, its
// rows x and y at x and y) at the current point of its segment, which
// then holds the new z₀ and θ̄₀: θ̄ = αθ̄ + βz + ηδ, z += Wδ.
func Write(x, y, z, bar unsafe.Pointer, n int, al, be, W, eta float64) {
	for a := range uintptr(n) {
		d, za := at(x, a)-at(y, a), at(z, a)
		set(bar, a, float64(al*at(bar, a))+float64(be*za)+float64(eta*d))
		set(z, a, za+float64(W*d))
	}
}

// Average moves the running average of a node that does not contribute
// over a segment (W = η = 0, z fixed): θ̄ = αθ̄ + βz, rows of n elements at
// z and bar.
func Average(z, bar unsafe.Pointer, n int, al, be float64) {
	for a := range uintptr(n) {
		set(bar, a, float64(al*at(bar, a))+float64(be*at(z, a)))
	}
}
