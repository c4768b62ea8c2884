package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/output"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The issue "Nothing silent, nothing lost": each case below ran and said
// "complete" (or lost a file) before; each now refuses, warns or errs.

// writePandasCSV writes what pandas' DataFrame.to_csv writes by default: an
// unnamed index column first, a header, the label not last.
func writePandasCSV(t *testing.T, path, indexName string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s,f1,f2,label,f3\n", indexName)
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "%d,%g,%g,%d,%g\n", i, float64(i%7)-3.5, float64(i%5)*0.25, (i*7+3)%3%2, float64(i%11)/3)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPandasIndexColumn: case 2. The unnamed first column pandas writes is
// refused by name with the flag that drops it; dropped, the data has the
// file's own features; a named column of row numbers is warned about.
func TestPandasIndexColumn(t *testing.T) {
	dir := t.TempDir()
	pd := filepath.Join(dir, "pd.csv")
	writePandasCSV(t, pd, "")
	base := []string{"run", "--data", pd, "--iters", "50", "--no-optimum", "--log-points", "2"}
	for _, extra := range [][]string{nil, {"--csv-header", "present", "--label-name", "label"}} {
		args := append(append(append([]string(nil), base...), extra...), "--out", filepath.Join(dir, "o1"))
		code, _, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, "--drop-columns 1") || !strings.Contains(stderr, "pandas") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --drop-columns 1", extra, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o1")); err == nil {
		t.Error("a refused run created --out")
	}
	out := filepath.Join(dir, "o2")
	code, _, stderr := runCLI(append(base, "--csv-header", "present", "--label-name", "label", "--drop-columns", "1", "--out", out)...)
	if code != 0 {
		t.Fatalf("with --drop-columns 1: exit %d: %s", code, stderr)
	}
	sum := readSummary(t, out)
	if d := sum.Data.D; d != 3 {
		t.Errorf("d = %d, want the file's 3 features", d)
	}
	named := filepath.Join(dir, "named.csv")
	writePandasCSV(t, named, "idx")
	code, _, stderr = runCLI("run", "--data", named, "--label-name", "label", "--iters", "50", "--no-optimum", "--log-points", "2", "--out", filepath.Join(dir, "o3"))
	if code != 0 || !strings.Contains(stderr, "warning:") || !strings.Contains(stderr, "row numbers") || !strings.Contains(stderr, "--drop-columns 1") {
		t.Errorf("a named index column: exit %d, stderr %q; want a warning naming --drop-columns 1", code, stderr)
	}
}

func readSummary(t *testing.T, out string) output.Summary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s output.Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOutputIsNotAnInput: case 3. An output path that is an input (the data
// file, by its name or a hard link, the graph file) or another output is
// refused before any work, and the input is untouched.
func TestOutputIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%g,%g,%d\n", float64(i%7)*0.3, float64(i%3)-1, i%2)
	}
	os.WriteFile(data, []byte(b.String()), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Link(data, link); err != nil {
		t.Fatal(err)
	}
	edges := filepath.Join(dir, "edges.txt")
	var e strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&e, "%d %d\n", i, (i+1)%40)
	}
	os.WriteFile(edges, []byte(e.String()), 0o644)
	want, _ := os.ReadFile(data)
	wantEdges, _ := os.ReadFile(edges)
	out := filepath.Join(dir, "out")
	base := []string{"run", "--data", data, "--iters", "50", "--no-optimum", "--log-points", "2"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--checkpoint", data, "--out", out}, "--checkpoint " + data + ": is --data"},
		{[]string{"--checkpoint", link, "--out", out}, "is --data"},
		{[]string{"--checkpoint", filepath.Join(out, "trace.csv"), "--out", out}, "is also --out's trace.csv"},
		{[]string{"--out", dir, "--checkpoint", filepath.Join(dir, "c.ckpt"), "--save-model=" + dir, "--graph", "file", "--graph-file", filepath.Join(dir, "theta_bar.npy")}, "is --graph-file"},
		{[]string{"--graph", "file", "--graph-file", edges, "--checkpoint", edges, "--out", out}, "is --graph-file"},
		{[]string{"--checkpoint", filepath.Join(dir, "sub", "..", "d.csv"), "--out", out}, "is --data"},
	}
	for _, c := range cases {
		if c.want == "is --graph-file" && strings.Contains(strings.Join(c.args, " "), "theta_bar") {
			os.WriteFile(filepath.Join(dir, "theta_bar.npy"), wantEdges, 0o644)
		}
		code, _, stderr := runCLI(append(append([]string(nil), base...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if got, _ := os.ReadFile(data); !bytes.Equal(got, want) {
		t.Error("the data file was changed")
	}
	if got, _ := os.ReadFile(edges); !bytes.Equal(got, wantEdges) {
		t.Error("the graph file was changed")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created --out")
	}
	// --resume and --checkpoint naming one file is the usual way to go on.
	ck := filepath.Join(dir, "c.ckpt")
	if code, _, stderr := runCLI(append(base, "--checkpoint", ck, "--out", out)...); code != 0 {
		t.Fatalf("checkpointed run: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(append(base, "--resume", ck, "--checkpoint", ck, "--out", out)...); code != 0 {
		t.Fatalf("resume into the same checkpoint: %d %s", code, stderr)
	}
}

// TestStaleModelRemoved: case 4. A second run into the same --out without
// --save-model removes (and says so) the first run's model files, which
// would otherwise sit beside the new summary as if they were its.
func TestStaleModelRemoved(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"run", "--iters", "50", "--no-optimum", "--log-points", "2", "--out", out}
	if code, _, stderr := runCLI(append(base, "--save-model")...); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	for _, f := range []string{output.ModelNodesFile, output.ModelMeanFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("first run wrote no %s", f)
		}
	}
	code, _, stderr := runCLI(append(base, "--seed", "2")...)
	if code != 0 {
		t.Fatalf("second run: %d %s", code, stderr)
	}
	for _, f := range []string{output.ModelNodesFile, output.ModelMeanFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s of the first run left beside the second's summary", f)
		}
		if !strings.Contains(stderr, "removed "+filepath.Join(out, f)) {
			t.Errorf("the removal of %s not said: %q", f, stderr)
		}
	}
	// A third run with the model keeps its own files.
	if code, _, stderr := runCLI(append(base, "--save-model")...); code != 0 || strings.Contains(stderr, "removed") {
		t.Fatalf("third run: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, output.ModelNodesFile)); err != nil {
		t.Error("the third run's model is missing")
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("no space left on device") }

// TestResultWriteFails: case 5. A result that cannot be written to stdout
// (run --json > /dev/full) is an error, not exit 0 with nothing said.
func TestResultWriteFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, extra := range [][]string{{"--json"}, nil} {
		var errb bytes.Buffer
		args := append([]string{"run", "--iters", "50", "--no-optimum", "--log-points", "2", "--out", out}, extra...)
		code := realMain(args, failWriter{}, &errb)
		if code == 0 || !strings.Contains(errb.String(), "standard output") {
			t.Errorf("%v to a full stdout: exit %d, stderr %q", extra, code, errb.String())
		}
	}
	if f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		defer f.Close()
		var errb bytes.Buffer
		if code := realMain([]string{"run", "--iters", "50", "--no-optimum", "--log-points", "2", "--json", "--out", out}, f, &errb); code == 0 {
			t.Errorf("--json > /dev/full: exit 0, stderr %q", errb.String())
		}
	}
}

// TestItersBound: case 6. --iters past 2^53 is refused with its reason.
func TestItersBound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("run", "--iters", "9223372036854775807", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--iters must be <= 2^53") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("run", "--iters", "9007199254740993", "--out", out)
	if code != 2 {
		t.Errorf("2^53+1: exit %d, stderr %q", code, stderr)
	}
}

// TestSaveModelCheckedFirst: case 11. A --save-model directory that cannot
// be made (a path through a file) is refused before the run, with nothing
// written into --out.
func TestSaveModelCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o644)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--iters", "50", "--no-optimum", "--log-points", "2", "--save-model="+filepath.Join(file, "m"), "--out", out)
	if code != 2 || !strings.Contains(stderr, "--save-model") {
		t.Errorf("exit %d, stderr %q; want 2 naming --save-model", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused run created --out")
	}
}

// TestSmallerCases: the smaller items. A symbolic-link loop and a
// dangling link are named as such (not "no such file"); data whose pair
// terms overflow is refused naming the value (not a divergence blaming the
// step size); summary.json records which text label is the positive class.
func TestSmallerCases(t *testing.T) {
	dir := t.TempDir()
	la, lb := filepath.Join(dir, "la"), filepath.Join(dir, "lb")
	os.Symlink(la, lb)
	os.Symlink(lb, la)
	dangle := filepath.Join(dir, "dangle")
	os.Symlink(filepath.Join(dir, "nothing.csv"), dangle)
	huge := filepath.Join(dir, "huge.csv")
	text := filepath.Join(dir, "text.csv")
	var h, tx strings.Builder
	tx.WriteString("a,b,label\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&h, "%de307,%d,%d\n", i%7, i%3, i%2)
		fmt.Fprintf(&tx, "%d,%d,%s\n", i%7, i%3, []string{"benign", "malignant"}[i%2])
	}
	os.WriteFile(huge, []byte(h.String()), 0o644)
	os.WriteFile(text, []byte(tx.String()), 0o644)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", la}, "a loop of symbolic links"},
		{[]string{"--data", dangle}, "a symbolic link to"},
		{[]string{"--data", huge}, "rescale the data"},
		{[]string{"--data", huge, "--problem", "metric"}, "Mahalanobis"},
	} {
		code, _, stderr := runCLI(append([]string{"run", "--iters", "50", "--no-optimum", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "gamma-c") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCLI("run", "--data", text, "--iters", "50", "--no-optimum", "--log-points", "2", "--out", out); code != 0 {
		t.Fatalf("text labels: %d %s", code, stderr)
	}
	if got := readSummary(t, out).Data.PositiveClass; got != "malignant" {
		t.Errorf("positive_class = %q, want malignant", got)
	}
}

// TestLabelsFileIsAnInput: --labels-file is an input of the run, so an
// output named like it (here --write-edges, or the checkpoint) is refused.
func TestLabelsFileIsAnInput(t *testing.T) {
	dir := t.TempDir()
	lab := filepath.Join(dir, "y.npy")
	os.WriteFile(lab, []byte("labels"), 0o644)
	for _, a := range []*runArgs{
		{cfg: pairgossip.Config{Data: "synthetic-auc", LabelsFile: lab, WriteEdges: lab}, out: filepath.Join(dir, "out")},
		{cfg: pairgossip.Config{Data: "synthetic-auc", LabelsFile: lab}, out: filepath.Join(dir, "out"), ckpt: lab},
	} {
		if err := checkDistinct(runPaths(a)); err == nil || !strings.Contains(err.Error(), "--labels-file") {
			t.Errorf("%+v: %v, want a refusal naming --labels-file", a.cfg, err)
		}
	}
}
