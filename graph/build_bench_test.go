package graph

import (
	"fmt"
	"math"
	"testing"
)

// benchSpecs are the graphs of issue #14 at n = 10⁶ and 10⁷: Watts–Strogatz
// with K = 5, P = 0.3; Erdős–Rényi with mean degree about ln n + 3 (a mean
// degree of 4 is almost never connected, so G(n, 4/n) cannot be built);
// geometric with the command line's default radius 1.5·sqrt(ln n / (π n));
// grid and torus with the most nearly square shape; the cycle.
func benchSpecs() []Spec {
	var specs []Spec
	for _, n := range []int{1e6, 1e7} {
		ln := math.Log(float64(n))
		specs = append(specs,
			Spec{Kind: "watts-strogatz", N: n, K: 5, P: 0.3, Seed: 1},
			Spec{Kind: "erdos-renyi", N: n, P: (ln + 3) / float64(n), Seed: 1},
			Spec{Kind: "geometric", N: n, Radius: 1.5 * math.Sqrt(ln/(math.Pi*float64(n))), Seed: 1},
			Spec{Kind: "grid", N: n},
			Spec{Kind: "torus", N: n},
			Spec{Kind: "cycle", N: n},
		)
	}
	return specs
}

// BenchmarkBuild times graph.Build for the large graphs of issue #14:
//
//	go test ./graph -run '^$' -bench 'Build/' -benchtime 1x -count 5
//
// cpu-s/op is the CPU time of the whole process per build (all cores,
// garbage collector included): on a shared machine it moves less than the
// wall time.
func BenchmarkBuild(b *testing.B) {
	for _, spec := range benchSpecs() {
		b.Run(fmt.Sprintf("%s/n=1e%d", spec.Kind, int(math.Round(math.Log10(float64(spec.N))))), func(b *testing.B) {
			var g *Graph
			cpu := processCPU()
			for b.Loop() {
				var err error
				if g, err = Build(spec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((processCPU()-cpu)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(len(g.Edges)), "edges")
			b.ReportMetric(float64(g.Tries), "tries")
		})
	}
}

// BenchmarkCheck times Check (connected components and bipartiteness) on
// the same graphs: "built" as Build returns them (the generators know they
// are connected; the closed-form families know whether they are
// bipartite), "edges" on a copy made by FromEdges, which knows neither.
func BenchmarkCheck(b *testing.B) {
	for _, spec := range benchSpecs() {
		g, err := Build(spec)
		if err != nil {
			b.Fatal(err)
		}
		copied, err := FromEdges("copy", g.N, g.Edges)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			how string
			g   *Graph
		}{{"built", g}, {"edges", copied}} {
			b.Run(fmt.Sprintf("%s/n=1e%d/%s", spec.Kind, int(math.Round(math.Log10(float64(spec.N)))), c.how), func(b *testing.B) {
				for b.Loop() {
					if _, err := Check(c.g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
