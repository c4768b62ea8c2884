package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// Every kernel is checked, in every implementation this CPU supports,
// against its generic reference (called directly):
//
//   - element-wise outputs must be bit-identical (or both NaN): no
//     implementation uses FMA or reorders an element-wise computation;
//   - a reduction's result r must satisfy
//     |r − ref| ≤ 4·(n+4)·2⁻⁵³·S + (n+1)·2⁻¹⁰⁷⁴, with S = Σ|term_i| the
//     sum of the magnitudes of the reference's rounded terms. Any
//     summation order, with or without FMA, is within (n+1)·u·S of the
//     exact sum (u = 2⁻⁵³), so two of them are within about 2(n+1)·u·S;
//     the second part covers products rounded in the subnormal range. For
//     n ≤ 130 this is tighter than 1e-13·S. When S overflows the
//     comparison is skipped (different orders may legitimately overflow
//     differently);
//   - inputs are not modified, and nothing outside the slices is written:
//     each slice sits in a buffer whose other elements hold a sentinel
//     (a signalling NaN with a payload, which no arithmetic produces, so
//     reading one into a result would also show);
//   - slices start at element offsets 0 (64-byte aligned, like layout
//     rows), 1, 3, 5 or 7 of a 64-byte line.

// kspec describes one kernel to the generic checker.
type kspec struct {
	name    string
	arrays  []string // slice parameters, in order
	scalars int      // float64 parameters
	outputs []int    // indices of the slices written
	reduce  bool     // returns a float64 computed by a reduction
	// ref calls the generic reference, api the exported wrapper (which
	// runs the active implementation).
	ref, api func(s [][]float64, p []float64) float64
	// terms returns the reference's terms of the reduction, given the
	// inputs before the call and the reference's outputs.
	terms func(in, out [][]float64, p []float64) []float64
}

var kernels = []kspec{
	{
		name: "SyncLinear", arrays: []string{"z", "bar", "x", "y"}, scalars: 4, outputs: []int{0, 1}, reduce: true,
		ref: func(s [][]float64, p []float64) float64 {
			return syncLinearGeneric(s[0], s[1], s[2], s[3], p[0], p[1], p[2], p[3])
		},
		api: func(s [][]float64, p []float64) float64 {
			return SyncLinear(s[0], s[1], s[2], s[3], p[0], p[1], p[2], p[3])
		},
		terms: func(in, out [][]float64, p []float64) []float64 {
			t := make([]float64, len(in[0]))
			for i := range t {
				t[i] = float64((in[2][i] - in[3][i]) * (p[1] * out[0][i]))
			}
			return t
		},
	},
	{
		name: "Scale", arrays: []string{"dst", "src"}, scalars: 1, outputs: []int{0},
		ref: func(s [][]float64, p []float64) float64 { scaleGeneric(s[0], s[1], p[0]); return 0 },
		api: func(s [][]float64, p []float64) float64 { Scale(s[0], s[1], p[0]); return 0 },
	},
	eventPreSpec(0), eventPreSpec(1),
	{
		name: "Triad", arrays: []string{"a", "b", "c"}, scalars: 1, outputs: []int{0},
		ref: func(s [][]float64, p []float64) float64 { triadGeneric(s[0], s[1], s[2], p[0]); return 0 },
		api: func(s [][]float64, p []float64) float64 { Triad(s[0], s[1], s[2], p[0]); return 0 },
	},
}

// eventPreSpec checks EventPre's element-wise outputs (the swapped y, the
// averaged z) and its margin e (0: m_i, 1: m_j).
func eventPreSpec(e int) kspec {
	return kspec{
		name: [2]string{"EventPre.mi", "EventPre.mj"}[e], arrays: []string{"xi", "yi", "zi", "xj", "yj", "zj"}, scalars: 2,
		outputs: []int{1, 2, 4, 5}, reduce: true,
		ref: func(s [][]float64, p []float64) float64 {
			m := [2]float64{}
			m[0], m[1] = eventPreGeneric(s[0], s[1], s[2], s[3], s[4], s[5], p[0], p[1])
			return m[e]
		},
		api: func(s [][]float64, p []float64) float64 {
			m := [2]float64{}
			m[0], m[1] = EventPre(s[0], s[1], s[2], s[3], s[4], s[5], p[0], p[1])
			return m[e]
		},
		terms: func(in, _ [][]float64, p []float64) []float64 {
			x, y, z := in[3*e], in[4-3*e], in[2+3*e] // endpoint e's x, its new y (the other's old), its z
			t := make([]float64, len(x))
			for i := range t {
				t[i] = float64((x[i] - y[i]) * float64(p[e]*z[i]))
			}
			return t
		},
	}
}

func kernelByName(name string) kspec {
	for _, k := range kernels {
		if k.name == name {
			return k
		}
	}
	panic("no kernel " + name)
}

// sentinel fills the guard elements: a signalling NaN with a payload.
var sentinel = math.Float64frombits(0x7ff4_dead_beef_0bad)

const guard = 16 // guard elements on each side (a multiple of 8)

// alignedFloats returns n float64 starting on a 64-byte boundary.
func alignedFloats(n int) []float64 {
	buf := make([]float64, n+8)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}

// guarded is a slice placed at element offset off of a 64-byte line
// inside a buffer of sentinels.
type guarded struct {
	all   []float64
	lo, n int
}

func newGuarded(vals []float64, off int) guarded {
	g := guarded{all: alignedFloats(2*guard + 8 + len(vals)), lo: guard + off, n: len(vals)}
	for i := range g.all {
		g.all[i] = sentinel
	}
	copy(g.all[g.lo:], vals)
	return g
}

func (g guarded) s() []float64 { return g.all[g.lo : g.lo+g.n : g.lo+g.n] }

// intact reports the first guard element that no longer holds the sentinel.
func (g guarded) intact() (int, bool) {
	for i, v := range g.all {
		if (i < g.lo || i >= g.lo+g.n) && math.Float64bits(v) != math.Float64bits(sentinel) {
			return i - g.lo, false
		}
	}
	return 0, true
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// tolerance is the bound on |reduction − reference| for n terms whose
// magnitudes sum to s.
func tolerance(n int, s float64) float64 {
	return 4*float64(n+4)*0x1p-53*s + float64(n+1)*0x1p-1074
}

// withImpl runs fn with implementation name active, restoring the previous
// one afterwards.
func withImpl(t testing.TB, name string, fn func()) {
	t.Helper()
	prev := Active()
	if err := Use(name); err != nil {
		t.Fatalf("Use(%q): %v", name, err)
	}
	defer func() {
		if err := Use(prev); err != nil {
			t.Fatalf("Use(%q): %v", prev, err)
		}
	}()
	fn()
}

func clone2(s [][]float64) [][]float64 {
	c := make([][]float64, len(s))
	for i := range s {
		c[i] = slices.Clone(s[i])
	}
	return c
}

// check runs kernel k on inputs vals and scalars p in every implementation,
// each slice i at element offset offs[i%len(offs)], and compares with the
// reference. desc describes the case in failure messages.
func check(t testing.TB, k kspec, vals [][]float64, p []float64, offs []int, desc string) {
	t.Helper()
	refOut := clone2(vals)
	want := k.ref(refOut, p)
	var s float64
	checkReduce := false
	if k.reduce {
		for _, v := range k.terms(vals, refOut, p) {
			s += math.Abs(v)
		}
		checkReduce = s <= math.MaxFloat64/2 && !math.IsNaN(s)
	}
	n := len(vals[0])
	for _, impl := range Implementations() {
		gs := make([]guarded, len(vals))
		args := make([][]float64, len(vals))
		for i := range vals {
			gs[i] = newGuarded(vals[i], offs[i%len(offs)])
			args[i] = gs[i].s()
		}
		var got float64
		withImpl(t, impl, func() { got = k.api(args, p) })
		for i, g := range gs {
			if j, ok := g.intact(); !ok {
				t.Fatalf("%s/%s %s: wrote %s[%d], outside the slice (len %d)", k.name, impl, desc, k.arrays[i], j, n)
			}
			for e := range n {
				if !sameBits(args[i][e], refOut[i][e]) {
					what := "input modified"
					if slices.Contains(k.outputs, i) {
						what = "differs from the reference"
					}
					t.Fatalf("%s/%s %s: %s[%d] = %v (%#x), reference %v (%#x): %s",
						k.name, impl, desc, k.arrays[i], e, args[i][e], math.Float64bits(args[i][e]),
						refOut[i][e], math.Float64bits(refOut[i][e]), what)
				}
			}
		}
		if checkReduce {
			if tol := tolerance(n, s); !(math.Abs(got-want) <= tol) {
				t.Fatalf("%s/%s %s: got %v, reference %v: |diff| = %g > tolerance %g (Σ|terms| = %g)",
					k.name, impl, desc, got, want, math.Abs(got-want), tol, s)
			}
		} else if !k.reduce && got != 0 {
			t.Fatalf("%s: returned %v", k.name, got)
		}
	}
}

// A mode generates values of one kind.
type mode struct {
	name string
	gen  func(r *rand.Rand) float64
}

func sign(r *rand.Rand) float64 {
	if r.IntN(2) == 0 {
		return -1
	}
	return 1
}

var modes = []mode{
	{"normal", func(r *rand.Rand) float64 { return r.NormFloat64() }},
	{"zeros", func(r *rand.Rand) float64 { return 0 * sign(r) }},
	{"negative", func(r *rand.Rand) float64 { return -10 * math.Abs(r.NormFloat64()) }},
	{"large", func(r *rand.Rand) float64 { return sign(r) * (1 + r.Float64()) * 1e150 }},
	{"tiny", func(r *rand.Rand) float64 { return sign(r) * r.Float64() * 1e-160 }},
	{"spread", func(r *rand.Rand) float64 { return math.Ldexp(r.NormFloat64(), r.IntN(121)-60) }},
	{"mixed", func(r *rand.Rand) float64 {
		special := []float64{0, math.Copysign(0, -1), 1, -1, 1e150, -1e150, 5e-324, -1e-310,
			math.MaxFloat64 / 1e10, math.SmallestNonzeroFloat64, 0.1, -3}
		if r.IntN(2) == 0 {
			return special[r.IntN(len(special))]
		}
		return r.NormFloat64()
	}},
}

// scalarsFor returns kernel k's scalars: mostly values of the kind the
// engine passes (a = 1−1/t, b = 1/t, c < 0, w ∈ (−1, 0]), sometimes
// special ones.
func scalarsFor(k kspec, r *rand.Rand) []float64 {
	p := make([]float64, k.scalars)
	for i := range p {
		switch r.IntN(8) {
		case 0:
			p[i] = 0
		case 1:
			p[i] = []float64{1, -1, 1e100, -1e-100, math.Copysign(0, -1)}[r.IntN(5)]
		default:
			p[i] = r.NormFloat64()
		}
	}
	if k.scalars == 4 && r.IntN(2) == 0 { // w, c, a, b as in the engine
		tt := float64(1 + r.IntN(1000))
		p[0], p[1], p[2], p[3] = -r.Float64(), -r.Float64()/math.Sqrt(tt), 1-1/tt, 1/tt
	}
	return p
}

var offsetSets = [][]int{{0}, {1, 3, 5, 7}, {3, 0, 7, 1, 5}, {7, 5}}

// TestKernels checks every kernel in every implementation against its
// reference on every length 0..130, every mode, aligned and unaligned.
func TestKernels(t *testing.T) {
	t.Logf("implementations: %v (active %s)", Implementations(), Active())
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(k.name))))
			for n := 0; n <= 130; n++ {
				for _, m := range modes {
					for oi, offs := range offsetSets {
						vals := make([][]float64, len(k.arrays))
						for i := range vals {
							vals[i] = make([]float64, n)
							for e := range vals[i] {
								vals[i][e] = m.gen(r)
							}
						}
						p := scalarsFor(k, r)
						check(t, k, vals, p, offs, fmt.Sprintf("n=%d mode=%s offsets=%v scalars=%v", n, m.name, offsetSets[oi], p))
					}
				}
			}
		})
	}
}

// TestLong checks lengths beyond the chunk size, where the assembly wrappers
// split the call.
func TestLong(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, k := range kernels {
		r := rand.New(rand.NewPCG(2, 0))
		for _, n := range []int{chunk - 1, chunk, chunk + 1, 3*chunk + 17} {
			vals := make([][]float64, len(k.arrays))
			for i := range vals {
				vals[i] = make([]float64, n)
				for e := range vals[i] {
					vals[i][e] = r.NormFloat64()
				}
			}
			check(t, k, vals, scalarsFor(k, r), []int{0, 3}, fmt.Sprintf("n=%d", n))
		}
	}
}

// TestSpecialScalars checks the scalars' special values (zero, negative
// zero, one, large) on one row.
func TestSpecialScalars(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -1e200, 1e-300}
	r := rand.New(rand.NewPCG(3, 0))
	for _, k := range kernels {
		if k.scalars == 0 {
			continue
		}
		for trial := 0; trial < 200; trial++ {
			p := make([]float64, k.scalars)
			for i := range p {
				p[i] = specials[r.IntN(len(specials))]
			}
			n := 1 + r.IntN(40)
			vals := make([][]float64, len(k.arrays))
			for i := range vals {
				vals[i] = make([]float64, n)
				for e := range vals[i] {
					vals[i][e] = modes[r.IntN(len(modes))].gen(r)
				}
			}
			check(t, k, vals, p, offsetSets[trial%len(offsetSets)], fmt.Sprintf("n=%d scalars=%v", n, p))
		}
	}
}

// TestAliasing checks the documented exact aliasing: Scale(x, x, c).
func TestAliasing(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0))
	for n := 0; n <= 70; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		want := slices.Clone(x)
		scaleGeneric(want, slices.Clone(x), -1.5)
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				got := slices.Clone(x)
				Scale(got, got, -1.5)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: Scale(x, x, c), n=%d: %v, want %v", impl, n, got, want)
				}
			})
		}
	}
}

// TestTriadInPlace: Triad(y, y, x, s), the in-place axpy that problem's
// gemmNN runs a row at a time, gives the reference's bits in every
// implementation at every length 0..130 (each element is read before it is
// written, lane by lane, also in the masked tail).
func TestTriadInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0))
	for n := 0; n <= 130; n++ {
		y, x := make([]float64, n), make([]float64, n)
		for i := range y {
			y[i], x[i] = r.NormFloat64(), r.NormFloat64()
		}
		want := make([]float64, n)
		triadGeneric(want, y, x, 0.75)
		for _, impl := range Implementations() {
			withImpl(t, impl, func() {
				got := slices.Clone(y)
				Triad(got, got, x, 0.75)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: Triad(y, y, x, s), n=%d: %v, want %v", impl, n, got, want)
				}
			})
		}
	}
}

// TestKnownValues pins a few results by hand, independent of the references.
func TestKnownValues(t *testing.T) {
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			// One node, d = 3: z = 0, θ̄ = 0, t = 2 (a = b = 1/2), c = −2, w = 0.5.
			z, bar := []float64{0, 1, 0}, []float64{0, 0, 4}
			xx, yy := []float64{1, 1, 1}, []float64{0, 3, 1} // d = (1, −2, 0)
			m := SyncLinear(z, bar, xx, yy, 0.5, -2, 0.5, 0.5)
			// z = (0.5, 0, 0); θ = (−1, 0, 0); θ̄ = (−0.5, 0, 2); m = 1·(−1) = −1.
			if !slices.Equal(z, []float64{0.5, 0, 0}) || !slices.Equal(bar, []float64{-0.5, 0, 2}) || m != -1 {
				t.Errorf("%s: SyncLinear: z=%v θ̄=%v m=%v", impl, z, bar, m)
			}
			th := make([]float64, 3)
			Scale(th, []float64{1, -2, 0.25}, -2)
			if !slices.Equal(th, []float64{-2, 4, -0.5}) {
				t.Errorf("%s: Scale = %v", impl, th)
			}
			a := make([]float64, 5)
			Triad(a, []float64{1, 1, 1, 1, 1}, []float64{1, 2, 3, 4, 5}, 2)
			if !slices.Equal(a, []float64{3, 5, 7, 9, 11}) {
				t.Errorf("%s: Triad = %v", impl, a)
			}
		})
	}
}

// TestLengthMismatch checks that every kernel panics, naming itself and the
// slice, when lengths differ, whichever slice is off.
func TestLengthMismatch(t *testing.T) {
	for _, k := range kernels {
		for bad := range k.arrays {
			args := make([][]float64, len(k.arrays))
			for i := range args {
				args[i] = make([]float64, 5)
			}
			args[bad] = make([]float64, 4)
			p := make([]float64, k.scalars)
			func() {
				defer func() {
					r := recover()
					msg, _ := r.(string)
					api, _, _ := strings.Cut(k.name, ".") // EventPre.mi checks EventPre
					if !strings.Contains(msg, "kernel."+api+":") {
						t.Errorf("%s with len(%s) = 4: panic %v, want a message naming kernel.%s", k.name, k.arrays[bad], r, api)
					}
				}()
				k.api(args, p)
			}()
		}
	}
}

// TestNoAlloc checks that no kernel allocates, in any implementation.
func TestNoAlloc(t *testing.T) {
	const n = 100
	args := make([][]float64, 6)
	for i := range args {
		args[i] = make([]float64, n)
	}
	p := []float64{0.5, -0.1, 0.9, 0.1}
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			for _, k := range kernels {
				if a := testing.AllocsPerRun(100, func() { k.api(args[:len(k.arrays)], p[:k.scalars]) }); a != 0 {
					t.Errorf("%s/%s: %v allocations per call", k.name, impl, a)
				}
			}
		})
	}
}

func TestTriadGBps(t *testing.T) {
	// 3 arrays of 4096 floats: any machine does this at between 10 MB/s and
	// 10 TB/s, with one goroutine or several (more than GOMAXPROCS, too, and
	// more than elements).
	for _, th := range []int{1, 2, 3, 9} {
		g := TriadGBps(1<<12, 3, th)
		if !(g > 0.01 && g < 1e4) {
			t.Fatalf("TriadGBps(threads=%d) = %v GB/s, outside any plausible range", th, g)
		}
	}
	if g := TriadGBps(5, 2, 8); !(g > 0) {
		t.Fatalf("TriadGBps(5 elements, 8 threads) = %v", g)
	}
	for _, bad := range [][3]int{{0, 1, 1}, {1, 0, 1}, {-1, 5, 1}, {8, 1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("TriadGBps(%d, %d, %d) did not panic", bad[0], bad[1], bad[2])
				}
			}()
			TriadGBps(bad[0], bad[1], bad[2])
		}()
	}
}
