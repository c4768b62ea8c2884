//go:build unix

package main

import "syscall"

// cpuSeconds returns the process's user+system CPU time (the machine the
// benchmarks run on is shared: CPU time is less noisy than wall time).
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return -1
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) * 1e-9
}
