package ranks

import (
	"github.com/pairgossip/pairgossip/internal/redpack"
)

// div is where a margin first turned non-finite on this rank, in the
// order engine reports it (engine's divergence): the earliest iteration,
// and in it the lowest node. The zero value (t = 0) means none. Run
// reduces it over the ranks in that order, so a run over ranks names the
// iteration and node one process names.
type div struct {
	t    int64
	node int
}

// note keeps (t, node) if it comes before what d holds.
func (d *div) note(t int64, node int) {
	if d.t == 0 || t < d.t || (t == d.t && node < d.node) {
		d.t, d.node = t, node
	}
}

// merge keeps o if it comes before what d holds.
func (d *div) merge(o div) {
	if o.t > 0 {
		d.note(o.t, o.node)
	}
}

// packRound advances pack p through round t (coefficients cf) with the
// engine's arithmetic (redpack.Pack.Round, which engine's reducedExec
// runs too). It returns the non-zero gradients and the first non-finite
// margin's (t, node) (an entry is a slot of l.touched, with slots, or a
// node); each such entry leaves the pack, written back (into its slot, or
// its record).
func (l *local) packRound(p *redpack.Pack, cf coef, t int64, slots bool) (nz int64, bad div) {
	nz, fin := p.Round(l.loss, len(p.M), cf.c, cf.a, cf.b*cf.c)
	if fin {
		return nz, bad
	}
	for i := 0; i < len(p.M); i++ {
		if redpack.Finite(p.M[i]) {
			continue
		}
		if slots {
			bad.note(t, int(l.touched[p.Act[i]]))
		} else {
			bad.note(t, int(p.Act[i]))
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
