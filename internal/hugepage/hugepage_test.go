package hugepage

import "testing"

// Advise is a hint: on any length and alignment it must leave the memory
// usable and unchanged.
func TestAdviseKeepsMemory(t *testing.T) {
	for _, n := range []int{0, 1, 4095, MinBytes/8 - 1, MinBytes / 8, MinBytes/8 + 513} {
		buf := make([]float64, n+1)
		for i := range buf {
			buf[i] = float64(i)
		}
		s := buf[1:] // not page aligned
		Advise(s)
		for i, v := range s {
			if v != float64(i+1) {
				t.Fatalf("n=%d: element %d changed to %v", n, i, v)
			}
			s[i] = -v
		}
	}
	Advise([]struct{}{{}, {}}) // zero-size elements
}
