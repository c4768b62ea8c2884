package pairgossip

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pairgossip/pairgossip/layout"
)

// TestLEWriterIsBinaryWrite: the digests of the optimum cache's keys and of
// checkpoint identities see the bytes binary.Write wrote before (so that
// existing cache entries and checkpoints still match), for rows of every
// width around the padding, labels and edges longer than one buffer.
func TestLEWriterIsBinaryWrite(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 3, 8, 9, 16, 17} {
		n := 3000
		m := layout.New(n, d)
		for i := range n {
			for a := range m.Row(i) {
				m.Row(i)[a] = rnd.NormFloat64()
			}
		}
		lab := make([]int32, n)
		for i := range lab {
			lab[i] = int32(rnd.IntN(5)) - 2
		}
		edges := make([][2]int32, 5000)
		for i := range edges {
			edges[i] = [2]int32{rnd.Int32(), -rnd.Int32()}
		}
		var want, got bytes.Buffer
		for i := range n {
			binary.Write(&want, binary.LittleEndian, m.Row(i))
		}
		binary.Write(&want, binary.LittleEndian, lab)
		binary.Write(&want, binary.LittleEndian, edges)
		lw := newLEWriter(&got)
		lw.rows(m)
		lw.int32s(lab)
		lw.pairs(edges)
		lw.flush()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("d = %d: %d bytes, binary.Write %d, or other bytes", d, got.Len(), want.Len())
		}
	}
}
