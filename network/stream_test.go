package network

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// TestStreamRoundTrip: a stream written by the writer (every activation of
// a lossy run) reads back to the same activations, and replaying it through
// a Net gives the same edges, deliveries and churn as the run that wrote it.
func TestStreamRoundTrip(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 50, K: 4, P: 0.3, Seed: 1})
	m := Model{Loss: 0.3, Churn: Churn{Dist: DistExponential, Up: 20, Down: 5}}
	src := mustNet(t, m, g, 8)
	path := filepath.Join(t.TempDir(), "edges.txt")
	w, err := CreateStream(path, "pairgossip --write-edges\nseed 8, model "+m.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the target exists before Close")
	}
	st := rng.New(8, 1)
	type act struct {
		i, j     int
		ti, tj   bool
		oni, onj bool
	}
	var want []act
	const iters = 3000
	for tt := int64(1); tt <= iters; tt++ {
		i, j, _ := src.Edge(tt, st, nil)
		ti, tj := src.Delivered(tt, i, j)
		want = append(want, act{i, j, ti, tj, src.Online(i, tt), src.Online(j, tt)})
		if err := w.Write(tt, i, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("temporary file left: %v", ents)
	}
	head, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(head), "# pairgossip --write-edges\n# seed 8, model --loss 0.3 --churn exponential:up=20,down=5\n1 ") {
		t.Fatalf("header: %q", head[:120])
	}
	rm := m
	rm.EdgeStream = path
	re := mustNet(t, rm, g, 8)
	if re.DefaultEdges() {
		t.Fatal("a replay claims the engine's draw")
	}
	for tt := int64(1); tt <= iters; tt++ {
		i, j, ok := re.Edge(tt, nil, nil)
		ti, tj := re.Delivered(tt, i, j)
		if got := (act{i, j, ti, tj, re.Online(i, tt), re.Online(j, tt)}); !ok || got != want[tt-1] {
			t.Fatalf("t=%d: replay %+v, run %+v", tt, got, want[tt-1])
		}
	}
	for k := range re.P(1) {
		if re.P(1)[k] != g.P(k) {
			t.Fatalf("p_%d = %g, want the graph's %g", k, re.P(1)[k], g.P(k))
		}
	}
	if err := re.CheckHorizon(iters); err != nil {
		t.Fatal(err)
	}
	err = re.CheckHorizon(iters + 1)
	if err == nil || err.Error() != "--edge-stream: "+path+" ends at iteration 3000; the run asks for 3001 iterations" {
		t.Fatalf("horizon: %v", err)
	}
}

func TestStreamAt(t *testing.T) {
	s, err := ParseStream(strings.NewReader("# trace\n2 0 1\n5 1 2 # comment\n\n6 2 0\n100 0 2\n"), "s", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][2]int{2: {0, 1}, 5: {1, 2}, 6: {2, 0}, 100: {0, 2}}
	r := rand.New(rand.NewPCG(3, 3))
	for x := 0; x < 3000; x++ {
		tt := 1 + r.Int64N(110)
		if x < 110 {
			tt = int64(x + 1)
		}
		i, j, ok := s.At(tt)
		w, has := want[tt]
		if ok != has || ok && (i != w[0] || j != w[1]) {
			t.Fatalf("At(%d) = %d %d %v", tt, i, j, ok)
		}
	}
	if s.Last() != 100 {
		t.Fatal(s.Last())
	}
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 3})
	nt := mustNet(t, Model{Stream: s}, g, 1)
	if _, _, ok := nt.Edge(3, nil, nil); ok {
		t.Fatal("an iteration without a line activated an edge")
	}
	// two runs share one Stream: each has its own cursor
	other := mustNet(t, Model{Stream: s}, g, 1)
	for tt := int64(1); tt <= 100; tt++ {
		i, j, ok := nt.Edge(tt, nil, nil)
		i2, j2, ok2 := other.Edge(101-tt, nil, nil)
		w, has := want[tt]
		w2, has2 := want[101-tt]
		if ok != has || ok && (i != w[0] || j != w[1]) || ok2 != has2 || ok2 && (i2 != w2[0] || j2 != w2[1]) {
			t.Fatalf("shared stream at t=%d", tt)
		}
	}
	nt.ResumeAt(50)
	if i, j, ok := nt.Edge(100, nil, nil); !ok || i != 0 || j != 2 {
		t.Fatal("after ResumeAt")
	}
}

func TestStreamRefusals(t *testing.T) {
	for content, msg := range map[string]string{
		"1 0 1\n2 0\n":          "s.txt:2: expected `t i j`",
		"1 0 x\n":               "s.txt:1: expected three integers",
		"0 0 1\n":               "s.txt:1: iteration 0 is not a positive integer",
		"-3 0 1\n":              "s.txt:1: iteration -3",
		"# c\n2 0 1\n2 1 2\n":   "s.txt:3: iteration 2 does not follow 2",
		"5 0 1\n3 1 2\n":        "s.txt:2: iteration 3 does not follow 5",
		"1 0 4\n":               "s.txt:1: edge (0, 4) has a node id outside [0, 4)",
		"1 -1 2\n":              "s.txt:1: edge (-1, 2)",
		"1 2 2\n":               "s.txt:1: edge (2, 2) is a self-loop",
		"# nothing\n":           "s.txt: no activations",
		"1 0 2\n":               "s.txt:1: activation 1 (t = 1) is (0, 2), not an edge of cycle",
		"# c\n\n1 0 1\n2 0 2\n": "s.txt:4: activation 2 (t = 2) is (0, 2), not an edge of cycle",
	} {
		p := writeFile(t, "s.txt", content)
		_, err := New(Model{EdgeStream: p}, mustGraph(t, graph.Spec{Kind: "cycle", N: 4}), 1)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--edge-stream: ") {
			t.Errorf("%q: %v, want %q", content, err, msg)
		}
	}
	if _, err := New(Model{EdgeStream: "/nonexistent/s.txt"}, mustGraph(t, graph.Spec{Kind: "cycle", N: 4}), 1); err == nil ||
		!strings.Contains(err.Error(), "/nonexistent/s.txt") {
		t.Errorf("missing file: %v", err)
	}
	// the empirical p_k accepts contacts outside the graph
	p := writeFile(t, "s.txt", "1 0 2\n2 0 2\n3 1 3\n")
	nt := mustNet(t, Model{EdgeStream: p, StreamP: "empirical"}, mustGraph(t, graph.Spec{Kind: "cycle", N: 4}), 1)
	if got := nt.P(1); got[0] != 2.0/3 || got[1] != 1.0/3 || got[2] != 2.0/3 || got[3] != 1.0/3 {
		t.Fatalf("empirical p = %v", got)
	}
}

func TestStreamWriterAbort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.txt")
	w, err := CreateStream(path, "x")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(1, 0, 1)
	w.Abort()
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 0 {
		t.Fatalf("Abort left %v", ents)
	}
	if _, err := CreateStream("/nonexistent/dir/e.txt", ""); err == nil || !strings.HasPrefix(err.Error(), "--write-edges: ") {
		t.Fatalf("bad dir: %v", err)
	}
	w, _ = CreateStream(filepath.Join(t.TempDir(), "e.txt"), "")
	if a := testing.AllocsPerRun(1000, func() { w.Write(123456789, 4, 5) }); a != 0 {
		t.Errorf("Write allocates %g", a)
	}
	w.Abort()
}

// FuzzParseStream: the parser never panics, and what it accepts it accepts
// again after a write–read round trip, identically.
func FuzzParseStream(f *testing.F) {
	for _, s := range []string{"1 0 1\n", "1 0 1\n2 1 2 # c\n", "# x\n\n3 2 0\n", "1 0 0\n", "2 0 1\n1 0 1\n", "9223372036854775807 0 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseStream(strings.NewReader(in), "f", 5)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--edge-stream: f") {
				t.Fatalf("error without the name: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		for x := range s.T {
			if x > 0 && s.T[x] <= s.T[x-1] || s.T[x] < 1 || s.I[x] == s.J[x] {
				t.Fatalf("accepted a bad line: %d %d %d", s.T[x], s.I[x], s.J[x])
			}
			buf.WriteString(strings.Join([]string{itoa(s.T[x]), itoa(int64(s.I[x])), itoa(int64(s.J[x]))}, " ") + "\n")
		}
		r := NewStreamReader(&buf, "f", 5)
		for x := 0; ; x++ {
			tt, i, j, err := r.Next()
			if err == io.EOF {
				if x != len(s.T) {
					t.Fatal("round trip lost lines")
				}
				break
			}
			if err != nil || tt != s.T[x] || i != int(s.I[x]) || j != int(s.J[x]) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }

// TestStreamFileMode: a written stream has the mode of the run's other
// outputs (0644), not its temporary file's.
func TestStreamFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.txt")
	w, err := CreateStream(p, "seed 1")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(1, 0, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("%v, mode %v", err, st.Mode())
	}
}
