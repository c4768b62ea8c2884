package network

import (
	"math"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// Fingerprint is a 64-bit digest of the data a Net read or built beyond
// its Model's parameters and the run's graph: a recorded stream's lines, a
// churn file's intervals, and, for a schedule, given edge probabilities or
// an adaptive picker, each phase's pairs, p_e and length. A checkpoint keeps
// it beside the model's String, so that a run resumed with the same flags
// over a file that changed in between (another contact trace under the same
// name, an edited session file, a weights function that now answers
// otherwise, another picker or pilot, whose declared or estimated p_e
// differ) is refused instead of going on silently with other data. (A
// picker is code: one changed so that its p_e stay the same is not seen.) It is 0 when the
// model has none of these (everything else follows from the parameters
// and the graph, which the checkpoint identifies apart). Computed once.
func (nt *Net) Fingerprint() uint64 {
	if nt.fpDone {
		return nt.fp
	}
	var h uint64
	some := false
	fold := func(v uint64) { h = rng.Mix(h ^ v + 0x9e3779b97f4a7c15); some = true }
	if s := nt.stream; s != nil {
		fold(uint64(len(s.T)))
		for x := range s.T {
			fold(uint64(s.T[x]))
			fold(uint64(uint32(s.I[x]))<<32 | uint64(uint32(s.J[x])))
		}
	}
	if ch := nt.churn; ch != nil && ch.off != nil {
		fold(uint64(len(ch.off)))
		for _, o := range ch.offs {
			fold(uint64(o))
		}
		for _, iv := range ch.off {
			fold(uint64(iv[0]))
			fold(uint64(iv[1]))
		}
	}
	if len(nt.model.Schedule) > 0 || nt.kind == ActWeights || nt.kind == ActAdaptive {
		for _, ph := range nt.phases {
			fold(uint64(ph.length))
			fold(uint64(len(ph.pairs)))
			for y, e := range ph.pairs {
				fold(uint64(uint32(e[0]))<<32 | uint64(uint32(e[1])))
				if y < len(ph.pe) {
					fold(math.Float64bits(ph.pe[y]))
				}
			}
		}
	}
	if !some {
		h = 0
	}
	nt.fp, nt.fpDone = h, true
	return h
}
