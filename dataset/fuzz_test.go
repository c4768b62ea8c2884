package dataset

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzLimits keep fuzz inputs from asking for huge matrices.
const (
	fuzzMaxBytes    = 1 << 20
	fuzzMaxElements = 1 << 16
)

// checkParsed parses twice and checks what the parsers promise beyond
// Validate (which they run themselves): an error comes with no dataset; no
// more rows than lines; the same result both times; a standardised column
// has mean square 1, or is all zero when constant. It returns the dataset
// (nil after an error).
func checkParsed(t *testing.T, data []byte, std bool, parse func() (*Dataset, error)) *Dataset {
	t.Helper()
	ds, err := parse()
	if err != nil {
		if ds != nil {
			t.Fatalf("non-nil dataset with error %v", err)
		}
		return nil
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; ds.N > lines {
		t.Fatalf("%d rows from %d lines", ds.N, lines)
	}
	again, err := parse()
	if err != nil || !slices.Equal(again.Class, ds.Class) || !slices.EqualFunc(again.X, ds.X, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
		t.Fatalf("a second parse differs (err %v)", err)
	}
	if std {
		for j := 0; j < ds.D; j++ {
			var ss float64
			for i := 0; i < ds.N; i++ {
				ss += ds.X[i*ds.D+j] * ds.X[i*ds.D+j]
			}
			if ms := ss / float64(ds.N); ms != 0 && math.Abs(ms-1) > 1e-9 {
				t.Fatalf("standardised column %d has mean square %v", j, ms)
			}
		}
	}
	return ds
}

func FuzzParseCSV(f *testing.F) {
	// The first lines of the real data file, including a '?' row (line 24).
	lines := bytes.SplitAfter(breastCancerData, []byte("\n"))
	f.Add(bytes.Join(lines[:5], nil), 11, uint8(2), uint8(0), true, 1)
	f.Add(bytes.Join(lines[20:26], nil), 11, uint8(2), uint8(0), true, 1)
	f.Add(bytes.Join(lines[20:26], nil), 0, uint8(0), uint8(1), false, 0)
	f.Add([]byte("id,a,b,label\n101,1,2,yes\n102,?,4,no\n103,3,?,yes\n"), 0, uint8(0), uint8(0), true, 1)
	f.Add([]byte("+1 0.5 1\r\n-1 1.5\t2\r\n"), 1, uint8(0), uint8(1), false, 0)
	f.Add([]byte("1,,0\n2,,1\n"), -1, uint8(1), uint8(2), true, 0)
	f.Add([]byte("\ufeff1e308,-1e308,0\n1.7e308,5,1\n"), 0, uint8(0), uint8(0), true, 0)
	f.Add([]byte("1,NaN,0\n"), 0, uint8(0), uint8(0), false, 0)
	f.Add([]byte(""), 0, uint8(0), uint8(0), false, 0)
	// Issue #15: Go's number syntax (refused), columns named in a header
	// (header >= 128 below).
	f.Add([]byte("1_000,2,1\n3,4,0\n"), 0, uint8(0), uint8(0), false, 0)
	f.Add([]byte("0x1p3,2,1\n3,4,0\n"), 0, uint8(2), uint8(0), false, 0)
	f.Add([]byte("id,label,a,b\n101,yes,1,2\n102,no,3,1\n"), 0, uint8(128), uint8(0), false, 0)
	f.Add([]byte("id,label,a\n101,yes,1\n"), 2, uint8(130), uint8(0), false, 0)
	f.Fuzz(func(t *testing.T, data []byte, labelCol int, header, impute uint8, std bool, drop int) {
		opt := CSVOptions{
			LabelColumn:  labelCol,
			Header:       HeaderMode(header % 4),
			Impute:       []string{"", ImputeMedian, ImputeMean, ImputeError, "bad"}[impute%5],
			Standardize:  std,
			MaxFileBytes: fuzzMaxBytes,
			MaxElements:  fuzzMaxElements,
		}
		if drop != 0 {
			opt.DropColumns = []int{drop}
		}
		if header >= 128 { // columns by name (--label-name, --drop-columns id)
			opt.LabelName, opt.DropNames = "label", []string{"id"}
		}
		checkParsed(t, data, std, func() (*Dataset, error) { return ParseCSV(bytes.NewReader(data), "fuzz.csv", opt) })
	})
}

func FuzzParseLIBSVM(f *testing.F) {
	f.Add([]byte("# c\n+1 1:0.5 3:-1 # t\n-1 2:2\n\n-1\t1:1 2:1 3:1\n"), 0, false)
	f.Add([]byte("1 1:1\n-1 0:1\n"), 0, true)
	f.Add([]byte("1 1:1\n-1 3:1 2:1\n"), 4, false)
	f.Add([]byte("1\n-1\n"), 2, true)
	f.Add([]byte("4 1:5 2:1 3:1 4:1 5:2 6:1 7:3 8:1 9:1\n2 1:5 2:4 3:4 4:5 5:7 6:10 7:3 8:2 9:1\n"), 9, true)
	f.Add([]byte("1 1:1e308 2:-1e308\n-1 1:-1.7e308\n"), 0, true)
	f.Add([]byte("1 1:NaN\n"), 0, false)
	f.Add([]byte("1 1:1_000\n-1 1:2\n"), 0, false)
	f.Add([]byte("1 1:0x1p3\n-1 2:1\n"), 2, false)
	f.Add([]byte(""), 0, false)
	// The first lines of the real data file (a CSV: must fail cleanly).
	f.Add(breastCancerData[:200], 0, false)
	f.Fuzz(func(t *testing.T, data []byte, d int, std bool) {
		opt := LIBSVMOptions{D: d, Standardize: std, MaxFileBytes: fuzzMaxBytes, MaxElements: fuzzMaxElements}
		ds := checkParsed(t, data, std, func() (*Dataset, error) { return ParseLIBSVM(bytes.NewReader(data), "fuzz.svm", opt) })
		if ds != nil && d > 0 && ds.D != d {
			t.Fatalf("forced D = %d, got %d", d, ds.D)
		}
	})
}

// npyFixture returns a file of testdata/npy (for seed corpora).
func npyFixture(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "npy", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// checkNPY checks what ParseNPY and ParseNPZ promise: an error comes with no
// dataset, a dataset is valid and within the element limit.
func checkNPY(t *testing.T, ds *Dataset, err error) {
	t.Helper()
	if err != nil {
		if ds != nil {
			t.Fatalf("non-nil dataset with error %v", err)
		}
		return
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if int64(ds.N)*int64(ds.D) > fuzzMaxElements || ds.Mapped() {
		t.Fatalf("N×D = %d×%d, mapped %v", ds.N, ds.D, ds.Mapped())
	}
}

func FuzzParseNPY(f *testing.F) {
	for _, p := range [][2]string{{"X.npy", "y.npy"}, {"f4_X.npy", "f4_y.npy"}, {"fortran_X.npy", "fortran_y.npy"},
		{"v2_X.npy", "v2_y.npy"}, {"v3_X.npy", "v3_y.npy"}, {"be_X.npy", "be_y.npy"}, {"int_X.npy", "int_y.npy"}} {
		f.Add(npyFixture(f, p[0]), npyFixture(f, p[1]))
	}
	y := npyFixture(f, "y.npy")
	f.Add([]byte(npyMagic+"\x01\x00\xff\xff{"), y)
	f.Add([]byte(npyMagic+"\x02\x00\xff\xff\xff\x7f"), y)
	f.Add([]byte(npyMagic+"\x01\x00\x40\x00{'descr': '<f8', 'fortran_order': False, 'shape': (1125899906842624, 9), }\n"), y)
	f.Add([]byte(npyMagic+"\x01\x00\x30\x00{'descr':'|b1','fortran_order':True,'shape':(5L,)}\n"), y)
	f.Fuzz(func(t *testing.T, x, y []byte) {
		ds, err := ParseNPY(bytes.NewReader(x), bytes.NewReader(y), "fuzz.npy", NPYOptions{MaxElements: fuzzMaxElements})
		checkNPY(t, ds, err)
	})
}

func FuzzParseNPZ(f *testing.F) {
	for _, name := range []string{"data.npz", "compressed.npz", "positional.npz"} {
		f.Add(npyFixture(f, name))
	}
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseNPZ(bytes.NewReader(data), int64(len(data)), "fuzz.npz", NPYOptions{MaxElements: fuzzMaxElements})
		checkNPY(t, ds, err)
	})
}
