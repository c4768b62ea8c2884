package affinity

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Supported reports whether this build can pin threads.
const Supported = true

// Allowed returns the CPUs the calling thread may run on (the process's
// affinity mask as inherited: taskset, cgroups' cpusets, SLURM's binding),
// in increasing order.
func Allowed() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// Pin locks the calling goroutine to its OS thread and restricts that
// thread to cpu. The returned Pinning's Undo restores the thread's previous
// mask and unlocks it; call it from the same goroutine. Pin allocates
// nothing.
func Pin(cpu int) (Pinning, error) {
	if cpu < 0 || cpu >= len(unix.CPUSet{})*64 {
		return Pinning{}, fmt.Errorf("affinity: no CPU %d", cpu)
	}
	runtime.LockOSThread()
	p := Pinning{on: true}
	if err := unix.SchedGetaffinity(0, &p.old); err != nil {
		runtime.UnlockOSThread()
		return Pinning{}, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return Pinning{}, fmt.Errorf("affinity: pin to CPU %d: %w", cpu, err)
	}
	return p, nil
}

// Pinning is a thread pinned by Pin (the zero value: nothing pinned).
type Pinning struct {
	old unix.CPUSet
	on  bool
}

// Undo restores the thread's mask from before Pin and unlocks it from the
// goroutine; on the zero Pinning it does nothing.
func (p Pinning) Undo() {
	if p.on {
		_ = unix.SchedSetaffinity(0, &p.old)
		runtime.UnlockOSThread()
	}
}
