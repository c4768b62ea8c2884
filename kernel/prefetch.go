package kernel

// Prefetch asks the CPU to bring the cache line of each address in addrs
// towards the core, without waiting and without ever faulting: a hint for
// memory that will be read soon (the asynchronous event loop prefetches
// the records of the events some steps ahead). The generic implementation
// does nothing; the avx2 one issues PREFETCHT0 per address. Results never
// depend on it.
//
// Reference (the generic implementation): no operation.
func Prefetch(addrs []uintptr) {
	if len(addrs) > 0 {
		cur.Load().prefetch(&addrs[0], len(addrs))
	}
}
