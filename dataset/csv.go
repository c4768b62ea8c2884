package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// HeaderMode says whether a CSV file starts with a header line.
type HeaderMode int

const (
	// HeaderAuto (the zero value) treats the first non-blank line as a header
	// when every one of its feature fields (the fields that are neither the
	// label nor dropped) is non-numeric text: not a number, not empty and not
	// the missing-value token. A line of column names is detected; a data
	// line with one typo is not (it is reported as a parse error instead).
	// Use HeaderPresent or HeaderAbsent when the guess would be wrong, e.g.
	// for numeric column names.
	HeaderAuto HeaderMode = iota
	// HeaderPresent skips the first non-blank line.
	HeaderPresent
	// HeaderAbsent reads the first non-blank line as data.
	HeaderAbsent
)

func (h HeaderMode) String() string {
	switch h {
	case HeaderAuto:
		return "auto"
	case HeaderPresent:
		return "present"
	case HeaderAbsent:
		return "absent"
	}
	return "HeaderMode(" + strconv.Itoa(int(h)) + ")"
}

// Imputation methods for CSVOptions.Impute.
const (
	ImputeMedian = "median" // the median of the column's observed values (default)
	ImputeMean   = "mean"   // the mean of the column's observed values
	ImputeError  = "error"  // a missing value is an error
)

// CSVOptions configures ParseCSV and LoadCSV. The zero value reads a
// headerless-or-auto-detected file with the label in the last column, "?" for
// missing values and median imputation, without standardizing.
type CSVOptions struct {
	// LabelColumn is the 1-based column holding the class label; 0 means the
	// last column and a negative value counts from the end (-1 = last,
	// -2 = the one before).
	LabelColumn int
	// Header says whether the first non-blank line holds column names
	// (HeaderAuto by default; see there for the rule).
	Header HeaderMode
	// Missing is the token that marks a missing feature value; "" means "?".
	// In comma-separated files an empty field is also missing.
	Missing string
	// Impute is "median" (default when empty), "mean" or "error".
	Impute string
	// DropColumns lists 1-based columns to ignore, e.g. an id column. The
	// label column cannot be dropped.
	DropColumns []int
	// LabelName names the label column by its name in the header line, and
	// DropNames columns to ignore by theirs; either means the file has a
	// header (Header must not be HeaderAbsent). LabelName replaces
	// LabelColumn, which must then be 0.
	LabelName string
	DropNames []string
	// Standardize z-scores each feature (population std; a constant column
	// becomes 0).
	Standardize bool
	// MaxFileBytes limits the input size: 0 means DefaultMaxFileBytes,
	// negative means no limit.
	MaxFileBytes int64
	// MaxElements limits N·D: 0 means DefaultMaxElements, negative means no
	// limit.
	MaxElements int64
	// Workers is the number of goroutines LoadCSV parses a file with
	// (0: GOMAXPROCS, 1: the streaming parser of ParseCSV). The result, and
	// any error, do not depend on it.
	Workers int
}

// LoadCSV reads a delimited text file; see ParseCSV. Errors name the path.
// The dataset's Name is the file name without its extension.
//
// A regular file is parsed in parallel unless opt.Workers is 1: it is
// memory-mapped (or read whole where mapping is not possible) for the time
// of the parse, cut at line boundaries into one chunk per worker, and the
// chunks are parsed at once into their places in one N×D matrix; the data
// set and the errors (the first in file order, with its line and column) are
// exactly those of the streaming parser.
func LoadCSV(path string, opt CSVOptions) (*Dataset, error) {
	lim := resolveLimits(opt.MaxFileBytes, 0)
	f, err := openData(path, lim.bytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && opt.Workers != 1 && (lim.bytes >= 0 || st.Size() <= DefaultMaxFileBytes) {
		ds, ok, err := loadCSVParallel(f, st.Size(), path, opt)
		if ok {
			if err != nil {
				return nil, err
			}
			ds.Name = baseName(path)
			return ds, nil
		}
	}
	ds, err := ParseCSV(f, path, opt)
	if err != nil {
		return nil, err
	}
	ds.Name = baseName(path)
	return ds, nil
}

// ParseCSV reads delimited text from r; name is used in error messages and as
// the dataset's Name.
//
// Format: one point per line; blank lines are skipped; a UTF-8 byte-order
// mark and CR line endings are tolerated. The delimiter is a comma if the
// first non-blank line contains one, otherwise runs of spaces and tabs.
// Fields are trimmed of surrounding white space; quoting is not supported.
// Every line must have as many fields as the first. Feature values must be
// finite numbers or the missing-value token; the label column may hold any
// text (see the package documentation for how labels become classes).
//
// Errors are *ParseError values naming the file, the 1-based line and the
// 1-based column: empty input, a wrong field count, an unparsable or
// non-finite value, a missing label, a column with no observed value, a
// single class, or an input over the size limits.
func ParseCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	p := csvParser{name: name, opt: opt}
	return p.parse(r)
}

type csvParser struct {
	name    string
	opt     CSVOptions
	lim     limits
	missing string
	impute  string
	lr      *limitedReader
}

func (p *csvParser) errf(line, col int, format string, a ...any) error {
	if p.lr != nil && p.lr.over {
		return p.sizeErr()
	}
	return &ParseError{File: p.name, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

func (p *csvParser) sizeErr() error {
	return &ParseError{File: p.name, Err: ErrTooLarge,
		Msg: fmt.Sprintf("%v: input is larger than the limit of %d bytes (%s); raise MaxFileBytes to allow more",
			ErrTooLarge, p.lim.bytes, humanBytes(float64(p.lim.bytes)))}
}

// prepare resolves the options; it reports invalid ones.
func (p *csvParser) prepare() error {
	p.lim = resolveLimits(p.opt.MaxFileBytes, p.opt.MaxElements)
	p.missing = p.opt.Missing
	if p.missing == "" {
		p.missing = "?"
	}
	switch p.opt.Impute {
	case "":
		p.impute = ImputeMedian
	case ImputeMedian, ImputeMean, ImputeError:
		p.impute = p.opt.Impute
	default:
		return p.errf(0, 0, "CSVOptions.Impute: unknown method %q (want %q, %q or %q)",
			p.opt.Impute, ImputeMedian, ImputeMean, ImputeError)
	}
	switch p.opt.Header {
	case HeaderAuto, HeaderPresent, HeaderAbsent:
	default:
		return p.errf(0, 0, "CSVOptions.Header: unknown mode %d", int(p.opt.Header))
	}
	if p.opt.LabelName != "" || len(p.opt.DropNames) > 0 {
		if p.opt.Header == HeaderAbsent {
			return p.errf(0, 0, "columns named (--label-name, --drop-columns by name) need a header line, but --csv-header is absent")
		}
		if p.opt.LabelName != "" && p.opt.LabelColumn != 0 {
			return p.errf(0, 0, "--label-name %q and --label-column %d both name the label column: give one", p.opt.LabelName, p.opt.LabelColumn)
		}
	}
	return nil
}

// csvFormat is what the first non-blank line of a file fixes.
type csvFormat struct {
	comma      bool
	nf         int   // fields per line
	label      int   // 0-based label column
	keep       []int // 0-based feature columns, in order
	firstLine  int   // line number of the first non-blank line
	headerLine int   // line number of the header, 0 if none
}

// firstLine reads the format from the first non-blank line (number lineNo)
// and reports whether it is a header. fields is reused and returned split.
func (p *csvParser) firstLine(f *csvFormat, line string, lineNo int, fields []string) ([]string, bool, error) {
	f.firstLine = lineNo
	f.comma = strings.IndexByte(line, ',') >= 0
	fields = splitFields(fields, line, f.comma)
	f.nf = len(fields)
	labelCol, drop := p.opt.LabelColumn, p.opt.DropColumns
	named := p.opt.LabelName != "" || len(p.opt.DropNames) > 0
	if named { // the first line is the header: find the names in it
		find := func(flag, name string) (int, error) {
			if i := slices.Index(fields, name); i >= 0 {
				return i + 1, nil
			}
			return 0, p.errf(lineNo, 0, "%s: no column %q in the header (%s)", flag, name, strings.Join(fields, ", "))
		}
		if p.opt.LabelName != "" {
			c, err := find("--label-name", p.opt.LabelName)
			if err != nil {
				return fields, false, err
			}
			labelCol = c
		}
		drop = slices.Clone(drop)
		for _, name := range p.opt.DropNames {
			c, err := find("--drop-columns", name)
			if err != nil {
				return fields, false, err
			}
			drop = append(drop, c)
		}
	}
	var msg string
	f.label, f.keep, msg = resolveColumns(f.nf, labelCol, drop)
	if msg != "" {
		return fields, false, p.errf(lineNo, 0, "%s", msg)
	}
	if named || p.opt.Header == HeaderPresent || (p.opt.Header == HeaderAuto && p.looksLikeHeader(fields, f.keep)) {
		f.headerLine = lineNo
		if len(fields) > 1 && strings.TrimSpace(fields[0]) == "" && slices.Contains(f.keep, 0) {
			// pandas' DataFrame.to_csv writes its index as an unnamed first
			// column: read as a feature it would be the row numbers.
			return fields, true, p.errf(lineNo, 1, "the header's first column has no name, as pandas writes its index (DataFrame.to_csv without index=False): "+
				"it would be read as a feature; give --drop-columns 1 to drop it (CSVOptions.DropColumns in Go), or name the column")
		}
		return fields, true, nil
	}
	return fields, false, nil
}

// row parses the data line lineNo, split into fields, the data set's row
// number rowsBefore (0-based): the features into out (NaN for a missing
// value, counted in nMissing) and the label into labels, whose provisional
// id it returns. out may be nil only when the row is over the element limit
// (reported before anything is written). With clone, label text is copied
// before labels keeps it (for lines that point into memory the caller
// releases).
func (p *csvParser) row(f *csvFormat, fields []string, lineNo, rowsBefore int, out []float64, nMissing []int, labels *labelSet, clone bool) (int32, error) {
	hint := ""
	if lineNo == f.firstLine && p.opt.Header == HeaderAuto {
		hint = fmt.Sprintf(" (if line %d is a header, give --csv-header present: CSVOptions.Header in Go)", lineNo)
		if len(fields) > 1 && strings.TrimSpace(fields[0]) == "" {
			hint = fmt.Sprintf(" (if line %d is a header, give --csv-header present: CSVOptions.Header in Go; its unnamed first column is a pandas index: add --drop-columns 1)", lineNo)
		}
	}
	if len(fields) != f.nf {
		return 0, p.errf(lineNo, 0, "expected %d fields, got %d%s", f.nf, len(fields), hint)
	}
	if p.lim.overElements(int64(rowsBefore+1), int64(len(f.keep))) {
		return 0, &ParseError{File: p.name, Line: lineNo, Err: ErrTooLarge,
			Msg: p.lim.elementsMsg(int64(rowsBefore+1), int64(len(f.keep)), true, raiseElements)}
	}
	for k, c := range f.keep {
		fv := fields[c]
		if fv == p.missing || (f.comma && fv == "") {
			if p.impute == ImputeError {
				return 0, p.errf(lineNo, c+1, "missing value %q (CSVOptions.Impute is %q)", fv, ImputeError)
			}
			nMissing[k]++
			out[k] = nan
			continue
		}
		v, msg := parseValue(fv)
		if msg != "" {
			return 0, p.errf(lineNo, c+1, "%s%s", msg, hint)
		}
		out[k] = v
	}
	lt := fields[f.label]
	if lt == p.missing {
		lt = ""
	}
	if msg := checkLabel(lt); msg != "" {
		return 0, p.errf(lineNo, f.label+1, "%s%s", msg, hint)
	}
	if clone {
		return labels.addClone(lt), nil
	}
	return labels.add(lt), nil
}

// noRows is the error for a file without data lines.
func (p *csvParser) noRows(f *csvFormat) error {
	if f.headerLine > 0 {
		return p.errf(0, 0, "no data lines after the header on line %d", f.headerLine)
	}
	return p.errf(0, 0, "empty file (no data lines)")
}

func (p *csvParser) parse(r io.Reader) (*Dataset, error) {
	if err := p.prepare(); err != nil {
		return nil, err
	}
	p.lr = &limitedReader{r: r, limit: p.lim.bytes}
	sc := newLineScanner(p.lr, p.lim.bytes)

	var (
		f        csvFormat
		lineNo   int
		started  bool
		fields   []string
		x        []float64 // row-major, NaN marks a missing value
		prov     []int32   // provisional label id per row
		labels   labelSet
		nMissing []int // per kept column
		rows     int
	)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if isBlank(line) {
			continue
		}
		if !started {
			started = true
			var header bool
			var err error
			if fields, header, err = p.firstLine(&f, line, lineNo, fields); err != nil {
				return nil, err
			}
			nMissing = make([]int, len(f.keep))
			if header {
				continue
			}
		} else {
			fields = splitFields(fields, line, f.comma)
		}
		d := len(f.keep)
		x = slices.Grow(x, d)[:len(x)+d]
		id, err := p.row(&f, fields, lineNo, rows, x[len(x)-d:], nMissing, &labels, false)
		if err != nil {
			return nil, err
		}
		prov = append(prov, id)
		rows++
	}
	if err := sc.Err(); err != nil {
		if p.lr.over {
			return nil, p.sizeErr()
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, p.errf(lineNo+1, 0, "line longer than %d bytes (%s), the longest a data line may be", MaxLineBytes, humanBytes(MaxLineBytes))
		}
		return nil, &ParseError{File: p.name, Line: lineNo, Msg: "read error: " + err.Error(), Err: err}
	}
	if rows == 0 {
		return nil, p.noRows(&f)
	}
	names, remap := labels.finish()
	if len(names) < 2 {
		return nil, p.errf(0, 0, "only one class (%q) — pairwise objectives need at least two", names[0])
	}
	class := make([]int32, rows)
	for i, id := range prov {
		class[i] = remap[id]
	}
	return p.build(&f, x, rows, class, names, nMissing)
}

// build imputes, standardizes and describes the parsed data.
func (p *csvParser) build(f *csvFormat, x []float64, rows int, class []int32, names []string, nMissing []int) (*Dataset, error) {
	d := len(f.keep)
	var warnings []string
	if c, ok := indexColumn(x, rows, d); ok {
		warnings = append(warnings, fmt.Sprintf("%s: column %d holds the row numbers (%g, %g, …, %g), as pandas writes its index (DataFrame.to_csv without index=False): "+
			"it is read as a feature; give --drop-columns %d to drop it (CSVOptions.DropColumns in Go)",
			p.name, f.keep[c]+1, x[c], x[d+c], x[(rows-1)*d+c], f.keep[c]+1))
	}
	imputed := 0
	for k, m := range nMissing {
		if m == 0 {
			continue
		}
		if m == rows {
			return nil, p.errf(0, f.keep[k]+1, "all %d values are missing (nothing to impute from; drop the column)", rows)
		}
		obs := make([]float64, 0, rows-m)
		for i := 0; i < rows; i++ {
			if v := x[i*d+k]; v == v {
				obs = append(obs, v)
			}
		}
		var fill float64
		if p.impute == ImputeMean {
			fill = columnMean(obs)
		} else {
			fill = columnMedian(obs)
		}
		for i := 0; i < rows; i++ {
			if v := x[i*d+k]; v != v {
				x[i*d+k] = fill
			}
		}
		imputed += m
	}
	if p.opt.Standardize {
		standardize(x, rows, d)
	}

	ds := &Dataset{
		Name:       p.name,
		N:          rows,
		D:          d,
		X:          x[: rows*d : rows*d],
		Class:      class,
		ClassNames: names,
		Warnings:   warnings,
	}
	var src strings.Builder
	fmt.Fprintf(&src, "%s: CSV, %d rows, %d features, label column %d", p.name, rows, d, f.label+1)
	if len(f.keep)+1 < f.nf {
		var dropped []int
		for c := 0; c < f.nf; c++ {
			if c != f.label && !slices.Contains(f.keep, c) {
				dropped = append(dropped, c+1)
			}
		}
		fmt.Fprintf(&src, ", dropped columns %v", dropped)
	}
	if f.headerLine > 0 {
		fmt.Fprintf(&src, ", header on line %d", f.headerLine)
	}
	if imputed > 0 {
		fmt.Fprintf(&src, ", %d missing values imputed with the column %s", imputed, p.impute)
	}
	if p.opt.Standardize {
		src.WriteString(", standardized (z-score, population std)")
	}
	ds.Source = src.String()
	if err := ds.Validate(); err != nil { // cannot happen; a guard against parser bugs
		return nil, fmt.Errorf("dataset: internal error parsing %s: %w", p.name, err)
	}
	return ds, nil
}

// indexColumn returns the first feature column of the rows×d matrix x whose
// values are the row numbers 0, 1, …, rows−1 (or 1, …, rows): a data frame's
// index written as a column. Fewer than 3 rows prove nothing.
func indexColumn(x []float64, rows, d int) (int, bool) {
	if rows < 3 {
		return 0, false
	}
	for c := 0; c < d; c++ {
		off := x[c]
		if off != 0 && off != 1 {
			continue
		}
		i := 1
		for ; i < rows && x[i*d+c] == float64(i)+off; i++ {
		}
		if i == rows {
			return c, true
		}
	}
	return 0, false
}

// looksLikeHeader reports whether every feature field is non-numeric text.
func (p *csvParser) looksLikeHeader(fields []string, keep []int) bool {
	if len(keep) == 0 {
		return false
	}
	for _, c := range keep {
		f := fields[c]
		if f == "" || f == p.missing {
			return false
		}
		if _, err := strconv.ParseFloat(f, 64); err == nil || !errors.Is(err, strconv.ErrSyntax) {
			return false
		}
	}
	return true
}

// resolveColumns turns the 1-based label column (0 = last, negative from the
// end) and dropped columns into 0-based indices for a line of nf fields.
func resolveColumns(nf, labelCol int, drop []int) (label int, keep []int, msg string) {
	switch {
	case labelCol == 0:
		label = nf - 1
	case labelCol > 0:
		if labelCol > nf {
			return 0, nil, fmt.Sprintf("--label-column %d is out of range: the line has %d fields", labelCol, nf)
		}
		label = labelCol - 1
	default:
		if labelCol < -nf {
			return 0, nil, fmt.Sprintf("--label-column %d is out of range: the line has %d fields", labelCol, nf)
		}
		label = nf + labelCol
	}
	dropped := make([]bool, nf)
	for _, c := range drop {
		if c < 1 || c > nf {
			return 0, nil, fmt.Sprintf("--drop-columns: column %d is out of range 1..%d", c, nf)
		}
		if c-1 == label {
			return 0, nil, fmt.Sprintf("--drop-columns: column %d is the label column", c)
		}
		dropped[c-1] = true
	}
	for c := 0; c < nf; c++ {
		if c != label && !dropped[c] {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return 0, nil, fmt.Sprintf("no feature columns: the line has %d fields, and the label and dropped columns take them all", nf)
	}
	return label, keep, ""
}

// splitFields splits line at commas (trimming white space around fields) or,
// if !comma, at runs of ASCII white space. It reuses dst.
func splitFields(dst []string, line string, comma bool) []string {
	dst = dst[:0]
	if comma {
		for {
			i := strings.IndexByte(line, ',')
			if i < 0 {
				return append(dst, strings.TrimSpace(line))
			}
			dst = append(dst, strings.TrimSpace(line[:i]))
			line = line[i+1:]
		}
	}
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

func isBlank(line string) bool {
	return strings.TrimSpace(line) == ""
}

// limitedReader counts bytes and fails once more than limit have been read.
type limitedReader struct {
	r     io.Reader
	n     int64
	limit int64 // < 0: none
	over  bool
}

var errOverLimit = errors.New("input over the size limit")

func (lr *limitedReader) Read(b []byte) (int, error) {
	if lr.over {
		return 0, errOverLimit
	}
	if lr.limit >= 0 {
		if room := lr.limit + 1 - lr.n; int64(len(b)) > room {
			b = b[:room]
		}
	}
	k, err := lr.r.Read(b)
	lr.n += int64(k)
	if lr.limit >= 0 && lr.n > lr.limit {
		lr.over = true
		return k, errOverLimit
	}
	return k, err
}

// MaxLineBytes is the longest line the CSV and LIBSVM parsers accept: a
// line longer than that (a file without line ends, /dev/zero) is an error
// naming the line, not a buffer that grows with the input.
const MaxLineBytes = 64 << 20

// newLineScanner returns a line scanner whose longest line is bounded by
// MaxLineBytes and by the byte limit (so an input over the limit in one line
// is a size error, not a line error).
func newLineScanner(r io.Reader, limit int64) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	maxLine := int64(MaxLineBytes)
	if limit >= 0 {
		maxLine = min(maxLine, limit+1)
	}
	maxLine = max(maxLine, 64)
	sc.Buffer(make([]byte, 0, min(maxLine, 64<<10)), int(min(maxLine, int64(^uint(0)>>1))))
	return sc
}

// openData opens a data file, refusing directories and files over the limit.
func openData(path string, limit int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, &ParseError{File: path, Msg: "is a directory, not a data file"}
	}
	if limit >= 0 && st.Mode().IsRegular() && st.Size() > limit {
		f.Close()
		return nil, &ParseError{File: path, Err: ErrTooLarge,
			Msg: fmt.Sprintf("%v: the file is %s (%d bytes), over the limit of %s (%d bytes); raise MaxFileBytes to allow it",
				ErrTooLarge, humanBytes(float64(st.Size())), st.Size(), humanBytes(float64(limit)), limit)}
	}
	return f, nil
}

// baseName is the file name without directory and extension.
func baseName(path string) string {
	b := filepath.Base(path)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
