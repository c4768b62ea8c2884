package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
)

// TestPlotTwoRuns: two runs that differ by their seed (and one with
// --trace-nodes) plotted together: PNG and SVG of every panel, a page that
// names the differing parameter in the legend and highlights it, and
// labels that say seed=1 and seed=2; a folder that is not a run's output
// is refused with exit 2 and nothing written.
func TestPlotTwoRuns(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	base := []string{"run", "--iters", "300", "--log-points", "8", "--workers", "1"}
	for i, extra := range [][]string{{"--seed", "1"}, {"--seed", "2", "--trace-nodes"}} {
		args := append(append(append([]string{}, base...), extra...), "--out", filepath.Join(dir, []string{"a", "b"}[i]))
		if code, _, errOut := runCLI(args...); code != 0 {
			t.Fatalf("run %v: exit %d: %s", extra, code, errOut)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b", "nodes.csv")); err != nil || !strings.HasPrefix(string(b), "iter,node,degree,objective,auc\n") {
		t.Fatalf("--trace-nodes: nodes.csv %q (%v)", b[:min(len(b), 60)], err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "nodes.csv")); err == nil {
		t.Fatal("nodes.csv written without --trace-nodes")
	}
	out := filepath.Join(dir, "plots")
	code, stdout, errOut := runCLI("plot", filepath.Join(dir, "a"), filepath.Join(dir, "b"), "--out", out, "--html")
	if code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"objective", "suboptimality", "auc", "consensus", "bias"} {
		b, err := os.ReadFile(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatalf("%s.png: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() < 800 {
			t.Fatalf("%s.png: %v", name, err)
		}
		svg, err := os.ReadFile(filepath.Join(out, name+".svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("seed=2")) {
			t.Fatalf("%s.svg: no figure with the label seed=2 (%v)", name, err)
		}
		if !strings.Contains(stdout, name+".png") {
			t.Errorf("stdout does not list %s.png", name)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, "plot.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"told apart by <code>seed</code>", "seed=1", "seed=2", "data:image/png;base64,", "optimum", "lbfgs (cached)"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("plot.html lacks %q", want)
		}
	}
	if n := bytes.Count(page, []byte("<img ")); n != 5 {
		t.Errorf("plot.html has %d figures, want 5", n)
	}
	// The same folder again without --html: the earlier page is named as
	// not this plot's (left in place: the folder may be the user's).
	code, _, errOut = runCLI("plot", filepath.Join(dir, "a"), "--out", out)
	if code != 0 || !strings.Contains(errOut, "also holds plot.html, which this plot did not write") {
		t.Errorf("a second plot into the folder without --html: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = runCLI("plot", filepath.Join(dir, "a"), "--out", out, "--html"); code != 0 || strings.Contains(errOut, "which this plot did not write") {
		t.Errorf("the same figures again: exit %d, stderr %q", code, errOut)
	}
	// A run whose trace has its header only (its optimum known): nothing to
	// plot, exit 2, the file named.
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	sum, _ := os.ReadFile(filepath.Join(dir, "a", "summary.json"))
	tr, _ := os.ReadFile(filepath.Join(dir, "a", "trace.csv"))
	os.WriteFile(filepath.Join(empty, "summary.json"), sum, 0o644)
	os.WriteFile(filepath.Join(empty, "trace.csv"), tr[:bytes.IndexByte(tr, '\n')+1], 0o644)
	if code, _, errOut := runCLI("plot", empty, "--out", filepath.Join(dir, "plots3")); code != 2 ||
		!strings.Contains(errOut, "nothing to plot: the runs' traces have no rows ("+filepath.Join(empty, "trace.csv")+")") {
		t.Errorf("an empty trace: exit %d, stderr %q", code, errOut)
	}
	// A folder without a run's outputs: exit 2, named, nothing written.
	bad := filepath.Join(dir, "plots2")
	code, _, errOut = runCLI("plot", filepath.Join(dir, "a"), dir, "--out", bad)
	if code != 2 || !strings.Contains(errOut, filepath.Join(dir, "summary.json")) {
		t.Fatalf("a folder that is no run's: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Fatal("a refused plot created its --out")
	}
	if code, _, _ := runCLI("plot", filepath.Join(dir, "a")); code != 2 {
		t.Fatalf("plot without --out: exit %d", code)
	}
}

// TestHelpListsEveryCommand: pairgossip --help names every command the
// dispatcher runs.
func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runCLI("--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, c := range []string{"run", "gap", "reproduce", "plot", "sweep", "help"} {
		if !strings.Contains(out, "pairgossip "+c+" ") {
			t.Errorf("--help does not list %q", c)
		}
		if c == "help" {
			continue
		}
		if code, _, errOut := runCLI(c, "--help"); code != 0 || strings.Contains(errOut, "unknown command") {
			t.Errorf("%s --help: exit %d %s", c, code, errOut)
		}
	}
	for _, s := range []string{"plan", "run", "slurm", "merge", "status", "diff", "report"} {
		if !strings.Contains(out, s) {
			t.Errorf("--help does not list sweep %s", s)
		}
	}
}

// TestPlotFigureNames: the figures plot draws from a run with every column
// measured are exactly plotFigureNames, the list the leftover check reads
// (a figure added to plotSpecs but not there would never be reported as an
// earlier plot's leftover).
func TestPlotFigureNames(t *testing.T) {
	rec := engine.Record{Iter: 10, ObjMean: 1, AUCMean: 0.7, Consensus: 0.1, Bias: 0.01,
		ObjStdErr: math.NaN(), AUCStdErr: math.NaN(), BiasStdErr: math.NaN()}
	specs := plotSpecs([]*plotRun{{dir: "r", label: "r", trace: []engine.Record{rec}, optimum: 0.5}})
	var got []string
	for _, s := range specs {
		got = append(got, s.Name)
	}
	want := append([]string(nil), plotFigureNames...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("plotSpecs drew %v, plotFigureNames lists %v", got, want)
	}
}
