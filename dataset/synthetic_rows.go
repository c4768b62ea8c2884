package dataset

import (
	"math"

	"github.com/pairgossip/pairgossip/internal/crng"
)

// SyntheticAUCRows generates rows [lo, hi) of the data set SyntheticAUC
// generates for cfg, bit for bit (row i depends on the seed and i alone),
// into x ((hi − lo)·D values) and class: what one process of a distributed
// run holds (issue #17). It does not validate cfg.
type SyntheticAUCRows struct {
	cfg   SyntheticAUCConfig
	pos   uint64
	perm  crng.Perm
	key   crng.Key
	shift float64
}

// NewSyntheticAUCRows prepares the row generator of cfg.
func NewSyntheticAUCRows(cfg SyntheticAUCConfig) (*SyntheticAUCRows, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &SyntheticAUCRows{cfg: cfg, pos: uint64(cfg.positives()), perm: crng.NewPerm(uint64(cfg.N), cfg.Seed, SyntheticAUCStream),
		key: crng.NewKey(cfg.Seed, SyntheticAUCStream+1), shift: cfg.Separation / (2 * math.Sqrt(float64(cfg.D)))}, nil
}

// Class returns row i's class (1 positive, 0 negative).
func (g *SyntheticAUCRows) Class(i int) int32 {
	if g.perm.At(uint64(i)) < g.pos {
		return 1
	}
	return 0
}

// Row writes row i into row (length D) and returns its class.
func (g *SyntheticAUCRows) Row(i int, row []float64) int32 {
	c := g.Class(i)
	m := -g.shift
	if c == 1 {
		m = g.shift
	}
	for j := range row {
		row[j] = m
	}
	st := g.key.Stream(uint64(i))
	st.AddNormals(row, 1)
	return c
}
