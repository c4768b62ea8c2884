// Package atomicfile writes files so that readers never see a partial one:
// the data goes to a temporary file in the same directory, is synced, and is
// renamed over the destination.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
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
	if t, err := Target(path); err == nil {
		path = t // where Write puts them
	}
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

// Target returns the file that a write of path replaces: path itself, or,
// where path is a symbolic link, the file it leads to, so that the link
// stays a link (as a shell's > leaves it). It refuses, with an error naming
// path, a target that exists and is not a regular file — a device such as
// /dev/null, a named pipe, a socket, a directory — which renaming a
// temporary file over would replace (as root, /dev/null itself), and a
// link whose target is missing or cannot be resolved.
func Target(path string) (string, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", err
	}
	name := path
	if fi.Mode()&fs.ModeSymlink != 0 {
		r, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("%s: a symbolic link whose target cannot be resolved (%w); name the file itself", path, err)
		}
		if fi, err = os.Stat(r); err != nil {
			return "", err
		}
		path, name = r, fmt.Sprintf("%s (a link to %s)", path, r)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: is %s, not a regular file: an output replaces a file whole, so it is never written to a device, pipe or socket (to write nothing, leave the output out)", name, kind(fi.Mode()))
	}
	return path, nil
}

// kind names a file mode that is not a regular file's.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Write atomically replaces path with the bytes produced by fill (path's
// target, if a symbolic link: Target, whose refusals it returns before
// fill runs).
func Write(path string, fill func(f *os.File) error) (err error) {
	path, err = Target(path)
	if err != nil {
		return fmt.Errorf("write %w", err)
	}
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
