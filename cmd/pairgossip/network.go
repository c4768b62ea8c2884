package main

import (
	"fmt"
	"io"
	"time"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/output"
)

// buildGapGraph builds the graph of pairgossip gap (its memory checked
// first; points per node > 1: the tensor with the points' clique) and its
// warnings; errors are usage errors.
func buildGapGraph(spec graph.Spec, pointsNode int) (*graph.Graph, []string, error) {
	if err := checkGapMemory(spec, pointsNode); err != nil {
		return nil, nil, err
	}
	g, err := graph.Build(spec)
	if err != nil {
		return nil, nil, usageError{Err: err}
	}
	if pointsNode > 1 {
		if g, err = graph.Tensor(g, pointsNode); err != nil {
			return nil, nil, usageError{Err: err}
		}
	}
	warn, err := graph.Check(g)
	if err != nil {
		return nil, nil, usageError{Err: err}
	}
	return g, warn, nil
}

// gapNetwork is pairgossip gap with a network model: the graph's spectral
// gap and, beside it, the effective gap 1 − λ₂(W̄) of the expected gossip
// matrix under the model (network.Net.EffectiveGap, docs/networks.md §9).
func gapNetwork(cfg config.Config, n int, iters int64, asJSON bool, stdout, stderr io.Writer) error {
	t0 := time.Now()
	spec := graph.Spec{Kind: cfg.Graph, N: n, K: cfg.GraphK, P: cfg.GraphP, Radius: cfg.GraphR, Rows: cfg.GraphRows,
		Cols: cfg.GraphCols, Seed: cfg.GraphSeed, File: cfg.GraphFile}
	g, warn, err := buildGapGraph(spec, cfg.PointsNode)
	if err != nil {
		return err
	}
	m, err := cfg.NetworkModel(g.N)
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		return usageError{Err: config.NetworkError(err)}
	}
	// The seed does not enter W̄ (an expectation); New takes one for its
	// draws, which the gap never makes.
	nt, err := network.New(m, g, 1)
	if err != nil {
		return usageError{Err: config.NetworkError(err)}
	}
	gp, err := nt.EffectiveGap(network.GapOptions{Horizon: iters})
	if err != nil {
		return err
	}
	out := struct {
		Graph           string   `json:"graph"`
		Name            string   `json:"name"`
		N               int      `json:"n"`
		UndirectedEdges int      `json:"undirected_edges"`
		OrderedEdges    int      `json:"ordered_edges"`
		MinDegree       int      `json:"min_degree"`
		MaxDegree       int      `json:"max_degree"`
		SpectralGap     float64  `json:"spectral_gap"`
		Network         string   `json:"network"`
		EffectiveGap    float64  `json:"effective_gap"`
		EffectiveMethod string   `json:"effective_gap_method"`
		Ratio           float64  `json:"effective_gap_ratio"`
		Residual        float64  `json:"effective_gap_residual,omitempty"`
		Tries           int      `json:"tries"`
		Seconds         float64  `json:"seconds"`
		Warnings        []string `json:"warnings,omitempty"`
	}{cfg.Graph, g.Name, g.N, g.UndirectedEdges(), 2 * g.UndirectedEdges(), g.MinDegree(), g.MaxDegree(),
		gp.Perfect, m.String(), gp.Value, gp.Method, gp.Value / gp.Perfect, gp.Residual, g.Tries, time.Since(t0).Seconds(), warn}
	if m.Delay.Dist != "" {
		out.Warnings = append(out.Warnings, "--delay does not enter the expected gossip matrix W̄ (docs/networks.md §9)")
	}
	if asJSON {
		_, err := stdout.Write(output.JSON(out))
		return err
	}
	for _, w := range out.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "%s: n = %d, %d undirected edges, degree %d..%d\nspectral gap 1 − λ₂(W) = %.6g\n"+
		"effective gap 1 − λ₂(W̄) = %.6g (%s) under %s: %.4g × the graph's\n",
		g.Name, g.N, g.UndirectedEdges(), g.MinDegree(), g.MaxDegree(), gp.Perfect, gp.Value, gp.Method, m, out.Ratio)
	return nil
}
