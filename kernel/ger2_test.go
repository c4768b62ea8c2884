package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ger2Case is one Ger2 problem: a rows×n block with row stride stride.
type ger2Case struct {
	rows, n, stride int
	a, x, y, u, v   []float64
	z               []float64 // Ger2Dot's vector (len rows)
}

func randomGer2(r *rand.Rand, rows, n, gap int, special bool) ger2Case {
	c := ger2Case{rows: rows, n: n, stride: n + gap}
	val := func() float64 {
		if special && r.IntN(16) == 0 {
			return []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 0x1p-1070, math.MaxFloat64}[r.IntN(7)]
		}
		return sign(r) * math.Ldexp(r.Float64(), r.IntN(40)-20)
	}
	fill := func(k int) []float64 {
		s := make([]float64, k)
		for i := range s {
			s[i] = val()
		}
		return s
	}
	size := 0
	if rows > 0 {
		size = (rows-1)*c.stride + n
	}
	c.a, c.x, c.y, c.u, c.v, c.z = fill(size), fill(rows), fill(n), fill(rows), fill(n), fill(rows)
	return c
}

// run applies Ger2 in the active implementation to c's arrays placed at
// unaligned offsets inside guard padding and returns a, failing the test
// if a guard element or an element between rows (stride > n) changed.
func (c ger2Case) run(t testing.TB, off int, desc string) []float64 {
	a, _ := c.runDot(t, off, desc, false)
	return a
}

// runDot is run, with dot Ger2Dot (returning out too).
func (c ger2Case) runDot(t testing.TB, off int, desc string, dot bool) (_, _ []float64) {
	t.Helper()
	ga := newGuarded(c.a, off%8)
	gx, gy, gu, gv := newGuarded(c.x, (off+1)%8), newGuarded(c.y, (off+3)%8), newGuarded(c.u, (off+5)%8), newGuarded(c.v, (off+6)%8)
	// out starts as NaN: Ger2Dot must overwrite it, not add to it.
	stale := make([]float64, c.n)
	for i := range stale {
		stale[i] = math.NaN()
	}
	gz, gout := newGuarded(c.z, (off+7)%8), newGuarded(stale, (off+2)%8)
	a := ga.s()
	if dot {
		Ger2Dot(a, c.stride, gx.s(), gy.s(), gu.s(), gv.s(), gz.s(), gout.s())
	} else {
		Ger2(a, c.stride, gx.s(), gy.s(), gu.s(), gv.s())
	}
	for k, g := range []guarded{ga, gx, gy, gu, gv, gz, gout} {
		if at, ok := g.intact(); !ok {
			t.Fatalf("%s: array %d: guard element %d overwritten", desc, k, at)
		}
	}
	for q := 0; q+1 < c.rows; q++ {
		for j := q*c.stride + c.n; j < (q+1)*c.stride; j++ {
			if math.Float64bits(a[j]) != math.Float64bits(c.a[j]) {
				t.Fatalf("%s: element %d between rows %d and %d changed", desc, j, q, q+1)
			}
		}
	}
	return append([]float64(nil), a...), append([]float64(nil), gout.s()...)
}

// checkDot compares Ger2Dot's sums with the reference's within the bound of
// a reassociated sum of rows products (anything where that bound is not
// finite).
func checkDot(t testing.TB, c ger2Case, aNew, got, want []float64, desc string) {
	t.Helper()
	for k := range want {
		var s float64
		for q := 0; q < c.rows; q++ {
			s += math.Abs(c.z[q] * aNew[q*c.stride+k])
		}
		if math.IsInf(s, 0) || math.IsNaN(s) {
			continue
		}
		if w, g := want[k], got[k]; !(math.Abs(g-w) <= tolerance(c.rows, s)) {
			t.Fatalf("%s: out[%d] = %v, want %v (|Σ| bound %v)", desc, k, g, w, s)
		}
	}
}

// TestGer2: every implementation gives the reference's bits (and those of
// two unfused rank-1 updates) for rows 0..9, 17, 40 and n = 0..130, with
// row strides n..n+3, arrays at unaligned offsets inside guard padding, and
// non-finite and tiny values; nothing outside the rows×n block is written.
func TestGer2(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	rowsList := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 40}
	for n := 0; n <= 130; n++ {
		for _, rows := range rowsList {
			gap := r.IntN(4)
			c := randomGer2(r, rows, n, gap, n%3 == 0)
			want := append([]float64(nil), c.a...)
			ger2Generic(want, c.stride, c.x, c.y, c.u, c.v)
			// Two rank-1 updates a += (−x)·yᵀ, a += (−u)·vᵀ (gonum's Dger).
			two := append([]float64(nil), c.a...)
			for q := 0; q < rows; q++ {
				row := two[q*c.stride : q*c.stride+n]
				for k := range row {
					row[k] += float64(-c.x[q] * c.y[k])
				}
				for k := range row {
					row[k] += float64(-c.u[q] * c.v[k])
				}
			}
			for i := range want {
				if !sameBits(want[i], two[i]) {
					t.Fatalf("rows=%d n=%d: reference %v, two rank-1 updates %v at %d", rows, n, want[i], two[i], i)
				}
			}
			checkGer2(t, c, n+rows, "")
		}
	}
}

// checkGer2 runs Ger2 and Ger2Dot on c in every implementation (through run
// and runDot, at offsets off and off+1) and compares a with the reference's
// bits and Ger2Dot's sums with checkDot. what prefixes failure messages.
func checkGer2(t testing.TB, c ger2Case, off int, what string) {
	t.Helper()
	want := append([]float64(nil), c.a...)
	ger2Generic(want, c.stride, c.x, c.y, c.u, c.v)
	wantA, wantOut := append([]float64(nil), c.a...), make([]float64, c.n)
	ger2DotGeneric(wantA, c.stride, c.x, c.y, c.u, c.v, c.z, wantOut)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			desc := fmt.Sprintf("%s%s rows=%d n=%d stride=%d", what, impl, c.rows, c.n, c.stride)
			got := c.run(t, off, desc)
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Fatalf("%s: a[%d] = %v, want %v", desc, i, got[i], want[i])
				}
			}
			desc += " Ger2Dot"
			gotA, gotOut := c.runDot(t, off+1, desc, true)
			for i := range wantA {
				if !sameBits(gotA[i], wantA[i]) {
					t.Fatalf("%s: a[%d] = %v, want %v", desc, i, gotA[i], wantA[i])
				}
			}
			checkDot(t, c, wantA, gotOut, wantOut, desc)
		})
	}
}

// TestGer2Symmetric: the tridiagonalisation's call, x = v = h and y = u =
// w (the vectors alias one another, not a), on a full square matrix.
func TestGer2Symmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 2, 7, 8, 15, 16, 33, 40, 64} {
		c := randomGer2(r, m, m, 0, false)
		want := append([]float64(nil), c.a...)
		ger2Generic(want, m, c.x, c.y, c.y, c.x)
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				got := append([]float64(nil), c.a...)
				Ger2(got, m, c.x, c.y, c.y, c.x)
				for i := range want {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("%s m=%d: a[%d] = %v, want %v", impl, m, i, got[i], want[i])
					}
				}
			})
		}
	}
}

// TestGer2Chunked: a block of more than chunk elements, which the wrapper
// splits into calls by rows (three here), gives the reference's bits in
// Ger2 and in Ger2Dot, whose calls advance z and add to out across the
// split; guards intact.
func TestGer2Chunked(t *testing.T) {
	if testing.Short() {
		t.Skip("large block")
	}
	r := rand.New(rand.NewPCG(5, 6))
	c := randomGer2(r, chunk/500+3, 1000, 1, false)
	checkGer2(t, c, 3, "chunked ")
}

func TestGer2Panics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"u", func() {
			Ger2(make([]float64, 9), 3, make([]float64, 3), make([]float64, 3), make([]float64, 2), make([]float64, 3))
		}},
		{"v", func() {
			Ger2(make([]float64, 9), 3, make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2))
		}},
		{"stride", func() {
			Ger2(make([]float64, 9), 2, make([]float64, 2), make([]float64, 3), make([]float64, 2), make([]float64, 3))
		}},
		{"a", func() {
			Ger2(make([]float64, 8), 3, make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3))
		}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

func TestGer2NoAlloc(t *testing.T) {
	a, h, w, o := make([]float64, 40*40), make([]float64, 40), make([]float64, 40), make([]float64, 40)
	if n := testing.AllocsPerRun(100, func() { Ger2(a, 40, h, w, w, h); Ger2Dot(a, 40, h, w, w, h, h, o) }); n != 0 {
		t.Fatalf("%v allocs per call", n)
	}
}

// FuzzGer2: arbitrary shapes and bit patterns, every implementation against
// the reference bit for bit, guards intact.
func FuzzGer2(f *testing.F) {
	f.Add([]byte{3, 5, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{40, 40, 0, 9})
	f.Add([]byte{1, 130, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, n, gap, off, r, rest, ok := fuzzBlockShape(data)
		if !ok {
			return
		}
		c := randomGer2(r, rows, n, gap, true)
		fuzzOverwriteBits(c.a, rest)
		checkGer2(t, c, off, "fuzz ")
	})
}

// fuzzBlockShape decodes the shape of a fuzzed row-major block (the Ger2 and
// Householder fuzz targets): rows < 41, a row length n < 131, a stride gap
// < 4, an offset, a generator seeded from bytes 4..11, and the bytes after
// them (raw bit patterns for fuzzOverwriteBits). ok is false for inputs
// shorter than 4 bytes.
func fuzzBlockShape(data []byte) (rows, n, gap, off int, r *rand.Rand, rest []byte, ok bool) {
	if len(data) < 4 {
		return 0, 0, 0, 0, nil, nil, false
	}
	rows, n, gap, off = int(data[0])%41, int(data[1])%131, int(data[2])%4, int(data[3])
	seed := uint64(0)
	if len(data) >= 12 {
		seed = binary.LittleEndian.Uint64(data[4:12])
	}
	return rows, n, gap, off, rand.New(rand.NewPCG(seed, uint64(len(data)))), data[min(len(data), 12):], true
}

// fuzzOverwriteBits overwrites the first values of dst with the raw bit
// patterns of rest, eight bytes each.
func fuzzOverwriteBits(dst []float64, rest []byte) {
	for i := 0; i+8 <= len(rest) && i/8 < len(dst); i += 8 {
		dst[i/8] = math.Float64frombits(binary.LittleEndian.Uint64(rest[i:]))
	}
}

// fuzzFloats decodes b as little-endian float64 bit patterns, eight bytes
// each (a shorter tail ignored).
func fuzzFloats(b []byte) []float64 {
	fs := make([]float64, 0, len(b)/8)
	for ; len(b) >= 8; b = b[8:] {
		fs = append(fs, math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return fs
}
