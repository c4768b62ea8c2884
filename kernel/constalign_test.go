//go:build amd64

package kernel

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConstTablesBroadcast checks the generated assembly: no instruction
// on ZMM registers reads a file-local constant table (name<>) as a 64-byte
// operand. The linker aligns a table to 32 bytes at most, so a 64-byte
// entry at an odd multiple of 32 is a load across two cache lines, and
// which one it is changes with every link (the paper-size round ran 8%
// slower with no change to its code). ZMM code reads constants by embedded
// broadcast (.BCST) or VBROADCASTSD from 8-byte entries (asm/main.go,
// logisticConsts); KMOVB reads a byte of a tail mask.
func TestConstTablesBroadcast(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated assembly found: %v", err)
	}
	zmm := regexp.MustCompile(`\bZ[0-9]+\b`)
	checked := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			if !strings.Contains(text, "<>+") || !zmm.MatchString(text) {
				continue
			}
			checked++
			op := strings.Fields(text)[0]
			if !strings.HasSuffix(op, ".BCST") && op != "VBROADCASTSD" {
				t.Errorf("%s:%d: %q reads a constant table as a 64-byte ZMM operand", name, line, text)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no ZMM instruction reads a constant table: the check found nothing to check")
	}
}
