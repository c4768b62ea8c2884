package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// existingAncestor returns dir if it exists, else its nearest existing
// ancestor; an ancestor that is not a directory is an error.
func existingAncestor(dir string) (string, error) {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			return d, nil
		case err == nil:
			return "", fmt.Errorf("%s is a file, not a directory", d)
		case errors.Is(err, fs.ErrPermission):
			return "", err
		} // missing, or under a file (ENOTDIR): look higher
		up := filepath.Dir(d)
		if up == d {
			return "", err
		}
		d = up
	}
}

// probeDir creates and removes a file in the existing directory dir: the
// one test of writability that holds on every system (permissions, a
// read-only mount, ACLs, a full quota on the inode count).
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".pairgossip-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkOutDir checks, before any work, that the output directory of a flag
// can be written: it exists and takes a file, or its nearest existing
// ancestor does (it is created only once the run is ready to start, so a
// refused run leaves nothing behind).
func checkOutDir(flagName, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("%s %s: is a file, not a directory", flagName, dir)
	}
	d, err := existingAncestor(dir)
	if err == nil {
		err = probeDir(d)
	}
	if err != nil {
		return usagef("%s %s: %v", flagName, dir, err)
	}
	return nil
}

// checkOutFile checks, before any work, that the file a flag names can be
// written atomically (a temporary file in its directory, renamed over it):
// its directory exists and takes a file, and it is not a directory.
func checkOutFile(flagName, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a directory, not a file", flagName, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("%s %s: its directory %s does not exist", flagName, path, dir)
	case !st.IsDir():
		return usagef("%s %s: %s is a file, not a directory", flagName, path, dir)
	}
	if err := probeDir(dir); err != nil {
		return usagef("%s %s: %v", flagName, path, err)
	}
	return nil
}
