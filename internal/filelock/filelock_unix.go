//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

const staleHint = ""

func acquire(lp string) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, ErrLocked
			}
			return nil, err
		}
		// The holder removes the lock file before releasing it: if the file
		// locked is no longer the one at the path, lock the new one.
		st, err1 := f.Stat()
		cur, err2 := os.Stat(lp)
		if err1 == nil && err2 == nil && os.SameFile(st, cur) {
			return f, nil
		}
		f.Close()
	}
	return nil, ErrLocked
}

func release(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}
