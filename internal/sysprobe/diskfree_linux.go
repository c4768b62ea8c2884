//go:build linux

package sysprobe

import "syscall"

// DiskFree returns the bytes available to an unprivileged user on dir's
// file system (statfs: f_bavail × f_bsize).
func DiskFree(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
