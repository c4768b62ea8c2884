package hugepage

import (
	"syscall"
	"unsafe"
)

const madvHugepage = 14 // MADV_HUGEPAGE

// advise calls madvise(MADV_HUGEPAGE) on the whole 4 KiB pages inside
// [p, p+n). Errors (THP disabled, an old kernel) are ignored: it is a hint.
func advise(p unsafe.Pointer, n uintptr) {
	const page = 4096
	skip := (page - uintptr(p)%page) % page
	if n <= skip+page {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, skip)), (n-skip)&^(page-1))
	_ = syscall.Madvise(b, madvHugepage)
}
