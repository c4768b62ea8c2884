package graph

import (
	"math"
	"strings"
	"testing"
)

// TestClosedFormShape: the shape computed without building agrees with
// Build and SpectralGap (name, size, degrees, gap), and refuses what Build
// refuses with the same message.
func TestClosedFormShape(t *testing.T) {
	specs := []Spec{
		{Kind: "complete", N: 2}, {Kind: "complete", N: 9}, {Kind: "cycle", N: 3}, {Kind: "cycle", N: 50},
		{Kind: "star", N: 2}, {Kind: "star", N: 7}, {Kind: "path", N: 2}, {Kind: "path", N: 3}, {Kind: "path", N: 40},
		{Kind: "grid", N: 12}, {Kind: "grid", Rows: 1, Cols: 5}, {Kind: "grid", Rows: 2, Cols: 2}, {Kind: "grid", Rows: 2, Cols: 7},
		{Kind: "grid", Rows: 5, Cols: 6}, {Kind: "torus", N: 12}, {Kind: "torus", Rows: 3, Cols: 4}, {Kind: "torus", Rows: 5, Cols: 7},
		{Kind: "Cycle", N: 10},
		// Refused.
		{Kind: "cycle", N: 2}, {Kind: "complete", N: 1}, {Kind: "grid", N: 7}, {Kind: "torus", N: 8}, {Kind: "grid", Rows: 0, Cols: 3, N: 5},
		{Kind: "cycle", N: 2_000_000_000}, {Kind: "star", N: 2_000_000_000}, {Kind: "complete", N: 3_000_000}, {Kind: "cycle", N: math.MaxInt32 + 1},
		{Kind: "torus", Rows: 20000, Cols: 20000},
	}
	for _, sp := range specs {
		s, ok, err := ClosedFormShape(sp)
		if !ok {
			t.Errorf("%+v: no closed form", sp)
			continue
		}
		// Build only what is small: the huge ones are refused by both
		// before anything is allocated.
		g, berr := Build(sp)
		if (err == nil) != (berr == nil) || (err != nil && err.Error() != berr.Error()) {
			t.Errorf("%+v: ClosedFormShape error %v, Build error %v", sp, err, berr)
			continue
		}
		if err != nil {
			continue
		}
		gap, gerr := SpectralGap(g)
		if gerr != nil {
			t.Fatal(gerr)
		}
		if s.Name != g.Name || s.N != g.N || s.UndirectedEdges != g.UndirectedEdges() || s.MinDegree != g.MinDegree() || s.MaxDegree != g.MaxDegree() ||
			s.Gap.Value != gap.Value || s.Gap.Lambda2L != gap.Lambda2L || s.Gap.Method != gap.Method {
			t.Errorf("%+v: shape %+v, built %s n=%d edges=%d degree %d..%d gap %+v", sp, s, g.Name, g.N, g.UndirectedEdges(), g.MinDegree(), g.MaxDegree(), gap)
		}
	}
	if _, ok, _ := ClosedFormShape(Spec{Kind: "watts-strogatz", N: 50, K: 4, P: 0.1}); ok {
		t.Error("Watts–Strogatz has no closed form")
	}
	// The complete graph on 23 000 nodes (264 million edges, under the
	// limit) in constant time and memory.
	s, _, err := ClosedFormShape(Spec{Kind: "complete", N: 23000})
	if err != nil || s.UndirectedEdges != 23000*22999/2 || s.Gap.Value != 23000.0/float64(23000*22999) {
		t.Errorf("complete 23000: %+v, %v", s, err)
	}
	if _, _, err := ClosedFormShape(Spec{Kind: "cycle", N: 2_000_000_000}); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("cycle 2e9: %v", err)
	}
}
