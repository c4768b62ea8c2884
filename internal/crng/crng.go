// Package crng holds counter-based random streams for generating data in
// parallel: a Stream is fixed by (seed, stream, index) alone, so row i of a
// data set can be drawn by any worker, in any order, with the same result.
// Perm is a keyed pseudo-random permutation of [0, n) evaluated one element
// at a time (no n-element table, no sequential shuffle).
//
// The definitions below are part of the output: changing any of them changes
// every data set generated from them.
//
//   - New(seed, stream, index) = NewKey(seed, stream).Stream(index) starts at
//     state s = rng.Mix(rng.Hash(seed, stream, 0) + index·0x9e3779b97f4a7c15);
//     each Uint64 adds 0xa0761d6478bd642f to s and returns hi ⊕ lo of the
//     128-bit product s · (s ⊕ 0xe7037ed1a0b428db) (the wyrand generator:
//     one multiplication a draw).
//   - Float64 is (Uint64() >> 11) · 2⁻⁵³, uniform on [0, 1).
//   - Normal is the Marsaglia–Tsang ziggurat with 256 layers
//     (r = 3.6541528853610088, v = 4.92867323399e-3; the tables are computed
//     at start-up from these two constants), drawing the layer from bits 0–7
//     of one Uint64, the sign from bit 8 and the abscissa from bits 11–63;
//     wedge and tail tests take further draws from the same stream. Every
//     value is below 14 in magnitude (the tail's uniforms are at least 2⁻⁵³).
//   - Perm is a 4-round Feistel network on b = max(2, ⌈log₂ n⌉) bits
//     (halves of ⌊b/2⌋ and ⌈b/2⌉ bits, round function hi ⊕ lo of the
//     128-bit product (half ⊕ key) · 0x9e3779b97f4a7c15, truncated,
//     round keys from a Stream keyed by (seed, stream, 0)), restricted to
//     [0, n) by cycle walking.
package crng

import (
	"math"
	"math/bits"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// Stream is a counter-based generator. The zero value is a valid stream (the
// one with state 0), but streams are meant to come from New.
type Stream struct {
	s uint64
}

// New returns the stream for (seed, stream, index), for example
// (user seed, a constant naming the generator, row number).
func New(seed, stream, index uint64) Stream {
	return NewKey(seed, stream).Stream(index)
}

// Key is the (seed, stream) part of a stream's key, hashed once so that the
// streams of many indices are cheap to start.
type Key uint64

// NewKey returns the key of (seed, stream).
func NewKey(seed, stream uint64) Key {
	return Key(rng.Hash(seed, stream, 0))
}

// Stream returns the stream for index: the same as New(seed, stream, index).
func (k Key) Stream(index uint64) Stream {
	return Stream{s: rng.Mix(uint64(k) + index*0x9e3779b97f4a7c15)}
}

const (
	wyInc = 0xa0761d6478bd642f
	wyXor = 0xe7037ed1a0b428db
)

// Uint64 returns the next 64-bit value of the stream.
func (s *Stream) Uint64() uint64 {
	s.s += wyInc
	return wymix(s.s)
}

func wymix(s uint64) uint64 {
	hi, lo := bits.Mul64(s, s^wyXor)
	return hi ^ lo
}

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (s *Stream) Float64() float64 {
	return float64(s.Uint64()>>11) * 0x1p-53
}

// Ziggurat constants for 256 layers (Marsaglia & Tsang, "The ziggurat method
// for generating random variables", J. Stat. Softw. 5(8), 2000).
const (
	zigLayers = 256
	zigR      = 3.6541528853610088
	zigV      = 4.92867323399e-3
)

var (
	zigX [zigLayers + 1]float64 // layer edges: zigX[0] = v/f(r), zigX[1] = r, ..., zigX[256] = 0
	zigF [zigLayers + 1]float64 // f(zigX[i]) = exp(−zigX[i]²/2)
	zigK [zigLayers]uint64      // ⌊zigX[i+1]/zigX[i] · 2⁵³⌋: below it, the point is under the curve
	zigW [zigLayers]float64     // zigX[i] · 2⁻⁵³
)

func init() {
	f := func(x float64) float64 { return math.Exp(-x * x / 2) }
	zigX[0] = zigV / f(zigR)
	zigX[1] = zigR
	for i := 1; i < zigLayers-1; i++ {
		zigX[i+1] = math.Sqrt(-2 * math.Log(zigV/zigX[i]+f(zigX[i])))
	}
	zigX[zigLayers] = 0
	for i := range zigF {
		zigF[i] = f(zigX[i])
	}
	for i := 0; i < zigLayers; i++ {
		zigK[i] = uint64(zigX[i+1] / zigX[i] * 0x1p53)
		zigW[i] = zigX[i] * 0x1p-53
	}
}

// Normal returns a standard normal deviate.
func (s *Stream) Normal() float64 {
	for {
		u := s.Uint64()
		i := u & (zigLayers - 1)
		j := u >> 11
		x := signed(float64(j)*zigW[i], u)
		if j < zigK[i] {
			return x
		}
		if v, ok := s.slow(i, x); ok {
			return v
		}
	}
}

// AddNormals adds scale·Z to each element of dst, for Z the stream's next
// len(dst) standard normal deviates: dst[k] += scale·Normal(), in order.
// It is Normal in a loop with the common case inlined.
func (s *Stream) AddNormals(dst []float64, scale float64) {
	st := s.s
	for k := range dst {
		for {
			st += wyInc
			u := wymix(st)
			i := u & (zigLayers - 1)
			j := u >> 11
			x := signed(float64(j)*zigW[i], u)
			if j < zigK[i] {
				dst[k] += scale * x
				break
			}
			s.s = st
			v, ok := s.slow(i, x)
			st = s.s
			if ok {
				dst[k] += scale * v
				break
			}
		}
	}
	s.s = st
}

// signed gives x the sign bit 8 of u says (set: negative), without a branch
// (the sign is a coin toss, which a branch predictor cannot learn).
func signed(x float64, u uint64) float64 {
	return math.Float64frombits(math.Float64bits(x) ^ (u&0x100)<<55)
}

// slow handles the wedges (layer i >= 1) and the tail (layer 0) for the
// signed abscissa x. It reports false when the draw is rejected.
func (s *Stream) slow(i uint64, x float64) (float64, bool) {
	if i == 0 {
		// Tail beyond r (Marsaglia 1964): a = −ln(U₁)/r, b = −ln(U₂), until 2b ≥ a².
		for {
			a := -math.Log(s.openFloat()) / zigR
			b := -math.Log(s.openFloat())
			if b+b >= a*a {
				return math.Copysign(zigR+a, x), true
			}
		}
	}
	y := zigF[i] + s.Float64()*(zigF[i+1]-zigF[i])
	if y < math.Exp(-x*x/2) {
		return x, true
	}
	return 0, false
}

// openFloat returns a uniform value in (0, 1].
func (s *Stream) openFloat() float64 {
	return float64(s.Uint64()>>11+1) * 0x1p-53
}

// Perm is a pseudo-random permutation of [0, N), evaluated element by element.
type Perm struct {
	n      uint64
	wl, wr uint // bit widths of the left and right halves
	keys   [4]uint64
}

// NewPerm returns the permutation of [0, n) keyed by (seed, stream).
func NewPerm(n, seed, stream uint64) Perm {
	b := uint(2)
	if n > 4 {
		b = uint(bits.Len64(n - 1))
	}
	p := Perm{n: n, wl: b / 2, wr: b - b/2}
	st := NewKey(seed, stream).Stream(0)
	for k := range p.keys {
		p.keys[k] = st.Uint64()
	}
	return p
}

// N returns the size of the permuted range.
func (p *Perm) N() uint64 { return p.n }

// At returns the image of i, which must be in [0, N).
func (p *Perm) At(i uint64) uint64 {
	x := i
	for {
		x = p.feistel(x)
		if x < p.n {
			return x
		}
	}
}

// feistel is a bijection of [0, 2^(wl+wr)).
func (p *Perm) feistel(x uint64) uint64 {
	wl, wr := p.wl, p.wr
	l, r := x>>wr, x&(1<<wr-1)
	for _, k := range p.keys {
		// (l: wl bits, r: wr bits) → (r: wr bits, l ⊕ F(r): wl bits).
		hi, lo := bits.Mul64(r^k, 0x9e3779b97f4a7c15)
		l, r = r, (l^hi^lo)&(1<<wl-1)
		wl, wr = wr, wl
	}
	return l<<wr | r
}
