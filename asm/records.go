package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genRecords generates the batch row updates of the reduced synchronous
// schedule's block ends (kernel.WriteRecords and kernel.AverageRecords),
// AVX-512 only: for each node of a list, its rows of n elements, found by
// index and stride, are updated element by element with the reference's
// operations in the reference's order (no FMA), eight lanes at a time and
// the rest one element at a time, so the results are the reference's bits.
// One call covers every node of a block end, instead of a scalar loop per
// short row (n = 9 at the paper's size). (Not the rest in one step under an
// opmask: the masked-off lanes of a row's last vector lie in the record's
// next field, and a load from there waits for the masked store to leave
// the core as if it had written there.)
func genRecords() {
	T = avx512
	genWriteRecords()
	genAverageRecords()
}

// nodeLoop emits the loop over the nodes e = 0..m−1 of a records kernel
// and its return: body(e, n, nFull) per node, n being parameter n (the row
// length) and nFull n rounded down to 8 (as rowLoop takes them). Labels
// name_node and name_end.
func nodeLoop(name string, body func(e, n, nFull Register)) {
	n := Load(Param("n"), GP64())
	nFull := GP64()
	MOVQ(n, nFull)
	ANDQ(I32(-8), nFull)
	e := GP64()
	XORQ(e, e)
	Label(name + "_node")
	CMPQ(e, paramAddr("m"))
	JAE(LabelRef(name + "_end"))
	body(e, n, nFull)
	INCQ(e)
	JMP(LabelRef(name + "_node"))
	Label(name + "_end")
	VZEROUPPER()
	RET()
}

// rowLoop emits the loop over the elements 0..n−1 of one node's rows
// (nFull: n rounded down to 8): body(at, l) per group of eight, then per
// element, at(p) being the operand in the row at p and l the lane (packed
// or scalar).
func rowLoop(name string, n, nFull Register, body func(at func(Register) Mem, l lane)) {
	a := GP64()
	XORQ(a, a)
	Label(name + "_full")
	CMPQ(a, nFull)
	JAE(LabelRef(name + "_tail"))
	s := step{l: packed(), i: a}
	body(s.at, s.l)
	ADDQ(U8(8), a)
	JMP(LabelRef(name + "_full"))
	Label(name + "_tail")
	CMPQ(a, n)
	JAE(LabelRef(name + "_done"))
	s = step{l: scalar, i: a}
	body(s.at, s.l)
	INCQ(a)
	JMP(LabelRef(name + "_tail"))
	Label(name + "_done")
}

// rowAt returns the address base + idx·stride·8 (row idx of a matrix of
// the given stride in elements) in a new register.
func rowAt(base, idx, stride Register) Register {
	p := GP64()
	MOVQ(idx, p)
	IMULQ(stride, p)
	LEAQ(Mem{Base: base, Index: p, Scale: 8}, p)
	return p
}

// genWriteRecords: per node k = nodes[e], with y = yidx[k] and al, be, w,
// eta = sc[4e..4e+3]: d = x_k − x_y; θ̄ = (al·θ̄ + be·z) + eta·d; z += w·d.
func genWriteRecords() {
	TEXT("writeRecordsAVX512", NOSPLIT, "func(x *float64, sx int, yidx *int32, z, bar *float64, sr int, n int, nodes *int32, m int, sc *float64)")
	Pragma("noescape")
	Doc("writeRecordsAVX512 is WriteRecords' loop (AVX-512F; sx and sr in elements, sc: al, be, w, eta",
		"of each node in turn). The Go wrapper checks every index and length.")
	nodeLoop("wr", func(e, n, nFull Register) {
		nodes, yidx := Load(Param("nodes"), GP64()), Load(Param("yidx"), GP64())
		kk, yy := GP64(), GP64()
		MOVLQSX(Mem{Base: nodes, Index: e, Scale: 4}, kk)
		MOVLQSX(Mem{Base: yidx, Index: kk, Scale: 4}, yy)
		x, sx := Load(Param("x"), GP64()), Load(Param("sx"), GP64())
		px, py := rowAt(x, kk, sx), rowAt(x, yy, sx)
		sr := Load(Param("sr"), GP64())
		pz := rowAt(Load(Param("z"), GP64()), kk, sr)
		pb := rowAt(Load(Param("bar"), GP64()), kk, sr)
		so := GP64()
		MOVQ(e, so)
		SHLQ(U8(5), so)
		ADDQ(Load(Param("sc"), GP64()), so)
		AL, BE, W, ETA := ZMM(), ZMM(), ZMM(), ZMM()
		VBROADCASTSD(Mem{Base: so}, AL)
		VBROADCASTSD(Mem{Base: so, Disp: 8}, BE)
		VBROADCASTSD(Mem{Base: so, Disp: 16}, W)
		VBROADCASTSD(Mem{Base: so, Disp: 24}, ETA)
		rowLoop("wr", n, nFull, func(at func(Register) Mem, l lane) {
			d, zv, t, u := l.reg(), l.reg(), l.reg(), l.reg()
			l.load(at(px), d)
			l.sub(at(py), d, d) // d = x − y
			l.load(at(pz), zv)
			l.mul(at(pb), l.cst(AL), t) // al·θ̄
			l.mul(zv, l.cst(BE), u)     // be·z
			l.add(u, t, t)
			l.mul(d, l.cst(ETA), u) // eta·d
			l.add(u, t, t)
			l.store(t, at(pb))
			l.mul(d, l.cst(W), u) // w·d
			l.add(u, zv, zv)
			l.store(zv, at(pz))
		})
	})
}

// genAverageRecords: per node k = nodes[e]: θ̄ = al·θ̄ + be·z.
func genAverageRecords() {
	TEXT("averageRecordsAVX512", NOSPLIT, "func(z, bar *float64, sr int, n int, nodes *int32, m int, al, be float64)")
	Pragma("noescape")
	Doc("averageRecordsAVX512 is AverageRecords' loop (AVX-512F; sr in elements).",
		"The Go wrapper checks every index and length.")
	AL, BE := ZMM(), ZMM()
	VBROADCASTSD(paramAddr("al"), AL)
	VBROADCASTSD(paramAddr("be"), BE)
	nodeLoop("av", func(e, n, nFull Register) {
		kk := GP64()
		MOVLQSX(Mem{Base: Load(Param("nodes"), GP64()), Index: e, Scale: 4}, kk)
		sr := Load(Param("sr"), GP64())
		pz := rowAt(Load(Param("z"), GP64()), kk, sr)
		pb := rowAt(Load(Param("bar"), GP64()), kk, sr)
		rowLoop("av", n, nFull, func(at func(Register) Mem, l lane) {
			t, u := l.reg(), l.reg()
			l.mul(at(pb), l.cst(AL), t) // al·θ̄
			l.mul(at(pz), l.cst(BE), u) // be·z
			l.add(u, t, t)
			l.store(t, at(pb))
		})
	})
}
