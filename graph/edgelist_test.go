package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFile writes content to name in a fresh temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadEdgeListGood(t *testing.T) {
	content := "# a small graph\n" +
		"\n" +
		"0 1\n" +
		"1\t2   # trailing comment\n" +
		"  2 3\r\n" +
		"3 0\n" +
		"1 0\n" + // duplicate, reversed
		"0 1\n" + // duplicate
		"   # indented comment\n" +
		"0 2\n"
	path := writeFile(t, "good.txt", content)
	g, err := LoadEdgeList(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	want := [][2]int32{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}}
	if g.N != 4 || !slices.Equal(g.Edges, want) {
		t.Fatalf("n=%d edges=%v, want n=4 edges=%v", g.N, g.Edges, want)
	}
	if g.Kind != "file" || g.Name != "file("+path+")" || g.Tries != 1 {
		t.Errorf("kind %q name %q tries %d", g.Kind, g.Name, g.Tries)
	}
	// A file never gets a closed form, whatever its shape.
	if _, err := SpectralGapWith(g, GapOptions{Method: MethodClosedForm}); err == nil {
		t.Error("closed form offered for a loaded file")
	}
}

func TestParseEdgeListHeader(t *testing.T) {
	for _, header := range []string{"# n = 5", "#n=5", "# nodes: 5", "# N : 5"} {
		g, err := ParseEdgeList(strings.NewReader(header+"\n0 1\n1 2\n2 3\n3 0\n"), "h.txt")
		if err != nil {
			t.Fatalf("%q: %v", header, err)
		}
		if g.N != 5 {
			t.Errorf("%q: n=%d, want 5 (node 4 isolated)", header, g.N)
		}
	}
	// A header whose count is not a positive whole number is an error,
	// not a comment (issue #15, item 11).
	for _, header := range []string{"# n = -5", "# nodes: 1e3", "# n = 5.5", "# n = +7"} {
		_, err := ParseEdgeList(strings.NewReader(header+"\n0 1\n1 2\n"), "h.txt")
		if err == nil || !strings.Contains(err.Error(), "h.txt:1: node count header") {
			t.Errorf("%q: %v", header, err)
		}
	}
	// Comments that merely mention n are ignored.
	g, err := ParseEdgeList(strings.NewReader("# n = number of nodes\n0 1\n"), "c.txt")
	if err != nil || g.N != 2 {
		t.Errorf("ordinary comment: %v, %v", g, err)
	}
}

func TestLoadEdgeListErrors(t *testing.T) {
	cases := []struct {
		file, content, want string
	}{
		{"empty.txt", "", "empty.txt: no edges"},
		{"comments.txt", "# nothing\n\n", "comments.txt: no edges"},
		{"one.txt", "0 1\n1 2\n3\n", `one.txt:3: expected two node ids, got "3"`},
		{"three.txt", "0 1 0.5\n", `three.txt:1: expected two node ids, got "0 1 0.5"`},
		{"word.txt", "0 1\n\n1 x\n", `word.txt:3: node id "x" is not a non-negative integer`},
		{"float.txt", "0 1.5\n", `float.txt:1: node id "1.5" is not a non-negative integer`},
		{"neg.txt", "# c\n-1 2\n", `neg.txt:2: node id "-1" is negative`},
		{"loop.txt", "0 1\n1 2\n2 2 # oops\n", "loop.txt:3: self-loop on node 2"},
		{"big.txt", "0 99999999999\n", `big.txt:1: node id "99999999999" is too large`},
		{"header.txt", "# n = 3\n0 1\n1 3\n", "header.txt:3: node id 3 is out of range for n = 3 (header on line 1)"},
		{"late.txt", "0 1\n1 5\n# n = 3\n", "late.txt:3: node count n = 3 is smaller than max id + 1 = 6"},
		{"twice.txt", "# n = 3\n0 1\n# n = 4\n", "twice.txt:3: node count n = 4 contradicts n = 3 on line 1"},
		{"sparse.txt", "0 1\n1 1000\n", "sparse.txt: 1001 nodes (ids 0..1000) but only 2 edge lines"},
		{"zero.txt", "# n = 0\n0 1\n", "zero.txt:1: node count"},
	}
	for _, c := range cases {
		path := writeFile(t, c.file, c.content)
		_, err := LoadEdgeList(path)
		want := "graph: " + filepath.Join(filepath.Dir(path), c.want)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v\n\twant prefix %q", c.file, err, want)
		}
	}
	if _, err := LoadEdgeList(filepath.Join(t.TempDir(), "missing.txt")); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing file: %v", err)
	}
	long := strings.Repeat("1", maxLineBytes+10)
	if _, err := ParseEdgeList(strings.NewReader("0 1\n"+long+"\n"), "long.txt"); err == nil || !strings.HasPrefix(err.Error(), "graph: long.txt:2: line longer") {
		t.Errorf("long line: %v", err)
	}
}

func FuzzParseEdgeList(f *testing.F) {
	for _, seed := range []string{
		"0 1\n1 2\n2 0\n",
		"# n = 4\n0 1 # c\n\n1 2\n2 3\n",
		"3 2\n2 3\n",
		"0 0\n",
		"1\n",
		"-1 2\n",
		"0 x\n",
		"",
		"#n:2\n1 0",
		"0 2147483646\n",
		"0\t1\r\n1 2\r\n",
		"# n = -5\n0 1\n",
		"# nodes: 1e3\n0 1\n1 2\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseEdgeList(strings.NewReader(s), "fuzz.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "graph: fuzz.txt") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("parsed graph is invalid: %v", err)
		}
		if len(g.Edges) == 0 || g.N < 2 || g.Kind != "file" {
			t.Fatalf("successful parse with n=%d, %d edges, kind %q", g.N, len(g.Edges), g.Kind)
		}
	})
}
