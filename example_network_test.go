package pairgossip_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/network"
)

// disagreement is an adaptive gossip scheme (the paper's concluding
// question: a communication scheme that depends on the network and on the
// nodes' local information): a uniformly drawn node wakes and calls, among
// its neighbours, the one whose dual variable z differs most from its own
// (ties broken by the iteration's own draw). It uses only the iteration's
// counter-based draws and the view, so runs are reproducible; it declares
// no probabilities, so p_k is estimated by network's seeded pilot
// (docs/networks.md §8).
type disagreement struct{ g *graph.Graph }

func (p disagreement) Next(t int64, d network.Draw, view network.NodeView) (int, int) {
	k := d.IntN(0, p.g.N)
	zk := view.Z(k)
	dist := func(j int) float64 {
		zj, s := view.Z(j), 0.0
		for c := range zk {
			s += (zk[c] - zj[c]) * (zk[c] - zj[c])
		}
		return s
	}
	nb := p.g.Adj[p.g.Offsets[k]:p.g.Offsets[k+1]]
	// The drawn neighbour unless another is strictly farther: a tie (every
	// z is 0 at the start, and in the pilot) keeps the draw, so that the
	// first neighbour is not favoured.
	best := int(nb[d.IntN(1, len(nb))])
	bestD := dist(best)
	for _, j := range nb {
		if dj := dist(int(j)); dj > bestD {
			best, bestD = int(j), dj
		}
	}
	return k, best
}

// A network model from Go: asynchronous gossip under 20% message loss
// (cfg.Loss is --loss), with the edges chosen by an adaptive scheme
// (Input.Activation) instead of uniformly.
func ExampleInput_adaptive() {
	cfg := pairgossip.DefaultConfig()
	cfg.Algorithm, cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = "async", 100000, 2, true
	cfg.Loss = 0.2
	// The picker needs the run's graph: the same generator and seed give it.
	g, err := graph.Build(graph.Spec{Kind: cfg.Graph, N: 699, K: cfg.GraphK, P: cfg.GraphP, Seed: cfg.GraphSeed})
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []pairgossip.Input{
		{Activation: network.Activation{Kind: network.ActEdges}}, // uniform edges, the paper's activation
		{Activation: network.Activation{Kind: network.ActAdaptive, Picker: disagreement{g}}},
	} {
		run, err := pairgossip.PrepareInput(cfg, in)
		if err != nil {
			log.Fatal(err)
		}
		res, err := run.Execute(context.Background(), nil)
		run.Close()
		if err != nil {
			log.Fatal(err)
		}
		f := res.Final
		fmt.Printf("%-8s objective %.4f, %d of %d exchanges delivered\n", run.Config.Activation+":", f.ObjMean, f.Delivered, f.Attempted)
	}
	// Output:
	// edges:   objective 0.0042, 79818 of 100000 exchanges delivered
	// adaptive: objective 0.0037, 79818 of 100000 exchanges delivered
}
