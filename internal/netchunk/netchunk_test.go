package netchunk

import (
	"math"
	"math/rand/v2"
	"testing"
)

// quietSums is what Host.OnlineSum returns over the online pieces pcs of
// block bk (first and last clock, as Host.Pieces gives them), by its
// definition: the online rounds, Σ CSum[b] − CSum[a−1] over the pieces
// added up in their order, and the last online round (0: none): the
// definition that network's TestOnlineSumIsPieces checks Net.OnlineSum
// against, bit for bit, over Net.Pieces (its own copy of this loop).
func quietSums(bk *Block, pcs []int64) (on int64, cs float64, last int) {
	for i := 0; i+1 < len(pcs); i += 2 {
		a, b := int(pcs[i]-bk.T0), int(pcs[i+1]-bk.T0)
		cs += bk.CSum[b] - bk.CSum[a-1]
		on += int64(b - a + 1)
		last = b
	}
	return on, cs, last
}

// TestQuietIsClose: Host.OnlineSum's sums over a node's online pieces
// (quietSums) are the bits that successive Closes of a segment that does
// not contribute (W = η = 0) leave in it — the arithmetic the reduced
// schedule gave such a node before it took these sums — for random
// blocks, coefficient sums and pieces (none, one, many, at the block's
// ends).
func TestQuietIsClose(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		B := 1 + r.IntN(300)
		t0 := r.Int64N(1e9)
		cs := make([]float64, B+1)
		for i := 1; i <= B; i++ {
			cs[i] = cs[i-1] + r.Float64()*math.Exp2(float64(r.IntN(40)-20))
		}
		bk := &Block{T0: t0, B: B, CSum: cs}
		var pcs []int64
		for a := 1; a <= B; {
			b := a + r.IntN(B-a+1)
			if r.IntN(3) > 0 {
				pcs = append(pcs, t0+int64(a), t0+int64(b))
			}
			a = b + 1 + r.IntN(4)
		}
		m, c0 := r.NormFloat64(), r.Int64N(1e6)
		var sg Seg
		sg.Start(c0, m)
		for i := 0; i+1 < len(pcs); i += 2 {
			sg.A = int32(pcs[i] - t0)
			bk.Close(&sg, 0, 0, sg.M, int(pcs[i+1]-t0))
		}
		on, sum, last := quietSums(bk, pcs)
		if on != sg.On || math.Float64bits(sum) != math.Float64bits(sg.Cs) || int32(last) != sg.Last || sg.H != 0 || sg.W != 0 || sg.M != m {
			t.Fatalf("B %d, pieces %v: sums (%d, %v, %d), Closes (%d, %v, %d, H %v)", B, pcs, on, sum, last, sg.On, sg.Cs, sg.Last, sg.H)
		}
	}
}
