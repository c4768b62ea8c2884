package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip"
)

// FuzzRunFlags feeds random argument vectors (fields separated by NUL) to
// the flag parser and validation of pairgossip run, and to what is computed
// from an accepted configuration before any work (the data options, the
// memory estimate): none may panic, and every refusal is a one-line usage
// error (exit status 2). CI runs it for a bounded count (.ci/run); long runs
// by hand: scripts/fuzz.sh.
func FuzzRunFlags(f *testing.F) {
	for _, seed := range []string{
		"--iters\x0010\x00--out\x00o",
		"--iters\x00100\x00--log-points\x009223372036854775807\x00--out\x00o",
		"--log-points\x003000000000\x00--iters\x003000000000\x00--out\x00o",
		"--workers\x009223372036854775807\x00--out\x00o",
		"--workers=-1\x00--out=o",
		"--eval-nodes\x00-2\x00--out\x00o",
		"--graph-file\x00x\x00--out\x00o",
		"--graph\x00file\x00--out\x00o",
		"--gamma-c\x00NaN\x00--out\x00o",
		"--gamma-c\x00Inf\x00--out\x00o",
		"--iters\x000x10\x00--out\x00o",
		"--n\x009223372036854775807\x00--dim\x009223372036854775807\x00--data\x00synthetic-auc\x00--out\x00o",
		"--problem\x00metric\x00--data\x00synthetic-metric\x00--dim\x003037000500\x00--out\x00o",
		"--csv-header\x00yes\x00--out\x00o",
		"--drop-columns\x00,,\x00--label-name\x00y\x00--out\x00o",
		"--checkpoint-every\x00-1s\x00--out\x00o",
		"--radius\x000.3\x00--graph\x00geometric\x00--out\x00o",
		"--schedule\x00auto\x00--measure\x00sampled\x00--measure-precision\x001e308\x00--out\x00o",
		"-h",
		"positional",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		if len(args) > 64 {
			args = args[:64]
		}
		a, err := parseRunArgs(args, io.Discard)
		if err != nil {
			var ue usageError
			if !errors.Is(err, flag.ErrHelp) && !errors.As(err, &ue) {
				t.Fatalf("%q: %T %v is not a usage error", args, err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: a message of several lines: %q", args, err)
			}
			return
		}
		cfg := a.cfg.WithDefaults()
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%q: accepted, then invalid: %v", args, err)
		}
		cfg.LoadOptions()
		for _, n := range []int{2, 699, 1 << 30} {
			if m := pairgossip.EstimateMemory(cfg, n, max(cfg.Dim, 1), cfg.Workers); m.Total() < 0 {
				t.Fatalf("%q: negative memory estimate %+v at n = %d", args, m, n)
			}
		}
	})
}
