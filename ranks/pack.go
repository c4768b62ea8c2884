package ranks

import (
	"github.com/pairgossip/pairgossip/internal/redpack"
)

// packRound advances pack p through round t (coefficients cf) with the
// engine's arithmetic (redpack.Pack.Round, which engine's reducedExec
// runs too). It returns the non-zero gradients and the entry (a slot, with
// slots, or a node) of the first non-finite margin, −1 when none; that
// entry leaves the pack, written back (into its slot, or its record).
func (l *local) packRound(p *redpack.Pack, cf coef, t int64, slots bool) (nz int64, bad int) {
	nz, fin := p.Round(l.loss, len(p.M), cf.c, cf.a, cf.b*cf.c)
	bad = -1
	if fin {
		return nz, bad
	}
	for i := 0; i < len(p.M); i++ {
		if redpack.Finite(p.M[i]) {
			continue
		}
		if bad < 0 {
			bad = int(p.Act[i])
		}
		if slots {
			p.WriteBack(i, l.W, l.eta, l.mNext)
		} else {
			l.finish(p, i, 0)
		}
		p.Remove(i)
		i--
	}
	return nz, bad
}
