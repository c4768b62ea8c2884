package sweep

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse: any bytes either parse into a sweep whose runs all have ids, or
// give an error; never a panic or a hang.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../examples/sweep-small.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("base:\n  iters: 10\naxes:\n  seed: [1, 2]\n"))
	f.Add([]byte("base: {problem: auc}\naxes:\n  gamma_c: {logspace: [0.01, 1, 3]}\n  seed: {range: [1, 4]}\n"))
	f.Add([]byte("axes:\n  reg:\n    - {reg: l1, lambda: 0.1}\n    - {reg: none}\n"))
	f.Add([]byte("base:\n  iters: abc\n"))
	f.Add([]byte("- [a, b]\n"))
	// Numbers: YAML's non-decimal spellings, and range ends at the limits
	// of 64-bit integers (issue #15).
	f.Add([]byte("base:\n  iters: 010\n  gamma_c: 1_0.5\naxes:\n  seed: [0x10, 0o7, 0b1]\n"))
	f.Add([]byte("axes:\n  seed: {range: [18446744073709551610, 18446744073709551616]}\n"))
	f.Add([]byte("axes:\n  seed: {range: [18446744073709551615, 0, -9223372036854775808]}\n"))
	f.Add([]byte("axes:\n  iters: {range: [-9223372036854775809, 9223372036854775808, 9223372036854775807]}\n"))
	f.Add([]byte("base:\n  seed: 99999999999999999999999\n  gamma_c: 1e400\n"))
	// Sweeps of up to a million runs are legitimate but take seconds to
	// expand; the fuzzer explores the parser, not the expansion's size.
	maxRuns, maxAxisValues = 2000, 2000
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		sw, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		// Each run's id is its configuration's, ids are unique (Parse
		// refuses duplicates), runs are numbered in order, and a second parse
		// gives the same runs.
		seen := map[string]bool{}
		for i, r := range sw.Runs {
			if r.ID != RunID(r.Config) || seen[r.ID] || r.Index != i {
				t.Fatalf("run %d: id %q, index %d (id of its config %q, seen before: %v)", i, r.ID, r.Index, RunID(r.Config), seen[r.ID])
			}
			seen[r.ID] = true
		}
		again, err := Parse("fuzz.yaml", data)
		if err != nil || len(again.Runs) != len(sw.Runs) {
			t.Fatalf("a second parse differs: %v", err)
		}
		for i := range again.Runs {
			if again.Runs[i].ID != sw.Runs[i].ID {
				t.Fatalf("a second parse differs at run %d", i)
			}
		}
	})
}

// FuzzSlurmScript: whatever the values sweep slurm puts into the batch
// script, either Check refuses them or the script has exactly the lines of
// its template (no value ends the #SBATCH block or adds a command), and
// every quoted path reads back, by the POSIX quoting rules, as itself.
func FuzzSlurmScript(f *testing.F) {
	f.Add("/opt/pg/pairgossip", "/w/s.yaml", "/w", "/r", "--account=proj", "debug")
	f.Add("/opt/it's a \"dir\" $HOME `id`/pg", "/w/my 'sweep'.yaml", "/w/$(id)", "/r$x`id`", "--comment=a b", "")
	f.Add("/opt/pg", "/w/s.yaml", "/w", "/r", "--comment=x\ntouch INJECTED", "debug")
	f.Add("/opt/pg\nid", "/w/a\rb.yaml", "/w\x00", "/r\u2028x", "--qos=q\x85", "debug\nid")
	f.Add("/opt/pg", "/w/s.yaml", "/w", "/r %j", "account=proj", "a'b")
	ref := SlurmScript(SlurmOptions{Binary: "/b", SweepFile: "/s", WorkDir: "/w", ResultsDir: "/r", Tasks: 2, Time: "01:00:00",
		CPUsPerTask: 1, Partition: "p", Extra: []string{"--x"}, PlanHash: "h", Runs: 2, Name: "n"})
	refLines := strings.Count(ref, "\n")
	f.Fuzz(func(t *testing.T, bin, file, wd, dir, extra, partition string) {
		for _, s := range []string{bin, file, wd} {
			if got, ok := unquoteShell(ShellQuote(s)); !ok || got != s {
				t.Fatalf("ShellQuote(%q) = %s reads back as %q", s, ShellQuote(s), got)
			}
		}
		o := SlurmOptions{Binary: bin, SweepFile: file, WorkDir: wd, ResultsDir: dir, Tasks: 2, Time: "01:00:00",
			CPUsPerTask: 1, Partition: partition, Extra: []string{extra}, PlanHash: "h", Runs: 2, Name: "n"}
		if partition == "" {
			o.Partition = "p"
		}
		if o.Check() != nil {
			return
		}
		s := SlurmScript(o)
		if n := strings.Count(s, "\n"); n != refLines {
			t.Fatalf("the script has %d lines, its template %d:\n%s", n, refLines, s)
		}
		lines := strings.Split(s, "\n")
		for _, l := range lines[1:] {
			if l == "" {
				break // the end of the #SBATCH block
			}
			if !strings.HasPrefix(l, "#") {
				t.Fatalf("a command before the end of the #SBATCH block: %q\n%s", l, s)
			}
		}
	})
}

// unquoteShell reads one word written as ShellQuote writes it: bare
// characters and single-quoted parts ('...'), and \' between them.
func unquoteShell(w string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(w); {
		switch {
		case w[i] == '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case w[i] == '\\' && i+1 < len(w):
			b.WriteByte(w[i+1])
			i += 2
		case strings.IndexByte(" \t\n\"$`;&|<>()*?[#~", w[i]) >= 0:
			return "", false // special to the shell, unquoted
		default:
			b.WriteByte(w[i])
			i++
		}
	}
	if w == "" {
		return "", false // an empty word must be quoted ('')
	}
	return b.String(), true
}
