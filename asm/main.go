// Command asm generates the AVX2+FMA and AVX-512 assembly kernels of package
// github.com/pairgossip/pairgossip/kernel with avo
// (github.com/mmcloughlin/avo). It is its own module so that avo never
// enters the main module's build.
//
// Calling convention: a kernel takes the base pointer of each array, then
// the element count n, then its float64 scalars (pointers and a count
// rather than slices: fewer argument words make a call of a short row
// measurably cheaper, bench/RESULTS.md "Measurements cited by comments
// outside the engine"). The exported Go wrappers in kernel/ check the
// slices' lengths once and split n into bounded chunks.
//
// One run writes one kernel, in one function per target (scaleAVX2,
// scaleAVX512): its assembly (-out) and its Go declarations (-stubs), both
// under the build constraint "amd64 && !noasm". The //go:generate lines in
// kernel/gen.go run it once per kernel:
//
//	go run . -kernel scale -out ../kernel/scale_amd64.s -stubs ../kernel/scale_amd64_stub.go
//
// Every kernel has the same loop shape (see loop): four independent groups
// of one vector register each per iteration (16 doubles in YMM, 32 in ZMM;
// reductions keep one accumulator per group), then one register at a
// time, then the rest: scalar steps (AVX2) or one step under an opmask
// (AVX-512); no access ever falls outside [0, n). The element-wise outputs are computed
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

// generators maps a kernel's name to its generator. Generators of vector
// kernels emit one function per target (see targets), reading the current
// one from T.
var generators = map[string]func(){
	"synclinear":    perTarget(genSyncLinear),
	"scale":         perTarget(genScale),
	"triad":         perTarget(genTriad),
	"logisticround": perTarget(genLogisticRound),
	"prefetch":      genPrefetch,
	"prefetchrows":  genPrefetchRows,
	"eventpre":      perTarget(genEventPre),
	"eventlogistic": perTarget(genEventLogistic),
	"eventlost":     perTarget(genEventLogisticLost),
	"eventpair":     perTarget(genEventLogisticPair),
	"metrichinge":   func() { genMetricHinge(); genMetricDist(); genGemm8() },
	"log1psum":      perTarget(genLog1pSum),
	"records":       genRecords,
	"ger2":          perTarget(genGer2),
	"householder":   perTarget(genHouseholder),
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

// target is an instruction set the vector kernels are generated for.
type target struct {
	suffix string // of the function names: dotAVX2, dotAVX512
	desc   string // for doc comments
	width  int    // doubles per vector register
	vec    func() VecVirtual
	// masked: the loop's last partial vector is one step under an opmask
	// (AVX-512), instead of scalar steps (AVX2).
	masked bool
}

var (
	avx2   = target{suffix: "AVX2", desc: "AVX2+FMA", width: 4, vec: YMM}
	avx512 = target{suffix: "AVX512", desc: "AVX-512F/DQ", width: 8, vec: ZMM, masked: true}
	// T is the target being generated.
	T = avx2
)

// perTarget returns a generator that runs gen once per target.
func perTarget(gen func()) func() {
	return func() {
		for _, t := range []target{avx2, avx512} {
			T, tailMasks = t, nil
			gen()
		}
	}
}

// bcst returns, for an instruction with a constant of a table as its
// memory operand, its embedded-broadcast form when it works on ZMM
// registers (zmm), which reads the constant's first 8 bytes (see
// logisticConsts), else its plain form, which reads the constant
// replicated in the operand's 32 bytes (YMM, VEX-encoded).
func bcst(zmm bool, plain, b func(...Op)) func(...Op) {
	if zmm {
		return b
	}
	return plain
}

// loadConst loads a constant of a table into every lane of dst: by
// broadcast of its first 8 bytes into a ZMM register, else its 32 bytes.
func loadConst(m Mem, dst VecVirtual) {
	if dst.Size() == 64 {
		VBROADCASTSD(m, dst)
		return
	}
	VMOVUPD(m, dst)
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

// packed is the full-width lane of the current target.
func packed() lane {
	return lane{
		width: T.width,
		reg:   func() Register { return T.vec() },
		cst:   func(v VecVirtual) Register { return v },
		load:  func(m Mem, dst Register) { VMOVUPD(m, dst) },
		store: func(src Register, m Mem) { VMOVUPD(src, m) },
		add:   func(src Op, a, dst Register) { VADDPD(src, a, dst) },
		sub:   func(src Op, a, dst Register) { VSUBPD(src, a, dst) },
		mul:   func(src Op, a, dst Register) { VMULPD(src, a, dst) },
		fma:   func(src Op, a, acc Register) { VFMADD231PD(src, a, acc) },
	}
}

// maskedLane is the full-width AVX-512 lane restricted to the lanes set in
// opmask k: loads zero the other lanes and never touch their memory,
// stores leave it alone, and every operation merges into its destination
// under k, so a memory operand past the end is never read and a dead lane
// never reaches an accumulator.
func maskedLane(k Register) lane {
	return lane{
		width: T.width,
		reg:   func() Register { return T.vec() },
		cst:   func(v VecVirtual) Register { return v },
		load:  func(m Mem, dst Register) { VMOVUPD_Z(m, k, dst) },
		store: func(src Register, m Mem) { VMOVUPD(src, k, m) },
		add:   func(src Op, a, dst Register) { VADDPD(src, a, k, dst) },
		sub:   func(src Op, a, dst Register) { VSUBPD(src, a, k, dst) },
		mul:   func(src Op, a, dst Register) { VMULPD(src, a, k, dst) },
		fma:   func(src Op, a, acc Register) { VFMADD231PD(src, a, k, acc) },
	}
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

// loop emits the loop over i in [0, n): 4·w doubles per iteration as four
// groups of w (w = T.width), then w at a time, then the rest: one at a time
// (AVX2), or one step under an opmask (AVX-512).
func loop(n Register, body func(s step)) {
	sfx := ""
	if loops > 0 {
		sfx = fmt.Sprint("_", loops) // a second loop in one function
	}
	loops++
	L := func(name string) string { return name + sfx }
	w := T.width
	var k Register
	if T.masked {
		k = tailMask(n) // early, off the path to the tail's loads
	}
	i, lim := GP64(), GP64()
	XORQ(i, i)
	MOVQ(n, lim)
	ANDQ(I32(-4*w), lim)
	Label(L("loopG"))
	CMPQ(i, lim)
	JAE(LabelRef(L("tailW")))
	for g := 0; g < 4; g++ {
		body(step{l: packed(), g: g, off: w * g, i: i})
	}
	ADDQ(U8(4*w), i)
	JMP(LabelRef(L("loopG")))

	Label(L("tailW"))
	MOVQ(n, lim)
	ANDQ(I32(-w), lim)
	Label(L("loopW"))
	CMPQ(i, lim)
	JAE(LabelRef(L("tail")))
	body(step{l: packed(), i: i})
	ADDQ(U8(w), i)
	JMP(LabelRef(L("loopW")))

	Label(L("tail"))
	CMPQ(i, n)
	JAE(LabelRef(L("done")))
	if T.masked {
		body(step{l: maskedLane(k), i: i})
	} else {
		body(step{l: scalar, i: i})
		INCQ(i)
		JMP(LabelRef(L("tail")))
	}
	Label(L("done"))
}

// tailMask returns an opmask with the low n mod 8 bits set (the lanes of
// the last partial vector of eight), from a table of the eight byte masks
// 0, 1, 3, …, 127.
func tailMask(n Register) Register {
	if tailMasks == nil {
		m := GLOBL("tailMask"+T.suffix, RODATA|NOPTR)
		tailMasks = &m
		for r := 0; r < 8; r++ {
			DATA(r, U8(uint8(1<<r-1)))
		}
	}
	rem, base, k := GP64(), GP64(), K()
	MOVQ(n, rem)
	ANDQ(U8(7), rem)
	LEAQ(*tailMasks, base)
	KMOVB(Mem{Base: base, Index: rem, Scale: 1}, k)
	return k
}

// tailMasks is the current target's table of tail masks, once emitted.
var tailMasks *Mem

// loops counts the loops emitted in the current function (text resets it).
var loops int

// sum is a reduction's state: four vector accumulators (one per group) and
// a scalar one for the tail (AVX2; under AVX-512 the masked tail adds into
// the first group), all starting at +0.
type sum struct {
	y   [4]VecVirtual
	x   VecVirtual
	two bool // y[2], y[3] are y[0], y[1] (newSum2)
}

func newSum() *sum {
	s := &sum{}
	for g := range s.y {
		s.y[g] = T.vec()
		VXORPD(s.y[g], s.y[g], s.y[g])
	}
	s.zeroTail()
	return s
}

// newSum2 is newSum with two vector accumulators, group g adding into
// g mod 2 (for kernels with two reductions, which would otherwise need more
// than the 16 YMM registers).
func newSum2() *sum {
	s := &sum{two: true}
	for g := 0; g < 2; g++ {
		s.y[g] = T.vec()
		VXORPD(s.y[g], s.y[g], s.y[g])
	}
	s.y[2], s.y[3] = s.y[0], s.y[1]
	s.zeroTail()
	return s
}

func (r *sum) zeroTail() {
	if !T.masked {
		r.x = XMM()
		VXORPD(r.x, r.x, r.x)
	}
}

// acc is the accumulator step s adds into.
func (r *sum) acc(s step) Register {
	if s.l.width == 1 {
		return r.x
	}
	return r.y[s.g]
}

// total reduces the accumulators, in the order
// ((y0+y1)+(y2+y3)) (y0+y1 for newSum2) → (AVX-512: low 4 lanes + high 4)
// → (lane0+lane2, lane1+lane3) → sum of the two → + scalar tail (AVX2),
// and returns the XMM register whose low lane holds the result.
func (r *sum) total() Register {
	VADDPD(r.y[1], r.y[0], r.y[0])
	if !r.two {
		VADDPD(r.y[3], r.y[2], r.y[2])
		VADDPD(r.y[2], r.y[0], r.y[0])
	}
	var y Register = r.y[0]
	lo := r.y[0].AsX()
	if T.masked {
		hi4 := YMM()
		VEXTRACTF64X4(U8(1), r.y[0], hi4)
		y = r.y[0].AsY()
		VADDPD(hi4, y, y)
	}
	hi := XMM()
	VEXTRACTF128(U8(1), y, hi)
	VADDPD(hi, lo, lo)
	VHADDPD(lo, lo, lo)
	if !T.masked {
		VADDSD(r.x, lo, lo)
	}
	return lo
}

// text starts function name with signature sig and doc comment doc. The
// kernels keep no pointer they are given, hence //go:noescape.
func text(name, sig, doc string) {
	loops = 0
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc, "Each pointer addresses n elements; the Go wrapper checks the lengths and bounds n.")
}

// pointer loads pointer parameter name (the first element of an array).
func pointer(name string) Register { return Load(Param(name), GP64()) }

// length loads parameter n, the number of elements.
func length() Register { return Load(Param("n"), GP64()) }

// broadcast loads float64 parameter name into every lane of a vector
// register of the target, straight from its stack slot. (Not Load into an XMM register:
// that emits the legacy-SSE MOVSD, and a legacy-SSE instruction while the
// upper halves of the YMM registers are dirty costs a state transition on
// some CPUs, far more than the kernel's work on a short row: bench/RESULTS.md,
// "Measurements cited by comments outside the engine".)
func broadcast(name string) VecVirtual {
	v := T.vec()
	VBROADCASTSD(paramAddr(name), v)
	return v
}

// paramAddr is the stack slot of parameter name.
func paramAddr(name string) Mem {
	p, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return p.Addr
}

// finish returns the reduction's result (if any) and returns.
func finish(result Register) {
	VZEROUPPER()
	if result != nil {
		Store(result, ReturnIndex(0))
	}
	RET()
}

func genSyncLinear() {
	text("syncLinear"+T.suffix, "func(z, bar, x, y *float64, n int, w, c, a, b float64) float64",
		"syncLinear"+T.suffix+" is the fused node update of SyncLinear ("+T.desc+").")
	W, C, A, B := broadcast("w"), broadcast("c"), broadcast("a"), broadcast("b")
	z, bar, x, y, n := pointer("z"), pointer("bar"), pointer("x"), pointer("y"), length()
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
		l.fma(t, d, r.acc(s)) // m += d·θ (FMA)
		l.mul(l.cst(B), t, t) // b·θ
		u := l.reg()
		l.mul(s.at(bar), l.cst(A), u) // a·θ̄
		l.add(t, u, u)                // a·θ̄ + b·θ
		l.store(u, s.at(bar))
	})
	finish(r.total())
}

func genScale() {
	text("scale"+T.suffix, "func(dst, src *float64, n int, c float64)",
		"scale"+T.suffix+" sets dst[i] = c·src[i] ("+T.suffix+": bit-identical to the reference).")
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
	text("triad"+T.suffix, "func(a, b, c *float64, n int, s float64)",
		"triad"+T.suffix+" sets a[i] = b[i] + s·c[i] ("+T.suffix+", no FMA: bit-identical to the reference).")
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
// truncation error is below 2⁻⁵⁸ relative) in Estrin's form with FMA, then
// scaled by 2^k as 2^k₁·2^k₂ with k₁ = ⌊k/2⌋ (both factors normal, so a
// subnormal result is rounded once); e = 0 below math.Exp's underflow
// threshold, as math.Exp returns. NaN propagates. Everything after e is the
// reference's operations without FMA. Lanes past n (the last, partial
// group) are loaded and stored under a mask (VMASKMOVPD; an opmask for
// AVX-512) and do not count. The AVX-512 kernel is the same arithmetic
// eight lanes at a time (negSigmoid512: VRNDSCALEPD for VROUNDPD, VSCALEFPD
// for the two scalings, both one rounding, so its results are the AVX2
// kernel's bits), with opmasks for the comparisons.
func genLogisticRound() {
	text("logisticRound"+T.suffix, "func(s0, q, w, eta, m *float64, n int, c, a, bc float64) (nonzero int, finite bool)",
		"logisticRound"+T.suffix+" is the round kernel of LogisticRound ("+T.desc+").")
	cs := logisticConsts("logisticConst"+T.suffix, tableLanes())
	C, A, BC := broadcast("c"), broadcast("a"), broadcast("bc")
	s0, q, w, eta, m, n := pointer("s0"), pointer("q"), pointer("w"), pointer("eta"), pointer("m"), length()
	zero, fin := T.vec(), T.vec()
	VXORPD(zero, zero, zero)
	VXORPD(fin, fin, fin) // Σ (m − m) over the lanes: 0 iff every m is finite
	nz := GP64()
	XORQ(nz, nz)
	var tail Register
	if T.masked {
		tail = tailMask(n)
	}
	i, lim := GP64(), GP64()
	XORQ(i, i)
	MOVQ(n, lim)
	ANDQ(I32(-T.width), lim)

	// body processes the lanes at element i; with mask != nil only the
	// lanes whose mask is set (a vector mask for AVX2, an opmask for
	// AVX-512) are read, written and counted.
	body := func(mask Register) {
		at := func(base Register) Mem { return Mem{Base: base, Index: i, Scale: 8} }
		load := func(base Register) VecVirtual {
			v := T.vec()
			switch {
			case mask == nil:
				VMOVUPD(at(base), v)
			case T.masked:
				VMOVUPD_Z(at(base), mask, v)
			default:
				VMASKMOVPD(at(base), mask, v)
			}
			return v
		}
		store := func(v Register, base Register) {
			switch {
			case mask == nil:
				VMOVUPD(v, at(base))
			case T.masked:
				VMOVUPD(v, mask, at(base))
			default:
				VMASKMOVPD(v, mask, at(base))
			}
		}
		M := load(m)
		var g VecVirtual
		bits := GP64()
		if T.masked {
			g = negSigmoid512(cs, M, zero)
			cnt := K()
			VCMPPD(U8(4), zero, g, cnt) // g ≠ 0 (unordered: NaN counts)
			if mask != nil {
				KANDB(mask, cnt, cnt)
			}
			KMOVB(cnt, bits.As32())
		} else {
			g = negSigmoid(cs, M, zero)
			cnt := YMM()
			VCMPPD(U8(4), zero, g, cnt) // g ≠ 0 (unordered: NaN counts)
			VMOVMSKPD(cnt, bits.As32())
			if mask != nil {
				mb := GP64()
				VMOVMSKPD(mask, mb.As32())
				ANDQ(mb, bits)
			}
		}
		POPCNTQ(bits, bits)
		ADDQ(bits, nz)
		// W += g; η = a·η + bc·W; m = c·(s₀ + W·q).
		W := load(w)
		VADDPD(g, W, W)
		store(W, w)
		E, t := load(eta), T.vec()
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
		switch {
		case mask == nil:
			VADDPD(t, fin, fin)
		case T.masked:
			VADDPD(t, fin, mask, fin)
		default:
			VANDPD(mask, t, t)
			VADDPD(t, fin, fin)
		}
	}

	loopW := fmt.Sprint("loop", T.width)
	Label(loopW)
	CMPQ(i, lim)
	JAE(LabelRef("tail"))
	body(nil)
	ADDQ(U8(T.width), i)
	JMP(LabelRef(loopW))

	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	if !T.masked {
		rem, mask := GP64(), YMM()
		MOVQ(n, rem)
		SUBQ(i, rem)
		VMOVQ(rem, mask.AsX())
		VPBROADCASTQ(mask.AsX(), mask)
		VPCMPGTQ(cs("lanes"), mask, mask) // lane l < n − i
		tail = mask
	}
	body(tail)

	Label("done")
	ok, fb := GP64(), GP64()
	if T.masked {
		kf := K()
		VCMPPD(U8(0), zero, fin, kf) // lanes equal to 0
		KMOVB(kf, fb.As32())
	} else {
		VCMPPD(U8(0), zero, fin, fin) // lanes equal to 0
		VMOVMSKPD(fin, fb.As32())
	}
	XORQ(ok, ok)
	CMPQ(fb, U8(1<<T.width-1))
	SETEQ(ok.As8())
	VZEROUPPER()
	Store(nz, ReturnIndex(0))
	Store(ok.As8(), ReturnIndex(1))
	RET()
}

// negSigmoid512 is negSigmoid on the eight lanes of a ZMM register.
func negSigmoid512(cs func(string) Mem, M, zero VecVirtual) VecVirtual {
	x, k, r := expReduce(cs, M, ZMM)
	p := expPoly(cs, r, ZMM)
	VSCALEFPD(k, p, p) // p·2^k, one rounding
	under, le := K(), K()
	VCMPPD_BCST(U8(1), cs("under"), x, under) // x < underflow threshold
	VXORPD(p, p, under, p)                    // e = 0 there
	VCMPPD(U8(2), zero, M, le)                // m ≤ 0
	num, den, g := ZMM(), ZMM(), ZMM()
	VBLENDMPD_BCST(cs("one"), p, le, num) // m ≤ 0 ? 1 : e
	VADDPD_BCST(cs("one"), p, den)
	VDIVPD(den, num, g)
	VXORPD_BCST(cs("sign"), g, g)
	return g
}

// logisticConsts emits, as the file-local table name, the constants of
// negSigmoid, each replicated in lanes lanes, and returns their lookup.
// YMM operands (VEX-encoded) read an entry's first 32 bytes, so the tables
// they read hold 4 lanes; ZMM code reads each constant by embedded
// broadcast (bcst, loadConst) from its first 8 bytes, so the AVX-512 round
// holds 1. 64-byte entries read whole, as before, depended on where the
// link put the table: the linker aligns it to 32 bytes at most, and at an
// odd multiple of 32 every constant operand was a load across two cache
// lines (8% of the paper-size round, with no change to its code).
func logisticConsts(name string, lanes int) func(string) Mem {
	f := math.Float64bits
	consts := []namedConst{
		{"sign", 1 << 63}, {"one", f(1)}, {"log2e", f(math.Log2E)},
		{"ln2hi", f(6.93147180369123816490e-01)}, {"ln2lo", f(1.90821492927058770002e-10)}, // Go's math.Exp split of ln 2
		{"under", f(-7.45133219101941108420e+02)}, // math.Exp(x) = 0 below
		{"clamp", f(-746)}, {"half", f(0.5)},
		{"magic", f(6755399441055744)}, // 2⁵² + 2⁵¹
		{"bias", 1023 - f(6755399441055744)},
		{"lanes", 0},
	}
	inv := 1.0
	for j := 1; j <= 13; j++ {
		inv /= float64(j)
		consts = append(consts, namedConst{fmt.Sprintf("c%d", j), f(inv)})
	}
	return constTable(name, consts, lanes)
}

// namedConst is a constant of a table (constTable): its name and bits.
type namedConst struct {
	name string
	bits uint64
}

// constTable emits the file-local table name, each constant replicated in
// lanes lanes (the one named "lanes" holds the lane indices 0, 1, 2, …,
// for the AVX2 tails' comparisons), and returns its lookup by name.
func constTable(name string, consts []namedConst, lanes int) func(string) Mem {
	tab := GLOBL(name, RODATA|NOPTR)
	size := 8 * lanes
	idx := map[string]int{}
	for k, c := range consts {
		idx[c.name] = k
		for l := 0; l < lanes; l++ {
			v := c.bits
			if c.name == "lanes" {
				v = uint64(l)
			}
			DATA(size*k+8*l, U64(v))
		}
	}
	return func(name string) Mem { return tab.Offset(size * idx[name]) }
}

// tableLanes is the lanes of a table that the current target's full-width
// code reads: one for AVX-512, by embedded broadcast (bcst, loadConst),
// else the target's width.
func tableLanes() int {
	if T.masked {
		return 1
	}
	return T.width
}

// expReduce starts e = exp(−|m|) in each lane of M: x = −|m|, clamped for
// the scaling (NaN stays NaN: on NaN, VMAXPD returns its second source, x),
// k = round(x·log₂e) and r = x − k·ln2hi − k·ln2lo (|r| ≤ ln2/2, with FMA),
// in registers from vec (YMM or ZMM; VRNDSCALEPD rounds as VROUNDPD).
func expReduce(cs func(string) Mem, M VecVirtual, vec func() VecVirtual) (x, k, r VecVirtual) {
	x, xc, lo := vec(), vec(), vec()
	z := M.Size() == 64
	bcst(z, VORPD, VORPD_BCST)(cs("sign"), M, x)
	loadConst(cs("clamp"), lo)
	VMAXPD(x, lo, xc)
	k = vec()
	bcst(z, VMULPD, VMULPD_BCST)(cs("log2e"), xc, k)
	if M.Size() == 64 {
		VRNDSCALEPD(U8(8), k, k) // to nearest, no precision exception
	} else {
		VROUNDPD(U8(8), k, k) // to nearest
	}
	r = vec()
	VMOVAPD(xc, r)
	bcst(z, VFNMADD231PD, VFNMADD231PD_BCST)(cs("ln2hi"), k, r) // r −= k·ln2hi
	bcst(z, VFNMADD231PD, VFNMADD231PD_BCST)(cs("ln2lo"), k, r) // r −= k·ln2lo
	return x, k, r
}

// expPoly returns p = Σ_{j ≤ 13} r^j/j! by Estrin's scheme: pairs
// c_{2i} + c_{2i+1}·r, combined with r², r⁴, r⁸ (four FMA levels instead of
// Horner's 13, so the exponential's latency does not dominate a short
// event).
func expPoly(cs func(string) Mem, r VecVirtual, vec func() VecVirtual) VecVirtual {
	c := func(j int) Mem {
		if j == 0 {
			return cs("one")
		}
		return cs(fmt.Sprintf("c%d", j))
	}
	pair := func(i int) VecVirtual { // c_{2i} + c_{2i+1}·r
		q := vec()
		loadConst(c(2*i+1), q)
		bcst(r.Size() == 64, VFMADD213PD, VFMADD213PD_BCST)(c(2*i), r, q)
		return q
	}
	r2 := vec()
	VMULPD(r, r, r2)
	s := [4]VecVirtual{}
	for k := 0; k < 3; k++ { // s_k = q_{2k} + q_{2k+1}·r²
		s[k] = pair(2 * k)
		q := pair(2*k + 1)
		VFMADD231PD(q, r2, s[k])
	}
	s[3] = pair(6)
	r4 := vec()
	VMULPD(r2, r2, r4)
	VFMADD231PD(s[1], r4, s[0]) // u₀ = s₀ + s₁·r⁴
	VFMADD231PD(s[3], r4, s[2]) // u₁ = s₂ + s₃·r⁴
	VMULPD(r4, r4, r4)          // r⁸
	p := s[0]
	VFMADD231PD(s[2], r4, p) // p = u₀ + u₁·r⁸
	return p
}

// negSigmoid returns g = −σ(−m) = φ'(m) of the logistic loss in each lane
// of M (zero: a register holding +0 in every lane), through e = exp(−|m|)
// as genLogisticRound describes.
func negSigmoid(K func(string) Mem, M, zero VecVirtual) VecVirtual {
	x, k, r := expReduce(K, M, YMM)
	p := expPoly(K, r, YMM)
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
	return g
}

// genPrefetch generates a loop of PREFETCHT0 over a list of addresses: a
// hint that brings each address's cache line towards L1 without waiting
// for it and without faulting (an invalid address is ignored).
func genPrefetch() {
	text("prefetchAVX2", "func(addrs *uintptr, n int)",
		"prefetchAVX2 issues PREFETCHT0 for addrs[0..n) (SSE; in the avx2 table with the other kernels).")
	a, n := pointer("addrs"), length()
	i, p := GP64(), GP64()
	XORQ(i, i)
	Label("loop")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	MOVQ(Mem{Base: a, Index: i, Scale: 8}, p)
	PREFETCHT0(Mem{Base: p})
	INCQ(i)
	JMP(LabelRef("loop"))
	Label("done")
	RET()
}

// genEventPre generates the first pass of an asynchronous event (see
// kernel.EventPre): swap the auxiliary rows, the two margins at θ = c·z
// (FMA, two accumulators each), the average of z. Element-wise outputs
// are the reference's operations without FMA.
func genEventPre() {
	text("eventPre"+T.suffix, "func(xi, yi, zi, xj, yj, zj *float64, n int, ci, cj float64) (mi, mj float64)",
		"eventPre"+T.suffix+" is the first pass of an asynchronous event, EventPre ("+T.desc+").")
	CI, CJ := broadcast("ci"), broadcast("cj")
	xi, yi, zi := pointer("xi"), pointer("yi"), pointer("zi")
	xj, yj, zj := pointer("xj"), pointer("yj"), pointer("zj")
	n := length()
	// 0.5 in every lane of a register, broadcast from one 8-byte constant
	// (a table's alignment is the linker's: see logisticConsts).
	half := GLOBL("eventPreHalf"+T.suffix, RODATA|NOPTR)
	DATA(0, U64(math.Float64bits(0.5)))
	H := T.vec()
	VBROADCASTSD(half, H)
	ri, rj := newSum2(), newSum2()
	loop(n, func(s step) {
		l := s.l
		a, b := l.reg(), l.reg()
		l.load(s.at(yi), a)
		l.load(s.at(yj), b)
		l.store(b, s.at(yi)) // y_i ← old y_j
		l.store(a, s.at(yj)) // y_j ← old y_i
		di, dj := l.reg(), l.reg()
		l.load(s.at(xi), di)
		l.sub(b, di, di) // d_i = x_i − y_i
		l.load(s.at(xj), dj)
		l.sub(a, dj, dj) // d_j = x_j − y_j
		zi0, zj0 := l.reg(), l.reg()
		l.load(s.at(zi), zi0)
		l.load(s.at(zj), zj0)
		th := l.reg()
		l.mul(zi0, l.cst(CI), th) // θ_i = c_i·z_i
		l.fma(th, di, ri.acc(s))  // m_i += d_i·θ_i
		l.mul(zj0, l.cst(CJ), th)
		l.fma(th, dj, rj.acc(s))
		l.add(zj0, zi0, zi0)      // (z_i + z_j)
		l.mul(l.cst(H), zi0, zi0) // ·0.5 = /2, exactly
		l.store(zi0, s.at(zi))
		l.store(zi0, s.at(zj))
	})
	mi := ri.total()
	mj := rj.total()
	VZEROUPPER()
	Store(mi, ReturnIndex(0))
	Store(mj, ReturnIndex(1))
	RET()
}

// genEventLogistic generates a whole asynchronous gossip event for the
// logistic loss (see kernel.EventLogistic): the pass of genEventPre, the
// two gradient weights w = p·φ'(m) side by side in one register (negSigmoid),
// then each endpoint's pass of genSyncLinear. sc holds, in pairs (i, j):
// the θ = c·z scales before the event, p = 1/p_k for a contributing pair
// or 0, the new scales c, and a = 1 − 1/count, b = 1/count.
func genEventLogistic() { genEvent(true) }

// genEventLogisticLost generates an asynchronous gossip event whose
// exchange was lost (see kernel.EventLogisticLost): genEventLogistic
// without the exchange — the margins at the endpoints' own y and θ = c·z
// (lostPass1), nothing swapped or averaged — then its weights and its
// second pass, instruction for instruction.
func genEventLogisticLost() { genEvent(false) }

// genEvent generates genEventLogistic (exchange) or genEventLogisticLost.
func genEvent(exchange bool) {
	name, const_, kern := "eventLogistic", "eventConst", "EventLogistic"
	if !exchange {
		name, const_, kern = "eventLogisticLost", "eventLostConst", "EventLogisticLost"
	}
	text(name+T.suffix, "func(xi, yi, zi, bi, xj, yj, zj, bj *float64, n int, sc *float64) (nonzero int, bad int)",
		name+T.suffix+" is the asynchronous event kernel "+kern+" ("+T.desc+").")
	K := logisticConsts(const_+T.suffix, 4) // read as YMM operands (negSigmoid)
	sc := pointer("sc")
	at := func(k int) Mem { return Mem{Base: sc, Disp: 8 * k} }
	xi, yi, zi := pointer("xi"), pointer("yi"), pointer("zi")
	xj, yj, zj := pointer("xj"), pointer("yj"), pointer("zj")
	n := length()

	// Pass 1: swap y, margins at the old θ, average z (lost: the margins
	// alone).
	CI, CJ := T.vec(), T.vec()
	VBROADCASTSD(at(0), CI)
	VBROADCASTSD(at(1), CJ)
	var mi, mj Register
	if exchange {
		mi, mj = eventPass1(n, xi, yi, zi, xj, yj, zj, CI, CJ, K)
	} else {
		mi, mj = lostPass1(n, xi, yi, zi, xj, yj, zj, CI, CJ)
	}

	// The weights: lanes (m_i, m_j) → g = φ'(m) → w = p·g, 0 where p = 0.
	M, zero := YMM(), YMM()
	VUNPCKLPD(mj, mi, M.AsX()) // (m_i, m_j, 0, 0)
	VXORPD(zero, zero, zero)
	g := negSigmoid(K, M, zero)
	P, contrib := YMM(), YMM()
	VXORPD(P, P, P)
	VMOVUPD(at(2), P.AsX())         // (p_i, p_j, 0, 0)
	VCMPPD(U8(4), zero, P, contrib) // p ≠ 0
	VMULPD(P, g, g)
	VANDPD(contrib, g, g) // w (+0 where the pair does not contribute)
	nzm := YMM()
	VCMPPD(U8(4), zero, g, nzm) // w ≠ 0 (NaN counts)
	VANDPD(contrib, nzm, nzm)
	nz := GP64()
	VMOVMSKPD(nzm, nz.As32())
	ANDQ(U8(3), nz)
	POPCNTQ(nz, nz)

	// Pass 2: each endpoint's fused update, its new margin for the
	// finiteness test.
	bad := GP64()
	XORQ(bad, bad)
	bi, bj := pointer("bi"), pointer("bj")
	for e, r := range []struct{ x, y, z, bar Register }{{xi, yi, zi, bi}, {xj, yj, zj, bj}} {
		W, C, A, B := T.vec(), T.vec(), T.vec(), T.vec()
		switch {
		case e == 0:
			VBROADCASTSD(g.AsX(), W)
		case T.masked: // no VPERMPD from a YMM into a ZMM
			gj := XMM()
			VPERMILPD(U8(1), g.AsX(), gj)
			VBROADCASTSD(gj, W)
		default:
			VPERMPD(U8(0x55), g, W)
		}
		VBROADCASTSD(at(4+e), C)
		VBROADCASTSD(at(6+e), A)
		VBROADCASTSD(at(8+e), B)
		sm := newSum2()
		loop(n, func(s step) {
			l := s.l
			d := l.reg()
			l.load(s.at(r.x), d)
			l.sub(s.at(r.y), d, d)
			t := l.reg()
			l.mul(d, l.cst(W), t)
			l.add(s.at(r.z), t, t)
			l.store(t, s.at(r.z))
			l.mul(l.cst(C), t, t)
			l.fma(t, d, sm.acc(s))
			l.mul(l.cst(B), t, t)
			u := l.reg()
			l.mul(s.at(r.bar), l.cst(A), u)
			l.add(t, u, u)
			l.store(u, s.at(r.bar))
		})
		m := sm.total()
		VSUBSD(m, m, m) // 0 if finite, NaN otherwise
		VUCOMISD(m, m)  // parity set iff NaN
		f := GP64()
		SETPS(f.As8())
		MOVBQZX(f.As8(), f)
		if e == 1 {
			SHLQ(U8(1), f)
		}
		ORQ(f, bad)
	}
	VZEROUPPER()
	Store(nz, ReturnIndex(0))
	Store(bad, ReturnIndex(1))
	RET()
}

// genLog1pSum generates Σ log1p(c·e[i]) (see kernel.Log1pSum), lane by
// lane as the reference computes each term: x = c·e, u = 1 + x, the term
// is x where u = 1 and log(u)·x/(u − 1) elsewhere, with log(u) by the
// algorithm of Go's math.log (frexp, the reduction to [√2/2, √2), the
// degree-14 polynomial in s = f/(2 + f)), operation for operation and
// without FMA. The terms add into one accumulator per lane; the last
// partial vector is loaded under a mask (its dead lanes load 0, whose term
// is 0). Valid for c·e[i] in [0, 2⁹⁹⁹] (u normal, so frexp is a matter of
// bits).
func genLog1pSum() {
	text("log1pSum"+T.suffix, "func(e *float64, n int, c float64) float64",
		"log1pSum"+T.suffix+" returns Σ log1p(c·e[i]) over i < n, as Log1pSum ("+T.desc+").")
	f := math.Float64bits
	consts := []namedConst{
		{"one", f(1)}, {"two", f(2)}, {"half", f(0.5)}, {"sqrt2h", f(math.Sqrt2 / 2)},
		{"mant", 1<<52 - 1}, {"exp1022", 1022 << 52},
		{"magic", f(1 << 52)}, {"magic1022", f(1<<52 + 1022)}, {"k1022", f(1022)},
		{"ln2hi", f(6.93147180369123816490e-01)}, {"ln2lo", f(1.90821492927058770002e-10)},
		{"L1", f(6.666666666666735130e-01)}, {"L2", f(3.999999999940941908e-01)},
		{"L3", f(2.857142874366239149e-01)}, {"L4", f(2.222219843214978396e-01)},
		{"L5", f(1.818357216161805012e-01)}, {"L6", f(1.531383769920937332e-01)},
		{"L7", f(1.479819860511658591e-01)}, {"lanes", 0},
	}
	cs := constTable("log1pConst"+T.suffix, consts, tableLanes())

	C := broadcast("c")
	e, n := pointer("e"), length()
	acc := T.vec()
	VXORPD(acc, acc, acc)
	var tail Register
	if T.masked {
		tail = tailMask(n)
	}
	i, lim := GP64(), GP64()
	XORQ(i, i)
	MOVQ(n, lim)
	ANDQ(I32(-T.width), lim)

	// term returns the terms of the lanes of x = e (loaded), x ← c·x.
	term := func(x VecVirtual) VecVirtual {
		VMULPD(C, x, x)
		u := T.vec()
		bcst(T.masked, VADDPD, VADDPD_BCST)(cs("one"), x, u)
		// frexp(u) = f1·2^ki, f1 in [1/2, 1); then f1 < √2/2 → 2·f1, ki − 1.
		kd, f1 := T.vec(), T.vec()
		VPSRLQ(U8(52), u, kd) // the biased exponent (u > 0)
		if T.masked {
			VPANDQ_BCST(cs("mant"), u, f1)
			VPORQ_BCST(cs("exp1022"), f1, f1)
			VCVTQQ2PD(kd, kd)
			VSUBPD_BCST(cs("k1022"), kd, kd)
			lt := K()
			VCMPPD_BCST(U8(1), cs("sqrt2h"), f1, lt)
			VADDPD(f1, f1, lt, f1)
			VSUBPD_BCST(cs("one"), kd, lt, kd)
		} else {
			VPAND(cs("mant"), u, f1)
			VPOR(cs("exp1022"), f1, f1)
			VPOR(cs("magic"), kd, kd) // 2⁵² + biased exponent, exactly
			VSUBPD(cs("magic1022"), kd, kd)
			lt, t := T.vec(), T.vec()
			VCMPPD(U8(1), cs("sqrt2h"), f1, lt)
			VANDPD(f1, lt, t)
			VADDPD(t, f1, f1)
			VANDPD(cs("one"), lt, t)
			VSUBPD(t, kd, kd)
		}
		fm := T.vec()
		bcst(T.masked, VSUBPD, VSUBPD_BCST)(cs("one"), f1, fm) // f
		// s = f/(2 + f); R = t1 + t2 as math.log writes them.
		sv, t := T.vec(), T.vec()
		bcst(T.masked, VADDPD, VADDPD_BCST)(cs("two"), fm, t)
		VDIVPD(t, fm, sv)
		s2, s4 := T.vec(), T.vec()
		VMULPD(sv, sv, s2)
		VMULPD(s2, s2, s4)
		poly := func(cs1 []string) VecVirtual { // c0 + s4·(c1 + s4·(c2 + …))
			p := T.vec()
			last := len(cs1) - 1
			bcst(T.masked, VMULPD, VMULPD_BCST)(cs(cs1[last]), s4, p)
			for k := last - 1; k >= 0; k-- {
				bcst(T.masked, VADDPD, VADDPD_BCST)(cs(cs1[k]), p, p)
				if k > 0 {
					VMULPD(s4, p, p)
				}
			}
			return p
		}
		t1 := poly([]string{"L1", "L3", "L5", "L7"})
		VMULPD(s2, t1, t1)
		t2 := poly([]string{"L2", "L4", "L6"})
		VMULPD(s4, t2, t2)
		VADDPD(t2, t1, t1) // R
		hf := T.vec()
		bcst(T.masked, VMULPD, VMULPD_BCST)(cs("half"), fm, hf)
		VMULPD(fm, hf, hf) // hfsq = 0.5·f·f
		VADDPD(hf, t1, t1) // hfsq + R
		VMULPD(sv, t1, t1) // s·(hfsq + R)
		bcst(T.masked, VMULPD, VMULPD_BCST)(cs("ln2lo"), kd, t)
		VADDPD(t, t1, t1)  // s·(hfsq + R) + k·ln2lo
		VSUBPD(t1, hf, hf) // hfsq − (…)
		VSUBPD(fm, hf, hf) // (hfsq − (…)) − f
		lg := T.vec()
		bcst(T.masked, VMULPD, VMULPD_BCST)(cs("ln2hi"), kd, lg)
		VSUBPD(hf, lg, lg) // log(u)
		// term = u == 1 ? x : log(u)·x/(u − 1)
		VMULPD(x, lg, lg)
		bcst(T.masked, VSUBPD, VSUBPD_BCST)(cs("one"), u, t)
		VDIVPD(t, lg, lg)
		if T.masked {
			eq := K()
			VCMPPD_BCST(U8(0), cs("one"), u, eq)
			VMOVAPD(x, eq, lg)
		} else {
			eq := T.vec()
			VCMPPD(U8(0), cs("one"), u, eq)
			VBLENDVPD(eq, x, lg, lg)
		}
		return lg
	}
	at := Mem{Base: e, Index: i, Scale: 8}

	Label("loop")
	CMPQ(i, lim)
	JAE(LabelRef("tail"))
	x := T.vec()
	VMOVUPD(at, x)
	VADDPD(term(x), acc, acc)
	ADDQ(U8(T.width), i)
	JMP(LabelRef("loop"))

	Label("tail")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	x = T.vec()
	if T.masked {
		VMOVUPD_Z(at, tail, x)
	} else {
		rem, mask := GP64(), YMM()
		MOVQ(n, rem)
		SUBQ(i, rem)
		VMOVQ(rem, mask.AsX())
		VPBROADCASTQ(mask.AsX(), mask)
		VPCMPGTQ(cs("lanes"), mask, mask) // lane l < n − i
		VMASKMOVPD(at, mask, x)
	}
	VADDPD(term(x), acc, acc)

	Label("done")
	r := newSum()
	VADDPD(acc, r.y[0], r.y[0])
	finish(r.total())
}

// eventPass1 emits pass 1 of one gossip event over its n lanes (the event
// kernel's and the two-event kernel's first pass): swap y_i and y_j, the
// margins at the old θ (θ = c·z, c broadcast in CI and CJ) into two sums,
// and the average (z_i + z_j)·0.5 stored to both z. It returns the two
// margins' registers.
func eventPass1(n, xi, yi, zi, xj, yj, zj Register, CI, CJ VecVirtual, K func(string) Mem) (mi, mj Register) {
	ri, rj := newSum2(), newSum2()
	H := T.vec()
	loadConst(K("half"), H)
	loop(n, func(s step) {
		l := s.l
		a, b := l.reg(), l.reg()
		l.load(s.at(yi), a)
		l.load(s.at(yj), b)
		l.store(b, s.at(yi))
		l.store(a, s.at(yj))
		di, dj := l.reg(), l.reg()
		l.load(s.at(xi), di)
		l.sub(b, di, di)
		l.load(s.at(xj), dj)
		l.sub(a, dj, dj)
		zi0, zj0 := l.reg(), l.reg()
		l.load(s.at(zi), zi0)
		l.load(s.at(zj), zj0)
		th := l.reg()
		l.mul(zi0, l.cst(CI), th)
		l.fma(th, di, ri.acc(s))
		l.mul(zj0, l.cst(CJ), th)
		l.fma(th, dj, rj.acc(s))
		l.add(zj0, zi0, zi0)
		l.mul(l.cst(H), zi0, zi0) // (z_i + z_j)·0.5
		l.store(zi0, s.at(zi))
		l.store(zi0, s.at(zj))
	})
	return ri.total(), rj.total()
}

// lostPass1 is eventPass1 without the exchange: the margins m_i, m_j at
// the endpoints' own y and θ = c·z, with its arithmetic (FMA, two
// accumulators each); the rows are only read.
func lostPass1(n, xi, yi, zi, xj, yj, zj Register, CI, CJ VecVirtual) (mi, mj Register) {
	ri, rj := newSum2(), newSum2()
	loop(n, func(s step) {
		l := s.l
		di, dj := l.reg(), l.reg()
		l.load(s.at(xi), di)
		l.sub(s.at(yi), di, di) // d_i = x_i − y_i
		l.load(s.at(xj), dj)
		l.sub(s.at(yj), dj, dj)
		th := l.reg()
		l.mul(s.at(zi), l.cst(CI), th) // θ_i = c_i·z_i
		l.fma(th, di, ri.acc(s))       // m_i += d_i·θ_i
		l.mul(s.at(zj), l.cst(CJ), th)
		l.fma(th, dj, rj.acc(s))
	})
	return ri.total(), rj.total()
}
