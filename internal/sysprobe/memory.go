// Package sysprobe reads what the operating system says about this
// process's room: the memory it may still use (/proc/meminfo and the
// cgroup v2 limit) and the free space of a file system (statfs). The run's
// checks (pairgossip's memory estimate, output.SaveModel) and the commands
// call it; a probe that cannot read says so, and no check is made.
package sysprobe

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// AvailableMemory returns the memory this process may still use: the
// smaller of /proc/meminfo's MemAvailable and a cgroup v2 limit, or 0 when
// neither can be read (then no check is made).
func AvailableMemory() int64 {
	var avail int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(fs[1], 10, 64); err == nil {
					avail = kb * 1024
				}
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			cur := int64(0)
			if c, err := os.ReadFile("/sys/fs/cgroup/memory.current"); err == nil {
				cur, _ = strconv.ParseInt(strings.TrimSpace(string(c)), 10, 64)
			}
			if free := lim - cur; avail == 0 || free < avail {
				avail = free
			}
		}
	}
	return avail
}
