package problem

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// TestPWKEigenvaluesMatchesDsterf: pwkEigenvalues against gonum's Dsterf on
// random tridiagonals of order 1..64 (Gaussian and clustered spectra
// through tridiagFull, and raw tridiagonals with graded diagonals and tiny
// off-diagonal entries that split them): the same eigenvalues to 64·ε·‖T‖
// (the two round the inner step differently), ascending. Then the same
// blocks scaled by 2^±660, which pwkEigenvalues must scale back itself
// (where Dsterf would call Dlascl): the eigenvalues of 2^s·T are 2^s times
// those of T, to the same accuracy.
func TestPWKEigenvaluesMatchesDsterf(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var worst float64
	for it := 0; it < 1500; it++ {
		n := 1 + r.IntN(64)
		diag, off := randomTridiag(r, n, it)
		var tn float64
		for i := 0; i < n; i++ {
			tn = math.Max(tn, math.Abs(diag[i])+math.Abs(off[i])+math.Abs(off[max(i, 1)-1]))
		}
		want, we := slices.Clone(diag), slices.Clone(off)
		if !(lapackgonum.Implementation{}).Dsterf(n, want, we) {
			t.Fatalf("it %d: Dsterf failed", it)
		}
		got, ge := slices.Clone(diag), slices.Clone(off)
		if !pwkEigenvalues(got, ge) {
			t.Fatalf("it %d n=%d: pwkEigenvalues failed", it, n)
		}
		if !slices.IsSorted(got) {
			t.Fatalf("it %d: not ascending", it)
		}
		for i := range got {
			if tn > 0 {
				worst = math.Max(worst, math.Abs(got[i]-want[i])/(eps*tn))
			}
		}
		for _, s := range []float64{0x1p660, 0x1p-660} {
			sd, se := slices.Clone(diag), slices.Clone(off)
			for i := range sd {
				sd[i] *= s
				se[i] *= s
			}
			if !pwkEigenvalues(sd, se) {
				t.Fatalf("it %d n=%d scale %g: pwkEigenvalues failed", it, n, s)
			}
			for i := range sd {
				if tn > 0 {
					worst = math.Max(worst, math.Abs(sd[i]/s-want[i])/(eps*tn))
				}
			}
		}
	}
	t.Logf("worst |Δλ| = %.3g ε‖T‖", worst)
	if !(worst <= 64) {
		t.Fatalf("worst |Δλ| = %.3g ε‖T‖", worst)
	}
}

// TestLagtsFastMatchesLagts: the solve by reciprocal pivots against
// Dlagts's (lagts), from the same factors, on random tridiagonals shifted
// near one of their eigenvalues (nearly singular, as in inverse
// iteration): within 1e-10 relative in max norm, and the returned max
// |y[i]| exact; a zero pivot.
func TestLagtsFastMatchesLagts(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for it := 0; it < 500; it++ {
		n := 1 + r.IntN(64)
		dg, of := make([]float64, n), make([]float64, n)
		for i := range dg {
			dg[i], of[i] = r.NormFloat64(), r.NormFloat64()
		}
		of[n-1] = 0
		lam, ee := slices.Clone(dg), slices.Clone(of)
		pwkEigenvalues(lam, ee)
		shift := lam[r.IntN(n)] + 1e-3*r.NormFloat64()
		la, lb, lc, ld := slices.Clone(dg), slices.Clone(of), slices.Clone(of), make([]float64, n)
		piv := make([]bool, n)
		lagtf(n, la, shift, lb, lc, ld, piv)
		inv, bi, di := make([]float64, n), make([]float64, n), make([]float64, n)
		fa, fe := make([]float64, n), make([]float64, n)
		for i := range la {
			inv[i] = 1 / la[i]
			bi[i], di[i] = lb[i]*inv[i], ld[i]*inv[i]
			fa[i], fe[i] = -lc[i], 1
			if piv[i] {
				fa[i], fe[i] = 1, -lc[i]
			}
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		const scl = 3.0
		want := make([]float64, n)
		for i := range x {
			want[i] = x[i] * scl
		}
		lagts(n, la, lb, lc, ld, piv, want, 0)
		got := make([]float64, n)
		amax, ok := lagtsFast(n, bi, fa, fe, di, inv, piv, x, got, scl)
		if !ok {
			t.Fatalf("it %d n=%d: lagtsFast failed", it, n)
		}
		var wmax, dmax float64
		for i := range got {
			wmax = math.Max(wmax, math.Abs(want[i]))
			dmax = math.Max(dmax, math.Abs(got[i]-want[i]))
		}
		if amax != maxAbs(got) {
			t.Fatalf("it %d: amax %v, max|y| %v", it, amax, maxAbs(got))
		}
		if !(dmax <= 1e-10*wmax) {
			t.Fatalf("it %d n=%d: ‖Δ‖ = %.3g of %.3g", it, n, dmax, wmax)
		}
	}
	// T − λI = [0]: U's pivot is zero; lagts perturbs it to tol
	// (lagtsTol), and lagtsFast from that pivot gives the same solution; an
	// infinite reciprocal makes it report false.
	la, piv := []float64{2}, []bool{false}
	z := []float64{0}
	lagtf(1, la, 2, z, z, z, piv)
	want := []float64{1}
	lagts(1, la, z, z, z, piv, want, 0)
	tol := lagtsTol(1, la, z, z)
	got := []float64{0}
	if _, ok := lagtsFast(1, z, z, z, z, []float64{1 / math.Copysign(tol, la[0])}, piv, []float64{1}, got, 1); !ok || got[0] != want[0] {
		t.Fatalf("zero pivot: lagtsFast %v (ok %v), lagts %v", got[0], ok, want[0])
	}
	if _, ok := lagtsFast(1, z, z, z, z, []float64{1 / la[0]}, piv, []float64{1}, got, 1); ok {
		t.Fatal("lagtsFast: an infinite reciprocal pivot not reported")
	}
}
