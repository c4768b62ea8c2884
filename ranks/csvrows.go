package ranks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/mpi"
)

// csvRows is a CSV file read by rows (dataset.CSVRows): every rank scans
// the file for its lines (counting the rows, with the first line's format
// and header, as one process does) and parses only the lines of its own
// rows; the measurement's other rows are parsed from the file when it
// reads them (Row). What one process derives from every row is agreed
// over the ranks in read: the first error in file order, the classes and
// which is +1, and the missing values. A file with missing values (whose
// imputation needs every row of a column) is loaded whole by every rank
// instead (wholeRows), as is one to standardize (openRows).
type csvRows struct {
	r     *dataset.CSVRows
	cfg   pairgossip.Config
	whole rowSource // set when read fell back to the whole file
}

// openCSV opens cfg's CSV file by rows. Every rank reads the same first
// line and counts the same rows, so every rank fails alike.
func openCSV(cfg pairgossip.Config, opt dataset.LoadOptions) (rowSource, error) {
	copt := opt.CSV
	if copt.Workers == 0 {
		copt.Workers = opt.Workers
	}
	r, err := dataset.OpenCSVRows(cfg.Data, copt)
	if err != nil {
		return nil, err
	}
	return &csvRows{r: r, cfg: cfg}, nil
}

func (s *csvRows) size() (int, int) { return s.r.N, s.r.D }
func (s *csvRows) name() string     { return s.r.Name }
func (s *csvRows) Row(i int, row []float64) {
	if s.whole != nil {
		s.whole.Row(i, row)
		return
	}
	s.r.Row(i, row)
}

func (s *csvRows) read(c mpi.Comm, lo, hi int, x []float64, lab []int32, workers int) (string, error) {
	texts, prov, nMissing, err := s.r.Parse(lo, hi, x)
	if err := firstError(c, s.r.Path, err); err != nil {
		return "", err
	}
	// The label texts: each rank's first-seen ones, in rank (file) order.
	var enc []byte
	for _, t := range texts {
		enc = binary.AppendUvarint(enc, uint64(len(t)))
		enc = append(enc, t...)
	}
	counts, err := allCounts(c, len(enc))
	if err != nil {
		return "", err
	}
	total := 0
	for _, k := range counts {
		total += k
	}
	all := make([]byte, total)
	if err := c.AllgathervBytes(enc, counts, all); err != nil {
		return "", err
	}
	var gathered []string
	first := 0 // index of this rank's first text
	for q, at := 0, 0; q < c.Size(); q++ {
		if q == c.Rank() {
			first = len(gathered)
		}
		for end := at + counts[q]; at < end; {
			k, w := binary.Uvarint(all[at:])
			at += w
			gathered = append(gathered, string(all[at:at+int(k)]))
			at += int(k)
		}
	}
	class, names, err := s.r.Classes(gathered)
	if err != nil {
		return "", err
	}
	// Missing values: one process imputes them from every row of their
	// column, so a file with any is loaded whole (by every rank: the sum
	// is the same everywhere).
	miss := make([]int64, len(nMissing))
	for j, m := range nMissing {
		miss[j] = int64(m)
	}
	if err := c.AllreduceInt64(miss, mpi.Sum); err != nil {
		return "", err
	}
	for _, m := range miss {
		if m != 0 {
			w, err := loadWhole(s.cfg)
			if err != nil {
				return "", err
			}
			s.whole = w
			return w.read(c, lo, hi, x, lab, workers)
		}
	}
	y, err := s.r.Binary(names)
	if err != nil {
		return "", fmt.Errorf("problem %s: %w", s.cfg.Problem, err)
	}
	for k, p := range prov[:hi-lo] {
		lab[k] = int32(y[class[first+int(p)]])
	}
	return names[dataset.PositiveOf(names[0], names[1])], nil
}

// allCounts gathers every rank's k.
func allCounts(c mpi.Comm, k int) ([]int, error) {
	ones := make([]int, c.Size())
	for i := range ones {
		ones[i] = 1
	}
	got := make([]int64, c.Size())
	if err := c.AllgathervInt64([]int64{int64(k)}, ones, got); err != nil {
		return nil, err
	}
	counts := make([]int, c.Size())
	for i, v := range got {
		counts[i] = int(v)
	}
	return counts, nil
}

// firstError makes the ranks' parse errors one: the first in file order
// (the lowest line; an error without a line, such as a read error, comes
// first), which every rank returns as the rank that met it does — so that
// the message names the same FILE:LINE as one process's.
func firstError(c mpi.Comm, file string, err error) error {
	key := int64(math.MaxInt64)
	var pe *dataset.ParseError
	if err != nil {
		key = 0
		if errors.As(err, &pe) && pe.Line > 0 {
			key = int64(pe.Line)
		}
	}
	v := []int64{key}
	if e := c.AllreduceInt64(v, mpi.Min); e != nil {
		return e
	}
	if v[0] == math.MaxInt64 {
		return nil
	}
	owner := []int64{int64(c.Size())}
	if err != nil && key == v[0] {
		owner[0] = int64(c.Rank())
	}
	if e := c.AllreduceInt64(owner, mpi.Min); e != nil {
		return e
	}
	root := int(owner[0])
	// The owner's error: its line, column and message (a ParseError's
	// fields, or another error's text).
	var msg []byte
	head := make([]int64, 4) // kind (1: ParseError), line, column, message length
	if c.Rank() == root {
		if pe != nil {
			head[0], head[1], head[2] = 1, int64(pe.Line), int64(pe.Column)
			msg = []byte(pe.Msg)
		} else {
			msg = []byte(err.Error())
		}
		head[3] = int64(len(msg))
	} else {
		head[0], head[1], head[2], head[3] = math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64
	}
	if e := c.AllreduceInt64(head, mpi.Max); e != nil {
		return e
	}
	if c.Rank() != root {
		msg = make([]byte, head[3])
	}
	if e := c.Bcast(msg, root); e != nil {
		return e
	}
	if c.Rank() == root {
		return err
	}
	if head[0] == 1 {
		return &dataset.ParseError{File: file, Line: int(head[1]), Column: int(head[2]), Msg: string(msg)}
	}
	return errors.New(string(msg))
}
