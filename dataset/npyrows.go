package dataset

import (
	"github.com/pairgossip/pairgossip/npy"

	"fmt"
	"io"
	"os"
)

// NPYRows reads a NumPy data set (the features and labels files LoadNPY
// reads) a range of rows at a time, without reading the whole arrays: what
// an MPI rank holding some of the nodes reads (package ranks). The values are
// those LoadNPY gives (the same decoding, any dtype LoadNPY accepts); the
// features must be stored in C order (row-major: NumPy's default), so
// that a row range is one contiguous stretch of the file.
//
// On Linux the features file is mapped (read-only, copy-on-write) so that
// Row reads any row without a system call; elsewhere it reads with ReadAt.
type NPYRows struct {
	Path, LabelsPath string
	// Name is the data set's name, LoadNPY's Dataset.Name.
	Name string
	N, D int
	x, y *os.File
	hx   npyHeader
	hy   npyHeader
	xmap []byte
}

// OpenNPYRows opens the features file path and its labels (opt.Labels, or
// the file NPYLabelsPath names) and checks their headers, shapes (the
// element limit applies to the whole array unless opt.MaxElements < 0) and
// sizes; no value is read.
func OpenNPYRows(path string, opt NPYOptions) (*NPYRows, error) {
	labels, err := opt.labelsPath(path)
	if err != nil {
		return nil, err
	}
	lim := resolveLimits(0, opt.MaxElements)
	r := &NPYRows{Path: path, LabelsPath: labels, Name: baseName(path)}
	open := func(p string, isLabels bool) (*os.File, npyHeader, int64, int64, error) {
		f, err := openNPYFile(p)
		if err != nil {
			return nil, npyHeader{}, 0, 0, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, npyHeader{}, 0, 0, fmt.Errorf("dataset: %w", err)
		}
		h, err := readNPYHeader(io.NewSectionReader(f, 0, st.Size()))
		if err != nil {
			f.Close()
			return nil, h, 0, 0, &ParseError{File: p, Msg: err.Error()}
		}
		n, d, err := h.checkShape(isLabels, lim)
		if err != nil {
			f.Close()
			return nil, h, 0, 0, &ParseError{File: p, Msg: err.Error(), Err: err}
		}
		if need := h.DataOff + h.DataBytes(); need > st.Size() {
			f.Close()
			return nil, h, 0, 0, &ParseError{File: p, Msg: fmt.Sprintf("truncated: shape %s of %s needs %d bytes after the %d-byte header, the file has %d",
				h.ShapeString(), h.Dtype.Descr, h.DataBytes(), h.DataOff, max(0, st.Size()-h.DataOff))}
		}
		return f, h, n, d, nil
	}
	var n, d, ny int64
	if r.x, r.hx, n, d, err = open(path, false); err != nil {
		return nil, err
	}
	if r.hx.Fortran && n > 1 && d > 1 {
		r.x.Close()
		return nil, &ParseError{File: path, Msg: "features in Fortran order (column-major): a row range is not contiguous; save them in C order (numpy.ascontiguousarray) to read them by rows"}
	}
	if r.y, r.hy, ny, _, err = open(labels, true); err != nil {
		r.x.Close()
		return nil, err
	}
	if ny != n {
		r.Close()
		return nil, &ParseError{File: labels, Msg: fmt.Sprintf("%d labels for the %d rows of %s", ny, n, path)}
	}
	r.N, r.D = int(n), int(d)
	if canMap {
		if st, err := r.x.Stat(); err == nil && st.Mode().IsRegular() {
			r.xmap, _ = mapFile(r.x, st.Size())
		}
	}
	return r, nil
}

// Close releases the files and the mapping.
func (r *NPYRows) Close() error {
	if r.xmap != nil {
		unmapFile(r.xmap)
		r.xmap = nil
	}
	if r.y != nil {
		r.y.Close()
	}
	return r.x.Close()
}

// Rows decodes the features of rows [lo, hi) into dst ((hi−lo)·D values);
// a non-finite value is an error naming the file and its [row, column].
func (r *NPYRows) Rows(lo, hi int, dst []float64) error {
	if err := r.read(r.x, r.hx, r.xmap, lo*r.D, hi*r.D, dst); err != nil {
		if e, ok := err.(errNonFinite); ok {
			e.e += lo * r.D
			return &ParseError{File: r.Path, Msg: fmt.Sprintf("non-finite value at [%d, %d]", e.e/r.D, e.e%r.D)}
		}
		return err
	}
	return nil
}

// Labels decodes the labels of rows [lo, hi) into dst.
func (r *NPYRows) Labels(lo, hi int, dst []float64) error {
	if err := r.read(r.y, r.hy, nil, lo, hi, dst); err != nil {
		if e, ok := err.(errNonFinite); ok {
			return &ParseError{File: r.LabelsPath, Msg: fmt.Sprintf("non-finite label at row %d", lo+e.e)}
		}
		return err
	}
	return nil
}

// Row decodes the features of row i into row (length D). Safe for
// concurrent use. It is meant for rows already checked by Rows (on this
// process or another): a read error (the file truncated or removed while
// running) panics with the file's name.
func (r *NPYRows) Row(i int, row []float64) {
	if err := r.read(r.x, r.hx, r.xmap, i*r.D, (i+1)*r.D, row); err != nil {
		if _, ok := err.(errNonFinite); !ok {
			panic(fmt.Sprintf("dataset: reading row %d of %s: %v", i, r.Path, err))
		}
	}
}

// read decodes elements [e0, e1) of the array with header h in f (or its
// mapping m) into dst; errNonFinite{k} names the first non-finite one
// (k relative to e0).
func (r *NPYRows) read(f *os.File, h npyHeader, m []byte, e0, e1 int, dst []float64) error {
	sz := int64(h.Dtype.Size)
	off, cnt := h.DataOff+int64(e0)*sz, int64(e1-e0)*sz
	var src []byte
	if m != nil {
		src = m[off : off+cnt]
	} else {
		src = make([]byte, cnt)
		if _, err := f.ReadAt(src, off); err != nil {
			return fmt.Errorf("dataset: %s: %w", f.Name(), err)
		}
	}
	if k := npy.DecodeValues(dst[:e1-e0], src, h.Dtype); k >= 0 {
		return errNonFinite{k}
	}
	return nil
}

// IsFile reports whether spec names an existing file (not a built-in data
// set).
func IsFile(spec string) bool {
	st, err := os.Stat(spec)
	return err == nil && !st.IsDir()
}

// IsNPYFile reports whether spec names a regular file Load reads as a
// NumPy .npy array (not an .npz archive).
func IsNPYFile(spec string) bool {
	st, err := os.Stat(spec)
	return err == nil && st.Mode().IsRegular() && sniffFormat(spec) == formatNPY
}
