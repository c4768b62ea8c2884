package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genEventLogisticPair generates two asynchronous gossip events on four
// distinct nodes in one call (see kernel.EventLogisticPair): each event's
// pass is genEventLogistic's, instruction for instruction, but the four
// gradient weights are computed side by side in one YMM register (one
// negSigmoid for both events instead of one each; a lane's arithmetic does
// not depend on its neighbours, so each weight has the single-event
// kernel's bits), and the two events' independent passes sit in one
// instruction stream for the core to overlap. sc and sc2 are the events'
// EventScalars. It returns in bits 0–3 which of the weights (i, j of the
// first event, then of the second) are non-zero and in bits 0–3 of bad
// which endpoints' new margins are not finite.
func genEventLogisticPair() {
	text("eventLogisticPair"+T.suffix,
		"func(xi, yi, zi, bi, xj, yj, zj, bj, xk, yk, zk, bk, xl, yl, zl, bl *float64, n int, sc, sc2 *float64) (nonzero int, bad int)",
		"eventLogisticPair"+T.suffix+" is the two-event kernel EventLogisticPair ("+T.desc+").")
	K := logisticConsts("eventPairConst"+T.suffix, 4) // read as YMM operands (negSigmoid)
	n := length()
	type ev struct {
		x, y, z, b [2]string // parameter names, endpoints i and j
		sc         string
	}
	evs := [2]ev{
		{[2]string{"xi", "xj"}, [2]string{"yi", "yj"}, [2]string{"zi", "zj"}, [2]string{"bi", "bj"}, "sc"},
		{[2]string{"xk", "xl"}, [2]string{"yk", "yl"}, [2]string{"zk", "zl"}, [2]string{"bk", "bl"}, "sc2"},
	}
	at := func(p Register, k int) Mem { return Mem{Base: p, Disp: 8 * k} }

	// Pass 1 of each event: swap y, margins at the old θ, average z.
	var ms [2][2]Register
	for v, e := range evs {
		sc := pointer(e.sc)
		CI, CJ := T.vec(), T.vec()
		VBROADCASTSD(at(sc, 0), CI)
		VBROADCASTSD(at(sc, 1), CJ)
		xi, yi, zi := pointer(e.x[0]), pointer(e.y[0]), pointer(e.z[0])
		xj, yj, zj := pointer(e.x[1]), pointer(e.y[1]), pointer(e.z[1])
		mi, mj := eventPass1(n, xi, yi, zi, xj, yj, zj, CI, CJ, K)
		ms[v] = [2]Register{mi, mj}
	}

	// The four weights: lanes (m_i, m_j, m_k, m_l) → g = φ'(m) → w = p·g.
	M, hi, zero := YMM(), XMM(), YMM()
	VUNPCKLPD(ms[0][1], ms[0][0], M.AsX()) // (m_i, m_j)
	VUNPCKLPD(ms[1][1], ms[1][0], hi)      // (m_k, m_l)
	VINSERTF128(U8(1), hi, M, M)
	VXORPD(zero, zero, zero)
	g := negSigmoid(K, M, zero)
	P, contrib := YMM(), YMM()
	sc, sc2 := pointer("sc"), pointer("sc2")
	VMOVUPD(at(sc, 2), P.AsX())          // (p_i, p_j)
	VINSERTF128(U8(1), at(sc2, 2), P, P) // (p_i, p_j, p_k, p_l)
	VCMPPD(U8(4), zero, P, contrib)      // p ≠ 0
	VMULPD(P, g, g)
	VANDPD(contrib, g, g) // w (+0 where the pair does not contribute)
	nzm := YMM()
	VCMPPD(U8(4), zero, g, nzm) // w ≠ 0 (NaN counts)
	VANDPD(contrib, nzm, nzm)
	nz := GP64()
	VMOVMSKPD(nzm, nz.As32())
	gHi := XMM()
	VEXTRACTF128(U8(1), g, gHi) // (w_k, w_l)

	// Pass 2: each endpoint's fused update, its new margin for the
	// finiteness test.
	bad := GP64()
	XORQ(bad, bad)
	for v, e := range evs {
		for h := 0; h < 2; h++ {
			src := g.AsX()
			if v == 1 {
				src = gHi
			}
			W, C, A, B := T.vec(), T.vec(), T.vec(), T.vec()
			if h == 0 {
				VBROADCASTSD(src, W)
			} else {
				t := XMM()
				VPERMILPD(U8(1), src, t)
				VBROADCASTSD(t, W)
			}
			scp := pointer(e.sc)
			VBROADCASTSD(at(scp, 4+h), C)
			VBROADCASTSD(at(scp, 6+h), A)
			VBROADCASTSD(at(scp, 8+h), B)
			x, y, z, bar := pointer(e.x[h]), pointer(e.y[h]), pointer(e.z[h]), pointer(e.b[h])
			sm := newSum2()
			loop(n, func(s step) {
				l := s.l
				d := l.reg()
				l.load(s.at(x), d)
				l.sub(s.at(y), d, d)
				t := l.reg()
				l.mul(d, l.cst(W), t)
				l.add(s.at(z), t, t)
				l.store(t, s.at(z))
				l.mul(l.cst(C), t, t)
				l.fma(t, d, sm.acc(s))
				l.mul(l.cst(B), t, t)
				u := l.reg()
				l.mul(s.at(bar), l.cst(A), u)
				l.add(t, u, u)
				l.store(u, s.at(bar))
			})
			m := sm.total()
			VSUBSD(m, m, m) // 0 if finite, NaN otherwise
			VUCOMISD(m, m)  // parity set iff NaN
			f := GP64()
			SETPS(f.As8())
			MOVBQZX(f.As8(), f)
			if b := 2*v + h; b > 0 {
				SHLQ(U8(b), f)
			}
			ORQ(f, bad)
		}
	}
	VZEROUPPER()
	Store(nz, ReturnIndex(0))
	Store(bad, ReturnIndex(1))
	RET()
}
