package dataset

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantErr checks that err mentions the path, the location prefix (":3:" or
// ": " for none) and every cause fragment.
func wantErr(t *testing.T, err error, path, loc string, cause ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s%s %q", path, loc, cause)
	}
	msg := err.Error()
	if !strings.Contains(msg, path+loc) {
		t.Errorf("error %q does not contain %q", msg, path+loc)
	}
	for _, c := range cause {
		if !strings.Contains(msg, c) {
			t.Errorf("error %q does not contain %q", msg, c)
		}
	}
}

func TestCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		opt     CSVOptions
		loc     string // ":line:" or ": "
		cause   []string
	}{
		{"empty", "", CSVOptions{}, ": ", []string{"empty file"}},
		{"blank-lines", "\n  \n\n", CSVOptions{}, ": ", []string{"empty file"}},
		{"header-only", "a,b,label\n", CSVOptions{}, ": ", []string{"no data lines after the header on line 1"}},
		{"field-count", "1,2,3,0\n4,5,6,1\n7,8,1\n", CSVOptions{}, ":3: ", []string{"expected 4 fields, got 3"}},
		{"field-count-more", "1 2 0\n4 5 1\n\n7 8 9 1\n", CSVOptions{}, ":4: ", []string{"expected 3 fields, got 4"}},
		{"not-number", "1,2,3,0\n4,5,6,1\n1,2,3,0\n4,5,6,1\n1,2,abc,0\n", CSVOptions{}, ":5: column 3: ", []string{`cannot parse "abc" as a number`}},
		{"quoted", "1,\"2\",0\n1,2,1\n", CSVOptions{Header: HeaderAbsent}, ":1: column 2: ", []string{"quoted fields are not supported"}},
		{"nan", "1,2,0\n2,3,1\n4,NaN,0\n", CSVOptions{}, ":3: column 2: ", []string{`non-finite value "NaN"`}},
		{"inf", "1,2,0\n2,-Inf,1\n", CSVOptions{}, ":2: column 2: ", []string{`non-finite value "-Inf"`}},
		{"overflow", "1,2,0\n1e999,3,1\n", CSVOptions{}, ":2: column 1: ", []string{`non-finite value "1e999"`, "overflows"}},
		{"one-class", "1,2,1\n3,4,1\n5,6,1\n", CSVOptions{}, ": ", []string{`only one class ("1") — pairwise objectives need at least two`}},
		{"all-missing", "1,?,0\n2,?,1\n3,?,0\n", CSVOptions{}, ": column 2: ", []string{"all 3 values are missing"}},
		{"all-missing-empty", "1,,0\n2,,1\n3,,0\n", CSVOptions{}, ": column 2: ", []string{"all 3 values are missing"}},
		{"missing-label", "1,2,0\n1,2,?\n", CSVOptions{}, ":2: column 3: ", []string{"missing label"}},
		{"empty-label", "1,2,0\n1,2,\n", CSVOptions{}, ":2: column 3: ", []string{"missing label"}},
		{"nan-label", "1,2,0\n1,2,NaN\n", CSVOptions{}, ":2: column 3: ", []string{`non-finite label "NaN"`}},
		{"impute-error", "1,2,0\n1,?,1\n", CSVOptions{Impute: ImputeError}, ":2: column 2: ", []string{`missing value "?"`}},
		{"impute-unknown", "1,2,0\n1,3,1\n", CSVOptions{Impute: "mode"}, ": ", []string{`Impute: unknown method "mode"`}},
		{"header-mode", "1,2,0\n1,3,1\n", CSVOptions{Header: 7}, ": ", []string{"Header: unknown mode 7"}},
		{"label-range", "1,2,0\n1,3,1\n", CSVOptions{LabelColumn: 4}, ":1: ", []string{"--label-column 4 is out of range", "3 fields"}},
		{"label-range-neg", "1,2,0\n1,3,1\n", CSVOptions{LabelColumn: -4}, ":1: ", []string{"--label-column -4 is out of range"}},
		{"drop-label", "1,2,0\n1,3,1\n", CSVOptions{DropColumns: []int{3}}, ":1: ", []string{"column 3 is the label column"}},
		{"drop-range", "1,2,0\n1,3,1\n", CSVOptions{DropColumns: []int{0}}, ":1: ", []string{"column 0 is out of range 1..3"}},
		{"no-features", "1,0\n1,1\n", CSVOptions{DropColumns: []int{1}}, ":1: ", []string{"no feature columns"}},
		{"typo-first-line", "1,x,0\n1,3,1\n", CSVOptions{}, ":1: column 2: ", []string{`cannot parse "x"`, "give --csv-header present: CSVOptions.Header in Go"}},
		{"elements", "1,2,0\n1,3,1\n4,5,0\n", CSVOptions{MaxElements: 5}, ":3: ", []string{"data too large", "would need", "MaxElements"}},
		{"bytes", strings.Repeat("1,2,0\n1,3,1\n", 100), CSVOptions{MaxFileBytes: 100}, ": ", []string{"data too large", "MaxFileBytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name+".csv", tc.content)
			_, err := LoadCSV(path, tc.opt)
			wantErr(t, err, path, tc.loc, tc.cause...)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != path {
				t.Errorf("error %T %v is not a *ParseError for %s", err, err, path)
			}
		})
	}
}

func TestCSVErrorFormats(t *testing.T) {
	// The exact formats promised to users.
	for _, tc := range []struct{ content, want string }{
		{"1,2,3,4,5,6,7,8,9,10,2\n1,2,3,4,5,6,7,8,9,2\n", "file.csv:2: expected 11 fields, got 10"},
		{"1,2,0\n1,abc,1\n", `file.csv:2: column 2: cannot parse "abc" as a number`},
		{"1,2,0\n1,NaN,1\n", `file.csv:2: column 2: non-finite value "NaN"`},
		{"1,2,1\n1,3,1\n", `file.csv: only one class ("1") — pairwise objectives need at least two`},
	} {
		_, err := ParseCSV(strings.NewReader(tc.content), "file.csv", CSVOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

func TestCSVSizeGuardAtOpen(t *testing.T) {
	path := writeFile(t, "big.csv", strings.Repeat("1,2,0\n1,3,1\n", 10))
	_, err := LoadCSV(path, CSVOptions{MaxFileBytes: 50})
	wantErr(t, err, path, ": ", "data too large", "120 bytes", "limit")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("errors.Is(err, ErrTooLarge) = false for %v", err)
	}
	_, err = LoadCSV(path, CSVOptions{MaxFileBytes: -1, MaxElements: -1}) // no limits
	if err != nil {
		t.Fatal(err)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	const content = "id,a,b,label\n" +
		"101,1,2,yes\n" +
		"102,?,4,no\n" +
		"103,3,?,yes\n" +
		"104,5,8,no\n"
	path := writeFile(t, "small.csv", content)

	ds, err := LoadCSV(path, CSVOptions{DropColumns: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "small" || ds.N != 4 || ds.D != 2 {
		t.Fatalf("Name %q N %d D %d", ds.Name, ds.N, ds.D)
	}
	// Medians of the observed values: a: {1,3,5} → 3, b: {2,4,8} → 4.
	if want := []float64{1, 2, 3, 4, 3, 4, 5, 8}; !slices.Equal(ds.X, want) {
		t.Errorf("X = %v, want %v", ds.X, want)
	}
	if !slices.Equal(ds.ClassNames, []string{"no", "yes"}) || !slices.Equal(ds.Class, []int32{1, 0, 1, 0}) {
		t.Errorf("ClassNames %q Class %v", ds.ClassNames, ds.Class)
	}
	y, err := ds.Binary()
	if err != nil || !slices.Equal(y, []int8{1, -1, 1, -1}) {
		t.Errorf("Binary = %v, %v; want yes = +1", y, err)
	}
	if !strings.Contains(ds.Source, "2 missing values imputed with the column median") ||
		!strings.Contains(ds.Source, "header on line 1") || !strings.Contains(ds.Source, "dropped columns [1]") {
		t.Errorf("Source = %q", ds.Source)
	}

	// Mean imputation: a: 3, b: 14/3.
	ds, err = LoadCSV(path, CSVOptions{DropColumns: []int{1}, Impute: ImputeMean})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 2, 3, 4, 3, 14.0 / 3, 5, 8}; !slices.Equal(ds.X, want) {
		t.Errorf("mean imputation: X = %v, want %v", ds.X, want)
	}

	// Standardized: a = {1,3,3,5}: mean 3, std √2; b = {2,4,4,8}: mean 4.5, std √4.75.
	ds, err = LoadCSV(path, CSVOptions{DropColumns: []int{1}, Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-2 / math.Sqrt2, -2.5 / math.Sqrt(4.75), 0, -0.5 / math.Sqrt(4.75), 0, -0.5 / math.Sqrt(4.75), 2 / math.Sqrt2, 3.5 / math.Sqrt(4.75)}
	for i := range want {
		if math.Abs(ds.X[i]-want[i]) > 1e-15 {
			t.Errorf("standardized X[%d] = %v, want %v", i, ds.X[i], want[i])
		}
	}

	// Without dropping, the id is a feature; the header is still detected.
	ds, err = LoadCSV(path, CSVOptions{})
	if err != nil || ds.D != 3 || ds.X[0] != 101 {
		t.Errorf("no drop: D = %d, X[0] = %v, err %v", ds.D, ds.X[0], err)
	}
}

func TestCSVVariants(t *testing.T) {
	// Whitespace-separated, label first, CRLF, BOM, numeric labels that merge.
	content := "\ufeff+1 0.5 1\r\n-1 1.5\t2\r\n1.0   2.5 3\r\n\r\n"
	ds, err := ParseCSV(strings.NewReader(content), "ws.txt", CSVOptions{LabelColumn: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 2 || !slices.Equal(ds.X, []float64{0.5, 1, 1.5, 2, 2.5, 3}) {
		t.Fatalf("N %d D %d X %v", ds.N, ds.D, ds.X)
	}
	if !slices.Equal(ds.ClassNames, []string{"-1", "+1"}) || !slices.Equal(ds.Class, []int32{1, 0, 1}) {
		t.Errorf("ClassNames %q Class %v", ds.ClassNames, ds.Class)
	}
	if y, _ := ds.Binary(); !slices.Equal(y, []int8{1, -1, 1}) {
		t.Errorf("Binary = %v", y)
	}

	// Negative label column, spaces around commas, custom missing token.
	content = "a , 1 , 0.5\nb , 2 , NA\nb , 3 , 1.5\n"
	ds, err = ParseCSV(strings.NewReader(content), "neg.csv", CSVOptions{LabelColumn: -3, Missing: "NA", Header: HeaderAbsent})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, []float64{1, 0.5, 2, 1, 3, 1.5}) || !slices.Equal(ds.ClassNames, []string{"a", "b"}) {
		t.Errorf("X %v ClassNames %q", ds.X, ds.ClassNames)
	}

	// HeaderPresent skips a numeric header; HeaderAbsent keeps it as data.
	content = "1,2,3\n4,5,0\n6,7,1\n"
	ds, err = ParseCSV(strings.NewReader(content), "h.csv", CSVOptions{Header: HeaderPresent})
	if err != nil || ds.N != 2 {
		t.Errorf("HeaderPresent: N = %v, err %v", ds, err)
	}
	ds, err = ParseCSV(strings.NewReader(content), "h.csv", CSVOptions{Header: HeaderAbsent})
	if err != nil || ds.N != 3 || ds.NumClasses() != 3 {
		t.Errorf("HeaderAbsent: %v, err %v", ds, err)
	}

	// Constant and huge columns standardize to finite values.
	content = "7,1e308,0\n7,-1e308,1\n7,1.7e308,0\n"
	ds, err = ParseCSV(strings.NewReader(content), "c.csv", CSVOptions{Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if ds.X[i*2] != 0 {
			t.Errorf("constant column row %d = %v, want 0", i, ds.X[i*2])
		}
	}
	if err := ds.Validate(); err != nil {
		t.Error(err)
	}
	// Huge values impute without overflow too.
	content = "1e308,0\n1.7e308,1\n?,0\n"
	for _, imp := range []string{ImputeMedian, ImputeMean} {
		ds, err = ParseCSV(strings.NewReader(content), "m.csv", CSVOptions{Impute: imp})
		if err != nil {
			t.Fatal(err)
		}
		if v := ds.X[2]; math.Abs(v-1.35e308) > 1e294 {
			t.Errorf("%s imputation of {1e308, 1.7e308} = %v", imp, v)
		}
	}
}

func TestBinaryAndValidate(t *testing.T) {
	for _, tc := range []struct {
		names []string
		pos   int
	}{
		{[]string{"2", "4"}, 1},
		{[]string{"4", "2"}, 0},
		{[]string{"0", "1"}, 1},
		{[]string{"+1", "-1"}, 0},
		{[]string{"10", "9"}, 0}, // numeric, not lexicographic
		{[]string{"yes", "no"}, 0},
		{[]string{"1", "abc"}, 1},
		{nil, 1},
	} {
		ds := &Dataset{Name: "t", N: 2, D: 1, X: []float64{0, 1}, Class: []int32{0, 1}, ClassNames: tc.names}
		if err := ds.Validate(); err != nil {
			t.Fatal(err)
		}
		y, err := ds.Binary()
		if err != nil {
			t.Fatal(err)
		}
		if y[tc.pos] != 1 || y[1-tc.pos] != -1 || ds.PositiveClass() != tc.pos {
			t.Errorf("names %q: Binary = %v, PositiveClass %d, want class %d positive", tc.names, y, ds.PositiveClass(), tc.pos)
		}
	}
	good := func() *Dataset {
		return &Dataset{Name: "v", N: 2, D: 2, X: []float64{0, 1, 2, 3}, Class: []int32{0, 1}, ClassNames: []string{"a", "b"}}
	}
	for _, tc := range []struct {
		mod  func(*Dataset)
		want string
	}{
		{func(d *Dataset) { d.N = 1; d.X = d.X[:2]; d.Class = d.Class[:1] }, "N = 1"},
		{func(d *Dataset) { d.D = 0 }, "D = 0"},
		{func(d *Dataset) { d.X = d.X[:3] }, "len(X)"},
		{func(d *Dataset) { d.Class = d.Class[:1] }, "len(Class)"},
		{func(d *Dataset) { d.X[3] = math.NaN() }, "non-finite"},
		{func(d *Dataset) { d.X[0] = math.Inf(-1) }, "non-finite"},
		{func(d *Dataset) { d.Class[1] = 2 }, "out of range"},
		{func(d *Dataset) { d.Class[1] = 0 }, "1 non-empty class"},
		{func(d *Dataset) { d.ClassNames[1] = "a" }, "appears twice"},
	} {
		d := good()
		tc.mod(d)
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"v"`) {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
	}
	if row := good().Row(1); !slices.Equal(row, []float64{2, 3}) || cap(row) != 2 {
		t.Errorf("Row(1) = %v cap %d", row, cap(row))
	}
}
