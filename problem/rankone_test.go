package problem

import (
	"fmt"
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// checkDecomposition returns ‖V·diag(λ)·Vᵀ − A‖_F/max(‖A‖_F, 1) and
// ‖VᵀV − I‖_F.
func checkDecomposition(a, V, lam []float64, d int) (resid, orth float64) {
	var nrm float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var s, o float64
			for k := 0; k < d; k++ {
				s += V[i*d+k] * lam[k] * V[j*d+k]
				o += V[k*d+i] * V[k*d+j]
			}
			if i == j {
				o--
			}
			resid += (s - a[i*d+j]) * (s - a[i*d+j])
			orth += o * o
			nrm += a[i*d+j] * a[i*d+j]
		}
	}
	return math.Sqrt(resid / math.Max(nrm, 1)), math.Sqrt(orth)
}

// TestRankOneUpdate: sequences of rank-one updates of either sign from the
// zero matrix (every eigenvalue repeated), from matrices with repeated and
// zero eigenvalues and from random ones, against the matrix they represent:
// residual and orthogonality within 1e-12 after 60 updates, the spectrum
// ascending and equal to the Jacobi reference's to 1e-11.
func TestRankOneUpdate(t *testing.T) {
	s := rng.New(23, 0)
	for _, d := range []int{1, 2, 3, 5, 10, 40} {
		up := NewEigUpdate(d)
		for start := 0; start < 3; start++ {
			a := make([]float64, d*d)
			switch start {
			case 1:
				a = withSpectrum(s, d, func(k int) float64 { return float64(k%3) - 1 })
			case 2:
				a = randVec(s, d*d, 1)
				symmetric(a, d)
			}
			lam, V := jacobiEig(a, d)
			sortEig(lam, V, d)
			for step := 0; step < 60; step++ {
				v := randVec(s, d, 1)
				if step%7 == 3 {
					for i := range v[d/2:] {
						v[d/2+i] = 0 // sparse δ: some components deflate
					}
				}
				rho := 1.0
				if s.IntN(3) == 0 {
					rho = -0.7
				}
				for i := 0; i < d; i++ {
					for j := 0; j < d; j++ {
						a[i*d+j] += rho * v[i] * v[j]
					}
				}
				if !up.RankOneUpdate(V, lam, rho, v) {
					t.Fatalf("d=%d start %d step %d: no convergence", d, start, step)
				}
				res, orth := checkDecomposition(a, V, lam, d)
				if res > 1e-12 || orth > 1e-12 {
					t.Fatalf("d=%d start %d step %d: residual %g, orthogonality %g", d, start, step, res, orth)
				}
				for k := 1; k < d; k++ {
					if lam[k] < lam[k-1]-1e-12*math.Max(1, math.Abs(lam[0])+math.Abs(lam[d-1])) {
						t.Fatalf("d=%d: eigenvalues not ascending: %v", d, lam)
					}
				}
			}
			ref, _ := jacobiEig(a, d)
			sortEig(ref, nil, d)
			for k := range ref {
				if math.Abs(ref[k]-lam[k]) > 1e-11*math.Max(1, math.Abs(ref[d-1])+math.Abs(ref[0])) {
					t.Fatalf("d=%d start %d: eigenvalue %d: %v vs %v", d, start, k, lam[k], ref[k])
				}
			}
		}
	}
}

// sortEig sorts eigenvalues ascending with their columns of V (V may be nil).
func sortEig(lam, V []float64, d int) {
	for i := 1; i < d; i++ {
		for j := i; j > 0 && lam[j] < lam[j-1]; j-- {
			lam[j], lam[j-1] = lam[j-1], lam[j]
			if V != nil {
				for r := 0; r < d; r++ {
					V[r*d+j], V[r*d+j-1] = V[r*d+j-1], V[r*d+j]
				}
			}
		}
	}
}

// TestProjectFromEigMatchesProjectPSD: the projection rebuilt from a cached
// decomposition equals ProjectPSD's to 1e-12.
func TestProjectFromEigMatchesProjectPSD(t *testing.T) {
	s := rng.New(29, 0)
	for _, d := range []int{1, 4, 10, 40} {
		ws := NewWorkspace(d)
		v := randVec(s, d*d, 1)
		symmetric(v, d)
		V, lam := make([]float64, d*d), make([]float64, d)
		if !ws.EigSym(V, lam, v, -1) {
			t.Fatal("EigSym failed")
		}
		got, want := make([]float64, d*d), make([]float64, d*d)
		ws.ProjectFromEig(got, V, lam)
		ws.ProjectPSD(want, v, -1)
		var diff, nrm float64
		for i := range got {
			diff += (got[i] - want[i]) * (got[i] - want[i])
			nrm += want[i] * want[i]
		}
		if math.Sqrt(diff) > 1e-12*math.Max(1, math.Sqrt(nrm)) {
			t.Fatalf("d=%d: %g", d, math.Sqrt(diff/nrm))
		}
	}
}

// BenchmarkRankOneProjection: a rank-one update of a cached decomposition
// plus the projection rebuilt from it, against a full ProjectPSD, for the
// same matrix sizes (the engine's two ways of handling a node whose z took a
// gradient).
func BenchmarkRankOneProjection(b *testing.B) {
	for _, d := range []int{10, 40} {
		s := rng.New(5, 0)
		v := randVec(s, d*d, 1)
		symmetric(v, d)
		delta := randVec(s, d, 1)
		ws := NewWorkspace(d)
		dst := make([]float64, d*d)
		b.Run(fmt.Sprintf("d=%d/full-%s", d, LAPACK), func(b *testing.B) {
			for b.Loop() {
				ws.ProjectPSD(dst, v, 1)
			}
		})
		b.Run(fmt.Sprintf("d=%d/rank-one-%s", d, LAPACK), func(b *testing.B) {
			up := NewEigUpdate(d)
			V, lam := make([]float64, d*d), make([]float64, d)
			ws.EigSym(V, lam, v, 1)
			sign := 1.0
			b.ReportAllocs()
			for b.Loop() {
				up.RankOneUpdate(V, lam, sign*1e-3, delta)
				sign = -sign
				ws.ProjectFromEig(dst, V, lam)
			}
		})
	}
}

// FuzzRankOneUpdate: any finite starting spectrum (built from the input, with
// repeated values), vector and sign: the update represents A + ρvvᵀ to 1e-12
// with orthonormal vectors.
func FuzzRankOneUpdate(f *testing.F) {
	f.Add(uint8(4), int64(1), []byte{0, 0, 1, 2, 3, 3, 3, 9}, true)
	f.Add(uint8(10), int64(7), []byte{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, false)
	f.Fuzz(func(t *testing.T, dim uint8, seed int64, spec []byte, neg bool) {
		d := int(dim%24) + 1
		s := rng.New(uint64(seed), 1)
		lam := make([]float64, d)
		for k := range lam {
			if k < len(spec) {
				lam[k] = float64(int(spec[k])%9 - 4)
			}
		}
		sortEig(lam, nil, d)
		a := withSpectrum(s, d, func(k int) float64 { return lam[k] })
		l, V := jacobiEig(a, d)
		sortEig(l, V, d)
		v := randVec(s, d, 1)
		for k := range v {
			if k < len(spec) && spec[k]%5 == 0 {
				v[k] = 0
			}
		}
		rho := 0.5 + float64(len(spec)%4)
		if neg {
			rho = -rho
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				a[i*d+j] += rho * v[i] * v[j]
			}
		}
		if !NewEigUpdate(d).RankOneUpdate(V, l, rho, v) {
			t.Fatal("no convergence")
		}
		if res, orth := checkDecomposition(a, V, l, d); res > 1e-12 || orth > 1e-12 {
			t.Fatalf("d=%d: residual %g, orthogonality %g", d, res, orth)
		}
	})
}
