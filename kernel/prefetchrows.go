package kernel

import "unsafe"

//go:generate sh -c "cd ../asm && go run . -kernel prefetchrows -out ../kernel/prefetchrows_amd64.s -stubs ../kernel/prefetchrows_amd64_stub.go"

// PrefetchRows asks the CPU to bring lines cache lines of each record
// base + idx[i]·stride (bytes) towards the core: the batch form of
// Prefetch for records of a fixed size indexed by node, so that one call
// covers the records of a group of upcoming events (the asynchronous event
// loop's software pipeline) without building a list of addresses. Like
// Prefetch it is a hint that never faults and writes nothing; results never
// depend on it. It does nothing in the generic implementation (and without
// amd64 assembly); with any other implementation active it issues
// PREFETCHT0 per line.
//
// Reference (the generic implementation): no operation.
func PrefetchRows(base unsafe.Pointer, idx []int32, stride, lines int) {
	if f := cur.Load().prefetchRows; f != nil && len(idx) > 0 && lines > 0 {
		f((*byte)(base), &idx[0], len(idx), stride, lines)
	}
}
