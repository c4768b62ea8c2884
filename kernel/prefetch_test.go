package kernel

import (
	"encoding/binary"
	"slices"
	"testing"
	"unsafe"
)

// prefetchCheck runs Prefetch in every implementation on addrs (placed
// inside a guarded buffer) and fails if it changed the addresses or the
// guards, or if a prefetched buffer changed: a prefetch is a hint that
// never faults, whatever the address (null, unmapped, unaligned), and
// writes nothing.
func prefetchCheck(t *testing.T, addrs []uintptr, data []float64) {
	t.Helper()
	const guard = 8
	buf := make([]uintptr, len(addrs)+2*guard)
	for i := range buf {
		buf[i] = 0xdead
	}
	in := buf[guard : guard+len(addrs)]
	copy(in, addrs)
	before := slices.Clone(data)
	for _, impl := range Implementations() {
		withImpl(t, impl, func() {
			Prefetch(in)
			if !slices.Equal(in, addrs) {
				t.Fatalf("%s: Prefetch changed its addresses", impl)
			}
			for i := 0; i < guard; i++ {
				if buf[i] != 0xdead || buf[len(buf)-1-i] != 0xdead {
					t.Fatalf("%s: Prefetch wrote outside its slice", impl)
				}
			}
			if !slices.Equal(data, before) {
				t.Fatalf("%s: Prefetch changed prefetched memory", impl)
			}
		})
	}
}

// TestPrefetch: every length 0..130, addresses inside a live buffer at
// every alignment, and addresses that are not memory at all.
func TestPrefetch(t *testing.T) {
	data := make([]float64, 4096)
	for i := range data {
		data[i] = float64(i)
	}
	base := uintptr(unsafe.Pointer(&data[0]))
	for n := 0; n <= 130; n++ {
		addrs := make([]uintptr, n)
		for i := range addrs {
			switch i % 4 {
			case 0:
				addrs[i] = base + uintptr(i*61)%uintptr(8*len(data)) // unaligned, inside
			case 1:
				addrs[i] = 0 // null
			case 2:
				addrs[i] = ^uintptr(0) - uintptr(i) // the top of the address space
			default:
				addrs[i] = 0x1000_0000_0000 + uintptr(i)*4096 // unmapped
			}
		}
		prefetchCheck(t, addrs, data)
	}
}

// FuzzPrefetch prefetches fuzzer-chosen addresses (8 bytes each; an
// address below 2¹⁶ is taken as an offset into a live buffer).
func FuzzPrefetch(f *testing.F) {
	f.Add([]byte{})
	f.Add(binary.LittleEndian.AppendUint64(nil, 0))
	f.Add(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 77), ^uint64(0)))
	data := make([]float64, 8192)
	base := uintptr(unsafe.Pointer(&data[0]))
	f.Fuzz(func(t *testing.T, b []byte) {
		var addrs []uintptr
		for ; len(b) >= 8; b = b[8:] {
			a := uintptr(binary.LittleEndian.Uint64(b))
			if a < 1<<16 {
				a = base + a%uintptr(8*len(data))
			}
			addrs = append(addrs, a)
		}
		prefetchCheck(t, addrs, data)
	})
}
