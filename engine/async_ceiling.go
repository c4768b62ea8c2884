package engine

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/lab"
)

// The benchmark probes of package lab (cmd/bench): set here, so that they
// reach the executor without being methods of Sim.
func init() {
	lab.MemoryCeiling = func(sim any, events int64) error {
		s, err := labSim(sim)
		if err != nil {
			return err
		}
		return s.memoryCeilingOwn(events)
	}
	lab.MemoryCeilingWith = func(sim any, events int64, group, ahead int) error {
		s, err := labSim(sim)
		if err != nil {
			return err
		}
		return s.memoryCeilingWith(events, group, ahead)
	}
	lab.AsyncPrefetch = func() (group, ahead int) { return asyncGroup, asyncGroupAhead }
	lab.AsyncLateDecide = func(w int) int {
		old := asyncLateDecide
		if w > 0 {
			asyncLateDecide = w
		}
		return old
	}
	lab.EigenCounts = func(sim any) (eigs, rankOne int64, err error) {
		s, err := labSim(sim)
		if err != nil {
			return 0, 0, err
		}
		return s.eigendecompositions(), s.rankOneUpdates(), nil
	}
}

func labSim(sim any) (*Sim, error) {
	s, ok := sim.(*Sim)
	if !ok || s == nil {
		return nil, fmt.Errorf("engine: a lab probe needs an *engine.Sim, got %T", sim)
	}
	return s, nil
}

// memoryCeilingOwn is lab.MemoryCeiling: the serial gossip loop's memory
// traffic without its arithmetic, with the loop's own prefetching
// (PREFETCHT0, by groups; other prefetch hints can move more lines, see
// bench/RESULTS.md).
func (s *Sim) memoryCeilingOwn(events int64) error {
	e, err := s.ceilingExec()
	if err != nil {
		return err
	}
	g, ahead := 0, 0
	if e.pfOn {
		g, ahead = asyncGroup, asyncGroupAhead
	}
	return s.memoryCeiling(e, events, g, ahead)
}

// memoryCeilingWith is lab.MemoryCeilingWith: memoryCeilingOwn with every
// group events, PREFETCHT0 of every line the group ahead events further on
// touches (group = ahead = 0: none).
func (s *Sim) memoryCeilingWith(events int64, group, ahead int) error {
	if (group != 0 || ahead != 0) && (group < 1 || ahead < 1) {
		return fmt.Errorf("engine: MemoryCeilingWith: group = %d and ahead = %d (want both ≥ 1, or both 0: no prefetching)", group, ahead)
	}
	e, err := s.ceilingExec()
	if err != nil {
		return err
	}
	return s.memoryCeiling(e, events, group, ahead)
}

func (s *Sim) ceilingExec() (*asyncExec, error) {
	e := s.caps.serialGossip
	if e == nil || s.cfg.Estimator != Gossip || s.YX.Rows == 0 {
		return nil, errors.New("engine: MemoryCeiling needs the serial asynchronous gossip fast path")
	}
	return e, nil
}

func (s *Sim) memoryCeiling(e *asyncExec, events int64, g, ahead int) error {
	ev := e.ev
	var sink float64
	for done := int64(0); done < events; {
		m := int(min(int64(asyncSerialWindow), events-done))
		s.drawEdges(ev[:2*m])
		sink += e.ceilingWindow(ev[:2*m], g, ahead)
		done += int64(m)
	}
	if sink == 1 { // keep the reads
		s.t++
	}
	return nil
}

// ceilingWindow is gossipWindow with each event's kernel call replaced by
// touching its lines (memoryCeiling), prefetching on the loop's schedule
// (groupPrefetch) with groups of g events ahead events on (g = 0: none).
func (e *asyncExec) ceilingWindow(ev []int32, g, ahead int) float64 {
	m := len(ev) / 2
	pf := e.startGroups(ev, g, ahead)
	rowBytes := uintptr(e.d * 8)
	var sum float64
	for x := 0; x < m; x++ {
		if x >= pf.next {
			e.reachGroups(&pf, ev, x)
		}
		for _, k := range ev[2*x : 2*x+2] {
			r := unsafe.Add(e.base, uintptr(k)*e.rs)
			for o := uintptr(0); o < rowBytes; o += 64 {
				sum += *(*float64)(unsafe.Add(r, o))
				for _, w := range [3]uintptr{e.yo, e.zo, e.bo} {
					p := (*float64)(unsafe.Add(r, w+o))
					*p += 1
				}
			}
			e.nd[k].count++
		}
	}
	return sum
}
