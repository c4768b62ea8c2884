package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/lab"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

func cmdAsync(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("async", "bench async: asynchronous gossip (AUC logistic, ψ = 0, random data) — the serial event loop\n"+
		"and the parallel executor on the same seeded edge stream, timed in the same process, with a\n"+
		"bitwise comparison of their final states.", stderr)
	n := fs.Int("n", 1_000_000, "nodes (one random point each)")
	d := fs.Int("d", 16, "dimension")
	events := fs.Int64("events", 2_000_000, "events timed")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "workers of the parallel executor")
	kind := fs.String("graph", "watts-strogatz", "graph (watts-strogatz k=5 p=0.3, cycle, star, complete, …)")
	seed := fs.Uint64("seed", 1, "seed of the data, graph and edge stream")
	pin := fs.Bool("pin", false, "pin the parallel executor's workers to CPUs (package affinity)")
	ceiling := fs.Bool("ceiling", true, "also time the serial loop's memory traffic without its arithmetic (lab.MemoryCeiling): a bound on the serial loop with its own prefetching")
	sweep := fs.Bool("ceiling-sweep", false, "also time the memory ceiling's traffic under other prefetching (lab.MemoryCeilingWith:\n"+
		"none, and groups of 2 to 32 events prefetched 4 to 64 events ahead) and report the fastest: a bound on\n"+
		"the serial loop under any of them, not only its own")
	latency := fs.Bool("latency", false, "also measure the memory's latency (kernel.LatencyNs: a pointer chase through 1 GiB) and\n"+
		"from it the random lines the serial loop keeps in flight (lines an event × latency / time an event;\n"+
		"meaningful when the state outgrows the caches, as at n = 10⁶: below, most lines hit a cache)")
	hot := fs.Bool("hot", false, "also time the serial loop on 64 nodes (same d and graph kind): a state that stays in L1, so the\n"+
		"event's arithmetic and overheads without cache misses — the serial loop's ceiling at any n")
	copies := fs.Bool("copies", false, "also run --workers independent serial loops at once, each on its own copy of the state\n"+
		"(--workers times the memory), and report their events/s together: what the cores give when they\n"+
		"share no state, against which to read the parallel executor's speed-up")
	loss := fs.Float64("loss", 0, "message loss of the network model (docs/networks.md): the serial loop and the parallel executor\n"+
		"run under it, and are timed again without faults, side by side (issue #34: within 1.3×)")
	churnSpec := fs.String("churn", "none", "churn of the network model (geometric:up=U,down=D, exponential:…, lognormal:…; sessions in\n"+
		"iterations; geometric sessions keep a node offline a fraction D/(U+D) of the time): as --loss")
	serialToo := fs.Bool("serial", true, "also time the serial loop (and compare the parallel executor's final state with its):\n"+
		"--serial=false times the parallel executor alone, for sweeps over --workers")
	decideFrom := fs.Int("decide-from", 0, "under a network model, the worker count from which the parallel executor's workers\n"+
		"decide the events they run (below it the serial window builder decides them); 0: the engine's own")
	cpuProfile := fs.String("cpuprofile", "", cpuProfileFlag+": the parallel executor's, under the model if one is given")
	kern := fs.String("kernel", "auto", "auto or a kernel implementation this CPU supports: "+strings.Join(kernel.Implementations(), ", "))
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := validSize(*n, *d); err != nil {
		return err
	}
	if *events < 1 || *workers < 1 {
		return usageError{Err: fmt.Errorf("--events and --workers must be >= 1")}
	}
	if *decideFrom < 0 {
		return usageError{Err: fmt.Errorf("--decide-from must be >= 0 (0: the engine's own)")}
	}
	if !*serialToo && !given(fs, "ceiling") {
		*ceiling = false // its default times the serial loop's traffic: not asked for here
	}
	if !*serialToo && (*ceiling || *sweep || *latency || *hot || *copies) {
		return usageError{Err: fmt.Errorf("--serial=false times the parallel executor alone: --ceiling, --ceiling-sweep, --latency, --hot and --copies need the serial loop")}
	}
	decideAt := lab.AsyncLateDecide(*decideFrom)
	if *decideFrom > 0 {
		defer lab.AsyncLateDecide(decideAt) // the engine's own again after this command
		decideAt = *decideFrom
	}
	churn, err := network.ParseChurn(*churnSpec)
	if err != nil {
		return usageError{Err: err}
	}
	model := network.Model{Loss: *loss, Churn: churn}
	if err := model.Validate(); err != nil {
		return usageError{Err: err}
	}
	faults := !model.IsPerfect()
	states := 1
	if *copies {
		states = *workers
	}
	if err := checkSize("auc", *kind, *n, *d, *workers, states, 0); err != nil {
		return err
	}
	if err := useKernel(*kern); err != nil {
		return err
	}
	p, err := randomAUC(*n, *d, *seed)
	if err != nil {
		return err
	}
	g, err := buildGraph(*kind, *n, *seed)
	if err != nil {
		return err
	}
	var cpus []int
	var pinWhy string
	// config is the run's configuration with w workers (the serial loop,
	// the parallel executor and the memory ceiling's run alike).
	config := func(w int) engine.Config {
		return engine.Config{Algorithm: engine.Async, Iters: *events, GammaC: 1, Seed: *seed, Workers: w, Pin: *pin && w > 1, LogPoints: 1, EvalNodes: 1}
	}
	// run returns events/s, the final state's checksum and the process's
	// CPU time the run used per event (all threads: with workers, their
	// waiting included): unlike events/s, not inflated by other processes.
	// m is the network model (the zero Model: without faults).
	run := func(w int, m network.Model) (float64, [32]byte, float64, error) {
		cfg := config(w)
		cfg.Network = m
		s, err := engine.New(p, g, cfg)
		if err != nil {
			return 0, [32]byte{}, 0, err
		}
		defer s.Close()
		if w > 1 {
			cpus, pinWhy = s.Pinned()
		}
		t0, c0 := time.Now(), processCPU()
		if err := s.Advance(*events); err != nil {
			return 0, [32]byte{}, 0, err
		}
		el := time.Since(t0).Seconds()
		cpuNs := float64(processCPU()-c0) / float64(*events)
		return float64(*events) / el, s.StateChecksum(), cpuNs, nil
	}
	var serial, serialCPU float64
	var sumS [32]byte
	if *serialToo {
		if serial, sumS, serialCPU, err = run(1, model); err != nil {
			return err
		}
	}
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	par, sumP, parCPU, err := run(*workers, model)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	// Under faults, the same runs without them, side by side.
	var cleanSerial, cleanPar float64
	if faults {
		if *serialToo {
			if cleanSerial, _, _, err = run(1, network.Model{}); err != nil {
				return err
			}
		}
		if cleanPar, _, _, err = run(*workers, network.Model{}); err != nil {
			return err
		}
	}
	var ceil, ceilCPU float64
	if *ceiling {
		if ceil, ceilCPU, err = timeSerial(p, g, config(1), *events, func(s *engine.Sim, ev int64) error { return lab.MemoryCeiling(s, ev) }); err != nil {
			return err
		}
	}
	var sweepRows []map[string]any
	var best float64
	var bestGroup, bestAhead int
	if *sweep {
		strategies := ceilingStrategies
		if g, a := lab.AsyncPrefetch(); !slices.Contains(strategies, [2]int{g, a}) {
			strategies = append(slices.Clip(strategies), [2]int{g, a})
		}
		for _, c := range strategies {
			r, cpuNs, err := timeSerial(p, g, config(1), *events, func(s *engine.Sim, ev int64) error { return lab.MemoryCeilingWith(s, ev, c[0], c[1]) })
			if err != nil {
				return err
			}
			sweepRows = append(sweepRows, map[string]any{"group": c[0], "ahead": c[1], "events_per_s": r, "cpu_ns_per_event": cpuNs})
			if r > best {
				best, bestGroup, bestAhead = r, c[0], c[1]
			}
		}
	}
	var hotRate, hotCPU float64
	if *hot {
		ph, err := randomAUC(64, *d, *seed)
		if err != nil {
			return err
		}
		gh, err := buildGraph(*kind, 64, *seed)
		if err != nil {
			return err
		}
		if hotRate, hotCPU, err = timeSerial(ph, gh, config(1), *events, (*engine.Sim).Advance); err != nil {
			return err
		}
	}
	var copiesRate float64
	if *copies {
		if copiesRate, err = runCopies(*workers, *events, func() (*engine.Sim, error) { return engine.New(p, g, config(1)) }); err != nil {
			return err
		}
	}
	// The random lines an event reads: both endpoints' x, y, z and θ̄ rows
	// (the node record) and packed slot (asyncNode, one line).
	lines := 2 * (4*((*d+7)/8) + 1)
	var latNs, inFlight float64
	if *latency {
		latNs = kernel.LatencyNs(1<<30, 1<<21, 3)
		inFlight = float64(lines) * latNs * serial / 1e9
	}
	out := map[string]any{"n": *n, "d": *d, "graph": g.Name, "workers": *workers, "events": *events,
		"events_per_s": par, "serial_events_per_s": serial, "speedup": par / serial,
		"identical_to_serial":         sumS == sumP,
		"serial_cpu_ns_per_event":     serialCPU,
		"decide_from":                 decideAt,
		"memory_ceiling_events_per_s": ceil, "memory_ceiling_cpu_ns_per_event": ceilCPU, "cpu_ns_per_event": parCPU, "gomaxprocs": runtime.GOMAXPROCS(0), "kernel": kernel.Active(),
		"pinned_cpus": cpus, "pin_note": pinWhy, "lines_per_event": lines}
	if faults {
		out["network"], out["faultless_events_per_s"], out["faultless_serial_events_per_s"] = model.String(), cleanPar, cleanSerial
		out["fault_slowdown"], out["serial_fault_slowdown"] = cleanPar/par, cleanSerial/serial
	}
	if !*serialToo { // not timed: null, not a made-up zero or an infinite ratio
		for _, k := range []string{"serial_events_per_s", "speedup", "identical_to_serial", "serial_cpu_ns_per_event",
			"memory_ceiling_events_per_s", "memory_ceiling_cpu_ns_per_event", "faultless_serial_events_per_s", "serial_fault_slowdown"} {
			if _, ok := out[k]; ok {
				out[k] = nil
			}
		}
	}
	if *latency {
		out["memory_latency_ns"], out["serial_lines_in_flight"] = latNs, inFlight
		if *ceiling {
			out["memory_ceiling_lines_in_flight"] = float64(lines) * latNs * ceil / 1e9
		}
	}
	if *sweep {
		out["ceiling_sweep"], out["ceiling_sweep_best_events_per_s"] = sweepRows, best
		out["ceiling_sweep_best_group"], out["ceiling_sweep_best_ahead"] = bestGroup, bestAhead
		if *latency {
			out["ceiling_sweep_best_lines_in_flight"] = float64(lines) * latNs * best / 1e9
		}
	}
	if *hot {
		out["hot_events_per_s"], out["hot_cpu_ns_per_event"] = hotRate, hotCPU
	}
	if *copies {
		out["copies_events_per_s"] = copiesRate
	}
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	if !*serialToo {
		fmt.Fprintf(stdout, "n=%d d=%d %s: %d workers %.3g events/s (%.1f CPU ns an event); serial loop not timed\n",
			*n, *d, g.Name, *workers, par, parCPU)
		if faults {
			fmt.Fprintf(stdout, "network %s; without faults: %d workers %.3g events/s (faults cost ×%.2f)\n", model, *workers, cleanPar, cleanPar/par)
		}
		return nil
	}
	fmt.Fprintf(stdout, "n=%d d=%d %s: serial %.3g events/s (%.1f CPU ns an event), %d workers %.3g events/s (×%.2f, %.1f CPU ns an event), identical: %v\n",
		*n, *d, g.Name, serial, serialCPU, *workers, par, par/serial, parCPU, sumS == sumP)
	if faults {
		fmt.Fprintf(stdout, "network %s; without faults: serial %.3g events/s (faults cost ×%.2f), %d workers %.3g events/s (×%.2f)\n",
			model, cleanSerial, cleanSerial/serial, *workers, cleanPar, cleanPar/par)
	}
	if *latency {
		fmt.Fprintf(stdout, "memory latency %.0f ns: the serial loop keeps %.1f of an event's %d random lines in flight on average\n", latNs, inFlight, lines)
	}
	if *hot {
		fmt.Fprintf(stdout, "serial loop on 64 nodes (state in L1): %.3g events/s (%.1f CPU ns an event)\n", hotRate, hotCPU)
	}
	if *copies {
		fmt.Fprintf(stdout, "%d independent serial loops at once: %.3g events/s together (×%.2f the serial loop)\n", *workers, copiesRate, copiesRate/serial)
	}
	if *ceiling {
		fmt.Fprintf(stdout, "memory ceiling of the serial loop (its lines, no arithmetic): %.3g events/s (%.1f CPU ns an event)\n", ceil, ceilCPU)
		if *latency {
			fmt.Fprintf(stdout, "  (%.1f lines in flight)\n", float64(lines)*latNs*ceil/1e9)
		}
	}
	if *sweep {
		fmt.Fprintf(stdout, "memory ceiling under other prefetching (group/ahead events, 0/0: none; events/s):")
		for _, r := range sweepRows {
			fmt.Fprintf(stdout, " %d/%d: %.3g", r["group"], r["ahead"], r["events_per_s"])
		}
		fmt.Fprintf(stdout, "\n  fastest %.3g events/s (group %d, ahead %d)", best, bestGroup, bestAhead)
		if *latency {
			fmt.Fprintf(stdout, ", %.1f lines in flight", float64(lines)*latNs*best/1e9)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// ceilingStrategies are the prefetchings --ceiling-sweep times (group,
// ahead; 0, 0: none), with the serial loop's own (lab.AsyncPrefetch)
// added when it is not among them.
var ceilingStrategies = [][2]int{{0, 0}, {2, 4}, {4, 8}, {8, 16}, {16, 16}, {16, 32}, {16, 64}, {32, 64}}

// runCopies runs k simulations made by mk at once, one goroutine each (the
// serial loop), events events each, and returns their events/s together,
// from the first start to the last end. They share the data and the graph,
// read only, and nothing else.
func runCopies(k int, events int64, mk func() (*engine.Sim, error)) (float64, error) {
	sims := make([]*engine.Sim, k)
	defer func() {
		for _, s := range sims {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i := range sims {
		s, err := mk()
		if err != nil {
			return 0, err
		}
		sims[i] = s
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, s := range sims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Advance(events)
		}()
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return float64(k) * float64(events) / el, nil
}

// timeSerial makes a simulation of p on g with cfg, times f(sim, events)
// and returns events/s and the process's CPU ns an event.
func timeSerial(p *problem.Problem, g *graph.Graph, cfg engine.Config, events int64, f func(*engine.Sim, int64) error) (rate, cpuNs float64, err error) {
	s, err := engine.New(p, g, cfg)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	t0, c0 := time.Now(), processCPU()
	if err := f(s, events); err != nil {
		return 0, 0, err
	}
	el := time.Since(t0).Seconds()
	return float64(events) / el, float64(processCPU()-c0) / float64(events), nil
}

// given reports whether the command line set the flag name.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
