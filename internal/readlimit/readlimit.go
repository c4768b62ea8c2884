// Package readlimit reads a whole small file (a sweep file, a list) with a
// bound on its size that holds for every kind of file: os.ReadFile on
// /dev/zero or an endless pipe grows without limit, and a size check on
// os.Stat applies to regular files only.
package readlimit

import (
	"fmt"
	"io"
	"os"
)

// ReadFile returns the content of path, or an error naming it when it is a
// directory or holds more than max bytes (whatever its kind: regular file,
// pipe, device).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes, the limit of this kind of file", path, max)
	}
	return b, nil
}
