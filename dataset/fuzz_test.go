package dataset

import (
	"bytes"
	"testing"
)

// fuzzLimits keep fuzz inputs from asking for huge matrices.
const (
	fuzzMaxBytes    = 1 << 20
	fuzzMaxElements = 1 << 16
)

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
		ds, err := ParseCSV(bytes.NewReader(data), "fuzz.csv", opt)
		if err != nil {
			if ds != nil {
				t.Fatalf("non-nil dataset with error %v", err)
			}
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("parsed dataset fails Validate: %v", err)
		}
		if ds.NumClasses() < 2 {
			t.Fatalf("%d classes", ds.NumClasses())
		}
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
	f.Add([]byte(""), 0, false)
	// The first lines of the real data file (a CSV: must fail cleanly).
	f.Add(breastCancerData[:200], 0, false)
	f.Fuzz(func(t *testing.T, data []byte, d int, std bool) {
		opt := LIBSVMOptions{D: d, Standardize: std, MaxFileBytes: fuzzMaxBytes, MaxElements: fuzzMaxElements}
		ds, err := ParseLIBSVM(bytes.NewReader(data), "fuzz.svm", opt)
		if err != nil {
			if ds != nil {
				t.Fatalf("non-nil dataset with error %v", err)
			}
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("parsed dataset fails Validate: %v", err)
		}
		if d > 0 && ds.D != d {
			t.Fatalf("forced D = %d, got %d", d, ds.D)
		}
	})
}
