package pairgossip

import (
	"runtime"
	"strings"
	"testing"
)

// TestMemoryEstimateBeforeGenerating: case 11. A generated data set too
// large for the memory (metric learning at d = 2000: n·d² of state) is
// refused by the estimate before the generator allocates its 1.6 GB.
func TestMemoryEstimateBeforeGenerating(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 1 << 30 }
	cfg := DefaultConfig()
	cfg.Problem, cfg.Data, cfg.N, cfg.Dim, cfg.Classes = "metric", "synthetic-metric", 100000, 2000, 10
	cfg.Reg = ""
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Prepare(cfg)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "needs about") {
		t.Fatalf("err = %v; want the memory estimate's refusal", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("refused after allocating %d MiB", got>>20)
	}
}
