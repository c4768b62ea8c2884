package mpi

// self is the single-process communicator: rank 0 of 1.
type self struct{ st Stats }

// Self returns a communicator of one process (rank 0 of 1). Collectives
// copy; a point-to-point call to itself is refused (there is no one to
// match it without a second goroutine, and no caller needs that).
func Self() Comm { return &self{} }

func (s *self) Rank() int      { return 0 }
func (s *self) Size() int      { return 1 }
func (s *self) Barrier() error { return nil }
func (s *self) Stats() Stats   { return s.st }
func (s *self) Finalize() error {
	return nil
}

func (s *self) AllreduceFloat64(buf []float64, op Op) error { return checkOp(op) }
func (s *self) AllreduceInt64(buf []int64, op Op) error     { return checkOp(op) }

func checkOp(op Op) error {
	if op < Sum || op > Min {
		return errArgs("unknown reduction %s", op)
	}
	return nil
}

func (s *self) Bcast(buf []byte, root int) error           { return checkPeer(s, root, 0) }
func (s *self) BcastFloat64(buf []float64, root int) error { return checkPeer(s, root, 0) }

func (s *self) AllgathervFloat64(send []float64, counts []int, recv []float64) error {
	if err := checkCounts(s, len(send), counts, len(recv)); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

func (s *self) AllgathervInt64(send []int64, counts []int, recv []int64) error {
	if err := checkCounts(s, len(send), counts, len(recv)); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

func (s *self) AllgathervBytes(send []byte, counts []int, recv []byte) error {
	if err := checkCounts(s, len(send), counts, len(recv)); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

func (s *self) GathervFloat64(send []float64, counts []int, recv []float64, root int) error {
	if err := checkGather(s, len(send), counts, len(recv), root); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

func (s *self) noPeer(peer, tag int) error {
	if err := checkPeer(s, peer, tag); err != nil {
		return err
	}
	return errArgs("a single process has no peer to exchange with")
}

func (s *self) SendFloat64(buf []float64, peer, tag int) error { return s.noPeer(peer, tag) }
func (s *self) RecvFloat64(buf []float64, peer, tag int) error { return s.noPeer(peer, tag) }
func (s *self) SendInt64(buf []int64, peer, tag int) error     { return s.noPeer(peer, tag) }
func (s *self) RecvInt64(buf []int64, peer, tag int) error     { return s.noPeer(peer, tag) }
func (s *self) SendBytes(buf []byte, peer, tag int) error      { return s.noPeer(peer, tag) }
func (s *self) RecvBytes(buf []byte, peer, tag int) error      { return s.noPeer(peer, tag) }

func (s *self) SendrecvFloat64(send []float64, dst int, recv []float64, src, tag int) error {
	if err := checkPeer(s, dst, tag); err != nil {
		return err
	}
	if err := checkPeer(s, src, tag); err != nil {
		return err
	}
	if len(send) != len(recv) {
		return errArgs("sendrecv to itself: %d elements sent, %d expected", len(send), len(recv))
	}
	copy(recv, send)
	return nil
}
