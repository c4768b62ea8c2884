package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dtypes are every element type ParseDtype accepts, in both byte orders
// where the order matters.
var dtypes = []string{"<f8", ">f8", "<f4", ">f4", "<i8", ">i8", "<i4", ">i4", "<i2", ">i2", "|i1",
	"<u8", ">u8", "<u4", ">u4", "<u2", ">u2", "|u1", "|b1"}

func TestEveryDtypeParses(t *testing.T) {
	for _, d := range dtypes {
		if _, err := ParseDtype(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	for _, d := range []string{"<c16", "<f2", "<i3", "|f8", "<U4", "O"} {
		if _, err := ParseDtype(d); err == nil {
			t.Errorf("%s accepted", d)
		}
	}
}

// TestRoundTripGo: Write then Read gives the same shape and bits (NaN,
// ±Inf and -0 included), and the file is 64-byte aligned.
func TestRoundTripGo(t *testing.T) {
	data := []float64{1.5, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat64, 3}
	for _, shape := range [][]int{{8}, {2, 4}, {4, 2}, {2, 2, 2}, {0, 3}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		var b bytes.Buffer
		if err := Write(&b, shape, data[:n]); err != nil {
			t.Fatal(err)
		}
		if int64(b.Len()) != Size(shape...) || (b.Len()-8*n)%64 != 0 {
			t.Fatalf("%v: %d bytes, Size %d", shape, b.Len(), Size(shape...))
		}
		a, err := Read(&b)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if len(a.Shape) != len(shape) {
			t.Fatalf("shape %v read as %v", shape, a.Shape)
		}
		for i := range a.Data {
			if math.Float64bits(a.Data[i]) != math.Float64bits(data[i]) {
				t.Fatalf("%v: element %d %v, want %v", shape, i, a.Data[i], data[i])
			}
		}
	}
	if err := Write(new(bytes.Buffer), []int{2, 2}, data[:3]); err == nil {
		t.Fatal("3 elements written for a 2×2 shape")
	}
	if _, err := Read(bytes.NewReader(HeaderBytes(4, 4))); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("a file without its data: %v", err)
	}
}

// numpyScript writes, for every dtype, a C-order and a Fortran-order
// array of shape (5, 3) and a 1-D one with NumPy, with the expected values
// as float64 in C order (.f8); then it reads back the files the Go side
// wrote (go_*.npy) and checks them against the values it was given.
const numpyScript = `
import os, sys
import numpy as np
out, dtypes = sys.argv[1], sys.argv[2].split(',')
rng = np.random.default_rng(7)
def values(dt, shape):
    if dt.kind == 'f':
        v = (rng.standard_normal(shape) * 1e3).astype(dt)
        v.flat[0] = -0.0
        v.flat[1] = np.inf
        return v
    if dt.kind == 'b':
        return rng.integers(0, 2, shape).astype(dt)
    info = np.iinfo(dt)
    v = rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dt)
    v.flat[0], v.flat[1] = info.min if info.min > -2**53 else -2**53, min(info.max, 2**53)
    return v
for i, d in enumerate(dtypes):
    dt = np.dtype(d)
    for shape, order in [((5, 3), 'C'), ((5, 3), 'F'), ((7,), 'C')]:
        a = np.asarray(values(dt, shape), order=order)
        stem = os.path.join(out, '%d_%s_%d' % (i, order, len(shape)))
        np.save(stem + '.npy', a)
        a.astype('<f8').tofile(stem + '.f8')
ref = np.arange(12, dtype='<f8').reshape(3, 4) * 0.25 - 1
ref[0, 0] = -0.0
g = np.load(os.path.join(out, 'go_2d.npy'), mmap_mode='r')
assert g.dtype == np.dtype('<f8') and g.shape == (3, 4) and not np.isfortran(g), (g.dtype, g.shape)
assert np.array_equal(g, ref) and np.signbit(g[0, 0]), g
g1 = np.load(os.path.join(out, 'go_1d.npy'), mmap_mode='r')
assert g1.shape == (4,) and np.array_equal(g1, ref[1]), g1
print('ok')
`

// TestRoundTripNumPy: every dtype the reader accepts, in C and Fortran
// order, written by numpy.save and read by Read, gives NumPy's values as
// float64 bit for bit; what Write writes, numpy.load reads back (mapped)
// with the shape and values written.
func TestRoundTripNumPy(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("Debian's python3 with NumPy is not installed (apt-get install python3-numpy): the codec is checked against NumPy in CI")
	}
	dir := t.TempDir()
	ref := []float64{math.Copysign(0, -1), -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75}
	for _, c := range []struct {
		name  string
		shape []int
		data  []float64
	}{{"go_2d.npy", []int{3, 4}, ref}, {"go_1d.npy", []int{4}, ref[4:8]}} {
		f, err := os.Create(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, c.shape, c.data); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	out, err := exec.Command(py, "-c", numpyScript, dir, strings.Join(dtypes, ",")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("NumPy: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*_*_*.npy"))
	if len(files) != 3*len(dtypes) {
		t.Fatalf("%d files from NumPy, want %d", len(files), 3*len(dtypes))
	}
	seen := map[string]bool{}
	for _, f := range files {
		a, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seen[a.Header.Dtype.Descr] = true
		raw, err := os.ReadFile(strings.TrimSuffix(f, ".npy") + ".f8")
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != 8*len(a.Data) {
			t.Fatalf("%s: %d values read, NumPy wrote %d", f, len(a.Data), len(raw)/8)
		}
		for i, v := range a.Data {
			w := binary.LittleEndian.Uint64(raw[8*i:])
			if math.Float64bits(v) != w {
				t.Fatalf("%s (%s, fortran %v): element %d is %v, NumPy %v", f, a.Header.Dtype.Descr, a.Header.Fortran, i, v, math.Float64frombits(w))
			}
		}
	}
	// NumPy writes native little-endian "<" as "<", big as ">", and the
	// one-byte types as "|": every dtype of the list reached Read.
	for _, d := range dtypes {
		if !seen[d] {
			t.Errorf("dtype %s: no file of NumPy's read", d)
		}
	}
}
