package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteTargets: a write through a symbolic link replaces the file it
// leads to and leaves the link a link; a named pipe, a directory, a device
// and a dangling link are refused, named, and left as they were (a rename
// over /dev/null once made it a regular file).
func TestWriteTargets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := WriteBytes(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Fatalf("the link's target holds %q", b)
	}
	fifo := filepath.Join(dir, "pipe")
	refused := map[string]string{
		filepath.Join(dir, "sub"):      "a directory",
		filepath.Join(dir, "dangling"): "cannot be resolved",
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("missing.txt", filepath.Join(dir, "dangling"))
	if err := mkfifo(fifo); err == nil {
		refused[fifo] = "a named pipe"
	}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&fs.ModeDevice != 0 {
		// Target only looks: nothing is written to it.
		if _, err := Target(os.DevNull); err == nil || !strings.Contains(err.Error(), "a device") {
			t.Errorf("Target(%s): %v", os.DevNull, err)
		}
	}
	for p, want := range refused {
		before, _ := os.Lstat(p)
		err := WriteBytes(p, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("WriteBytes(%s): %v, want an error naming it, %q", p, err, want)
		}
		if after, _ := os.Lstat(p); before.Mode() != after.Mode() {
			t.Errorf("%s changed from %v to %v", p, before.Mode(), after.Mode())
		}
		if _, err := RemoveStale(p); err != nil && !os.IsNotExist(err) {
			t.Errorf("RemoveStale(%s): %v", p, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left %s", e.Name())
		}
	}
}
