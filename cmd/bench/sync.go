package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/network"
)

func cmdSync(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sync", "bench sync: the synchronous round (Algorithm 2, AUC logistic, ψ = 0, random data with both\n"+
		"labels) timed over --iters rounds after --warm untimed ones (1: the first rounds, which are cheap: few\n"+
		"nodes hold another's point yet; n or more: a horizon a run spends most of its time at), beside a STREAM-triad probe measured in\n"+
		"the same process with as many threads as workers (stream_triad_gbps) and with one. ns_per_node_update\n"+
		"is wall time / (n·iters); bytes_per_node_update is what the plain schedule moves.\n"+
		"serial_fraction and amdahl_speedup_2/16/64 (Amdahl's law from it) where the schedule profiles its\n"+
		"phases; nonzero_gradient_share, the timed rounds' non-zero gradients; for the reduced schedule,\n"+
		"parallel_touch_share, its touches that the workers ran side by side instead of the serial event loop,\n"+
		"and phase_{setup,pass,event_loop,independent_touches,tail}_seconds, its blocks' wall time by phase\n"+
		"(engine.PhaseSetup … engine.PhaseTail: compare them between --workers 1 and 2 to see which phase a second worker\n"+
		"does not halve).", stderr)
	n := fs.Int("n", 1_000_000, "nodes (one random point each)")
	d := fs.Int("d", 16, "dimension")
	iters := fs.Int64("iters", 20, "rounds timed")
	warm := fs.Int64("warm", 1, "rounds run before the timed ones (the horizon the figures hold for; the first touches every page)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the round")
	schedule := fs.String("schedule", "auto", "auto (= reduced here), plain, blocked, reduced — or reference, the generic per-node path")
	pin := fs.Bool("pin", false, "pin the workers to CPUs (package affinity; the JSON says where, or why not)")
	cpuProfile := fs.String("cpuprofile", "", cpuProfileFlag+" (the --iters rounds after --warm)")
	kern := fs.String("kernel", "auto", "auto or a kernel implementation this CPU supports: "+strings.Join(kernel.Implementations(), ", "))
	kind := fs.String("graph", "watts-strogatz", "graph")
	seed := fs.Uint64("seed", 1, "seed of the data, graph and edge stream")
	triadN := fs.Int("triad-n", 1<<23, "elements per array of the STREAM-triad probe (3 arrays of 8-byte floats)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	loss := fs.Float64("loss", 0, "message loss: the exchange of a round fails with this probability (docs/networks.md §3)")
	churn := fs.String("churn", "", "churn: exponential|geometric|lognormal:up=U,down=D (docs/networks.md §4), e.g. geometric:up=4500,down=500 (10% offline)")
	if err := parse(fs, args); err != nil {
		return err
	}
	net := network.Model{Loss: *loss}
	if *churn != "" {
		c, err := network.ParseChurn(*churn)
		if err != nil {
			return usageError{Err: err}
		}
		net.Churn = c
	}
	if err := net.Validate(); err != nil {
		return usageError{Err: err}
	}
	if err := validSize(*n, *d); err != nil {
		return err
	}
	if *iters < 1 || *workers < 1 || *warm < 1 {
		return usageError{Err: fmt.Errorf("--iters, --warm and --workers must be >= 1")}
	}
	if *triadN < 1 {
		return usageError{Err: fmt.Errorf("--triad-n must be >= 1, got %d", *triadN)}
	}
	if err := checkSize("auc", *kind, *n, *d, *workers, 1, 24*float64(*triadN)); err != nil {
		return err
	}
	if err := useKernel(*kern); err != nil {
		return err
	}
	tSetup := time.Now()
	p, err := randomAUC(*n, *d, *seed)
	if err != nil {
		return err
	}
	tData := time.Now()
	g, err := buildGraph(*kind, *n, *seed)
	if err != nil {
		return err
	}
	tGraph := time.Now()
	s, err := engine.New(p, g, engine.Config{Algorithm: engine.Sync, Iters: *iters + *warm, GammaC: 1, Seed: *seed,
		Workers: *workers, Pin: *pin, LogPoints: 1, EvalNodes: 1, Schedule: engine.Schedule(*schedule), Network: net})
	if err != nil {
		return usageError{Err: err}
	}
	defer s.Close()
	tEngine := time.Now()
	if err := s.Advance(*warm); err != nil { // warm-up: the first round touches every page
		return err
	}
	prof0 := s.Profile()
	all0, nz0 := s.GradEvals()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := processCPU()
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	t0 := time.Now()
	err = s.Advance(*iters)
	el := time.Since(t0)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	cpu := processCPU() - cpu0
	runtime.ReadMemStats(&ms1)
	prof := s.Profile().Sub(prof0) // the timed rounds'
	all1, nz1 := s.GradEvals()
	serial, parallel := prof.Wall(engine.PhaseSerial).Seconds(), prof.Wall(engine.PhaseParallel).Seconds()
	updates := float64(*n) * float64(*iters)
	ns := float64(el.Nanoseconds()) / updates
	// Bytes the plain schedule moves per node update: reads x, y, z, θ̄ and
	// writes z, θ̄ (d floats each), reads and writes the margin, reads two labels.
	bytesPlain := float64(6*8**d + 16 + 8)
	triad := kernel.TriadGBps(*triadN, 5, *workers)
	triad1 := kernel.TriadGBps(*triadN, 5, 1)
	cpus, pinWhy := s.Pinned()
	out := map[string]any{
		"n": *n, "d": *d, "workers": *workers, "kernel": kernel.Active(), "schedule": s.Schedule(),
		"iters": *iters, "warm_rounds": *warm, "seconds": el.Seconds(),
		"ns_per_node_update": ns, "node_updates_per_s": 1e9 / ns, "ns_per_iteration": ns * float64(*n),
		"bytes_per_node_update": bytesPlain, "effective_gbps": bytesPlain / ns,
		"stream_triad_gbps": triad, "stream_triad_1thread_gbps": triad1, "fraction_of_triad": bytesPlain / ns / triad,
		"pinned_cpus": cpus, "pin_note": pinWhy,
		"allocs_per_iteration": float64(ms1.Mallocs-ms0.Mallocs) / float64(*iters),
		"graph":                g.Name, "gomaxprocs": runtime.GOMAXPROCS(0), "network": net.String(),
		// Set-up, apart from the rounds: the random data and its problem,
		// the graph, the engine's state and executor.
		"setup_data_seconds": tData.Sub(tSetup).Seconds(), "setup_graph_seconds": tGraph.Sub(tData).Seconds(),
		"setup_engine_seconds": tEngine.Sub(tGraph).Seconds(), "setup_seconds": tEngine.Sub(tSetup).Seconds(),
	}
	if all1 > all0 {
		// The share of the timed rounds' gradients that are non-zero:
		// small in a run's first rounds, while the auxiliary points have
		// barely moved and few nodes contribute, which is when the reduced
		// schedule's parallel pass is lightest and its serial share
		// largest (docs/design.md §6).
		out["nonzero_gradient_share"] = float64(nz1-nz0) / float64(all1-all0)
	}
	if tch := prof.Touches; tch > 0 {
		// The share of the reduced schedule's touches that its workers
		// ran side by side (the independent ones) instead of the serial
		// event loop.
		out["parallel_touch_share"] = float64(prof.ParallelTouches) / float64(tch)
	}
	if prof.Wall(engine.PhaseSetup) > 0 {
		// The reduced schedule's blocks by phase (engine.PhaseSetup …
		// engine.PhaseTail): which part of a block stops a second worker
		// from halving it.
		for _, ph := range []engine.Phase{engine.PhaseSetup, engine.PhasePass, engine.PhaseEventLoop, engine.PhaseIndependent, engine.PhaseTail} {
			out["phase_"+ph.String()+"_seconds"] = prof.Wall(ph).Seconds()
		}
	}
	if cpu > 0 {
		// The process's CPU time over the timed rounds (user and system,
		// every thread: spinning workers count).
		out["cpu_seconds"] = cpu.Seconds()
	}
	if serial+parallel > 0 {
		// The serial fraction of one worker's time, estimated from this run
		// (its parallel part would take about workers× as long on one), and
		// Amdahl's law from it: what 2, 16 and 64 cores could give at most.
		f := serial / (serial + float64(*workers)*parallel)
		out["serial_seconds"], out["parallel_seconds"], out["serial_fraction"] = serial, parallel, f
		out["amdahl_speedup_2"], out["amdahl_speedup_16"], out["amdahl_speedup_64"] = 1/(f+(1-f)/2), 1/(f+(1-f)/16), 1/(f+(1-f)/64)
	}
	if sc, pc := prof.Phases[engine.PhaseSerial].CPU.Seconds(), prof.Phases[engine.PhaseParallel].CPU.Seconds(); sc+pc > 0 {
		// The same from the calling thread's CPU time in each phase (where
		// the schedule measures it): wall time counts the moments other
		// processes held the CPU, thread CPU time does not. With one
		// worker the thread does all the work; with more, its parallel
		// part is its own shard (and its wait at the barrier).
		f := sc / (sc + float64(*workers)*pc)
		out["serial_cpu_seconds"], out["parallel_cpu_seconds"], out["serial_fraction_cpu"] = sc, pc, f
		out["amdahl_speedup_2_cpu"] = 1 / (f + (1-f)/2)
	}
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	fmt.Fprintf(stdout, "n=%d d=%d %s/%s, %d workers: %.3g ns per node update (%.3g updates/s), %.2f GB/s effective of %.2f GB/s triad, %.1f allocs/round\n",
		*n, *d, s.Schedule(), kernel.Active(), *workers, ns, 1e9/ns, bytesPlain/ns, triad, out["allocs_per_iteration"])
	return nil
}
