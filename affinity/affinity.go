// Package affinity pins the engine's worker threads to CPUs, when asked to
// and where that can help.
//
// Pinning is opt-in (engine.Config.Pin, `--pin` on the command lines). It
// keeps each worker of the synchronous pool and of the parallel asynchronous
// executor on one CPU for the whole run, so that its shard of the state
// stays in that CPU's caches and the scheduler does not migrate it between
// rounds. It cannot help, and Plan returns no CPUs and the reason, when
//
//   - the operating system has no thread affinity (only Linux is supported);
//   - there is one worker, or the process may run on fewer CPUs than there
//     are workers (two workers would share a CPU: pinning would only take
//     the scheduler's freedom to balance them);
//   - GOMAXPROCS is below the number of workers (the Go scheduler cannot run
//     them all at once anyway).
//
// Results never depend on pinning: it changes where the work runs, not what
// is computed.
package affinity

import (
	"fmt"
	"runtime"
)

// Plan returns the CPU each of workers workers should be pinned to (CPUs of
// the process's affinity mask, in increasing order), or nil and why pinning
// cannot help here.
func Plan(workers int) (cpus []int, why string) {
	if !Supported {
		return nil, fmt.Sprintf("no thread affinity on %s", runtime.GOOS)
	}
	if workers < 2 {
		return nil, "one worker"
	}
	allowed, err := Allowed()
	if err != nil {
		return nil, err.Error()
	}
	if len(allowed) < workers {
		cpus := "CPUs"
		if len(allowed) == 1 {
			cpus = "CPU"
		}
		return nil, fmt.Sprintf("%d workers but the process may run on %d %s", workers, len(allowed), cpus)
	}
	if g := runtime.GOMAXPROCS(0); g < workers {
		return nil, fmt.Sprintf("%d workers but GOMAXPROCS is %d", workers, g)
	}
	return allowed[:workers], ""
}
