package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// householderCheck runs Householder in every implementation on y (a
// (rows+1)×n block, row stride stride) and h placed at unaligned offsets
// inside guard padding, against the reference bit for bit, with the guards
// and the elements between rows untouched.
func householderCheck(t testing.TB, y []float64, stride, n int, h []float64, tau float64, off int, desc string) {
	t.Helper()
	want := append([]float64(nil), y...)
	householderGeneric(want, stride, n, h, tau)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			gy, gh := newGuarded(y, off%8), newGuarded(h, (off+3)%8)
			Householder(gy.s(), stride, n, gh.s(), tau)
			for k, g := range []guarded{gy, gh} {
				if at, ok := g.intact(); !ok {
					t.Fatalf("%s %s: array %d: guard element %d overwritten", impl, desc, k, at)
				}
			}
			got := gy.s()
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Fatalf("%s %s: y[%d] = %v, want %v", impl, desc, i, got[i], want[i])
				}
			}
			for r := 0; r < len(h); r++ {
				for j := r*stride + n; j < (r+1)*stride; j++ {
					if !sameBits(got[j], y[j]) {
						t.Fatalf("%s %s: element %d between rows changed", impl, desc, j)
					}
				}
			}
		})
	}
}

func randomHouseholder(r *rand.Rand, rows, n, gap int, special bool) (y []float64, stride int, h []float64, tau float64) {
	val := func() float64 {
		if special && r.IntN(16) == 0 {
			return []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), 0x1p-1070, math.MaxFloat64}[r.IntN(7)]
		}
		return sign(r) * math.Ldexp(r.Float64(), r.IntN(20)-10)
	}
	stride = n + gap
	y = make([]float64, rows*stride+n)
	for i := range y {
		y[i] = val()
	}
	h = make([]float64, rows)
	for i := range h {
		h[i] = val()
	}
	return y, stride, h, val()
}

// TestHouseholder: every implementation gives the reference's bits for
// rows 0..9, 17, 40 and n = 0..130 (strides n..n+3), unaligned inside guard
// padding, with non-finite and tiny values.
func TestHouseholder(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for n := 0; n <= 130; n++ {
		for _, rows := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 40} {
			y, stride, h, tau := randomHouseholder(r, rows, n, r.IntN(4), n%3 == 0)
			householderCheck(t, y, stride, n, h, tau, n+rows, "")
		}
	}
}

// TestHouseholderReflects: with τ = 2/(vᵀv) the reference is a reflection:
// applied twice to the identity's columns it gives them back (to rounding),
// and once it maps v to −v.
func TestHouseholderReflects(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for _, m := range []int{1, 2, 5, 16, 33} {
		h := make([]float64, m-1)
		vv := 1.0
		for i := range h {
			h[i] = r.NormFloat64()
			vv += h[i] * h[i]
		}
		tau := 2 / vv
		y := make([]float64, m*m)
		for i := 0; i < m; i++ {
			y[i*m+i] = 1
		}
		Householder(y, m, m, h, tau)
		Householder(y, m, m, h, tau)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(y[i*m+j]-want) > 1e-14*float64(m) {
					t.Fatalf("m=%d: H·H[%d,%d] = %v", m, i, j, y[i*m+j])
				}
			}
		}
		v := append(append([]float64(nil), h...), 1)
		Householder(v, 1, 1, h, tau) // stride 1: rows of one element
		for i, x := range v {
			want := -1.0
			if i < len(h) {
				want = -h[i]
			}
			if math.Abs(x-want) > 1e-14*float64(m)*math.Max(1, math.Abs(want)) {
				t.Fatalf("m=%d: H·v[%d] = %v, want %v", m, i, x, want)
			}
		}
	}
}

func TestHouseholderPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"stride", func() { Householder(make([]float64, 10), 2, 3, make([]float64, 2), 1) }},
		{"short", func() { Householder(make([]float64, 8), 3, 3, make([]float64, 2), 1) }},
		{"n", func() { Householder(make([]float64, 8), 3, -1, make([]float64, 2), 1) }},
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

func TestHouseholderNoAlloc(t *testing.T) {
	y, h := make([]float64, 40*24), make([]float64, 39)
	if n := testing.AllocsPerRun(100, func() { Householder(y, 24, 20, h, 0.5) }); n != 0 {
		t.Fatalf("%v allocs per call", n)
	}
}

// FuzzHouseholder: arbitrary shapes and values against the reference, bit
// for bit, in every implementation.
func FuzzHouseholder(f *testing.F) {
	f.Add([]byte{3, 5, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{39, 24, 0, 9})
	f.Add([]byte{1, 130, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, n, gap, off, r, rest, ok := fuzzBlockShape(data)
		if !ok {
			return
		}
		y, stride, h, tau := randomHouseholder(r, rows, n, gap, true)
		fuzzOverwriteBits(y, rest)
		householderCheck(t, y, stride, n, h, tau, off, "fuzz")
	})
}
