// Package mpi is the thin layer between the engine and the Message Passing
// Interface: the few calls a distributed simulation needs (rank and size,
// point-to-point exchange of float64, int64 and byte slices, the
// collectives Allreduce, Bcast, Barrier and Allgatherv), behind one
// interface, Comm.
//
// Two implementations:
//
//   - Self, a single process (rank 0 of 1): every collective is a copy. It
//     is what a default build has (pure Go, CGO_ENABLED=0), and what a
//     tagged build uses when it is not started by an MPI launcher.
//   - the MPI one (build tag mpi, cgo, Debian's libopenmpi-dev found by
//     pkg-config ompi-c), on MPI_COMM_WORLD with MPI_ERRORS_RETURN: every
//     call's status is checked and a failure is returned as an *Error naming
//     the call and MPI's message. Init starts it when the process was
//     launched by mpirun, mpiexec or srun (it reads the launcher's
//     environment), Self otherwise.
//
// Every Comm counts the bytes and messages it sends (Stats), so a
// distributed run can report its communication per round. Buffers are
// passed to MPI in place (no copy); counts are MPI ints, so one call moves
// at most 2³¹ − 1 elements (ErrTooLarge beyond).
package mpi

import (
	"errors"
	"fmt"
)

// Op is a reduction operation.
type Op int

// The reductions Allreduce offers.
const (
	Sum Op = iota
	Max
	Min
)

func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Max:
		return "max"
	case Min:
		return "min"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Stats counts what a Comm sent: bytes and messages of point-to-point calls
// and of collectives (a collective counts the bytes this rank contributes:
// its send buffer once, whatever the algorithm MPI uses underneath).
type Stats struct {
	P2PBytes, P2PMessages  int64
	CollBytes, Collectives int64
}

// Bytes is all the bytes counted.
func (s Stats) Bytes() int64 { return s.P2PBytes + s.CollBytes }

// Comm is a communicator: a fixed group of ranks 0..Size()−1. Every
// collective must be called by every rank, in the same order, with matching
// arguments (MPI's rule); a point-to-point Send must meet a Recv with the
// same peer and tag.
type Comm interface {
	Rank() int
	Size() int
	// Barrier returns when every rank has entered it.
	Barrier() error
	// AllreduceFloat64 and AllreduceInt64 reduce buf element-wise over the
	// ranks, in place: every rank gets the result. MPI's sum of float64 is
	// not guaranteed to add in rank order: a caller that needs identical
	// bits across rank counts gathers the parts and adds them itself.
	AllreduceFloat64(buf []float64, op Op) error
	AllreduceInt64(buf []int64, op Op) error
	// Bcast copies root's buf to every rank's buf (same length everywhere).
	Bcast(buf []byte, root int) error
	BcastFloat64(buf []float64, root int) error
	// Allgatherv concatenates the ranks' send slices in rank order into
	// recv; counts[r] is the length of rank r's slice (every rank passes
	// the same counts, and recv of their sum).
	AllgathervFloat64(send []float64, counts []int, recv []float64) error
	AllgathervInt64(send []int64, counts []int, recv []int64) error
	AllgathervBytes(send []byte, counts []int, recv []byte) error
	// GathervFloat64 concatenates the ranks' send slices in rank order into
	// root's recv (of the counts' sum); the other ranks' recv is not used
	// (nil is fine). Every rank passes the same counts and root.
	GathervFloat64(send []float64, counts []int, recv []float64, root int) error
	// Send and Recv move one slice to or from rank peer with a tag ≥ 0;
	// Recv's buffer must have the length sent.
	SendFloat64(buf []float64, peer, tag int) error
	RecvFloat64(buf []float64, peer, tag int) error
	SendInt64(buf []int64, peer, tag int) error
	RecvInt64(buf []int64, peer, tag int) error
	SendBytes(buf []byte, peer, tag int) error
	RecvBytes(buf []byte, peer, tag int) error
	// SendrecvFloat64 sends send to dst and receives recv from src in one
	// call (no deadlock when two ranks exchange).
	SendrecvFloat64(send []float64, dst int, recv []float64, src, tag int) error
	// Stats returns what this rank sent so far.
	Stats() Stats
	// Finalize ends the use of MPI (a no-op for Self); no call may follow.
	Finalize() error
}

// Error is a failed MPI call.
type Error struct {
	Call string
	Code int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("mpi: %s failed (code %d): %s", e.Call, e.Code, e.Msg)
}

// ErrTooLarge is returned for a buffer longer than an MPI count can say.
var ErrTooLarge = errors.New("mpi: buffer longer than 2^31-1 elements")

// errArgs reports bad arguments (the same checks for every implementation,
// so a mistake shows up in a single-process test too).
func errArgs(format string, a ...any) error { return fmt.Errorf("mpi: "+format, a...) }

// checkCounts checks Allgatherv's counts against the size, this rank's send
// length and recv's length.
func checkCounts(c Comm, sendLen int, counts []int, recvLen int) error {
	if len(counts) != c.Size() {
		return errArgs("allgatherv: %d counts for %d ranks", len(counts), c.Size())
	}
	total := 0
	for r, n := range counts {
		if n < 0 {
			return errArgs("allgatherv: negative count %d of rank %d", n, r)
		}
		total += n
	}
	if counts[c.Rank()] != sendLen {
		return errArgs("allgatherv: rank %d sends %d elements but counts say %d", c.Rank(), sendLen, counts[c.Rank()])
	}
	if total != recvLen {
		return errArgs("allgatherv: receive buffer of %d elements for %d in all", recvLen, total)
	}
	if total > maxCount {
		return ErrTooLarge
	}
	return nil
}

const maxCount = 1<<31 - 1

// checkGather checks Gatherv's arguments: root in range, and the counts
// against this rank's send length and, at root, recv's length.
func checkGather(c Comm, sendLen int, counts []int, recvLen, root int) error {
	if err := checkPeer(c, root, 0); err != nil {
		return err
	}
	if c.Rank() != root {
		recvLen = 0
		for _, n := range counts {
			recvLen += max(n, 0)
		}
	}
	return checkCounts(c, sendLen, counts, recvLen)
}

func checkPeer(c Comm, peer, tag int) error {
	if peer < 0 || peer >= c.Size() {
		return errArgs("peer %d out of range [0, %d)", peer, c.Size())
	}
	if tag < 0 {
		return errArgs("negative tag %d", tag)
	}
	return nil
}

// Offsets returns the start of each rank's part in an Allgatherv result.
func Offsets(counts []int) []int {
	off := make([]int, len(counts)+1)
	for r, n := range counts {
		off[r+1] = off[r] + n
	}
	return off
}

// Block returns rank r's contiguous share [lo, hi) of n items split over
// size ranks: the first n mod size ranks get one more.
func Block(n, size, r int) (lo, hi int) {
	q, m := n/size, n%size
	lo = r*q + min(r, m)
	hi = lo + q
	if r < m {
		hi++
	}
	return lo, hi
}
