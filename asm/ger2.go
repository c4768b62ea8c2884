package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
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
	text("ger2"+T.suffix, "func(a, x, y, u, v *float64, n, rows, stride int)",
		"ger2"+T.suffix+" sets a[q·stride+c] = (a[q·stride+c] − x[q]·y[c]) − u[q]·v[c] for q < rows, c < n ("+T.suffix+", no FMA: bit-identical to the reference).")
	a, x, y, u, v, n := pointer("a"), pointer("x"), pointer("y"), pointer("u"), pointer("v"), length()
	rows := Load(Param("rows"), GP64())
	stride := Load(Param("stride"), GP64())
	SHLQ(U8(3), stride) // bytes
	q := GP64()
	XORQ(q, q)
	Label("rows")
	CMPQ(q, rows)
	JAE(LabelRef("end"))
	X, U := T.vec(), T.vec()
	VBROADCASTSD(Mem{Base: x, Index: q, Scale: 8}, X)
	VBROADCASTSD(Mem{Base: u, Index: q, Scale: 8}, U)
	loop(n, func(s step) {
		l := s.l
		t, p := l.reg(), l.reg()
		l.load(s.at(a), t)
		l.mul(s.at(y), l.cst(X), p) // x[q]·y[c]
		l.sub(p, t, t)              // a − x[q]·y[c]
		l.mul(s.at(v), l.cst(U), p) // u[q]·v[c]
		l.sub(p, t, t)              // (a − x[q]·y[c]) − u[q]·v[c]
		l.store(t, s.at(a))
	})
	ADDQ(stride, a)
	INCQ(q)
	JMP(LabelRef("rows"))
	Label("end")
	finish(nil)
}
