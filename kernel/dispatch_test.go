package kernel

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func TestImplementations(t *testing.T) {
	impls := Implementations()
	if len(impls) == 0 || impls[0] != "generic" {
		t.Fatalf("Implementations() = %v, want generic first", impls)
	}
	wantAVX2 := len(archCandidates) > 0 && cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)
	if slices.Contains(impls, "avx2") != wantAVX2 {
		t.Errorf("Implementations() = %v; avx2 expected: %v (CPU %s, AVX2 %v, FMA3 %v)", impls, wantAVX2,
			cpuid.CPU.BrandName, cpuid.CPU.Supports(cpuid.AVX2), cpuid.CPU.Supports(cpuid.FMA3))
	}
	wantAVX512 := len(archCandidates) > 1 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX2, cpuid.FMA3, cpuid.POPCNT)
	if slices.Contains(impls, "avx512") != wantAVX512 {
		t.Errorf("Implementations() = %v; avx512 expected: %v (CPU %s, AVX512F %v, AVX512DQ %v)", impls, wantAVX512,
			cpuid.CPU.BrandName, cpuid.CPU.Supports(cpuid.AVX512F), cpuid.CPU.Supports(cpuid.AVX512DQ))
	}
	if os.Getenv(EnvVar) == "" && Active() != impls[len(impls)-1] {
		t.Errorf("Active() = %s, want the preferred %s", Active(), impls[len(impls)-1])
	}
	// The list is a copy.
	impls[0] = "changed"
	if Implementations()[0] != "generic" {
		t.Error("Implementations returned the internal list")
	}
}

func TestSelectKernels(t *testing.T) {
	none := func(...cpuid.FeatureID) bool { return false }
	all := func(...cpuid.FeatureID) bool { return true }

	impls, active, err := selectKernels(none, "")
	if err != nil || len(impls) != 1 || active != generic {
		t.Errorf("CPU without features: %v, %s, %v; want only generic", names(impls), active.name, err)
	}
	impls, active, err = selectKernels(all, "")
	if err != nil || len(impls) != 1+len(archCandidates) || active != impls[len(impls)-1] {
		t.Errorf("CPU with every feature: %v, %s, %v", names(impls), active.name, err)
	}
	if _, active, err = selectKernels(all, "generic"); err != nil || active != generic {
		t.Errorf("env generic: %s, %v", active.name, err)
	}
	_, active, err = selectKernels(all, "bogus")
	if err == nil || !strings.Contains(err.Error(), `unknown kernel implementation "bogus"`) || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("env bogus: err = %v", err)
	}
	if active != impls[len(impls)-1] {
		t.Errorf("env bogus: active %s, want the default", active.name)
	}
	for _, f := range archCandidates {
		_, active, err = selectKernels(none, f.name)
		if err == nil || !strings.Contains(err.Error(), "not supported by this CPU") || active != generic {
			t.Errorf("env %s on a CPU without its features: %s, %v", f.name, active.name, err)
		}
	}
}

func TestUse(t *testing.T) {
	prev := Active()
	if err := Use("bogus"); err == nil {
		t.Error("Use(bogus) succeeded")
	}
	if Active() != prev {
		t.Errorf("failed Use changed Active to %s", Active())
	}
	for _, name := range Implementations() {
		withImpl(t, name, func() {
			if Active() != name {
				t.Errorf("after Use(%s), Active() = %s", name, Active())
			}
		})
	}
	if Active() != prev {
		t.Errorf("Active() = %s, want %s restored", Active(), prev)
	}
}

// TestEnvChild is run by TestEnvVar in a child process.
func TestEnvChild(t *testing.T) {
	if os.Getenv("PAIRGOSSIP_KERNEL_TEST_CHILD") != "1" {
		t.Skip("run by TestEnvVar")
	}
	fmt.Printf("active=%s err=%v\n", Active(), EnvError())
}

// TestEnvVar checks that PAIRGOSSIP_KERNEL is honoured at start-up, and that
// a bad value is reported and ignored.
func TestEnvVar(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	run := func(value string) (string, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvChild$", "-test.v")
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_KERNEL_TEST_CHILD=1", EnvVar+"="+value)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child with %s=%s: %v\n%s%s", EnvVar, value, err, out, stderr.String())
		}
		return string(out), stderr.String()
	}
	def := Implementations()[len(Implementations())-1]
	for _, name := range Implementations() {
		if out, _ := run(name); !strings.Contains(out, "active="+name+" err=<nil>") {
			t.Errorf("%s=%s: child says %q", EnvVar, name, out)
		}
	}
	out, stderr := run("bogus")
	if !strings.Contains(out, "active="+def+" err="+EnvVar+"=bogus: unknown") {
		t.Errorf("%s=bogus: child says %q", EnvVar, out)
	}
	if !strings.Contains(stderr, EnvVar+"=bogus") || !strings.Contains(stderr, "using "+def) {
		t.Errorf("%s=bogus: stderr %q lacks the warning", EnvVar, stderr)
	}
}
