package graph

import (
	"fmt"
	"math"
	"strings"
)

// Kinds lists the graph families accepted by Build, in the order shown to
// users.
var Kinds = []string{
	"complete", "cycle", "star", "path", "watts-strogatz", "erdos-renyi",
	"grid", "torus", "geometric", "file",
}

// Spec describes a graph for Build. Only the fields used by Kind matter:
//
//	complete, cycle, star, path   N
//	watts-strogatz                N, K (⌊K/2⌋ neighbours per side), P (rewiring), Seed
//	erdos-renyi                   N, P (edge probability), Seed
//	grid, torus                   Rows and Cols, or N (see Build)
//	geometric                     N, Radius, Seed
//	file                          File (see ParseEdgeList)
//
// A seed gives the same random graph as earlier releases only for N below
// 131072; from there on the random families are drawn in parallel from
// counter-based streams (same models, different graphs than before this
// change, identical for any number of workers).
type Spec struct {
	Kind       string
	N, K       int
	P, Radius  float64
	Rows, Cols int
	Seed       uint64
	File       string
}

// Build constructs the graph described by spec. Kind is matched
// case-insensitively against Kinds; an unknown kind is an error listing the
// valid ones.
//
// For grid and torus: Rows and Cols are used when both are set (N, if also
// set, must equal Rows·Cols); when only one is set the other is N divided by
// it (N must be a multiple); when neither is set, N is factored as
// Rows×Cols with Rows the largest divisor of N not above √N, the most nearly
// square shape. That factorisation must have Rows >= 2 for a grid (so a
// prime N is an error: a 1×N grid is a path, ask for "path") and Rows >= 3
// for a torus.
//
// Build does not check the result beyond what the generators guarantee (the
// random families are connected); call Check, in particular for files.
func Build(spec Spec) (*Graph, error) {
	kind := strings.ToLower(strings.TrimSpace(spec.Kind))
	switch kind {
	case "complete":
		return Complete(spec.N)
	case "cycle":
		return Cycle(spec.N)
	case "star":
		return Star(spec.N)
	case "path":
		return Path(spec.N)
	case "watts-strogatz":
		return WattsStrogatz(spec.N, spec.K, spec.P, spec.Seed)
	case "erdos-renyi":
		return ErdosRenyi(spec.N, spec.P, spec.Seed)
	case "grid", "torus":
		minDim := 2
		if kind == "torus" {
			minDim = 3
		}
		rows, cols, err := gridShape(kind, spec.N, spec.Rows, spec.Cols, minDim)
		if err != nil {
			return nil, err
		}
		if kind == "grid" {
			return Grid(rows, cols)
		}
		return Torus(rows, cols)
	case "geometric":
		r := spec.Radius
		if r == 0 && spec.N > 1 {
			// The documented default: about 1.5× the connectivity threshold.
			n := float64(spec.N)
			r = 1.5 * math.Sqrt(math.Log(n)/(math.Pi*n))
		}
		return RandomGeometric(spec.N, r, spec.Seed)
	case "file":
		if spec.File == "" {
			return nil, fmt.Errorf("graph: file: no file name given")
		}
		return LoadEdgeList(spec.File)
	}
	return nil, fmt.Errorf("graph: unknown kind %q; valid kinds are %s", spec.Kind, strings.Join(Kinds, ", "))
}

// gridShape resolves the rows and cols of a grid or torus spec (see Build).
// minDim is the smallest dimension accepted for a shape derived from n.
func gridShape(kind string, n, rows, cols, minDim int) (int, int, error) {
	switch {
	case rows < 0 || cols < 0 || n < 0:
		return 0, 0, fmt.Errorf("graph: %s: n, rows and cols must be non-negative, got n=%d rows=%d cols=%d", kind, n, rows, cols)
	case rows > 0 && cols > 0:
		if n != 0 && int64(rows)*int64(cols) != int64(n) {
			return 0, 0, fmt.Errorf("graph: %s: n=%d differs from rows×cols = %d×%d", kind, n, rows, cols)
		}
		return rows, cols, nil
	case rows > 0 || cols > 0:
		given := max(rows, cols)
		if n == 0 || n%given != 0 {
			return 0, 0, fmt.Errorf("graph: %s: with only one of rows, cols given, n must be a positive multiple of it, got n=%d rows=%d cols=%d", kind, n, rows, cols)
		}
		if rows > 0 {
			return rows, n / rows, nil
		}
		return n / cols, cols, nil
	case n == 0:
		return 0, 0, fmt.Errorf("graph: %s: give rows and cols, or n", kind)
	}
	r := int(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	for n%r != 0 {
		r--
	}
	if r < minDim {
		return 0, 0, fmt.Errorf("graph: %s: n=%d has no factorisation rows×cols with both >= %d (nearest to square: %d×%d); give rows and cols, or choose another n", kind, n, minDim, r, n/r)
	}
	return r, n / r, nil
}
