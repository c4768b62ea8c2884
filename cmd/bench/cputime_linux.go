package main

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU is the CPU time the process has used (every thread), from
// CLOCK_PROCESS_CPUTIME_ID; 0 where it cannot be read.
func processCPU() time.Duration {
	var ts syscall.Timespec
	const clockProcessCPUTimeID = 2
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
