package engine

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/problem"
)

// largeProblem is a problem of n points of dimension d drawn quickly
// (uniform, from a hash per point and xorshift, not Box–Muller: n·d is up to
// 1.6·10⁸), a third of them positive and shifted.
func largeProblem(t testing.TB, loss problem.Loss, n, d int) *problem.Problem {
	t.Helper()
	x := make([]float64, n*d)
	lab := make([]int32, n)
	for i := 0; i < n; i++ {
		shift := 0.0
		lab[i] = -1
		if loss.IsMetric() {
			lab[i] = int32(i % 3)
		} else if i%3 == 0 {
			lab[i], shift = 1, 0.3
		}
		h := rng.Hash(5, uint64(i), 0) | 1
		for a := 0; a < d; a++ {
			h ^= h << 13 // xorshift
			h ^= h >> 7
			h ^= h << 17
			x[i*d+a] = float64(h>>11)*0x1p-53*3.4 - 1.7 + shift // uniform, variance ~1
		}
	}
	p, err := problem.New(loss, problem.Regularizer{}, 2, n, d, x, lab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// measureState is the part of a run's state a measurement reads, for n
// nodes, without a graph or an executor: θ̄, θ, z near a common value (as
// after some rounds of gossip), clock t.
func measureState(p *problem.Problem, cfg Config) *state {
	n := p.N
	s := &state{prob: p, cfg: cfg, t: 1000}
	s.ThetaBar, s.Theta, s.Z = layout.New(n, p.P), layout.New(n, p.P), layout.New(n, p.P)
	s.Y = make([]int32, n)
	for k := 0; k < n; k++ {
		s.Y[k] = int32(rng.HashIntN(3, uint64(k), 0, n))
		x := rng.Hash(4, uint64(k), 0) | 1
		for a := 0; a < p.P; a++ {
			x ^= x << 13 // xorshift: cheap per-coordinate values
			x ^= x >> 7
			x ^= x << 17
			h := float64(x>>11)*0x1p-53 - 0.5
			s.ThetaBar.Row(k)[a] = 0.4 + 0.1*h
			s.Theta.Row(k)[a] = 0.4 + 0.2*h
			s.Z.Row(k)[a] = -0.4 + 0.1*h
		}
	}
	return s
}

// TestMeasureLargeBounded: a measurement of 16 nodes at n = 10⁶, d = 16
// holds no m×n (or n×n) buffer: what building the measurer allocates is
// below half of the 16×n scores the pairwise method held, and a
// measurement allocates almost nothing. It also checks which methods the
// automatic rule took.
func TestMeasureLargeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a problem of 10⁶ points")
	}
	const n, d, m = 1_000_000, 16, 16
	for _, c := range []struct {
		loss problem.Loss
		want MeasureMethods
	}{
		{problem.AUCHinge, MeasureMethods{problem.MethodSampled, problem.MethodSampled, problem.MethodStreamed}},
		{problem.AUCLogistic, MeasureMethods{problem.MethodSampled, problem.MethodSampled, problem.MethodSampled}},
		{problem.MetricHinge, MeasureMethods{problem.MethodSampled, problem.MethodPairwise, problem.MethodSampled}},
	} {
		dd := d
		if c.loss.IsMetric() {
			dd = 8 // P = 64: the state stays small
		}
		p := largeProblem(t, c.loss, n, dd)
		s := measureState(p, Config{Algorithm: Sync, Iters: 1, GammaC: 1, Seed: 1, EvalNodes: m, Workers: 2})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ms := newMeasurer(s, 2, p.NewWorkspace())
		runtime.ReadMemStats(&after)
		build := int64(after.TotalAlloc - before.TotalAlloc)
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		r := ms.measure(s)
		el := time.Since(t0)
		runtime.ReadMemStats(&after)
		first := int64(after.TotalAlloc - before.TotalAlloc)
		runtime.ReadMemStats(&before)
		if r2 := ms.measure(s); r2 != r && !c.loss.IsMetric() {
			t.Errorf("%s: a second measurement of the same state differs", c.loss)
		}
		runtime.ReadMemStats(&after)
		second := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s n=%d: build %d B, measurements %d B then %d B, %v: %+v", c.loss, n, build, first, second, el.Round(time.Millisecond), r)
		if limit := int64(m) * n * 8 / 2; build > limit {
			t.Errorf("%s: building the measurer allocated %d B, more than m·n·8/2 = %d B", c.loss, build, limit)
		}
		// A few kB: the workers' goroutines (no buffer grows with n).
		if first > 64<<10 || second > 64<<10 {
			t.Errorf("%s: measurements allocated %d B and %d B", c.loss, first, second)
		}
		if r.Measure != c.want {
			t.Errorf("%s: methods %+v, want %+v", c.loss, r.Measure, c.want)
		}
		if r.Measure.Obj == problem.MethodSampled {
			if !(r.ObjStdErr > 0) || r.MeasurePairs == 0 || r.ObjStdErr > 0.02*math.Abs(r.ObjMean) {
				t.Errorf("%s: sampled objective %g ± %g from %d pairs", c.loss, r.ObjMean, r.ObjStdErr, r.MeasurePairs)
			}
		} else if r.ObjStdErr != 0 {
			t.Errorf("%s: exact objective with standard error %g", c.loss, r.ObjStdErr)
		}
	}
}

// TestMeasureSmallUnchanged: at small n the automatic measurement is the
// pairwise one, reports no standard errors, and equals what an explicit
// exact mode gives; a sampled run differs only within its errors.
func TestMeasureSmallUnchanged(t *testing.T) {
	p := testProblem(t, problem.AUCHinge, problem.Regularizer{}, 80, 4, 3)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 80, K: 4, P: 0.3, Seed: 4})
	run := func(mode MeasureMode) []Record {
		s, err := New(p, g, Config{Algorithm: Sync, Iters: 300, GammaC: 0.5, Seed: 2, LogPoints: 5, Measure: mode})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tr, err := s.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	auto, exact, sampled := run(MeasureAuto), run(MeasureExact), run(MeasureSampled)
	if !slices.Equal(auto, exact) {
		t.Fatal("auto and exact measurements differ at n = 80")
	}
	for i, r := range auto {
		if r.ObjStdErr != 0 || r.AUCStdErr != 0 || r.BiasStdErr != 0 || r.MeasurePairs != 0 || r.Measure != (MeasureMethods{}) {
			t.Fatalf("record %d: exact measurement reports %+v", i, r)
		}
		q := sampled[i]
		if q.Measure.Obj != problem.MethodSampled || q.MeasurePairs == 0 {
			t.Fatalf("record %d: sampled measurement %+v", i, q)
		}
		if math.Abs(q.ObjMean-r.ObjMean) > 5*q.ObjStdErr || math.Abs(q.AUCMean-r.AUCMean) > 5*q.AUCStdErr+1e-12 {
			t.Errorf("record %d: sampled %g ± %g (AUC %g ± %g), exact %g (AUC %g)", i, q.ObjMean, q.ObjStdErr, q.AUCMean, q.AUCStdErr, r.ObjMean, r.AUCMean)
		}
	}
}

func TestMeasureMethodsPack(t *testing.T) {
	for _, m := range []MeasureMethods{{}, {problem.MethodSampled, problem.MethodSorted, problem.MethodStreamed}, {problem.MethodSorted, 0, problem.MethodSampled}} {
		if got := UnpackMeasureMethods(m.Pack()); got != m {
			t.Fatalf("pack %+v: got %+v", m, got)
		}
	}
	if (MeasureMethods{}).Pack() != 0 {
		t.Fatal("the zero value must pack to 0")
	}
	if err := (Config{Iters: 1, GammaC: 1, MeasurePrecision: -1}).Validate(); err == nil {
		t.Fatal("a negative precision validated")
	}
	if err := (Config{Iters: 1, GammaC: 1, Measure: 7}).Validate(); err == nil {
		t.Fatal("an unknown measurement mode validated")
	}
}

// cpuSeconds is the process's CPU time so far (user and system).
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return math.NaN()
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) * 1e-9
}

// BenchmarkMeasureLarge times one measurement (objective, AUC, consensus,
// bias) of 16 nodes at n = 10⁶ and 10⁷, d = 16 (metric learning d = 8;
// 10⁷ skipped with -short), with the automatic choice of method, on two
// workers.
func BenchmarkMeasureLarge(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		for _, loss := range []problem.Loss{problem.AUCLogistic, problem.AUCHinge, problem.AUCSquaredHinge, problem.MetricHinge} {
			d := 16
			if loss.IsMetric() {
				d = 8 // θ is d×d: the state of 10⁷ nodes at d = 16 would be 60 GB
			}
			b.Run(fmt.Sprintf("%s/n=%d/d=%d", loss, n, d), func(b *testing.B) {
				if n > 1_000_000 && testing.Short() {
					b.Skip("n = 10⁷ needs about 7 GB")
				}
				p := largeProblem(b, loss, n, d)
				s := measureState(p, Config{Algorithm: Sync, Iters: 1, GammaC: 1, Seed: 1, EvalNodes: 16, Workers: 2})
				ms := newMeasurer(s, 2, p.NewWorkspace())
				var r Record
				c0 := cpuSeconds()
				for b.Loop() {
					r = ms.measure(s)
				}
				// CPU time (both workers) beside the wall time: the machine
				// is shared, and this is what a quiet one would spread over
				// its cores.
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(r.MeasurePairs), "pairs")
				b.Logf("%+v", r)
				runtime.KeepAlive(s)
			})
		}
	}
}

// TestRowMeans2: the fused pass over θ̄ and z gives the bits of two rowMean
// calls, for views of one record array (the compact layout) and for any
// worker count.
func TestRowMeans2(t *testing.T) {
	const rows, P = parallelRows + 1234, 5
	rec := layout.NewRecords(rows, P, P)
	x, y := rec[0], rec[1]
	s := rng.New(9, 0)
	for k := 0; k < rows; k++ {
		for a := range P {
			x.Row(k)[a], y.Row(k)[a] = s.Normal()*1e3, s.Normal()
		}
	}
	for _, w := range []int{1, 2, 8} {
		ms := &measurer{workers: w, seg: make([]float64, 2*reduceSegments*P)}
		wantX, wantY := make([]float64, P), make([]float64, P)
		ms.rowMean(wantX, x, rows)
		ms.rowMean(wantY, y, rows)
		gotX, gotY := make([]float64, P), make([]float64, P)
		ms.rowMeans2(gotX, gotY, x, y, rows)
		if !slices.Equal(gotX, wantX) || !slices.Equal(gotY, wantY) {
			t.Fatalf("workers %d: fused %v %v, separate %v %v", w, gotX, gotY, wantX, wantY)
		}
	}
}

// BenchmarkMeasurePaperMetric times one measurement (objective and bias of
// 8 nodes, consensus) at the size of the paper's synthetic metric-learning
// runs (n = 1000, d = 40: θ has 1600 entries; pairgossip reproduce takes 16
// per run), on one worker as reproduce's runs do.
func BenchmarkMeasurePaperMetric(b *testing.B) {
	p := largeProblem(b, problem.MetricHinge, 1000, 40)
	s := measureState(p, Config{Algorithm: Async, Iters: 1, GammaC: 1, Seed: 1, EvalNodes: 8, Workers: 1})
	ms := newMeasurer(s, 1, p.NewWorkspace())
	c0 := cpuSeconds()
	for b.Loop() {
		ms.measure(s)
	}
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
}
