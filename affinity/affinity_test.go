package affinity

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	if cpus, why := Plan(1); cpus != nil || why == "" {
		t.Fatalf("one worker: got %v, %q", cpus, why)
	}
	if !Supported {
		if cpus, why := Plan(2); cpus != nil || !strings.Contains(why, runtime.GOOS) {
			t.Fatalf("unsupported: got %v, %q", cpus, why)
		}
		return
	}
	allowed, err := Allowed()
	if err != nil || len(allowed) == 0 {
		t.Fatalf("Allowed: %v, %v", allowed, err)
	}
	if !slices.IsSorted(allowed) {
		t.Fatalf("Allowed not sorted: %v", allowed)
	}
	if cpus, why := Plan(len(allowed) + 1); cpus != nil || !strings.Contains(why, "CPU") {
		t.Fatalf("more workers than CPUs: got %v, %q", cpus, why)
	}
	if len(allowed) < 2 {
		t.Skip("one CPU")
	}
	old := runtime.GOMAXPROCS(1)
	cpus, why := Plan(2)
	runtime.GOMAXPROCS(old)
	if cpus != nil || !strings.Contains(why, "GOMAXPROCS") {
		t.Fatalf("GOMAXPROCS 1: got %v, %q", cpus, why)
	}
	if old >= 2 {
		if cpus, why := Plan(2); !slices.Equal(cpus, allowed[:2]) || why != "" {
			t.Fatalf("Plan(2) = %v, %q; want %v", cpus, why, allowed[:2])
		}
	}
}

// Pin restricts the thread to one CPU, and its undo restores the mask.
func TestPinRestores(t *testing.T) {
	if !Supported {
		if _, err := Pin(0); err == nil {
			t.Fatal("Pin succeeded without affinity support")
		}
		Pinning{}.Undo()
		return
	}
	before, err := Allowed()
	if err != nil {
		t.Fatal(err)
	}
	cpu := before[len(before)-1]
	done := make(chan struct{})
	go func() { // a goroutine of its own: Pin locks it to its thread
		defer close(done)
		pinned, err := Pin(cpu)
		if err != nil {
			t.Error(err)
			return
		}
		now, err := Allowed()
		if err != nil || !slices.Equal(now, []int{cpu}) {
			t.Errorf("pinned to %d: mask %v, %v", cpu, now, err)
		}
		pinned.Undo()
		after, err := Allowed()
		if err != nil || !slices.Equal(after, before) {
			t.Errorf("after unpin: mask %v, want %v (%v)", after, before, err)
		}
	}()
	<-done
	if _, err := Pin(-1); err == nil {
		t.Error("Pin(-1) succeeded")
	}
	Pinning{}.Undo() // the zero value does nothing
	if n := testing.AllocsPerRun(20, func() {
		p, err := Pin(cpu)
		if err == nil {
			p.Undo()
		}
	}); n != 0 {
		t.Errorf("Pin and Undo allocate %v times", n)
	}
}
