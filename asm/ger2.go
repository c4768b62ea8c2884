package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genGer2 generates the rank-2 update of kernel.Ger2: for each row q <
// rows of the row-major a (row q at a + q·stride elements),
//
//	a[q, c] = (a[q, c] − x[q]·y[c]) − u[q]·v[c],  c < n,
//
// the two products rounded before each subtraction (no FMA), so that the
// result is bit-identical to the reference and to two rank-1 updates
// a += (−x)·yᵀ, a += (−u)·vᵀ done one after the other. One call covers the
// whole matrix (the symmetric tridiagonalisation's update of one step);
// each row is the common loop with x[q] and u[q] broadcast.
func genGer2() {
	genGer2Rows(false)
	genGer2Rows(true)
}

// genGer2Rows generates ger2 (dot false) or, with dot, ger2Dot: ger2's
// update, and out[c] += z[q]·a[q, c] for each updated row q (one FMA a
// vector, into out, which the wrapper clears): the product zᵀA, the next
// tridiagonalisation step's A·h for the symmetric A, accumulated down the
// rows while each is in registers, with no horizontal sum a row. Under
// AVX-512 the partial last vector of out stays in a register through the
// rows and is stored once at the end: a masked store does not forward to
// the next row's load.
func genGer2Rows(dot bool) {
	if dot {
		text("ger2Dot"+T.suffix, "func(a, x, y, u, v, z, out *float64, n, rows, stride int)",
			"ger2Dot"+T.suffix+" is ger2"+T.suffix+", adding z[q]·a[q·stride+c] (updated) to out[c] ("+T.desc+"; the update bit-identical to the reference, the products accumulated with FMA).")
	} else {
		text("ger2"+T.suffix, "func(a, x, y, u, v *float64, n, rows, stride int)",
			"ger2"+T.suffix+" sets a[q·stride+c] = (a[q·stride+c] − x[q]·y[c]) − u[q]·v[c] for q < rows, c < n ("+T.suffix+", no FMA: bit-identical to the reference).")
	}
	a, x, y, u, v, n := pointer("a"), pointer("x"), pointer("y"), pointer("u"), pointer("v"), length()
	var z, out Register
	if dot {
		z, out = pointer("z"), pointer("out")
	}
	rows := Load(Param("rows"), GP64())
	stride := Load(Param("stride"), GP64())
	SHLQ(U8(3), stride) // bytes
	var k, tailAcc Register
	var full GPVirtual
	if dot && T.masked {
		k = tailMask(n)
		tailAcc = T.vec()
		VXORPD(tailAcc, tailAcc, tailAcc)
		full = GP64()
		MOVQ(n, full)
		ANDQ(I32(-T.width), full)
	}
	q := GP64()
	XORQ(q, q)
	Label("rows")
	CMPQ(q, rows)
	JAE(LabelRef("end"))
	X, U := T.vec(), T.vec()
	VBROADCASTSD(Mem{Base: x, Index: q, Scale: 8}, X)
	VBROADCASTSD(Mem{Base: u, Index: q, Scale: 8}, U)
	var Z VecVirtual
	if dot {
		Z = T.vec()
		VBROADCASTSD(Mem{Base: z, Index: q, Scale: 8}, Z)
	}
	// update sets a[q, c] (c at at's index) and returns the new value.
	update := func(l lane, at func(Register) Mem) Register {
		t, p := l.reg(), l.reg()
		l.load(at(a), t)
		l.mul(at(y), l.cst(X), p) // x[q]·y[c]
		l.sub(p, t, t)            // a − x[q]·y[c]
		l.mul(at(v), l.cst(U), p) // u[q]·v[c]
		l.sub(p, t, t)            // (a − x[q]·y[c]) − u[q]·v[c]
		l.store(t, at(a))
		return t
	}
	switch {
	case !dot:
		loop(n, func(s step) { update(s.l, s.at) })
	case !T.masked:
		loop(n, func(s step) {
			t := update(s.l, s.at)
			o := s.l.reg()
			s.l.load(s.at(out), o)
			s.l.fma(s.l.cst(Z), t, o) // out[c] += z[q]·a[q, c]
			s.l.store(o, s.at(out))
		})
	default:
		i := GP64()
		XORQ(i, i)
		Label("vec")
		CMPQ(i, full)
		JAE(LabelRef("part"))
		s := step{l: packed(), i: i}
		t := update(s.l, s.at)
		o := T.vec()
		VMOVUPD(s.at(out), o)
		VFMADD231PD(Z, t, o) // out[c] += z[q]·a[q, c]
		VMOVUPD(o, s.at(out))
		ADDQ(U8(T.width), i)
		JMP(LabelRef("vec"))
		Label("part")
		CMPQ(i, n)
		JAE(LabelRef("next"))
		s = step{l: maskedLane(k), i: i}
		t = update(s.l, s.at)
		VFMADD231PD(Z, t, k, tailAcc)
		Label("next")
	}
	ADDQ(stride, a)
	INCQ(q)
	JMP(LabelRef("rows"))
	Label("end")
	if dot && T.masked {
		VMOVUPD(tailAcc, k, Mem{Base: out, Index: full, Scale: 8})
	}
	finish(nil)
}
