//go:build !linux

package engine

import "time"

// threadCPU reports no thread CPU clock off Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
