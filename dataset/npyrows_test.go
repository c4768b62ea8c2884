package dataset

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNPYRows: rows and labels read by range and one by one are LoadNPY's
// values (float64 and a decoded float32 file); Fortran order, a
// non-finite value and a labels count that differs are errors naming the
// file.
func TestNPYRows(t *testing.T) {
	dir := t.TempDir()
	const n, d = 7, 3
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(i)*0.25 - 1
	}
	f4 := make([]byte, 0, 4*n*d)
	for _, v := range x {
		b := math.Float32bits(float32(v))
		f4 = append(f4, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("a_y.npy", npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }", i8(0, 1, 1, 0, 1, 0, 0)))
	write("b_y.npy", npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }", i8(0, 1, 1, 0, 1, 0, 0)))
	for _, p := range []string{
		write("a_X.npy", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (7, 3), }", f8(x...))),
		write("b_X.npy", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (7, 3), }", f4)),
	} {
		ds, err := LoadNPY(p, NPYOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenNPYRows(p, NPYOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.N != n || r.D != d || r.Name != ds.Name {
			t.Fatalf("%s: %d×%d %q, LoadNPY %d×%d %q", p, r.N, r.D, r.Name, ds.N, ds.D, ds.Name)
		}
		got := make([]float64, n*d)
		if err := r.Rows(0, 3, got[:3*d]); err != nil {
			t.Fatal(err)
		}
		if err := r.Rows(3, n, got[3*d:]); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ds.X) {
			t.Fatalf("%s: rows %v, LoadNPY %v", p, got, ds.X)
		}
		row := make([]float64, d)
		for i := range n {
			r.Row(i, row)
			if !slices.Equal(row, ds.X[i*d:(i+1)*d]) {
				t.Fatalf("%s: row %d %v", p, i, row)
			}
		}
		lab := make([]float64, n)
		if err := r.Labels(0, n, lab); err != nil || !slices.Equal(lab, []float64{0, 1, 1, 0, 1, 0, 0}) {
			t.Fatalf("%s: labels %v, %v", p, lab, err)
		}
		r.Close()
	}
	bad := slices.Clone(x)
	bad[2*d+1] = math.Inf(1)
	write("c_y.npy", npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }", i8(0, 1, 1, 0, 1, 0, 0)))
	p := write("c_X.npy", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (7, 3), }", f8(bad...)))
	r, err := OpenNPYRows(p, NPYOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Rows(1, 4, make([]float64, 3*d)); err == nil || !strings.Contains(err.Error(), "c_X.npy") || !strings.Contains(err.Error(), "[2, 1]") {
		t.Errorf("non-finite value: %v", err)
	}
	r.Close()
	write("d_y.npy", npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }", i8(0, 1, 1, 0, 1, 0, 0)))
	p = write("d_X.npy", npyFile(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (7, 3), }", f8(x...)))
	if _, err := OpenNPYRows(p, NPYOptions{}); err == nil || !strings.Contains(err.Error(), "Fortran order") || !strings.Contains(err.Error(), "d_X.npy") {
		t.Errorf("Fortran order: %v", err)
	}
	write("e_y.npy", npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (6,), }", i8(0, 1, 1, 0, 1, 0)))
	p = write("e_X.npy", npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (7, 3), }", f8(x...)))
	if _, err := OpenNPYRows(p, NPYOptions{}); err == nil || !strings.Contains(err.Error(), "6 labels for the 7 rows") {
		t.Errorf("labels count: %v", err)
	}
	if !IsNPYFile(p) || IsNPYFile(dir) || IsNPYFile(filepath.Join(dir, "none.npy")) {
		t.Error("IsNPYFile")
	}
}
