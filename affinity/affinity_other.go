//go:build !linux

package affinity

import (
	"fmt"
	"runtime"
)

// Supported reports whether this build can pin threads.
const Supported = false

// Allowed is not available on this system.
func Allowed() ([]int, error) {
	return nil, fmt.Errorf("affinity: no thread affinity on %s", runtime.GOOS)
}

// Pin is not available on this system.
func Pin(cpu int) (Pinning, error) {
	return Pinning{}, fmt.Errorf("affinity: no thread affinity on %s", runtime.GOOS)
}

// Pinning is a thread pinned by Pin (never, on this system).
type Pinning struct{}

// Undo does nothing.
func (Pinning) Undo() {}
