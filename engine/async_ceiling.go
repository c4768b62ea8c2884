package engine

import (
	"errors"
	"fmt"
	"unsafe"
)

// MemoryCeiling runs events of the serial asynchronous gossip loop's memory
// traffic with trivial arithmetic: the same edge stream drawn the same way,
// the same prefetching by groups (gossipWindow), and per event the lines
// the event kernel touches — both endpoints' x rows read, their y, z and
// θ̄ rows and packed scalars read and written (one word a line) — but
// none of its arithmetic. Its speed bounds the loop's at this size on this
// machine, with the loop's own prefetching (PREFETCHT0, by groups): other
// prefetch hints can move more lines (docs/design.md §6). It
// writes junk into the state: the Sim is for nothing else afterwards. It
// needs the fast path's serial loop (one worker, the gossip estimator).
func (s *Sim) MemoryCeiling(events int64) error {
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

// MemoryCeilingWith is MemoryCeiling with another prefetching: every group
// events, PREFETCHT0 of every line the group ahead events further on
// touches (group = ahead = 0: none). Timing it over a
// range of groups and distances (bench async --ceiling-sweep) bounds the
// serial loop's memory traffic under any of them, not only the loop's own.
func (s *Sim) MemoryCeilingWith(events int64, group, ahead int) error {
	if (group != 0 || ahead != 0) && (group < 1 || ahead < 1) {
		return fmt.Errorf("engine: MemoryCeilingWith: group = %d and ahead = %d (want both ≥ 1, or both 0: no prefetching)", group, ahead)
	}
	e, err := s.ceilingExec()
	if err != nil {
		return err
	}
	return s.memoryCeiling(e, events, group, ahead)
}

// AsyncPrefetch returns the serial asynchronous gossip loop's prefetching
// on a state that outgrows the caches: every group events, the lines of the
// group ahead events further on (MemoryCeilingWith's arguments).
func AsyncPrefetch() (group, ahead int) { return asyncGroup, asyncGroupAhead }

func (s *Sim) ceilingExec() (*asyncExec, error) {
	e, ok := s.exec.(*asyncExec)
	if !ok || s.cfg.Estimator != Gossip || s.YX.Rows == 0 {
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
// touching its lines (MemoryCeiling), prefetching on the loop's schedule
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
