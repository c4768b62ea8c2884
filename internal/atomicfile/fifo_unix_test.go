//go:build unix

package atomicfile

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
