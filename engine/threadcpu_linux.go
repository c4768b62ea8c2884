package engine

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used (user and
// system), and true; the caller locks its goroutine to the thread.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
