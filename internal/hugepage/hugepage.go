// Package hugepage asks the operating system to back large arrays with huge
// pages (2 MiB on x86-64 Linux) before they are first touched. The engine's
// random accesses to node records of a million nodes otherwise miss the TLB
// on nearly every access, each miss a page walk that may itself go to
// memory. It is a hint: where the system does not support it (another OS,
// transparent huge pages set to never) nothing happens, and results never
// depend on it.
package hugepage

import "unsafe"

// MinBytes is the size below which Advise does nothing. Below it, huge
// pages bring nothing measurable and may cost a fresh process dearly:
//
//   - the serial and parallel asynchronous loops ran alike with and without
//     them at n = 3·10⁴ and 10⁵ (15 and 51 MB of records, within this
//     machine's 260 MiB L3, whose page walks hit in the caches): medians of
//     5 of `bench async --n N --events 4000000 --workers 2`, 8.14 against
//     8.31 M events/s serial at 3·10⁴, 7.72 against 7.66 at 10⁵;
//   - a huge page is zeroed by the kernel whole at its first touch, which
//     in a virtual machine whose host has not backed the memory yet is
//     slow and uneven: 26 MB of metric-learning state (`pairgossip run --problem metric --data
//     synthetic --algo async --iters 4000`) cost 0.00–0.18 s of system time
//     per run, against a steady 0.02 s with 4 KiB pages (/usr/bin/time,
//     each run just after a build, 2-vCPU development machine).
//
// At 10⁶ nodes and more the records outgrow the caches and the hint pays
// (a page walk per random access otherwise goes to memory).
const MinBytes = 64 << 20

// Advise hints that the memory of s (len·elem bytes from its first element)
// should use huge pages. Call it on a fresh allocation, before writing to
// it: pages already faulted in are only merged later, if ever.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	n := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if n < MinBytes {
		return
	}
	advise(unsafe.Pointer(&s[0]), n)
}
