package readlimit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a file within the bound is read whole; one over it, a
// device without end and a directory are errors naming the path.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	if b, err := ReadFile(p, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadFile(p, 9); err == nil || !strings.Contains(err.Error(), p+" is larger than 9 bytes") {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "/dev/zero is larger than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := ReadFile(dir, 10); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}
