// Package rng holds the project's random number generators.
//
// Every random choice in pairgossip goes through this package so that the
// streams are defined here, not by the standard library's unexported choices:
// the same seed gives the same numbers on every Go release.
//
//   - Stream is a sequential generator (PCG-DXSM from math/rand/v2, whose
//     algorithm is fixed by its specification) with our own bounded-integer,
//     float and normal draws on top.
//   - Hash is a counter-based generator: Hash(seed, a, b) is a well-mixed
//     64-bit value that depends only on its arguments, so per-node draws
//     keyed by (seed, node, t) need no state and no ordering between workers.
package rng

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Stream is a seeded sequential generator. The zero value is not usable; use New.
type Stream struct {
	src rand.PCG
}

// New returns a stream for (seed, sub). Different sub values give independent
// streams for the same user seed (for example "graph", "edges", "data").
func New(seed, sub uint64) *Stream {
	s := &Stream{}
	s.src.Seed(Mix(seed^0x9e3779b97f4a7c15), Mix(sub+0x632be59bd9b4e019))
	return s
}

// State returns the generator state, for checkpoints.
func (s *Stream) State() ([]byte, error) { return s.src.MarshalBinary() }

// SetState restores a state written by State.
func (s *Stream) SetState(b []byte) error { return s.src.UnmarshalBinary(b) }

// Uint64 returns a uniformly distributed 64-bit value.
func (s *Stream) Uint64() uint64 { return s.src.Uint64() }

// IntN returns a uniform integer in [0, n). It panics if n <= 0.
// It uses Lemire's multiply-shift with rejection, so it is exactly uniform.
func (s *Stream) IntN(n int) int {
	if n <= 0 {
		panic("rng: IntN with n <= 0")
	}
	return int(Bounded(s.src.Uint64, uint64(n)))
}

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (s *Stream) Float64() float64 {
	return float64(s.src.Uint64()>>11) * 0x1p-53
}

// Normal returns a standard normal deviate (polar Box–Muller; the spare
// value is discarded so that the stream position is a pure function of the
// number of calls).
func (s *Stream) Normal() float64 {
	for {
		u := 2*s.Float64() - 1
		v := 2*s.Float64() - 1
		r := u*u + v*v
		if r > 0 && r < 1 {
			return u * math.Sqrt(-2*math.Log(r)/r)
		}
	}
}

// Perm fills p with a uniformly random permutation of 0..len(p)-1 (Fisher–Yates).
func (s *Stream) Perm(p []int) {
	for i := range p {
		p[i] = i
	}
	for i := len(p) - 1; i > 0; i-- {
		j := s.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}

// Bounded maps draws from next to a uniform value in [0, n), n > 0.
func Bounded(next func() uint64, n uint64) uint64 {
	hi, lo := bits.Mul64(next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(next(), n)
		}
	}
	return hi
}

// Mix is the SplitMix64 / MurmurHash3 finaliser: a bijection of uint64 with
// full avalanche.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hash is the counter-based generator: a 64-bit value determined by
// (seed, a, b) alone, for example (seed, node, t).
func Hash(seed, a, b uint64) uint64 {
	return HashKeyed(HashKey(seed), a, b)
}

// HashKey is the part of Hash(seed, a, b) that depends on seed alone: a
// loop that draws many values of one seed computes it once (HashKeyed).
func HashKey(seed uint64) uint64 { return Mix(seed + 0x9e3779b97f4a7c15) }

// HashKeyed is Hash(seed, a, b) from key = HashKey(seed): two of its three
// mixes.
func HashKeyed(key, a, b uint64) uint64 { return HashKeyAB(HashKeyA(key, a), b) }

// HashKeyA is the part of HashKeyed(key, a, b) that depends on key and a
// alone: HashKeyed(key, a, b) == HashKeyAB(HashKeyA(key, a), b), so that a
// loop over b for one a computes it once.
func HashKeyA(key, a uint64) uint64 { return Mix(key ^ (a + 0x632be59bd9b4e019)) }

// HashKeyAB is HashKeyed(key, a, b) from ka = HashKeyA(key, a).
func HashKeyAB(ka, b uint64) uint64 { return Mix(ka ^ (b + 0xd1b54a32d192ed03)) }

// HashIntN returns a uniform integer in [0, n) determined by (seed, a, b).
// Rejection redraws are taken from successive counters, so the result is
// still a pure function of the arguments.
func HashIntN(seed, a, b uint64, n int) int {
	if n <= 0 {
		panic("rng: HashIntN with n <= 0")
	}
	h := Hash(seed, a, b)
	k := uint64(0)
	next := func() uint64 {
		if k == 0 {
			k++
			return h
		}
		k++
		return Mix(h + k*0x9e3779b97f4a7c15)
	}
	return int(Bounded(next, uint64(n)))
}
