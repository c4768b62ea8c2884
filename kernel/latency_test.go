package kernel

import "testing"

// The chase's order is one cycle through every line: from line 0 it
// comes back to 0 after exactly `lines` steps.
func TestLatencyCycle(t *testing.T) {
	for _, lines := range []int64{2, 3, 17, 1000, 1 << 16} {
		next := latencyCycle(lines)
		k, steps := uint32(0), int64(0)
		for {
			k = next[k]
			steps++
			if k == 0 || steps > lines {
				break
			}
		}
		if steps != lines {
			t.Fatalf("lines=%d: back at line 0 after %d steps", lines, steps)
		}
	}
	if ns := LatencyNs(1000*64, 1000, 2); !(ns > 0) {
		t.Fatalf("LatencyNs: %v ns", ns)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("LatencyNs(64, …) did not panic")
		}
	}()
	LatencyNs(64, 1, 1)
}

// BenchmarkLatency is the probe over 1 GiB (main memory on most machines):
//
//	go test ./kernel -run '^$' -bench Latency -benchtime 1x -count 5
func BenchmarkLatency(b *testing.B) {
	var ns float64
	for b.Loop() {
		ns = LatencyNs(1<<30, 1<<21, 3)
	}
	b.ReportMetric(ns, "ns/load")
}
