package main

import (
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/internal/sysprobe"

	"github.com/pairgossip/pairgossip"
)

// availableMemory is sysprobe.AvailableMemory, replaceable in tests.
var availableMemory = sysprobe.AvailableMemory

// checkSize refuses, before anything is allocated, a benchmark whose
// workers exceed pairgossip's bound or whose data, graph and engine state
// (pairgossip.EstimateMemory, the estimate pairgossip run checks; copies
// engine states beside one data set and graph, bench async --copies) plus
// extra bytes (the STREAM-triad arrays) would not fit in the memory available:
// a huge --n, --d or --triad-n was an out-of-memory crash with a stack
// trace.
func checkSize(problem, graphKind string, n, d, workers, copies int, extra float64) error {
	if workers > config.MaxWorkers {
		return usageError{Err: fmt.Errorf("--workers must be <= %d, got %d", config.MaxWorkers, workers)}
	}
	p := float64(d)
	if problem == "metric" {
		p *= float64(d)
	}
	// A lower bound in floating point first: n·(3 rows of p parameters)
	// overflows int64 long before the estimate's own arithmetic is useful.
	need := float64(n)*(3*float64(copies)*p+float64(d))*8 + extra
	if need < 1<<60 {
		cfg := pairgossip.DefaultConfig()
		cfg.Problem, cfg.Graph, cfg.Workers, cfg.SkipOptimum = problem, graphKind, workers, true
		if problem == "metric" {
			cfg.Reg = "psd"
		}
		m := pairgossip.EstimateMemory(cfg, n, d, workers)
		need = float64(m.Total()+int64(copies-1)*m.State) + extra
	}
	if avail := availableMemory(); avail > 0 && need > float64(avail) {
		return usageError{Err: fmt.Errorf("n = %d, d = %d needs about %.3g GiB (data, graph, state and probe arrays) but only %.3g GiB is available; reduce --n, --d or --triad-n",
			n, d, need/(1<<30), float64(avail)/(1<<30))}
	}
	return nil
}
