package mpi

import (
	"errors"
	"slices"
	"testing"
)

func TestBlock(t *testing.T) {
	for _, n := range []int{0, 1, 7, 10, 64, 1001} {
		for size := 1; size <= 5; size++ {
			prev := 0
			for r := 0; r < size; r++ {
				lo, hi := Block(n, size, r)
				if lo != prev || hi < lo || hi-lo > n/size+1 || hi-lo < n/size {
					t.Fatalf("Block(%d, %d, %d) = [%d, %d) after %d", n, size, r, lo, hi, prev)
				}
				prev = hi
			}
			if prev != n {
				t.Fatalf("Block(%d, %d, ·) covers [0, %d)", n, size, prev)
			}
		}
	}
}

func TestOffsets(t *testing.T) {
	if got := Offsets([]int{3, 0, 2}); !slices.Equal(got, []int{0, 3, 3, 5}) {
		t.Fatalf("Offsets = %v", got)
	}
}

func TestSelf(t *testing.T) {
	c := Self()
	if c.Rank() != 0 || c.Size() != 1 {
		t.Fatalf("rank %d of %d", c.Rank(), c.Size())
	}
	f := []float64{1, 2}
	if err := c.AllreduceFloat64(f, Sum); err != nil || !slices.Equal(f, []float64{1, 2}) {
		t.Fatalf("allreduce: %v %v", f, err)
	}
	if err := c.AllreduceInt64([]int64{1}, Op(7)); err == nil {
		t.Fatal("unknown op accepted")
	}
	recv := make([]float64, 2)
	if err := c.AllgathervFloat64(f, []int{2}, recv); err != nil || !slices.Equal(recv, f) {
		t.Fatalf("allgatherv: %v %v", recv, err)
	}
	if err := c.AllgathervFloat64(f, []int{3}, make([]float64, 3)); err == nil {
		t.Fatal("allgatherv with a wrong count accepted")
	}
	if err := c.AllgathervFloat64(f, []int{2}, make([]float64, 3)); err == nil {
		t.Fatal("allgatherv with a wrong receive length accepted")
	}
	if err := c.GathervFloat64(f, []int{2}, recv, 0); err != nil || !slices.Equal(recv, f) {
		t.Fatalf("gatherv: %v %v", recv, err)
	}
	if err := c.GathervFloat64(f, []int{2}, make([]float64, 3), 0); err == nil {
		t.Fatal("gatherv into a buffer of the wrong length accepted")
	}
	if err := c.GathervFloat64(f, []int{2}, recv, 1); err == nil {
		t.Fatal("gatherv to rank 1 of 1 accepted")
	}
	if err := c.AllgathervBytes(nil, []int{0, 0}, nil); err == nil {
		t.Fatal("allgatherv with counts for 2 ranks accepted")
	}
	if err := c.SendFloat64(f, 0, 1); err == nil {
		t.Fatal("send to itself accepted")
	}
	if err := c.SendFloat64(f, 1, 1); err == nil {
		t.Fatal("send to rank 1 of 1 accepted")
	}
	got := make([]float64, 2)
	if err := c.SendrecvFloat64(f, 0, got, 0, 0); err != nil || !slices.Equal(got, f) {
		t.Fatalf("sendrecv to itself: %v %v", got, err)
	}
	if err := c.Bcast([]byte{1}, 1); err == nil {
		t.Fatal("bcast from rank 1 of 1 accepted")
	}
	var e *Error
	if errors.As(c.Barrier(), &e) {
		t.Fatal("barrier failed")
	}
}
