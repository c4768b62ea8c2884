package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Dataset is a labelled data set with one point per row.
type Dataset struct {
	// Name is a short name for reports ("breast-cancer", "synthetic", or the
	// file name without its extension).
	Name string
	// N is the number of points (rows) and D the number of features.
	N, D int
	// X holds the points, N×D row-major and dense: row i is X[i*D : (i+1)*D].
	X []float64
	// Class is the class index, 0..NumClasses()-1, of each row.
	Class []int32
	// ClassNames is the original label text of each class index.
	ClassNames []string
	// Source records where the data came from and how it was preprocessed
	// (a citation for the built-in data sets).
	Source string
	// Warnings are what the loader found suspicious but not wrong (a
	// column of row numbers, as a data frame's index): the command line
	// prints them, the Go API returns them in Run.Warnings.
	Warnings []string

	// mapping is the memory-mapped file X points into, if any (LoadNPY,
	// LoadNPZ); Close releases it.
	mapping []byte
}

// Mapped reports whether X points into a memory-mapped file (see LoadNPY)
// rather than into memory of its own.
func (ds *Dataset) Mapped() bool { return ds.mapping != nil }

// Close releases the memory mapping behind X when X is mapped from a file
// (LoadNPY, LoadNPZ; see Mapped), and sets X to nil: X, and every slice of
// it the caller kept, must not be used afterwards (the memory is gone; a
// read would crash the program). Without Close the mapping lasts until the
// process exits; it is never released by the garbage collector. Close does
// nothing for data sets that are not mapped, and a second Close does nothing.
func (ds *Dataset) Close() error {
	if ds.mapping == nil {
		return nil
	}
	m := ds.mapping
	ds.mapping, ds.X = nil, nil
	return unmapFile(m)
}

// Row returns row i of X (a view, not a copy; its capacity ends with the row).
func (ds *Dataset) Row(i int) []float64 {
	return ds.X[i*ds.D : (i+1)*ds.D : (i+1)*ds.D]
}

// NumClasses returns the number of classes K: len(ClassNames), or one more
// than the largest class index if ClassNames is empty.
func (ds *Dataset) NumClasses() int {
	if len(ds.ClassNames) > 0 {
		return len(ds.ClassNames)
	}
	k := 0
	for _, c := range ds.Class {
		k = max(k, int(c)+1)
	}
	return k
}

// ClassCounts returns the number of rows in each class, indexed by class.
// Class indices outside 0..NumClasses()-1 are not counted (Validate reports them).
func (ds *Dataset) ClassCounts() []int {
	counts := make([]int, ds.NumClasses())
	for _, c := range ds.Class {
		if c >= 0 && int(c) < len(counts) {
			counts[c]++
		}
	}
	return counts
}

// Binary returns ±1 labels for AUC maximization. It needs exactly two
// classes. The positive class (+1) is the one whose label text parses as the
// larger number ("2"/"4" → "4", "0"/"1" → "1", "-1"/"+1" → "+1"); if the two
// labels are not both finite numbers, or are numerically equal, it is the
// lexicographically (byte-wise) larger text. Without ClassNames, class 1 is
// positive.
func (ds *Dataset) Binary() ([]int8, error) {
	if k := ds.NumClasses(); k != 2 {
		return nil, fmt.Errorf("dataset %q: ±1 labels need exactly 2 classes, it has %d", ds.Name, k)
	}
	pos := int32(1)
	if len(ds.ClassNames) == 2 {
		pos = int32(positiveOf(ds.ClassNames[0], ds.ClassNames[1]))
	}
	y := make([]int8, len(ds.Class))
	for i, c := range ds.Class {
		if c == pos {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return y, nil
}

// PositiveOf returns which of two label texts Binary takes as the positive
// class: 0 for a, 1 for b (the larger number, else the larger text).
func PositiveOf(a, b string) int { return positiveOf(a, b) }

// LabelName is the class name a numeric label gets (as .npy labels do).
func LabelName(v float64) string { return labelName(v) }

// PositiveClass returns the class index that Binary labels +1, or -1 if the
// data set does not have exactly two classes.
func (ds *Dataset) PositiveClass() int {
	if ds.NumClasses() != 2 {
		return -1
	}
	if len(ds.ClassNames) == 2 {
		return positiveOf(ds.ClassNames[0], ds.ClassNames[1])
	}
	return 1
}

// positiveOf returns 0 or 1: which of the two labels is the positive class.
func positiveOf(a, b string) int {
	va, oka := numericLabel(a)
	vb, okb := numericLabel(b)
	if oka && okb && va != vb {
		if vb > va {
			return 1
		}
		return 0
	}
	if b > a {
		return 1
	}
	return 0
}

// numericLabel reports whether a label is a finite number, and its value.
func numericLabel(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// Validate checks the data set's invariants: N >= 2, D >= 1, X and Class of
// the right lengths, every value finite, class indices in range, class names
// distinct, and at least two non-empty classes.
func (ds *Dataset) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("dataset %q: %s", ds.Name, fmt.Sprintf(format, a...))
	}
	if ds.N < 2 {
		return bad("N = %d, need at least 2 points", ds.N)
	}
	if ds.D < 1 {
		return bad("D = %d, need at least 1 feature", ds.D)
	}
	if ds.N > math.MaxInt/ds.D {
		return bad("N×D = %d×%d overflows", ds.N, ds.D)
	}
	if len(ds.X) != ds.N*ds.D {
		return bad("len(X) = %d, want N×D = %d", len(ds.X), ds.N*ds.D)
	}
	if len(ds.Class) != ds.N {
		return bad("len(Class) = %d, want N = %d", len(ds.Class), ds.N)
	}
	for k, v := range ds.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("row %d, feature %d: non-finite value %v", k/ds.D, k%ds.D, v)
		}
	}
	k := ds.NumClasses()
	for i, c := range ds.Class {
		if c < 0 || int(c) >= k {
			return bad("row %d: class index %d out of range 0..%d", i, c, k-1)
		}
	}
	if len(ds.ClassNames) > 0 {
		seen := make(map[string]bool, len(ds.ClassNames))
		for _, name := range ds.ClassNames {
			if seen[name] {
				return bad("class name %q appears twice", name)
			}
			seen[name] = true
		}
	}
	present := 0
	for _, n := range ds.ClassCounts() {
		if n > 0 {
			present++
		}
	}
	if present < 2 {
		return bad("%d non-empty class(es); pairwise objectives need at least two", present)
	}
	return nil
}

// ParseError is the error the parsers return: it names the input, and the
// 1-based line and column where there is one.
type ParseError struct {
	File   string // the name given to the parser (the path for LoadCSV/LoadLIBSVM)
	Line   int    // 1-based line number, 0 if the problem is not on one line
	Column int    // 1-based column (CSV field) number, 0 if none
	Msg    string // what is wrong
	Err    error  // an underlying error, if any (for errors.Is / errors.As)
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Column > 0 {
		b.WriteString("column ")
		b.WriteString(strconv.Itoa(e.Column))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// nan marks a missing value while a file is parsed (real NaN values are
// rejected, so it is unambiguous).
var nan = math.NaN()

// Size limits. Parsing stops with an error before the input exceeds them.
const (
	// DefaultMaxFileBytes is the largest input (in bytes) the parsers accept
	// unless MaxFileBytes in the options says otherwise: 2 GiB.
	DefaultMaxFileBytes int64 = 2 << 30
	// DefaultMaxElements is the largest N·D (matrix entries) a data set may
	// have unless MaxElements in the options says otherwise: 2^28 values,
	// that is 2 GiB of float64.
	DefaultMaxElements int64 = 1 << 28
)

// raiseElements ends the element-limit message of the parsers.
const raiseElements = "; raise MaxElements in the options to allow more"

// ErrTooLarge is wrapped by the errors for inputs over the size limits.
var ErrTooLarge = errors.New("data too large")

type limits struct {
	bytes    int64 // < 0: none
	elements int64 // < 0: none
}

// resolveLimits applies the defaults: 0 means the default, a negative value
// means no limit.
func resolveLimits(maxBytes, maxElements int64) limits {
	l := limits{bytes: maxBytes, elements: maxElements}
	if l.bytes == 0 {
		l.bytes = DefaultMaxFileBytes
	}
	if l.elements == 0 {
		l.elements = DefaultMaxElements
	}
	return l
}

// overElements reports whether rows×cols exceeds the element limit.
func (l limits) overElements(rows, cols int64) bool {
	if l.elements < 0 || rows == 0 || cols == 0 {
		return false
	}
	return rows > l.elements/cols || rows*cols > l.elements
}

// elementsMsg describes a data set that is over the element limit. With
// atLeast, rows is a lower bound (the input was not read to the end). raise
// says how to lift the limit.
func (l limits) elementsMsg(rows, cols int64, atLeast bool, raise string) string {
	n := float64(rows) * float64(cols)
	pre := ""
	if atLeast {
		pre = "at least "
	}
	return fmt.Sprintf("%v: %s%d rows × %d features = %.4g values would need %s%s of memory as float64; the limit is %d values (%s)%s",
		ErrTooLarge, pre, rows, cols, n, pre, humanBytes(8*n), l.elements, humanBytes(8*float64(l.elements)), raise)
}

// humanBytes formats a byte count with a binary unit.
func humanBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// labelSet maps label text to class indices. Labels get a provisional id in
// the order first seen; finish assigns the final class order.
type labelSet struct {
	ids   map[string]int32
	texts []string // by provisional id
}

func (ls *labelSet) add(text string) int32 {
	if id, ok := ls.ids[text]; ok {
		return id
	}
	if ls.ids == nil {
		ls.ids = make(map[string]int32)
	}
	id := int32(len(ls.texts))
	ls.ids[text] = id
	ls.texts = append(ls.texts, text)
	return id
}

// addClone is add for text that must be copied before it is kept.
func (ls *labelSet) addClone(text string) int32 {
	if id, ok := ls.ids[text]; ok {
		return id
	}
	return ls.add(strings.Clone(text))
}

// finish returns the class names in class-index order and the map from
// provisional id to class index. If every label is a finite number, equal
// values merge (named by the first spelling seen) and classes are ordered by
// value; otherwise they are ordered by text.
func (ls *labelSet) finish() (names []string, remap []int32) {
	remap = make([]int32, len(ls.texts))
	vals := make([]float64, len(ls.texts))
	numeric := true
	for i, t := range ls.texts {
		v, ok := numericLabel(t)
		if !ok {
			numeric = false
			break
		}
		vals[i] = v
	}
	if numeric {
		first := make(map[float64]int) // value → provisional id of its first spelling
		var uniq []float64
		for i, v := range vals {
			if _, ok := first[v]; !ok {
				first[v] = i
				uniq = append(uniq, v)
			}
		}
		slices.Sort(uniq)
		rank := make(map[float64]int32, len(uniq))
		for r, v := range uniq {
			rank[v] = int32(r)
			names = append(names, ls.texts[first[v]])
		}
		for i, v := range vals {
			remap[i] = rank[v]
		}
		return names, remap
	}
	names = slices.Clone(ls.texts)
	slices.Sort(names)
	rank := make(map[string]int32, len(names))
	for r, t := range names {
		rank[t] = int32(r)
	}
	for i, t := range ls.texts {
		remap[i] = rank[t]
	}
	return names, remap
}

// checkLabel rejects labels that cannot name a class: empty text and
// non-finite numbers.
func checkLabel(text string) string {
	if text == "" {
		return "missing label"
	}
	if v, err := strconv.ParseFloat(text, 64); (err == nil || errors.Is(err, strconv.ErrRange)) && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return fmt.Sprintf("non-finite label %q", text)
	}
	return ""
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDecimal parses the common plain decimals ("-12.375", "0.5", "7")
// whose digits form an integer m <= 2^53 with at most 22 of them after the
// point: the value is then m / 10^k, one correctly rounded division of
// exact operands (Clinger's fast path, the one strconv.ParseFloat takes for
// them too), so the result has ParseFloat's bits. ok is false for anything
// else, which goes to ParseFloat.
func fastDecimal(s string) (v float64, ok bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits > 19 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || m > 1<<53 || frac > 22 {
		return 0, false
	}
	v = float64(m) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// isDecimal reports whether s is an ordinary decimal number: an optional
// sign, digits with at most one decimal point (at least one digit), and an
// optional exponent (e or E, an optional sign, digits). Go's other
// spellings, which strconv.ParseFloat also takes ("1_000", "0x1p3"), are
// not numbers in a data file.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits, point := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
		} else if c == '.' && !point {
			point = true
		} else {
			break
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s)
}

// parseValue parses a feature value: an ordinary decimal number (isDecimal).
// It returns a message (empty if ok).
func parseValue(s string) (float64, string) {
	if v, ok := fastDecimal(s); ok {
		return v, ""
	}
	if !isDecimal(s) {
		v, err := strconv.ParseFloat(s, 64)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return 0, fmt.Sprintf("non-finite value %q", s) // NaN, Inf, Infinity
		}
		msg := fmt.Sprintf("cannot parse %q as a number", s)
		switch {
		case err == nil || errors.Is(err, strconv.ErrRange): // Go's syntax: 1_000, 0x1p3
			msg += " (ordinary decimal numbers only, such as 12, -0.5 or 1e-3)"
		case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, `'`):
			msg += " (quoted fields are not supported)"
		}
		return 0, msg
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			if math.IsInf(v, 0) {
				return 0, fmt.Sprintf("non-finite value %q (overflows float64)", s)
			}
			return v, "" // underflow: the nearest float64 (0 or subnormal) is fine
		}
		msg := fmt.Sprintf("cannot parse %q as a number", s)
		if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, `'`) {
			msg += " (quoted fields are not supported)"
		}
		return 0, msg
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("non-finite value %q", s)
	}
	return v, ""
}

// standardize z-scores each column of the n×d row-major matrix x with the
// population standard deviation. A constant column becomes all zeros.
// Each column is first scaled by a power of two (exact), so the sums cannot
// overflow; the result equals the unscaled textbook formula.
func standardize(x []float64, n, d int) {
	if n == 0 {
		return
	}
	for j := 0; j < d; j++ {
		lo, hi := x[j], x[j]
		for i := 1; i < n; i++ {
			v := x[i*d+j]
			lo = min(lo, v)
			hi = max(hi, v)
		}
		if lo == hi {
			for i := 0; i < n; i++ {
				x[i*d+j] = 0
			}
			continue
		}
		_, e := math.Frexp(max(math.Abs(lo), math.Abs(hi))) // max|x| < 2^e
		sum := 0.0
		for i := 0; i < n; i++ {
			sum += math.Ldexp(x[i*d+j], -e)
		}
		mean := sum / float64(n)
		ss := 0.0
		for i := 0; i < n; i++ {
			c := math.Ldexp(x[i*d+j], -e) - mean
			ss += c * c
		}
		sd := math.Sqrt(ss / float64(n))
		if sd == 0 || math.IsNaN(sd) {
			for i := 0; i < n; i++ {
				x[i*d+j] = 0
			}
			continue
		}
		for i := 0; i < n; i++ {
			x[i*d+j] = (math.Ldexp(x[i*d+j], -e) - mean) / sd
		}
	}
}

// columnMean returns the mean of vals without overflow (power-of-two scaling).
func columnMean(vals []float64) float64 {
	m := 0.0
	for _, v := range vals {
		m = max(m, math.Abs(v))
	}
	if m == 0 {
		return 0
	}
	_, e := math.Frexp(m)
	sum := 0.0
	for _, v := range vals {
		sum += math.Ldexp(v, -e)
	}
	return math.Ldexp(sum/float64(len(vals)), e)
}

// columnMedian returns the median of vals (the mean of the two middle values
// for an even count); it sorts vals.
func columnMedian(vals []float64) float64 {
	slices.Sort(vals)
	n := len(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	a, b := vals[n/2-1], vals[n/2]
	if a == b {
		return a
	}
	return a/2 + b/2
}
