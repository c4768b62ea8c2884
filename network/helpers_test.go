package network

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
)

func mustSpec(kind string) graph.Spec { return graph.Spec{Kind: kind, N: 10} }

func mustGraph(t testing.TB, spec graph.Spec) *graph.Graph {
	t.Helper()
	g, err := graph.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustNet(t testing.TB, m Model, g *graph.Graph, seed uint64) *Net {
	t.Helper()
	nt, err := New(m, g, seed)
	if err != nil {
		t.Fatal(err)
	}
	return nt
}

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
