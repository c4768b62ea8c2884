package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile input to pairgossip sweep (issue #15): each case exits with the
// status README.md gives (2: a bad flag, file or database, named) and a
// message that names what is wrong.

// sweepCase is one command and what it must print on stderr.
type sweepCase struct {
	name string
	args []string
	want string // in the first line of stderr
	code int
}

func checkSweepCases(t *testing.T, cases []sweepCase) {
	t.Helper()
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != c.code || !strings.Contains(first, c.want) {
			t.Errorf("%s: %v: exit %d, stderr %q; want exit %d and %q", c.name, c.args, code, errs, c.code, c.want)
		}
		if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic:") {
			t.Errorf("%s: crashed:\n%s", c.name, errs)
		}
	}
}

// TestSweepHostileNumbers: sweep files accept only ordinary decimal
// numbers (010 is not 8) and seed ranges near 2⁶⁴ give exact messages.
func TestSweepHostileNumbers(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	octal := file("octal.yaml", "base:\n  iters: 010\n")
	hex := file("hex.yaml", "axes:\n  seed: [1, 0x10]\n")
	under := file("under.yaml", "base:\n  iters: 1_000\n")
	seedHi := file("seedhi.yaml", "axes:\n  seed: {range: [18446744073709551614, 18446744073709551616]}\n")
	seedAll := file("seedall.yaml", "axes:\n  seed: {range: [0, 18446744073709551615]}\n")
	checkSweepCases(t, []sweepCase{
		{"octal", []string{"sweep", "plan", octal}, `octal.yaml:2: key "iters": "010": a leading 0 is not accepted (YAML reads 010 as octal 8)`, 2},
		{"hexadecimal", []string{"sweep", "plan", hex}, `hex.yaml:2: axis "seed": key "seed": "0x10": hexadecimal, octal and binary numbers are not accepted`, 2},
		{"underscore", []string{"sweep", "run", under, "--results", filepath.Join(dir, "u.db")}, `under.yaml:2: key "iters": "1_000": underscores are not accepted`, 2},
		{"seed past 2^64-1", []string{"sweep", "plan", seedHi}, `seedhi.yaml:2: axis "seed": key "seed": range [18446744073709551614, 18446744073709551616]: 18446744073709551616 is out of range: expected a non-negative integer up to 18446744073709551615`, 2},
		{"2^64 seeds", []string{"sweep", "plan", seedAll}, `seedall.yaml:2: axis "seed": key "seed": range [0, 18446744073709551615]: 18446744073709551616 values, more than the limit 100000`, 2},
	})
	if _, err := os.Stat(filepath.Join(dir, "u.db")); err == nil {
		t.Error("a refused sweep file created its results database")
	}
	ok := file("seedtop.yaml", "axes:\n  seed: {range: [18446744073709551614, 18446744073709551615]}\n")
	if code, out, errs := runCLI("sweep", "plan", ok); code != 0 || !strings.Contains(out, "18446744073709551615") {
		t.Errorf("seeds at 2^64-1: exit %d %q %q", code, out, errs)
	}
}

// TestSweepHostileFileSize: sweep plan reads at most 16 MiB of a sweep file
// and lines of at most 1 MiB, also from devices and pipes, which have no
// size (sweep plan /dev/zero grew without limit).
func TestSweepHostileFileSize(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.yaml") // sparse: 17 MiB of size, no data written
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(17 << 20)
		f.Close()
	}
	long := filepath.Join(dir, "long.yaml")
	os.WriteFile(long, []byte("base:\n  iters: 10\nname: "+strings.Repeat("x", 1<<20)+"\n"), 0o644)
	cases := []sweepCase{
		{"17 MiB file", []string{"sweep", "plan", huge}, "huge.yaml: 17825792 bytes, more than a sweep file may have (16 MiB)", 2},
		{"1 MiB line", []string{"sweep", "plan", long}, "long.yaml:3: line longer than 1048576 bytes: not a sweep file", 2},
		{"folder", []string{"sweep", "plan", dir}, dir + ": is a directory", 2},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, sweepCase{"/dev/zero", []string{"sweep", "plan", "/dev/zero"}, "/dev/zero:1: line longer than 1048576 bytes: not a sweep file", 2})
	}
	checkSweepCases(t, cases)
}
