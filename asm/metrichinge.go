package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genMetricHinge generates the AVX-512 kernel of kernel.MetricHinge8: eight
// rows i of the metric-learning Gram tile X θs Xᵀ side by side, one per
// lane, against n columns j. Each lane's entry g_ij = Σ_l a[l][lane]·x[l][j]
// is formed in the reference's order (from +0, l = 0, 1, …, a product then
// a sum, no FMA) and its hinge term max(0, 1 − s·(b − (q_i + q_j − g_ij)))
// added to the lane's running sum in column order, under an opmask instead
// of a branch (skipping a term adds nothing, as the reference's if does):
// each lane's sum has the reference's bits. Columns go eight at a time
// (eight accumulators, the row vector a[l] loaded once for the eight, the
// x[l][j] broadcast from memory into the product), then one at a time.
// With diag set, the first eight columns are the block's own (j = i0 + c):
// lane r takes column c only when c > r.
func genMetricHinge() {
	TEXT("metricHingeAVX512", NOSPLIT, "func(r, a, x, q, lab *float64, d, stride, n int, sc *float64, diag int)")
	Pragma("noescape")
	Doc("metricHingeAVX512 is MetricHinge8 (AVX-512F/DQ): r[8], a[d·8], x[(d−1)·stride + n], q[n], lab[n], sc[17].",
		"The Go wrapper checks the lengths and bounds n; diag needs n >= 8.")
	f := math.Float64bits
	// Two 8-byte constants, broadcast into registers (a table's alignment
	// is the linker's, 32 bytes at most: see logisticConsts).
	tab := GLOBL("metricHingeConst", RODATA|NOPTR)
	DATA(0, U64(f(1)))
	DATA(8, U64(1<<63))
	one, sign := tab.Offset(0), tab.Offset(8)

	rp, ap, xp := pointer("r"), pointer("a"), pointer("x")
	qp, lp := pointer("q"), pointer("lab")
	d := Load(Param("d"), GP64())
	stride := Load(Param("stride"), GP64())
	n := length()
	sc := pointer("sc")
	diag := Load(Param("diag"), GP64())
	SHLQ(U8(3), stride) // bytes

	QI, LI, B, ONE, SIGN, ZERO, R := ZMM(), ZMM(), ZMM(), ZMM(), ZMM(), ZMM(), ZMM()
	VMOVUPD(Mem{Base: sc}, QI)
	VMOVUPD(Mem{Base: sc, Disp: 64}, LI)
	VBROADCASTSD(Mem{Base: sc, Disp: 128}, B)
	VBROADCASTSD(one, ONE)
	VBROADCASTSD(sign, SIGN)
	VXORPD(ZERO, ZERO, ZERO)
	VMOVUPD(Mem{Base: rp}, R)

	c := GP64() // the column
	XORQ(c, c)

	// hinge adds column k's term (accumulator g) to R, in lanes keep
	// (nil: all) that pass.
	hinge := func(g VecVirtual, k int, keep uint8, masked bool) {
		t, u, h := ZMM(), ZMM(), ZMM()
		VADDPD_BCST(Mem{Base: qp, Index: c, Scale: 8, Disp: 8 * k}, QI, t) // q_i + q_j
		VSUBPD(g, t, t)                                                    // − g_ij
		VSUBPD(t, B, u)                                                    // u = b − D_ij
		ne, pass := K(), K()
		VCMPPD_BCST(U8(0x0c), Mem{Base: lp, Index: c, Scale: 8, Disp: 8 * k}, LI, ne) // labels differ (NEQ_OQ)
		VXORPD(SIGN, u, ne, u)                                                        // u = −u there
		VSUBPD(u, ONE, h)                                                             // h = 1 − u
		VCMPPD(U8(0x16), ZERO, h, pass)                                               // h > 0 or NaN (NLE_UQ)
		if masked {
			km, t := K(), GP32()
			MOVL(U32(uint32(keep)), t)
			KMOVB(t, km)
			KANDB(km, pass, pass)
		}
		VADDPD(h, R, pass, R)
	}

	// gram emits the entries g_ij of the w columns c..c+w−1 (labels
	// name+"L", name+"H").
	gram := func(w int, name string) []VecVirtual {
		return eightRows(w, ap, xp, c, d, U8(64), stride, name+"L", name+"H")
	}

	// group emits eight columns c..c+7.
	group := func(masked bool) {
		lbl := "group"
		if masked {
			lbl = "diag"
		}
		acc := gram(8, lbl)
		for k := range acc {
			if masked && k == 0 {
				continue // lane r takes column 0 only when 0 > r: never
			}
			hinge(acc[k], k, uint8(1<<k-1), masked)
		}
	}

	TESTQ(diag, diag)
	JE(LabelRef("groups"))
	group(true)
	ADDQ(U8(8), c)

	lim := GP64()
	Label("groups")
	MOVQ(n, lim)
	SUBQ(U8(8), lim)
	groupsThenOnes(c, lim, n, 8, "groupsL", "singles", "done", func(w int) {
		if w == 8 {
			group(false)
			ADDQ(U8(8), c)
			return
		}
		hinge(gram(1, "single")[0], 0, 0, false) // one column at a time
		INCQ(c)
	})
	VMOVUPD(R, Mem{Base: pointer("r")})
	VZEROUPPER()
	RET()
}

// genMetricDist generates the AVX-512 kernel of kernel.MetricDist8: the
// Mahalanobis-type distances δᵀθδ, δ = x_k − x_j, of one point k to eight
// points j side by side (one per lane), each with the reference's
// operations in its order (Problem.Dist: for each row a with δ_a ≠ 0,
// r = Σ_c θ_ac·δ_c from +0, then s += δ_a·r; products then sums, no FMA;
// a skipped row is a masked lane). The δ vectors are formed once into the
// scratch delta; four rows a run side by side (four independent sums),
// then one at a time.
func genMetricDist() {
	TEXT("metricDistAVX512", NOSPLIT, "func(out, theta, xk, x, delta *float64, d, stride int)")
	Pragma("noescape")
	Doc("metricDistAVX512 is MetricDist8 (AVX-512F/DQ): out[8], theta[d·d], xk[d], x[(d−1)·stride + 8], delta[8·d].",
		"The Go wrapper checks the lengths.")
	out, th, xk, xp, dp := pointer("out"), pointer("theta"), pointer("xk"), pointer("x"), pointer("delta")
	d := Load(Param("d"), GP64())
	stride := Load(Param("stride"), GP64())
	SHLQ(U8(3), stride)

	// delta[8c + lane] = xk[c] − x[c·stride + lane].
	c, px, pd := GP64(), GP64(), GP64()
	XORQ(c, c)
	MOVQ(xp, px)
	MOVQ(dp, pd)
	Label("delta")
	CMPQ(c, d)
	JAE(LabelRef("rows"))
	{
		t := ZMM()
		VBROADCASTSD(Mem{Base: xk, Index: c, Scale: 8}, t)
		VSUBPD(Mem{Base: px}, t, t)
		VMOVUPD(t, Mem{Base: pd})
	}
	ADDQ(stride, px)
	ADDQ(U8(64), pd)
	INCQ(c)
	JMP(LabelRef("delta"))

	Label("rows")
	S, ZERO := ZMM(), ZMM()
	VXORPD(S, S, S)
	VXORPD(ZERO, ZERO, ZERO)
	dBytes := GP64()
	MOVQ(d, dBytes)
	SHLQ(U8(3), dBytes)
	a, pa, lim := GP64(), GP64(), GP64() // row a, &theta[a·d]
	XORQ(a, a)
	MOVQ(th, pa)
	MOVQ(d, lim)
	SUBQ(U8(4), lim)

	// rowsOf emits rows a..a+g−1: their sums r, then s += δ_a·r in order.
	rowsOf := func(g int) {
		name := "one"
		if g == 4 {
			name = "four"
		}
		r := zeroed(g)
		cc, pdel, pt, pt2 := GP64(), GP64(), GP64(), GP64()
		XORQ(cc, cc)
		MOVQ(dp, pdel)
		MOVQ(pa, pt)
		if g > 2 {
			LEAQ(Mem{Base: pa, Index: dBytes, Scale: 2}, pt2)
		}
		Label(name + "C")
		CMPQ(cc, d)
		JAE(LabelRef(name + "S"))
		D := ZMM()
		VMOVUPD(Mem{Base: pdel}, D)
		for k := range r {
			t := ZMM()
			// &theta[(a+k)·d + c]: pt, pt + d, pt2, pt2 + d.
			m := Mem{Base: pt}
			if k >= 2 {
				m.Base = pt2
			}
			if k%2 == 1 {
				m.Index, m.Scale = dBytes, 1
			}
			VMULPD_BCST(m, D, t)
			VADDPD(t, r[k], r[k])
		}
		ADDQ(U8(64), pdel)
		ADDQ(U8(8), pt)
		if g > 2 {
			ADDQ(U8(8), pt2)
		}
		INCQ(cc)
		JMP(LabelRef(name + "C"))
		Label(name + "S")
		for k := range r {
			da, t, keep := ZMM(), ZMM(), K()
			row := GP64()
			MOVQ(a, row)
			if k > 0 {
				ADDQ(U8(k), row)
			}
			SHLQ(U8(6), row)
			ADDQ(dp, row)
			VMOVUPD(Mem{Base: row}, da)
			VCMPPD(U8(0x04), ZERO, da, keep) // δ_a ≠ 0 (NaN counts: NEQ_UQ)
			VMULPD(r[k], da, t)
			VADDPD(t, S, keep, S)
		}
		ADDQ(U8(g), a)
		for range g {
			ADDQ(dBytes, pa)
		}
	}

	groupsThenOnes(a, lim, d, 4, "fours", "ones", "done", rowsOf)
	VMOVUPD(S, Mem{Base: out})
	VZEROUPPER()
	RET()
}

// genGemm8 generates the AVX-512 kernel of kernel.Gemm8: eight rows of a
// product A·B side by side, one per lane, each entry Σ_l a[l][lane]·b[l][c]
// in gemmNN's order (from +0, l = 0, 1, …, a product then a sum, no FMA),
// eight columns at a time (eight accumulators, a[l] loaded once for the
// eight, b[l][c] broadcast from memory into the product), then one at a
// time.
func genGemm8() {
	TEXT("gemm8AVX512", NOSPLIT, "func(out, a *float64, astride int, b *float64, bstride, d, n int)")
	Pragma("noescape")
	Doc("gemm8AVX512 is Gemm8 (AVX-512F): out[8n], a[(d−1)·astride + 8], b[(d−1)·bstride + n].",
		"The Go wrapper checks the lengths.")
	out, ap := pointer("out"), pointer("a")
	astride := Load(Param("astride"), GP64())
	bp := pointer("b")
	bstride := Load(Param("bstride"), GP64())
	d := Load(Param("d"), GP64())
	n := length()
	SHLQ(U8(3), astride)
	SHLQ(U8(3), bstride)
	c, lim := GP64(), GP64()
	XORQ(c, c)
	MOVQ(n, lim)
	SUBQ(U8(8), lim)

	// cols emits the w columns c..c+w−1 of the eight rows into out.
	cols := func(w int) {
		name := "single"
		if w == 8 {
			name = "group"
		}
		acc := eightRows(w, ap, bp, c, d, astride, bstride, name+"L", name+"S")
		po := GP64()
		MOVQ(c, po)
		SHLQ(U8(6), po)
		ADDQ(out, po)
		for k := range acc {
			VMOVUPD(acc[k], Mem{Base: po, Disp: 64 * k})
		}
		ADDQ(U8(w), c)
	}
	groupsThenOnes(c, lim, n, 8, "groups", "singles", "done", cols)
	VZEROUPPER()
	RET()
}

// zeroed returns w new ZMM registers, each cleared to +0.
func zeroed(w int) []VecVirtual {
	r := make([]VecVirtual, w)
	for k := range r {
		r[k] = ZMM()
		VXORPD(r[k], r[k], r[k])
	}
	return r
}

// eightRows emits the entries of eight rows × w columns of a product, one
// row per lane: acc[k] = Σ_l a[l]·b[l][c+k] over l < d, from +0 in the
// order l = 0, 1, …, a product then a sum (no FMA). The row vector a[l]
// (eight lanes at ap + l·aStep) is loaded once for the w columns, and
// b[l][c+k] (at bp + 8c + l·bStride + 8k) is broadcast from memory into
// the product. loop labels the loop over l, end the code after it.
func eightRows(w int, ap, bp, c, d Register, aStep, bStride Op, loop, end string) []VecVirtual {
	acc := zeroed(w)
	pa, pb, l := GP64(), GP64(), GP64()
	MOVQ(ap, pa)
	LEAQ(Mem{Base: bp, Index: c, Scale: 8}, pb)
	MOVQ(d, l)
	Label(loop)
	TESTQ(l, l)
	JE(LabelRef(end))
	A := ZMM()
	VMOVUPD(Mem{Base: pa}, A)
	for k := range acc {
		t := ZMM()
		VMULPD_BCST(Mem{Base: pb, Disp: 8 * k}, A, t)
		VADDPD(t, acc[k], acc[k])
	}
	ADDQ(aStep, pa)
	ADDQ(bStride, pb)
	DECQ(l)
	JMP(LabelRef(loop))
	Label(end)
	return acc
}

// groupsThenOnes emits the skeleton "groups of g, then ones" over index
// i: body(g) while i ≤ lim (lim = count − g, set by the caller), then
// body(1) while i < count; body advances i by its width. The loops are
// labelled groups and ones, the code after them done.
func groupsThenOnes(i, lim, count Register, g int, groups, ones, done string, body func(w int)) {
	Label(groups)
	CMPQ(i, lim)
	JGT(LabelRef(ones))
	body(g)
	JMP(LabelRef(groups))
	Label(ones)
	CMPQ(i, count)
	JAE(LabelRef(done))
	body(1)
	JMP(LabelRef(ones))
	Label(done)
}
