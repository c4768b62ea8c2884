package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Names of the built-in data sets accepted by Load.
const (
	SpecBreastCancer    = "breast-cancer"    // the embedded UCI Breast Cancer Wisconsin (Original) set
	SpecSynthetic       = "synthetic"        // the paper's set: Synthetic(DefaultSynthetic()) with LoadOptions.Seed
	SpecSyntheticAUC    = "synthetic-auc"    // SyntheticAUC at any N, Dim
	SpecSyntheticMetric = "synthetic-metric" // SyntheticMetric at any N, Dim, Classes
)

// Defaults of Load for the synthetic sets when N, Dim or Classes is 0.
const (
	DefaultAUCN          = 1000 // synthetic-auc points
	DefaultAUCDim        = 16   // synthetic-auc dimension
	DefaultAUCSeparation = 2.0  // synthetic-auc distance between the class means
	DefaultAUCPositive   = 0.5  // synthetic-auc fraction of positives
	DefaultSubspace      = 5    // synthetic-metric subspace dimension S (min(5, Dim))
)

// LoadOptions configures Load.
type LoadOptions struct {
	// Seed is the seed of the synthetic data sets.
	Seed uint64
	// N, Dim and Classes size "synthetic-auc" (N, Dim; Classes must be 0 or
	// 2) and "synthetic-metric" (all three); 0 means the default (for
	// synthetic-metric the paper's 1000, 40, 10; for synthetic-auc
	// DefaultAUCN, DefaultAUCDim). They must be 0 for every other data set:
	// "synthetic" is the paper's set as published, and a file has its own
	// size.
	N, Dim, Classes int
	// Separation is the distance between the class means of
	// "synthetic-auc" (0: DefaultAUCSeparation; SyntheticAUC itself accepts
	// 0, no signal) and PositiveFraction its fraction of positives
	// (0: DefaultAUCPositive).
	Separation, PositiveFraction float64
	// Workers is the number of goroutines for generating synthetic data and
	// parsing CSV and NumPy files (0: GOMAXPROCS). Results do not depend on it.
	Workers int
	// MaxElements limits N·D of the synthetic data sets and NumPy files
	// (0: DefaultMaxElements, negative: no limit); CSV and LIBSVM files use
	// the limits in their own options.
	MaxElements int64
	// CSV is used when the specification is a CSV file.
	CSV CSVOptions
	// LIBSVM is used when the specification is a LIBSVM file.
	LIBSVM LIBSVMOptions
	// NPY is used when the specification is a NumPy .npy or .npz file; its
	// Workers and MaxElements default to the ones above when 0.
	NPY NPYOptions
}

// Load returns the data set named by spec:
//
//   - "breast-cancer": BreastCancer();
//   - "synthetic": Synthetic(DefaultSynthetic()) with Seed = opt.Seed, the
//     paper's set (N = 1000, D = 40, K = 10, S = 5) bit for bit;
//   - "synthetic-auc": SyntheticAUC with opt.N, opt.Dim, opt.Separation,
//     opt.PositiveFraction, opt.Seed (zeros: the defaults above);
//   - "synthetic-metric": SyntheticMetric with N = opt.N, D = opt.Dim,
//     K = opt.Classes (zeros: 1000, 40, 10), S = min(5, D), MeanScale = 1,
//     Sigma = 0.5 and opt.Seed — the paper's model at any size, from the
//     counter-based generator (so not the same numbers as "synthetic");
//   - otherwise spec is a file path. Files ending in .npy are read with
//     LoadNPY (the labels from opt.NPY.Labels or the y.npy beside an X.npy,
//     see NPYLabelsPath), files ending in .npz with LoadNPZ, files ending in
//     .svm or .libsvm as LIBSVM and files ending in .csv as CSV. For any
//     other name (.txt, .data, none, ...) the content decides: NumPy's magic
//     bytes mean .npy, a zip archive means .npz, and otherwise the first
//     non-blank, non-comment line: if its second white-space-separated token
//     looks like index:value, LIBSVM, otherwise CSV.
//
// A path that does not exist is an error naming it and the built-in names.
func Load(spec string, opt LoadOptions) (*Dataset, error) {
	switch spec {
	case SpecSyntheticAUC:
		return loadSyntheticAUC(opt)
	case SpecSyntheticMetric:
		return loadSyntheticMetric(opt)
	case "":
		return nil, fmt.Errorf("dataset: no data set given (use one of %s or a file path)", builtinNames())
	}
	if err := opt.noSizes(spec); err != nil {
		return nil, err
	}
	switch spec {
	case SpecBreastCancer:
		return BreastCancer()
	case SpecSynthetic:
		cfg := DefaultSynthetic()
		cfg.Seed = opt.Seed
		return Synthetic(cfg)
	}
	st, err := os.Stat(spec)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dataset: %q: no such file (and not a built-in data set: %s)", spec, builtinNames())
		}
		return nil, fmt.Errorf("dataset: %w", err)
	}
	npy := opt.NPY
	if npy.Workers == 0 {
		npy.Workers = opt.Workers
	}
	if npy.MaxElements == 0 {
		npy.MaxElements = opt.MaxElements
	}
	csv := opt.CSV
	if csv.Workers == 0 {
		csv.Workers = opt.Workers
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return loadStream(spec, opt.LIBSVM, csv)
	}
	switch sniffFormat(spec) {
	case formatNPY:
		return LoadNPY(spec, npy)
	case formatNPZ:
		return LoadNPZ(spec, npy)
	case formatLIBSVM:
		return LoadLIBSVM(spec, opt.LIBSVM)
	}
	return LoadCSV(spec, csv)
}

// File formats Load tells apart.
const (
	formatCSV = iota
	formatLIBSVM
	formatNPY
	formatNPZ
)

// sniffFormat decides the format of a file for Load: by extension, then by
// content.
func sniffFormat(path string) int {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return formatNPY
	case ".npz":
		return formatNPZ
	case ".svm", ".libsvm":
		return formatLIBSVM
	case ".csv":
		return formatCSV
	}
	f, err := os.Open(path)
	if err != nil {
		return formatCSV // LoadCSV will report the error
	}
	defer f.Close()
	var magic [6]byte
	if n, _ := io.ReadFull(f, magic[:]); n == 6 {
		switch {
		case string(magic[:]) == npyMagic:
			return formatNPY
		case string(magic[:4]) == "PK\x03\x04":
			return formatNPZ
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return formatCSV
	}
	if sniffLIBSVM(bufio.NewReaderSize(f, 64<<10)) {
		return formatLIBSVM
	}
	return formatCSV
}

// loadStream reads data that is not a regular file: a pipe (--data
// <(cat f.csv), /dev/stdin), a FIFO or a device. The stream is opened once
// and read once: the format is sniffed from a buffered prefix that the
// parser then reads again (reopening a pipe would find it empty). Only the
// text formats can be streamed; the reads are bounded by the size limit
// and the longest line (MaxLineBytes), so /dev/zero is an error, not a
// process that grows until the machine runs out of memory.
func loadStream(path string, lopt LIBSVMOptions, copt CSVOptions) (*Dataset, error) {
	lim := resolveLimits(copt.MaxFileBytes, 0).bytes
	f, err := openData(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, sniffBytes)
	head, _ := br.Peek(sniffBytes) // what there is, up to sniffBytes
	var ds *Dataset
	switch format := sniffHead(path, head); format {
	case formatNPY, formatNPZ:
		return nil, &ParseError{File: path, Msg: "NumPy data must be a regular file, not a pipe or a device (the loader maps it, and reads the labels from a file beside it)"}
	case formatLIBSVM:
		ds, err = ParseLIBSVM(br, path, lopt)
	default:
		copt.Workers = 1 // the streaming parser
		ds, err = ParseCSV(br, path, copt)
	}
	if err != nil {
		return nil, err
	}
	ds.Name = baseName(path)
	return ds, nil
}

// sniffBytes is the prefix sniffFormat and loadStream look at.
const sniffBytes = 64 << 10

// sniffHead decides the format from the name, else from the first bytes of
// the content (as sniffFormat does for a file).
func sniffHead(path string, head []byte) int {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return formatNPY
	case ".npz":
		return formatNPZ
	case ".svm", ".libsvm":
		return formatLIBSVM
	case ".csv":
		return formatCSV
	}
	switch {
	case len(head) >= 6 && string(head[:6]) == npyMagic:
		return formatNPY
	case len(head) >= 4 && string(head[:4]) == "PK\x03\x04":
		return formatNPZ
	case sniffLIBSVM(bufio.NewReaderSize(bytes.NewReader(head), sniffBytes)):
		return formatLIBSVM
	}
	return formatCSV
}

// builtinNames lists the names Load accepts besides file paths.
func builtinNames() string {
	return fmt.Sprintf("%q, %q, %q, %q", SpecBreastCancer, SpecSynthetic, SpecSyntheticAUC, SpecSyntheticMetric)
}

// noSizes rejects the synthetic-only options for other data sets.
func (opt LoadOptions) noSizes(spec string) error {
	var set []string
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"N", opt.N != 0}, {"Dim", opt.Dim != 0}, {"Classes", opt.Classes != 0},
		{"Separation", opt.Separation != 0}, {"PositiveFraction", opt.PositiveFraction != 0},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	what := fmt.Sprintf("%q has a fixed size", spec)
	if spec == SpecSynthetic {
		what = fmt.Sprintf("%q is the paper's set (N = 1000, D = 40, 10 classes); use %q or %q for other sizes", spec, SpecSyntheticMetric, SpecSyntheticAUC)
	}
	return fmt.Errorf("dataset: LoadOptions %s set, but %s", strings.Join(set, ", "), what)
}

func loadSyntheticAUC(opt LoadOptions) (*Dataset, error) {
	cfg := SyntheticAUCConfig{N: DefaultAUCN, D: DefaultAUCDim, Separation: DefaultAUCSeparation, PositiveFraction: DefaultAUCPositive,
		Seed: opt.Seed, Workers: opt.Workers, MaxElements: opt.MaxElements}
	if opt.Classes != 0 && opt.Classes != 2 {
		return nil, fmt.Errorf("dataset: %s: Classes = %d: the AUC set has 2 classes (use %s for more)", SpecSyntheticAUC, opt.Classes, SpecSyntheticMetric)
	}
	if err := sizeOpt(SpecSyntheticAUC, "N", opt.N, 2, &cfg.N); err != nil {
		return nil, err
	}
	if err := sizeOpt(SpecSyntheticAUC, "Dim", opt.Dim, 1, &cfg.D); err != nil {
		return nil, err
	}
	if opt.Separation != 0 {
		cfg.Separation = opt.Separation
	}
	if opt.PositiveFraction != 0 {
		cfg.PositiveFraction = opt.PositiveFraction
	}
	return SyntheticAUC(cfg)
}

func loadSyntheticMetric(opt LoadOptions) (*Dataset, error) {
	cfg := DefaultSynthetic()
	cfg.Seed, cfg.Workers, cfg.MaxElements = opt.Seed, opt.Workers, opt.MaxElements
	if opt.Separation != 0 || opt.PositiveFraction != 0 {
		return nil, fmt.Errorf("dataset: %s: Separation and PositiveFraction apply to %s only", SpecSyntheticMetric, SpecSyntheticAUC)
	}
	if err := sizeOpt(SpecSyntheticMetric, "N", opt.N, 2, &cfg.N); err != nil {
		return nil, err
	}
	if err := sizeOpt(SpecSyntheticMetric, "Dim", opt.Dim, 1, &cfg.D); err != nil {
		return nil, err
	}
	if err := sizeOpt(SpecSyntheticMetric, "Classes", opt.Classes, 2, &cfg.K); err != nil {
		return nil, err
	}
	if cfg.N < cfg.K {
		return nil, fmt.Errorf("dataset: %s: N = %d, Classes = %d: need at least one point per class (N >= Classes)", SpecSyntheticMetric, cfg.N, cfg.K)
	}
	cfg.S = min(DefaultSubspace, cfg.D)
	return SyntheticMetric(cfg)
}

// sizeOpt sets *dst to v unless v is 0 (the default), checking v >= least.
func sizeOpt(spec, name string, v, least int, dst *int) error {
	if v == 0 {
		return nil
	}
	if v < least {
		return fmt.Errorf("dataset: %s: %s = %d: need %s >= %d", spec, name, v, name, least)
	}
	*dst = v
	return nil
}

// sniffLIBSVM looks at the first non-blank, non-comment line (within the
// first 64 KiB) for a "label index:value" start.
func sniffLIBSVM(r *bufio.Reader) bool {
	for range 1000 {
		line, err := r.ReadSlice('\n')
		s := string(line)
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		tok := strings.Fields(s)
		if len(tok) > 0 {
			if len(tok) < 2 || strings.Contains(tok[0], ":") || strings.Contains(tok[0], ",") {
				return false
			}
			i := strings.IndexByte(tok[1], ':')
			if i <= 0 {
				return false
			}
			for _, c := range tok[1][:i] {
				if c < '0' || c > '9' {
					return false
				}
			}
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}

// GeneratedSize returns the size of the data set Load would generate for a
// built-in generated spec (synthetic, synthetic-auc, synthetic-metric) with
// opt, without generating it, so that a memory estimate can come before
// the allocation; ok is false for any other spec (a file is sized by
// reading it) and for options Load would refuse.
func GeneratedSize(spec string, opt LoadOptions) (n, d int, ok bool) {
	switch spec {
	case SpecSynthetic:
		c := DefaultSynthetic()
		return c.N, c.D, true
	case SpecSyntheticAUC:
		n, d = DefaultAUCN, DefaultAUCDim
	case SpecSyntheticMetric:
		c := DefaultSynthetic()
		n, d = c.N, c.D
	default:
		return 0, 0, false
	}
	if sizeOpt(spec, "N", opt.N, 2, &n) != nil || sizeOpt(spec, "Dim", opt.Dim, 1, &d) != nil {
		return 0, 0, false
	}
	return n, d, true
}
