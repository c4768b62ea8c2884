package dataset

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestSyntheticLargeWorkers: the counter-based generators give the same bits
// for 1, 2, 3 and 8 workers.
func TestSyntheticLargeWorkers(t *testing.T) {
	gens := map[string]func(w int) (*Dataset, error){
		"auc": func(w int) (*Dataset, error) {
			return SyntheticAUC(SyntheticAUCConfig{N: 10007, D: 3, Separation: 1.5, PositiveFraction: 0.3, Seed: 9, Workers: w})
		},
		"metric": func(w int) (*Dataset, error) {
			return SyntheticMetric(SyntheticConfig{N: 10007, D: 7, K: 13, S: 3, MeanScale: 1, Sigma: 0.5, Seed: 9, Workers: w})
		},
	}
	for name, gen := range gens {
		ref, err := gen(1)
		if err != nil {
			t.Fatal(err)
		}
		if err := ref.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 3, 8} {
			ds, err := gen(w)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(ds.X, ref.X) || !slices.Equal(ds.Class, ref.Class) {
				t.Errorf("%s: %d workers give other data than 1 worker", name, w)
			}
		}
	}
}

// TestSyntheticLargeGolden pins the counter-based generators' output (a change
// to internal/crng or to the constructions shows up here).
func TestSyntheticLargeGolden(t *testing.T) {
	auc, err := SyntheticAUC(DefaultSyntheticAUC())
	if err != nil {
		t.Fatal(err)
	}
	met, err := SyntheticMetric(DefaultSynthetic())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ds   *Dataset
		want string
	}{
		{"auc", auc, "62ccb4caf61c8b33cce139a8266032d21eb3e94328d5a9a7f00d4385cf1bb908"},
		{"metric", met, "c4809600beb7d0eaf1e8f9cb43f8d04bda4ec644d770e59f58cdb30f903f5a31"},
	} {
		if got := checksum(tc.ds); got != tc.want {
			t.Errorf("%s: checksum %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestSyntheticAUCModel(t *testing.T) {
	cfg := SyntheticAUCConfig{N: 40000, D: 4, Separation: 2, PositiveFraction: 0.25, Seed: 3}
	ds, err := SyntheticAUC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if c := ds.ClassCounts(); c[1] != 10000 || c[0] != 30000 {
		t.Errorf("class counts %v, want [30000 10000]", c)
	}
	y, err := ds.Binary()
	if err != nil {
		t.Fatal(err)
	}
	// Per class and coordinate: mean ±Separation/(2√D) = ±0.5, variance 1.
	n, d := ds.N, ds.D
	for _, cls := range []int8{-1, 1} {
		for j := 0; j < d; j++ {
			var s, ss float64
			cnt := 0
			for i := 0; i < n; i++ {
				if y[i] == cls {
					v := ds.X[i*d+j]
					s += v
					ss += v * v
					cnt++
				}
			}
			mean := s / float64(cnt)
			v := ss/float64(cnt) - mean*mean
			if math.Abs(mean-0.5*float64(cls)) > 5/math.Sqrt(float64(cnt)) || math.Abs(v-1) > 0.05 {
				t.Errorf("class %d coordinate %d: mean %v variance %v", cls, j, mean, v)
			}
		}
	}
	// The AUC of the score Σ_j x_ij is Φ(Separation/√2) ≈ 0.9214.
	score := make([]float64, n)
	for i := range score {
		for _, v := range ds.Row(i) {
			score[i] += v
		}
	}
	if got, want := empiricalAUC(score, y), 0.5*math.Erfc(-cfg.Separation/2); math.Abs(got-want) > 0.01 {
		t.Errorf("AUC of the diagonal scorer %v, want ≈ %v", got, want)
	}
	// Not sorted by class: positives spread over the rows.
	first := 0
	for i := 0; i < n/2; i++ {
		if y[i] == 1 {
			first++
		}
	}
	if math.Abs(float64(first)-5000) > 300 {
		t.Errorf("%d of the 10000 positives in the first half of the rows", first)
	}
	// Neighbouring rows are independent: P(y_i = y_{i+1}) = 0.25² + 0.75².
	same := 0
	for i := 0; i+1 < n; i++ {
		if y[i] == y[i+1] {
			same++
		}
	}
	if f := float64(same) / float64(n-1); math.Abs(f-0.625) > 0.015 {
		t.Errorf("neighbouring rows share the class %.4f of the time, want 0.625", f)
	}
	// The rounding of the positive count, clamped to [1, N-1].
	for _, tc := range []struct {
		n    int
		frac float64
		want int
	}{{2, 0.5, 1}, {2, 0.01, 1}, {2, 0.99, 1}, {10, 0.25, 3}, {10, 0.24, 2}, {1000, 0.999, 999}} {
		c := SyntheticAUCConfig{N: tc.n, D: 1, Separation: 1, PositiveFraction: tc.frac}
		ds, err := SyntheticAUC(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := ds.ClassCounts()[1]; got != tc.want {
			t.Errorf("N=%d PositiveFraction=%v: %d positives, want %d", tc.n, tc.frac, got, tc.want)
		}
	}
}

// empiricalAUC is the fraction of (positive, negative) pairs ordered right
// (ties count half), by sorting.
func empiricalAUC(score []float64, y []int8) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(score[a], score[b]) })
	var neg, pos, good float64
	for _, i := range idx {
		if y[i] == 1 {
			good += neg
			pos++
		} else {
			neg++
		}
	}
	return good / (pos * neg)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSyntheticMetricModel(t *testing.T) {
	cfg := SyntheticConfig{N: 20003, D: 12, K: 7, S: 4, MeanScale: 1.5, Sigma: 0.5, Seed: 4}
	ds, u, means, err := syntheticMetric(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	for c, n := range ds.ClassCounts() {
		want := 20003 / 7
		if c < 20003%7 {
			want++
		}
		if n != want {
			t.Errorf("class %d has %d points, want %d", c, n, want)
		}
	}
	d, s, k := cfg.D, cfg.S, cfg.K
	U := mat.NewDense(d, s, u)
	var utu mat.Dense
	utu.Mul(U.T(), U)
	if !mat.EqualApprox(&utu, eye(s), 1e-13) {
		t.Errorf("UᵀU = %v", mat.Formatted(&utu))
	}
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
	// Residuals from the class means have variance σ².
	ss := 0.0
	for i := 0; i < ds.N; i++ {
		c := int(ds.Class[i])
		for j := 0; j < d; j++ {
			r := ds.X[i*d+j] - means[c*d+j]
			ss += r * r
		}
	}
	if v := ss / float64(ds.N*d); math.Abs(v/(cfg.Sigma*cfg.Sigma)-1) > 0.02 {
		t.Errorf("within-class variance %v, want %v", v, cfg.Sigma*cfg.Sigma)
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

func TestLoadSyntheticLarge(t *testing.T) {
	ds, err := Load(SpecSyntheticAUC, LoadOptions{N: 500, Dim: 3, Seed: 2, Workers: 2})
	if err != nil || ds.N != 500 || ds.D != 3 || ds.NumClasses() != 2 || ds.Name != SpecSyntheticAUC {
		t.Fatalf("synthetic-auc: %v", err)
	}
	want, _ := SyntheticAUC(SyntheticAUCConfig{N: 500, D: 3, Separation: 2, PositiveFraction: 0.5, Seed: 2})
	if !sameBits(ds.X, want.X) || !slices.Equal(ds.Class, want.Class) {
		t.Error("Load(synthetic-auc) differs from SyntheticAUC with the defaults")
	}
	ds, err = Load(SpecSyntheticAUC, LoadOptions{Separation: 0.5, PositiveFraction: 0.1})
	if err != nil || ds.N != DefaultAUCN || ds.D != DefaultAUCDim || ds.ClassCounts()[1] != 100 || !strings.Contains(ds.Source, "Separation=0.5") {
		t.Fatalf("synthetic-auc defaults: %v %v", ds, err)
	}

	ds, err = Load(SpecSyntheticMetric, LoadOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultSynthetic()
	cfg.Seed = 3
	wantM, _ := SyntheticMetric(cfg)
	if ds.N != 1000 || ds.D != 40 || ds.NumClasses() != 10 || !sameBits(ds.X, wantM.X) {
		t.Error("Load(synthetic-metric) with no sizes is not SyntheticMetric(DefaultSynthetic())")
	}
	ds, err = Load(SpecSyntheticMetric, LoadOptions{N: 300, Dim: 3, Classes: 4})
	if err != nil || ds.N != 300 || ds.D != 3 || ds.NumClasses() != 4 || !strings.Contains(ds.Source, "S=3") {
		t.Fatalf("synthetic-metric 300×3, 4 classes: %v %v", ds, err)
	}

	for _, tc := range []struct {
		spec string
		opt  LoadOptions
		want []string
	}{
		{SpecSyntheticAUC, LoadOptions{N: 1}, []string{"N = 1", "N >= 2"}},
		{SpecSyntheticAUC, LoadOptions{N: -3}, []string{"N = -3"}},
		{SpecSyntheticAUC, LoadOptions{Dim: -1}, []string{"Dim = -1", "Dim >= 1"}},
		{SpecSyntheticAUC, LoadOptions{Classes: 3}, []string{"Classes = 3", "2 classes"}},
		{SpecSyntheticAUC, LoadOptions{PositiveFraction: 1.5}, []string{"PositiveFraction = 1.5"}},
		{SpecSyntheticAUC, LoadOptions{Separation: math.Inf(1)}, []string{"Separation = +Inf"}},
		{SpecSyntheticAUC, LoadOptions{N: 100_000_000, Dim: 16}, []string{"data too large", "would need 11.9 GiB", "MaxElements"}},
		{SpecSyntheticMetric, LoadOptions{Classes: 1}, []string{"Classes = 1", "Classes >= 2"}},
		{SpecSyntheticMetric, LoadOptions{N: 5, Classes: 6}, []string{"N = 5", "Classes = 6", "one point per class"}},
		{SpecSyntheticMetric, LoadOptions{N: 1 << 26, Dim: 16}, []string{"data too large", "8.0 GiB", "MaxElements"}},
		{SpecSyntheticMetric, LoadOptions{Separation: 1}, []string{"Separation"}},
		{SpecSynthetic, LoadOptions{N: 2000}, []string{"N set", "paper's set", SpecSyntheticMetric}},
		{SpecBreastCancer, LoadOptions{Dim: 3}, []string{"Dim set", "fixed size"}},
	} {
		_, err := Load(tc.spec, tc.opt)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%q, %+v): err = %v, want it to contain %q", tc.spec, tc.opt, err, w)
			}
		}
	}
	// The element limit can be raised (and is checked before allocating).
	if _, err := Load(SpecSyntheticAUC, LoadOptions{N: 10, Dim: 10, MaxElements: 99}); err == nil || !strings.Contains(err.Error(), "limit is 99 values") {
		t.Errorf("MaxElements 99: err = %v", err)
	}
	if _, err := Load(SpecSyntheticAUC, LoadOptions{N: 10, Dim: 10, MaxElements: 100}); err != nil {
		t.Errorf("MaxElements 100: %v", err)
	}
}

func TestSyntheticLargeNonFinite(t *testing.T) {
	_, err := SyntheticMetric(SyntheticConfig{N: 100, D: 4, K: 2, S: 1, MeanScale: 1, Sigma: 1e308, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), "synthetic-metric: row ") {
		t.Errorf("huge Sigma: err = %v", err)
	}
}

// BenchmarkSyntheticAUC10M times synthetic-auc at N = 10⁷, D = 16 (1.2 GiB).
func BenchmarkSyntheticAUC10M(b *testing.B) {
	cfg := SyntheticAUCConfig{N: 10_000_000, D: 16, Separation: 2, PositiveFraction: 0.5, Seed: 1}
	for b.Loop() {
		if _, err := SyntheticAUC(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyntheticMetric10M times synthetic-metric at N = 10⁷, D = 16, K = 10.
func BenchmarkSyntheticMetric10M(b *testing.B) {
	cfg := SyntheticConfig{N: 10_000_000, D: 16, K: 10, S: 5, MeanScale: 1, Sigma: 0.5, Seed: 1}
	for b.Loop() {
		if _, err := SyntheticMetric(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDivider(t *testing.T) {
	for _, d := range []int{1, 2, 3, 7, 10, 1000, 999_999_937, 1<<32 - 1, 1 << 32, 1<<40 + 3} {
		dv := newDivider(d)
		for _, n := range []int{0, 1, d - 1, d, d + 1, 2*d - 1, 1<<32 - 1, 1 << 32, 1<<32 + 5, 1<<62 + 11, 123456789} {
			if n < 0 {
				continue
			}
			if got := dv.div(n); got != n/d {
				t.Errorf("%d / %d = %d, want %d", n, d, got, n/d)
			}
		}
		for n := 0; n < 100000; n++ {
			if dv.div(n) != n/d {
				t.Fatalf("%d / %d", n, d)
			}
		}
	}
}
