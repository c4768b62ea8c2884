package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveStale: the temporary files of a killed Write (its own naming:
// digits after ".NAME.tmp-") are removed; other files, and the temporary
// files of other names, are kept.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	fill := errors.New("killed")
	// A Write that fails removes its temporary file itself.
	if err := Write(path, func(f *os.File) error { f.Write(make([]byte, 100)); return fill }); !errors.Is(err, fill) {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".run.ckpt.tmp-123456")
	keep := []string{path, filepath.Join(dir, ".other.ckpt.tmp-1"), filepath.Join(dir, ".run.ckpt.tmp-mine"), filepath.Join(dir, "run.ckpt.tmp-2")}
	for _, p := range append([]string{stale}, keep...) {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	gone, err := RemoveStale(path)
	if err != nil || len(gone) != 1 || gone[0] != stale {
		t.Fatalf("RemoveStale: %v, %v", gone, err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", p)
		}
	}
	if err := WriteBytes(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if gone, _ := RemoveStale(path); len(gone) != 0 {
		t.Errorf("a completed Write left %v", gone)
	}
}
