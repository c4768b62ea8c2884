// Command pairwise-squared defines its own pairwise loss and runs it with
// synchronous and asynchronous gossip dual averaging: learn θ so that
// (x_i − x_j)ᵀθ predicts the difference t_i − t_j of a real target,
//
//	f(θ; x_i, x_j) = ((x_i − x_j)ᵀθ − (t_i − t_j))²,
//
// on a generated data set and a graph given as an edge list, then prints
// the objective against the centralized optimum. Run: go run ./examples/pairwise-squared
package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/problem"
)

// diffSquared is the loss; it reads the targets by point index.
type diffSquared struct{ target []float64 }

func (l *diffSquared) Info() problem.ObjectiveInfo {
	return problem.ObjectiveInfo{Name: "diff-squared", Params: "targets=generated", Smooth: true}
}
func (l *diffSquared) Contributes(li, lj int32) bool { return true }
func (l *diffSquared) residual(theta, xi, xj []float64, i, j int) float64 {
	return problem.Margin(theta, xi, xj) - (l.target[i] - l.target[j])
}
func (l *diffSquared) Loss(theta, xi, xj []float64, i, j int) float64 {
	r := l.residual(theta, xi, xj, i, j)
	return r * r
}
func (l *diffSquared) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	problem.AddScaledDiff(g, 2*w*l.residual(theta, xi, xj, i, j), xi, xj) // 2r·(x_i − x_j)
	return true
}

func main() {
	const n, d = 200, 5
	rng := rand.New(rand.NewPCG(1, 2))
	x, labels, target := make([]float64, n*d), make([]int32, n), make([]float64, n)
	w := []float64{1, -2, 0.5, 0, 1.5}
	for i := 0; i < n; i++ {
		for a := 0; a < d; a++ {
			x[i*d+a] = rng.NormFloat64()
			target[i] += w[a] * x[i*d+a]
		}
		target[i] += 0.3 * rng.NormFloat64()
	}
	var edges [][2]int32 // a cycle and random chords
	for i := 0; i < n; i++ {
		edges = append(edges, [2]int32{int32(i), int32((i + 1) % n)})
		for c := 0; c < 3; c++ {
			if j := rng.IntN(n); j != i {
				edges = append(edges, [2]int32{int32(i), int32(j)})
			}
		}
	}
	in := pairgossip.Input{Objective: &diffSquared{target}, X: x, N: n, D: d, Labels: labels, Edges: edges}
	for _, algo := range []string{"sync", "async"} {
		cfg := pairgossip.DefaultConfig() // the step sizes below were tuned by hand
		cfg.Algorithm, cfg.Iters, cfg.GammaC, cfg.Reg, cfg.Lambda, cfg.LogPoints = algo, 30000, 0.1, "l2", 0.01, 5
		if algo == "async" { // one event updates two nodes: 10⁶ events ≈ 10⁴ rounds
			cfg.Iters, cfg.GammaC = 1000000, 0.01
		}
		run, err := pairgossip.PrepareInput(cfg, in)
		if err != nil {
			panic(err)
		}
		res, err := run.Execute(context.Background(), nil)
		run.Close()
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-5s gossip: objective %.5f, centralized optimum %.5f (%s), %.1f%% above\n", algo,
			res.Final.ObjMean, res.Optimum.Value, res.Optimum.Method, 100*(res.Final.ObjMean-res.Optimum.Value)/res.Optimum.Value)
	}
}
