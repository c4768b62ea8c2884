package dataset

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLIBSVM(t *testing.T) {
	const content = "# a comment line\n" +
		"+1 1:0.5 3:-1 # trailing comment\n" +
		"-1 2:2\n" +
		"\n" +
		"-1\t1:1 2:1   3:1\n"
	path := writeFile(t, "small.svm", content)
	ds, err := LoadLIBSVM(path, LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "small" || ds.N != 3 || ds.D != 3 {
		t.Fatalf("Name %q N %d D %d", ds.Name, ds.N, ds.D)
	}
	if want := []float64{0.5, 0, -1, 0, 2, 0, 1, 1, 1}; !slices.Equal(ds.X, want) {
		t.Errorf("X = %v, want %v", ds.X, want)
	}
	if !slices.Equal(ds.ClassNames, []string{"-1", "+1"}) || !slices.Equal(ds.Class, []int32{1, 0, 0}) {
		t.Errorf("ClassNames %q Class %v", ds.ClassNames, ds.Class)
	}
	if y, _ := ds.Binary(); !slices.Equal(y, []int8{1, -1, -1}) {
		t.Errorf("Binary = %v", y)
	}

	ds, err = LoadLIBSVM(path, LIBSVMOptions{D: 5, Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.D != 5 {
		t.Fatalf("forced D: got %d", ds.D)
	}
	for i := 0; i < 3; i++ {
		if ds.X[i*5+3] != 0 || ds.X[i*5+4] != 0 {
			t.Errorf("row %d: all-zero columns must stay 0 after standardizing: %v", i, ds.Row(i))
		}
	}
	if err := ds.Validate(); err != nil {
		t.Error(err)
	}
}

func TestLIBSVMErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		opt     LIBSVMOptions
		loc     string
		cause   []string
	}{
		{"empty", "", LIBSVMOptions{}, ": ", []string{"empty file"}},
		{"comments-only", "# nothing\n   # here\n\n", LIBSVMOptions{}, ": ", []string{"empty file"}},
		{"index-0", "1 1:1\n-1 0:1 2:3\n", LIBSVMOptions{}, ":2: ", []string{`index 0 in "0:1"`, "1-based"}},
		{"negative-index", "1 1:1\n-1 -2:1\n", LIBSVMOptions{}, ":2: ", []string{"negative index"}},
		{"decreasing", "1 1:1\n-1 1:1 3:2 2:5\n", LIBSVMOptions{}, ":2: ", []string{"index 2", "after index 3", "strictly increasing"}},
		{"repeated", "1 1:1\n\n-1 2:1 2:2\n", LIBSVMOptions{}, ":3: ", []string{"index 2", "after index 2"}},
		{"bad-token", "1 1:1\n-1 abc\n", LIBSVMOptions{}, ":2: ", []string{`bad token "abc"`}},
		{"bad-index", "1 1:1\n-1 x:1\n", LIBSVMOptions{}, ":2: ", []string{`bad index "x"`}},
		{"float-index", "1 1:1\n-1 1.5:1\n", LIBSVMOptions{}, ":2: ", []string{`bad index "1.5"`}},
		{"huge-index", "1 1:1\n-1 99999999999999999999:1\n", LIBSVMOptions{}, ":2: ", []string{"too large"}},
		{"bad-value", "1 1:1\n-1 3:abc\n", LIBSVMOptions{}, ":2: ", []string{`cannot parse "abc" as a number in "3:abc"`}},
		{"empty-value", "1 1:1\n-1 3:\n", LIBSVMOptions{}, ":2: ", []string{`cannot parse "" as a number`}},
		{"nan", "1 1:1\n-1 2:NaN\n", LIBSVMOptions{}, ":2: ", []string{`non-finite value "NaN"`}},
		{"inf", "1 1:inf\n", LIBSVMOptions{}, ":1: ", []string{`non-finite value "inf"`}},
		{"over-D", "1 1:1\n-1 4:1\n", LIBSVMOptions{D: 3}, ":2: ", []string{"index 4", "exceeds the dimension 3 given by --libsvm-dim"}},
		{"negative-D", "1 1:1\n", LIBSVMOptions{D: -1}, ": ", []string{"D = -1"}},
		{"missing-label", "1 1:1\n2:1 3:1\n", LIBSVMOptions{}, ":2: ", []string{"missing label"}},
		{"nan-label", "1 1:1\nnan 3:1\n", LIBSVMOptions{}, ":2: ", []string{`non-finite label "nan"`}},
		{"one-class", "1 1:1\n1.0 2:1\n+1 3:1\n", LIBSVMOptions{}, ": ", []string{`only one class ("1") — pairwise objectives need at least two`}},
		{"no-features", "1\n-1\n", LIBSVMOptions{}, ": ", []string{"no features"}},
		{"elements", "1 1:1\n-1 1000:1\n", LIBSVMOptions{MaxElements: 1000}, ":2: ", []string{"data too large", "2 rows × 1000 features", "would need"}},
		{"bytes", strings.Repeat("1 1:1\n-1 2:1\n", 100), LIBSVMOptions{MaxFileBytes: 64}, ": ", []string{"data too large", "MaxFileBytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name+".svm", tc.content)
			_, err := LoadLIBSVM(path, tc.opt)
			wantErr(t, err, path, tc.loc, tc.cause...)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != path {
				t.Errorf("error %T %v is not a *ParseError for %s", err, err, path)
			}
		})
	}
	// D forced with all-zero rows is allowed.
	ds, err := ParseLIBSVM(strings.NewReader("1\n-1\n"), "z.svm", LIBSVMOptions{D: 2})
	if err != nil || ds.D != 2 || !slices.Equal(ds.X, []float64{0, 0, 0, 0}) {
		t.Errorf("all-zero with D = 2: %v, %v", ds, err)
	}
}
