package dataset

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// numpyScript writes, for each case k, the features case_k/X.npy and the
// labels case_k/y.npy (or one case_k/data.npz) with NumPy, plus the expected
// values as raw little-endian float64 in C order (case_k/X.f8, case_k/y.f8).
const numpyScript = `
import os, sys
import numpy as np
rng = np.random.default_rng(12345)
out = sys.argv[1]
dtypes = ['<f8', '<f4', '>f8', '>f4', '<i8', '<i4', '>i4', '<i2', '|i1', '|u1', '<u2', '<u4', '<u8', '|b1']
shapes = [(37, 5), (2, 1), (41,), (1000, 16)]
k = 0
def values(dt, shape):
    if dt.kind == 'f':
        return (rng.standard_normal(shape) * 100).astype(dt)
    if dt.kind == 'b':
        return rng.integers(0, 2, shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dt)
for xd in dtypes:
    for shape in shapes:
        for order in 'CF':
            for how in ['npy', 'npz', 'npz_compressed']:
                xdt = np.dtype(xd)
                X = np.asarray(values(xdt, shape), order=order)
                yd = np.dtype(dtypes[k % len(dtypes)])
                y = values(yd, (shape[0],))
                y[0], y[1] = (0, 1) if yd.kind in 'bu' else (-1, 1)  # two classes at least
                d = os.path.join(out, 'case_%d' % k)
                os.makedirs(d)
                if how == 'npy':
                    np.save(os.path.join(d, 'X.npy'), X)
                    np.save(os.path.join(d, 'y.npy'), y)
                elif how == 'npz':
                    np.savez(os.path.join(d, 'data.npz'), X=X, y=y)
                else:
                    np.savez_compressed(os.path.join(d, 'data.npz'), X=X, labels=y)
                X.astype('<f8').tofile(os.path.join(d, 'X.f8'))
                y.astype('<f8').tofile(os.path.join(d, 'y.f8'))
                with open(os.path.join(d, 'info'), 'w') as f:
                    f.write('%s %s %s %s %s' % (xd, yd.str, order, how, 'x'.join(map(str, shape))))
                k += 1
print(k)
`

func TestNPYAgainstNumPy(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("no NumPy for /usr/bin/python3 (apt-get install python3-numpy)")
	}
	if testing.Short() {
		t.Skip("slow (runs Python); not in -short")
	}
	dir := t.TempDir()
	out, err := exec.Command(py, "-c", numpyScript, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "case_*"))
	if len(cases) < 300 {
		t.Fatalf("only %d cases written", len(cases))
	}
	mapped := 0
	for _, c := range cases {
		info, _ := os.ReadFile(filepath.Join(c, "info"))
		spec := filepath.Join(c, "X.npy")
		if strings.Contains(string(info), "npz") {
			spec = filepath.Join(c, "data.npz")
		}
		ds, err := Load(spec, LoadOptions{Workers: 3})
		if err != nil {
			t.Errorf("%s (%s): %v", c, info, err)
			continue
		}
		wantX := readF8(t, filepath.Join(c, "X.f8"))
		wantY := readF8(t, filepath.Join(c, "y.f8"))
		if ds.N != len(wantY) || len(ds.X) != len(wantX) || !sameBits(ds.X, wantX) {
			t.Errorf("%s (%s): X differs from NumPy's", c, info)
		}
		uniq := slices.Clone(wantY)
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
		if len(ds.ClassNames) != len(uniq) {
			t.Errorf("%s (%s): %d classes, NumPy has %d distinct labels", c, info, len(ds.ClassNames), len(uniq))
			continue
		}
		for i, v := range wantY {
			if k, _ := slices.BinarySearch(uniq, v); int(ds.Class[i]) != k {
				t.Fatalf("%s (%s): row %d has class %d, want %d (label %v)", c, info, i, ds.Class[i], k, v)
			}
		}
		if ds.Mapped() {
			mapped++
		}
		ds.Close()
	}
	if canMap && mapped == 0 {
		t.Error("no case was memory-mapped")
	}
	t.Logf("%d NumPy files read, %d memory-mapped", len(cases), mapped)
}

func readF8(t *testing.T, path string) []float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}
