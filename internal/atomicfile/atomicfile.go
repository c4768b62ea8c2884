// Package atomicfile writes files so that readers never see a partial one:
// the data goes to a temporary file in the same directory, is synced, and is
// renamed over the destination.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix is the name of Write's temporary files for path, less the
// random suffix: ".NAME.tmp-".
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// TempPattern is the os.CreateTemp pattern of a temporary file for path in
// its directory: Write's, so that RemoveStale finds what a writer of its own
// (a stream written as it goes) leaves behind when killed.
func TempPattern(path string) string { return tempPrefix(path) + "*" }

// RemoveStale removes the temporary files that Write for path left behind
// when its process was killed mid-write (a checkpoint's can be as large as
// the state), and returns their names. Call it only while no other process
// writes path (pairgossip run holds the checkpoint's lock, package
// filelock).
func RemoveStale(path string) ([]string, error) {
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	pre := tempPrefix(path)
	var gone []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), pre)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil {
			return gone, err
		}
		gone = append(gone, p)
	}
	return gone, nil
}

// Write atomically replaces path with the bytes produced by fill.
func Write(path string, fill func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, e := os.Open(dir); e == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteBytes atomically replaces path with b.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(f *os.File) error { _, err := f.Write(b); return err })
}
