package graph

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/pairgossip/pairgossip/internal/lanczos"
)

// Shape is what pairgossip gap prints of a graph: its size, degrees and
// spectral gap.
type Shape struct {
	Name                       string
	N, UndirectedEdges         int
	MinDegree, MaxDegree, Comp int
	Gap                        Gap
}

// ShapeOf is g's shape with the spectral gap gap (as ClosedFormShape gives
// it without building the graph).
func ShapeOf(g *Graph, gap Gap) Shape {
	return Shape{Name: g.Name, N: g.N, UndirectedEdges: g.UndirectedEdges(), MinDegree: g.MinDegree(), MaxDegree: g.MaxDegree(), Gap: gap}
}

// ClosedFormShape returns the shape of a graph of the families with a
// closed-form spectral gap (complete, cycle, star, path, grid, torus)
// without building it: the same numbers as Build followed by SpectralGap,
// in constant time and memory (a complete graph on 23 000 nodes has 264
// million edges). It refuses what Build refuses, with the same errors (the
// edge limit included, so that gap and run agree on what can be built); ok
// is false for the other families.
func ClosedFormShape(spec Spec) (s Shape, ok bool, err error) {
	kind := strings.ToLower(strings.TrimSpace(spec.Kind))
	n := spec.N
	var cf closedForm
	switch kind {
	case "complete", "cycle", "star", "path":
		minN := 2
		if kind == "cycle" {
			minN = 3
		}
		if err := checkN(kind, n, minN); err != nil {
			return s, true, err
		}
		cf.kind = kind
	case "grid", "torus":
		minDim := 2
		if kind == "torus" {
			minDim = 3
		}
		rows, cols, err := gridShape(kind, spec.N, spec.Rows, spec.Cols, minDim)
		if err == nil {
			err = checkDims(kind, rows, cols, map[string]int{"grid": 1, "torus": 3}[kind])
		}
		if err != nil {
			return s, true, err
		}
		n = rows * cols
		cf = closedForm{kind: kind, rows: rows, cols: cols}
	default:
		return s, false, nil
	}
	s.N = n
	switch kind {
	case "complete":
		s.Name = fmt.Sprintf("complete(n=%d)", n)
		s.UndirectedEdges, s.MinDegree, s.MaxDegree = n*(n-1)/2, n-1, n-1
	case "cycle":
		s.Name = fmt.Sprintf("cycle(n=%d)", n)
		s.UndirectedEdges, s.MinDegree, s.MaxDegree = n, 2, 2
	case "star":
		s.Name = fmt.Sprintf("star(n=%d)", n)
		s.UndirectedEdges, s.MinDegree, s.MaxDegree = n-1, 1, n-1
	case "path":
		s.Name = fmt.Sprintf("path(n=%d)", n)
		s.UndirectedEdges, s.MinDegree, s.MaxDegree = n-1, 1, min(2, n-1)
	case "grid":
		r, c := cf.rows, cf.cols
		s.Name = fmt.Sprintf("grid(rows=%d,cols=%d)", r, c)
		s.UndirectedEdges = r*(c-1) + c*(r-1)
		// Degree: 1 per direction with a neighbour (a 1×c grid is a path).
		deg := func(interior bool, m int) int { // neighbours along a side of length m
			switch {
			case m == 1:
				return 0
			case interior && m > 2:
				return 2
			}
			return 1
		}
		s.MinDegree = deg(false, r) + deg(false, c)
		s.MaxDegree = deg(true, r) + deg(true, c)
	case "torus":
		s.Name = fmt.Sprintf("torus(rows=%d,cols=%d)", cf.rows, cf.cols)
		s.UndirectedEdges, s.MinDegree, s.MaxDegree = 2*n, 4, 4
	}
	if err := checkEdgeCount(kind, float64(s.UndirectedEdges)); err != nil {
		return s, true, err
	}
	beta, _ := closedFormLambda2(&Graph{N: n, closed: cf})
	s.Gap = Gap{Value: beta / float64(2*s.UndirectedEdges), Lambda2L: beta, Method: MethodClosedForm}
	s.Comp = 1
	return s, true, nil
}

// EstimateEdges returns the number of undirected edges of the graph spec
// describes, before building it: exact for the deterministic families, the
// expectation for the random ones, and for a file an upper bound from its
// size (every edge line takes at least 4 bytes, "a b\n"; 0 when the file
// cannot be read or is not a regular file).
func EstimateEdges(spec Spec) float64 {
	n := float64(spec.N)
	switch strings.ToLower(strings.TrimSpace(spec.Kind)) {
	case "complete":
		return n * (n - 1) / 2
	case "cycle", "star", "path":
		return n
	case "watts-strogatz":
		return n * float64(max(spec.K, 2)/2)
	case "erdos-renyi":
		return spec.P * n * (n - 1) / 2
	case "grid", "torus":
		if spec.Rows > 0 && spec.Cols > 0 {
			n = float64(spec.Rows) * float64(spec.Cols)
		}
		return 2 * n
	case "geometric":
		r := spec.Radius
		if r <= 0 && n > 1 {
			r = 1.5 * math.Sqrt(math.Log(n)/(math.Pi*n))
		}
		return math.Min(n*(n-1)/2, n*n*math.Pi*r*r/2)
	case "file":
		if st, err := os.Stat(spec.File); err == nil && st.Mode().IsRegular() {
			return float64(st.Size()) / 4
		}
	}
	return 0
}

// BuildMemory estimates the bytes Build and SpectralGap need for the graph
// spec describes (the edge list, the CSR adjacency and offsets, and the
// eigensolver's work space: the dense matrix up to DenseMaxN nodes, the
// Lanczos basis beyond), so that a caller can refuse what would not fit
// before allocating it. n is the number of nodes (spec.N, or rows·cols).
func BuildMemory(spec Spec, n int) float64 {
	nf := float64(n)
	edges := EstimateEdges(spec)
	b := edges*16 + nf*8
	if n <= DenseMaxN {
		b += 3 * nf * nf * 8
	} else {
		b += lanczos.Bytes(n)
	}
	return b
}
