package dataset

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSyntheticShapeAndBalance(t *testing.T) {
	ds, err := Synthetic(DefaultSynthetic())
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.N != 1000 || ds.D != 40 || len(ds.X) != 40000 || ds.NumClasses() != 10 {
		t.Fatalf("N, D, len(X), K = %d, %d, %d, %d", ds.N, ds.D, len(ds.X), ds.NumClasses())
	}
	for c, n := range ds.ClassCounts() {
		if n != 100 {
			t.Errorf("class %d has %d points, want 100", c, n)
		}
	}
	// Shuffled: the first 100 points are not all one class.
	first := ds.Class[0]
	same := true
	for _, c := range ds.Class[:100] {
		same = same && c == first
	}
	if same {
		t.Error("labels are not shuffled")
	}
	if _, err := ds.Binary(); err == nil || !strings.Contains(err.Error(), "synthetic") || !strings.Contains(err.Error(), "10") {
		t.Errorf("Binary on 10 classes: err = %v", err)
	}
	// R_n(0) of the metric-learning criterion with b = 2: (dissimilar pair
	// fraction)·(1+b) + (similar fraction)·max(0, 1−b) = 0.9·3 = 2.7.
	sim := 0.0
	for _, n := range ds.ClassCounts() {
		sim += float64(n) * float64(n)
	}
	sim /= float64(ds.N) * float64(ds.N)
	if r0 := (1-sim)*3 + sim*0; math.Abs(r0-2.7) > 1e-12 {
		t.Errorf("R_n(0) = %v, want 2.7", r0)
	}

	// Remainder spread over the first classes.
	cfg := DefaultSynthetic()
	cfg.N = 1003
	ds, err = Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range ds.ClassCounts() {
		want := 100
		if c < 3 {
			want = 101
		}
		if n != want {
			t.Errorf("N=1003: class %d has %d points, want %d", c, n, want)
		}
	}
}

func TestSyntheticDeterminism(t *testing.T) {
	a, err := Synthetic(DefaultSynthetic())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthetic(DefaultSynthetic())
	for i := range a.X {
		if math.Float64bits(a.X[i]) != math.Float64bits(b.X[i]) {
			t.Fatalf("X[%d] differs between two runs: %v vs %v", i, a.X[i], b.X[i])
		}
	}
	for i := range a.Class {
		if a.Class[i] != b.Class[i] {
			t.Fatalf("Class[%d] differs between two runs", i)
		}
	}
	cfg := DefaultSynthetic()
	cfg.Seed = 2
	c, _ := Synthetic(cfg)
	diffX, diffC := 0, 0
	for i := range a.X {
		if a.X[i] != c.X[i] {
			diffX++
		}
	}
	for i := range a.Class {
		if a.Class[i] != c.Class[i] {
			diffC++
		}
	}
	if diffX < len(a.X)*9/10 || diffC < 500 {
		t.Errorf("seed 2 vs seed 1: %d of %d values and %d of %d labels differ", diffX, len(a.X), diffC, len(a.Class))
	}
}

func TestSyntheticSubspaceAndVariance(t *testing.T) {
	cfg := DefaultSynthetic()
	ds, u, means, err := synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, s, k := cfg.D, cfg.S, cfg.K

	// UᵀU = I_S.
	U := mat.NewDense(d, s, u)
	var utu mat.Dense
	utu.Mul(U.T(), U)
	for i := 0; i < s; i++ {
		for j := 0; j < s; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(utu.At(i, j)-want) > 1e-13 {
				t.Fatalf("UᵀU[%d,%d] = %v", i, j, utu.At(i, j))
			}
		}
	}

	// The K×D mean matrix has rank S: singular values beyond S vanish.
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(k, d, means), mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	sv := svd.Values(nil)
	for i := s; i < len(sv); i++ {
		if sv[i] > 1e-12*sv[0] {
			t.Errorf("singular value %d of the means = %g (largest %g): means not in an %d-dim subspace", i+1, sv[i], sv[0], s)
		}
	}
	if sv[s-1] < 1e-3*sv[0] {
		t.Errorf("singular value %d = %g: means span fewer than %d dimensions", s, sv[s-1], s)
	}
	// The means lie in span(U): μ − U Uᵀ μ = 0.
	for c := 0; c < k; c++ {
		mu := mat.NewVecDense(d, means[c*d:(c+1)*d])
		var coef, proj mat.VecDense
		coef.MulVec(U.T(), mu)
		proj.MulVec(U, &coef)
		proj.SubVec(mu, &proj)
		if n := mat.Norm(&proj, 2); n > 1e-12 {
			t.Errorf("class %d mean is %g away from span(U)", c, n)
		}
	}

	// Within-class variance ≈ σ² per coordinate; class sample means ≈ μ_c.
	n := ds.N
	sum := make([]float64, k*d)
	cnt := make([]int, k)
	for i := 0; i < n; i++ {
		c := int(ds.Class[i])
		cnt[c]++
		for j := 0; j < d; j++ {
			sum[c*d+j] += ds.X[i*d+j]
		}
	}
	for c := 0; c < k; c++ {
		for j := 0; j < d; j++ {
			sum[c*d+j] /= float64(cnt[c])
			// The sample mean of 100 points has std σ/10 = 0.05; allow 5 std.
			if e := math.Abs(sum[c*d+j] - means[c*d+j]); e > 0.25 {
				t.Errorf("class %d, coordinate %d: sample mean is %v from μ", c, j, e)
			}
		}
	}
	sigma2 := cfg.Sigma * cfg.Sigma
	total := 0.0
	for j := 0; j < d; j++ {
		ss := 0.0
		for i := 0; i < n; i++ {
			r := ds.X[i*d+j] - means[int(ds.Class[i])*d+j]
			ss += r * r
		}
		v := ss / float64(n)
		total += v
		// 1000 samples: relative std of the variance estimate ≈ 4.5 %.
		if math.Abs(v/sigma2-1) > 0.25 {
			t.Errorf("coordinate %d: within-class variance %v, want ≈ σ² = %v", j, v, sigma2)
		}
	}
	if v := total / float64(d); math.Abs(v/sigma2-1) > 0.05 {
		t.Errorf("average within-class variance %v, want ≈ σ² = %v", v, sigma2)
	}
}

func TestSyntheticConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		mod   func(*SyntheticConfig)
		field string
	}{
		{func(c *SyntheticConfig) { c.K = 1 }, "K"},
		{func(c *SyntheticConfig) { c.N = 5 }, "N"},
		{func(c *SyntheticConfig) { c.D = 0; c.S = 0 }, "D"},
		{func(c *SyntheticConfig) { c.S = 0 }, "S"},
		{func(c *SyntheticConfig) { c.S = 41 }, "S"},
		{func(c *SyntheticConfig) { c.Sigma = 0 }, "Sigma"},
		{func(c *SyntheticConfig) { c.Sigma = math.NaN() }, "Sigma"},
		{func(c *SyntheticConfig) { c.Sigma = math.Inf(1) }, "Sigma"},
		{func(c *SyntheticConfig) { c.MeanScale = -1 }, "MeanScale"},
		{func(c *SyntheticConfig) { c.N = 1 << 30; c.D = 1 << 10 }, "would need"},
	} {
		cfg := DefaultSynthetic()
		tc.mod(&cfg)
		_, err := Synthetic(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: err = %v, want one naming %s", cfg, err, tc.field)
		}
	}
	// Small but legal: S = D, K = N.
	cfg := SyntheticConfig{N: 3, D: 2, K: 3, S: 2, MeanScale: 0, Sigma: 1, Seed: 7}
	ds, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
}
