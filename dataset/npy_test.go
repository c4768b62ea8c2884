package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fixture is the 5×3 matrix of testdata/npy: X[i, j] = 10i + j + 0.5.
func fixtureX(trunc bool) []float64 {
	x := make([]float64, 15)
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			x[i*3+j] = float64(10*i + j)
			if !trunc {
				x[i*3+j] += 0.5
			}
		}
	}
	return x
}

func TestNPYFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "npy")
	for _, tc := range []struct {
		file    string
		trunc   bool
		names   []string
		mapped  bool
		srcPart string
	}{
		{"X.npy", false, []string{"0", "1"}, canMap, "<i8"},
		{"f4_X.npy", false, []string{"0", "1"}, false, "|b1"},
		{"fortran_X.npy", false, []string{"0", "1"}, false, "<f8 (5, 3)"},
		{"v2_X.npy", false, []string{"0", "1"}, canMap, "|i1"},
		{"v3_X.npy", false, []string{"0", "1"}, false, "<f4"},
		{"be_X.npy", false, []string{"-1", "1"}, false, ">i4"},
		{"int_X.npy", true, []string{"0", "1"}, false, "<f8"},
		{"data.npz", false, []string{"0", "1"}, false, "X.npy"},
		{"compressed.npz", false, []string{"0", "1"}, false, "labels.npy"},
		{"positional.npz", false, []string{"0", "1"}, false, "arr_0.npy"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			ds, err := Load(path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
			if ds.N != 5 || ds.D != 3 || !slices.Equal(ds.X, fixtureX(tc.trunc)) {
				t.Errorf("N %d D %d X %v", ds.N, ds.D, ds.X)
			}
			if !slices.Equal(ds.Class, []int32{0, 1, 0, 1, 1}) || !slices.Equal(ds.ClassNames, tc.names) {
				t.Errorf("Class %v ClassNames %q", ds.Class, ds.ClassNames)
			}
			if y, _ := ds.Binary(); !slices.Equal(y, []int8{-1, 1, -1, 1, 1}) {
				t.Errorf("Binary %v", y)
			}
			if ds.Mapped() != tc.mapped {
				t.Errorf("Mapped() = %v, want %v", ds.Mapped(), tc.mapped)
			}
			if !strings.Contains(ds.Source, tc.srcPart) {
				t.Errorf("Source %q does not mention %q", ds.Source, tc.srcPart)
			}
			if ds.Name != strings.TrimSuffix(tc.file, filepath.Ext(tc.file)) {
				t.Errorf("Name %q", ds.Name)
			}
			if err := ds.Close(); err != nil || (tc.mapped && ds.X != nil) || ds.Mapped() {
				t.Errorf("Close: %v, X %v", err, ds.X)
			}
			if err := ds.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			// Not mapped when asked not to, or when standardizing.
			for _, opt := range []NPYOptions{{NoMap: true}, {Standardize: true}} {
				ds, err := Load(path, LoadOptions{NPY: opt})
				if err != nil || ds.Mapped() {
					t.Errorf("%+v: mapped %v, err %v", opt, ds.Mapped(), err)
				}
			}
		})
	}
}

// TestNPYMappedIsCopyOnWrite: writing to a mapped X changes neither the file
// nor another mapping of it.
func TestNPYMappedIsCopyOnWrite(t *testing.T) {
	if !canMap {
		t.Skip("no memory mapping on this system")
	}
	dir := t.TempDir()
	for _, f := range []string{"X.npy", "y.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", "npy", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "X.npy")
	before, _ := os.ReadFile(path)
	a, err := LoadNPY(path, NPYOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadNPY(path, NPYOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Mapped() || !b.Mapped() {
		t.Fatal("not mapped")
	}
	a.X[0] = 42
	standardize(a.X, a.N, a.D)
	if b.X[0] != 0.5 {
		t.Errorf("a write to one mapping shows in another: %v", b.X[0])
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the file changed")
	}
	a.Close()
	b.Close()
}

// npyFile builds a .npy file: the header dict text is given whole.
func npyFile(major int, dict string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	h := dict
	for (pre+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{byte(major), 0})
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f8(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func i8(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

var goodY = npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", i8(0, 1, 1))

func TestNPYDtypes(t *testing.T) {
	want := []float64{1, -2, 3, 4, 5, 6}
	le, be := binary.LittleEndian, binary.BigEndian
	for _, tc := range []struct {
		descr string
		enc   func(v float64) []byte
	}{
		{"<f8", func(v float64) []byte { return le.AppendUint64(nil, math.Float64bits(v)) }},
		{">f8", func(v float64) []byte { return be.AppendUint64(nil, math.Float64bits(v)) }},
		{"<f4", func(v float64) []byte { return le.AppendUint32(nil, math.Float32bits(float32(v))) }},
		{">f4", func(v float64) []byte { return be.AppendUint32(nil, math.Float32bits(float32(v))) }},
		{"<i8", func(v float64) []byte { return le.AppendUint64(nil, uint64(int64(v))) }},
		{"<i4", func(v float64) []byte { return le.AppendUint32(nil, uint32(int32(v))) }},
		{">i2", func(v float64) []byte { return be.AppendUint16(nil, uint16(int16(v))) }},
		{"|i1", func(v float64) []byte { return []byte{byte(int8(v))} }},
	} {
		var data []byte
		for _, v := range want {
			data = append(data, tc.enc(v)...)
		}
		for _, major := range []int{1, 2, 3} {
			x := npyFile(major, fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (3, 2), }", tc.descr), data)
			ds, err := ParseNPY(bytes.NewReader(x), bytes.NewReader(goodY), "t", NPYOptions{})
			if err != nil {
				t.Fatalf("%s v%d: %v", tc.descr, major, err)
			}
			if !slices.Equal(ds.X, want) {
				t.Errorf("%s v%d: X = %v", tc.descr, major, ds.X)
			}
		}
	}
	// Unsigned and bool features; Fortran order.
	x := npyFile(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (3, 2), }", []byte{1, 2, 3, 200, 5, 6})
	ds, err := ParseNPY(bytes.NewReader(x), bytes.NewReader(goodY), "t", NPYOptions{})
	if err != nil || !slices.Equal(ds.X, []float64{1, 200, 2, 5, 3, 6}) {
		t.Errorf("|u1 Fortran: %v %v", ds, err)
	}
	x = npyFile(1, "{'shape': (3,), 'fortran_order': False, 'descr': '|b1'}", []byte{0, 1, 2})
	ds, err = ParseNPY(bytes.NewReader(x), bytes.NewReader(goodY), "t", NPYOptions{})
	if err != nil || ds.D != 1 || !slices.Equal(ds.X, []float64{0, 1, 1}) {
		t.Errorf("1-D bool: %v %v", ds, err)
	}
	// Python 2 long integers in the shape; a column of labels; float labels.
	x = npyFile(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (3L, 1L), }", []byte{1, 0, 2, 0, 3, 0})
	y := npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(2.5, -1, 2.5))
	ds, err = ParseNPY(bytes.NewReader(x), bytes.NewReader(y), "t", NPYOptions{})
	if err != nil || !slices.Equal(ds.X, []float64{1, 2, 3}) || !slices.Equal(ds.ClassNames, []string{"-1", "2.5"}) || !slices.Equal(ds.Class, []int32{1, 0, 1}) {
		t.Errorf("u2 column, float labels: %v %v", ds, err)
	}
	// Many distinct, widely spread labels (the map path of classesFromValues).
	y = npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", i8(1<<40, -7, 1<<40))
	ds, err = ParseNPY(bytes.NewReader(x), bytes.NewReader(y), "t", NPYOptions{})
	if err != nil || !slices.Equal(ds.ClassNames, []string{"-7", "1099511627776"}) || !slices.Equal(ds.Class, []int32{1, 0, 1}) {
		t.Errorf("spread labels: %v %v", ds, err)
	}
}

func TestNPYErrors(t *testing.T) {
	x32 := func(dict string, data []byte) []byte { return npyFile(1, dict, data) }
	okX := x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(1, 2, 3))
	long := "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), 'pad': '" + strings.Repeat("x", MaxNPYHeaderBytes) + "'}"
	for _, tc := range []struct {
		name string
		x, y []byte
		want []string
	}{
		{"empty", nil, goodY, []string{"empty file"}},
		{"magic", []byte("PK\x03\x04 not numpy"), goodY, []string{"not a .npy file", "magic"}},
		{"csv", []byte("1,2,3\n4,5,6\n"), goodY, []string{"not a .npy file"}},
		{"short-preamble", []byte(npyMagic[:4]), goodY, []string{"truncated"}},
		{"version", append([]byte(npyMagic), 4, 0, 0, 0), goodY, []string{"unsupported .npy format version 4.0"}},
		{"huge-header", npyFile(2, long, nil), goodY, []string{"header of 65", "larger than the limit of 65536"}},
		{"header-truncated", okX[:40], goodY, []string{"truncated in the header"}},
		{"dtype", x32("{'descr': '<c16', 'fortran_order': False, 'shape': (3, 1), }", nil), goodY, []string{`unsupported dtype "<c16"`}},
		{"dtype-str", x32("{'descr': '<U5', 'fortran_order': False, 'shape': (3, 1), }", nil), goodY, []string{`unsupported dtype "<U5"`}},
		{"dtype-object", x32("{'descr': '|O', 'fortran_order': False, 'shape': (3, 1), }", nil), goodY, []string{`unsupported dtype "|O"`}},
		{"dtype-order", x32("{'descr': '|f8', 'fortran_order': False, 'shape': (3, 1), }", nil), goodY, []string{`unsupported dtype "|f8"`}},
		{"structured", x32("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }", nil), goodY, []string{"structured arrays"}},
		{"missing-key", x32("{'descr': '<f8', 'shape': (3, 1), }", nil), goodY, []string{`key "fortran_order" is missing`}},
		{"extra-key", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), 'x': 1}", nil), goodY, []string{`unexpected key "x"`}},
		{"not-dict", x32("[1, 2]", nil), goodY, []string{"not a Python dict"}},
		{"bad-bool", x32("{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 1), }", nil), goodY, []string{"fortran_order is not True or False"}},
		{"negative-dim", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 1), }", nil), goodY, []string{"shape: expected a non-negative integer"}},
		{"huge-dim", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 1), }", nil), goodY, []string{"too large"}},
		{"3-d", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1, 1), }", nil), goodY, []string{"features have shape (3, 1, 1)", "2-D"}},
		{"0-d", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", f8(1)), goodY, []string{"features have shape ()"}},
		{"empty-array", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", nil), goodY, []string{"shape (0, 3) is empty"}},
		{"truncated", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(1, 2)), goodY, []string{"truncated", "24 bytes"}},
		{"too-many", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000), }", nil), goodY, []string{"data too large", "would need 7.6 MiB", "MaxElements"}},
		{"nan", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(1, math.NaN(), 3)), goodY, []string{"element [1, 0] is NaN"}},
		{"inf-f4", x32("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1), }", binary.LittleEndian.AppendUint32(make([]byte, 8), 0x7f800000)), goodY, []string{"element [2, 0] is +Inf"}},
		{"labels-2d", okX, x32("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }", i8(0, 1, 0, 1, 0, 1)), []string{"(labels)", "labels have shape (3, 2)"}},
		{"mismatch", okX, x32("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }", i8(0, 1, 0, 1)), []string{"shape mismatch: 4 labels for the 3 rows"}},
		{"one-class", okX, x32("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", i8(1, 1, 1)), []string{`only one class ("1")`}},
		{"nan-label", okX, x32("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8(0, 1, math.Inf(-1))), []string{"label [2] is -Inf"}},
		{"huge-label", okX, x32("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", i8(0, 1, 1<<60)), []string{"label [2] is 1152921504606846976", "2^53"}},
		{"one-point", x32("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", f8(1)), x32("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", i8(0)), []string{"1 point(s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNPY(bytes.NewReader(tc.x), bytes.NewReader(tc.y), "t.npy", NPYOptions{MaxElements: 1 << 16})
			var pe *ParseError
			if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "t.npy") {
				t.Fatalf("err = %v, want a *ParseError naming t.npy", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
			if tc.name == "too-many" && !errors.Is(err, ErrTooLarge) {
				t.Errorf("errors.Is(err, ErrTooLarge) = false")
			}
		})
	}
}

func TestNPYFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	okX := npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(1, 2, 3))
	lone := write("features.npy", okX)
	_, err := Load(lone, LoadOptions{})
	wantErr(t, err, lone, ": ", "cannot tell where the labels are", "X.npy", "NPYOptions.Labels")
	x := write("run1_X.npy", okX)
	_, err = Load(x, LoadOptions{})
	wantErr(t, err, x, ": ", "no labels file beside the features", "run1_y.npy, run1_Y.npy, run1_labels.npy, run1_label.npy")
	write("run1_labels.npy", goodY)
	ds, err := Load(x, LoadOptions{})
	if err != nil || ds.N != 3 {
		t.Fatalf("run1_X.npy with run1_labels.npy: %v", err)
	}
	ds.Close()
	// Explicit labels, in the options; a missing labels file.
	ds, err = Load(lone, LoadOptions{NPY: NPYOptions{Labels: filepath.Join(dir, "run1_labels.npy")}})
	if err != nil || ds.N != 3 {
		t.Fatalf("explicit labels: %v", err)
	}
	ds.Close()
	_, err = Load(lone, LoadOptions{NPY: NPYOptions{Labels: filepath.Join(dir, "nope.npy")}})
	wantErr(t, err, filepath.Join(dir, "nope.npy"), ": ", "no such file")
	// A truncated file names the file and the sizes.
	tr := write("t_X.npy", okX[:len(okX)-5])
	write("t_y.npy", goodY)
	_, err = Load(tr, LoadOptions{})
	wantErr(t, err, tr, ": ", "truncated", "needs 24 bytes", "the file has 19")
	// The element limit of LoadOptions applies.
	_, err = Load(x, LoadOptions{MaxElements: 2})
	wantErr(t, err, x, ": ", "data too large", "limit is 2 values")
	// A labels file that is not .npy.
	bad := write("b_X.npy", okX)
	write("b_y.npy", []byte("0\n1\n1\n"))
	_, err = Load(bad, LoadOptions{})
	wantErr(t, err, filepath.Join(dir, "b_y.npy"), ": ", "not a .npy file")
	// Content sniffing without an extension.
	write("X", okX)
	write("y.npy", goodY)
	ds, err = Load(filepath.Join(dir, "X"), LoadOptions{})
	if err != nil || ds.N != 3 || !strings.Contains(ds.Source, "NumPy") {
		t.Errorf("X without extension: %v", err)
	}
	npz, _ := os.ReadFile(filepath.Join("testdata", "npy", "data.npz"))
	write("archive", npz)
	ds, err = Load(filepath.Join(dir, "archive"), LoadOptions{})
	if err != nil || ds.N != 5 {
		t.Errorf("npz without extension: %v", err)
	}
}

func zipOf(t *testing.T, method uint16, files ...any) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for k := 0; k < len(files); k += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: files[k].(string), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[k+1].([]byte))
	}
	zw.Close()
	return b.Bytes()
}

func TestNPZ(t *testing.T) {
	okX := npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", f8(1, 2, 3))
	for _, tc := range []struct {
		name string
		zip  []byte
		want []string // error fragments; nil: success
	}{
		{"stored", zipOf(t, zip.Store, "x.npy", okX, "label.npy", goodY), nil},
		{"deflated", zipOf(t, zip.Deflate, "X.npy", okX, "Y.npy", goodY), nil},
		{"other-files", zipOf(t, zip.Deflate, "README", []byte("hi"), "X.npy", okX, "y.npy", goodY), nil},
		{"no-X", zipOf(t, zip.Store, "a.npy", okX, "y.npy", goodY), []string{"no features array", "a, y", "X or x"}},
		{"no-y", zipOf(t, zip.Store, "X.npy", okX, "b.npy", goodY, "c.npy", goodY), []string{"no labels array", "X, b, c", "y or Y or labels or label"}},
		{"both-X", zipOf(t, zip.Store, "X.npy", okX, "x.npy", okX, "y.npy", goodY), []string{"ambiguous features", "X and x"}},
		{"empty", zipOf(t, zip.Store), []string{"no features array", "no .npy arrays"}},
		{"bad-member", zipOf(t, zip.Deflate, "X.npy", []byte("nope"), "y.npy", goodY), []string{"t.npz: X.npy: not a .npy file"}},
		{"truncated-member", zipOf(t, zip.Deflate, "X.npy", okX[:len(okX)-1], "y.npy", goodY), []string{"t.npz: X.npy: truncated", "the array has 23"}},
		{"truncated-stored", zipOf(t, zip.Store, "X.npy", okX[:len(okX)-1], "y.npy", goodY), []string{"t.npz: X.npy: truncated", "the file has 23"}},
		{"not-zip", []byte("hello, world"), []string{"not a .npz file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := ParseNPZ(bytes.NewReader(tc.zip), int64(len(tc.zip)), "t.npz", NPYOptions{})
			if tc.want == nil {
				if err != nil || ds.N != 3 || !slices.Equal(ds.X, []float64{1, 2, 3}) || !slices.Equal(ds.Class, []int32{0, 1, 1}) {
					t.Fatalf("%v %v", ds, err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
	// A corrupted compressed member fails its checksum.
	z := zipOf(t, zip.Deflate, "X.npy", okX, "y.npy", goodY)
	zr, _ := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	off, _ := zr.File[0].DataOffset()
	bad := slices.Clone(z)
	bad[off+int64(zr.File[0].CompressedSize64)-3] ^= 0x55
	if _, err := ParseNPZ(bytes.NewReader(bad), int64(len(bad)), "t.npz", NPYOptions{}); err == nil {
		t.Error("corrupt deflate stream: no error")
	}
	// Labels from a separate file: the archive needs only the features.
	dir := t.TempDir()
	yp := filepath.Join(dir, "y.npy")
	os.WriteFile(yp, goodY, 0o644)
	z = zipOf(t, zip.Store, "features.npy", okX)
	ds, err := ParseNPZ(bytes.NewReader(z), int64(len(z)), "t.npz", NPYOptions{Labels: yp})
	if err != nil || ds.N != 3 || !strings.Contains(ds.Source, yp) {
		t.Errorf("npz with labels file: %v", err)
	}
}

// TestNPYWorkers: the conversion gives the same result for any worker count,
// in C and Fortran order, from a file, a mapping and a stream.
func TestNPYWorkers(t *testing.T) {
	const n, d = 70001, 3
	dir := t.TempDir()
	vals := make([]float64, n*d)
	for k := range vals {
		vals[k] = float64(k%1000) - 0.25
	}
	labels := make([]int64, n)
	for i := range labels {
		labels[i] = int64(i % 3)
	}
	os.WriteFile(filepath.Join(dir, "y.npy"), npyFile(1, fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", n), i8(labels...)), 0o644)
	var ref []float64
	for _, fortran := range []string{"False", "True"} {
		for _, descr := range []string{"<f8", ">f8"} {
			raw := f8(vals...)
			if descr == ">f8" {
				for k := 0; k < len(raw); k += 8 {
					slices.Reverse(raw[k : k+8])
				}
			}
			x := npyFile(1, fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%d, %d), }", descr, fortran, n, d), raw)
			path := filepath.Join(dir, "X.npy")
			os.WriteFile(path, x, 0o644)
			for _, w := range []int{1, 2, 3, 8} {
				for _, noMap := range []bool{false, true} {
					ds, err := LoadNPY(path, NPYOptions{Workers: w, NoMap: noMap})
					if err != nil {
						t.Fatal(err)
					}
					want := vals
					if fortran == "True" {
						want = make([]float64, n*d)
						for k, v := range vals {
							want[(k%n)*d+k/n] = v
						}
					}
					if !slices.Equal(ds.X, want) {
						t.Fatalf("fortran %s %s, %d workers, NoMap %v: X differs", fortran, descr, w, noMap)
					}
					ref = ds.X
					ds.Close()
				}
			}
			ds, err := ParseNPY(bytes.NewReader(x), bytes.NewReader(npyFile(1, fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", n), i8(labels...))), "s", NPYOptions{})
			if err != nil || !slices.Equal(ds.X, ref) {
				t.Fatalf("stream: %v", err)
			}
		}
	}
	// The first non-finite value in storage order is reported, whatever the
	// worker count.
	vals[5*d+1], vals[60000*d+2] = math.Inf(1), math.NaN()
	os.WriteFile(filepath.Join(dir, "X.npy"), npyFile(1, fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, d), f8(vals...)), 0o644)
	for _, w := range []int{1, 2, 8} {
		for _, noMap := range []bool{false, true} {
			_, err := LoadNPY(filepath.Join(dir, "X.npy"), NPYOptions{Workers: w, NoMap: noMap})
			if err == nil || !strings.Contains(err.Error(), "element [5, 1] is +Inf") {
				t.Errorf("%d workers, NoMap %v: err = %v", w, noMap, err)
			}
		}
	}
}

// TestNPYAllocationBound: a header that declares the largest array the limit
// allows, followed by no data, allocates no more than that array (plus the
// decoding buffers); one over the limit allocates nothing of its size.
func TestNPYAllocationBound(t *testing.T) {
	const limit = 1 << 16
	for _, tc := range []struct {
		dict  string
		bound uint64
	}{
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (65536, 1), }", 8*limit + 1<<20},
		{"{'descr': '<f4', 'fortran_order': True, 'shape': (256, 256), }", 8*limit + 1<<20},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (65537, 1), }", 1 << 20},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (1125899906842624, 1024), }", 1 << 20},
	} {
		x := npyFile(1, tc.dict, nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ParseNPY(bytes.NewReader(x), bytes.NewReader(goodY), "t", NPYOptions{MaxElements: limit, Workers: 1})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: no error", tc.dict)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > tc.bound {
			t.Errorf("%s: allocated %d bytes, bound %d", tc.dict, got, tc.bound)
		}
	}
}

// BenchmarkLoadNPY10M loads a 10⁷×16 float64 X.npy (1.2 GiB, memory-mapped)
// with int64 labels; "read" is the same with NoMap (read and converted).
func BenchmarkLoadNPY10M(b *testing.B) {
	const n, d = 10_000_000, 16
	dir := b.TempDir()
	writeBig := func(name, dict string, elem int, fill func(k int, dst []byte)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		f.Write(npyFile(1, dict, nil))
		buf := make([]byte, 1<<20)
		for k := 0; k < n*elem; {
			m := min(len(buf)/8, n*elem-k)
			for e := 0; e < m; e++ {
				fill(k+e, buf[8*e:])
			}
			if _, err := f.Write(buf[:8*m]); err != nil {
				b.Fatal(err)
			}
			k += m
		}
		f.Close()
	}
	writeBig("X.npy", fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, d), d, func(k int, dst []byte) {
		binary.LittleEndian.PutUint64(dst, math.Float64bits(float64(k%1000)*0.001))
	})
	writeBig("y.npy", fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", n), 1, func(k int, dst []byte) {
		binary.LittleEndian.PutUint64(dst, uint64(k%2))
	})
	for _, mode := range []struct {
		name string
		opt  NPYOptions
	}{{"mapped", NPYOptions{}}, {"read", NPYOptions{NoMap: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				ds, err := LoadNPY(filepath.Join(dir, "X.npy"), mode.opt)
				if err != nil {
					b.Fatal(err)
				}
				ds.Close()
			}
		})
	}
}
