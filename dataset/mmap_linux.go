//go:build linux

package dataset

import (
	"errors"
	"os"
	"syscall"
)

// canMap says whether mapFile can work on this system.
const canMap = true

// mapFile maps the first size bytes of f copy-on-write (MAP_PRIVATE with
// read and write access: the file, opened read-only, is never written; a
// page the program writes to becomes a private copy).
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || size != int64(int(size)) {
		return nil, errors.New("cannot map a file of this size")
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(b []byte) error { return syscall.Munmap(b) }
