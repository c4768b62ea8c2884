package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LIBSVMOptions configures ParseLIBSVM and LoadLIBSVM.
type LIBSVMOptions struct {
	// D forces the dimension: indices above D are an error. 0 means the
	// largest index seen.
	D int
	// Standardize z-scores each feature (population std; a constant column
	// becomes 0), after the sparse rows are made dense.
	Standardize bool
	// MaxFileBytes limits the input size: 0 means DefaultMaxFileBytes,
	// negative means no limit.
	MaxFileBytes int64
	// MaxElements limits N·D of the dense matrix: 0 means
	// DefaultMaxElements, negative means no limit.
	MaxElements int64
}

// LoadLIBSVM reads a LIBSVM-format file; see ParseLIBSVM. Errors name the
// path. The dataset's Name is the file name without its extension.
func LoadLIBSVM(path string, opt LIBSVMOptions) (*Dataset, error) {
	f, err := openData(path, resolveLimits(opt.MaxFileBytes, 0).bytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds, err := ParseLIBSVM(f, path, opt)
	if err != nil {
		return nil, err
	}
	ds.Name = baseName(path)
	return ds, nil
}

// ParseLIBSVM reads the sparse LIBSVM format from r; name is used in error
// messages and as the dataset's Name.
//
// Format: one point per line, "label index:value index:value ...", fields
// separated by spaces or tabs, indices 1-based and strictly increasing;
// absent indices are zeros. Everything from '#' to the end of a line is a
// comment; blank lines are skipped. Labels follow the same rules as CSV
// labels (see the package documentation). The matrix is made dense: N rows
// by D = opt.D or, if 0, the largest index seen.
//
// Errors are *ParseError values naming the file and the 1-based line: empty
// input, index 0 or negative, non-increasing indices, a token that is not
// index:value, an unparsable or non-finite value, an index above opt.D, no
// features at all, a single class, or an input over the size limits.
func ParseLIBSVM(r io.Reader, name string, opt LIBSVMOptions) (*Dataset, error) {
	lim := resolveLimits(opt.MaxFileBytes, opt.MaxElements)
	p := csvParser{name: name, lim: lim} // for errf and sizeErr
	if opt.D < 0 {
		return nil, p.errf(0, 0, "LIBSVMOptions.D = %d must be >= 0", opt.D)
	}
	p.lr = &limitedReader{r: r, limit: lim.bytes}
	sc := newLineScanner(p.lr, lim.bytes)

	var (
		lineNo int
		rowPtr = []int{0}
		idx    []int32
		val    []float64
		prov   []int32
		labels labelSet
		maxIdx int
		tokens []string
	)
	// The index bound: a forced D, or what the element limit can hold.
	idxBound := int64(1<<31 - 1)
	if opt.D > 0 {
		idxBound = min(idxBound, int64(opt.D))
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		tokens = splitFields(tokens, line, false)
		if len(tokens) == 0 {
			continue
		}
		lt := tokens[0]
		if strings.IndexByte(lt, ':') >= 0 {
			return nil, p.errf(lineNo, 0, "missing label: the line starts with %q (a LIBSVM line is \"label index:value ...\")", lt)
		}
		if msg := checkLabel(lt); msg != "" {
			return nil, p.errf(lineNo, 0, "%s", msg)
		}
		if strings.IndexByte(lt, ',') >= 0 {
			return nil, p.errf(lineNo, 0, "label %q contains a comma: this looks like a CSV file, not LIBSVM", lt)
		}
		prev := int64(0)
		for _, tok := range tokens[1:] {
			colon := strings.IndexByte(tok, ':')
			if colon < 0 {
				return nil, p.errf(lineNo, 0, "bad token %q (want index:value)", tok)
			}
			is, vs := tok[:colon], tok[colon+1:]
			k, err := strconv.ParseInt(is, 10, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(is, "-") {
					return nil, p.errf(lineNo, 0, "index %s in %q is too large", is, tok)
				}
				if !errors.Is(err, strconv.ErrRange) {
					return nil, p.errf(lineNo, 0, "bad index %q in %q (want a positive integer)", is, tok)
				}
			}
			switch {
			case k == 0:
				return nil, p.errf(lineNo, 0, "index 0 in %q (indices are 1-based)", tok)
			case k < 0:
				return nil, p.errf(lineNo, 0, "negative index in %q (indices are 1-based)", tok)
			case k <= prev:
				return nil, p.errf(lineNo, 0, "index %d in %q after index %d: indices must be strictly increasing", k, tok, prev)
			case opt.D > 0 && k > int64(opt.D):
				return nil, p.errf(lineNo, 0, "index %d in %q exceeds the dimension %d given by --libsvm-dim (LIBSVMOptions.D)", k, tok, opt.D)
			case k > idxBound:
				return nil, p.errf(lineNo, 0, "index %d in %q is too large", k, tok)
			}
			v, msg := parseValue(vs)
			if msg != "" {
				return nil, p.errf(lineNo, 0, "%s in %q", msg, tok)
			}
			prev = k
			idx = append(idx, int32(k))
			val = append(val, v)
			maxIdx = max(maxIdx, int(k))
		}
		rows := len(prov) + 1
		d := maxIdx
		if opt.D > 0 {
			d = opt.D
		}
		if lim.overElements(int64(rows), int64(d)) {
			return nil, &ParseError{File: name, Line: lineNo, Err: ErrTooLarge,
				Msg: lim.elementsMsg(int64(rows), int64(d), true, raiseElements)}
		}
		prov = append(prov, labels.add(lt))
		rowPtr = append(rowPtr, len(idx))
	}
	if err := sc.Err(); err != nil {
		if p.lr.over {
			return nil, p.sizeErr()
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, p.errf(lineNo+1, 0, "line longer than %d bytes (%s), the longest a data line may be", MaxLineBytes, humanBytes(MaxLineBytes))
		}
		return nil, &ParseError{File: name, Line: lineNo, Msg: "read error: " + err.Error(), Err: err}
	}
	n := len(prov)
	if n == 0 {
		return nil, p.errf(0, 0, "empty file (no data lines)")
	}
	d := maxIdx
	if opt.D > 0 {
		d = opt.D
	}
	if d == 0 {
		return nil, p.errf(0, 0, "no features: no line has an index:value pair (give the dimension with --libsvm-dim, LIBSVMOptions.D in Go, for all-zero data)")
	}
	names, remap := labels.finish()
	if len(names) < 2 {
		return nil, p.errf(0, 0, "only one class (%q) — pairwise objectives need at least two", names[0])
	}
	x := make([]float64, n*d)
	class := make([]int32, n)
	for i := 0; i < n; i++ {
		class[i] = remap[prov[i]]
		row := x[i*d : (i+1)*d]
		for e := rowPtr[i]; e < rowPtr[i+1]; e++ {
			row[idx[e]-1] = val[e]
		}
	}
	if opt.Standardize {
		standardize(x, n, d)
	}
	ds := &Dataset{Name: name, N: n, D: d, X: x, Class: class, ClassNames: names}
	ds.Source = fmt.Sprintf("%s: LIBSVM, %d rows, %d features, %d stored entries", name, n, d, len(idx))
	if opt.Standardize {
		ds.Source += ", standardized (z-score, population std)"
	}
	if err := ds.Validate(); err != nil { // cannot happen; a guard against parser bugs
		return nil, fmt.Errorf("dataset: internal error parsing %s: %w", name, err)
	}
	return ds, nil
}
