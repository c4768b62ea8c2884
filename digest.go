package pairgossip

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/pairgossip/pairgossip/layout"
)

// leWriter writes little-endian values to a hash through one buffer of
// leChunk bytes: the bytes binary.Write writes for the same values (so
// the digests of the optimum cache's keys and of checkpoint identities are
// what they were), without its buffer the size of each call's value: a
// digest of the data row by row through binary.Write made a garbage buffer
// a row, which the collector had not reclaimed when a large run ended and
// which set its peak memory (bench/RESULTS.md, "The whole job at large n").
type leWriter struct {
	w   io.Writer
	buf []byte
}

const leChunk = 32 << 10

func newLEWriter(w io.Writer) *leWriter { return &leWriter{w: w, buf: make([]byte, 0, leChunk)} }

func (l *leWriter) room(n int) {
	if len(l.buf)+n > cap(l.buf) {
		l.flush()
	}
}

func (l *leWriter) flush() {
	if len(l.buf) > 0 {
		l.w.Write(l.buf) // a hash's Write never fails
		l.buf = l.buf[:0]
	}
}

// rows writes the rows of m (P values each, not the padding).
func (l *leWriter) rows(m layout.Matrix) {
	for i := range m.Rows {
		for _, v := range m.Row(i) {
			l.room(8)
			l.buf = binary.LittleEndian.AppendUint64(l.buf, math.Float64bits(v))
		}
	}
}

func (l *leWriter) int32s(v []int32) {
	for _, x := range v {
		l.room(4)
		l.buf = binary.LittleEndian.AppendUint32(l.buf, uint32(x))
	}
}

func (l *leWriter) pairs(v [][2]int32) {
	for _, e := range v {
		l.room(8)
		l.buf = binary.LittleEndian.AppendUint32(l.buf, uint32(e[0]))
		l.buf = binary.LittleEndian.AppendUint32(l.buf, uint32(e[1]))
	}
}
