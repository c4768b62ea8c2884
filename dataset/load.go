package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Names of the built-in data sets accepted by Load.
const (
	SpecBreastCancer = "breast-cancer" // the embedded UCI Breast Cancer Wisconsin (Original) set
	SpecSynthetic    = "synthetic"     // Synthetic(DefaultSynthetic()) with LoadOptions.Seed
)

// LoadOptions configures Load.
type LoadOptions struct {
	// Seed is the seed of the "synthetic" data set.
	Seed uint64
	// CSV is used when the specification is a CSV file.
	CSV CSVOptions
	// LIBSVM is used when the specification is a LIBSVM file.
	LIBSVM LIBSVMOptions
}

// Load returns the data set named by spec:
//
//   - "breast-cancer": BreastCancer();
//   - "synthetic": Synthetic(DefaultSynthetic()) with Seed = opt.Seed;
//   - otherwise spec is a file path. Files ending in .svm or .libsvm are read
//     as LIBSVM and files ending in .csv as CSV; for any other name (.txt,
//     .data, none, ...) the first non-blank, non-comment line decides: if its
//     second white-space-separated token looks like index:value, LIBSVM,
//     otherwise CSV.
//
// A path that does not exist is an error naming it and the built-in names.
func Load(spec string, opt LoadOptions) (*Dataset, error) {
	switch spec {
	case SpecBreastCancer:
		return BreastCancer()
	case SpecSynthetic:
		cfg := DefaultSynthetic()
		cfg.Seed = opt.Seed
		return Synthetic(cfg)
	case "":
		return nil, fmt.Errorf("dataset: no data set given (use %q, %q or a file path)", SpecBreastCancer, SpecSynthetic)
	}
	if _, err := os.Stat(spec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dataset: %q: no such file (and not a built-in data set: %q, %q)", spec, SpecBreastCancer, SpecSynthetic)
		}
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if isLIBSVMPath(spec) {
		return LoadLIBSVM(spec, opt.LIBSVM)
	}
	return LoadCSV(spec, opt.CSV)
}

// isLIBSVMPath decides the format of a file for Load.
func isLIBSVMPath(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svm", ".libsvm":
		return true
	case ".csv":
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false // LoadCSV will report the error
	}
	defer f.Close()
	return sniffLIBSVM(bufio.NewReaderSize(f, 64<<10))
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
