package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHostileFlags: sizes that panicked or died out of memory are refused
// before any allocation, naming the flag or the memory needed, with exit
// status 2 (issue #15, item 2). The memory available is fixed at 8 GiB.
func TestHostileFlags(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 8 << 30 }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "--triad-n", "-5"}, "--triad-n must be >= 1, got -5"},
		{[]string{"sync", "--triad-n", "0"}, "--triad-n must be >= 1, got 0"},
		{[]string{"sync", "--n", "1000000000", "--d", "1000"}, "n = 1000000000, d = 1000 needs about"},
		{[]string{"sync", "--n", "1000", "--triad-n", "100000000000"}, "needs about 2.24e+03 GiB"},
		{[]string{"metric", "--d", "100000"}, "n = 1000, d = 100000 needs about"},
		{[]string{"async", "--n", "1000000000", "--d", "1000"}, "but only 8 GiB is available"},
		{[]string{"sync", "--workers", "9223372036854775807"}, "--workers must be <= 4096"},
		{[]string{"metric", "--workers", "100000000"}, "--workers must be <= 4096"},
		{[]string{"sync", "--n", "1"}, "--n must be >= 2"},
	} {
		var out, errb bytes.Buffer
		code := realMain(c.args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
