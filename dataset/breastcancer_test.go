package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestBreastCancerChecksum(t *testing.T) {
	if len(breastCancerData) != 19889 {
		t.Errorf("embedded file is %d bytes, want 19889", len(breastCancerData))
	}
	sum := sha256.Sum256(breastCancerData)
	if got := hex.EncodeToString(sum[:]); got != BreastCancerSHA256 {
		t.Fatalf("embedded %s has SHA-256 %s, want %s", BreastCancerFile, got, BreastCancerSHA256)
	}
	if BreastCancerSHA256 != "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64" {
		t.Fatal("BreastCancerSHA256 constant changed")
	}
	if !strings.Contains(BreastCancerNotice, "CC BY 4.0") || !strings.Contains(BreastCancerNotice, "10.24432/C5HP4Z") {
		t.Error("licence notice lacks the licence or the DOI")
	}
	if !strings.Contains(BreastCancerCitation, "10.24432/C5HP4Z") {
		t.Error("citation lacks the DOI")
	}
}

// rawBreastCancer parses the embedded file independently of ParseCSV.
func rawBreastCancer(t *testing.T) (fields [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(breastCancerData), "\n"), "\n")
	for i, l := range lines {
		f := strings.Split(l, ",")
		if len(f) != 11 {
			t.Fatalf("raw line %d has %d fields", i+1, len(f))
		}
		fields = append(fields, f)
	}
	return fields
}

var breastCancerMissingLines = []int{24, 41, 140, 146, 159, 165, 236, 250, 276, 293, 295, 298, 316, 322, 412, 618}

func TestBreastCancer(t *testing.T) {
	ds, err := BreastCancer()
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 699 || ds.D != 9 || len(ds.X) != 699*9 {
		t.Fatalf("N, D, len(X) = %d, %d, %d; want 699, 9, 6291", ds.N, ds.D, len(ds.X))
	}
	if ds.Name != "breast-cancer" || !strings.Contains(ds.Source, "10.24432/C5HP4Z") {
		t.Errorf("Name %q, Source %q", ds.Name, ds.Source)
	}
	if !slices.Equal(ds.ClassNames, []string{"2", "4"}) {
		t.Fatalf("ClassNames = %q, want [2 4]", ds.ClassNames)
	}
	if c := ds.ClassCounts(); !slices.Equal(c, []int{458, 241}) {
		t.Fatalf("ClassCounts = %v, want [458 241]", c)
	}
	y, err := ds.Binary()
	if err != nil {
		t.Fatal(err)
	}
	if ds.PositiveClass() != 1 {
		t.Errorf("PositiveClass = %d, want 1 (class \"4\")", ds.PositiveClass())
	}
	raw := rawBreastCancer(t)
	pos, neg := 0, 0
	for i, f := range raw {
		want := int8(-1)
		if f[10] == "4" {
			want = 1
		} else if f[10] != "2" {
			t.Fatalf("line %d: class %q", i+1, f[10])
		}
		if y[i] != want {
			t.Fatalf("line %d: Binary label %d, raw class %s", i+1, y[i], f[10])
		}
		if y[i] == 1 {
			pos++
		} else {
			neg++
		}
	}
	if pos != 241 || neg != 458 {
		t.Fatalf("#pos, #neg = %d, %d; want 241 (malignant), 458 (benign)", pos, neg)
	}
	// R_n(0) for the logistic AUC loss with the paper's 1/n² normalization.
	r0 := float64(pos) * float64(neg) * math.Ln2 / (699.0 * 699.0)
	if math.Abs(r0-0.156586) > 5e-7 {
		t.Errorf("R_n(0) = %.7f, want 0.156586", r0)
	}

	// Column statistics of the standardized features.
	for j := 0; j < ds.D; j++ {
		m, ss := 0.0, 0.0
		for i := 0; i < ds.N; i++ {
			m += ds.X[i*ds.D+j]
		}
		m /= float64(ds.N)
		for i := 0; i < ds.N; i++ {
			c := ds.X[i*ds.D+j] - m
			ss += c * c
		}
		sd := math.Sqrt(ss / float64(ds.N))
		if math.Abs(m) > 1e-12 || math.Abs(sd-1) > 1e-12 {
			t.Errorf("feature %d: mean %g, population std %.15f", j, m, sd)
		}
	}

	// Independent preprocessing: median-impute column 7 with 1, z-score.
	var missing []int
	var observed []float64
	for i, f := range raw {
		if f[6] == "?" {
			missing = append(missing, i+1)
		} else {
			v, _ := strconv.ParseFloat(f[6], 64)
			observed = append(observed, v)
		}
	}
	if !slices.Equal(missing, breastCancerMissingLines) {
		t.Fatalf("'?' lines = %v, want %v", missing, breastCancerMissingLines)
	}
	if med := columnMedian(slices.Clone(observed)); med != 1 {
		t.Errorf("observed median of column 7 = %v, want 1", med)
	}
	if mean := columnMean(observed); math.Abs(mean-3.5447) > 5e-5 {
		t.Errorf("observed mean of column 7 = %v, want 3.5447", mean)
	}
	for j := 0; j < 9; j++ {
		col := make([]float64, 699)
		for i, f := range raw {
			s := f[j+1]
			if s == "?" {
				s = "1"
			}
			col[i], _ = strconv.ParseFloat(s, 64)
		}
		m := 0.0
		for _, v := range col {
			m += v
		}
		m /= 699
		ss := 0.0
		for _, v := range col {
			ss += (v - m) * (v - m)
		}
		sd := math.Sqrt(ss / 699)
		for i, v := range col {
			want := (v - m) / sd
			if got := ds.X[i*9+j]; math.Abs(got-want) > 1e-12 {
				t.Fatalf("line %d, file column %d: %v, want %v", i+1, j+2, got, want)
			}
		}
		if j == 5 { // file column 7
			want := (1 - m) / sd
			for _, line := range breastCancerMissingLines {
				if got := ds.X[(line-1)*9+5]; math.Abs(got-want) > 1e-12 {
					t.Errorf("imputed cell, line %d: %v, want the standardized 1 = %v", line, got, want)
				}
				// Line 1 has a 1 in column 7: the imputed cells hold the same value.
				if ds.X[(line-1)*9+5] != ds.X[0*9+5] {
					t.Errorf("imputed cell, line %d differs from line 1's 1", line)
				}
			}
		}
	}

	// Each call is a fresh copy.
	ds.X[0] = 42
	ds2, err := BreastCancer()
	if err != nil {
		t.Fatal(err)
	}
	if ds2.X[0] == 42 {
		t.Error("BreastCancer returned shared storage")
	}
}
