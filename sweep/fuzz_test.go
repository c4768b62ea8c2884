package sweep

import (
	"os"
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
