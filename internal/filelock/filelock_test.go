package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAcquire: a second Acquire of the same path is refused, naming the
// lock file and the holder, until the first is released; the lock file
// goes with the lock.
func TestAcquire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.ckpt")
	a, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "state.ckpt.lock") || !strings.Contains(err.Error(), "in use by another run") {
		t.Fatalf("second Acquire: %v", err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); err == nil {
		t.Error("Unlock left the lock file")
	}
	b, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after Unlock: %v", err)
	}
	b.Unlock()
}
