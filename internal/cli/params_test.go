package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/config"
)

// TestBindFlags: the flags' defaults are config.Default's (Reg: chosen by
// the problem), they set the fields, --schedule auto is the empty schedule,
// and the deprecated --radius sets the graph's radius with a warning.
func TestBindFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := config.Base()
	BindFlags(fs, &c, nil)
	def := config.Default()
	for _, p := range config.Params() {
		f := fs.Lookup(p.Flag)
		if f == nil {
			t.Errorf("no flag --%s", p.Flag)
			continue
		}
		want := fmt.Sprint(p.Get(&def))
		switch p.Field {
		case "Reg":
			want = "" // chosen by WithDefaults from the problem
		}
		if p.Auto != "" {
			want = p.Auto // the empty value's name
		}
		if f.DefValue != want {
			t.Errorf("--%s: default %q, want %q (config.Default)", p.Flag, f.DefValue, want)
		}
	}
	if err := fs.Parse([]string{"--iters", "77", "--graph", "cycle", "--radius", "0.25", "--ball-radius", "3",
		"--schedule", "auto", "--pin", "--gamma-c", "0.5", "--seed", "9"}); err != nil {
		t.Fatal(err)
	}
	if c.Iters != 77 || c.Graph != "cycle" || c.GraphR != 0.25 || c.Radius != 3 || c.Schedule != "" || !c.Pin || c.GammaC != 0.5 || c.Seed != 9 {
		t.Fatalf("parsed %+v", c)
	}
	if w := DeprecatedFlags(fs); len(w) != 1 || !strings.Contains(w[0], "--radius is deprecated: use --graph-radius") {
		t.Fatalf("warnings %q", w)
	}
	if err := fs.Parse([]string{"--schedule", "reduced"}); err != nil || c.Schedule != "reduced" {
		t.Fatalf("--schedule reduced: %v %q", err, c.Schedule)
	}

	// The graph group, as pairgossip gap binds it.
	gs := flag.NewFlagSet("gap", flag.ContinueOnError)
	BindFlags(gs, &c, func(p *config.Param) bool { return p.Group == "graph" })
	var names []string
	gs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if got := strings.Join(names, " "); got != "cols graph graph-file graph-radius graph-seed k p points-per-node radius rows" {
		t.Errorf("graph flags: %s", got)
	}
}

// TestNumbersAreDecimal: a number flag reads plain decimals only. Go's
// literal syntax, which flag.IntVar and strconv.ParseFloat take, would read
// --seed 010 as 8 (octal), --iters 0_1 and --loss 0_1 as 1, --n 0x10 as
// 16: each is refused naming the flag, and a leading zero is a decimal's.
func TestNumbersAreDecimal(t *testing.T) {
	parse := func(args ...string) (config.Config, error) {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c := config.Base()
		BindFlags(fs, &c, nil)
		return c, fs.Parse(args)
	}
	c, err := parse("--iters", "010", "--seed", "007", "--n", "0100", "--loss", "0.25", "--gamma-c", "1e-3")
	if err != nil || c.Iters != 10 || c.Seed != 7 || c.N != 100 || c.Loss != 0.25 || c.GammaC != 1e-3 {
		t.Fatalf("decimals: %v; iters %d seed %d n %d loss %v gamma-c %v", err, c.Iters, c.Seed, c.N, c.Loss, c.GammaC)
	}
	for _, args := range [][]string{
		{"--iters", "0_1"}, {"--iters", "1_000"}, {"--seed", "0x10"}, {"--n", "0b11"}, {"--n", "0o7"}, {"--iters", "1e3"},
		{"--seed", "-1"}, {"--loss", "0_1"}, {"--loss", "0x1p-2"}, {"--gamma-c", "1_0"},
	} {
		if _, err := parse(args...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%v: %v, want refused naming the flag", args, err)
		}
	}
	var b strings.Builder
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	c2 := config.Base()
	BindFlags(fs, &c2, nil)
	printDefaults(fs, &b)
	for _, want := range []string{"  -iters int\n", "  -seed uint\n", "  -loss float\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
