package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
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

// gapClosed is the graph's closed form of pairgossip gap, if it has one
// (graph.ClosedFormShape; none with points per node > 1).
type gapClosed struct {
	shape graph.Shape
	ok    bool
	err   error
}

// gapNetwork is pairgossip gap with a network model: the graph's spectral
// gap and, beside it, the effective gap 1 − λ₂(W̄) of the expected gossip
// matrix under the model (network.Net.EffectiveGapContext, docs/networks.md
// §9), stopped by ctx (exit 130 for Ctrl-C). Under loss alone on a graph with a closed
// form it is (1 − q) times that, and with parametric churn (1 − q)π²,
// without building the graph (network.Model.GapScale); where the
// effective gap cannot be computed (Lanczos not converged) the graph's gap
// is printed and the effective gap reported as not computed, as summary.json
// records it.
func gapNetwork(ctx context.Context, cfg config.Config, spec graph.Spec, cl gapClosed, iters int64, asJSON bool, stdout, stderr io.Writer, t0 time.Time) error {
	closed, hasClosed, closedErr := cl.shape, cl.ok, cl.err
	var (
		sh         graph.Shape
		m          network.Model
		gp         network.Gap
		warn       []string
		tries      = 1
		notDone    string // why the effective gap was not computed
		haveScaled bool
	)
	if hasClosed && closedErr == nil {
		// Loss and parametric churn on a graph with a closed form: (1 −
		// q)π² times it (Model.GapScale), exact, and without building the
		// graph.
		if mm, err := cfg.NetworkModel(closed.N); err == nil && mm.Validate() == nil {
			if _, ok := mm.GapScale(); ok {
				sh, m, haveScaled = closed, mm, true
				gp = network.ScaledGap(closed.Gap, mm, 2*closed.UndirectedEdges)
			}
		}
	}
	if !haveScaled {
		g, w, err := buildGapGraph(spec, cfg.PointsNode)
		if err != nil {
			return err
		}
		warn, tries = w, g.Tries
		sh = graph.ShapeOf(g, graph.Gap{}) // its gap: the effective gap's gp.Perfect
		if m, err = cfg.NetworkModel(g.N); err == nil {
			err = m.Validate()
		}
		if err != nil {
			return usageError{Err: config.NetworkError(err)}
		}
		// The seed does not enter W̄ (an expectation); New takes one
		// for its draws, which the gap never makes.
		nt, err := network.New(m, g, 1)
		if err != nil {
			return usageError{Err: config.NetworkError(err)}
		}
		gp, err = nt.EffectiveGapContext(ctx, network.GapOptions{Horizon: iters})
		switch {
		case err == nil:
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			return err // interrupted: exit 128 + the signal
		case math.IsNaN(gp.Perfect) || gp.PerfectMethod == "":
			return err // not even the graph's gap
		default:
			// As summary.json records a gap it cannot compute
			// (gap_method "not computed: …", effective_gap null): the
			// graph's gap is printed, the estimate never.
			notDone = "not computed: " + strings.TrimPrefix(err.Error(), "network: effective gap: ")
			if errors.Is(err, graph.ErrNotConverged) {
				notDone += fmt.Sprintf("; the dense eigensolver, exact, computes such gaps only up to n = %d, for a smaller network of this kind", graph.DenseMaxN)
			}
		}
	}
	eff, ratio, method := output.Float(gp.Value), output.Float(gp.Value/gp.Perfect), gp.Method
	if notDone != "" {
		eff, ratio, method = output.Float(math.NaN()), output.Float(math.NaN()), notDone
	}
	kind := cfg.Graph
	if cfg.GraphSchedule != "" {
		// The schedule replaces the run's graph (built for its n alone):
		// the perfect gap is its phases' (network.Gap.Perfect).
		kind, sh = "schedule", graph.Shape{Name: "--graph-schedule " + cfg.GraphSchedule, N: sh.N}
	}
	out := struct {
		gapGraphJSON
		Method          string       `json:"method"`
		Network         string       `json:"network"`
		EffectiveGap    output.Float `json:"effective_gap"`
		EffectiveMethod string       `json:"effective_gap_method"`
		Ratio           output.Float `json:"effective_gap_ratio"`
		Residual        float64      `json:"effective_gap_residual,omitempty"`
		Tries           int          `json:"tries"`
		Seconds         float64      `json:"seconds"`
		Warnings        []string     `json:"warnings,omitempty"`
	}{newGapGraphJSON(kind, sh, gp.Perfect),
		gp.PerfectMethod, m.String(), eff, method, ratio, gp.Residual, tries, time.Since(t0).Seconds(), warn}
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
	if kind == "schedule" {
		fmt.Fprintf(stdout, "%s: n = %d\nspectral gap of its phases' perfect network 1 − λ₂(W) = %.6g (%s)\n",
			sh.Name, sh.N, gp.Perfect, gp.PerfectMethod)
	} else {
		fmt.Fprintf(stdout, "%s: n = %d, %d undirected edges, degree %d..%d\nspectral gap 1 − λ₂(W) = %.6g (%s)\n",
			sh.Name, sh.N, sh.UndirectedEdges, sh.MinDegree, sh.MaxDegree, gp.Perfect, gp.PerfectMethod)
	}
	if notDone != "" {
		fmt.Fprintf(stdout, "effective gap 1 − λ₂(W̄) under %s: %s\n", m, notDone)
		return nil
	}
	of := "the graph's"
	if kind == "schedule" {
		of = "its perfect network's"
	}
	fmt.Fprintf(stdout, "effective gap 1 − λ₂(W̄) = %.6g (%s) under %s: %.4g × %s\n", gp.Value, gp.Method, m, float64(ratio), of)
	return nil
}

// gapGraphJSON is the graph's part of pairgossip gap's --json object, with
// or without a network model.
type gapGraphJSON struct {
	Graph           string  `json:"graph"`
	Name            string  `json:"name"`
	N               int     `json:"n"`
	UndirectedEdges int     `json:"undirected_edges"`
	OrderedEdges    int     `json:"ordered_edges"`
	MinDegree       int     `json:"min_degree"`
	MaxDegree       int     `json:"max_degree"`
	SpectralGap     float64 `json:"spectral_gap"`
}

func newGapGraphJSON(kind string, sh graph.Shape, gap float64) gapGraphJSON {
	return gapGraphJSON{kind, sh.Name, sh.N, sh.UndirectedEdges, 2 * sh.UndirectedEdges, sh.MinDegree, sh.MaxDegree, gap}
}
