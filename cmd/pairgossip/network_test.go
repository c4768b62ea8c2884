package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/filelock"
	"github.com/pairgossip/pairgossip/output"
)

// netRun runs `pairgossip run` on the paper's AUC set with the given extra
// flags into a new folder, and returns it.
func netRun(t *testing.T, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"run", "--seed", "4", "--no-optimum", "--iters", "400", "--log-points", "12", "--out", out}, extra...)
	if code, _, stderr := runCLI(args...); code != 0 {
		t.Fatalf("%v: exit %d: %s", extra, code, stderr)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNetworkFlagsRefused: each network flag with a bad value, or where it
// does not apply, exits 2 with one line naming it.
func TestNetworkFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stream := filepath.Join(dir, "s.txt")
	os.WriteFile(stream, []byte("1 0 1\n2 0 7\n"), 0o644)
	badStream := filepath.Join(dir, "bad.txt")
	os.WriteFile(badStream, []byte("1 0 1\n1 2 3\n"), 0o644)
	sess := filepath.Join(dir, "sess.txt")
	os.WriteFile(sess, []byte("0 5 3\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--loss", "1.5"}, "--loss must be in [0, 1], got 1.5"},
		{[]string{"--loss", "x"}, `invalid value "x" for flag -loss`},
		{[]string{"--loss", "1e-400"}, `invalid value "1e-400" for flag -loss: 1e-400 is not zero but below the smallest float64 (4.9e-324): it would be read as 0`},
		{[]string{"--loss", "1e999"}, `invalid value "1e999" for flag -loss: value out of range`},
		{[]string{"--loss-oneway"}, "--loss-oneway: does not apply: it splits the loss of --loss into two directions, but --loss is 0"},
		{[]string{"--churn", "weibull:up=3,down=4"}, `--churn: unknown distribution "weibull"`},
		{[]string{"--churn", "file:" + sess}, "sess.txt:1"},
		{[]string{"--delay", "constant:3"}, "--delay: does not apply: delays apply to the asynchronous algorithm"},
		{[]string{"--algo", "async", "--delay", "geometric:mean=2"}, "--delay"},
		{[]string{"--graph-schedule", "10"}, "--graph-schedule: phase 1"},
		{[]string{"--graph-schedule", "10:cycle:n=5"}, "--graph-schedule: phase 1 (cycle(n=5)) has 5 nodes; the run has 699"},
		{[]string{"--link-up", "0.5"}, "--link-up: does not apply"},
		// 0 is the Go API's unset (every link up): given, it would read as
		// every link down and run the opposite.
		{[]string{"--graph-schedule", "100:cycle", "--link-up", "0"}, `invalid value "0" for flag -link-up: 0 is not accepted`},
		{[]string{"--graph-schedule", "100:cycle", "--link-up", "-0"}, "--loss 1"},
		{[]string{"gap", "--link-up", "0"}, "0 is not accepted"},
		{[]string{"--edge-stream", filepath.Join(dir, "none.txt")}, "--edge-stream"},
		{[]string{"--edge-stream", badStream}, "bad.txt:2"},
		{[]string{"--edge-stream", stream, "--stream-p", "empirical", "--iters", "3"}, "--edge-stream: " + stream + " ends at iteration 2"},
		{[]string{"--stream-p", "empirical"}, "--stream-p: does not apply"},
		{[]string{"--activation", "bogus"}, "--activation"},
		{[]string{"--algo", "centralized", "--write-edges", filepath.Join(dir, "e.txt")}, "--write-edges: does not apply"},
		{[]string{"--edge-stream", stream, "--write-edges", stream}, "--write-edges " + stream + ": is --edge-stream"},
		{[]string{"--loss", "0.1", "--write-edges", filepath.Join(out, "trace.csv")}, "two outputs cannot share a file"},
		{[]string{"--loss", "0.1", "--write-edges", out}, "--write-edges " + out + ": is also --out (" + out + "): two outputs cannot share a file"},
		{[]string{"--loss", "0.1", "--write-edges", filepath.Join(dir, "e.txt"), "--resume", filepath.Join(dir, "ck")}, "--write-edges with --resume"},
		{[]string{"--algo", "centralized", "--churn", "geometric:up=5,down=5"}, "--churn: does not apply: the centralized algorithm"},
	} {
		args := append([]string{"run", "--iters", "100", "--no-optimum", "--out", out}, c.args...)
		if c.args[0] == "gap" {
			args = c.args
		}
		code, _, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestLossZeroIsToday: --loss 0 (a knob at its default) gives today's
// trace.csv and summary.json, byte for byte but the timings, with no
// network columns.
func TestLossZeroIsToday(t *testing.T) {
	for _, algo := range []string{"sync", "async"} {
		a := netRun(t, "--algo", algo)
		b := netRun(t, "--algo", algo, "--loss", "0", "--link-up", "1", "--activation", "edges")
		ta, tb := readFile(t, filepath.Join(a, "trace.csv")), readFile(t, filepath.Join(b, "trace.csv"))
		if !bytes.Equal(ta, tb) {
			t.Errorf("%s: --loss 0 changes trace.csv", algo)
		}
		if bytes.Contains(ta, []byte("exchanges")) || bytes.Contains(readFile(t, filepath.Join(b, "summary.json")), []byte(`"network"`)) {
			t.Errorf("%s: the paper's network has network columns or a network object", algo)
		}
	}
}

// TestLossOneFreezes: --loss 1 never exchanges, so for AUC y_k = x_k and
// every gradient is zero: objective_mean stays at its first value; the
// trace's columns count the attempts and no delivery.
func TestLossOneFreezes(t *testing.T) {
	for _, algo := range []string{"sync", "async"} {
		out := netRun(t, "--algo", algo, "--loss", "1")
		tr, err := output.ReadTraceCSV(bytes.NewReader(readFile(t, filepath.Join(out, "trace.csv"))))
		if err != nil {
			t.Fatal(err)
		}
		if len(tr) < 3 {
			t.Fatalf("%d records", len(tr))
		}
		for _, r := range tr {
			if r.ObjMean != tr[0].ObjMean || r.Delivered != 0 || r.Attempted != r.Iter && algo == "async" || r.Online != 699 {
				t.Errorf("%s: %+v (first objective %v)", algo, r, tr[0].ObjMean)
			}
		}
	}
}

// TestNetworkTraceAndSummary: with a model the trace ends with the network
// columns and summary.json has the network object: the model, its knobs,
// the effective gap beside the perfect one ((1 − q)² × under churn... here
// loss only: exactly 1 − q), the counters of the last measurement.
func TestNetworkTraceAndSummary(t *testing.T) {
	out := netRun(t, "--loss", "0.3")
	lines := strings.Split(string(readFile(t, filepath.Join(out, "trace.csv"))), "\n")
	if want := strings.Join(output.TraceHeaderNetwork(), ","); lines[0] != want {
		t.Fatalf("header %q, want %q", lines[0], want)
	}
	tr, err := output.ReadTraceCSV(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	last := tr[len(tr)-1]
	if last.Iter != 400 || last.Attempted != 400 || last.Delivered <= 200 || last.Delivered >= 360 || last.OneWay != 0 || last.Online != 699 {
		t.Errorf("last record %+v", last)
	}
	var s struct {
		Network *output.NetworkInfo `json:"network"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	n := s.Network
	if n == nil {
		t.Fatal("no network object")
	}
	if n.Model != "--loss 0.3" || n.Knobs["loss"] != 0.3 || n.GapMethod != "dense × (1 − q)" || n.Attempted != 400 || n.Delivered != last.Delivered {
		t.Errorf("network %+v", n)
	}
	if r := float64(n.EffectiveGap) / float64(n.PerfectGap); math.Abs(r-0.7) > 1e-9 || math.Abs(float64(n.GapRatio)-r) > 1e-12 {
		t.Errorf("effective/perfect = %v, want 0.7", r)
	}
	if n.MessagesInFlight != nil || n.Knobs["link_up"] != 1.0 {
		t.Errorf("without delays: messages_in_flight %v (want absent), knobs.link_up %v (unset: every link up, 1)", n.MessagesInFlight, n.Knobs["link_up"])
	}
}

// TestMessagesInFlight: under delays the exchanges are counted when sent,
// and summary.json says how many messages had not arrived at the end: a
// constant delay of 399 events over 400 leaves every message but event 1's
// two in flight (no loss, no churn).
func TestMessagesInFlight(t *testing.T) {
	out := netRun(t, "--algo", "async", "--delay", "constant:399")
	var s struct {
		Network *output.NetworkInfo `json:"network"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	n := s.Network
	if n == nil || n.MessagesInFlight == nil {
		t.Fatalf("network %+v: no messages_in_flight", n)
	}
	if n.Delivered != 400 || *n.MessagesInFlight != 2*399 {
		t.Errorf("delivered %d (want 400, counted when sent), in flight %d (want %d)", n.Delivered, *n.MessagesInFlight, 2*399)
	}
}

// TestWriteEdgesReplays: a stream written by --write-edges, replayed with
// --edge-stream and the same flags, gives the same trace.csv; the file has
// the header and one line per iteration.
func TestWriteEdgesReplays(t *testing.T) {
	for _, algo := range []string{"sync", "async"} {
		edges := filepath.Join(t.TempDir(), "edges.txt")
		a := netRun(t, "--algo", algo, "--loss", "0.2", "--churn", "geometric:up=200,down=20", "--write-edges", edges)
		b := netRun(t, "--algo", algo, "--loss", "0.2", "--churn", "geometric:up=200,down=20", "--edge-stream", edges)
		if !bytes.Equal(readFile(t, filepath.Join(a, "trace.csv")), readFile(t, filepath.Join(b, "trace.csv"))) {
			t.Errorf("%s: the replay differs from the run that wrote the stream", algo)
		}
		text := string(readFile(t, edges))
		if !strings.HasPrefix(text, "# pairgossip edge stream") || !strings.Contains(text, "# seed 4\n") || !strings.Contains(text, "--loss 0.2") {
			t.Errorf("%s: header %q", algo, text[:min(200, len(text))])
		}
		if n := strings.Count(text, "\n") - strings.Count(text, "#"); n != 400 {
			t.Errorf("%s: %d activations, want 400", algo, n)
		}
		// The replay with the writer's seed and model warns of nothing; with
		// another seed or model it says it is not that run.
		if w := summaryWarnings(t, b); len(w) != 0 {
			t.Errorf("%s: the faithful replay warns %q", algo, w)
		}
		// A replay that writes the stream again names the stream it
		// replays apart from its model: replaying that copy is the same
		// run, and warns of nothing either.
		again := filepath.Join(t.TempDir(), "again.txt")
		c := netRun(t, "--algo", algo, "--loss", "0.2", "--churn", "geometric:up=200,down=20", "--edge-stream", edges, "--write-edges", again)
		d := netRun(t, "--algo", algo, "--loss", "0.2", "--churn", "geometric:up=200,down=20", "--edge-stream", again)
		if !bytes.Equal(readFile(t, filepath.Join(c, "trace.csv")), readFile(t, filepath.Join(d, "trace.csv"))) {
			t.Errorf("%s: the replay of a stream written by a replay differs", algo)
		}
		if w := summaryWarnings(t, d); len(w) != 0 || !strings.Contains(string(readFile(t, again)), "# replaying --edge-stream "+edges+"\n") {
			t.Errorf("%s: the replay of a re-written stream warns %q", algo, w)
		}
		for _, flags := range [][]string{
			{"--seed", "5", "--loss", "0.2", "--churn", "geometric:up=200,down=20"},
			{"--loss", "0.3", "--churn", "geometric:up=200,down=20"},
			{"--churn", "geometric:up=200,down=20"},
			{"--loss", "0.2", "--churn", "geometric:up=200,down=20", "--stream-p", "empirical"}, // the writer's p_k were the graph's
		} {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--seed", "4", "--no-optimum", "--iters", "400", "--log-points", "12", "--out", out,
				"--algo", algo, "--edge-stream", edges}, flags...)
			code, _, stderr := runCLI(args...)
			if code != 0 || !strings.Contains(stderr, "was written by a run with seed 4 and network --loss 0.2 --churn geometric:up=200,down=20") ||
				!strings.Contains(stderr, "it is not that run") {
				t.Errorf("%s %v: exit %d, stderr %q: want the replay's warning", algo, flags, code, stderr)
			}
			if slices.Contains(flags, "empirical") {
				var s struct{ Network struct{ Model string } }
				json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s)
				if !strings.HasSuffix(s.Network.Model, " --stream-p empirical") {
					t.Errorf("%s: summary.json's network.model %q does not say --stream-p empirical", algo, s.Network.Model)
				}
			}
		}
	}
}

// summaryWarnings returns the warnings of the summary.json in out.
func summaryWarnings(t *testing.T, out string) []string {
	t.Helper()
	var s struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	return s.Warnings
}

// TestGapNetwork: pairgossip gap with --loss 0.5 prints half the graph's gap
// beside it, in text and JSON; --churn with 10% offline, 0.81 of it.
func TestGapNetwork(t *testing.T) {
	code, stdout, stderr := runCLI("gap", "--graph", "watts-strogatz", "--n", "200", "--loss", "0.5", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var g struct {
		Gap, Eff, Ratio float64
		Network         string
	}
	var m map[string]any
	json.Unmarshal([]byte(stdout), &m)
	g.Gap, g.Eff, g.Ratio, g.Network = m["spectral_gap"].(float64), m["effective_gap"].(float64), m["effective_gap_ratio"].(float64), m["network"].(string)
	if math.Abs(g.Eff/g.Gap-0.5) > 1e-9 || math.Abs(g.Ratio-0.5) > 1e-9 || g.Network != "--loss 0.5" {
		t.Errorf("got %+v", g)
	}
	code, stdout, stderr = runCLI("gap", "--graph", "cycle", "--n", "100", "--churn", "geometric:up=90,down=10")
	if code != 0 || !strings.Contains(stdout, "effective gap 1 − λ₂(W̄) = ") || !strings.Contains(stdout, "0.81 × the graph's") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
	// Without a knob, gap prints what it printed.
	_, stdout, _ = runCLI("gap", "--graph", "cycle", "--n", "100")
	if strings.Contains(stdout, "effective") {
		t.Errorf("the paper's network: %s", stdout)
	}
	// Knobs that do not apply are refused as run refuses them; --iters
	// only with a churn file.
	for flag, c := range map[string][]string{"--loss-oneway": {"--loss-oneway"}, "--stream-p": {"--stream-p", "empirical"},
		"--iters": {"--loss", "0.1", "--iters", "5"}} {
		code, _, stderr := runCLI(append([]string{"gap", "--n", "50"}, c...)...)
		if code != 2 || !strings.Contains(stderr, flag+": does not apply") && !strings.Contains(stderr, flag+" does not apply") {
			t.Errorf("gap %v: exit %d: %s", c, code, stderr)
		}
	}
	// Edges almost never active: a tiny gap, not an eigensolver panic.
	code, stdout, stderr = runCLI("gap", "--graph", "watts-strogatz", "--n", "100", "--link-up", "1e-300", "--graph-schedule", "100:cycle", "--json")
	if code != 0 || !strings.Contains(stdout, "effective_gap") {
		t.Errorf("--link-up 1e-300: exit %d: %s %s", code, stdout, stderr)
	}
	// A churn file: over the run's --iters, not only the file's span.
	cf := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(cf, []byte("0 1 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, span, _ := runCLI("gap", "--graph", "cycle", "--n", "20", "--churn", "file:"+cf, "--json")
	_, run, _ := runCLI("gap", "--graph", "cycle", "--n", "20", "--churn", "file:"+cf, "--iters", "300", "--json")
	var a, b map[string]any
	json.Unmarshal([]byte(span), &a)
	json.Unmarshal([]byte(run), &b)
	if a["effective_gap"] != 0.0 || !(b["effective_gap"].(float64) > 0) {
		t.Errorf("churn file: over its span %v, over 300 iterations %v", a["effective_gap"], b["effective_gap"])
	}
	// A schedule over --iters weighs the phases the run takes, as the
	// run's summary.json does: a run within the first phase has its gap.
	sched := []string{"--graph-schedule", "500:watts-strogatz:k=4,p=0.2;500:cycle"}
	_, whole, _ := runCLI(append([]string{"gap", "--n", "60", "--json"}, sched...)...)
	_, short, _ := runCLI(append([]string{"gap", "--n", "60", "--json", "--iters", "200"}, sched...)...)
	out := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runCLI(append([]string{"run", "--data", "synthetic-auc", "--n", "60", "--iters", "200", "--no-optimum", "--out", out}, sched...)...); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	var s struct {
		Network struct {
			EffectiveGap float64 `json:"effective_gap"`
		} `json:"network"`
	}
	json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s)
	a, b = nil, nil
	json.Unmarshal([]byte(whole), &a)
	json.Unmarshal([]byte(short), &b)
	if g, ok := b["effective_gap"].(float64); !ok || g != s.Network.EffectiveGap || g == a["effective_gap"] {
		t.Errorf("schedule: gap --iters 200 %v, run --iters 200 %v, gap over the cycle %v", b["effective_gap"], s.Network.EffectiveGap, a["effective_gap"])
	}
}

// TestHelpTeachesNetwork: run --help explains every network flag.
func TestHelpTeachesNetwork(t *testing.T) {
	_, _, stderr := runCLI("run", "--help")
	for _, f := range []string{"-loss ", "-loss-oneway", "-churn ", "-delay ", "-graph-schedule ", "-link-up ", "-edge-stream ", "-stream-p ", "-write-edges ", "-activation "} {
		if !strings.Contains(stderr, f) {
			t.Errorf("run --help lacks %s", f)
		}
	}
}

// TestWriteEdgesPerfect: --write-edges on the paper's network leaves the
// run of its schedule as it is (trace.csv byte for byte, no network
// columns; auto then picks an executor that draws through the network's
// hook, plain rather than reduced for sync, which agree to rounding), and
// the stream replayed gives the same trace (its network columns aside: a
// replay is a network model).
func TestWriteEdgesPerfect(t *testing.T) {
	for _, algo := range []string{"sync", "async"} {
		edges := filepath.Join(t.TempDir(), "edges.txt")
		base := netRun(t, "--algo", algo, "--schedule", "plain")
		a := netRun(t, "--algo", algo, "--schedule", "plain", "--write-edges", edges)
		b := netRun(t, "--algo", algo, "--schedule", "plain", "--edge-stream", edges)
		ta := readFile(t, filepath.Join(a, "trace.csv"))
		if !bytes.Equal(ta, readFile(t, filepath.Join(base, "trace.csv"))) {
			t.Errorf("%s: --write-edges changes the run", algo)
		}
		strip := func(b []byte) string {
			var out []string
			for _, l := range strings.Split(string(b), "\n") {
				f := strings.Split(l, ",")
				out = append(out, strings.Join(f[:min(len(f), len(output.TraceHeader()))], ","))
			}
			return strings.Join(out, "\n")
		}
		if strip(ta) != strip(readFile(t, filepath.Join(b, "trace.csv"))) {
			t.Errorf("%s: the replay of the paper's network differs", algo)
		}
	}
}

// TestWriteEdgesSpaceAndLeftovers: a --write-edges stream that cannot fit
// the free space is refused before the run (it failed at the full disk,
// the run's work lost), warned about under --stop-at; the temporary file
// a killed run left beside the stream is removed by the next run (it
// stayed for good), and the stream is held while a run writes it.
func TestWriteEdgesSpaceAndLeftovers(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "e.txt")
	saved := streamFree
	defer func() { streamFree = saved }()
	// 3000 iterations of "tttt iii jjj\n": 13 bytes a line at n = 300.
	streamFree = func(string) (uint64, bool) { return 30000, true }
	args := []string{"run", "--data", "synthetic-auc", "--n", "300", "--iters", "3000", "--no-optimum", "--loss", "0.2", "--write-edges", edges}
	code, _, stderr := runCLI(append(args, "--out", filepath.Join(dir, "a"))...)
	if code != 2 || !strings.Contains(stderr, "--write-edges: the stream of 3000 iterations takes up to") || !strings.Contains(stderr, "13 bytes a line") {
		t.Fatalf("no space: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("the refused run made --out")
	}
	// Not --no-optimum: --stop-at needs the optimum.
	code, _, stderr = runCLI("run", "--data", "synthetic-auc", "--n", "300", "--iters", "3000", "--loss", "0.2", "--write-edges", edges,
		"--out", filepath.Join(dir, "b"), "--stop-at", "0.5")
	if code != 0 || !strings.Contains(stderr, "warning: --write-edges: the stream of 3000 iterations") {
		t.Fatalf("--stop-at: exit %d, %q", code, stderr)
	}
	streamFree = func(string) (uint64, bool) { return 1 << 40, true }
	left := filepath.Join(dir, ".e.txt.tmp-12345")
	if err := os.WriteFile(left, []byte("1 0 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(append(args, "--out", filepath.Join(dir, "c"))...)
	if code != 0 || !strings.Contains(stderr, "warning: removed "+left) {
		t.Fatalf("leftover: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the leftover temporary file is still there")
	}
	if b, err := os.ReadFile(edges); err != nil || len(b) == 0 {
		t.Errorf("the stream: %v", err)
	}
	// Held by another run: refused, naming it.
	lock, err := filelock.Acquire(edges)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	code, _, stderr = runCLI(append(args, "--out", filepath.Join(dir, "d"))...)
	if code != 2 || !strings.Contains(stderr, "--write-edges: "+edges+" is in use by another run") {
		t.Fatalf("stream held: exit %d, %q", code, stderr)
	}
}
