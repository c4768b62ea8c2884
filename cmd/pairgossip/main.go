// Command pairgossip simulates gossip dual averaging for pairwise objectives
// (Colin, Bellet, Salmon and Clémençon, ICML 2016).
//
// Usage:
//
//	pairgossip run [flags]      run one simulation, write DIR/trace.csv and DIR/summary.json
//	pairgossip gap [flags]      print a graph's spectral gap 1 − λ₂(W)
//	pairgossip reproduce [flags] run every experiment of the paper, write DIR/report.html
//	pairgossip sweep COMMAND    parameter sweeps: plan, run (locally or as a SLURM job array), merge, status, report
//	pairgossip help [command]   explain a command's flags
//
// The main job, every experiment of the paper on the embedded data:
//
//	pairgossip reproduce --out report
//
// One simulation:
//
//	pairgossip run --problem auc --data breast-cancer --graph watts-strogatz \
//	    --algo sync --iters 5000 --seed 1 --out out
//
// Exit status: 0 on success, 2 for a bad flag or bad input (the message names
// it), 1 when a run fails (divergence: the iteration and node are named),
// 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/internal/progress"
)

// usageError is a bad flag or input: exit status 2.
type usageError = cli.UsageError

var usagef = cli.Usagef

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

const topUsage = `pairgossip simulates gossip dual averaging for pairwise objectives
(AUC maximization, metric learning) — Colin et al., ICML 2016.

Usage:
  pairgossip run [flags]      run one simulation; writes DIR/trace.csv and DIR/summary.json
  pairgossip gap [flags]      spectral gap 1 − λ₂(W) of a graph (Table 1 of the paper)
  pairgossip reproduce [flags]
                              every experiment of the paper (Table 1, Figs. 1–3, supplement):
                              writes DIR/report.html, DIR/results.json, figures and traces
  pairgossip sweep COMMAND    parameter sweeps from a YAML file: plan, run (here, several at a
                              time, or as a SLURM job array), merge, status, report (SQLite results)
  pairgossip help COMMAND     the flags of a command, with what they mean

Start with:
  pairgossip run --out out    AUC on the embedded Breast Cancer data, Watts–Strogatz graph
`

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "gap":
		err = cmdGap(args[1:], stdout, stderr)
	case "reproduce":
		err = cmdReproduce(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return realMain([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, topUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "pairgossip: unknown command %q\n\n%s", args[0], topUsage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "pairgossip: interrupted")
		return 130
	}
	fmt.Fprintf(stderr, "pairgossip %s: %v\n", args[0], err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

var (
	newFlagSet = cli.NewFlagSet
	parse      = cli.Parse
)

// graphFlags are shared by run and gap.
type graphFlags struct {
	kind, file    string
	k             int
	p, radius     float64
	rows, cols    int
	seed          uint64
	pointsPerNode int
}

func (g *graphFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.kind, "graph", "watts-strogatz", "topology: "+strings.Join(graph.Kinds, ", "))
	fs.IntVar(&g.k, "k", 5, "Watts–Strogatz k: each node is joined to ⌊k/2⌋ neighbours on each side\nbefore rewiring (k = 5 gives degree 4, as in networkx and the paper)")
	fs.Float64Var(&g.p, "p", 0.3, "Watts–Strogatz rewiring probability, or Erdős–Rényi edge probability")
	fs.Float64Var(&g.radius, "radius", 0, "random geometric graph: connection radius in the unit square (0: 1.5·sqrt(log n / (π n)))")
	fs.IntVar(&g.rows, "rows", 0, "grid/torus rows (0: near-square factorisation of n)")
	fs.IntVar(&g.cols, "cols", 0, "grid/torus columns")
	fs.StringVar(&g.file, "graph-file", "", "edge list for --graph file: whitespace-separated node ids, # comments")
	fs.Uint64Var(&g.seed, "graph-seed", 1, "seed of the random graph; a disconnected draw is redrawn with a new sub-seed")
	fs.IntVar(&g.pointsPerNode, "points-per-node", 1, "k data points per physical node: runs on G ⊗ K_k (paper appendix), gap/k")
}

func (g *graphFlags) validate() error {
	if !contains(graph.Kinds, g.kind) {
		return usagef("--graph: unknown graph %q (valid: %s)", g.kind, strings.Join(graph.Kinds, ", "))
	}
	if g.kind == "file" && g.file == "" {
		return usagef("--graph file needs --graph-file PATH")
	}
	if g.p < 0 || g.p > 1 {
		return usagef("--p must be in [0, 1], got %g", g.p)
	}
	if g.radius < 0 {
		return usagef("--radius must be >= 0, got %g", g.radius)
	}
	if g.pointsPerNode < 1 {
		return usagef("--points-per-node must be >= 1, got %d", g.pointsPerNode)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cmdGap(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gap", "pairgossip gap: the spectral gap 1 − λ₂(W) of a graph, W = I − L/|E| with |E|\n"+
		"counting ordered pairs (twice the undirected edges). Closed forms for complete, cycle, star,\n"+
		"path, grid and torus; a dense eigensolver for n ≤ 1024; Lanczos beyond.\n\n"+
		"Example (Table 1 of the paper): pairgossip gap --graph cycle --n 699 --json", stderr)
	var gf graphFlags
	gf.register(fs)
	n := fs.Int("n", 699, "number of (physical) nodes")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := gf.validate(); err != nil {
		return err
	}
	if *n < 2 && gf.kind != "file" {
		return usagef("--n must be >= 2, got %d", *n)
	}
	t0 := time.Now()
	g, err := graph.Build(graph.Spec{Kind: gf.kind, N: *n, K: gf.k, P: gf.p, Radius: gf.radius, Rows: gf.rows, Cols: gf.cols, Seed: gf.seed, File: gf.file})
	if err != nil {
		return usageError{Err: err}
	}
	if gf.pointsPerNode > 1 {
		if g, err = graph.Tensor(g, gf.pointsPerNode); err != nil {
			return usageError{Err: err}
		}
	}
	warn, err := graph.Check(g)
	if err != nil {
		return usageError{Err: err}
	}
	gap, err := graph.SpectralGap(g)
	if err != nil {
		return err
	}
	out := struct {
		Graph           string   `json:"graph"`
		Name            string   `json:"name"`
		N               int      `json:"n"`
		UndirectedEdges int      `json:"undirected_edges"`
		OrderedEdges    int      `json:"ordered_edges"`
		MinDegree       int      `json:"min_degree"`
		MaxDegree       int      `json:"max_degree"`
		SpectralGap     float64  `json:"spectral_gap"`
		Lambda2L        float64  `json:"laplacian_lambda2"`
		Method          string   `json:"method"`
		Tries           int      `json:"tries"`
		Seconds         float64  `json:"seconds"`
		Warnings        []string `json:"warnings,omitempty"`
	}{gf.kind, g.Name, g.N, g.UndirectedEdges(), g.OrderedEdges(), g.MinDegree(), g.MaxDegree(),
		gap.Value, gap.Lambda2L, gap.Method, g.Tries, time.Since(t0).Seconds(), warn}
	if *asJSON {
		_, err = stdout.Write(pairgossip.JSON(out))
		return err
	}
	for _, w := range warn {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "%s: n = %d, %d undirected edges, degree %d..%d\nspectral gap 1 − λ₂(W) = %.6g (%s)\n",
		g.Name, g.N, g.UndirectedEdges(), g.MinDegree(), g.MaxDegree(), gap.Value, gap.Method)
	return nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "pairgossip run: one simulation. Writes DIR/trace.csv (one row per log-spaced iteration) and\n"+
		"DIR/summary.json (configuration, final values, centralized optimum, wall time).\n\n"+
		"Conventions: θ = π_t(z) = prox_{tγψ}(−γz) with γ(t) = c/t^(1/2+α); |E| counts ordered pairs,\n"+
		"p_k = 2d_k/|E|; the asynchronous clock is m_k = (activations of k)/p_k.\n\n"+
		"Example: pairgossip run --problem auc --data breast-cancer --graph watts-strogatz --algo sync --iters 5000 --out out", stderr)
	def := pairgossip.DefaultConfig()
	var gf graphFlags
	gf.register(fs)
	prob := fs.String("problem", "auc", "objective: auc (logistic), auc-hinge, auc-squared-hinge, metric")
	data := fs.String("data", "breast-cancer", "breast-cancer (embedded), synthetic (paper's metric-learning set), or a CSV / LIBSVM file")
	dataSeed := fs.Uint64("data-seed", 1, "seed of the synthetic data set")
	labelCol := fs.Int("label-column", 0, "CSV: 1-based label column (0: last; negative counts from the end)")
	algo := fs.String("algo", "sync", "algorithm: sync (Alg. 2), async (Alg. 3), centralized (Alg. 1)")
	baseline := fs.String("baseline", "gossip", "gradient estimate: gossip (propagated y_k) or unbiased (x_j, j uniform, paper Fig. 2)")
	iters := fs.Int64("iters", def.Iters, "iterations T: rounds (sync), edge events (async) or steps (centralized)")
	reg := fs.String("reg", "", "regulariser ψ: none, l2 (λ‖θ‖²), l1 (λ‖θ‖₁), l2-ball (radius r), psd (cone; default for metric)")
	lambda := fs.Float64("lambda", 0, "λ of the l2 and l1 regularisers")
	ball := fs.Float64("ball-radius", 1, "radius of the l2-ball constraint")
	b := fs.Float64("b", 2, "metric learning threshold b > 0")
	gc := fs.Float64("gamma-c", 1, "step size constant c in γ(t) = c/t^(1/2+α) (metric learning wants ≈ 0.01)")
	ga := fs.Float64("gamma-alpha", 0, "step size exponent α in [0, 0.5)")
	seed := fs.Uint64("seed", 1, "seed of the edge stream and of every per-node draw")
	workers := fs.Int("workers", 0, "worker goroutines (0: all cores); results do not depend on it")
	pin := fs.Bool("pin", false, "pin each worker to a CPU of the process's affinity mask (Linux; a no-op, with the\nreason in summary.json, where it cannot help); results do not depend on it")
	schedule := fs.String("schedule", "auto", "how the iterations are executed: auto (reduced where it applies, else blocked/plain/reference),\nplain, blocked (bit-identical to the literal algorithm with the generic kernels), reduced\n(scalar recurrences between touches: exact in real arithmetic, agrees to ~1e-15), reference")
	logPoints := fs.Int("log-points", 30, "number of log-spaced iterations measured (the last is always one)")
	evalNodes := fs.Int("eval-nodes", 0, "nodes whose θ̄_k are measured: 0 = all when cheap, else a seeded sample; -1 = all")
	noOpt := fs.Bool("no-optimum", false, "skip the centralized full-batch optimum R_n(θ*)")
	outDir := fs.String("out", "", "output directory (created if missing) [required]")
	asJSON := fs.Bool("json", false, "also print summary.json on stdout")
	ckpt := fs.String("checkpoint", "", "write the whole state to FILE every --checkpoint-every and at the end\n(atomically: temporary file, fsync, rename); SIGINT/SIGTERM save it before exiting")
	every := fs.Duration("checkpoint-every", 5*time.Minute, "interval between checkpoints (e.g. 30s, 10m)")
	resume := fs.String("resume", "", "continue the run saved in FILE; every other flag must be as in the saved run.\nCheckpoints go on to --checkpoint, or to FILE itself")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := gf.validate(); err != nil {
		return err
	}
	if *every <= 0 {
		return usagef("--checkpoint-every must be > 0, got %s", *every)
	}
	if *ckpt == "" {
		*ckpt = *resume
	}
	if *outDir == "" {
		return usagef("--out DIR is required")
	}
	if *iters <= 0 {
		return usagef("--iters must be >= 1, got %d", *iters)
	}
	if !(*gc > 0) {
		return usagef("--gamma-c must be > 0, got %g", *gc)
	}
	if *ga < 0 || *ga >= 0.5 {
		return usagef("--gamma-alpha must be in [0, 0.5), got %g", *ga)
	}
	if *logPoints < 1 {
		return usagef("--log-points must be >= 1, got %d", *logPoints)
	}
	if *workers < 0 {
		return usagef("--workers must be >= 0, got %d", *workers)
	}
	if sc, err := engine.ParseSchedule(*schedule); err != nil {
		return usagef("--schedule: %v", err)
	} else if sc == engine.ScheduleAuto {
		*schedule = ""
	}
	cfg := pairgossip.Config{Problem: *prob, Data: *data, DataSeed: *dataSeed, LabelColumn: *labelCol,
		Graph: gf.kind, GraphK: gf.k, GraphP: gf.p, GraphR: gf.radius, GraphFile: gf.file, GraphRows: gf.rows,
		GraphCols: gf.cols, GraphSeed: gf.seed, PointsNode: gf.pointsPerNode, Algorithm: *algo, Baseline: *baseline,
		Iters: *iters, Reg: *reg, Lambda: *lambda, Radius: *ball, B: *b, GammaC: *gc, GammaAlpha: *ga, Seed: *seed,
		LogPoints: *logPoints, EvalNodes: *evalNodes, Workers: *workers, Pin: *pin, Schedule: *schedule, SkipOptimum: *noOpt}
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return usageError{Err: err}
	}
	defer run.Close()
	for _, w := range run.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	var trace []engine.Record
	if *resume != "" {
		if trace, err = run.Resume(*resume); err != nil {
			return usageError{Err: err}
		}
		fmt.Fprintf(stderr, "resuming from iteration %d of %d (%s)\n", run.Sim.Iter(), cfg.Iters, *resume)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newRunProgress(stderr, cfg.Iters)
	res, runErr := run.ExecuteWith(ctx, pairgossip.ExecOptions{OnRecord: prog.record, Checkpoint: *ckpt, CheckpointEvery: *every, Trace: trace})
	prog.line.Close()
	sum := run.Summarize(res, runErr)
	if errors.Is(runErr, context.Canceled) {
		sum.Status = "cancelled"
		if *ckpt != "" {
			fmt.Fprintf(stderr, "stopped at iteration %d; state saved to %s; continue with --resume %s\n", run.Sim.Iter(), *ckpt, *ckpt)
		}
	}
	var de *engine.DivergenceError
	if errors.As(runErr, &de) && *ckpt != "" {
		fmt.Fprintf(stderr, "the last good state is in %s\n", *ckpt)
	}
	if err := atomicfile.WriteBytes(filepath.Join(*outDir, "trace.csv"), pairgossip.TraceCSV(res.Trace)); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(*outDir, "summary.json"), pairgossip.JSON(sum)); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if *asJSON {
		stdout.Write(pairgossip.JSON(sum))
		return nil
	}
	fmt.Fprintf(stdout, "%s %s on %s (%d nodes), %d iterations in %.2fs\n", cfg.Algorithm, cfg.Problem, cfg.Graph, run.Problem.N, sum.Iter, sum.WallSeconds)
	fmt.Fprintf(stdout, "objective mean %.6g (std %.3g) over %d nodes; centralized optimum %.6g; AUC %.4f\n",
		float64(sum.ObjectiveMean), float64(sum.ObjectiveStd), sum.EvalNodes, float64(sum.OptimumObjective), float64(sum.AUCMean))
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*outDir, "trace.csv"), filepath.Join(*outDir, "summary.json"))
	return nil
}

// runProgress is pairgossip run's status line (package progress): the
// iterations done, the objective and the time left, on stderr when it is a
// terminal.
type runProgress struct {
	line  *progress.Line
	total int64
}

func newRunProgress(w io.Writer, total int64) *runProgress {
	return &runProgress{line: progress.NewLine(w), total: total}
}

func (p *runProgress) record(r engine.Record) {
	if !p.line.On() {
		return
	}
	eta := "?"
	if d, ok := progress.ETA(p.line.Elapsed(), float64(r.Iter), float64(p.total)); ok {
		eta = d.Round(time.Second).String()
	}
	p.line.Draw(fmt.Sprintf("%5.1f%%  iter %d/%d  objective %.5g  ETA %s", 100*float64(r.Iter)/float64(p.total), r.Iter, p.total, r.ObjMean, eta))
}
