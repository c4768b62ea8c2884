package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// csvRowStride is how many data rows apart CSVRows records a row's byte
// offset: Row reads at most that many lines to find one row.
const csvRowStride = 16

// CSVRows is a CSV file read by rows, for a process that keeps only some of
// them (one rank of a distributed run): OpenCSVRows reads the first
// non-blank line (format and header) as LoadCSV does and counts the data
// rows, without parsing or keeping them; Parse parses a range of rows, and
// Row one row, from the file. What LoadCSV derives from all the rows (the
// classes, the imputed values, the first error in file order) is the
// caller's to agree on over the processes: Parse returns the range's label
// texts, missing-value counts and first error, and Classes and Binary turn
// every process's label texts into LoadCSV's classes and ±1 labels.
//
// The file is streamed (read with pread in pieces), not mapped, so that
// what a process holds is its rows, not the file's pages. Imputation and
// standardization need every row: a caller whose file has missing values
// loads it whole instead.
type CSVRows struct {
	Name string // the file name without its extension, as LoadCSV names it
	Path string
	N, D int

	p    csvParser
	f    csvFormat
	file *os.File
	size int64
	off  []int64 // byte offset of the line of row k·csvRowStride
	line []int   // its line number
	bufs sync.Pool
}

// OpenCSVRows opens a CSV file for reading by rows with LoadCSV's options
// (MaxElements does not apply: the caller limits what it keeps). The
// errors are LoadCSV's for the options, the first line, and an empty file.
func OpenCSVRows(path string, opt CSVOptions) (*CSVRows, error) {
	r := &CSVRows{Path: path, Name: baseName(path), p: csvParser{name: path, opt: opt}}
	if err := r.p.prepare(); err != nil {
		return nil, err
	}
	r.p.lim.elements = -1
	f, err := openData(path, r.p.lim.bytes)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dataset: %w", err)
	}
	r.file, r.size = f, st.Size()
	var ferr error
	lineNo, started, rows := 0, false, 0
	err = r.eachLine(0, func(line []byte, at int64) bool {
		lineNo++
		s := lineText(line, lineNo)
		if isBlank(s) {
			return true
		}
		if !started {
			started = true
			_, header, err := r.p.firstLine(&r.f, string(s), lineNo, nil)
			if err != nil {
				ferr = err
				return false
			}
			if header {
				return true
			}
		}
		if rows%csvRowStride == 0 {
			r.off = append(r.off, at)
			r.line = append(r.line, lineNo)
		}
		rows++
		return true
	})
	if err == nil {
		err = ferr
	}
	if err == nil && rows == 0 {
		err = r.p.noRows(&r.f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r.N, r.D = rows, len(r.f.keep)
	return r, nil
}

// Close closes the file.
func (r *CSVRows) Close() error { return r.file.Close() }

// eachLine calls fn with every line from byte offset from on (cut as
// nextLine cuts them) and the line's offset, until fn returns false.
func (r *CSVRows) eachLine(from int64, fn func(line []byte, at int64) bool) error {
	buf := make([]byte, 1<<20)
	have := 0 // bytes of buf holding an unfinished line
	base := from
	for pos := from; ; {
		if have == len(buf) {
			if len(buf) > MaxLineBytes {
				return r.p.errf(0, 0, "line at byte %d longer than %d bytes", base, MaxLineBytes)
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		k, err := r.file.ReadAt(buf[have:], pos)
		pos += int64(k)
		data := buf[:have+k]
		eof := errors.Is(err, io.EOF) || (err == nil && pos >= r.size && k == 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return &ParseError{File: r.Path, Msg: "read error: " + err.Error(), Err: err}
		}
		at := 0
		for {
			line, next, ok := nextLine(data, at)
			if !ok || (next == len(data) && (len(data) == 0 || data[len(data)-1] != '\n') && !eof) {
				break // the end of data, or a line that continues past it
			}
			if !fn(line, base+int64(at)) {
				return nil
			}
			at = next
		}
		if eof || k == 0 {
			return nil
		}
		have = copy(buf, data[at:])
		base += int64(at)
	}
}

// Parse parses rows [lo, hi) into x ((hi−lo)·D values, NaN for a missing
// value). It returns the range's label texts in first-seen order, each
// row's index into them, and the missing values per feature; the error is
// LoadCSV's for the first bad line of the range (a *ParseError naming the
// file, line and column).
func (r *CSVRows) Parse(lo, hi int, x []float64) (texts []string, prov []int32, nMissing []int, err error) {
	d := r.D
	nMissing = make([]int, d)
	prov = make([]int32, hi-lo)
	if lo >= hi {
		return nil, prov, nMissing, nil
	}
	b := lo / csvRowStride
	skip := lo - b*csvRowStride
	lineNo := r.line[b] - 1
	k := 0
	var labels labelSet
	var fields []string
	rerr := r.eachLine(r.off[b], func(line []byte, _ int64) bool {
		lineNo++
		s := lineText(line, lineNo)
		if isBlank(s) {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		fields = splitFields(fields, s, r.f.comma)
		id, e := r.p.row(&r.f, fields, lineNo, lo+k, x[k*d:(k+1)*d:(k+1)*d], nMissing, &labels, true)
		if e != nil {
			err = e
			return false
		}
		prov[k] = id
		k++
		return k < hi-lo
	})
	if rerr != nil {
		return nil, nil, nil, rerr
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if k != hi-lo { // the file changed since OpenCSVRows
		return nil, nil, nil, r.p.errf(0, 0, "has %d data rows, fewer than the %d counted when it was opened", lo+k, r.N)
	}
	return labels.texts, prov, nMissing, nil
}

// Row writes row i's features into row (NaN for a missing value); the row
// is read from the file. It is safe for concurrent use. A row that cannot
// be read (the file changed since it was parsed) is all NaN.
func (r *CSVRows) Row(i int, row []float64) {
	b := i / csvRowStride
	end := r.size
	if b+1 < len(r.off) {
		end = r.off[b+1]
	}
	n := int(end - r.off[b])
	bp, _ := r.bufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < n {
		buf := make([]byte, n)
		bp = &buf
	}
	data := (*bp)[:n]
	defer r.bufs.Put(bp)
	for j := range row {
		row[j] = nan
	}
	if k, _ := r.file.ReadAt(data, r.off[b]); k != n {
		return
	}
	skip := i - b*csvRowStride
	var fields [64]string
	for at := 0; ; {
		line, next, ok := nextLine(data, at)
		if !ok {
			return
		}
		ln := 2
		if r.off[b]+int64(at) == 0 {
			ln = 1
		}
		at = next
		s := lineText(line, ln)
		if isBlank(s) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		fs := splitFields(fields[:0], s, r.f.comma)
		if len(fs) != r.f.nf {
			return
		}
		for k, c := range r.f.keep {
			if v, msg := parseValue(fs[c]); msg == "" {
				row[k] = v
			}
		}
		return
	}
}

// Classes returns, for label texts gathered from every part of the file
// in file order (each part's first-seen texts, the parts in file order),
// each text's class index as LoadCSV numbers the classes, and the class
// names; the error is LoadCSV's for a single class.
func (r *CSVRows) Classes(texts []string) (class []int32, names []string, err error) {
	var labels labelSet
	ids := make([]int32, len(texts))
	for k, t := range texts {
		ids[k] = labels.add(t)
	}
	names, remap := labels.finish()
	if len(names) < 2 {
		return nil, names, r.p.errf(0, 0, "only one class (%q) — pairwise objectives need at least two", names[0])
	}
	class = make([]int32, len(texts))
	for k, id := range ids {
		class[k] = remap[id]
	}
	return class, names, nil
}

// Binary returns the ±1 label of each class index of Classes, as
// Dataset.Binary labels LoadCSV's data set, or Dataset.Binary's error.
func (r *CSVRows) Binary(names []string) ([]int8, error) {
	if len(names) != 2 {
		return nil, fmt.Errorf("dataset %q: ±1 labels need exactly 2 classes, it has %d", r.Name, len(names))
	}
	y := []int8{-1, -1}
	y[positiveOf(names[0], names[1])] = 1
	return y, nil
}

// IsCSVFile reports whether Load reads spec as a CSV file: a regular file
// (not a built-in name) whose format is neither NumPy nor LIBSVM.
func IsCSVFile(spec string) bool {
	switch spec {
	case SpecSyntheticAUC, SpecSyntheticMetric, SpecBreastCancer, SpecSynthetic, "":
		return false
	}
	st, err := os.Stat(spec)
	return err == nil && st.Mode().IsRegular() && sniffFormat(spec) == formatCSV
}
