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
// pages bring nothing measurable and may cost a fresh process dearly
// (the measurements: bench/RESULTS.md, "Measurements cited by comments
// outside the engine"):
//
//   - the serial and parallel asynchronous loops ran alike with and without
//     them at n = 3·10⁴ and 10⁵ (records that fit the last-level cache,
//     whose page walks hit in the caches);
//   - a huge page is zeroed by the kernel whole at its first touch, which
//     in a virtual machine whose host has not backed the memory yet is
//     slow and uneven: a small metric-learning state cost a run several
//     times the system time it costs with 4 KiB pages, and unevenly.
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
