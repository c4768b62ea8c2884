package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sameResult checks that the parallel parser gives exactly what the
// streaming parser gives on data: the same error (message and fields) or
// the same data set, for worker counts 1..maxWorkers with chunks as small
// as one byte.
func sameResult(t *testing.T, data []byte, opt CSVOptions, maxWorkers int) {
	t.Helper()
	want, wantErr := ParseCSV(bytes.NewReader(data), "in.csv", opt)
	for w := 1; w <= maxWorkers; w++ {
		got, err := parseCSVParallel(data, "in.csv", opt, w, 1)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%d workers: err %v, streaming parser err %v\ninput %q", w, err, wantErr, data)
		}
		if err != nil {
			var a, b *ParseError
			if err.Error() != wantErr.Error() || errors.As(err, &a) != errors.As(wantErr, &b) || (a != nil && (a.Line != b.Line || a.Column != b.Column || errors.Is(a, ErrTooLarge) != errors.Is(b, ErrTooLarge))) {
				t.Fatalf("%d workers: err %q, streaming parser err %q\ninput %q", w, err, wantErr, data)
			}
			if got != nil {
				t.Fatalf("%d workers: a dataset with the error", w)
			}
			continue
		}
		if got.N != want.N || got.D != want.D || got.Name != want.Name || got.Source != want.Source ||
			!sameBits(got.X, want.X) || !slices.Equal(got.Class, want.Class) || !slices.Equal(got.ClassNames, want.ClassNames) {
			t.Fatalf("%d workers: dataset differs\n got %+v\nwant %+v\ninput %q", w, got, want, data)
		}
	}
}

func TestCSVParallelMatchesSerial(t *testing.T) {
	for _, tc := range []struct {
		content string
		opt     CSVOptions
	}{
		// The inputs of TestCSVErrors.
		{"", CSVOptions{}},
		{"\n  \n\n", CSVOptions{}},
		{"a,b,label\n", CSVOptions{}},
		{"1,2,3,0\n4,5,6,1\n7,8,1\n", CSVOptions{}},
		{"1 2 0\n4 5 1\n\n7 8 9 1\n", CSVOptions{}},
		{"1,2,3,0\n4,5,6,1\n1,2,3,0\n4,5,6,1\n1,2,abc,0\n", CSVOptions{}},
		{"1,\"2\",0\n1,2,1\n", CSVOptions{Header: HeaderAbsent}},
		{"1,2,0\n2,3,1\n4,NaN,0\n", CSVOptions{}},
		{"1,2,0\n2,-Inf,1\n", CSVOptions{}},
		{"1,2,0\n1e999,3,1\n", CSVOptions{}},
		{"1,2,1\n3,4,1\n5,6,1\n", CSVOptions{}},
		{"1,?,0\n2,?,1\n3,?,0\n", CSVOptions{}},
		{"1,,0\n2,,1\n3,,0\n", CSVOptions{}},
		{"1,2,0\n1,2,?\n", CSVOptions{}},
		{"1,2,0\n1,2,\n", CSVOptions{}},
		{"1,2,0\n1,2,NaN\n", CSVOptions{}},
		{"1,2,0\n1,?,1\n", CSVOptions{Impute: ImputeError}},
		{"1,2,0\n1,3,1\n", CSVOptions{Impute: "mode"}},
		{"1,2,0\n1,3,1\n", CSVOptions{Header: 7}},
		{"1,2,0\n1,3,1\n", CSVOptions{LabelColumn: 4}},
		{"1,2,0\n1,3,1\n", CSVOptions{LabelColumn: -4}},
		{"1,2,0\n1,3,1\n", CSVOptions{DropColumns: []int{3}}},
		{"1,2,0\n1,3,1\n", CSVOptions{DropColumns: []int{0}}},
		{"1,0\n1,1\n", CSVOptions{DropColumns: []int{1}}},
		{"1,x,0\n1,3,1\n", CSVOptions{}},
		{"1,2,0\n1,3,1\n4,5,0\n", CSVOptions{MaxElements: 5}},
		{strings.Repeat("1,2,0\n1,3,1\n", 100), CSVOptions{MaxFileBytes: 100}},
		// TestCSVRoundTrip and the formats.
		{"id,a,b,label\n101,1,2,yes\n102,?,4,no\n103,3,?,yes\n104,5,8,no\n", CSVOptions{DropColumns: []int{1}}},
		{"id,a,b,label\n101,1,2,yes\n102,?,4,no\n103,3,?,yes\n104,5,8,no\n", CSVOptions{DropColumns: []int{1}, Impute: ImputeMean, Standardize: true}},
		{"1,2,3,4,5,6,7,8,9,10,2\n1,2,3,4,5,6,7,8,9,2\n", CSVOptions{}},
		// Line ends, byte-order marks, blank and white-space lines.
		{"\ufeff1,2,0\r\n3,4,1\r\n\r\n5,6,0", CSVOptions{}},
		{"\ufeff\n\ufeff1,2,0\n3,4,1\n", CSVOptions{}},
		{"\n\n\ufeffa b c\n1 2 0\n\t\n3 4 1\n\u00a0\n5 6 1\r", CSVOptions{}},
		{"a,b,c\r\n\r\n\r", CSVOptions{}},
		{"\r\n1,2,0\n\r\r\n3,4,1\n", CSVOptions{}},
		{"1,2,0\n3,4,1\n5,6\n7,8,x\n", CSVOptions{}},
		// Labels first seen late, numeric spellings (the first names the class).
		{"1,2,1.0\n3,4,1\n5,6,+1\n7,8,0\n9,9,0.0\n", CSVOptions{}},
		{"1,c\n2,b\n3,a\n4,b\n5,d\n", CSVOptions{}},
		// The element limit reached in a later chunk, after and before other errors.
		{"1,0\n2,1\n3,0\n4,1\n5,0\n6,1\n", CSVOptions{MaxElements: 4}},
		{"1,0\n2,1\nx,0\n4,1\n5,0\n6,1\n", CSVOptions{MaxElements: 4}},
		{"1,0\n2,1\n3,0\n4,1\n5,0,9\n6,1\n", CSVOptions{MaxElements: 4}},
		{"1,0\n2,1\n3,0\n4,1\n5,0\n6,1\n", CSVOptions{MaxElements: -1, MaxFileBytes: -1}},
	} {
		sameResult(t, []byte(tc.content), tc.opt, 8)
	}
}

// randomCSV writes rows of random numbers, with blank lines, CR line ends,
// missing values and, with probability bad per line, a broken line.
func randomCSV(r *rand.Rand, rows, cols int, bad float64) []byte {
	var b bytes.Buffer
	sep := ","
	if r.IntN(3) == 0 {
		sep = " \t"
	}
	if r.IntN(2) == 0 {
		for j := 0; j < cols; j++ {
			fmt.Fprintf(&b, "col%d%s", j, sep)
		}
		b.WriteString("label\n")
	}
	labels := []string{"0", "1", "1.0", "yes", "-1", "2"}[:2+r.IntN(3)]
	if r.IntN(3) == 0 {
		labels = append(labels, "text")
	}
	for i := 0; i < rows; i++ {
		switch r.IntN(20) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("  \r\n")
		}
		for j := 0; j < cols; j++ {
			switch {
			case r.IntN(50) == 0:
				b.WriteString("?")
			case r.Float64() < bad:
				b.WriteString([]string{"abc", "NaN", "1e999", "", "\"3\""}[r.IntN(5)])
			default:
				fmt.Fprintf(&b, "%.6g", r.NormFloat64()*float64(1+j))
			}
			b.WriteString(sep)
		}
		b.WriteString(labels[r.IntN(len(labels))])
		if r.Float64() < bad {
			b.WriteString(sep + "9")
		}
		if r.IntN(4) == 0 {
			b.WriteString("\r")
		}
		if i < rows-1 || r.IntN(2) == 0 {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func TestCSVParallelRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		data := randomCSV(r, 1+r.IntN(60), 1+r.IntN(5), []float64{0, 0, 0.002, 0.02}[trial%4])
		opt := CSVOptions{
			Impute:      []string{"", ImputeMean, ImputeError}[r.IntN(3)],
			Standardize: r.IntN(2) == 0,
		}
		if r.IntN(5) == 0 {
			opt.MaxElements = int64(1 + r.IntN(100))
		}
		sameResult(t, data, opt, 8)
	}
	// A larger file, with the default chunk size, from LoadCSV.
	data := randomCSV(r, 60000, 16, 0)
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := LoadCSV(path, CSVOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{0, 2, 3, 8} {
		got, err := LoadCSV(path, CSVOptions{Workers: w})
		if err != nil || !sameBits(got.X, want.X) || !slices.Equal(got.Class, want.Class) || got.Source != want.Source || got.Name != want.Name {
			t.Fatalf("LoadCSV with %d workers differs from the streaming parser (err %v)", w, err)
		}
	}
	// An error late in the file is reported with its line by every worker count.
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[45000] = []byte("1,2\n")
	os.WriteFile(path, bytes.Join(lines, nil), 0o644)
	_, want1 := LoadCSV(path, CSVOptions{Workers: 1})
	for _, w := range []int{0, 2, 8} {
		if _, err := LoadCSV(path, CSVOptions{Workers: w}); err == nil || err.Error() != want1.Error() {
			t.Errorf("%d workers: err %v, want %v", w, err, want1)
		}
	}
}

func FuzzParseCSVParallel(f *testing.F) {
	lines := bytes.SplitAfter(breastCancerData, []byte("\n"))
	f.Add(bytes.Join(lines[20:26], nil), 11, uint8(2), uint8(0), true, 1, uint8(3))
	f.Add([]byte("id,a,b,label\n101,1,2,yes\n102,?,4,no\n103,3,?,yes\n"), 0, uint8(0), uint8(0), true, 1, uint8(2))
	f.Add([]byte("+1 0.5 1\r\n-1 1.5\t2\r\n"), 1, uint8(0), uint8(1), false, 0, uint8(4))
	f.Add([]byte("\ufeff1e308,-1e308,0\n\n1.7e308,5,1\n"), 0, uint8(0), uint8(0), true, 0, uint8(5))
	f.Add([]byte("1,0\n2,1\nx,0\n4,1\n5,0\n6,1\n"), 0, uint8(0), uint8(0), false, 0, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, labelCol int, header, impute uint8, std bool, drop int, workers uint8) {
		opt := CSVOptions{
			LabelColumn:  labelCol,
			Header:       HeaderMode(header % 4),
			Impute:       []string{"", ImputeMedian, ImputeMean, ImputeError, "bad"}[impute%5],
			Standardize:  std,
			MaxFileBytes: fuzzMaxBytes,
			MaxElements:  int64(workers)*7 + 3,
		}
		if drop != 0 {
			opt.DropColumns = []int{drop}
		}
		sameResult(t, data, opt, 1+int(workers%8))
	})
}

// BenchmarkLoadCSV1M loads a 10⁶-row, 16-feature CSV (about 150 MB) with
// LoadCSV's default worker count.
func BenchmarkLoadCSV1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var line []byte
	for i := 0; i < 1_000_000; i++ {
		line = line[:0]
		for j := 0; j < 16; j++ {
			line = fmt.Appendf(line, "%.6f,", r.NormFloat64())
		}
		line = fmt.Appendf(line, "%d\n", r.IntN(2))
		f.Write(line)
	}
	f.Close()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := LoadCSV(path, CSVOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFastDecimalIsParseFloat: the fast path gives ParseFloat's bits, and
// declines what it does not handle.
func TestFastDecimalIsParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(s string) {
		v, ok := fastDecimal(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("%q: fast path %v (%x), ParseFloat %v (%x), %v", s, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
	}
	for _, s := range []string{"0", "-0", "+0", "-0.0", "0.", ".5", "-.5", "5.", "007", "9007199254740992", "9007199254740993",
		"0.1", "0.3", "123456789012345678", "1234567890123456789", "12345678901234567890", "1.0000000000000000000001",
		"0.0000000000000000000001", "0.00000000000000000000001", "4.35", "2.675", "1e5", "1_0", "--1", "-", ".", "", "1.2.3", " 1", "0x10", "Inf"} {
		check(s)
	}
	for range 200000 {
		var s string
		switch r.IntN(4) {
		case 0:
			s = strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(30)-15)), 'f', r.IntN(20), 64)
		case 1:
			s = strconv.FormatFloat(r.Float64(), 'f', -1, 64)
		case 2:
			s = strconv.FormatUint(r.Uint64()>>r.IntN(64), 10)
		default:
			s = fmt.Sprintf("%d.%0*d", r.IntN(1000000), r.IntN(18)+1, r.Uint64()%1000000000000000000)
		}
		check(s)
	}
	if v, ok := fastDecimal("-0"); !ok || !math.Signbit(v) {
		t.Error("-0 is not negative zero")
	}
}

// TestParallelLongFirstLine: a file of one line longer than MaxLineBytes is
// refused with the serial parser's message, without searching the line to
// its end (the issue "Nothing silent, nothing lost": a 2 GB one-line file
// was read whole before "line has 1 fields").
func TestParallelLongFirstLine(t *testing.T) {
	data := bytes.Repeat([]byte("1.5"), MaxLineBytes/3+2)
	for _, w := range []int{1, 2} {
		_, err := parseCSVParallel(data, "one-line.csv", CSVOptions{}, w, 1)
		if err == nil || !strings.Contains(err.Error(), "one-line.csv:1: line longer than") {
			t.Fatalf("workers %d: err = %v", w, err)
		}
	}
	_, err := ParseCSV(bytes.NewReader(data), "one-line.csv", CSVOptions{})
	if err == nil || !strings.Contains(err.Error(), "one-line.csv:1: line longer than") {
		t.Fatalf("serial: err = %v", err)
	}
}
