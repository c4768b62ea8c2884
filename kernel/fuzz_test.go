package kernel

import (
	"encoding/binary"
	"math"
	"testing"
)

// The fuzz targets decode the fuzzer's bytes into one call of a kernel and
// run check (every implementation against the reference, bit-exact or
// within tolerance, guards, offsets). Layout of the bytes:
//
//	byte 0: bits 0–2 the element offset of the slices in their cache line
//	        (slice i at (off + 3i) mod 8), bit 3 the decoding
//	then 8 bytes per float64, little-endian: the scalars first, then the
//	        slices' elements interleaved (element e of slice i at e·k + i)
//
// Decoding "raw" takes the bits as they are (every exponent, subnormals,
// zeros); the other folds the binary exponent into [−40, 40] so that
// reductions rarely overflow and their results are compared. Inputs with a
// NaN or an infinity are skipped (intermediate overflow is still exercised
// by raw values).

func decode(data []byte, k kspec) (vals [][]float64, p []float64, offs []int, ok bool) {
	if len(data) < 1 {
		return nil, nil, nil, false
	}
	h := data[0]
	raw := h&8 != 0
	var fs []float64
	for b := data[1:]; len(b) >= 8; b = b[8:] {
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, nil, false
		}
		if !raw && v != 0 {
			frac, exp := math.Frexp(v)
			v = math.Ldexp(frac, ((exp%81)+81)%81-40)
		}
		fs = append(fs, v)
	}
	if len(fs) < k.scalars {
		return nil, nil, nil, false
	}
	p, fs = fs[:k.scalars], fs[k.scalars:]
	na := len(k.arrays)
	n := len(fs) / na
	vals = make([][]float64, na)
	offs = make([]int, na)
	for i := range vals {
		vals[i] = make([]float64, n)
		for e := range n {
			vals[i][e] = fs[e*na+i]
		}
		offs[i] = (int(h&7) + 3*i) % 8
	}
	return vals, p, offs, true
}

// seeds adds a few inputs for kernel k: short and unrolled lengths, both
// decodings, special values.
func seeds(f *testing.F, k kspec) {
	vals := []float64{1, -2, 0.5, 3, 1e10, -1e-10, 0, math.Copysign(0, -1), 5e-324, 1e300, -7, 0.25}
	for _, tc := range []struct {
		head byte
		n    int
	}{{0, 1}, {1, 4}, {8 | 3, 9}, {5, 17}, {8 | 7, 33}} {
		b := []byte{tc.head}
		for i := 0; i < k.scalars+tc.n*len(k.arrays); i++ {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(vals[i%len(vals)]*float64(1+i%3)))
		}
		f.Add(b)
	}
	f.Add([]byte{})
}

func fuzzKernel(f *testing.F, name string) {
	k := kernelByName(name)
	seeds(f, k)
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, p, offs, ok := decode(data, k)
		if !ok {
			t.Skip()
		}
		check(t, k, vals, p, offs, "fuzz")
	})
}

func FuzzSyncLinear(f *testing.F) { fuzzKernel(f, "SyncLinear") }
func FuzzScale(f *testing.F)      { fuzzKernel(f, "Scale") }
func FuzzTriad(f *testing.F)      { fuzzKernel(f, "Triad") }

// FuzzEventPre checks both of EventPre's margins (and its outputs) per input.
func FuzzEventPre(f *testing.F) {
	k := kernelByName("EventPre.mi")
	seeds(f, k)
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, p, offs, ok := decode(data, k)
		if !ok {
			t.Skip()
		}
		check(t, k, vals, p, offs, "fuzz")
		check(t, kernelByName("EventPre.mj"), vals, p, offs, "fuzz")
	})
}
