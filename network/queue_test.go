package network

import (
	"testing"
)

func TestQueue(t *testing.T) {
	const p, d = 3, 4
	q := NewQueue(p, d)
	type msg struct {
		from, to int
		y        int32
		swap     bool
		z0       float64
	}
	// send two messages per event with delays 1..4 and check each arrives
	// at t+τ, in send order, with its content.
	due := map[int64][]msg{}
	var buf []int32
	for tt := int64(1); tt <= 200; tt++ {
		got := q.Deliver(tt, buf[:0])
		if len(got) != len(due[tt]) {
			t.Fatalf("t=%d: %d arrivals, want %d", tt, len(got), len(due[tt]))
		}
		for x, s := range got {
			from, to, y, swap, z := q.Message(s)
			w := due[tt][x]
			if from != w.from || to != w.to || y != w.y || swap != w.swap || z[0] != w.z0 || z[2] != w.z0+2 {
				t.Fatalf("t=%d arrival %d: %d %d %d %v %v, want %+v", tt, x, from, to, y, swap, z, w)
			}
		}
		for dir := 0; dir < 2; dir++ {
			tau := 1 + int((tt*7+int64(dir)*3)%d)
			z := []float64{float64(tt*10 + int64(dir)), 0, float64(tt*10+int64(dir)) + 2}
			m := msg{int(tt) % 5, (int(tt) + 1) % 5, int32(tt), dir == 0, z[0]}
			if err := q.Push(tt, dir, tau, m.from, m.to, m.y, m.swap, z); err != nil {
				t.Fatal(err)
			}
			z[0] = -1 // the queue holds a copy
			due[tt+int64(tau)] = append(due[tt+int64(tau)], m)
		}
		if tt == 100 { // checkpoint round trip mid-flight
			data, _ := q.MarshalBinary()
			r := NewQueue(p, d)
			if err := r.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if r.Len() != q.Len() || r.Len() == 0 {
				t.Fatalf("restored %d messages, had %d", r.Len(), q.Len())
			}
			q = r
			if err := NewQueue(p+1, d).UnmarshalBinary(data); err == nil {
				t.Fatal("a checkpoint for another P was accepted")
			}
			if err := NewQueue(p, d).UnmarshalBinary(data[:len(data)-1]); err == nil {
				t.Fatal("truncated data accepted")
			}
		}
	}
	if err := q.Push(1, 0, 0, 0, 1, 0, true, make([]float64, p)); err == nil {
		t.Fatal("a delay of 0 was queued")
	}
	if err := q.Push(1, 0, d+1, 0, 1, 0, true, make([]float64, p)); err == nil {
		t.Fatal("a delay above D was queued")
	}
	// skipping Deliver is detected, not silently overwritten
	s := NewQueue(1, 1)
	s.Push(1, 0, 1, 0, 1, 0, false, []float64{1})
	if err := s.Push(3, 0, 1, 0, 1, 0, false, []float64{1}); err == nil {
		t.Fatal("a slot in flight was overwritten")
	}
	if QueueBytes(p, d) < int64(2*(d+1)*p*8) {
		t.Fatal("QueueBytes below the z storage")
	}
	z := make([]float64, p)
	tt := int64(200) // the loop above ended after sending at 200
	allocs := testing.AllocsPerRun(500, func() {
		tt++
		buf = q.Deliver(tt, buf[:0])
		if q.Push(tt, 0, 1+int(tt%d), 1, 2, 3, true, z) != nil || q.Push(tt, 1, 1+int((tt+1)%d), 2, 1, 4, true, z) != nil {
			t.Fatal("push failed")
		}
	})
	if allocs != 0 {
		t.Errorf("%g allocations per event", allocs)
	}
}
