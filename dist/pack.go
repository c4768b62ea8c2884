package dist

import (
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

// pack is engine's redPack: contributing nodes advanced side by side.
type pack struct {
	act              []int32
	s0, q, W, eta, m []float64
	pos              []int32
	slots            bool
}

func newPack(c int) pack {
	t := func() []float64 { return make([]float64, 0, c) }
	return pack{act: make([]int32, 0, c), s0: t(), q: t(), W: t(), eta: t(), m: t()}
}

func (p *pack) add(k int32, s0, q, W, eta, m float64) {
	p.act, p.s0, p.q, p.W, p.eta, p.m = append(p.act, k), append(p.s0, s0), append(p.q, q), append(p.W, W), append(p.eta, eta), append(p.m, m)
	if p.pos != nil {
		p.pos[k] = int32(len(p.act))
	}
}

func (p *pack) remove(i int) {
	l := len(p.m) - 1
	if p.pos != nil {
		p.pos[p.act[i]] = 0
		if i != l {
			p.pos[p.act[l]] = int32(i + 1)
		}
	}
	p.act[i], p.s0[i], p.q[i], p.W[i], p.eta[i], p.m[i] = p.act[l], p.s0[l], p.q[l], p.W[l], p.eta[l], p.m[l]
	p.act, p.s0, p.q, p.W, p.eta, p.m = p.act[:l], p.s0[:l], p.q[:l], p.W[:l], p.eta[:l], p.m[:l]
}

func (p *pack) reset() {
	p.act, p.s0, p.q, p.W, p.eta, p.m = p.act[:0], p.s0[:0], p.q[:0], p.W[:0], p.eta[:0], p.m[:0]
}

// writeBack stores touched entry i's W, η and next margin into its slot.
func (p *pack) writeBack(l *local, i int) {
	sl := p.act[i]
	l.W[sl], l.eta[sl], l.mNext[sl] = p.W[i], p.eta[i], p.m[i]
}

// packRound is engine's reducedExec.packRound: it returns the non-zero
// gradients and the entry (a slot or a node) of the first non-finite
// margin, −1 when none (that entry leaves the pack, written back).
func (l *local) packRound(p *pack, cf coef, t int64) (nz int64, bad int) {
	bc := cf.b * cf.c
	fin := true
	bad = -1
	if l.loss == problem.AUCLogistic {
		var c int
		c, fin = kernel.LogisticRound(p.s0, p.q, p.W, p.eta, p.m, cf.c, cf.a, bc)
		nz = int64(c)
	} else {
		for i := range p.m {
			g := l.loss.MarginDeriv(p.m[i])
			if g != 0 {
				nz++
			}
			Wi := p.W[i] + g
			p.W[i] = Wi
			p.eta[i] = float64(cf.a*p.eta[i]) + float64(bc*Wi)
			p.m[i] = cf.c * (p.s0[i] + float64(Wi*p.q[i]))
			fin = fin && isFinite(p.m[i])
		}
	}
	if !fin {
		for i := 0; i < len(p.m); i++ {
			if isFinite(p.m[i]) {
				continue
			}
			if bad < 0 {
				bad = int(p.act[i])
			}
			if p.slots {
				p.writeBack(l, i)
			} else {
				l.finish(p, i, 0)
			}
			p.remove(i)
			i--
		}
	}
	return nz, bad
}

func isFinite(v float64) bool { return v-v == 0 }
