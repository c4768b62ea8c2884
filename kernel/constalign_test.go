//go:build amd64

package kernel

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestConstTablesBroadcast checks how the generated assembly reads its
// file-local constant tables (name<>): no instruction on ZMM registers
// reads one as a 64-byte operand, and every other read stays within one
// constant's replicated lanes.
//
// The linker aligns a table to 32 bytes at most, so a 64-byte entry at an
// odd multiple of 32 is a load across two cache lines, and which one it
// is changes with every link (the paper-size round ran 8% slower with no
// change to its code). ZMM code reads constants by embedded broadcast
// (.BCST) or VBROADCASTSD, 8 bytes each (asm/main.go, logisticConsts);
// YMM and XMM operands read 32 and 16 bytes, which must be the same
// constant repeated (a table of 8-byte entries read so would take its
// neighbours), except the lane indices VPCMPGTQ compares with. LEAQ takes
// an address (the tail masks, read a byte at a time by KMOVB).
func TestConstTablesBroadcast(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated assembly found: %v", err)
	}
	dataRe := regexp.MustCompile(`^DATA\s+(\w+)<>\+(\d+)\(SB\)/8,\s+\$(\S+)$`)
	refRe := regexp.MustCompile(`(\w+)<>\+(\d+)\(SB\)`)
	reg := func(text, prefix string) bool {
		return regexp.MustCompile(`\b` + prefix + `[0-9]+\b`).MatchString(text)
	}
	checked := 0
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		data := map[string]map[int]string{} // table → byte offset → 8-byte word
		type use struct {
			line int
			text string
		}
		var uses []use
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			if m := dataRe.FindStringSubmatch(text); m != nil {
				if data[m[1]] == nil {
					data[m[1]] = map[int]string{}
				}
				off, _ := strconv.Atoi(m[2])
				data[m[1]][off] = m[3]
				continue
			}
			if strings.Contains(text, "<>+") && !strings.HasPrefix(text, "GLOBL") && !strings.HasPrefix(text, "DATA") {
				uses = append(uses, use{line, text})
			}
		}
		for _, u := range uses {
			op := strings.Fields(u.text)[0]
			if op == "LEAQ" {
				continue
			}
			m := refRe.FindStringSubmatch(u.text)
			tab := m[1]
			off, _ := strconv.Atoi(m[2])
			words := data[tab]
			if words == nil {
				t.Errorf("%s:%d: %q reads table %s, which has no DATA in this file", name, u.line, u.text, tab)
				continue
			}
			checked++
			width := 0
			switch {
			case strings.Contains(op, ".BCST") || op == "VBROADCASTSD" || strings.HasSuffix(op, "SD"):
				width = 8
			case op == "KMOVB":
				width = 1
			case reg(u.text, "Z"):
				t.Errorf("%s:%d: %q reads a constant table as a 64-byte ZMM operand", name, u.line, u.text)
				continue
			case reg(u.text, "Y"):
				width = 32
			case reg(u.text, "X"):
				width = 16
			default:
				t.Errorf("%s:%d: %q: cannot tell the width of the read", name, u.line, u.text)
				continue
			}
			if width == 1 {
				continue // a byte of a tail mask (declared /1, not checked here)
			}
			first, ok := words[off]
			if !ok || off%8 != 0 {
				t.Errorf("%s:%d: %q reads outside the 8-byte words of table %s", name, u.line, u.text, tab)
				continue
			}
			for b := 8; b < width; b += 8 {
				w, ok := words[off+b]
				if !ok {
					t.Errorf("%s:%d: %q reads %d bytes, past the end of table %s", name, u.line, u.text, width, tab)
					break
				}
				if w != first && op != "VPCMPGTQ" {
					t.Errorf("%s:%d: %q reads %d bytes at +%d of %s, which are not one constant repeated", name, u.line, u.text, width, off, tab)
					break
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no instruction reads a constant table: the check found nothing to check")
	}
}
