// Package hugepage asks the operating system to back large arrays with huge
// pages (2 MiB on x86-64 Linux) before they are first touched. The engine's
// random accesses to node records of a million nodes otherwise miss the TLB
// on nearly every access, each miss a page walk that may itself go to
// memory. It is a hint: where the system does not support it (another OS,
// transparent huge pages set to never) nothing happens, and results never
// depend on it.
package hugepage

import "unsafe"

// MinBytes is the size below which Advise does nothing (a few huge pages at
// least, so that the hint is worth a system call).
const MinBytes = 8 << 20

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
