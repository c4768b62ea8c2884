package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

// cmdTTA is bench tta: time to accuracy. Each (n, algorithm) row is the
// whole job of `pairgossip run --data synthetic-auc --stop-at min(targets)`
// (set-up, the optimum solved afresh, rounds and their measurements),
// timed up to the first measurement within each target, so that its rate
// is over the whole horizon of a converging run and not over its first
// rounds.
func cmdTTA(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tta", "bench tta: time to accuracy. For each --n and --algo, pairgossip run on synthetic-auc (d = --d,\n"+
		"Watts–Strogatz k = 5, p = 0.3, default seeds) with --stop-at the smallest target: the optimum is solved\n"+
		"first (afresh unless --optimum-cache, once a row, its time counted in each run's wall), and for each target the first measurement within it is reported:\n"+
		"iterations, wall time (set-up, optimum, rounds and measurements; and the run alone), node updates (n a\n"+
		"round, 2 an event), the non-zero share of the gradients, ns per node update over the whole horizon\n"+
		"(rounds only, measurements excluded) and per contributing node update (a non-zero gradient). Beside\n"+
		"them: the plain schedule's ns per node update (the literal algorithm; over the same rounds where it\n"+
		"fits in --plain-seconds, else over the window's first rounds, which the output says) and the kernel\n"+
		"alone on data in cache (sync: kernel.LogisticRound on a pack of 512 nodes; async: the serial event\n"+
		"loop on 64 nodes, its state in L1), the limit of the schedule's contributing-node cost. A row whose\n"+
		"optimum is out of reach says so, with the reason; one that does not reach a target within --max-wall\n"+
		"or --iters says how far it got. --runs repeats each row: the figures are medians.", stderr)
	nList := fs.String("n", "20000,100000,1000000", "comma-separated node counts")
	algoList := fs.String("algo", "sync,async", "comma-separated algorithms: sync, async")
	targetList := fs.String("targets", "0.10,0.02", "comma-separated relative distances to the optimum, each > 0")
	d := fs.Int("d", 16, "dimension")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers")
	maxWall := fs.Duration("max-wall", 300*time.Second, "the most each run of a row may take (set-up and rounds; the optimum apart)")
	maxOpt := fs.Duration("max-optimum", 10*time.Minute, "the most a row's optimum solve may take (once a row)")
	iters := fs.Int64("iters", 1<<40, "the cap on iterations (rounds or events)")
	runs := fs.Int("runs", 1, "runs of each row (medians)")
	plainSeconds := fs.Duration("plain-seconds", 5*time.Second, "the time the plain schedule's rate is measured for, at most")
	optCache := fs.Bool("optimum-cache", false, "take the optimum from the cache of optima when it is there (default: solve it afresh, timed)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	ns, err := intList("--n", *nList)
	if err != nil {
		return err
	}
	targets, err := floatList("--targets", *targetList)
	if err != nil {
		return err
	}
	algos := strings.Split(*algoList, ",")
	for _, a := range algos {
		if a != "sync" && a != "async" {
			return usageError{Err: fmt.Errorf("--algo: unknown algorithm %q (valid: sync, async)", a)}
		}
	}
	for _, n := range ns {
		if err := validSize(n, *d); err != nil {
			return err
		}
	}
	switch {
	case *workers < 1 || *workers > config.MaxWorkers:
		return usageError{Err: fmt.Errorf("--workers must be in [1, %d], got %d", config.MaxWorkers, *workers)}
	case *runs < 1:
		return usageError{Err: fmt.Errorf("--runs must be >= 1, got %d", *runs)}
	case *maxWall <= 0:
		return usageError{Err: fmt.Errorf("--max-wall must be > 0, got %v", *maxWall)}
	case *maxOpt <= 0:
		return usageError{Err: fmt.Errorf("--max-optimum must be > 0, got %v", *maxOpt)}
	case *iters < 1 || *iters > 1<<53:
		return usageError{Err: fmt.Errorf("--iters must be in [1, 2^53], got %d", *iters)}
	case *plainSeconds < 0:
		return usageError{Err: fmt.Errorf("--plain-seconds must be >= 0, got %v", *plainSeconds)}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(targets))) // the run stops at the last, the smallest
	out := map[string]any{"d": *d, "workers": *workers, "targets": targets, "runs": *runs, "kernel": kernel.Active(),
		"gomaxprocs": runtime.GOMAXPROCS(0), "max_wall_seconds": maxWall.Seconds()}
	kSync := logisticRoundNs(512)
	kAsync, err := hotEventNs(*d)
	if err != nil {
		return err
	}
	out["kernel_alone_sync_ns_per_node"], out["kernel_alone_async_ns_per_node_update"] = kSync, kAsync
	var rows []map[string]any
	for _, n := range ns {
		for _, algo := range algos {
			limit := kSync
			if algo == "async" {
				limit = kAsync
			}
			row, err := ttaRow(n, *d, algo, targets, *workers, *iters, *runs, *maxWall, *maxOpt, *plainSeconds, *optCache, limit)
			if err != nil {
				return err
			}
			rows = append(rows, row...)
			if !*asJSON {
				for _, r := range row {
					fmt.Fprintln(stdout, ttaLine(r))
				}
			}
		}
	}
	out["rows"] = rows
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	fmt.Fprintf(stdout, "kernel alone, data in cache: sync %.3g ns a node (LogisticRound, 512 nodes), async %.3g ns a node update (serial loop, 64 nodes)\n", kSync, kAsync)
	return nil
}

func intList(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v != math.Trunc(v) || v < 2 || v > 1e9 {
			return nil, usageError{Err: fmt.Errorf("%s: %q is not a node count (an integer >= 2)", name, f)}
		}
		out = append(out, int(v))
	}
	return out, nil
}

func floatList(name, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usageError{Err: fmt.Errorf("%s: %q is not a relative distance > 0", name, f)}
		}
		out = append(out, v)
	}
	return out, nil
}

// ttaPoint is what one run had done at one measurement.
type ttaPoint struct {
	rec     engine.Record
	at      time.Time     // when the record was taken
	measure time.Duration // the measurements' time so far
}

// ttaRow runs one (n, algorithm) row runs times and returns one result a
// target (medians over the runs).
func ttaRow(n, d int, algo string, targets []float64, workers int, iters int64, runs int, maxWall, maxOpt, plainFor time.Duration,
	optCache bool, kernelNs float64) ([]map[string]any, error) {
	cfg := pairgossip.DefaultConfig()
	cfg.Data, cfg.N, cfg.Dim, cfg.Algorithm, cfg.Iters, cfg.Workers = "synthetic-auc", n, d, algo, iters, workers
	cfg.StopAt, cfg.NoOptimumCache = targets[len(targets)-1], !optCache
	base := map[string]any{"n": n, "d": d, "algo": algo, "workers": workers}
	// The optimum, once for the row's runs (afresh unless optCache), timed:
	// every run's wall time counts this solve.
	opt, optTime, why, err := ttaOptimum(cfg, maxOpt)
	if err != nil {
		return nil, err
	}
	if why != "" {
		row := clone(base)
		row["optimum_unavailable"] = why
		return []map[string]any{row}, nil
	}
	perTarget := make([][]map[string]any, len(targets))
	for r := 0; r < runs; r++ {
		res, err := ttaRun(cfg, targets, maxWall, plainFor, kernelNs, opt, optTime)
		if err != nil {
			return nil, err
		}
		for i := range targets {
			perTarget[i] = append(perTarget[i], res[i])
		}
	}
	var out []map[string]any
	for i, tg := range targets {
		row := clone(base)
		row["target"], row["runs"] = tg, runs
		for k, v := range runMedians(perTarget[i]) {
			row[k] = v
		}
		out = append(out, row)
	}
	return out, nil
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// runMedians takes each numeric field's median over the runs (the others
// from the first run), and keeps every run's wall time.
func runMedians(rs []map[string]any) map[string]any {
	out := clone(rs[0])
	for k, v := range rs[0] {
		if _, ok := v.(float64); !ok {
			continue
		}
		var vals []float64
		for _, r := range rs {
			if f, ok := r[k].(float64); ok {
				vals = append(vals, f)
			}
		}
		slices.Sort(vals)
		m := vals[len(vals)/2]
		if len(vals)%2 == 0 {
			m = (vals[len(vals)/2-1] + m) / 2
		}
		out[k] = m
		if k == "wall_seconds" || k == "run_seconds" {
			out[k+"_all"] = vals
		}
	}
	return out
}

// ttaOptimum solves the row's optimum (or takes it from the cache of
// optima with --optimum-cache), within maxWall; why says why there is none:
// out of the solver's reach (the reason pairgossip.Prepare gives --stop-at),
// or not solved within maxWall.
func ttaOptimum(cfg pairgossip.Config, maxWall time.Duration) (opt *problem.Optimum, dt time.Duration, why string, err error) {
	run, err := pairgossip.Prepare(cfg)
	var pe *config.ParamError
	if errors.As(err, &pe) && pe.Param.JSON == "stop_at" {
		return nil, 0, config.FlagMessage(err), nil
	}
	if err != nil {
		return nil, 0, "", err
	}
	defer run.Close()
	ctx, cancel := context.WithTimeout(context.Background(), maxWall)
	defer cancel()
	t0 := time.Now()
	o, _, err := run.SolveOptimum(problem.OptimumOptions{Workers: cfg.Workers, Context: ctx})
	dt = time.Since(t0)
	if ctx.Err() != nil {
		return nil, dt, fmt.Sprintf("the optimum was not solved within --max-optimum %v", maxWall), nil
	}
	if err != nil {
		return nil, dt, "", err
	}
	return &o, dt, "", nil
}

// ttaRun is one run of a row: one result a target. opt is the row's
// optimum, optTime its solve, counted in the wall time.
func ttaRun(cfg pairgossip.Config, targets []float64, maxWall, plainFor time.Duration, kernelNs float64,
	known *problem.Optimum, optTime time.Duration) ([]map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), maxWall)
	defer cancel()
	t0 := time.Now()
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return nil, err
	}
	defer run.Close()
	setup := time.Since(t0)
	var pts []ttaPoint
	start := time.Now()
	res, err := run.ExecuteWith(ctx, pairgossip.ExecOptions{Optimum: known, OnRecord: func(r engine.Record) {
		pts = append(pts, ttaPoint{rec: r, at: time.Now(), measure: run.Sim.Profile().Wall(engine.PhaseMeasure)})
	}})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	res.OptimumTime = optTime
	opt := known.Value
	n := float64(cfg.N)
	out := make([]map[string]any, len(targets))
	for i, tg := range targets {
		j := slices.IndexFunc(pts, func(p ttaPoint) bool { return pairgossip.Reached(p.rec.ObjMean, opt, tg) })
		m := map[string]any{"optimum": opt, "optimum_seconds": res.OptimumTime.Seconds(), "setup_seconds": setup.Seconds(),
			"reached": j >= 0}
		if j < 0 {
			// How far it got: the last measurement.
			j = len(pts) - 1
			m["stopped_by"] = "--max-wall or --iters"
		}
		if j < 0 {
			out[i] = m
			continue
		}
		p := pts[j]
		runSec := p.at.Sub(start).Seconds()
		rounds := runSec - p.measure.Seconds()
		updates := float64(p.rec.Iter) * n
		if cfg.Algorithm == "async" {
			updates = 2 * float64(p.rec.Iter)
			m["events"] = float64(p.rec.Iter)
		}
		m["iterations"] = float64(p.rec.Iter)
		m["relative_gap"] = (p.rec.ObjMean - opt) / math.Abs(opt)
		m["wall_seconds"] = setup.Seconds() + res.OptimumTime.Seconds() + runSec
		m["run_seconds"], m["measure_seconds"], m["rounds_seconds"] = runSec, p.measure.Seconds(), rounds
		m["node_updates"] = updates
		m["nonzero_share"] = float64(p.rec.GradEvalsNonzero) / float64(p.rec.GradEvals)
		m["ns_per_node_update"] = rounds * 1e9 / updates
		if p.rec.GradEvalsNonzero > 0 {
			m["ns_per_contributing_node_update"] = rounds * 1e9 / float64(p.rec.GradEvalsNonzero)
			m["contributing_over_kernel_alone"] = rounds * 1e9 / float64(p.rec.GradEvalsNonzero) / kernelNs
		}
		m["kernel_alone_ns"] = kernelNs
		if cfg.Algorithm == "sync" && plainFor > 0 {
			pns, prounds, pshare, err := plainRate(cfg, p.rec.Iter, plainFor)
			if err != nil {
				return nil, err
			}
			m["plain_ns_per_node_update"], m["plain_rounds"], m["plain_nonzero_share"] = pns, prounds, pshare
			m["plain_over_this"] = pns / (rounds * 1e9 / updates)
		}
		out[i] = m
	}
	return out, nil
}

// plainRate is the plain schedule's ns per node update (the literal
// algorithm, engine's --schedule plain) over the window's first rounds, up
// to window rounds or plainFor of wall time, with its non-zero share.
func plainRate(cfg pairgossip.Config, window int64, plainFor time.Duration) (ns, rounds, share float64, err error) {
	cfg.Schedule, cfg.StopAt, cfg.SkipOptimum, cfg.Iters, cfg.LogPoints = "plain", 0, true, window, 1
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		return 0, 0, 0, err
	}
	defer run.Close()
	t0 := time.Now()
	step := int64(1)
	for run.Sim.Iter() < window && time.Since(t0) < plainFor {
		if err := run.Sim.Advance(step); err != nil {
			return 0, 0, 0, err
		}
		step = min(step*2, 256)
	}
	el := time.Since(t0)
	all, nz := run.Sim.GradEvals()
	return float64(el.Nanoseconds()) / (float64(run.Sim.Iter()) * float64(cfg.N)), float64(run.Sim.Iter()), float64(nz) / float64(max(all, 1)), nil
}

// logisticRoundNs is kernel.LogisticRound's ns a node on a pack of n nodes
// in cache, margins spread over the exponential's range (as
// BenchmarkLogisticRound): the median of 5 timings.
func logisticRoundNs(n int) float64 {
	r := rand.New(rand.NewPCG(3, 4))
	s0, q, w, eta, m := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range m {
		s0[i], q[i], m[i] = r.NormFloat64(), 1+r.Float64(), 40*r.Float64()-20
	}
	m0 := slices.Clone(m)
	var times []float64
	for k := 0; k < 5; k++ {
		reps := 0
		t0 := time.Now()
		for time.Since(t0) < 20*time.Millisecond {
			for i := 0; i < 64; i++ {
				copy(m, m0)
				kernel.LogisticRound(s0, q, w, eta, m, 1, 0.999, 1e-3)
			}
			reps += 64
		}
		times = append(times, float64(time.Since(t0).Nanoseconds())/float64(reps*n))
	}
	slices.Sort(times)
	return times[2]
}

// hotEventNs is the serial asynchronous loop's ns a node update (half an
// event) on 64 nodes, its state in L1 (bench async --hot): the median of 5.
func hotEventNs(d int) (float64, error) {
	p, err := randomAUC(64, d, 1)
	if err != nil {
		return 0, err
	}
	g, err := buildGraph("watts-strogatz", 64, 1)
	if err != nil {
		return 0, err
	}
	const events = 1 << 20
	var times []float64
	for k := 0; k < 5; k++ {
		rate, _, err := timeSerial(p, g, engine.Config{Algorithm: engine.Async, Iters: events, GammaC: 1, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1},
			events, (*engine.Sim).Advance)
		if err != nil {
			return 0, err
		}
		times = append(times, 1e9/rate/2)
	}
	slices.Sort(times)
	return times[2], nil
}

func ttaLine(r map[string]any) string {
	if why, ok := r["optimum_unavailable"]; ok {
		return fmt.Sprintf("n=%v %v: optimum unavailable: %v", r["n"], r["algo"], why)
	}
	if _, ok := r["iterations"]; !ok {
		return fmt.Sprintf("n=%v %v target %v: no measurement", r["n"], r["algo"], r["target"])
	}
	s := fmt.Sprintf("n=%v %v target %v: reached %v at %.4g iterations (gap %.3g), %.3g s wall (optimum %.3g s, run %.3g s), %.3g node updates, non-zero %.3g, %.3g ns/node update, %.3g ns/contributing (kernel alone %.3g)",
		r["n"], r["algo"], r["target"], r["reached"], r["iterations"], r["relative_gap"], r["wall_seconds"], r["optimum_seconds"], r["run_seconds"],
		r["node_updates"], r["nonzero_share"], r["ns_per_node_update"], r["ns_per_contributing_node_update"], r["kernel_alone_ns"])
	if v, ok := r["plain_ns_per_node_update"]; ok {
		s += fmt.Sprintf(", plain %.3g ns/node update over %v rounds", v, r["plain_rounds"])
	}
	return s
}
