package engine

import "syscall"

// osYield gives the calling thread's CPU to another runnable thread, if
// any (sched_yield): a worker waiting for another worker's progress on a
// machine with more runnable threads than CPUs lets the one it waits for
// run instead of spinning through its time slice.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
