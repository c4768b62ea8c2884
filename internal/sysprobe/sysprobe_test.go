package sysprobe

import (
	"os"
	"runtime"
	"testing"
)

// TestProbes: on Linux both probes read a value (the memory from
// /proc/meminfo or the cgroup, the free space of an existing directory);
// a directory that does not exist has no free space to report.
func TestProbes(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := DiskFree(t.TempDir()); ok {
			t.Error("DiskFree reports a value off Linux")
		}
		return
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil {
		if m := AvailableMemory(); m <= 0 {
			t.Errorf("AvailableMemory = %d with /proc/meminfo readable", m)
		}
	}
	if free, ok := DiskFree(t.TempDir()); !ok || free == 0 {
		t.Errorf("DiskFree(temporary directory) = %d, %v", free, ok)
	}
	if _, ok := DiskFree("/no/such/directory"); ok {
		t.Error("DiskFree reports a value for a directory that does not exist")
	}
}
