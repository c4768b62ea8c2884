//go:build unix

package sweep

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this id exists on this
// host (signal 0 checks without sending anything).
func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
