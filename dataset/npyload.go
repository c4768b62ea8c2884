package dataset

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unsafe"
)

// NPYOptions configures LoadNPY, LoadNPZ, ParseNPY and ParseNPZ.
type NPYOptions struct {
	// Labels is the path of a .npy file holding the labels. Empty: for
	// LoadNPY the file beside the features that LoadNPY's naming rule finds;
	// for LoadNPZ the labels array inside the archive.
	Labels string
	// LabelsName is what messages call the option that gives Labels
	// (empty: "NPYOptions.Labels"); a program that sets Labels from an
	// option of its own names that one (pairgossip: Config.LabelsFile).
	LabelsName string
	// Standardize z-scores each feature (population std; a constant column
	// becomes 0). The features are then read into memory, not mapped.
	Standardize bool
	// NoMap reads the features into memory even where they could be
	// memory-mapped.
	NoMap bool
	// Workers is the number of goroutines that convert and check the data
	// (0: GOMAXPROCS). The result does not depend on it.
	Workers int
	// MaxElements limits N·D: 0 means DefaultMaxElements, negative means no
	// limit. (NumPy files are not limited in bytes: the element limit bounds
	// the memory they take.)
	MaxElements int64
}

// Names of the arrays LoadNPZ looks for (file names in the archive, without
// ".npy").
var (
	npzFeatureNames = []string{"X", "x"}
	npzLabelNames   = []string{"y", "Y", "labels", "label"}
)

// npyFeatureBase matches the base name of a features file whose labels file
// LoadNPY can find: "X", "x", or a prefix ending in '_', '-' or '.' followed
// by X or x ("train_X", "mnist.x").
var npyFeatureBase = regexp.MustCompile(`^(|.*[_.-])[Xx]$`)

// labelsPath is the labels file of the features at xPath: opt.Labels when
// set, else NPYLabelsPath(xPath).
func (opt NPYOptions) labelsPath(xPath string) (string, error) {
	if opt.Labels != "" {
		return opt.Labels, nil
	}
	name := opt.LabelsName
	if name == "" {
		name = "NPYOptions.Labels"
	}
	return npyLabelsPath(xPath, name)
}

// NPYLabelsPath returns the labels file LoadNPY reads for the features file
// xPath when NPYOptions.Labels is empty: for a features file named
// PREFIX + "X" + ".npy" (PREFIX empty or ending in '_', '-' or '.', X upper
// or lower case), the first that exists of PREFIX + "y", "Y", "labels",
// "label" with the extension ".npy", in the same directory. It is an error
// when the name does not fit the pattern or no candidate exists.
func NPYLabelsPath(xPath string) (string, error) { return npyLabelsPath(xPath, "NPYOptions.Labels") }

// npyLabelsPath is NPYLabelsPath with the labels option called option in
// its messages.
func npyLabelsPath(xPath, option string) (string, error) {
	dir, file := filepath.Split(xPath)
	base := strings.TrimSuffix(file, filepath.Ext(file))
	m := npyFeatureBase.FindStringSubmatch(base)
	if m == nil {
		return "", &ParseError{File: xPath, Msg: "cannot tell where the labels are: name the features PREFIX_X.npy (or X.npy) with the labels in PREFIX_y.npy (or y.npy) beside them, or give the labels file (" + option + "), or use one .npz archive with arrays X and y"}
	}
	var tried []string
	for _, c := range npzLabelNames {
		p := filepath.Join(dir, m[1]+c+".npy")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		tried = append(tried, filepath.Base(p))
	}
	return "", &ParseError{File: xPath, Msg: fmt.Sprintf("no labels file beside the features: looked for %s in %s; give the labels file (%s) otherwise",
		strings.Join(tried, ", "), filepath.Clean(dir+"."), option)}
}

// LoadNPY reads a data set from NumPy .npy files: the features X from path
// (a 2-D array n×d, or 1-D for one feature) and the labels from
// opt.Labels or, if that is empty, from the file NPYLabelsPath names
// (e.g. X.npy → y.npy, train_X.npy → train_y.npy).
//
// Format versions 1.0, 2.0 and 3.0 are read, in C or Fortran order, with the
// element types float64, float32, int8/16/32/64, uint8/16/32/64 and bool
// (little- or big-endian). Features are converted to float64 and must be
// finite. Labels (1-D, or one column) may be of any of these types; they
// become classes in increasing numeric order, named by their shortest
// decimal text ("0", "1", "-1", "2.5"; bool labels are 0 and 1), so the
// larger of two labels is the positive class of Dataset.Binary. Integer
// labels must be exactly representable as float64 (|label| <= 2⁵³).
//
// Memory mapping: on Linux, when the features are little-endian float64 in C
// order (NumPy's default for float arrays) and neither Standardize nor NoMap
// is set, X is not read: the file is memory-mapped (copy-on-write, the file
// itself opened read-only and never written) and X points into the mapping,
// so a 10⁷×16 array costs neither a copy nor read time up front, and its
// pages are shared with the operating system's file cache. Only X stays
// mapped (the labels are always read), for as long as the program runs or
// until Dataset.Close; Dataset.Mapped reports it. While it is mapped the
// file must not be truncated or rewritten in place (numpy.save to the same
// path does that): reading a page that is no longer in the file crashes the
// program. Every value is still read once at load time, to check that it is
// finite. In every other case X is read into memory of its own, converted in
// parallel.
//
// Errors are *ParseError values naming the file and what is wrong: not a
// .npy file (bad magic), an unsupported version or dtype, a header that is
// malformed or larger than MaxNPYHeaderBytes, a shape that is not a matrix,
// labels whose count differs from the rows of X, a file shorter than its
// header says (truncated), a non-finite value (with its [row, column]), a
// single class, or a size over MaxElements.
func LoadNPY(path string, opt NPYOptions) (*Dataset, error) {
	labels, err := opt.labelsPath(path)
	if err != nil {
		return nil, err
	}
	lim := resolveLimits(0, opt.MaxElements)
	fx, err := openNPYFile(path)
	if err != nil {
		return nil, err
	}
	defer fx.Close()
	x, err := readFileArray(fx, path, false, opt, lim)
	if err != nil {
		return nil, err
	}
	fy, err := openNPYFile(labels)
	if err != nil {
		x.release()
		return nil, err
	}
	defer fy.Close()
	y, err := readFileArray(fy, labels, true, opt, lim)
	if err != nil {
		x.release()
		return nil, err
	}
	src := fmt.Sprintf("%s: NumPy %s %s, labels %s %s", path, x.h.Dtype.Descr, x.h.ShapeString(), labels, y.h.Dtype.Descr)
	ds, err := assembleNPY(baseName(path), x, y, labels, src, opt)
	if err != nil {
		x.release()
		return nil, err
	}
	return ds, nil
}

// LoadNPZ reads a data set from a NumPy .npz archive (numpy.savez or
// numpy.savez_compressed): the features from the array named X (or x) and
// the labels from the array named y (or Y, labels, label) — for example
// numpy.savez("data.npz", X=X, y=y). An archive of exactly two unnamed
// arrays (numpy.savez("data.npz", X, y): arr_0, arr_1) is read as X, y.
// With opt.Labels set, the labels come from that .npy file instead and the
// archive needs only the features (X, x, or its only array).
//
// Arrays stored uncompressed (numpy.savez) are read like .npy files,
// including the memory mapping of the features (see LoadNPY) when they
// start at a multiple of 8 bytes in the archive (otherwise they are read);
// their zip checksums are not verified. Compressed arrays
// (numpy.savez_compressed: deflate) are decompressed as a stream into their
// final place, with the checksum verified; that is much slower (one core;
// bench/RESULTS.md, "Measurements cited by comments outside the engine").
// Element types, labels and errors are as for LoadNPY;
// errors name the archive and the array.
func LoadNPZ(path string, opt NPYOptions) (*Dataset, error) {
	f, err := openNPYFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var mapping []byte
	if canMap && !opt.NoMap {
		mapping, _ = mapFile(f, st.Size()) // nil on failure: read instead
	}
	ds, err := parseNPZ(f, st.Size(), path, mapping, opt)
	if err != nil || !ds.Mapped() {
		if mapping != nil {
			unmapFile(mapping)
		}
		if ds != nil {
			ds.mapping = nil
		}
	}
	if err != nil {
		return nil, err
	}
	ds.Name = baseName(path)
	return ds, nil
}

// ParseNPY reads the features from x and the labels from y, both in .npy
// format (see LoadNPY), reading each stream once in order; name is used in
// error messages and as the dataset's Name. Nothing is memory-mapped, and
// no more than MaxElements values are allocated for any input.
func ParseNPY(x, y io.Reader, name string, opt NPYOptions) (*Dataset, error) {
	lim := resolveLimits(0, opt.MaxElements)
	xa, err := readStreamArray(x, name+" (features)", false, -1, opt, lim)
	if err != nil {
		return nil, err
	}
	ya, err := readStreamArray(y, name+" (labels)", true, -1, opt, lim)
	if err != nil {
		return nil, err
	}
	src := fmt.Sprintf("%s: NumPy %s %s, labels %s", name, xa.h.Dtype.Descr, xa.h.ShapeString(), ya.h.Dtype.Descr)
	return assembleNPY(name, xa, ya, name+" (labels)", src, opt)
}

// ParseNPZ reads a .npz archive of size bytes from r (see LoadNPZ); name is
// used in error messages and as the dataset's Name. Nothing is
// memory-mapped; opt.Labels, if set, names a .npy file to read the labels
// from.
func ParseNPZ(r io.ReaderAt, size int64, name string, opt NPYOptions) (*Dataset, error) {
	return parseNPZ(r, size, name, nil, opt)
}

// openNPYFile opens a data file, refusing directories.
func openNPYFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &ParseError{File: path, Msg: "no such file", Err: err}
		}
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &ParseError{File: path, Msg: "is a directory, not a data file"}
	}
	return f, nil
}

// npyArray is one array read from a file: values row-major n×d.
type npyArray struct {
	h       npyHeader
	n, d    int
	v       []float64
	mapping []byte // the file mapping v points into (features only), or nil
}

// release unmaps the array's mapping, if it has one.
func (a *npyArray) release() {
	if a.mapping != nil {
		unmapFile(a.mapping)
		a.mapping, a.v = nil, nil
	}
}

// readFileArray reads a whole .npy file: memory-mapped where LoadNPY says.
func readFileArray(f *os.File, path string, labels bool, opt NPYOptions, lim limits) (*npyArray, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var mapping []byte
	if canMap && !opt.NoMap && st.Mode().IsRegular() && st.Size() > 0 {
		mapping, _ = mapFile(f, st.Size())
	}
	a, err := readRegionArray(f, mapping, 0, st.Size(), path, labels, opt, lim)
	if mapping != nil && (err != nil || a.mapping == nil) {
		unmapFile(mapping)
	}
	return a, err
}

// readRegionArray reads the .npy array stored in bytes [base, base+length)
// of ra. mapping, if not nil, is all of ra mapped into memory: the data are
// then taken from it, and the features point into it when they can (the
// returned array's mapping is set; the caller owns it).
func readRegionArray(ra io.ReaderAt, mapping []byte, base, length int64, name string, labels bool, opt NPYOptions, lim limits) (*npyArray, error) {
	bad := func(format string, args ...any) error {
		return &ParseError{File: name, Msg: fmt.Sprintf(format, args...)}
	}
	h, err := readNPYHeader(io.NewSectionReader(ra, base, length))
	if err != nil {
		return nil, bad("%v", err)
	}
	n, d, err := h.checkShape(labels, lim)
	if err != nil {
		return nil, &ParseError{File: name, Msg: err.Error(), Err: err}
	}
	if need := h.DataOff + h.DataBytes(); need > length {
		return nil, bad("truncated: shape %s of %s needs %d bytes after the %d-byte header, the file has %d",
			h.ShapeString(), h.Dtype.Descr, h.DataBytes(), h.DataOff, max(0, length-h.DataOff))
	}
	a := &npyArray{h: h, n: int(n), d: int(d)}
	off := base + h.DataOff
	cOrder := !h.Fortran || n == 1 || d == 1
	if mapping != nil && !labels && !opt.Standardize && h.Dtype.Descr == "<f8" && cOrder &&
		uintptr(unsafe.Pointer(&mapping[off]))%8 == 0 {
		a.v = unsafe.Slice((*float64)(unsafe.Pointer(&mapping[off])), n*d)
		a.mapping = mapping
		if err := checkFinite(a.v, opt.Workers); err != nil {
			err = a.valueErr(name, labels, err)
			a.mapping, a.v = nil, nil
			return nil, err
		}
		return a, nil
	}
	var src npySource = readerAtSource{r: ra, base: off}
	if mapping != nil {
		src = bytesSource(mapping[off : off+h.DataBytes()])
	}
	if labels {
		a.v = make([]float64, n*d)
	} else {
		a.v = newMatrix(int(n * d))
	}
	if err := decodeArray(a.v, src, h.Dtype, placement{n: a.n, d: a.d, fortran: h.Fortran}, opt.Workers); err != nil {
		return nil, a.valueErr(name, labels, err)
	}
	return a, nil
}

// readStreamArray reads a .npy array from a stream. declared is the
// stream's length if known (a zip member's size), else -1.
func readStreamArray(r io.Reader, name string, labels bool, declared int64, opt NPYOptions, lim limits) (*npyArray, error) {
	h, err := readNPYHeader(r)
	if err != nil {
		return nil, &ParseError{File: name, Msg: err.Error()}
	}
	n, d, err := h.checkShape(labels, lim)
	if err != nil {
		return nil, &ParseError{File: name, Msg: err.Error(), Err: err}
	}
	if declared >= 0 && h.DataOff+h.DataBytes() > declared {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("truncated: shape %s of %s needs %d bytes after the %d-byte header, the array has %d",
			h.ShapeString(), h.Dtype.Descr, h.DataBytes(), h.DataOff, max(0, declared-h.DataOff))}
	}
	a := &npyArray{h: h, n: int(n), d: int(d), v: make([]float64, n*d)}
	if err := decodeArray(a.v, readerSource{r}, h.Dtype, placement{n: a.n, d: a.d, fortran: h.Fortran}, 1); err != nil {
		return nil, a.valueErr(name, labels, err)
	}
	return a, nil
}

// valueErr describes an error from decoding a's data.
func (a *npyArray) valueErr(name string, labels bool, err error) error {
	var nf errNonFinite
	if errors.As(err, &nf) {
		i, j := nf.e/a.d, nf.e%a.d
		if a.h.Fortran {
			i, j = nf.e%a.n, nf.e/a.n
		}
		v := math.NaN()
		if a.v != nil {
			v = a.v[i*a.d+j]
		}
		if labels {
			return &ParseError{File: name, Msg: fmt.Sprintf("label [%d] is %v; labels must be finite", i, v)}
		}
		return &ParseError{File: name, Msg: fmt.Sprintf("element [%d, %d] is %v; features must be finite", i, j, v)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{File: name, Msg: fmt.Sprintf("truncated: the data end before the %d bytes that shape %s of %s needs",
			a.h.DataBytes(), a.h.ShapeString(), a.h.Dtype.Descr), Err: err}
	}
	return &ParseError{File: name, Msg: "read error: " + err.Error(), Err: err}
}

// assembleNPY builds the data set from the features and labels arrays.
func assembleNPY(name string, x, y *npyArray, yName, source string, opt NPYOptions) (*Dataset, error) {
	if y.n != x.n {
		return nil, &ParseError{File: yName, Msg: fmt.Sprintf("shape mismatch: %d labels for the %d rows of the features (shape %s)", y.n, x.n, x.h.ShapeString())}
	}
	if x.n < 2 {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("%d point(s); need at least 2", x.n)}
	}
	if y.h.Dtype.Kind == 'i' || y.h.Dtype.Kind == 'u' {
		for i, v := range y.v {
			if math.Abs(v) > 1<<53 {
				return nil, &ParseError{File: yName, Msg: fmt.Sprintf("label [%d] is %.0f, too large to keep exact (|label| <= 2^53)", i, v)}
			}
		}
	}
	class, names := classesFromValues(y.v, opt.Workers)
	if len(names) < 2 {
		return nil, &ParseError{File: yName, Msg: fmt.Sprintf("only one class (%q) — pairwise objectives need at least two", names[0])}
	}
	if opt.Standardize {
		standardize(x.v, x.n, x.d)
		source += ", standardized (z-score, population std)"
	}
	if x.mapping != nil {
		source += ", memory-mapped"
	}
	ds := &Dataset{Name: name, N: x.n, D: x.d, X: x.v, Class: class, ClassNames: names, Source: source, mapping: x.mapping}
	return ds, nil
}

// parseNPZ reads an archive from ra; mapping, if not nil, is all of ra in
// memory.
func parseNPZ(ra io.ReaderAt, size int64, path string, mapping []byte, opt NPYOptions) (*Dataset, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("not a .npz file (a zip archive of .npy files): %v", err), Err: err}
	}
	members := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		n := strings.TrimSuffix(f.Name, ".npy")
		if n == f.Name || members[n] != nil {
			continue
		}
		members[n] = f
		names = append(names, n)
	}
	slices.Sort(names)
	pick := func(role string, want []string) (*zip.File, error) {
		var found []string
		for _, w := range want {
			if members[w] != nil {
				found = append(found, w)
			}
		}
		switch len(found) {
		case 1:
			return members[found[0]], nil
		case 0:
			return nil, &ParseError{File: path, Msg: fmt.Sprintf("no %s array: the archive holds %s; name it %s (numpy.savez(path, X=X, y=y))",
				role, listNames(names), strings.Join(want, " or "))}
		}
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("ambiguous %s: the archive holds both %s", role, strings.Join(found, " and "))}
	}
	var fx, fy *zip.File
	switch {
	case opt.Labels != "" && len(names) == 1:
		fx = members[names[0]]
	case len(names) == 2 && members["arr_0"] != nil && members["arr_1"] != nil:
		fx, fy = members["arr_0"], members["arr_1"]
	default:
		if fx, err = pick("features", npzFeatureNames); err != nil {
			return nil, err
		}
		if opt.Labels == "" {
			if fy, err = pick("labels", npzLabelNames); err != nil {
				return nil, err
			}
		}
	}
	lim := resolveLimits(0, opt.MaxElements)
	x, err := readMember(ra, size, mapping, fx, path, false, opt, lim)
	if err != nil {
		return nil, err
	}
	var y *npyArray
	var yName string
	if opt.Labels != "" {
		yName = opt.Labels
		f, err := openNPYFile(opt.Labels)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		y, err = readFileArray(f, opt.Labels, true, opt, lim)
		if err != nil {
			return nil, err
		}
	} else {
		yName = path + ": " + fy.Name
		if y, err = readMember(ra, size, mapping, fy, path, true, opt, lim); err != nil {
			return nil, err
		}
	}
	src := fmt.Sprintf("%s: NumPy archive, %s %s %s, labels %s %s", path, fx.Name, x.h.Dtype.Descr, x.h.ShapeString(), yName, y.h.Dtype.Descr)
	return assembleNPY(baseName(path), x, y, yName, src, opt)
}

func listNames(names []string) string {
	if len(names) == 0 {
		return "no .npy arrays"
	}
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// readMember reads one array of the archive.
func readMember(ra io.ReaderAt, size int64, mapping []byte, f *zip.File, path string, labels bool, opt NPYOptions, lim limits) (*npyArray, error) {
	name := path + ": " + f.Name
	switch f.Method {
	case zip.Store:
		off, err := f.DataOffset()
		if err != nil {
			return nil, &ParseError{File: name, Msg: "bad zip entry: " + err.Error(), Err: err}
		}
		length := int64(f.CompressedSize64)
		if off < 0 || length < 0 || off > size || length > size-off {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("truncated archive: the member's %d bytes at offset %d run past the end of the %d-byte file", length, off, size)}
		}
		return readRegionArray(ra, mapping, off, length, name, labels, opt, lim)
	case zip.Deflate:
		rc, err := f.Open()
		if err != nil {
			return nil, &ParseError{File: name, Msg: "bad zip entry: " + err.Error(), Err: err}
		}
		defer rc.Close()
		a, err := readStreamArray(rc, name, labels, int64(min(f.UncompressedSize64, 1<<62)), opt, lim)
		if err != nil {
			return nil, err
		}
		// Read to the end so that the checksum is verified.
		if _, err := io.Copy(io.Discard, io.LimitReader(rc, 1<<20)); err != nil {
			return nil, &ParseError{File: name, Msg: "corrupt compressed data: " + err.Error(), Err: err}
		}
		return a, nil
	}
	return nil, &ParseError{File: name, Msg: fmt.Sprintf("compression method %d is not supported (only stored and deflated arrays, as numpy.savez and numpy.savez_compressed write)", f.Method)}
}
