package layout

import (
	"testing"
	"unsafe"
)

func TestAlignmentAndPadding(t *testing.T) {
	for _, cols := range []int{0, 1, 7, 8, 9, 16, 17, 40, 1600} {
		m := New(13, cols)
		if m.Stride%LineFloats != 0 || m.Stride < cols {
			t.Fatalf("cols %d: stride %d", cols, m.Stride)
		}
		for i := 0; i < m.Rows; i++ {
			r := m.PaddedRow(i)
			if uintptr(unsafe.Pointer(&r[0]))%64 != 0 {
				t.Fatalf("cols %d row %d not 64-byte aligned", cols, i)
			}
			if len(m.Row(i)) != cols {
				t.Fatalf("row length %d want %d", len(m.Row(i)), cols)
			}
		}
		g := m.General()
		if g.Rows != 13 || g.Cols != cols || g.Stride != m.Stride {
			t.Fatal("General view mismatch")
		}
	}
}

func TestFromDense(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	m := FromDense(2, 3, a)
	if m.Row(1)[2] != 6 || m.PaddedRow(0)[3] != 0 {
		t.Fatalf("bad copy %v", m.Data)
	}
}

func TestShards(t *testing.T) {
	for n := 0; n < 100; n++ {
		for parts := 1; parts <= 9; parts++ {
			s := Shards(n, parts)
			next := 0
			for k, r := range s {
				if r.Lo != next || r.Hi <= r.Lo {
					t.Fatalf("n=%d parts=%d: bad shard %d %v", n, parts, k, s)
				}
				if k > 0 && r.Lo%LineFloats != 0 {
					t.Fatalf("n=%d parts=%d: shard %d starts at %d", n, parts, k, r.Lo)
				}
				next = r.Hi
			}
			if next != n || len(s) > parts {
				t.Fatalf("n=%d parts=%d: covers %d in %d shards", n, parts, next, len(s))
			}
		}
	}
}

func TestNewRecords(t *testing.T) {
	f := NewRecords(5, 3, 9, 1)
	if f[0].Stride != 8+16+8 || f[1].Stride != f[0].Stride {
		t.Fatalf("stride %d", f[0].Stride)
	}
	for k, m := range f {
		for i := 0; i < 5; i++ {
			r := m.Row(i)
			if uintptr(unsafe.Pointer(&r[0]))%64 != 0 {
				t.Fatalf("field %d row %d unaligned", k, i)
			}
			for j := range r {
				r[j] = float64(100*k + j)
			}
		}
	}
	// Fields do not overlap.
	for k, m := range f {
		for i := 0; i < 5; i++ {
			for j, v := range m.Row(i) {
				if v != float64(100*k+j) {
					t.Fatalf("field %d row %d overwritten", k, i)
				}
			}
		}
	}
	g := f[1].General()
	if g.Stride != f[1].Stride || g.Cols != 9 {
		t.Fatal("General view")
	}
}

// TestAdopt: a slice already laid out as a Matrix (cols a multiple of 8,
// 64-byte aligned) is adopted without a copy; any other is copied, padded.
func TestAdopt(t *testing.T) {
	a := AlignedFloats(5 * 16)
	for i := range a {
		a[i] = float64(i)
	}
	m, ok := Adopt(5, 16, a)
	if !ok || &m.Data[0] != &a[0] || m.Stride != 16 || m.Row(3)[2] != 50 {
		t.Fatalf("aligned 5×16 not adopted: ok=%v stride=%d", ok, m.Stride)
	}
	for _, c := range []struct {
		rows, cols int
		a          []float64
	}{{5, 9, AlignedFloats(45)}, {5, 16, AlignedFloats(5*16 + 1)[1:]}} {
		for i := range c.a {
			c.a[i] = float64(i)
		}
		m, ok := Adopt(c.rows, c.cols, c.a)
		if ok || &m.Data[0] == &c.a[0] || m.Stride != Stride(c.cols) {
			t.Fatalf("%d×%d: adopted=%v, stride %d", c.rows, c.cols, ok, m.Stride)
		}
		for i := 0; i < c.rows; i++ {
			for j := 0; j < c.cols; j++ {
				if m.Row(i)[j] != c.a[i*c.cols+j] {
					t.Fatalf("%d×%d: element (%d,%d) differs", c.rows, c.cols, i, j)
				}
			}
		}
	}
}

// Prefault keeps a zeroed slice zeroed, at every length and offset (whole
// pages, a partial page before them, a tail).
func TestPrefaultKeepsZeros(t *testing.T) {
	for _, n := range []int{0, 1, 7, 511, 512, 513, 1500, 4097} {
		for off := range 3 {
			buf := make([]float64, n+off)[off:]
			Prefault(buf)
			for i, v := range buf {
				if v != 0 {
					t.Fatalf("n=%d off=%d: element %d is %v", n, off, i, v)
				}
			}
		}
	}
	for _, m := range []Matrix{New(3, 5), NewLazy(3, 5), NewLazy(0, 4)} {
		if len(m.Data) != m.Rows*m.Stride {
			t.Fatalf("%d×%d: len %d", m.Rows, m.Cols, len(m.Data))
		}
		for _, v := range m.Data {
			if v != 0 {
				t.Fatal("not zeroed")
			}
		}
	}
}

// prefaultParts covers [0, n) with contiguous parts in order, every part
// but the first on a 2 MiB boundary and none empty, for sizes around the
// split and any address; PrefaultWorkers keeps a zeroed buffer zeroed.
func TestPrefaultWorkers(t *testing.T) {
	const perHuge = prefaultSplit / 8
	for _, n := range []int{1, perHuge, 2*perHuge - 1, 2 * perHuge, 2*perHuge + 1, 5*perHuge + 77, 64 * perHuge} {
		for _, addr := range []uintptr{0, 64, 4096, prefaultSplit - 8, 3*prefaultSplit + 4096} {
			for _, w := range []int{1, 2, 3, 8, 100} {
				parts := prefaultParts(addr, n, w)
				if len(parts) == 0 || len(parts) > w || parts[0][0] != 0 || parts[len(parts)-1][1] != n {
					t.Fatalf("n=%d addr=%d w=%d: parts %v", n, addr, w, parts)
				}
				for i, p := range parts {
					if p[1] <= p[0] {
						t.Fatalf("n=%d addr=%d w=%d: empty part %v", n, addr, w, parts)
					}
					if i > 0 && (p[0] != parts[i-1][1] || (addr+uintptr(p[0])*8)%prefaultSplit != 0) {
						t.Fatalf("n=%d addr=%d w=%d: part %d of %v", n, addr, w, i, parts)
					}
				}
				if n >= 4*perHuge && w >= 2 && len(parts) < 2 {
					t.Fatalf("n=%d w=%d: not split", n, w)
				}
			}
		}
	}
	for _, w := range []int{1, 2, 3} {
		buf := LazyFloats(3*perHuge + 1000)
		PrefaultWorkers(buf, w)
		for i, v := range buf {
			if v != 0 {
				t.Fatalf("workers %d: element %d is %v", w, i, v)
			}
		}
	}
}
