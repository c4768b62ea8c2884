package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// recordsCase is one input of WriteRecords and AverageRecords: rows of x
// (stride sx) and records z, bar (stride sr), a node list and the per-node
// scalars; checkRecords places x, z and bar at element offsets off, off+3
// and off+5 of a 64-byte line (mod 8) inside guard padding.
type recordsCase struct {
	x, z, bar   []float64
	sx, sr, n   int
	yIdx, nodes []int32
	sc          []float64
	al, be      float64
	rows, off   int
}

// recordsValue draws a value: mostly moderate, sometimes one of the
// special values (±0, subnormal, huge, ±Inf, NaN).
func recordsValue(r *rand.Rand) float64 {
	switch r.IntN(40) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return 0
	case 2:
		return 0x1p-1060 * r.NormFloat64()
	case 3:
		return 1e300 * r.NormFloat64()
	case 4:
		return math.Inf(1 - 2*r.IntN(2))
	case 5:
		return math.NaN()
	}
	return r.NormFloat64() * math.Ldexp(1, r.IntN(20)-10)
}

// newRecordsCase builds a case of rows records of n elements (strides n +
// a pad), at offset off (unaligned unless off ≡ 0 mod 8), and a list of m
// nodes (repeats allowed).
func newRecordsCase(r *rand.Rand, rows, n, m, off int, val func(*rand.Rand) float64) recordsCase {
	c := recordsCase{n: n, rows: rows, off: off}
	c.sx, c.sr = n+r.IntN(4), n+r.IntN(4)
	fill := func(l int) []float64 {
		s := make([]float64, l)
		for i := range s {
			s[i] = val(r)
		}
		return s
	}
	c.x, c.z, c.bar = fill(rows*c.sx), fill(rows*c.sr), fill(rows*c.sr)
	c.yIdx = make([]int32, rows)
	for k := range c.yIdx {
		c.yIdx[k] = int32(r.IntN(rows))
	}
	c.nodes = make([]int32, m)
	c.sc = make([]float64, 4*m)
	for e := range c.nodes {
		c.nodes[e] = int32(r.IntN(rows))
		for i := range 4 {
			c.sc[4*e+i] = val(r)
		}
	}
	c.al, c.be = val(r), val(r)
	return c
}

func (c recordsCase) clone() recordsCase {
	c.x, c.z, c.bar = slices.Clone(c.x), slices.Clone(c.z), slices.Clone(c.bar)
	return c
}

// checkRecords runs both kernels on c in every implementation, on copies
// of x, z and bar inside guard padding, and compares every element (those
// between rows included) with the reference, bit for bit, and the guards
// with their sentinel.
func checkRecords(t *testing.T, c recordsCase, what string) {
	t.Helper()
	want := c.clone()
	writeRecordsGeneric(want.x, c.sx, c.yIdx, want.z, want.bar, c.sr, c.n, c.nodes, c.sc)
	wantAvg := c.clone()
	averageRecordsGeneric(wantAvg.z, wantAvg.bar, c.sr, c.n, c.nodes, c.al, c.be)
	place := func() (x, z, bar guarded) {
		return newGuarded(c.x, c.off%8), newGuarded(c.z, (c.off+3)%8), newGuarded(c.bar, (c.off+5)%8)
	}
	for _, impl := range Implementations() {
		gx, gz, gbar := place()
		_, gzAvg, gbarAvg := place()
		withImpl(t, impl, func() {
			WriteRecords(gx.s(), c.sx, c.yIdx, gz.s(), gbar.s(), c.sr, c.n, c.nodes, c.sc)
			AverageRecords(gzAvg.s(), gbarAvg.s(), c.sr, c.n, c.nodes, c.al, c.be)
		})
		for _, p := range []struct {
			name string
			got  guarded
			want []float64
		}{
			{"WriteRecords x", gx, want.x}, {"WriteRecords z", gz, want.z}, {"WriteRecords bar", gbar, want.bar},
			{"AverageRecords z", gzAvg, wantAvg.z}, {"AverageRecords bar", gbarAvg, wantAvg.bar},
		} {
			if at, ok := p.got.intact(); !ok {
				t.Fatalf("%s: %s, %s (n=%d, strides %d/%d, %d nodes): guard element %d overwritten",
					impl, what, p.name, c.n, c.sx, c.sr, len(c.nodes), at)
			}
			got := p.got.s()
			for i := range p.want {
				if !sameBits(got[i], p.want[i]) {
					t.Fatalf("%s: %s, %s (n=%d, strides %d/%d, %d nodes): element %d = %v, want %v",
						impl, what, p.name, c.n, c.sx, c.sr, len(c.nodes), i, got[i], p.want[i])
				}
			}
		}
	}
}

// TestRecords: WriteRecords and AverageRecords in every implementation
// against the reference, bit for bit, for rows of 0 … 130 elements,
// strides with padding, unaligned slices, repeated nodes and special
// values, and the elements past the last row untouched.
func TestRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 699))
	for n := 0; n <= 130; n++ {
		for _, rows := range []int{1, 3, 17} {
			c := newRecordsCase(r, rows, n, r.IntN(2*rows+1), r.IntN(8), recordsValue)
			checkRecords(t, c, fmt.Sprintf("rows=%d", rows))
		}
	}
}

// TestRecordsPanics: an index or a length outside the slices panics
// before anything is written, also when valid nodes precede the bad one
// in the list. Every value is non-zero and x's rows differ, so that any
// update of a valid node would change bits of z or bar.
func TestRecordsPanics(t *testing.T) {
	x, z, bar := make([]float64, 4*9), make([]float64, 4*9), make([]float64, 4*9)
	for i := range x {
		x[i], z[i], bar[i] = 1.5+float64(i), 0.25-float64(i)/8, -2+float64(i)/16
	}
	sc := func(m int) []float64 {
		s := make([]float64, m)
		for i := range s {
			s[i] = 0.75 + float64(i)/4
		}
		return s
	}
	y := []int32{1, 2, 3, 0}
	yOut := []int32{1, 2, 3, 4} // node 3's y past x
	xs, zs, bars := slices.Clone(x), slices.Clone(z), slices.Clone(bar)
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"node past yIdx", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{4}, sc(4)) }},
		{"negative node", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{-1}, sc(4)) }},
		{"y past x", func() { WriteRecords(x, 9, yOut, z, bar, 9, 9, []int32{3}, sc(4)) }},
		{"row past z", func() { WriteRecords(x, 9, y, z[:30], bar, 9, 9, []int32{3}, sc(4)) }},
		{"short sc", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{3}, sc(3)) }},
		{"valid node, then node past yIdx", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{0, 1, 4}, sc(12)) }},
		{"valid node, then negative node", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{0, -1}, sc(8)) }},
		{"valid node, then y past x", func() { WriteRecords(x, 9, yOut, z, bar, 9, 9, []int32{0, 3}, sc(8)) }},
		{"valid node, then row past z", func() { WriteRecords(x, 9, y, z[:30], bar, 9, 9, []int32{0, 3}, sc(8)) }},
		{"valid node, then row past bar", func() { WriteRecords(x, 9, y, z, bar[:30], 9, 9, []int32{0, 3}, sc(8)) }},
		{"valid nodes, short sc", func() { WriteRecords(x, 9, y, z, bar, 9, 9, []int32{0, 3}, sc(7)) }},
		{"average row past bar", func() { AverageRecords(z, bar[:35], 9, 9, []int32{3}, 1, 1) }},
		{"average huge stride", func() { AverageRecords(z, bar, 1<<62, 9, []int32{3}, 1, 1) }},
		{"average valid node, then row past bar", func() { AverageRecords(z, bar[:35], 9, 9, []int32{0, 3}, 0.75, 1.25) }},
		{"average valid node, then row past z", func() { AverageRecords(z[:30], bar, 9, 9, []int32{1, 3}, 0.75, 1.25) }},
		{"average valid node, then negative node", func() { AverageRecords(z, bar, 9, 9, []int32{0, -1}, 0.75, 1.25) }},
	} {
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: %s did not panic", impl, c.name)
					}
				}()
				c.fn()
			})
			for _, p := range []struct {
				name      string
				got, want []float64
			}{{"x", x, xs}, {"z", z, zs}, {"bar", bar, bars}} {
				for i := range p.want {
					if !sameBits(p.got[i], p.want[i]) {
						t.Fatalf("%s: %s: %s[%d] written before panicking (%v, was %v)", impl, c.name, p.name, i, p.got[i], p.want[i])
					}
				}
			}
		}
	}
}

// FuzzRecords: WriteRecords and AverageRecords against the reference on
// values, sizes and node lists decoded from the input.
func FuzzRecords(f *testing.F) {
	f.Add([]byte{9, 3, 5, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			t.Skip()
		}
		n, rows, m, off := int(data[0]%40), 1+int(data[1]%8), int(data[2]%20), int(data[3]%8)
		data = data[4:]
		seed := uint64(len(data))
		for _, b := range data {
			seed = seed*131 + uint64(b)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		fs := fuzzFloats(data)
		val := func(r *rand.Rand) float64 {
			if len(fs) > 0 {
				v := fs[0]
				fs = fs[1:]
				return v
			}
			return recordsValue(r)
		}
		checkRecords(t, newRecordsCase(r, rows, n, m, off, val), "fuzz")
	})
}

// BenchmarkRecords: WriteRecords and AverageRecords over a block end at
// the paper's size (n = 699 records of d = 9 in [z | θ̄] records, 3 nodes
// in 7 listed), per implementation; the metric is ns per listed node.
func BenchmarkRecords(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	c := newRecordsCase(r, 699, 9, 0, 0, func(r *rand.Rand) float64 { return r.NormFloat64() })
	for k := range 699 {
		if r.IntN(7) < 3 {
			c.nodes = append(c.nodes, int32(k))
			c.sc = append(c.sc, 0.5, 0.25, 0, 0) // bounded under repetition
		}
	}
	for _, impl := range Implementations() {
		for _, kern := range []string{"write", "average"} {
			b.Run(impl+"/"+kern, func(b *testing.B) {
				withImpl(b, impl, func() {
					for b.Loop() {
						if kern == "write" {
							WriteRecords(c.x, c.sx, c.yIdx, c.z, c.bar, c.sr, c.n, c.nodes, c.sc)
						} else {
							AverageRecords(c.z, c.bar, c.sr, c.n, c.nodes, 0.5, 0.25)
						}
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.nodes)), "ns/node")
			})
		}
	}
}
