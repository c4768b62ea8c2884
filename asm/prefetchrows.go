package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// genPrefetchRows generates the batch prefetch of records by index (see
// kernel.PrefetchRows): for each of n int32 indices k, PREFETCHT0 of the
// lines lines of the record at base + k·stride. One call covers a group of
// events (both endpoints' whole records), so the call and the address
// arithmetic are paid once per group instead of once per address.
func genPrefetchRows() {
	text("prefetchRowsAVX2", "func(base *byte, idx *int32, n int, stride int, lines int)",
		"prefetchRowsAVX2 issues PREFETCHT0 for lines 0..lines−1 of the record base + idx[i]·stride, i < n (SSE).")
	base, idx := pointer("base"), pointer("idx")
	n := length()
	stride := Load(Param("stride"), GP64())
	lines := Load(Param("lines"), GP64())
	i, p, l := GP64(), GP64(), GP64()
	XORQ(i, i)
	Label("rows")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	MOVLQSX(Mem{Base: idx, Index: i, Scale: 4}, p)
	IMULQ(stride, p)
	ADDQ(base, p)
	MOVQ(lines, l)
	Label("lines")
	TESTQ(l, l)
	JE(LabelRef("next"))
	PREFETCHT0(Mem{Base: p})
	ADDQ(U8(64), p)
	DECQ(l)
	JMP(LabelRef("lines"))
	Label("next")
	INCQ(i)
	JMP(LabelRef("rows"))
	Label("done")
	RET()
}
