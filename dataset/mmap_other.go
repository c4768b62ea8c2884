//go:build !linux

package dataset

import (
	"errors"
	"os"
)

const canMap = false

func mapFile(f *os.File, size int64) ([]byte, error) {
	return nil, errors.New("memory mapping is implemented on Linux only")
}

func unmapFile(b []byte) error { return nil }
