package dataset

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCSVRowsMatchesLoadCSV: the rows of CSVRows, parsed in parts or one by
// one, and its classes and ±1 labels from the parts' label texts, are
// LoadCSV's, for files with and without a header, a byte-order mark, CR
// line ends, blank lines and white-space separators.
func TestCSVRowsMatchesLoadCSV(t *testing.T) {
	var plain, header, spaced strings.Builder
	plain.WriteString("\ufeff")
	header.WriteString("a, b, c, label\r\n\r\n")
	labels := []string{"yes", "no", "2", "7", "7.0", "2"}
	for i := range 500 {
		if i%37 == 5 {
			plain.WriteString("\n  \n")
			header.WriteString(" \r\n")
		}
		fmt.Fprintf(&plain, "%d.5,%g, -%d,%s\n", i, float64(i)/7, i%13, labels[2+i%4])
		fmt.Fprintf(&header, "%d.25 , %g,%d, %s\r\n", i, 1/float64(i+1), i%5, labels[i%2])
		fmt.Fprintf(&spaced, "%d\t %g %s\n", i, math.Sqrt(float64(i)), labels[i%2])
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"plain": plain.String(), "header": header.String() + "\n\n", "spaced": spaced.String()} {
		path := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := LoadCSV(path, CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ds.Binary()
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenCSVRows(path, CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.N != ds.N || r.D != ds.D || r.Name != ds.Name {
			t.Fatalf("%s: %d×%d %q, want %d×%d %q", name, r.N, r.D, r.Name, ds.N, ds.D, ds.Name)
		}
		for _, cuts := range [][]int{{0, r.N}, {0, 64, 65, 300, r.N}, {0, 17, 17, 250, 499, r.N}} {
			x := make([]float64, r.N*r.D)
			var texts []string
			var provs [][]int32
			var firsts []int
			for k := 0; k+1 < len(cuts); k++ {
				lo, hi := cuts[k], cuts[k+1]
				tx, prov, miss, err := r.Parse(lo, hi, x[lo*r.D:hi*r.D])
				if err != nil {
					t.Fatal(err)
				}
				if slices.Max(append(miss, 0)) != 0 {
					t.Fatalf("%s: missing %v", name, miss)
				}
				firsts = append(firsts, len(texts))
				texts = append(texts, tx...)
				provs = append(provs, prov)
			}
			if !slices.Equal(x, ds.X) {
				t.Fatalf("%s %v: rows differ", name, cuts)
			}
			class, names, err := r.Classes(texts)
			if err != nil {
				t.Fatal(err)
			}
			y, err := r.Binary(names)
			if err != nil {
				t.Fatal(err)
			}
			for k, prov := range provs {
				for i, p := range prov {
					if got := y[class[firsts[k]+int(p)]]; got != want[cuts[k]+i] {
						t.Fatalf("%s %v: row %d label %d, want %d", name, cuts, cuts[k]+i, got, want[cuts[k]+i])
					}
				}
			}
		}
		row := make([]float64, r.D)
		for i := range r.N {
			r.Row(i, row)
			if !slices.Equal(row, ds.X[i*r.D:(i+1)*r.D]) {
				t.Fatalf("%s: Row(%d) = %v, want %v", name, i, row, ds.X[i*r.D:(i+1)*r.D])
			}
		}
		r.Close()
	}
}

// TestCSVRowsErrors: the first bad line of a range is LoadCSV's error when
// the range holds the file's first bad line.
func TestCSVRowsErrors(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		v := fmt.Sprint(i)
		if i == 120 || i == 150 {
			v = "1e400"
		}
		fmt.Fprintf(&b, "%s,1,%d\n", v, i%2)
	}
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := LoadCSV(path, CSVOptions{})
	r, err := OpenCSVRows(path, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := make([]float64, 200*2)
	if _, _, _, err := r.Parse(0, 100, x); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.Parse(100, 200, x); err == nil || err.Error() != want.Error() {
		t.Fatalf("Parse: %v, want %v", err, want)
	}
}
