package graph

import (
	"slices"
	"sync"
	"testing"
)

// shareComm is the collectives of P shares drawn by P goroutines (each
// share calls Allgather, then Exchange, once).
type shareComm struct {
	P                int
	gathered         [][]int64
	sent             [][][]int64
	gatherWG, sendWG sync.WaitGroup
}

func newShareComm(P int) *shareComm {
	c := &shareComm{P: P, gathered: make([][]int64, P), sent: make([][][]int64, P)}
	c.gatherWG.Add(P)
	c.sendWG.Add(P)
	return c
}

type shareEnd struct {
	c *shareComm
	r int
}

func (e shareEnd) Allgather(mine []int64) ([]int64, error) {
	e.c.gathered[e.r] = slices.Clone(mine)
	e.c.gatherWG.Done()
	e.c.gatherWG.Wait()
	var all []int64
	for r := e.c.P - 1; r >= 0; r-- { // in reverse: the order must not matter
		all = append(all, e.c.gathered[r]...)
	}
	return all, nil
}

func (e shareEnd) Exchange(out [][]int64) ([]int64, error) {
	e.c.sent[e.r] = out
	e.c.sendWG.Done()
	e.c.sendWG.Wait()
	var got []int64
	for s := range e.c.P {
		got = append(got, e.c.sent[s][e.r]...)
	}
	return got, nil
}

// drawShares draws attempt att of p in the shares cut at bounds, one
// goroutine a share, as ranks would.
func drawShares(t *testing.T, p *Partial, att int, bounds []int) [][][2]int32 {
	t.Helper()
	P := len(bounds) - 1
	c := newShareComm(P)
	shares := make([][][2]int32, P)
	errs := make([]error, P)
	var wg sync.WaitGroup
	for r := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shares[r], errs[r] = p.Draw(att, bounds, r, shareEnd{c, r})
		}()
	}
	wg.Wait()
	for r, e := range shares {
		if errs[r] != nil {
			t.Fatal(errs[r])
		}
		for _, x := range e {
			if int(x[0]) < bounds[r] || int(x[0]) >= bounds[r+1] {
				t.Fatalf("share %d [%d, %d) holds edge %v", r, bounds[r], bounds[r+1], x)
			}
		}
	}
	return shares
}

// TestPartialSharesAreTheGraph: for Watts–Strogatz (with many round-0
// losers at small n and large p, lattice edges wrapping around the ring)
// and Erdős–Rényi (several row blocks), the shares of 1 to 4 ranks (and
// uneven cuts with an empty share) laid end to end are the edge list of
// the whole draw, attempt by attempt, and of Build's accepted graph.
func TestPartialSharesAreTheGraph(t *testing.T) {
	withLarge(t, 100, func() {
		saved := erBlockEdges
		erBlockEdges = 64
		defer func() { erBlockEdges = saved }()
		specs := []Spec{
			{Kind: "watts-strogatz", N: 200, K: 6, P: 0.9, Seed: 3},
			{Kind: "watts-strogatz", N: 1000, K: 4, P: 0.3, Seed: 1},
			{Kind: "watts-strogatz", N: 777, K: 2, P: 0.5, Seed: 9},
			{Kind: "watts-strogatz", N: 150, K: 5, P: 0, Seed: 2},
			{Kind: "watts-strogatz", N: 300, K: 11, P: 1, Seed: 4},
			{Kind: "erdos-renyi", N: 1500, P: 0.004, Seed: 5},
			{Kind: "erdos-renyi", N: 400, P: 0.05, Seed: 6},
		}
		for _, spec := range specs {
			p, err := NewPartial(spec)
			if err != nil || p == nil {
				t.Fatalf("%+v: NewPartial %v, %v", spec, p, err)
			}
			g, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			n := spec.N
			for _, att := range slices.Compact([]int{0, 1, 2, g.Tries - 1}) {
				var want [][2]int32
				if spec.Kind == "watts-strogatz" {
					half := spec.K / 2
					want = wattsStrogatzLarge(p.Name, n, half, spec.P, attemptKey(spec.Seed, streamWattsStrogatz, att)).Edges
				} else {
					want = fromLower(p.Name, spec.Kind, n, erdosRenyiLarge(n, spec.P, attemptKey(spec.Seed, streamErdosRenyi, att), 0, n)).Edges
				}
				if att == g.Tries-1 && !slices.Equal(want, g.Edges) { // the ER cases need several draws
					t.Fatalf("%s: attempt %d is not Build's graph", p.Name, att)
				}
				cuts := [][]int{{0, n}, {0, n / 2, n}, {0, n / 3, 2 * n / 3, n}, {0, n / 4, n / 2, 3 * n / 4, n},
					{0, 7, 7, n - 3, n}, {0, 0, n / 5, n}}
				for _, bounds := range cuts {
					got := slices.Concat(drawShares(t, p, att, bounds)...)
					if !slices.Equal(got, want) {
						t.Fatalf("%s, attempt %d, cuts %v: the shares (%d edges) are not the graph's %d edges", p.Name, att, bounds, len(got), len(want))
					}
				}
			}
		}
	})
	// Below largeN, and the other kinds, are built whole.
	for _, spec := range []Spec{{Kind: "watts-strogatz", N: 1000, K: 4, P: 0.3}, {Kind: "cycle", N: 1 << 20}, {Kind: "torus", N: 1 << 20}} {
		if p, err := NewPartial(spec); p != nil || err != nil {
			t.Errorf("%+v: NewPartial %v, %v; want nil, nil", spec, p, err)
		}
	}
	if _, err := NewPartial(Spec{Kind: "watts-strogatz", N: 1 << 18, K: 1, P: 0.3}); err == nil {
		t.Error("k = 1 accepted")
	}
}
