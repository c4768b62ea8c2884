package pairgossip_test

// The library as a program outside the module sees it: only exported
// packages, its own pairwise losses, data and graph in memory (issue
// "Nothing silent, nothing lost", cases 12 and 13). Run these with -race:
// the concurrency contract of problem.Objective is what they check.

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/problem"
)

// userData is a regression set: n points of dimension d, real targets, and
// a ring with chords as the graph.
func userData(n, d int) (x []float64, labels []int32, target []float64, edges [][2]int32) {
	r := rand.New(rand.NewPCG(3, 4))
	x, labels, target = make([]float64, n*d), make([]int32, n), make([]float64, n)
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			x[i*d+a] = r.NormFloat64()
			target[i] += float64(a%3-1) * x[i*d+a]
		}
		target[i] += 0.1 * r.NormFloat64()
		edges = append(edges, [2]int32{int32(i), int32((i + 1) % n)}, [2]int32{int32(i), int32((i + 7) % n)})
	}
	return
}

// pureLoss is ((x_i − x_j)ᵀθ − (t_i − t_j))², conforming to the contract:
// nothing written but g.
type pureLoss struct{ target []float64 }

func (l *pureLoss) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: "pure-squared", Smooth: true}
}
func (l *pureLoss) Contributes(li, lj int32) bool { return true }
func (l *pureLoss) Loss(theta, xi, xj []float64, i, j int) float64 {
	r := problem.Margin(theta, xi, xj) - (l.target[i] - l.target[j])
	return r * r
}
func (l *pureLoss) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	r := problem.Margin(theta, xi, xj) - (l.target[i] - l.target[j])
	problem.AddScaledDiff(g, 2*w*r, xi, xj)
	return true
}

// scratchLoss is the same loss computed through a buffer in its receiver:
// what the contract forbids with several workers, and allows with one.
type scratchLoss struct{ target, diff []float64 }

func (l *scratchLoss) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: "scratch-squared", Smooth: true}
}
func (l *scratchLoss) Contributes(li, lj int32) bool { return true }
func (l *scratchLoss) residual(theta, xi, xj []float64, i, j int) float64 {
	var m float64
	for a := range xi {
		l.diff[a] = xi[a] - xj[a]
		m += float64(theta[a] * l.diff[a])
	}
	return m - (l.target[i] - l.target[j])
}
func (l *scratchLoss) Loss(theta, xi, xj []float64, i, j int) float64 {
	r := l.residual(theta, xi, xj, i, j)
	return r * r
}
func (l *scratchLoss) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	r := l.residual(theta, xi, xj, i, j)
	for a := range g {
		g[a] += 2 * w * r * l.diff[a]
	}
	return true
}

type outcome struct {
	sum   [32]byte
	trace []pairgossip.Record
	opt   float64
}

func runUser(t *testing.T, cfg pairgossip.Config, in pairgossip.Input) outcome {
	t.Helper()
	run, err := pairgossip.PrepareInput(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{sum: run.Sim.StateChecksum(), trace: res.Trace, opt: math.NaN()}
	if res.Optimum != nil {
		o.opt = res.Optimum.Value
	}
	return o
}

func sameOutcome(a, b outcome) bool {
	if a.sum != b.sum || len(a.trace) != len(b.trace) || math.Float64bits(a.opt) != math.Float64bits(b.opt) {
		return false
	}
	for i := range a.trace {
		x, y := a.trace[i], b.trace[i]
		x.AUCMean, y.AUCMean = 0, 0 // NaN: the loss is no Scorer
		if x != y {
			return false
		}
	}
	return true
}

// TestUserLossConcurrencyContract: a conforming user loss gives the same
// bits with 1 and 8 workers — the run, its measurement (objective and bias
// term) and the centralized optimum — and is clean under -race; a loss
// that keeps a scratch buffer runs correctly with one worker (every call on
// one goroutine at a time, the optimum's solver included), the same bits
// run after run.
func TestUserLossConcurrencyContract(t *testing.T) {
	// n·d = 4096 coordinate updates a round: the synchronous rounds go to
	// the worker pool; the optimum on the smaller set keeps -race quick.
	for _, size := range []struct {
		n, d    int
		optimum bool
	}{{512, 8, false}, {60, 4, true}} {
		x, labels, target, edges := userData(size.n, size.d)
		for _, algo := range []string{"sync", "async"} {
			cfg := pairgossip.DefaultConfig()
			cfg.Algorithm, cfg.Iters, cfg.GammaC, cfg.LogPoints, cfg.EvalNodes, cfg.SkipOptimum = algo, 200, 0.05, 3, 6, !size.optimum
			if algo == "async" {
				cfg.Iters = 2000
			}
			pure := pairgossip.Input{Objective: &pureLoss{target}, X: x, N: size.n, D: size.d, Labels: labels, Edges: edges}
			var ref outcome
			for k, w := range []int{1, 8} {
				cfg.Workers = w
				got := runUser(t, cfg, pure)
				if k == 0 {
					ref = got
				} else if !sameOutcome(got, ref) {
					t.Errorf("n=%d %s: a conforming loss gives other results with %d workers than with 1", size.n, algo, w)
				}
			}
			cfg.Workers = 1
			scratch := pure
			scratch.Objective = &scratchLoss{target: target, diff: make([]float64, size.d)}
			a := runUser(t, cfg, scratch)
			scratch.Objective = &scratchLoss{target: target, diff: make([]float64, size.d)}
			if b := runUser(t, cfg, scratch); !sameOutcome(a, b) {
				t.Errorf("n=%d %s: a loss with a scratch buffer differs from run to run with one worker", size.n, algo)
			}
		}
	}
}

// TestUserPanicIsAnError: a user loss that writes out of range in Grad (in
// the run, on the pool's workers or the caller) or in Loss (in the
// measurement or the centralized solve) makes Execute return a
// *PanicError naming the user's method and the runtime error, with the
// stack where it happened; the process goes on, the pool closes, and a
// checkpoint file is not written.
func TestUserPanicIsAnError(t *testing.T) {
	n, d := 512, 8
	x, labels, target, edges := userData(n, d)
	for _, tc := range []struct {
		fail, algo string
		workers    int
		skipOpt    bool
	}{
		{"grad", "sync", 1, true}, {"grad", "sync", 8, true}, {"grad", "async", 2, true},
		{"loss", "sync", 8, true},
	} {
		cfg := pairgossip.DefaultConfig()
		cfg.Algorithm, cfg.Iters, cfg.GammaC, cfg.LogPoints, cfg.EvalNodes, cfg.Workers, cfg.SkipOptimum = tc.algo, 50, 0.05, 3, 6, tc.workers, tc.skipOpt
		in := pairgossip.Input{Objective: panicky(target, tc.fail), X: x, N: n, D: d, Labels: labels, Edges: edges}
		run, err := pairgossip.PrepareInput(cfg, in)
		if err != nil {
			t.Fatal(err)
		}
		ckpt := filepath.Join(t.TempDir(), "state.ckpt")
		_, err = run.ExecuteWith(context.Background(), pairgossip.ExecOptions{Checkpoint: ckpt, CheckpointEvery: time.Hour})
		checkPanic(t, tc.fail+" "+tc.algo, err, "panickyLoss).Grad", "panickyLoss).Loss", tc.fail)
		if _, serr := os.Stat(ckpt); serr == nil {
			t.Errorf("%s %s: a checkpoint was written of a state a panic left", tc.fail, tc.algo)
		}
		// The run stays stopped: the state may be half-way through a round.
		if _, err2 := run.Execute(context.Background(), nil); !errors.Is(err2, err) && (err2 == nil || err2.Error() != err.Error()) {
			t.Errorf("%s %s: a second Execute gives %v", tc.fail, tc.algo, err2)
		}
		run.Close()
	}
	// The centralized solve (its parallel sums) with one worker and with 4.
	xs, ls, ts, es := userData(40, 3)
	for _, w := range []int{1, 4} {
		cfg := pairgossip.DefaultConfig()
		cfg.Iters, cfg.LogPoints, cfg.Workers, cfg.EvalNodes = 20, 1, w, 1
		obj := &panicAfter{pureLoss: pureLoss{ts}}
		run, err := pairgossip.PrepareInput(cfg, pairgossip.Input{Objective: obj, X: xs, N: 40, D: 3, Labels: ls, Edges: es})
		if err != nil {
			t.Fatal(err)
		}
		// Armed once the run's one measurement is taken: the optimum panics.
		res, err := run.Execute(context.Background(), func(pairgossip.Record) { obj.armed = true })
		checkPanic(t, "optimum", err, "panicAfter).Loss", "", "loss")
		if res == nil || len(res.Trace) != 1 {
			t.Errorf("optimum: the trace is lost: %+v", res)
		}
		run.Close()
	}
}

func checkPanic(t *testing.T, what string, err error, gradFunc, lossFunc, fail string) {
	t.Helper()
	var pe *pairgossip.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: got %v, want a *PanicError", what, err)
	}
	want := gradFunc
	if fail == "loss" && lossFunc != "" {
		want = lossFunc
	}
	if fail == "loss" && lossFunc == "" {
		want = gradFunc
	}
	if !strings.HasSuffix(pe.Func, want) || !strings.Contains(err.Error(), "index out of range") || !strings.Contains(pe.Stack, "outside_test.go") {
		t.Errorf("%s: message %q (func %q), want the panic in %s with its stack", what, err, pe.Func, want)
	}
}

// panickyLoss writes out of range in Grad or Loss for the pairs of point 3.
type panickyLoss struct {
	pureLoss
	fail string
}

func panicky(target []float64, fail string) *panickyLoss {
	return &panickyLoss{pureLoss{target}, fail}
}

func (l *panickyLoss) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: "panicky", Smooth: true}
}
func (l *panickyLoss) Loss(theta, xi, xj []float64, i, j int) float64 {
	if l.fail == "loss" && i%16 == 3 {
		theta[len(theta)+i] = 1
	}
	return l.pureLoss.Loss(theta, xi, xj, i, j)
}
func (l *panickyLoss) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	if l.fail == "grad" && i%16 == 3 {
		g[len(g)+i] = 1
	}
	return l.pureLoss.Grad(g, w, theta, xi, xj, i, j)
}

// panicAfter panics in Loss once armed.
type panicAfter struct {
	pureLoss
	armed bool
}

func (l *panicAfter) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: "panic-after", Smooth: true}
}
func (l *panicAfter) Loss(theta, xi, xj []float64, i, j int) float64 {
	if l.armed && i == 3 {
		theta[len(theta)+i] = 1
	}
	return l.pureLoss.Loss(theta, xi, xj, i, j)
}

// TestPairwiseMissingFunction: a problem.Pairwise without its gradient or
// its loss, a typed nil one, and an objective whose Info has a negative P,
// are errors from PrepareInput naming what is missing — not a nil-pointer
// panic in the run.
func TestPairwiseMissingFunction(t *testing.T) {
	x, labels, target, edges := userData(30, 3)
	pure := &pureLoss{target}
	cases := []struct {
		obj  problem.Objective
		want string
	}{
		{&problem.Pairwise{Name: "sq", Func: pure.Loss}, `problem: Pairwise "sq" has no GradFunc (the gradient of a pair's loss)`},
		{&problem.Pairwise{Name: "sq", GradFunc: pure.Grad}, `problem: Pairwise "sq" has no Func (the loss of a pair)`},
		{&problem.Pairwise{Name: "sq"}, `problem: Pairwise "sq" has neither Func`},
		{(*problem.Pairwise)(nil), "problem: nil *Pairwise objective"},
		{&problem.Pairwise{Name: "sq", P: -1, Func: pure.Loss, GradFunc: pure.Grad}, "problem: sq: ObjectiveInfo.P must be >= 0 (0: θ has the data's dimension), got -1"},
	}
	for _, tc := range cases {
		cfg := pairgossip.DefaultConfig()
		cfg.Iters = 10
		run, err := pairgossip.PrepareInput(cfg, pairgossip.Input{Objective: tc.obj, X: x, N: 30, D: 3, Labels: labels, Edges: edges})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if run != nil {
			run.Close()
		}
		if _, err := problem.NewObjective(tc.obj, problem.Regularizer{}, 30, 3, x, labels); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("NewObjective: got %v, want %q", err, tc.want)
		}
	}
	// A panic of Info itself is an error too.
	if _, err := pairgossip.PrepareInput(pairgossip.DefaultConfig(), pairgossip.Input{Objective: &badInfo{}, X: x, N: 30, D: 3, Labels: labels, Edges: edges}); !strings.Contains(errString(err), "badInfo).Info") {
		t.Errorf("Info panicking: %v", err)
	}
}

type badInfo struct{ pureLoss }

func (*badInfo) Info() problem.ObjectiveInfo { panic("no info") }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestInputGraphMissesNode: an edge list from memory that misses a node is
// refused naming it; repeated edges (i j twice, or i j and j i) are merged
// as an edge-list file's are, with a warning.
func TestInputGraphMissesNode(t *testing.T) {
	x, labels, target, _ := userData(30, 3)
	var ring [][2]int32
	for i := 0; i < 29; i++ { // node 29 left out
		ring = append(ring, [2]int32{int32(i), int32((i + 1) % 29)})
	}
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.SkipOptimum = 10, true
	in := pairgossip.Input{Objective: &pureLoss{target}, X: x, N: 30, D: 3, Labels: labels, Edges: ring}
	_, err := pairgossip.PrepareInput(cfg, in)
	if want := "graph: memory has node 29 without an edge (30 nodes, 2 connected components); gossip needs a connected graph"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	in.Edges = append(ring, [2]int32{28, 29}, [2]int32{29, 28}, [2]int32{0, 1})
	run, err := pairgossip.PrepareInput(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	want := "graph memory: 2 of its edges repeat another (the same pair, in either orientation) and were merged: 30 edges remain"
	if len(run.Warnings) != 1 || run.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", run.Warnings, want)
	}
}
