//go:build !unix

package filelock

import (
	"errors"
	"io/fs"
	"os"
)

const staleHint = "; if no run is using it, a killed run left it behind: remove it"

func acquire(lp string) (*os.File, error) {
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrLocked
	}
	return f, err
}

func release(f *os.File) { f.Close() }
