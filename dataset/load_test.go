package dataset

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	ds, err := Load("breast-cancer", LoadOptions{})
	if err != nil || ds.N != 699 || ds.D != 9 {
		t.Fatalf("breast-cancer: %v", err)
	}

	ds, err = Load("synthetic", LoadOptions{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultSynthetic()
	cfg.Seed = 5
	want, _ := Synthetic(cfg)
	if !slices.EqualFunc(ds.X, want.X, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
		t.Error(`Load("synthetic", Seed 5) differs from Synthetic with Seed 5`)
	}

	missing := filepath.Join(t.TempDir(), "nope.csv")
	_, err = Load(missing, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "breast-cancer") {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err = Load("", LoadOptions{}); err == nil {
		t.Error("empty spec: no error")
	}
	dir := t.TempDir()
	if _, err = Load(dir, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v", err)
	}

	// Format choice.
	svm := "# header comment\n1 1:1 2:3\n-1 2:1\n"
	for _, name := range []string{"a.svm", "a.libsvm", "a.txt", "a"} {
		path := writeFile(t, name, svm)
		ds, err := Load(path, LoadOptions{})
		if err != nil || ds.D != 2 || !strings.Contains(ds.Source, "LIBSVM") {
			t.Errorf("%s: %v, err %v", name, ds, err)
		}
	}
	csv := "1 2 0\n3 4 1\n"
	for _, name := range []string{"b.csv", "b.txt", "b.data", "b"} {
		path := writeFile(t, name, csv)
		ds, err := Load(path, LoadOptions{CSV: CSVOptions{Standardize: true}})
		if err != nil || ds.D != 2 || !strings.Contains(ds.Source, "CSV") || ds.X[0] != -1 {
			t.Errorf("%s: %v, err %v", name, ds, err)
		}
	}
	// A .svm file with options passes them on.
	path := writeFile(t, "c.svm", svm)
	if _, err := Load(path, LoadOptions{LIBSVM: LIBSVMOptions{D: 1}}); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("LIBSVM options not applied: err = %v", err)
	}
}
