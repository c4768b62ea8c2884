package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Queue holds the in-flight messages of Algorithm 3 under delays: a ring of
// 2·(D+1) message slots (one per direction of each of the last D+1 events,
// D the largest delay), each with P floats for the z that was sent, and one
// list per arrival event. Push and Deliver are O(1) per message and
// allocate nothing; memory is Bytes(P, D).
//
// A message sent at event s in direction dir occupies slot
// (s mod (D+1))·2 + dir until it arrives at s + τ <= s + D, before the slot
// is reused at s + D + 1, provided Deliver is called for every event.
// Messages arriving at the same event are delivered in the order they were
// sent (send event, then direction).
type Queue struct {
	p, d   int
	z      []float64 // slot-major, p per slot
	to     []int32
	from   []int32
	y      []int32
	swap   []bool
	busy   []bool
	next   []int32 // next slot in the same arrival list, −1 at the end
	head   []int32 // per arrival bucket (event mod (D+1))
	tail   []int32
	arrive []int64 // per bucket: the arrival event its list is for
}

// QueueBytes returns the memory of a Queue for dimension p and largest
// delay d, in bytes.
func QueueBytes(p, d int) int64 {
	slots := int64(2 * (d + 1))
	return slots*(8*int64(p)+4*4+2) + int64(d+1)*(4+4+8)
}

// NewQueue returns an empty queue for messages of p floats and delays up to
// d events.
func NewQueue(p, d int) *Queue {
	slots := 2 * (d + 1)
	q := &Queue{p: p, d: d, z: make([]float64, slots*p), to: make([]int32, slots), from: make([]int32, slots),
		y: make([]int32, slots), swap: make([]bool, slots), busy: make([]bool, slots), next: make([]int32, slots),
		head: make([]int32, d+1), tail: make([]int32, d+1), arrive: make([]int64, d+1)}
	for b := range q.head {
		q.head[b], q.tail[b] = -1, -1
	}
	return q
}

// Push records the message sent at event t in direction dir (DirToJ or
// DirToI) from node from to node to, arriving at event t + tau (1 <= tau <=
// D; a delay of 0 is the event's own exchange and never queued), carrying
// the sender's z (copied) and auxiliary observation y, with swap saying
// whether the receiver takes y (both directions delivered).
func (q *Queue) Push(t int64, dir, tau, from, to int, y int32, swap bool, z []float64) error {
	if tau < 1 || tau > q.d {
		return fmt.Errorf("network: queue: delay %d outside [1, %d]", tau, q.d)
	}
	s := int(t%int64(q.d+1))*2 + dir
	if q.busy[s] {
		return errors.New("network: queue: a slot is still in flight (Deliver was not called for every event)")
	}
	q.busy[s] = true
	q.from[s], q.to[s], q.y[s], q.swap[s] = int32(from), int32(to), y, swap
	copy(q.z[s*q.p:(s+1)*q.p], z)
	a := t + int64(tau)
	b := int(a % int64(q.d+1))
	if q.head[b] >= 0 && q.arrive[b] != a {
		return errors.New("network: queue: an arrival list was not delivered")
	}
	q.arrive[b] = a
	q.next[s] = -1
	if q.head[b] < 0 {
		q.head[b] = int32(s)
	} else {
		q.next[q.tail[b]] = int32(s)
	}
	q.tail[b] = int32(s)
	return nil
}

// Deliver appends to buf the slots of the messages arriving at event t, in
// send order, frees them for reuse after this event, and returns buf. Read
// each with Message before the next Push.
func (q *Queue) Deliver(t int64, buf []int32) []int32 {
	b := int(t % int64(q.d+1))
	if q.head[b] < 0 || q.arrive[b] != t {
		return buf
	}
	for s := q.head[b]; s >= 0; s = q.next[s] {
		buf = append(buf, s)
		q.busy[s] = false
	}
	q.head[b], q.tail[b] = -1, -1
	return buf
}

// Message returns the content of slot s: sender, receiver, observation,
// whether the receiver takes it, and the z that was sent (a view into the
// queue, valid until the slot is reused).
func (q *Queue) Message(s int32) (from, to int, y int32, swap bool, z []float64) {
	return int(q.from[s]), int(q.to[s]), q.y[s], q.swap[s], q.z[int(s)*q.p : int(s+1)*q.p]
}

// Len returns the number of messages in flight.
func (q *Queue) Len() int {
	c := 0
	for _, b := range q.busy {
		if b {
			c++
		}
	}
	return c
}

// MarshalBinary encodes the queue's messages, for checkpoints.
func (q *Queue) MarshalBinary() ([]byte, error) {
	var out []byte
	out = binary.AppendUvarint(out, uint64(q.p))
	out = binary.AppendUvarint(out, uint64(q.d))
	for b := range q.head {
		out = binary.AppendVarint(out, int64(q.head[b]))
		out = binary.AppendVarint(out, int64(q.tail[b]))
		out = binary.AppendVarint(out, q.arrive[b])
	}
	for s := range q.busy {
		if !q.busy[s] {
			out = append(out, 0)
			continue
		}
		out = append(out, 1)
		if q.swap[s] {
			out[len(out)-1] = 2
		}
		out = binary.AppendVarint(out, int64(q.next[s]))
		out = binary.AppendVarint(out, int64(q.from[s]))
		out = binary.AppendVarint(out, int64(q.to[s]))
		out = binary.AppendVarint(out, int64(q.y[s]))
		for _, v := range q.z[s*q.p : (s+1)*q.p] {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
	}
	return out, nil
}

// UnmarshalBinary restores a queue encoded by MarshalBinary; its P and D
// must match the receiver's.
func (q *Queue) UnmarshalBinary(data []byte) error {
	bad := errors.New("network: queue: corrupt checkpoint data")
	r := data
	uv := func() uint64 {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			r = nil
			return 0
		}
		r = r[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(r)
		if n <= 0 {
			r = nil
			return 0
		}
		r = r[n:]
		return v
	}
	if p, d := uv(), uv(); r == nil || p != uint64(q.p) || d != uint64(q.d) {
		return fmt.Errorf("network: queue: checkpoint is for P = %d, D = %d; this run has P = %d, D = %d", p, d, q.p, q.d)
	}
	for b := range q.head {
		q.head[b], q.tail[b], q.arrive[b] = int32(sv()), int32(sv()), sv()
	}
	for s := range q.busy {
		if len(r) == 0 {
			return bad
		}
		flag := r[0]
		r = r[1:]
		q.busy[s], q.swap[s] = flag != 0, flag == 2
		if flag == 0 {
			continue
		}
		q.next[s], q.from[s], q.to[s], q.y[s] = int32(sv()), int32(sv()), int32(sv()), int32(sv())
		if len(r) < 8*q.p {
			return bad
		}
		for a := range q.z[s*q.p : (s+1)*q.p] {
			q.z[s*q.p+a] = math.Float64frombits(binary.LittleEndian.Uint64(r))
			r = r[8:]
		}
	}
	if len(r) != 0 {
		return bad
	}
	return nil
}
