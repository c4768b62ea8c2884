package kernel

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestBuild: Build names the architecture and, on amd64, the GOAMD64 level
// the toolchain compiled for (GOAMD64 in the environment when set), and
// Fused is true exactly where Go fuses multiply-adds: amd64 from v3 on and
// every other architecture this module tests (arm64).
func TestBuild(t *testing.T) {
	b := Build()
	if runtime.GOARCH != "amd64" {
		if b != runtime.GOARCH || !Fused() {
			t.Fatalf("Build %q, Fused %v on %s", b, Fused(), runtime.GOARCH)
		}
		return
	}
	level := strings.TrimPrefix(b, "amd64.")
	if env := os.Getenv("GOAMD64"); env != "" && env != level || len(level) != 2 || level < "v1" || level > "v4" {
		// (GOAMD64 set by go env -w is not in the environment: then only
		// the form is checked.)
		t.Fatalf("Build %q, GOAMD64 %q", b, env)
	}
	if want := level >= "v3"; Fused() != want {
		t.Fatalf("Fused %v at GOAMD64=%s", Fused(), level)
	}
}
