package ranks

import (
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/redpack"
)

// untouched advances this rank's nodes that no edge of the block touches
// (engine's reducedExec.shard), over the rank's workers.
func (l *local) untouched(t0 int64, B int, alphaEnd, betaEnd float64) {
	cEnd := l.coef[B].c
	nl := l.hi - l.lo
	nz := make([]int64, len(l.packs))
	bad := make([]div, len(l.packs))
	par.Blocks(nl, l.workers, func(w, lo, hi int) {
		p := &l.packs[w]
		var n int64
		for lk := lo; lk < hi; lk++ {
			if l.stamp[lk] == l.gen {
				continue
			}
			k := lk + l.lo
			x, y := l.xRow(k), l.yRow(k)
			s0, q := segment(x, y, l.zRow(k))
			if l.lab[lk] <= l.ylab[lk] {
				z, bar := l.zRow(k), l.barRow(k)
				redpack.Average(ptr(z), ptr(bar[:len(z)]), len(z), alphaEnd, betaEnd)
				l.marg[lk] = cEnd * s0
				continue
			}
			p.Add(int32(k), s0, q, 0, 0, l.marg[lk])
			if len(p.Act) == cap(p.Act) {
				c, b := l.runPack(p, t0, B, alphaEnd, betaEnd)
				n += c
				bad[w].merge(b)
			}
		}
		c, b := l.runPack(p, t0, B, alphaEnd, betaEnd)
		n += c
		bad[w].merge(b)
		nz[w] += n
	})
	for w := range nz {
		l.nonzero += nz[w]
		l.bad.merge(bad[w])
	}
}

// runPack advances the nodes of p through the block and materialises them;
// it returns the non-zero gradients and where a margin first turned
// non-finite.
func (l *local) runPack(p *redpack.Pack, t0 int64, B int, alphaEnd, betaEnd float64) (nz int64, bad div) {
	for r := 1; r <= B; r++ {
		c, b := l.packRound(p, l.coef[r], t0+int64(r), false)
		nz += c
		bad.merge(b)
	}
	for i := len(p.Act) - 1; i >= 0; i-- {
		l.finish(p, i, B)
	}
	p.Reset()
	return nz, bad
}

// finish materialises untouched entry i at the end of the block of B
// rounds (B = 0: the current block's, for a node that left early).
func (l *local) finish(p *redpack.Pack, i, B int) {
	if B == 0 {
		B = l.curB
	}
	k := int(p.Act[i])
	write(l.xRow(k), l.yRow(k), l.zRow(k), l.barRow(k), l.alphaEnd, l.betaEnd, p.W[i], p.Eta[i])
	l.marg[k-l.lo] = l.coef[B].c * (p.S0[i] + float64(p.W[i]*p.Q[i]))
}

// scatter writes this rank's touched records back from the gathered copies.
func (l *local) scatter() {
	rc := l.rec()
	L := rc.len()
	me := int32(l.comm.Rank())
	for sl, k32 := range l.touched {
		if l.owner[sl] != me {
			continue
		}
		k := int(k32)
		lk := k - l.lo
		v := l.recs[sl*L : (sl+1)*L]
		copy(l.zRow(k), rc.z(v))
		copy(l.barRow(k), rc.bar(v))
		tl := rc.tail(v)
		l.marg[lk] = tl[0]
		if rc.extra > 0 {
			l.nt.rounds[lk], l.nt.cNode[lk] = int64(tl[3]), tl[4]
		}
		old, nw := l.y[lk], int32(tl[1])
		l.y[lk], l.ylab[lk] = nw, int32(tl[2])
		if old != nw {
			l.unref(old)
			if !l.own(int(nw)) {
				l.ref(nw, rc.y(v))
			}
		}
	}
}

// ref and unref count the own nodes whose y is the foreign data row j.
func (l *local) ref(j int32, row []float64) {
	if f, ok := l.foreignRefs[j]; ok {
		l.foreignRefs[j] = f + 1
		return
	}
	l.foreign[j] = append([]float64(nil), row...)
	l.foreignRefs[j] = 1
}

func (l *local) unref(j int32) {
	if l.own(int(j)) {
		return
	}
	if f := l.foreignRefs[j] - 1; f > 0 {
		l.foreignRefs[j] = f
		return
	}
	delete(l.foreignRefs, j)
	delete(l.foreign, j)
}
