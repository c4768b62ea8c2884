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
