package network

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/lanczos"
	"github.com/pairgossip/pairgossip/internal/rng"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Gap is the effective spectral gap of a network model: 1 − λ₂(W̄) for the
// expected gossip matrix
//
//	W̄ = I − Σ_e s_e p_e (e_i − e_j)(e_i − e_j)ᵀ / 2
//
// (p_e the probability that an activation is e, s_e the probability that
// its exchange happens; docs/networks.md), next to the perfect network's
// gap on the run's graph.
type Gap struct {
	Value float64 // 1 − λ₂(W̄)
	// Perfect is graph.SpectralGap of the run's graph (docs/design.md
	// §2.2); under a schedule, which replaces that graph, the paper's
	// network on each phase averaged over the phases by their lengths.
	Perfect float64
	// PerfectMethod is graph.SpectralGap's method for Perfect
	// ("closed-form", "dense" or "lanczos").
	PerfectMethod string
	// Method is "dense", "lanczos", or for a model of loss and parametric
	// churn (see Model.GapScale) the graph's gap method scaled, e.g.
	// "closed-form × (1 − q)" or "lanczos × (1 − q)π²".
	Method     string
	Residual   float64 // Lanczos: ‖L̄y − βy‖ of the returned unit Ritz vector; 0 for dense
	Iterations int     // Lanczos: matrix–vector products; 0 for dense
}

// GapOptions controls EffectiveGap; the zero value selects the defaults:
// the graph's gap (graph.SpectralGap) scaled where the model allows it
// (Model.GapScale), else dense up to graph.DenseMaxN nodes and Lanczos
// beyond.
type GapOptions struct {
	// Method is "" or "auto", or forces "dense", "lanczos" or "scaled"
	// (the graph's gap times Model.GapScale's factor: an error for a model
	// that has none).
	Method  string
	Tol     float64
	MaxIter int
	Seed    uint64
	// Horizon is the run's iterations, over which a churn file's π_k is
	// the fraction online (0: the file's span, 1 … its largest end), over
	// which a recorded stream's frequencies are counted (0, or past its
	// last iteration: the whole stream), and over which a schedule's phases
	// are weighted by the iterations each takes (0: its length over the
	// cycle's; a phase a short run never reaches weighs nothing).
	Horizon int64
}

// streamGapLanczos identifies the Lanczos start vector's stream.
const streamGapLanczos = 23

// MethodScaled is the GapOptions.Method that scales the graph's gap by
// Model.GapScale's factor.
const MethodScaled = "scaled"

// GapScale reports whether the model's expected gossip matrix is the
// paper's network's W = I − L/|E| with L scaled, W̄ = I − f·L/|E|, and f: then
// λ₂ scales too and the effective gap is exactly f times the graph's
// (graph.SpectralGap, in closed form where the graph has one). That is a
// model of loss, f = 1 − q: two-way, where the exchange of an activated
// pair happens with probability 1 − q, and one-way, where each endpoint
// averages with what it received with probability 1 − q (E z_i' = z_i −
// (1 − q)(z_i − z_j)/2, the same expectation; docs/networks.md §3, §9);
// with parametric churn (exponential, geometric, lognormal), whose π_k is
// the same π for every node, f = (1 − q)π², since s_e = (1 − q)π_iπ_j.
// Delays do not enter W̄. A churn file (π_k per node), a schedule, link
// failures, a recorded stream and a non-uniform activation change L's
// weights edge by edge, and have no such factor.
func (m Model) GapScale() (f float64, ok bool) {
	if m.Churn.Dist == DistFile || len(m.Schedule) > 0 || m.LinkUp != 0 && m.LinkUp != 1 || m.EdgeStream != "" || m.Stream != nil ||
		m.Activation.Kind != "" && m.Activation.Kind != ActEdges {
		return 0, false
	}
	f = 1 - m.Loss
	if m.Churn.Dist != "" {
		pi := churnPi(m.Churn)
		f *= pi * pi
	}
	return f, true
}

// ScaledGap is the effective gap f times the graph's gap pg (|E| ordered
// edges), for a model that has such a factor (Model.GapScale's f): no
// eigensolve, nor the graph itself where pg is a closed form (pairgossip
// gap at any n). Its Method names the factor.
func ScaledGap(pg graph.Gap, m Model, orderedEdges int) Gap {
	f, _ := m.GapScale()
	factor := " × (1 − q)"
	if m.Churn.Dist != "" {
		factor = " × (1 − q)π²"
	}
	// Residual: graph.Gap's is L's, ‖Ly − βy‖; W̄'s Laplacian is f·L/|E|.
	return Gap{Value: f * pg.Value, Perfect: pg.Value, PerfectMethod: pg.Method, Method: pg.Method + factor,
		Residual: f * pg.Residual / float64(orderedEdges), Iterations: pg.Iterations}
}

// ExpectedWeights returns the edges of the weighted Laplacian L̄ = I − W̄
// and their weights s_e·p_e/2, summed over the schedule's phases weighted by
// their lengths (pairs that occur in several phases are listed once per
// phase; L̄ is their sum):
//
//	s_e = (1 − q) · π_i π_j · a
//
// with q the loss (one-way loss: each direction's half averages with
// probability 1 − q, the same expectation), π_k the probability that node k
// is online (up/(up+down), or the fraction of a churn file's span), and a
// the link-up probability. For a recorded stream p_e is the stream's
// frequency per iteration (its count over its last iteration: iterations
// without a line leave W unchanged; over the run's iterations,
// GapOptions.Horizon, when it stops before the stream ends). Delays do not
// enter W̄.
func (nt *Net) ExpectedWeights() (pairs [][2]int32, w []float64) {
	return nt.expectedWeights(0)
}

// expectedWeights is ExpectedWeights with a churn file's π_k over
// iterations 1 … horizon (GapOptions.Horizon).
func (nt *Net) expectedWeights(horizon int64) (pairs [][2]int32, w []float64) {
	fracs := nt.phaseFractions(horizon)
	var pi []float64
	if nt.churn != nil {
		pi = make([]float64, nt.n)
		for k := range pi {
			pi[k] = nt.churn.pi(k, horizon)
		}
	}
	for x, ph := range nt.phases {
		frac := fracs[x]
		pp, pe := ph.pairs, ph.pe
		if ph.stream {
			// The stream's frequencies per iteration over its span, or over
			// the first horizon iterations, which the run replays (a line
			// far past them would dilute them).
			h := nt.stream.Last()
			if horizon > 0 && horizon < h {
				h = horizon
			}
			pp, pe = streamFrequencies(nt.stream, h)
		}
		for y, e := range pp {
			s := (1 - nt.loss) * nt.linkUp
			if pi != nil {
				s *= pi[e[0]] * pi[e[1]]
			}
			pairs = append(pairs, e)
			w = append(w, frac*s*pe[y]/2)
		}
	}
	return pairs, w
}

// EffectiveGap returns the effective spectral gap of the model (see Gap).
func (nt *Net) EffectiveGap(opt GapOptions) (Gap, error) {
	return nt.EffectiveGapContext(context.Background(), opt)
}

// EffectiveGapContext is EffectiveGap that stops when ctx is done: the
// Lanczos iterations (the effective gap's and the graph's own) look at ctx
// before each matrix–vector product, and a dense eigensolve (at most
// graph.DenseMaxN nodes under "auto"), which cannot, is left to finish on
// its own goroutine (untilDone); either way the call returns an error
// wrapping ctx's (context.Canceled, say) at once.
//
// When the graph's gap is known but the effective gap is not (the Lanczos
// iteration did not converge, an error wrapping graph.ErrNotConverged; ctx
// was done; the dense eigensolver failed), the error comes with a Gap whose
// Perfect is the graph's gap and whose Value is NaN: never an unconverged
// estimate.
func (nt *Net) EffectiveGapContext(ctx context.Context, opt GapOptions) (Gap, error) {
	f, scalable := nt.model.GapScale()
	method := opt.Method
	if method == "" || method == "auto" {
		switch {
		case scalable && f > 0:
			// Exact, and one eigensolve (the graph's, none where it has a
			// closed form) where "dense" would take two.
			method = MethodScaled
		case nt.n <= graph.DenseMaxN:
			method = "dense"
		default:
			method = "lanczos"
		}
	}
	if method == MethodScaled && !scalable {
		// Refused before the perfect gap, an eigensolve under a schedule.
		return Gap{}, fmt.Errorf("network: effective gap: method %s needs a model of loss and parametric churn only (no churn file, schedule, link failures, stream or non-uniform activation): %s", MethodScaled, nt.model)
	}
	pg, err := nt.perfectGap(ctx, method, opt)
	if err != nil {
		// Neither gap known (a schedule's perfect gap is an eigensolve
		// too, which ctx may stop).
		return Gap{Value: math.NaN(), Perfect: math.NaN(), Method: method}, err
	}
	if method == MethodScaled {
		return ScaledGap(pg, nt.model, nt.g.OrderedEdges()), nil
	}
	// A long replayed stream's frequencies are a pass over its lines.
	type weights struct {
		pairs [][2]int32
		w     []float64
	}
	ew, err := untilDone(ctx, func() (weights, error) {
		p, w := nt.expectedWeights(opt.Horizon)
		return weights{p, w}, nil
	})
	if err != nil {
		return Gap{Value: math.NaN(), Perfect: pg.Value, PerfectMethod: pg.Method, Method: method}, fmt.Errorf("network: effective gap: %w", err)
	}
	pairs, w := ew.pairs, ew.w
	g := Gap{Perfect: pg.Value, PerfectMethod: pg.Method, Method: method}
	var none string
	g.Value, g.Residual, g.Iterations, none, err = laplacianLambda2(ctx, method, nt.n, pairs, w, opt)
	if none != "" {
		g.Method = none
	}
	if err != nil {
		return Gap{Value: math.NaN(), Perfect: pg.Value, PerfectMethod: pg.Method, Method: method}, err
	}
	return g, nil
}

// perfectGap is the gap the effective one is set beside (Gap.Perfect): the
// paper's network on the run's graph (graph.SpectralGap), or, under a
// schedule, which replaces the run's graph, the paper's network on each
// phase (uniform edges, nothing lost, every node and link up) averaged
// over the phases by the iterations each takes (phaseFractions), by the
// effective gap's method (dense, else Lanczos).
func (nt *Net) perfectGap(ctx context.Context, method string, opt GapOptions) (graph.Gap, error) {
	if len(nt.model.Schedule) == 0 {
		pg, err := untilDone(ctx, func() (graph.Gap, error) { return graph.SpectralGapContext(ctx, nt.g, graph.GapOptions{}) })
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("network: effective gap: %w", err)
		}
		return pg, err
	}
	fracs := nt.phaseFractions(opt.Horizon)
	var pairs [][2]int32
	var w []float64
	for x, ph := range nt.phases {
		for _, e := range ph.g.Edges {
			pairs = append(pairs, e)
			w = append(w, fracs[x]/float64(len(ph.g.Edges))/2)
		}
	}
	if method != "dense" {
		method = "lanczos"
	}
	v, res, it, none, err := laplacianLambda2(ctx, method, nt.n, pairs, w, opt)
	if none != "" {
		method = none
	}
	return graph.Gap{Value: v, Method: method + " (the schedule's phases, uniform edges, no faults)", Residual: res, Iterations: it}, err
}

// phaseFractions returns the fraction of the iterations 1 … horizon that
// each phase of a schedule takes (its length over the cycle's when horizon
// is 0, or without a schedule: 1 for the one phase). A run shorter than
// the cycle, or ending within one, weighs the phases it runs, as long as
// it runs them: a phase it never reaches does not enter its W̄.
func (nt *Net) phaseFractions(horizon int64) []float64 {
	f := make([]float64, len(nt.phases))
	if nt.cycle == 0 {
		for x := range f {
			f[x] = 1
		}
		return f
	}
	start := int64(0)
	for x, ph := range nt.phases {
		if horizon <= 0 {
			f[x] = float64(ph.length) / float64(nt.cycle)
		} else {
			full, rem := horizon/nt.cycle, horizon%nt.cycle
			in := full*ph.length + min(max(rem-start, 0), ph.length)
			f[x] = float64(in) / float64(horizon)
		}
		start += ph.length
	}
	return f
}

// untilDone returns f's result, or ctx's error as soon as ctx is done: a
// dense eigensolve (seconds at n = 1024) and the graph's own Lanczos do
// not look at ctx, and a Ctrl-C must not wait for them. f then finishes
// on its own goroutine, its result dropped; it must write nothing shared.
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() {
		v, err := f()
		c <- result{v, err}
	}()
	select {
	case r := <-c:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// laplacianLambda2 returns λ₂ of the weighted Laplacian Σ w_e (e_i −
// e_j)(e_i − e_j)ᵀ by method ("dense" or "lanczos"), with the Lanczos
// residual and products; none names, instead of a method, a λ₂ of exactly
// 0 found without one (no weight positive; the edges of positive weight
// leave the nodes in several parts).
func laplacianLambda2(ctx context.Context, method string, n int, pairs [][2]int32, w []float64, opt GapOptions) (v, resid float64, iters int, none string, err error) {
	// L̄'s scale is immaterial to the eigenvector and multiplies λ₂: the
	// weights are scaled by a power of two (exact) to a largest of 1, so
	// that tiny ones (link-up 1e-300, churn that keeps nodes offline almost
	// always) neither underflow nor send LAPACK's own scaling astray.
	wmax := 0.0
	for _, x := range w {
		wmax = max(wmax, x)
	}
	if !(wmax > 0) || math.IsInf(wmax, 0) {
		if wmax == 0 { // no edge is ever active: W̄ = I
			return 0, 0, 0, "none (no edge is ever active)", nil
		}
		return 0, 0, 0, "", fmt.Errorf("network: effective gap: weight %v", wmax)
	}
	if !spans(n, pairs, w) {
		// λ₂ of a Laplacian is 0 exactly when the edges of positive weight
		// leave the nodes in several parts (a churn file that keeps a node
		// offline over the horizon): say so, rather than an eigensolver's
		// rounding of 0 (or a Lanczos iteration that cannot converge on a
		// multiple eigenvalue 0).
		return 0, 0, 0, "none (the expected graph is disconnected)", nil
	}
	_, e := math.Frexp(wmax)
	scale := math.Ldexp(1, -e)
	ws := make([]float64, len(w))
	for x, v := range w {
		ws[x] = v * scale
	}
	switch method {
	case "dense":
		v, err = untilDone(ctx, func() (float64, error) { return denseLambda2(n, pairs, ws) })
	case "lanczos":
		tol, maxIter := opt.Tol, opt.MaxIter
		if tol == 0 {
			tol = graph.DefaultGapTol
		}
		if maxIter == 0 {
			maxIter = graph.DefaultGapMaxIter
		}
		v, resid, iters, err = lanczosLambda2(ctx, n, pairs, ws, tol, maxIter, opt.Seed)
	default:
		return 0, 0, 0, "", fmt.Errorf("network: effective gap: unknown method %q; valid methods are auto, dense, lanczos, %s", opt.Method, MethodScaled)
	}
	return v / scale, resid / scale, iters, "", err
}

// spans reports whether the edges of positive weight connect all n nodes
// (union–find with path halving).
func spans(n int, pairs [][2]int32, w []float64) bool {
	parent := make([]int32, n)
	for k := range parent {
		parent[k] = int32(k)
	}
	find := func(k int32) int32 {
		for parent[k] != k {
			parent[k] = parent[parent[k]]
			k = parent[k]
		}
		return k
	}
	parts := n
	for x, e := range pairs {
		if !(w[x] > 0) {
			continue
		}
		if a, b := find(e[0]), find(e[1]); a != b {
			parent[a] = b
			parts--
		}
	}
	return parts <= 1
}

// denseLambda2 returns the second-smallest eigenvalue of the weighted
// Laplacian Σ w_e (e_i − e_j)(e_i − e_j)ᵀ.
func denseLambda2(n int, pairs [][2]int32, w []float64) (float64, error) {
	if n < 2 {
		return 0, errors.New("network: effective gap: fewer than two nodes")
	}
	if float64(n)*float64(n) > 1<<31 {
		return 0, fmt.Errorf("network: effective gap: n=%d is too large for the dense eigensolver; use lanczos", n)
	}
	a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	for x, e := range pairs {
		i, j := int(e[0]), int(e[1])
		a.Data[i*n+i] += w[x]
		a.Data[j*n+j] += w[x]
		a.Data[min(i, j)*n+max(i, j)] -= w[x]
	}
	ev := make([]float64, n)
	work := []float64{0}
	lapack64.Syev(lapack.EVNone, a, ev, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Syev(lapack.EVNone, a, ev, work, len(work)) {
		return 0, errors.New("network: effective gap: dense eigensolver failed to converge")
	}
	// The eigenvalues are accurate to about n ulps of ‖L̄‖ = λ_max (a
	// backward stable solver): a λ₂ within that of 0 is rounding, and may
	// come out negative, while the expected graph is connected (spans) and
	// its λ₂ positive. It is refused rather than given: edge weights spread
	// over some 16 orders of magnitude or more put it there.
	if res := float64(n) * 0x1p-52 * ev[n-1]; ev[1] <= res {
		return 0, fmt.Errorf("network: effective gap: %w: λ₂ of the expected Laplacian is within its rounding, n·ε·λ_max = %.3g × the largest, of 0 (the expected graph is connected, so it is positive, but its edges' weights are spread too far, over some 16 orders of magnitude or more, for it to be told from 0)", ErrBelowResolution, res/ev[n-1])
	}
	return ev[1], nil
}

// ErrBelowResolution is wrapped by the error of a dense effective gap that
// lies within the eigensolver's rounding of 0 (a positive gap it cannot
// tell from 0): the gap is then not given, never as a rounding error.
var ErrBelowResolution = errors.New("below the dense eigensolver's resolution")

// laplacianMul sets dst = L̄x.
func laplacianMul(pairs [][2]int32, w, dst, x []float64) {
	clear(dst)
	for k, e := range pairs {
		d := w[k] * (x[e[0]] - x[e[1]])
		dst[e[0]] += d
		dst[e[1]] -= d
	}
}

// lanczosLambda2 computes the smallest eigenvalue of L̄ on the complement of
// the all-ones vector by the thick-restart Lanczos iteration the graph's
// gap uses (package lanczos; Gershgorin's 2·max weighted degree bounds
// ‖L̄‖); convergence is declared when the explicitly recomputed residual is
// at most tol·θ. Reaching maxIter products is an error, and so is ctx done
// (looked at before each product).
func lanczosLambda2(ctx context.Context, n int, pairs [][2]int32, w []float64, tol float64, maxIter int, seed uint64) (theta, resid float64, iters int, err error) {
	if n < 3 {
		v, err := denseLambda2(n, pairs, w)
		return v, 0, 0, err
	}
	deg := make([]float64, n)
	for k, e := range pairs {
		deg[e[0]] += w[k]
		deg[e[1]] += w[k]
	}
	norm := 2 * slices.Max(deg)
	res, err := lanczos.Smallest(ctx, n, func(dst, x []float64) { laplacianMul(pairs, w, dst, x) }, norm, tol, maxIter, rng.New(seed, streamGapLanczos))
	var nc *lanczos.NotConverged
	switch {
	case errors.As(err, &nc):
		// The estimate is not reported: it can be far from λ₂ (by orders
		// of magnitude for a tiny gap at large n).
		return 0, 0, nc.Iters, fmt.Errorf("network: effective gap: %w after %d products (relative residual %.2g, tolerance %.2g; it converges slowly when λ₂ is tiny against the spread of the spectrum, as on path- or cycle-like graphs at large n)", graph.ErrNotConverged, nc.Iters, nc.Resid/math.Abs(nc.Estimate), tol)
	case err != nil:
		return 0, 0, 0, fmt.Errorf("network: effective gap: %w", err)
	}
	return res.Theta, res.Resid, res.Iters, nil
}
