package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/kernel"
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
	ceiling := fs.Bool("ceiling", true, "also time the serial loop's memory traffic without its arithmetic (engine.Sim.MemoryCeiling): a bound on the serial loop with its own prefetching")
	latency := fs.Bool("latency", false, "also measure the memory's latency (kernel.LatencyNs: a pointer chase through 1 GiB) and\n"+
		"from it the random lines the serial loop keeps in flight (lines an event × latency / time an event)")
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
	if err := checkSize("auc", *kind, *n, *d, *workers, 0); err != nil {
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
	run := func(w int) (float64, [32]byte, float64, error) {
		s, err := engine.New(p, g, config(w))
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
	serial, sumS, serialCPU, err := run(1)
	if err != nil {
		return err
	}
	par, sumP, parCPU, err := run(*workers)
	if err != nil {
		return err
	}
	var ceil, ceilCPU float64
	if *ceiling {
		s, err := engine.New(p, g, config(1))
		if err != nil {
			return err
		}
		t0, c0 := time.Now(), processCPU()
		err = s.MemoryCeiling(*events)
		el := time.Since(t0).Seconds()
		ceilCPU = float64(processCPU()-c0) / float64(*events)
		s.Close()
		if err != nil {
			return err
		}
		ceil = float64(*events) / el
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
		"memory_ceiling_events_per_s": ceil, "memory_ceiling_cpu_ns_per_event": ceilCPU, "cpu_ns_per_event": parCPU, "gomaxprocs": runtime.GOMAXPROCS(0), "kernel": kernel.Active(),
		"pinned_cpus": cpus, "pin_note": pinWhy, "lines_per_event": lines}
	if *latency {
		out["memory_latency_ns"], out["serial_lines_in_flight"] = latNs, inFlight
		if *ceiling {
			out["memory_ceiling_lines_in_flight"] = float64(lines) * latNs * ceil / 1e9
		}
	}
	if *asJSON {
		printJSON(stdout, out)
		return nil
	}
	fmt.Fprintf(stdout, "n=%d d=%d %s: serial %.3g events/s (%.1f CPU ns an event), %d workers %.3g events/s (×%.2f, %.1f CPU ns an event), identical: %v\n",
		*n, *d, g.Name, serial, serialCPU, *workers, par, par/serial, parCPU, sumS == sumP)
	if *latency {
		fmt.Fprintf(stdout, "memory latency %.0f ns: the serial loop keeps %.1f of an event's %d random lines in flight on average\n", latNs, inFlight, lines)
	}
	if *ceiling {
		fmt.Fprintf(stdout, "memory ceiling of the serial loop (its lines, no arithmetic): %.3g events/s (%.1f CPU ns an event)\n", ceil, ceilCPU)
		if *latency {
			fmt.Fprintf(stdout, "  (%.1f lines in flight)\n", float64(lines)*latNs*ceil/1e9)
		}
	}
	return nil
}
