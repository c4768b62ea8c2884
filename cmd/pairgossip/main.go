// Command pairgossip simulates gossip dual averaging for pairwise objectives
// (Colin, Bellet, Salmon and Clémençon, ICML 2016).
//
// Usage:
//
//	pairgossip run [flags]      run one simulation, write DIR/trace.csv and DIR/summary.json
//	pairgossip gap [flags]      print a graph's spectral gap 1 − λ₂(W)
//	pairgossip reproduce [flags] run every experiment of the paper, write DIR/report.html
//	pairgossip plot DIR... --out DIR [--html]  figures of runs' outputs, overlaid
//	pairgossip sweep COMMAND    parameter sweeps: plan, run (locally or as a SLURM job array), merge, status, diff, report
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
// it; an --out or --checkpoint that cannot be written, or a checkpoint
// another run holds, is found before any work), 1 when a run fails
// (divergence: the iteration and node are named; an output that cannot be
// written after the run), 128 + the signal's number when a signal stopped it
// (130 for SIGINT, Ctrl-C; 143 for SIGTERM; 129 for SIGHUP).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/internal/sysprobe"
	"github.com/pairgossip/pairgossip/output"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/internal/filelock"
	"github.com/pairgossip/pairgossip/network"
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
  pairgossip plot DIR... --out DIR [--html]
                              figures of runs' outputs (objective ± std, the optimum, suboptimality,
                              AUC, consensus, bias), overlaid and labelled by what differs; --html: a page
  pairgossip sweep COMMAND    parameter sweeps from a YAML file: plan, run (here, several at a
                              time), slurm (a SLURM job array), merge, status, diff, report (SQLite
                              results; report draws final values and curves mean ± sd over seeds)
  pairgossip help COMMAND     the flags of a command, with what they mean

Start with:
  pairgossip run --out out    AUC on the embedded Breast Cancer data, Watts–Strogatz graph
`

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return 2
	}
	var cmd func([]string, io.Writer, io.Writer) error
	switch args[0] {
	case "run":
		cmd = cmdRun
	case "gap":
		cmd = cmdGap
	case "reproduce":
		cmd = cmdReproduce
	case "sweep":
		cmd = cmdSweep
	case "plot":
		cmd = cmdPlot
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
	// A panic in the command's goroutine is reported as an internal error
	// (exit 1), after the deferred calls it ran, never as an interruption.
	err, code := guard(stderr, args[0], func() error { return cmd(args[1:], stdout, stderr) })
	if code >= 0 {
		return code
	}
	var said saidByRoot
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &said) && errors.Is(err, context.Canceled):
		return interruptStatus()
	case errors.As(err, &said):
		return 1
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "pairgossip: interrupted")
		return interruptStatus()
	}
	fmt.Fprintf(stderr, "pairgossip %s: %s\n", args[0], config.FlagMessage(err))
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

// isGapParam selects the flags run and gap share: the graph's parameters
// and the network's (for the effective gap), but --write-edges.
func isGapParam(p *config.Param) bool {
	return p.Group == "graph" || p.Group == "network" && p.Flag != "write-edges"
}

// parseConfigFlags parses args into the configuration whose flags
// BindFlags defined on fs, warns of deprecated flag spellings, and calls
// validate (a closure over that configuration: a method value would copy it
// before the parse).
func parseConfigFlags(fs *flag.FlagSet, args []string, stderr io.Writer, validate func() error) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, w := range cli.DeprecatedFlags(fs) {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if err := validate(); err != nil {
		return usageError{Err: err}
	}
	return nil
}

func cmdGap(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gap", "pairgossip gap: the spectral gap 1 − λ₂(W) of a graph, W = I − L/|E| with |E|\n"+
		"counting ordered pairs (twice the undirected edges). Closed forms for complete, cycle, star,\n"+
		"path, grid and torus; a dense eigensolver for n ≤ 1024; Lanczos beyond.\n\n"+
		"With the network flags of pairgossip run (--loss, --churn, --graph-schedule, --link-up,\n"+
		"--edge-stream, --activation; --delay does not enter it) it also prints the effective gap\n"+
		"1 − λ₂(W̄) of the expected gossip matrix under that network (docs/networks.md §9). Under\n"+
		"--loss q alone (one-way or not) it is exactly (1 − q) times the graph's gap, at any n, and with a\n"+
		"parametric --churn (π online, the same for every node) (1 − q)π² times; otherwise\n"+
		"dense up to n = 1024 and Lanczos beyond, which can fail to converge where the gap is tiny (a\n"+
		"path- or cycle-like graph at large n): the graph's gap is then printed and the effective gap\n"+
		"reported as not computed, with the reason (--json: effective_gap null, effective_gap_method).\n\n"+
		"Example (Table 1 of the paper): pairgossip gap --graph cycle --n 699 --json\n"+
		"Example (a lossy network): pairgossip gap --graph watts-strogatz --n 699 --loss 0.5", stderr)
	cfg := config.Base()
	cli.BindFlags(fs, &cfg, isGapParam)
	n := cli.Int(fs, "n", 699, "number of (physical) nodes")
	asJSON := fs.Bool("json", false, "print one JSON object")
	iters := cli.Int64(fs, "iters", 0, "the run's iterations T, as a run's summary.json takes them: with --churn file:PATH each\n"+
		"node's probability of being online is the fraction of 1..T it is (0: the file's span, 1 to its\n"+
		"largest end); --graph-schedule weighs each phase by the iterations of 1..T it takes (0: its\n"+
		"length over the cycle's); --edge-stream counts the lines at t <= T (0: the whole stream)")
	if err := parseConfigFlags(fs, args, stderr, func() error { return cfg.ValidateGraph() }); err != nil {
		return err
	}
	if *iters < 0 {
		return usagef("--iters must be >= 0, got %d", *iters)
	}
	if err := cfg.ValidateGapKnobs(); err != nil {
		return usageError{Err: err}
	}
	if *iters > 0 && !strings.HasPrefix(cfg.Churn, network.DistFile+":") && cfg.GraphSchedule == "" && cfg.EdgeStream == "" {
		return usagef("--iters does not apply: it is the horizon of a churn file's online fractions, a schedule's phases or a recorded stream, and there is none of them (--churn file:PATH, --graph-schedule, --edge-stream)")
	}
	if *n < 2 && cfg.Graph != "file" {
		return usagef("--n must be >= 2, got %d", *n)
	}
	// SIGINT/SIGTERM/SIGHUP: the effective gap's Lanczos iteration sees ctx
	// and returns context.Canceled (exit 128 + its number in realMain). What does not see
	// it (building a large graph, the graph's own Lanczos, a dense
	// eigensolve) is cut short by the watcher below, which ends the process
	// with that status if the command has not returned sigGrace after the
	// signal.
	// Nothing is written before the end, so nothing is left half written.
	ctx, stop := notifyContext(context.Background())
	defer stop()
	const sigGrace = 250 * time.Millisecond
	token := make(chan struct{}, 1) // whoever takes it ends the command: cmdGap's return or the watcher's exit
	token <- struct{}{}
	go func() {
		<-ctx.Done()
		if !bySignal(ctx) {
			return // stop(): the command returned (or a panic unwound it)
		}
		time.Sleep(sigGrace)
		select {
		case <-token:
			fmt.Fprintln(stderr, "pairgossip: interrupted")
			exit(interruptStatus())
		default: // the command returned by itself
		}
	}()
	defer func() {
		select {
		case <-token:
		default:
			select {} // the watcher holds it and is ending the process
		}
	}()
	t0 := time.Now()
	spec := graph.Spec{Kind: cfg.Graph, N: *n, K: cfg.GraphK, P: cfg.GraphP, Radius: cfg.GraphR, Rows: cfg.GraphRows,
		Cols: cfg.GraphCols, Seed: cfg.GraphSeed, File: cfg.GraphFile}
	closed, hasClosed, closedErr := graph.ClosedFormShape(spec)
	hasClosed = hasClosed && cfg.PointsNode <= 1
	if cfg.HasNetwork() {
		return gapNetwork(ctx, cfg, spec, gapClosed{closed, hasClosed, closedErr}, *iters, *asJSON, stdout, stderr, t0)
	}
	var sh graph.Shape
	var warn []string
	tries := 1
	if hasClosed {
		// The closed form needs no graph: n = 23 000 complete is 264 M edges.
		if closedErr != nil {
			return usageError{Err: closedErr}
		}
		sh = closed
	} else {
		g, w, err := buildGapGraph(spec, cfg.PointsNode)
		if err != nil {
			return err
		}
		warn = w
		gap, err := graph.SpectralGap(g)
		if err != nil {
			return err
		}
		sh = graph.ShapeOf(g, gap)
		tries = g.Tries
	}
	gap := sh.Gap
	out := struct {
		gapGraphJSON
		Lambda2L float64  `json:"laplacian_lambda2"`
		Method   string   `json:"method"`
		Tries    int      `json:"tries"`
		Seconds  float64  `json:"seconds"`
		Warnings []string `json:"warnings,omitempty"`
	}{newGapGraphJSON(cfg.Graph, sh, gap.Value), gap.Lambda2L, gap.Method, tries, time.Since(t0).Seconds(), warn}
	if *asJSON {
		_, err := stdout.Write(output.JSON(out))
		return err
	}
	for _, w := range warn {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "%s: n = %d, %d undirected edges, degree %d..%d\nspectral gap 1 − λ₂(W) = %.6g (%s)\n",
		sh.Name, sh.N, sh.UndirectedEdges, sh.MinDegree, sh.MaxDegree, gap.Value, gap.Method)
	return nil
}

// availableMemory is sysprobe.AvailableMemory, replaceable in tests.
var availableMemory = sysprobe.AvailableMemory

// checkGapMemory refuses, before building, a graph whose edges and
// eigensolver would not fit in the memory available (k points per node:
// the tensor product has k times the nodes and about k² times the edges).
func checkGapMemory(spec graph.Spec, k int) error {
	k = max(k, 1)
	n := spec.N
	if spec.Rows > 0 && spec.Cols > 0 {
		n = spec.Rows * spec.Cols
	}
	need := graph.BuildMemory(spec, n)*float64(k*k) + float64(n)*float64(k)*float64(k-1)/2*16
	if avail := availableMemory(); avail > 0 && need > float64(avail) {
		return usagef("graph %s with n = %d needs about %.3g GiB (edges, adjacency and the eigensolver's work space) but only %.3g GiB is available; reduce --n or the graph's density",
			spec.Kind, n, need/(1<<30), float64(avail)/(1<<30))
	}
	return nil
}

// runArgs are the flags of pairgossip run: the configuration (flags bound
// from pairgossip's parameter table) and where the outputs go.
type runArgs struct {
	cfg               pairgossip.Config
	out, ckpt, resume string
	every             time.Duration
	asJSON            bool
	traceNodes        bool        // --trace-nodes: DIR/nodes.csv
	model             modelFlag   // --save-model (model.go)
	earlier           *earlierRun // --out before the run (snapshotOut)
}

func parseRunArgs(args []string, stderr io.Writer) (*runArgs, error) {
	fs := newFlagSet("run", "pairgossip run: one simulation. Writes DIR/trace.csv (one row per log-spaced iteration) and\n"+
		"DIR/summary.json (configuration, final values, centralized optimum, wall time).\n\n"+
		"Conventions: θ = π_t(z) = prox_{tγψ}(−γz) with γ(t) = c/t^(1/2+α); |E| counts ordered pairs,\n"+
		"p_k = 2d_k/|E|; the asynchronous clock is m_k = (activations of k)/p_k.\n\n"+
		"Every flag but --out, --json and the checkpoint flags is a parameter of the run; in a sweep file\n"+
		"its key is the flag's name with _ for - (graph_k for --k, graph_p for --p, graph_rows/graph_cols\n"+
		"for --rows/--cols, algorithm for --algo; see pairgossip sweep --help). --radius is the deprecated\n"+
		"name of --graph-radius (the geometric graph's); the ℓ2 ball's radius is --ball-radius.\n\n"+
		"Example: pairgossip run --problem auc --data breast-cancer --graph watts-strogatz --algo sync --iters 5000 --out out", stderr)
	a := runArgs{cfg: config.Base()}
	cli.BindFlags(fs, &a.cfg, nil)
	fs.StringVar(&a.out, "out", "", "output directory (created if missing) [required]")
	fs.BoolVar(&a.asJSON, "json", false, "also print summary.json on stdout")
	fs.BoolVar(&a.traceNodes, "trace-nodes", false, "also write DIR/nodes.csv: each evaluated node's objective R_n(θ̄_k), AUC and degree at every\nmeasurement (long format: iter,node,degree,objective,auc); results do not depend on it")
	fs.Var(&a.model, "save-model", modelUsage)
	fs.StringVar(&a.ckpt, "checkpoint", "", "write the whole state to FILE every --checkpoint-every and at the end\n(atomically: temporary file, fsync, rename); SIGINT/SIGTERM save it before exiting")
	fs.DurationVar(&a.every, "checkpoint-every", 5*time.Minute, "interval between checkpoints (e.g. 30s, 10m)")
	fs.StringVar(&a.resume, "resume", "", "continue the run saved in FILE; every other flag must be as in the saved run.\nCheckpoints go on to --checkpoint, or to FILE itself")
	if err := parseConfigFlags(fs, args, stderr, func() error { return a.cfg.Validate() }); err != nil {
		return nil, err
	}
	if a.every <= 0 {
		return nil, usagef("--checkpoint-every must be > 0, got %s", a.every)
	}
	if a.ckpt == "" {
		a.ckpt = a.resume
	}
	if a.out == "" {
		return nil, usagef("--out DIR is required")
	}
	if a.cfg.WriteEdges != "" && a.resume != "" {
		return nil, usagef("--write-edges with --resume: a stream is written by one run from its first iteration, and the activations before the checkpoint are not in it; run again from the start without --resume (the same seed gives the same stream), or drop --write-edges")
	}
	return &a, nil
}

// exit ends the process; a variable so that nothing in the tests can call
// os.Exit by accident.
var exit = os.Exit

// lockCheckpoint takes the lock of the checkpoint file (package filelock), so
// that two runs cannot overwrite each other's state, and removes what a
// killed checkpoint write left behind (safe under the lock).
func lockCheckpoint(flagName, path string, stderr io.Writer) (*filelock.Lock, error) {
	lock, err := filelock.Acquire(path)
	if err != nil {
		return nil, usagef("%s: %v", flagName, err)
	}
	gone, err := atomicfile.RemoveStale(path)
	for _, g := range gone {
		fmt.Fprintf(stderr, "warning: removed %s, the temporary file of a checkpoint write that was killed\n", g)
	}
	if err != nil {
		lock.Unlock()
		return nil, usagef("%s: %v", flagName, err)
	}
	return lock, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) (err error) {
	a, err := parseRunArgs(args, stderr)
	if err != nil {
		return err
	}
	if err := checkDistinct(runPaths(a)); err != nil {
		return err
	}
	if err := checkOutKinds(runPaths(a)); err != nil {
		return err
	}
	// Every path is checked before any work: an unwritable --out or
	// --checkpoint found after the run would lose it.
	if err := checkOutDir("--out", a.out); err != nil {
		return err
	}
	if a.cfg.WriteEdges != "" {
		if err := checkOutFile("--write-edges", a.cfg.WriteEdges); err != nil {
			return err
		}
	}
	// What --out holds before the run writes there: the files an earlier
	// run left that this one may have to remove (removeStale).
	a.earlier = snapshotOut(a.out, runPaths(a))
	// Issue #17: one rank of an MPI job (cmd/pairgossip/mpi_run.go).
	if handled, err := runOverMPI(a, stdout, stderr); handled {
		return err
	}
	cfg := a.cfg
	ctx, stop := notifyContext(context.Background())
	defer stop()
	modelDir := a.model.dir
	if modelDir == "" {
		modelDir = a.out
	}
	if a.model.set && a.model.dir != "" {
		if err := checkOutDir("--save-model", modelDir); err != nil {
			return err
		}
	}
	var lock *filelock.Lock
	if a.ckpt != "" {
		flagName := "--checkpoint"
		if a.ckpt == a.resume {
			flagName = "--resume"
		}
		if err := checkOutFile(flagName, a.ckpt); err != nil {
			return err
		}
		if lock, err = lockCheckpoint(flagName, a.ckpt, stderr); err != nil {
			return err
		}
		defer lock.Unlock()
	}
	if a.cfg.WriteEdges != "" {
		// The stream is written as the run goes, to a temporary file
		// beside it: held like a checkpoint, so that what a killed run
		// left there is removed and two runs do not write one stream.
		elock, err := filelock.Acquire(a.cfg.WriteEdges)
		if err != nil {
			return usagef("--write-edges: %v", err)
		}
		defer elock.Unlock()
		gone, err := atomicfile.RemoveStale(a.cfg.WriteEdges)
		for _, g := range gone {
			fmt.Fprintf(stderr, "warning: removed %s, the temporary file of a --write-edges stream whose run was killed\n", g)
		}
		if err != nil {
			return usagef("--write-edges: %v", err)
		}
	}
	prog := newRunProgress(stderr)
	defer prog.close()
	// SIGINT/SIGTERM during the set-up (a large data file or graph, a pipe
	// that never ends) stops the process: nothing is written yet.
	prepared := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-prepared: // stop() after the set-up, not a signal
				return
			default:
			}
			if !bySignal(ctx) {
				// stop() run by a panic unwinding the set-up: the
				// panic is reported as such (guard), not as an
				// interruption.
				return
			}
			prog.close()
			fmt.Fprintln(stderr, "pairgossip: interrupted during the set-up; nothing was written")
			lock.Unlock()
			exit(interruptStatus())
		case <-prepared:
		}
	}()
	run, err := pairgossip.PrepareWith(cfg, pairgossip.PrepareOptions{OnStage: prog.update})
	close(prepared)
	if err != nil {
		prog.close()
		return usageError{Err: err}
	}
	defer run.Close()
	prog.clear()
	for _, w := range run.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if a.model.set {
		// The model's size is said, and checked against the disk, before
		// the run: a model that cannot be saved is refused before the work.
		fmt.Fprintf(stderr, "model: θ̄ of %d nodes × %d parameters, %.1f MiB, will be written to %s\n",
			run.Sim.ThetaBar.Rows, run.Problem.P, float64(output.ModelBytes(run))/(1<<20), modelDir)
		if err := output.CheckModelSpace(run, modelDir); err != nil {
			return usagef("--save-model: %v", err)
		}
	}
	if a.cfg.WriteEdges != "" {
		if err := checkStreamSpace(a.cfg.WriteEdges, cfg.Iters, run.Problem.N, cfg.StopAt > 0, stderr); err != nil {
			return usagef("--write-edges: %v", err)
		}
	}
	if err := os.MkdirAll(a.out, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	var trace []engine.Record
	if a.resume != "" {
		if trace, err = run.Resume(a.resume); err != nil {
			return usageError{Err: err}
		}
		fmt.Fprintf(stderr, "resuming from iteration %d of %d (%s)\n", run.Sim.Iter(), cfg.Iters, a.resume)
	}
	res, runErr := run.ExecuteWith(ctx, pairgossip.ExecOptions{OnRecord: prog.record, OnProgress: prog.update,
		Checkpoint: a.ckpt, CheckpointEvery: a.every, Trace: trace, TraceNodes: a.traceNodes})
	prog.close()
	sum := output.SummarizeContext(ctx, run, res, runErr)
	for _, w := range sum.Warnings[min(len(run.Warnings), len(sum.Warnings)):] {
		fmt.Fprintln(stderr, "warning:", w) // what the run found (the set-up's were said before it)
	}
	if runErr != nil {
		sum.Error = config.FlagMessage(runErr) // as stderr says it
		if a.cfg.WriteEdges != "" {
			// The stream is renamed into place only by a run that ended.
			w := fmt.Sprintf("--write-edges %s not written: the run did not end", a.cfg.WriteEdges)
			fmt.Fprintln(stderr, "warning:", w)
			sum.Warnings = append(sum.Warnings, w)
		}
	}
	if errors.Is(runErr, context.Canceled) {
		sum.Status = "cancelled"
		switch {
		case a.ckpt != "" && a.cfg.WriteEdges != "":
			// --write-edges is refused with --resume (a stream is one
			// run's from its first iteration).
			fmt.Fprintf(stderr, "stopped at iteration %d; state saved to %s; continue with --resume %s without --write-edges (the stream is written only by a run from its start: run again from the start for it; the same seed gives the same stream)\n", run.Sim.Iter(), a.ckpt, a.ckpt)
		case a.ckpt != "":
			fmt.Fprintf(stderr, "stopped at iteration %d; state saved to %s; continue with --resume %s\n", run.Sim.Iter(), a.ckpt, a.ckpt)
		}
	}
	var de *engine.DivergenceError
	if errors.As(runErr, &de) && a.ckpt != "" {
		switch {
		case res != nil && res.Checkpoints > 0:
			fmt.Fprintf(stderr, "the last good state is in %s\n", a.ckpt)
		case a.resume == a.ckpt:
			fmt.Fprintf(stderr, "the last good state is in %s (the state this run resumed from)\n", a.ckpt)
		default:
			// Nothing of this run was saved: the file, if there is one,
			// is another run's.
			fmt.Fprintf(stderr, "no checkpoint was written before the divergence (the first was due after --checkpoint-every %v)\n", a.every)
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(a.out, "trace.csv"), output.TraceCSVNetwork(res.Trace, float64(sum.OptimumObjective), !run.Network.IsPerfect())); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(a.out, "summary.json"), output.JSON(sum)); err != nil {
		return err
	}
	// The files of an earlier run into the same --out that this one does
	// not replace go: a model beside the new summary would read as its.
	wrote := []string{"trace.csv", "summary.json"}
	if a.traceNodes {
		if a.resume != "" && len(trace) > 0 {
			fmt.Fprintf(stderr, "warning: nodes.csv holds the measurements taken since the resume (after iteration %d); the checkpoint keeps no per-node values\n", trace[len(trace)-1].Iter)
		}
		if err := atomicfile.WriteBytes(filepath.Join(a.out, "nodes.csv"), output.NodesCSV(res.Nodes)); err != nil {
			return err
		}
		wrote = append(wrote, "nodes.csv")
	}
	if a.model.set && runErr == nil && sameFile(modelDir, a.out) {
		wrote = append(wrote, output.ModelNodesFile, output.ModelMeanFile)
	}
	if err := removeStale(a.earlier, wrote, stderr); err != nil {
		return err
	}
	// What goes to stdout is the result: a write that fails (a full disk,
	// a closed pipe) is an error, not a success with nothing said.
	stdout = &checkedWriter{w: stdout}
	defer func() {
		if werr := stdout.(*checkedWriter).err; werr != nil && err == nil {
			err = fmt.Errorf("writing the result to standard output: %w", werr)
		}
	}()
	if a.asJSON {
		// Also for a run that diverged or was interrupted: its status and
		// error are in the summary.
		stdout.Write(output.JSON(sum))
	}
	if runErr != nil {
		return runErr
	}
	if err := saveModel(run, a.model, a.out, stdout, stderr); err != nil {
		return err
	}
	if a.asJSON {
		return afterRun(ctx, stderr)
	}
	on := run.Config.Graph
	if run.Config.GraphSchedule != "" {
		on = "--graph-schedule " + run.Config.GraphSchedule
	}
	fmt.Fprintf(stdout, "%s %s on %s (%d nodes), %d iterations in %.2fs\n", run.Config.Algorithm, run.Config.Problem, on, run.Problem.N, sum.Iter, sum.WallSeconds)
	opt := "not solved (--no-optimum)"
	if res.Optimum != nil {
		opt = fmt.Sprintf("%.6g", float64(sum.OptimumObjective))
	} else if res.OptimumSkipped != "" {
		opt = "not solved (too large: see summary.json)"
	}
	// A sampled measurement (an incomplete U-statistic) is an estimate:
	// the line says so, with its standard error, as trace.csv does.
	est := ""
	if se := float64(sum.ObjectiveStdErr); sum.MeasureMode == "sampled" && !math.IsNaN(se) {
		est = fmt.Sprintf(" ± %.2g (sampled: standard error)", se)
	}
	fmt.Fprintf(stdout, "objective mean %.6g%s (std %.3g) over %d nodes; centralized optimum %s; AUC %.4f\n",
		float64(sum.ObjectiveMean), est, float64(sum.ObjectiveStd), sum.EvalNodes, opt, float64(sum.AUCMean))
	if sum.Stop != "" {
		fmt.Fprintf(stdout, "--stop-at %g: %s at iteration %d (the objective %.3g%% above the optimum; the cap was %d)\n",
			sum.StopAt, sum.Stop, sum.Iter, 100*(float64(sum.ObjectiveMean)-float64(sum.OptimumObjective))/math.Abs(float64(sum.OptimumObjective)), run.Config.Iters)
	}
	if sum.OptimumCached {
		fmt.Fprintf(stdout, "the optimum came from the cache of optima (--no-optimum-cache solves it again)\n")
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(a.out, "trace.csv"), filepath.Join(a.out, "summary.json"))
	if a.traceNodes {
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(a.out, "nodes.csv"))
	}
	return afterRun(ctx, stderr)
}

// streamFree is sysprobe.DiskFree, replaceable in tests.
var streamFree = sysprobe.DiskFree

// checkStreamSpace refuses, before the run, a --write-edges stream that
// would not fit the free space of its folder: at most one line "t i j" an
// iteration, t below iters and i, j below n. A run with --stop-at may end
// well before iters: it is warned instead.
func checkStreamSpace(path string, iters int64, n int, stopAt bool, stderr io.Writer) error {
	if t, err := atomicfile.Target(path); err == nil {
		path = t // a link's target: where the stream is written
	}
	free, ok := streamFree(filepath.Dir(path))
	if !ok {
		return nil
	}
	line := int64(len(strconv.FormatInt(iters, 10)) + 2*len(strconv.Itoa(max(n-1, 0))) + 3)
	need := iters * line
	if iters > math.MaxInt64/line {
		need = math.MaxInt64
	}
	if uint64(need) <= free {
		return nil
	}
	msg := fmt.Sprintf("the stream of %d iterations takes up to %s (%d bytes a line), more than the %s free in %s", iters, output.ByteSize(need), line, output.ByteSize(int64(min(free, math.MaxInt64))), filepath.Dir(path))
	if stopAt {
		fmt.Fprintf(stderr, "warning: --write-edges: %s; the run stops at --stop-at's target, maybe before\n", msg)
		return nil
	}
	return errors.New(msg + "; give fewer --iters or another folder")
}

// afterRun ends a run that completed: a signal during what followed it
// (the summary's effective gap, stopped by it; the outputs, written in
// whole) exits as a signal anywhere does (130 for Ctrl-C).
func afterRun(ctx context.Context, stderr io.Writer) error {
	if bySignal(ctx) {
		fmt.Fprintln(stderr, "the run completed and its outputs are written; interrupted after it (the summary's effective gap, if it was being computed, is not)")
		return context.Canceled
	}
	return nil
}
