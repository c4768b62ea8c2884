package graph

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuildEveryKind(t *testing.T) {
	file := writeFile(t, "k.txt", "0 1\n1 2\n2 0\n")
	specs := map[string]Spec{
		"complete":       {N: 10},
		"cycle":          {N: 10},
		"star":           {N: 10},
		"path":           {N: 10},
		"watts-strogatz": {N: 100, K: 5, P: 0.3, Seed: 3},
		"erdos-renyi":    {N: 100, P: 0.1, Seed: 3},
		"grid":           {N: 12},
		"torus":          {Rows: 3, Cols: 4},
		"geometric":      {N: 100, Radius: 0.3, Seed: 3},
		"file":           {File: file},
	}
	for _, kind := range Kinds {
		spec, ok := specs[kind]
		if !ok {
			t.Fatalf("no test spec for kind %q", kind)
		}
		spec.Kind = kind
		g, err := Build(spec)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		if g.Kind != kind {
			t.Errorf("Build(%q) gave kind %q", kind, g.Kind)
		}
		if _, err := Check(g); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if len(specs) != len(Kinds) {
		t.Errorf("Kinds has %d entries, test covers %d", len(Kinds), len(specs))
	}
	g, err := Build(Spec{Kind: " Watts-Strogatz ", N: 100, K: 5, P: 0.3, Seed: 3})
	ws, _ := WattsStrogatz(100, 5, 0.3, 3)
	if err != nil || !slices.Equal(g.Edges, ws.Edges) {
		t.Errorf("Build must match the generator (kind matched case-insensitively): %v", err)
	}
}

func TestBuildGridShapes(t *testing.T) {
	cases := []struct {
		spec       Spec
		rows, cols int
		err        string
	}{
		{Spec{Kind: "grid", N: 12}, 3, 4, ""},
		{Spec{Kind: "grid", N: 16}, 4, 4, ""},
		{Spec{Kind: "grid", N: 699}, 3, 233, ""},
		{Spec{Kind: "grid", N: 1000}, 25, 40, ""},
		{Spec{Kind: "grid", N: 4}, 2, 2, ""},
		{Spec{Kind: "grid", N: 13}, 0, 0, "n=13 has no factorisation rows×cols with both >= 2"},
		{Spec{Kind: "grid", N: 3}, 0, 0, "no factorisation"},
		{Spec{Kind: "grid", Rows: 1, Cols: 7}, 1, 7, ""},
		{Spec{Kind: "grid", N: 20, Rows: 4}, 4, 5, ""},
		{Spec{Kind: "grid", N: 20, Cols: 4}, 5, 4, ""},
		{Spec{Kind: "grid", N: 20, Rows: 3}, 0, 0, "positive multiple"},
		{Spec{Kind: "grid", N: 20, Rows: 4, Cols: 4}, 0, 0, "n=20 differs from rows×cols"},
		{Spec{Kind: "grid"}, 0, 0, "give rows and cols, or n"},
		{Spec{Kind: "torus", N: 10}, 0, 0, "torus: n=10 has no factorisation rows×cols with both >= 3"},
		{Spec{Kind: "torus", N: 15}, 3, 5, ""},
		{Spec{Kind: "torus", Rows: 2, Cols: 5}, 0, 0, "torus: rows and cols must be >= 3"},
		{Spec{Kind: "grid", N: -4}, 0, 0, "non-negative"},
	}
	for _, c := range cases {
		g, err := Build(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c.spec, err)
			continue
		}
		if g.closed.rows != c.rows || g.closed.cols != c.cols {
			t.Errorf("%+v: %d×%d, want %d×%d", c.spec, g.closed.rows, g.closed.cols, c.rows, c.cols)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	_, err := Build(Spec{Kind: "hypercube", N: 8})
	if err == nil || !strings.Contains(err.Error(), `unknown kind "hypercube"`) || !strings.Contains(err.Error(), strings.Join(Kinds, ", ")) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := Build(Spec{Kind: "file"}); err == nil || !strings.Contains(err.Error(), "no file name") {
		t.Errorf("file without name: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.txt")
	if _, err := Build(Spec{Kind: "file", File: missing}); err == nil || !strings.Contains(err.Error(), "nope.txt") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Build(Spec{Kind: "watts-strogatz", N: 100, K: 1, P: 0.3}); err == nil || !strings.Contains(err.Error(), "k must be") {
		t.Errorf("bad k: %v", err)
	}
}

// TestGeometricDefaultRadius: Radius 0 means the documented default
// 1.5·√(log n/(πn)), the same graph as that radius given explicitly.
func TestGeometricDefaultRadius(t *testing.T) {
	g, err := Build(Spec{Kind: "geometric", N: 699, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := 1.5 * math.Sqrt(math.Log(699)/(math.Pi*699))
	h, err := Build(Spec{Kind: "geometric", N: 699, Radius: r, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Edges) == 0 || !slices.Equal(g.Edges, h.Edges) {
		t.Fatalf("default radius: %d edges, explicit %g: %d", len(g.Edges), r, len(h.Edges))
	}
}
