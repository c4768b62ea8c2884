package ranks

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/pairgossip/pairgossip/kernel"
)

// WriteState writes this rank's nodes' state, row after row of its nodes
// [Lo, Hi): z, θ (= c·z), θ̄ as little-endian float64, then y's indices as
// int32 and the next margins as float64 — the sections of engine's
// checkpoint (engine/checkpoint.go) restricted to the rank's rows, so that
// the ranks' files laid end to end are one process's sections.
func (r *Run) WriteState(w io.Writer) error {
	l := r.l
	buf := make([]byte, 8*l.P)
	row := make([]float64, l.P)
	put := func(v []float64) error {
		for a, x := range v {
			binary.LittleEndian.PutUint64(buf[8*a:], math.Float64bits(x))
		}
		_, err := w.Write(buf[:8*len(v)])
		return err
	}
	for f := 0; f < 3; f++ {
		for k := l.lo; k < l.hi; k++ {
			v := l.zRow(k)
			switch f {
			case 1:
				kernel.Scale(row, l.zRow(k), l.thetaScale(k))
				v = row
			case 2:
				v = l.barRow(k)
			}
			if err := put(v); err != nil {
				return err
			}
		}
	}
	if err := binary.Write(w, binary.LittleEndian, l.y); err != nil {
		return err
	}
	if err := put2(w, l.marg); err != nil {
		return err
	}
	if l.nt != nil {
		return l.writeNetState(w) // network.go
	}
	return nil
}

func put2(w io.Writer, v []float64) error { return binary.Write(w, binary.LittleEndian, v) }
