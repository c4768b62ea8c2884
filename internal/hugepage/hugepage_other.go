//go:build !linux

package hugepage

import "unsafe"

func advise(p unsafe.Pointer, n uintptr) {}
