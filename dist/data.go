package dist

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/mpi"
)

// rowSource is where a rank's data rows come from: each rank reads (or
// generates) its own rows at set-up, and the measurement reads the few
// other rows its sampled blocks need by index (Row), from the same source
// — no row is sent between ranks.
type rowSource interface {
	size() (n, d int)
	name() string
	// read fills x with rows [lo, hi) and lab with their ±1 labels. It is
	// collective: every rank calls it, and every rank fails if one does.
	read(c mpi.Comm, lo, hi int, x []float64, lab []int32, workers int) error
	// Row writes row i's features into row (safe for concurrent use).
	Row(i int, row []float64)
}

// dataOverRanks says why cfg's data cannot be read over ranks, or nil:
// the synthetic AUC data (each rank generates its rows) and NumPy .npy
// files (each rank reads its rows) can.
func dataOverRanks(cfg pairgossip.Config) error {
	switch {
	case cfg.Data == dataset.SpecSyntheticAUC:
		return nil
	case dataset.IsNPYFile(cfg.Data):
		if cfg.N != 0 || cfg.Dim != 0 {
			return fmt.Errorf("no --n or --dim with --data %s (a file has its own size)", cfg.Data)
		}
		return nil
	case dataset.IsFile(cfg.Data):
		return fmt.Errorf("--data synthetic-auc or a NumPy .npy file (each rank reads only its rows of the .npy; %s is not one: CSV, LIBSVM and .npz files are not split over ranks — save the features and labels as X.npy and y.npy, in C order)", cfg.Data)
	}
	return fmt.Errorf("--data synthetic-auc or a NumPy .npy file (each rank generates or reads only its rows; %q is neither)", cfg.Data)
}

// openRows opens cfg's data (dataOverRanks has accepted it).
func openRows(cfg pairgossip.Config) (rowSource, error) {
	if cfg.Data != dataset.SpecSyntheticAUC {
		// The data limit (dataset.DefaultMaxElements values) applies to a
		// rank's rows (Prepare), not to the file.
		rows, err := dataset.OpenNPYRows(cfg.Data, dataset.NPYOptions{MaxElements: -1, Workers: cfg.Workers})
		if err != nil {
			return nil, err
		}
		return npyRows{rows}, nil
	}
	scfg := dataset.SyntheticAUCConfig{N: dataset.DefaultAUCN, D: dataset.DefaultAUCDim, Separation: dataset.DefaultAUCSeparation,
		PositiveFraction: dataset.DefaultAUCPositive, Seed: cfg.DataSeed, Workers: cfg.Workers}
	if cfg.N != 0 {
		scfg.N = cfg.N
	}
	if cfg.Dim != 0 {
		scfg.D = cfg.Dim
	}
	// The data limit applies to a rank's rows, not to n·d (one process's
	// limit would cap the job at one process's size).
	scfg.MaxElements = -1
	gen, err := dataset.NewSyntheticAUCRows(scfg)
	if err != nil {
		return nil, err
	}
	return synthRows{gen, scfg.N, scfg.D}, nil
}

// agree makes a rank's error collective: every rank learns whether any
// failed (one Allreduce), so that none is left waiting in a collective
// the failed one never joins. A rank that did not fail reports that
// another did (that rank printed its own error).
func agree(c mpi.Comm, err error) error {
	f := []int64{0}
	if err != nil {
		f[0] = 1
	}
	if e := c.AllreduceInt64(f, mpi.Max); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	if f[0] != 0 {
		return errors.New("dist: another rank failed reading its data rows (its error is in its output)")
	}
	return nil
}

// synthRows is the synthetic AUC data, generated row by row.
type synthRows struct {
	g    *dataset.SyntheticAUCRows
	n, d int
}

func (s synthRows) size() (int, int)         { return s.n, s.d }
func (s synthRows) name() string             { return dataset.SpecSyntheticAUC }
func (s synthRows) Row(i int, row []float64) { s.g.Row(i, row) }

func (s synthRows) read(_ mpi.Comm, lo, hi int, x []float64, lab []int32, workers int) error {
	d := s.d
	par.Blocks(hi-lo, workers, func(_, a, b int) {
		for k := a; k < b; k++ {
			if s.g.Row(lo+k, x[k*d:(k+1)*d]) == 1 {
				lab[k] = 1
			} else {
				lab[k] = -1
			}
		}
	})
	return nil
}

// npyRows is a NumPy data set read by rows.
type npyRows struct{ r *dataset.NPYRows }

func (s npyRows) size() (int, int)         { return s.r.N, s.r.D }
func (s npyRows) name() string             { return s.r.Name }
func (s npyRows) Row(i int, row []float64) { s.r.Row(i, row) }

// read reads the rank's rows and labels. The labels become ±1 as one
// process's Dataset.Binary makes them: exactly two distinct values over
// all the ranks' labels, the larger one positive (each rank sends its
// distinct values, at most three, to every rank).
func (s npyRows) read(c mpi.Comm, lo, hi int, x []float64, lab []int32, _ int) error {
	v := make([]float64, hi-lo)
	err := s.r.Rows(lo, hi, x)
	if err == nil {
		err = s.r.Labels(lo, hi, v)
	}
	var mine []float64
	if err == nil {
		for _, y := range v {
			if !slices.Contains(mine, y) {
				mine = append(mine, y)
				if len(mine) == 3 {
					break
				}
			}
		}
	}
	if err := agree(c, err); err != nil {
		return err
	}
	counts := make([]int64, c.Size())
	ones := make([]int, c.Size())
	for i := range ones {
		ones[i] = 1
	}
	if err := c.AllgathervInt64([]int64{int64(len(mine))}, ones, counts); err != nil {
		return err
	}
	cs := make([]int, c.Size())
	total := 0
	for i, k := range counts {
		cs[i] = int(k)
		total += cs[i]
	}
	all := make([]float64, total)
	if err := c.AllgathervFloat64(mine, cs, all); err != nil {
		return err
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) != 2 {
		k := fmt.Sprint(len(all))
		if len(all) > 2 {
			k = "more than 2"
		}
		return fmt.Errorf("dist: dataset %q (%s): ±1 labels (AUC) need exactly 2 classes, it has %s", s.r.Name, s.r.LabelsPath, k)
	}
	pos := math.Max(all[0], all[1])
	for i, y := range v {
		if y == pos {
			lab[i] = 1
		} else {
			lab[i] = -1
		}
	}
	return nil
}
