// Command asm generates the AVX2+FMA assembly kernels of package
// github.com/pairgossip/pairgossip/kernel with avo
// (github.com/mmcloughlin/avo). It is its own module so that avo never
// enters the main module's build.
//
// Calling convention: a kernel takes the base pointer of each array, then
// the element count n, then its float64 scalars (pointers and a count
// rather than slices: fewer argument words make a call of a short row
// about 10 ns cheaper). The exported Go wrappers in kernel/ check the
// slices' lengths once and split n into bounded chunks.
//
// One run writes one kernel: its assembly (-out) and its Go declaration
// (-stubs), both under the build constraint "amd64 && !noasm". The
// //go:generate lines in kernel/gen.go run it once per kernel:
//
//	go run . -kernel dot -out ../kernel/dot_amd64.s -stubs ../kernel/dot_amd64_stub.go
//
// Every kernel has the same loop shape (see loop): 16 doubles per iteration
// as four independent groups of one YMM register each (reductions keep one
// accumulator per group), then 4 doubles at a time, then a scalar tail; no
// access ever falls outside [0, n). The element-wise outputs are computed
// with the reference's operations in the reference's order and without
// FMA, so they are bit-identical to the pure-Go reference; only the
// reductions (dot products and margins) use FMA and reassociate.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var generators = map[string]func(){
	"dot":             genDot,
	"dotdiff":         genDotDiff,
	"axpy":            genAxpy,
	"synclinear":      func() { genSyncLinear(false) },
	"synclineartheta": func() { genSyncLinear(true) },
	"avgscaled":       genAvgScaled,
	"scale":           genScale,
	"triad":           genTriad,
	"logisticround":   genLogisticRound,
}

func main() {
	names := make([]string, 0, len(generators))
	for k := range generators {
		names = append(names, k)
	}
	sort.Strings(names)
	kernel := flag.String("kernel", "", "kernel to generate: "+strings.Join(names, ", "))
	flag.Parse()
	gen, ok := generators[*kernel]
	if !ok {
		fmt.Fprintf(os.Stderr, "asm: -kernel must be one of %s (got %q)\n", strings.Join(names, ", "), *kernel)
		os.Exit(2)
	}
	pkgSet := false
	flag.Visit(func(f *flag.Flag) { pkgSet = pkgSet || f.Name == "pkg" })
	if !pkgSet {
		if err := flag.Set("pkg", "kernel"); err != nil {
			panic(err)
		}
	}
	ConstraintExpr("amd64,!noasm") // old "+build" syntax: amd64 && !noasm
	gen()
	Generate()
}

// lane is one width of the loop body: 4 doubles in a YMM register (packed)
// or one double in the low lane of an XMM register (scalar). The
// arithmetic helpers take Go assembler operand order: dst = a op src.
type lane struct {
	width int
	reg   func() Register
	cst   func(VecVirtual) Register // a broadcast constant at this width
	load  func(m Mem, dst Register)
	store func(src Register, m Mem)
	add   func(src Op, a, dst Register) // dst = a + src
	sub   func(src Op, a, dst Register) // dst = a − src
	mul   func(src Op, a, dst Register) // dst = a · src
	fma   func(src Op, a, acc Register) // acc = a · src + acc (one rounding)
}

var packed = lane{
	width: 4,
	reg:   func() Register { return YMM() },
	cst:   func(v VecVirtual) Register { return v },
	load:  func(m Mem, dst Register) { VMOVUPD(m, dst) },
	store: func(src Register, m Mem) { VMOVUPD(src, m) },
	add:   func(src Op, a, dst Register) { VADDPD(src, a, dst) },
	sub:   func(src Op, a, dst Register) { VSUBPD(src, a, dst) },
	mul:   func(src Op, a, dst Register) { VMULPD(src, a, dst) },
	fma:   func(src Op, a, acc Register) { VFMADD231PD(src, a, acc) },
}

var scalar = lane{
	width: 1,
	reg:   func() Register { return XMM() },
	cst:   func(v VecVirtual) Register { return v.AsX() },
	load:  func(m Mem, dst Register) { VMOVSD(m, dst) },
	store: func(src Register, m Mem) { VMOVSD(src, m) },
	add:   func(src Op, a, dst Register) { VADDSD(src, a, dst) },
	sub:   func(src Op, a, dst Register) { VSUBSD(src, a, dst) },
	mul:   func(src Op, a, dst Register) { VMULSD(src, a, dst) },
	fma:   func(src Op, a, acc Register) { VFMADD231SD(src, a, acc) },
}

// step is one application of a kernel's body: lane width l, at elements
// i+off .. i+off+l.width−1, in group g (0..3; the accumulator it uses).
type step struct {
	l   lane
	g   int
	off int
	i   Register
}

// at is the memory operand of element i+off of the array at base.
func (s step) at(base Register) Mem {
	return Mem{Base: base, Index: s.i, Scale: 8, Disp: 8 * s.off}
}

// loop emits the loop over i in [0, n): 16 doubles per iteration as four
// groups of 4, then 4 at a time, then one at a time.
func loop(n Register, body func(s step)) {
	i, lim := GP64(), GP64()
	XORQ(i, i)
	MOVQ(n, lim)
	ANDQ(I32(-16), lim)
	Label("loop16")
	CMPQ(i, lim)
	JAE(LabelRef("tail4"))
	for g := 0; g < 4; g++ {
		body(step{l: packed, g: g, off: 4 * g, i: i})
	}
	ADDQ(U8(16), i)
	JMP(LabelRef("loop16"))

	Label("tail4")
	MOVQ(n, lim)
	ANDQ(I32(-4), lim)
	Label("loop4")
	CMPQ(i, lim)
	JAE(LabelRef("tail1"))
	body(step{l: packed, i: i})
	ADDQ(U8(4), i)
	JMP(LabelRef("loop4"))

	Label("tail1")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	body(step{l: scalar, i: i})
	INCQ(i)
	JMP(LabelRef("tail1"))
	Label("done")
}

// sum is a reduction's state: four YMM accumulators (one per group) and a
// scalar one for the tail, all starting at +0.
type sum struct {
	y [4]VecVirtual
	x VecVirtual
}

func newSum() *sum {
	s := &sum{}
	for g := range s.y {
		s.y[g] = YMM()
		VXORPD(s.y[g], s.y[g], s.y[g])
	}
	s.x = XMM()
	VXORPD(s.x, s.x, s.x)
	return s
}

// acc is the accumulator step s adds into.
func (r *sum) acc(s step) Register {
	if s.l.width == 1 {
		return r.x
	}
	return r.y[s.g]
}

// total reduces the accumulators, in the order
// ((y0+y1)+(y2+y3)) → (lane0+lane2, lane1+lane3) → sum of the two → + tail,
// and returns the XMM register whose low lane holds the result.
func (r *sum) total() Register {
	VADDPD(r.y[1], r.y[0], r.y[0])
	VADDPD(r.y[3], r.y[2], r.y[2])
	VADDPD(r.y[2], r.y[0], r.y[0])
	hi := XMM()
	VEXTRACTF128(U8(1), r.y[0], hi)
	lo := r.y[0].AsX()
	VADDPD(hi, lo, lo)
	VHADDPD(lo, lo, lo)
	VADDSD(r.x, lo, lo)
	return lo
}

// text starts function name with signature sig and doc comment doc. The
// kernels keep no pointer they are given, hence //go:noescape.
func text(name, sig, doc string) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc, "Each pointer addresses n elements; the Go wrapper checks the lengths and bounds n.")
}

// pointer loads pointer parameter name (the first element of an array).
func pointer(name string) Register { return Load(Param(name), GP64()) }

// length loads parameter n, the number of elements.
func length() Register { return Load(Param("n"), GP64()) }

// broadcast loads float64 parameter name into all four lanes of a YMM
// register, straight from its stack slot. (Not Load into an XMM register:
// that emits the legacy-SSE MOVSD, and a legacy-SSE instruction while the
// upper halves of the YMM registers are dirty costs hundreds of
// nanoseconds per call on some CPUs, this project's virtualised EPYC
// among them.)
func broadcast(name string) VecVirtual {
	p, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	y := YMM()
	VBROADCASTSD(p.Addr, y)
	return y
}

// finish returns the reduction's result (if any) and returns.
func finish(result Register) {
	VZEROUPPER()
	if result != nil {
		Store(result, ReturnIndex(0))
	}
	RET()
}

func genDot() {
	text("dotAVX2", "func(x, y *float64, n int) float64",
		"dotAVX2 returns Σ x[i]·y[i] over i < n (AVX2+FMA).")
	x, y, n := pointer("x"), pointer("y"), length()
	r := newSum()
	loop(n, func(s step) {
		v := s.l.reg()
		s.l.load(s.at(x), v)
		s.l.fma(s.at(y), v, r.acc(s))
	})
	finish(r.total())
}

func genDotDiff() {
	text("dotDiffAVX2", "func(x, y, t *float64, n int) float64",
		"dotDiffAVX2 returns Σ (x[i] − y[i])·t[i] over i < n (AVX2+FMA).")
	x, y, t, n := pointer("x"), pointer("y"), pointer("t"), length()
	r := newSum()
	loop(n, func(s step) {
		d := s.l.reg()
		s.l.load(s.at(x), d)
		s.l.sub(s.at(y), d, d)
		s.l.fma(s.at(t), d, r.acc(s))
	})
	finish(r.total())
}

func genAxpy() {
	text("axpyAVX2", "func(x, y *float64, n int, a float64)",
		"axpyAVX2 sets y[i] += a·x[i] for i < n (AVX2, no FMA: bit-identical to the reference).")
	a := broadcast("a")
	x, y, n := pointer("x"), pointer("y"), length()
	loop(n, func(s step) {
		v := s.l.reg()
		s.l.mul(s.at(x), s.l.cst(a), v) // a·x
		s.l.add(s.at(y), v, v)          // y + a·x
		s.l.store(v, s.at(y))
	})
	finish(nil)
}

func genSyncLinear(theta bool) {
	if theta {
		text("syncLinearThetaAVX2", "func(z, th, bar, x, y *float64, n int, w, c, a, b float64) float64",
			"syncLinearThetaAVX2 is the fused node update of SyncLinearTheta (AVX2+FMA).")
	} else {
		text("syncLinearAVX2", "func(z, bar, x, y *float64, n int, w, c, a, b float64) float64",
			"syncLinearAVX2 is the fused node update of SyncLinear (AVX2+FMA).")
	}
	W, C, A, B := broadcast("w"), broadcast("c"), broadcast("a"), broadcast("b")
	z := pointer("z")
	var th Register
	if theta {
		th = pointer("th")
	}
	bar, x, y, n := pointer("bar"), pointer("x"), pointer("y"), length()
	r := newSum()
	loop(n, func(s step) {
		l := s.l
		d := l.reg()
		l.load(s.at(x), d)
		l.sub(s.at(y), d, d) // d = x − y
		t := l.reg()
		l.mul(d, l.cst(W), t) // w·d
		l.add(s.at(z), t, t)  // z + w·d
		l.store(t, s.at(z))   // z ← z + w·d
		l.mul(l.cst(C), t, t) // θ = c·z
		if theta {
			l.store(t, s.at(th))
		}
		l.fma(t, d, r.acc(s)) // m += d·θ (FMA)
		l.mul(l.cst(B), t, t) // b·θ
		u := l.reg()
		l.mul(s.at(bar), l.cst(A), u) // a·θ̄
		l.add(t, u, u)                // a·θ̄ + b·θ
		l.store(u, s.at(bar))
	})
	finish(r.total())
}

func genAvgScaled() {
	text("avgScaledAVX2", "func(bar, z *float64, n int, a, bc float64)",
		"avgScaledAVX2 sets bar[i] = a·bar[i] + bc·z[i] (AVX2, no FMA: bit-identical to the reference).")
	A, BC := broadcast("a"), broadcast("bc")
	bar, z, n := pointer("bar"), pointer("z"), length()
	loop(n, func(s step) {
		l := s.l
		t := l.reg()
		l.mul(s.at(z), l.cst(BC), t) // bc·z
		u := l.reg()
		l.mul(s.at(bar), l.cst(A), u) // a·bar
		l.add(t, u, u)
		l.store(u, s.at(bar))
	})
	finish(nil)
}

func genScale() {
	text("scaleAVX2", "func(dst, src *float64, n int, c float64)",
		"scaleAVX2 sets dst[i] = c·src[i] (AVX2: bit-identical to the reference).")
	C := broadcast("c")
	dst, src, n := pointer("dst"), pointer("src"), length()
	loop(n, func(s step) {
		t := s.l.reg()
		s.l.mul(s.at(src), s.l.cst(C), t)
		s.l.store(t, s.at(dst))
	})
	finish(nil)
}

func genTriad() {
	text("triadAVX2", "func(a, b, c *float64, n int, s float64)",
		"triadAVX2 sets a[i] = b[i] + s·c[i] (AVX2, no FMA: bit-identical to the reference).")
	S := broadcast("s")
	a, b, c, n := pointer("a"), pointer("b"), pointer("c"), length()
	loop(n, func(st step) {
		t := st.l.reg()
		st.l.mul(st.at(c), st.l.cst(S), t) // s·c
		st.l.add(st.at(b), t, t)           // b + s·c
		st.l.store(t, st.at(a))
	})
	finish(nil)
}

// genLogisticRound generates the round kernel of the reduced synchronous
// schedule for the logistic loss (see kernel.LogisticRound). Per lane:
//
//	e   = exp(−|m|)                       (below: how)
//	g   = −(m ≤ 0 ? 1 : e)/(1 + e)          = −σ(−m), the derivative φ'(m)
//	W  += g;  η = a·η + bc·W;  m = c·(s₀ + W·q)
//
// counting the lanes with g ≠ 0 and whether every new m is finite. The
// exponential of x = −|m| ≤ 0: k = round(x·log₂e), r = x − k·ln2hi − k·ln2lo
// (|r| ≤ ln2/2, with FMA), e^r by its Taylor polynomial of degree 13 (the
// truncation error is below 2⁻⁵⁸ relative) in Horner's form with FMA, then
// scaled by 2^k as 2^k₁·2^k₂ with k₁ = ⌊k/2⌋ (both factors normal, so a
// subnormal result is rounded once); e = 0 below math.Exp's underflow
// threshold, as math.Exp returns. NaN propagates. Everything after e is the
// reference's operations without FMA. Lanes past n (the last, partial
// group of four) are loaded and stored with VMASKMOVPD and do not count.
func genLogisticRound() {
	text("logisticRoundAVX2", "func(s0, q, w, eta, m *float64, n int, c, a, bc float64) (nonzero int, finite bool)",
		"logisticRoundAVX2 is the round kernel of LogisticRound (AVX2+FMA).")
	// The constants, each replicated in four lanes (32 bytes), so that an
	// instruction can take them as a memory operand.
	consts := []uint64{}
	idx := map[string]int{}
	add := func(name string, bits uint64) {
		idx[name] = len(consts)
		consts = append(consts, bits)
	}
	f := math.Float64bits
	add("sign", 1<<63)
	add("one", f(1))
	add("log2e", f(math.Log2E))
	add("ln2hi", f(6.93147180369123816490e-01)) // Go's math.Exp split of ln 2
	add("ln2lo", f(1.90821492927058770002e-10))
	add("under", f(-7.45133219101941108420e+02)) // math.Exp(x) = 0 below
	add("clamp", f(-746))
	add("half", f(0.5))
	add("magic", f(6755399441055744)) // 2⁵² + 2⁵¹
	add("bias", 1023-f(6755399441055744))
	add("lanes01", 0) // lane indices 0, 1, 2, 3 (replaced below)
	inv := 1.0
	for j := 1; j <= 13; j++ {
		inv /= float64(j)
		add(fmt.Sprintf("c%d", j), f(inv))
	}
	tab := GLOBL("logisticConst", RODATA|NOPTR)
	for i, v := range consts {
		for l := 0; l < 4; l++ {
			if i == idx["lanes01"] {
				DATA(32*i+8*l, U64(uint64(l)))
			} else {
				DATA(32*i+8*l, U64(v))
			}
		}
	}
	K := func(name string) Mem { return tab.Offset(32 * idx[name]) }

	C, A, BC := broadcast("c"), broadcast("a"), broadcast("bc")
	s0, q, w, eta, m, n := pointer("s0"), pointer("q"), pointer("w"), pointer("eta"), pointer("m"), length()
	zero, fin := YMM(), YMM()
	VXORPD(zero, zero, zero)
	VXORPD(fin, fin, fin) // Σ (m − m) over the lanes: 0 iff every m is finite
	nz := GP64()
	XORQ(nz, nz)
	i, lim := GP64(), GP64()
	XORQ(i, i)
	MOVQ(n, lim)
	ANDQ(I32(-4), lim)

	// body processes the four lanes at element i; with mask != nil only the
	// lanes whose mask is set are read, written and counted.
	body := func(mask Register) {
		at := func(base Register) Mem { return Mem{Base: base, Index: i, Scale: 8} }
		load := func(base Register) VecVirtual {
			v := YMM()
			if mask == nil {
				VMOVUPD(at(base), v)
			} else {
				VMASKMOVPD(at(base), mask, v)
			}
			return v
		}
		store := func(v Register, base Register) {
			if mask == nil {
				VMOVUPD(v, at(base))
			} else {
				VMASKMOVPD(v, mask, at(base))
			}
		}
		M := load(m)
		// x = −|m|, clamped for the scaling (NaN stays NaN: on NaN, VMAXPD
		// returns its second source, x).
		x, xc, lo := YMM(), YMM(), YMM()
		VORPD(K("sign"), M, x)
		VMOVUPD(K("clamp"), lo)
		VMAXPD(x, lo, xc)
		k := YMM()
		VMULPD(K("log2e"), xc, k)
		VROUNDPD(U8(8), k, k) // to nearest
		r := YMM()
		VMOVAPD(xc, r)
		VFNMADD231PD(K("ln2hi"), k, r) // r −= k·ln2hi
		VFNMADD231PD(K("ln2lo"), k, r) // r −= k·ln2lo
		p := YMM()
		VMOVUPD(K("c13"), p)
		for j := 12; j >= 1; j-- {
			VFMADD213PD(K(fmt.Sprintf("c%d", j)), r, p) // p = p·r + c_j
		}
		VFMADD213PD(K("one"), r, p) // p = p·r + 1
		// 2^k = 2^k₁ · 2^k₂, k₁ = ⌊k/2⌋, k₂ = k − k₁.
		k1, k2 := YMM(), YMM()
		VMULPD(K("half"), k, k1)
		VROUNDPD(U8(9), k1, k1) // floor
		VSUBPD(k1, k, k2)
		for _, kj := range []VecVirtual{k1, k2} {
			VADDPD(K("magic"), kj, kj) // the integer k_j in the low bits
			VPADDQ(K("bias"), kj, kj)  // k_j + 1023 in the low 12 bits
			VPSLLQ(U8(52), kj, kj)     // 2^k_j
			VMULPD(kj, p, p)
		}
		under := YMM()
		VCMPPD(U8(1), K("under"), x, under) // x < underflow threshold
		VANDNPD(p, under, p)                // e = 0 there
		// g = −num/(1 + e), num = m ≤ 0 ? 1 : e.
		le, num, den := YMM(), YMM(), YMM()
		VCMPPD(U8(2), zero, M, le) // m ≤ 0
		VBLENDVPD(le, K("one"), p, num)
		VADDPD(K("one"), p, den)
		g := YMM()
		VDIVPD(den, num, g)
		VXORPD(K("sign"), g, g)
		cnt, bits := YMM(), GP64()
		VCMPPD(U8(4), zero, g, cnt) // g ≠ 0 (unordered: NaN counts)
		VMOVMSKPD(cnt, bits.As32())
		if mask != nil {
			mb := GP64()
			VMOVMSKPD(mask, mb.As32())
			ANDQ(mb, bits)
		}
		POPCNTQ(bits, bits)
		ADDQ(bits, nz)
		// W += g; η = a·η + bc·W; m = c·(s₀ + W·q).
		W := load(w)
		VADDPD(g, W, W)
		store(W, w)
		E, t := load(eta), YMM()
		VMULPD(A, E, E)
		VMULPD(BC, W, t)
		VADDPD(t, E, E)
		store(E, eta)
		Q, S := load(q), load(s0)
		VMULPD(Q, W, t)
		VADDPD(t, S, t)
		VMULPD(C, t, t)
		store(t, m)
		VSUBPD(t, t, t) // 0 if finite, NaN otherwise
		if mask != nil {
			VANDPD(mask, t, t)
		}
		VADDPD(t, fin, fin)
	}

	Label("loop4")
	CMPQ(i, lim)
	JAE(LabelRef("tail"))
	body(nil)
	ADDQ(U8(4), i)
	JMP(LabelRef("loop4"))

	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	rem, mask := GP64(), YMM()
	MOVQ(n, rem)
	SUBQ(i, rem)
	VMOVQ(rem, mask.AsX())
	VPBROADCASTQ(mask.AsX(), mask)
	VPCMPGTQ(K("lanes01"), mask, mask) // lane l < n − i
	body(mask)

	Label("done")
	ok, fb := GP64(), GP64()
	VCMPPD(U8(0), zero, fin, fin) // lanes equal to 0
	VMOVMSKPD(fin, fb.As32())
	XORQ(ok, ok)
	CMPQ(fb, U8(15))
	SETEQ(ok.As8())
	VZEROUPPER()
	Store(nz, ReturnIndex(0))
	Store(ok.As8(), ReturnIndex(1))
	RET()
}
