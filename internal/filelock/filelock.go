// Package filelock makes one process at a time the writer of a file: two
// runs given one --checkpoint file would otherwise overwrite each other's
// state silently.
//
// The lock is a file beside the one it protects (PATH.lock). On Unix it is
// held with flock(2) (package syscall, no cgo), so the kernel releases it
// when the process dies, even by SIGKILL, and a lock file left behind does
// not block the next run. Elsewhere the lock file is created exclusively and
// holds the owner's process id; a run killed without unlocking leaves it, and
// the error says to remove it.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked is returned (wrapped) when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held lock; Unlock releases it.
type Lock struct {
	path string
	f    *os.File
}

// LockPath is the lock file that protects path.
func LockPath(path string) string { return path + ".lock" }

// Acquire takes the lock of path without waiting: an error wrapping
// ErrLocked names the lock file (and the holder's process id where known)
// when another process holds it.
func Acquire(path string) (*Lock, error) {
	lp := LockPath(path)
	f, err := acquire(lp)
	if err != nil {
		if errors.Is(err, ErrLocked) {
			who := ""
			if b, rerr := os.ReadFile(lp); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
					who = fmt.Sprintf(" (process %d)", pid)
				}
			}
			return nil, fmt.Errorf("%s is in use by another run%s: %w (lock file %s%s)", path, who, ErrLocked, lp, staleHint)
		}
		return nil, fmt.Errorf("lock %s: %w", lp, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{path: lp, f: f}, nil
}

// Unlock releases the lock and removes the lock file.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Removed while held, so that no other process can take the lock of a
	// file about to disappear (acquire checks that the file it locked is
	// still the one at the path).
	err := os.Remove(l.path)
	release(l.f)
	l.f = nil
	return err
}
