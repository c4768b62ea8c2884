package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genHouseholder generates kernel.Householder: H = I − τ·vvᵀ, v = [h; 1],
// applied to the (rows+1)×n row-major block y (row stride stride), one
// vector register of columns at a time: s = y[rows, c] + Σ_r h[r]·y[r, c]
// in order of r (unfused, as the reference), s = τ·s, y[rows, c] −= s,
// y[r, c] −= h[r]·s. A block's sums stay in a register down the rows (the
// blocks' dependency chains are independent, with no store in between);
// the partial last block is one step under an opmask (AVX-512) or scalar
// columns (AVX2).
func genHouseholder() {
	text("householder"+T.suffix, "func(y, h *float64, n, rows, stride int, tau float64)",
		"householder"+T.suffix+" applies I − τ·vvᵀ, v = [h[0:rows]; 1], to the (rows+1)×n block of y with row stride stride ("+T.suffix+", no FMA: bit-identical to the reference).")
	Tau := broadcast("tau")
	y, h, n := pointer("y"), pointer("h"), length()
	rows := Load(Param("rows"), GP64())
	stride := Load(Param("stride"), GP64())
	SHLQ(U8(3), stride) // bytes
	last := GP64()      // row rows (v's 1)
	MOVQ(rows, last)
	IMULQ(stride, last)
	ADDQ(y, last)
	var k Register
	if T.masked {
		k = tailMask(n)
	}
	bodies := 0
	// body handles the columns c … c+l.width−1.
	body := func(l lane, c Register) {
		sfx := fmt.Sprint("_", bodies)
		bodies++
		at := func(base Register) Mem { return Mem{Base: base, Index: c, Scale: 8} }
		hr := func(r Register) Register {
			if l.width == 1 {
				x := XMM()
				VMOVSD(Mem{Base: h, Index: r, Scale: 8}, x)
				return x
			}
			v := T.vec()
			VBROADCASTSD(Mem{Base: h, Index: r, Scale: 8}, v)
			return v
		}
		s, t := l.reg(), l.reg()
		l.load(at(last), s)
		p, r := GP64(), GP64()
		MOVQ(y, p)
		XORQ(r, r)
		Label("sum" + sfx)
		CMPQ(r, rows)
		JAE(LabelRef("sumd" + sfx))
		l.mul(at(p), hr(r), t) // h[r]·y[r, c]
		l.add(t, s, s)         // s + h[r]·y[r, c]
		ADDQ(stride, p)
		INCQ(r)
		JMP(LabelRef("sum" + sfx))
		Label("sumd" + sfx)
		l.mul(l.cst(Tau), s, s) // τ·s
		l.load(at(last), t)
		l.sub(s, t, t) // y[rows, c] − s
		l.store(t, at(last))
		MOVQ(y, p)
		XORQ(r, r)
		Label("upd" + sfx)
		CMPQ(r, rows)
		JAE(LabelRef("updd" + sfx))
		l.mul(s, hr(r), t) // h[r]·s
		u := l.reg()
		l.load(at(p), u)
		l.sub(t, u, u) // y[r, c] − h[r]·s
		l.store(u, at(p))
		ADDQ(stride, p)
		INCQ(r)
		JMP(LabelRef("upd" + sfx))
		Label("updd" + sfx)
	}
	w := T.width
	c, lim := GP64(), GP64()
	XORQ(c, c)
	MOVQ(n, lim)
	ANDQ(I32(-w), lim)
	Label("blk")
	CMPQ(c, lim)
	JAE(LabelRef("tail"))
	body(packed(), c)
	ADDQ(U8(w), c)
	JMP(LabelRef("blk"))
	Label("tail")
	CMPQ(c, n)
	JAE(LabelRef("done"))
	if T.masked {
		body(maskedLane(k), c)
	} else {
		body(scalar, c)
		INCQ(c)
		JMP(LabelRef("tail"))
	}
	Label("done")
	finish(nil)
}
