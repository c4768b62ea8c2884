package problem

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"gonum.org/v1/gonum/mat"
)

// randomProblem builds a small problem with random data and labels.
func randomProblem(t testing.TB, loss Loss, reg Regularizer, n, d int, seed uint64) *Problem {
	t.Helper()
	s := rng.New(seed, 0)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s.Normal()
	}
	lab := make([]int32, n)
	for i := range lab {
		if loss.IsMetric() {
			lab[i] = int32(i % 3)
		} else if i%3 == 0 {
			lab[i] = 1
		} else {
			lab[i] = -1
		}
	}
	p, err := New(loss, reg, 2, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randVec(s *rng.Stream, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * s.Normal()
	}
	return v
}

func symmetric(v []float64, d int) {
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			a := (v[i*d+j] + v[j*d+i]) / 2
			v[i*d+j], v[j*d+i] = a, a
		}
	}
}

func TestPairGradFiniteDifference(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{}, 12, 4, 1)
		s := rng.New(2, 0)
		checked := 0
		for trial := 0; trial < 200 && checked < 30; trial++ {
			i, j := s.IntN(p.N), s.IntN(p.N)
			theta := randVec(s, p.P, 0.5)
			if loss.IsMetric() {
				symmetric(theta, p.D)
			}
			g := make([]float64, p.P)
			p.PairGrad(g, 1, theta, i, j)
			const h = 1e-6
			ok := true
			num := make([]float64, p.P)
			for a := range theta {
				tp, tm := append([]float64(nil), theta...), append([]float64(nil), theta...)
				tp[a] += h
				tm[a] -= h
				fp, fm := p.PairLoss(tp, i, j), p.PairLoss(tm, i, j)
				num[a] = (fp - fm) / (2 * h)
				// Skip points where a kink lies inside [θ−h, θ+h].
				f0 := p.PairLoss(theta, i, j)
				if !loss.Smooth() && math.Abs((fp+fm)/2-f0) > 1e-9 {
					ok = false
				}
			}
			if !ok {
				continue
			}
			checked++
			for a := range g {
				if math.Abs(g[a]-num[a]) > 1e-5*math.Max(1, math.Abs(num[a])) {
					t.Fatalf("%s pair (%d,%d) coord %d: grad %g, finite difference %g", loss, i, j, a, g[a], num[a])
				}
			}
		}
		if checked < 10 {
			t.Fatalf("%s: only %d smooth points checked", loss, checked)
		}
	}
}

func TestSoftplusSigmoidStable(t *testing.T) {
	for _, u := range []float64{-1000, -40, -1, 0, 1, 40, 1000} {
		sp, sg := Softplus(u), Sigmoid(u)
		if math.IsNaN(sp) || math.IsInf(sp, 0) || math.IsNaN(sg) || sg < 0 || sg > 1 {
			t.Fatalf("u=%g: softplus %g sigmoid %g", u, sp, sg)
		}
	}
	if Softplus(1000) != 1000 || Softplus(-1000) != 0 {
		t.Fatal("softplus tails")
	}
	if math.Abs(Softplus(0)-math.Ln2) > 1e-16 {
		t.Fatal("softplus(0)")
	}
}

// TestSmoothOptimality checks θ = π_t(z) minimises zᵀθ + ‖θ‖²/(2γ) + tψ(θ):
// no random perturbation inside the domain lowers the objective.
func TestSmoothOptimality(t *testing.T) {
	regs := []Regularizer{{Kind: RegNone}, {Kind: RegL2Sq, Lambda: 0.3}, {Kind: RegL1, Lambda: 0.2}, {Kind: RegL2Ball, Radius: 0.7}}
	s := rng.New(5, 0)
	for _, r := range regs {
		ws := NewWorkspace(0)
		for trial := 0; trial < 50; trial++ {
			z := randVec(s, 7, 2)
			gamma, tt := 0.1+s.Float64(), 1+float64(s.IntN(20))
			theta := make([]float64, 7)
			r.Smooth(theta, z, gamma, tt, ws)
			obj := func(th []float64) float64 {
				var v float64
				for i := range th {
					v += z[i]*th[i] + th[i]*th[i]/(2*gamma)
				}
				return v + tt*r.Value(th)
			}
			f0 := obj(theta)
			for k := 0; k < 200; k++ {
				q := append([]float64(nil), theta...)
				for i := range q {
					q[i] += 1e-3 * s.Normal()
				}
				if f := obj(q); f < f0-1e-12 {
					t.Fatalf("%s: perturbation lowers objective %g < %g", r.Kind, f, f0)
				}
			}
		}
	}
	// ψ = 0 is θ = −γz exactly (convention 1).
	theta := make([]float64, 2)
	Regularizer{}.Smooth(theta, []float64{1, -2}, 0.5, 3, nil)
	if theta[0] != -0.5 || theta[1] != 1 {
		t.Fatalf("ψ=0 smoothing gave %v", theta)
	}
}

// bruteProjectPSD projects by a cyclic Jacobi eigendecomposition written
// here, independent of the LAPACK behind lapack64 (gonum's Dsyev in the
// default build, OpenBLAS's Dsyevr with -tags netlib).
func bruteProjectPSD(v []float64, d int) []float64 {
	vals, vecs := jacobiEig(v, d)
	out := make([]float64, d*d)
	for k, l := range vals {
		if l <= 0 {
			continue
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				out[i*d+j] += l * vecs[i*d+k] * vecs[j*d+k]
			}
		}
	}
	return out
}

// projectionError projects v with ProjectPSD and returns the result, the
// squared Frobenius norm of the reference projection, and the relative
// error ‖ProjectPSD(v) − bruteProjectPSD(v)‖_F / max(1, ‖bruteProjectPSD(v)‖_F).
func projectionError(ws *Workspace, v []float64, d int) (got []float64, nrm2, rel float64) {
	got = make([]float64, d*d)
	ws.ProjectPSD(got, v, 1)
	want := bruteProjectPSD(v, d)
	var diff float64
	for i := range got {
		diff += (got[i] - want[i]) * (got[i] - want[i])
		nrm2 += want[i] * want[i]
	}
	return got, nrm2, math.Sqrt(diff) / math.Max(1, math.Sqrt(nrm2))
}

// jacobiEig returns the eigenvalues of the symmetric d×d row-major a and its
// eigenvectors as the columns of a row-major matrix, by cyclic Jacobi
// rotations until the off-diagonal part is below 1e-300 or rounding.
func jacobiEig(a []float64, d int) ([]float64, []float64) {
	m := append([]float64(nil), a[:d*d]...)
	v := make([]float64, d*d)
	for i := 0; i < d; i++ {
		v[i*d+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off float64
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				off += m[p*d+q] * m[p*d+q]
			}
		}
		if off < 1e-300 {
			break
		}
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				apq := m[p*d+q]
				if apq == 0 {
					continue
				}
				theta := (m[q*d+q] - m[p*d+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < d; k++ { // columns p, q
					mkp, mkq := m[k*d+p], m[k*d+q]
					m[k*d+p], m[k*d+q] = c*mkp-s*mkq, s*mkp+c*mkq
				}
				for k := 0; k < d; k++ { // rows p, q
					mpk, mqk := m[p*d+k], m[q*d+k]
					m[p*d+k], m[q*d+k] = c*mpk-s*mqk, s*mpk+c*mqk
				}
				for k := 0; k < d; k++ {
					vkp, vkq := v[k*d+p], v[k*d+q]
					v[k*d+p], v[k*d+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, d)
	for i := range vals {
		vals[i] = m[i*d+i]
	}
	return vals, v
}

func TestProjectPSD(t *testing.T) {
	s := rng.New(11, 0)
	for _, d := range []int{1, 2, 3, 5, 10, 40, 64} {
		ws := NewWorkspace(d)
		for trial := 0; trial < 8; trial++ {
			v := randVec(s, d*d, 1)
			symmetric(v, d)
			switch trial {
			case 1: // repeated eigenvalues: Q diag(1,1,−1,−1,…) Qᵀ
				v = withSpectrum(s, d, func(k int) float64 { return float64(1 - 2*(k%2)) })
			case 2: // zero eigenvalues
				v = withSpectrum(s, d, func(k int) float64 { return float64(k%3) - 1 })
			case 3: // already PSD
				v = withSpectrum(s, d, func(k int) float64 { return float64(k) })
			case 4: // negative semidefinite: the projection is 0
				v = withSpectrum(s, d, func(k int) float64 { return -float64(k) })
			case 5: // one positive eigenvalue, repeated zero eigenvalues
				v = withSpectrum(s, d, func(k int) float64 { return float64(max(0, k-d+2)) })
			}
			got, nrm, e := projectionError(ws, v, d)
			if e > 1e-10 {
				t.Fatalf("d=%d trial %d: relative Frobenius error %g", d, trial, e)
			}
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					if got[i*d+j] != got[j*d+i] {
						t.Fatalf("not symmetric")
					}
				}
			}
			if me := ws.MinEigen(got); me < -1e-12*math.Max(1, math.Sqrt(nrm)) {
				t.Fatalf("d=%d: projection has eigenvalue %g", d, me)
			}
			// Optimality: P − V = −V₋ is positive semidefinite and orthogonal to P.
			var inner, vn float64
			pv := make([]float64, d*d)
			for i := range got {
				inner += got[i] * (got[i] - v[i])
				pv[i] = got[i] - v[i]
				vn += v[i] * v[i]
			}
			if math.Abs(inner) > 1e-9*math.Max(1, nrm) {
				t.Fatalf("d=%d: <P, P−V> = %g", d, inner)
			}
			if me := ws.MinEigen(pv); me < -1e-10*math.Max(1, math.Sqrt(vn)) {
				t.Fatalf("d=%d trial %d: P − V has eigenvalue %g", d, trial, me)
			}
		}
	}
}

// TestProjectPSDNonFinite: an Inf or NaN entry gives an all-NaN projection
// (and EigSym reports failure), so a diverged z cannot turn into θ = 0.
func TestProjectPSDNonFinite(t *testing.T) {
	for _, d := range []int{1, 3, 10} {
		for _, bad := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
			ws := NewWorkspace(d)
			v := make([]float64, d*d)
			v[d-1] = bad
			dst := make([]float64, d*d)
			ws.ProjectPSD(dst, v, 1)
			for i, x := range dst {
				if !math.IsNaN(x) {
					t.Fatalf("d=%d input %v: dst[%d] = %v, want NaN", d, bad, i, x)
				}
			}
			if ws.EigSym(make([]float64, d*d), make([]float64, d), v, 1) {
				t.Fatalf("d=%d input %v: EigSym reported success", d, bad)
			}
		}
	}
}

func withSpectrum(s *rng.Stream, d int, lam func(int) float64) []float64 {
	g := mat.NewDense(d, d, randVec(s, d*d, 1))
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	out := mat.NewDense(d, d, nil)
	for k := 0; k < d; k++ {
		u := mat.NewVecDense(d, mat.Col(nil, k, &q))
		var o mat.Dense
		o.Outer(lam(k), u, u)
		out.Add(out, &o)
	}
	v := out.RawMatrix().Data
	symmetric(v, d)
	return v
}

func TestPSDSmoothIsScaledProjection(t *testing.T) {
	s := rng.New(3, 0)
	d := 6
	ws := NewWorkspace(d)
	z := randVec(s, d*d, 1)
	symmetric(z, d)
	got := make([]float64, d*d)
	Regularizer{Kind: RegPSD, D: d}.Smooth(got, z, 0.3, 7, ws)
	neg := make([]float64, d*d)
	for i := range z {
		neg[i] = -0.3 * z[i]
	}
	want := bruteProjectPSD(neg, d)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("π_t(z) != Proj(−γz) at %d: %g vs %g", i, got[i], want[i])
		}
	}
}

func TestEvaluatorMatchesDirectSums(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{Kind: RegL2Sq, Lambda: 0.01}, 23, 3, 4)
		s := rng.New(6, 0)
		th := layout.New(5, p.P)
		for r := 0; r < 5; r++ {
			copy(th.Row(r), randVec(s, p.P, 0.7))
			if loss.IsMetric() {
				symmetric(th.Row(r), p.D)
			}
		}
		for _, workers := range []int{1, 2, 3} {
			e := p.NewEvaluator(5, workers)
			obj, auc := make([]float64, 3), make([]float64, 3)
			rows := []int{4, 0, 2}
			e.Eval(th, rows, obj, auc)
			for c, r := range rows {
				want := p.Objective(th.Row(r))
				if math.Abs(obj[c]-want) > 1e-12*math.Max(1, want) {
					t.Fatalf("%s workers=%d: objective %g, direct %g", loss, workers, obj[c], want)
				}
				if !loss.IsMetric() {
					if a := bruteAUC(p, th.Row(r)); a != auc[c] {
						t.Fatalf("%s: AUC %g, brute %g", loss, auc[c], a)
					}
				}
			}
		}
	}
}

func TestAUCTies(t *testing.T) {
	if a := aucSorted([]float64{0, 0}, []float64{0, 0, 0}); a != 0.5 {
		t.Fatalf("all tied: AUC %g, want 0.5", a)
	}
	if a := aucSorted([]float64{2, 1}, []float64{1, 0}); a != 0.875 {
		t.Fatalf("AUC %g, want 0.875", a)
	}
}

func bruteAUC(p *Problem, theta []float64) float64 {
	var num, den float64
	for _, i := range p.pos {
		for _, j := range p.neg {
			den++
			switch m := margin(theta, p.X.Row(int(i)), p.X.Row(int(j))); {
			case m > 0:
				num++
			case m == 0:
				num += 0.5
			}
		}
	}
	return num / den
}

func TestBiasMatchesReference(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{}, 17, 3, 8)
		s := rng.New(9, 0)
		th := layout.New(p.N, p.P)
		aux := make([]int32, p.N)
		for k := 0; k < p.N; k++ {
			copy(th.Row(k), randVec(s, p.P, 0.5))
			if loss.IsMetric() {
				symmetric(th.Row(k), p.D)
			}
			aux[k] = int32(s.IntN(p.N))
		}
		omega := randVec(s, p.P, 1)
		rows := []int{0, 3, 5, 6, 9, 16}
		got := p.NewEvaluator(len(rows), 2).Bias(th, aux, rows, omega)
		var want float64
		g, full := make([]float64, p.P), make([]float64, p.P)
		for _, k := range rows {
			clear(g)
			p.PairGrad(g, 1, th.Row(k), k, int(aux[k]))
			p.PartialGrad(full, th.Row(k), k)
			for a := range g {
				want += (g[a] - full[a]) * omega[a]
			}
		}
		want /= float64(len(rows))
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Fatalf("%s: bias %g, reference %g", loss, got, want)
		}
	}
}

func TestSolveReachesStationarity(t *testing.T) {
	// Smooth unconstrained: the gradient vanishes at the optimum, and FISTA
	// (forced through an l1 regulariser with λ = 0) agrees with L-BFGS.
	p := randomProblem(t, AUCLogistic, Regularizer{Kind: RegL2Sq, Lambda: 0.01}, 40, 3, 12)
	o, err := p.Solve(OptimumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := newOptScratch(p)
	g := make([]float64, p.P)
	p.smoothValueGrad(o.Theta, g, 0, sc)
	for i := range g {
		g[i] += 2 * 0.01 * o.Theta[i]
		if math.Abs(g[i]) > 1e-7 {
			t.Fatalf("gradient at optimum %v", g)
		}
	}
	q := randomProblem(t, AUCLogistic, Regularizer{Kind: RegL1, Lambda: 0}, 40, 3, 12)
	o2, _ := q.Solve(OptimumOptions{})
	p0 := randomProblem(t, AUCLogistic, Regularizer{}, 40, 3, 12)
	o0, _ := p0.Solve(OptimumOptions{})
	if math.Abs(o2.Value-o0.Value) > 1e-8 {
		t.Fatalf("fista %g vs lbfgs %g", o2.Value, o0.Value)
	}
	// Every solution is at least as good as θ = 0 and random points.
	for _, pr := range []*Problem{
		randomProblem(t, AUCHinge, Regularizer{}, 30, 3, 1),
		randomProblem(t, MetricHinge, Regularizer{Kind: RegPSD}, 30, 3, 1),
		randomProblem(t, AUCLogistic, Regularizer{Kind: RegL2Ball, Radius: 0.5}, 30, 3, 1),
	} {
		o, err := pr.Solve(OptimumOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Value > pr.Objective(make([]float64, pr.P))+1e-12 {
			t.Fatalf("%s/%s: optimum %g worse than θ=0", pr.Loss, pr.Reg.Kind, o.Value)
		}
		s := rng.New(1, 1)
		ws := pr.NewWorkspace()
		for k := 0; k < 50; k++ {
			th := randVec(s, pr.P, 0.3)
			pr.Reg.Prox(th, th, 1, ws) // feasible point
			if v := pr.Objective(th); v < o.Value-1e-3 {
				t.Fatalf("%s/%s: random point %g beats optimum %g", pr.Loss, pr.Reg.Kind, v, o.Value)
			}
		}
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	cases := []struct {
		name string
		err  func() error
	}{
		{"one point", func() error { _, e := New(AUCLogistic, Regularizer{}, 1, 1, 4, x, []int32{1}); return e }},
		{"one class", func() error { _, e := New(AUCLogistic, Regularizer{}, 1, 2, 2, x, []int32{1, 1}); return e }},
		{"bad label", func() error { _, e := New(AUCLogistic, Regularizer{}, 1, 2, 2, x, []int32{1, 2}); return e }},
		{"nan", func() error {
			_, e := New(AUCLogistic, Regularizer{}, 1, 2, 2, []float64{1, math.NaN(), 1, 1}, []int32{1, -1})
			return e
		}},
		{"psd on auc", func() error {
			_, e := New(AUCLogistic, Regularizer{Kind: RegPSD}, 1, 2, 2, x, []int32{1, -1})
			return e
		}},
		{"negative lambda", func() error {
			_, e := New(AUCLogistic, Regularizer{Kind: RegL1, Lambda: -1}, 1, 2, 2, x, []int32{1, -1})
			return e
		}},
		{"b<=0", func() error { _, e := New(MetricHinge, Regularizer{}, 0, 2, 2, x, []int32{0, 1}); return e }},
	}
	for _, c := range cases {
		if c.err() == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestFullGradFiniteDifference(t *testing.T) {
	for _, loss := range []Loss{AUCLogistic, AUCHinge, AUCSquaredHinge, MetricHinge} {
		p := randomProblem(t, loss, Regularizer{}, 15, 3, 21)
		sc := newOptScratch(p)
		s := rng.New(4, 0)
		theta := randVec(s, p.P, 0.4)
		if loss.IsMetric() {
			symmetric(theta, p.D)
		}
		const mu, h = 0.5, 1e-6
		g := make([]float64, p.P)
		f0 := p.smoothValueGrad(theta, g, mu, sc)
		if loss == AUCLogistic || loss == AUCSquaredHinge {
			if want := p.Objective(theta); math.Abs(f0-want) > 1e-12 {
				t.Fatalf("%s: value %g, direct %g", loss, f0, want)
			}
		}
		for a := range theta {
			tp, tm := append([]float64(nil), theta...), append([]float64(nil), theta...)
			tp[a] += h
			tm[a] -= h
			num := (p.smoothValueGrad(tp, nil, mu, sc) - p.smoothValueGrad(tm, nil, mu, sc)) / (2 * h)
			if math.Abs(g[a]-num) > 1e-5*math.Max(1, math.Abs(num)) {
				t.Fatalf("%s coord %d: gradient %g, finite difference %g", loss, a, g[a], num)
			}
		}
	}
}

// TestLogisticPairSumMatchesSoftplus: the hoisted, vectorised pair sum
// against Softplus pair by pair, with every kernel implementation.
func TestLogisticPairSumMatchesSoftplus(t *testing.T) {
	prev := kernel.Active()
	defer kernel.Use(prev)
	for _, impl := range kernel.Implementations() {
		if err := kernel.Use(impl); err != nil {
			t.Fatal(err)
		}
		s := rng.New(17, 0)
		for _, scale := range []float64{1e-3, 1, 10, 100, 290, 400} {
			ps, ns := randVec(s, 37, scale), randVec(s, 53, scale)
			got, want := logisticPairSum(ps, ns, make([]float64, len(ns)), nil), softplusPairSum(ps, ns, nil)
			if math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s, scale %g: %.17g vs %.17g", impl, scale, got, want)
			}
		}
	}
}

// BenchmarkProjectPSD: one projection of a random symmetric d×d matrix (about
// half its eigenvalues positive), with the build's LAPACK.
func BenchmarkProjectPSD(b *testing.B) {
	for _, d := range []int{10, 40} {
		b.Run(fmt.Sprintf("d=%d/%s", d, LAPACK), func(b *testing.B) {
			s := rng.New(5, 0)
			v := randVec(s, d*d, 1)
			symmetric(v, d)
			ws := NewWorkspace(d)
			dst := make([]float64, d*d)
			b.ReportAllocs()
			for b.Loop() {
				ws.ProjectPSD(dst, v, 1)
			}
		})
	}
}

// firstNonFinite finds the first NaN or ±Inf by index wherever it lies
// among the chunks the cores scan, the later ones in other chunks
// notwithstanding, and −1 in finite data; checkData names its point and
// feature.
func TestFirstNonFinite(t *testing.T) {
	n := 5*checkChunk + 123
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	if i := firstNonFinite(x); i != -1 {
		t.Fatalf("finite data: %d", i)
	}
	if i := firstNonFinite(nil); i != -1 {
		t.Fatalf("empty: %d", i)
	}
	for _, at := range []int{0, 1, checkChunk - 1, checkChunk, 3*checkChunk + 5, n - 1} {
		y := slices.Clone(x)
		y[at] = math.NaN()
		y[n-1] = math.Inf(-1)
		if at+1 < n {
			y[min(at+checkChunk, n-2)] = math.Inf(1) // a later one, in another chunk
		}
		if i := firstNonFinite(y); i != at {
			t.Fatalf("NaN at %d: found %d", at, i)
		}
	}
	y := slices.Clone(x)
	y[4*16+3] = math.Inf(1)
	if err := checkData(len(y)/16, 16, y[:len(y)/16*16], make([]int32, len(y)/16)); err == nil || !strings.Contains(err.Error(), "point 4, feature 3") {
		t.Fatalf("checkData: %v", err)
	}
}
