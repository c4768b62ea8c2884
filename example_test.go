package pairgossip_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pairgossip/pairgossip"
)

// Synchronous gossip dual averaging for AUC maximization on the embedded
// Breast Cancer data over a Watts–Strogatz network, as in the paper.
func Example() {
	cfg := pairgossip.DefaultConfig() // auc, breast-cancer, watts-strogatz(k=5, p=0.3), sync, γ(t) = 1/√t
	cfg.Iters = 2000
	cfg.LogPoints = 5
	cfg.EvalNodes = 32 // measure R_n(θ̄_k) at a seeded sample of 32 nodes

	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), func(r pairgossip.Record) {
		fmt.Printf("iter %4d: mean objective %.3f\n", r.Iter, r.ObjMean)
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("optimum %.4f, AUC %.2f\n", res.Optimum.Value, res.Final.AUCMean)
	// Output:
	// iter    1: mean objective 0.157
	// iter    7: mean objective 0.157
	// iter   45: mean objective 0.157
	// iter  299: mean objective 0.155
	// iter 2000: mean objective 0.080
	// optimum 0.0028, AUC 0.99
}

// The nodes' running averages θ̄_k after a run, in memory (Run.Model): the
// values run --save-model writes as theta_bar.npy, bit for bit.
func ExampleRun_Model() {
	cfg := pairgossip.DefaultConfig()
	cfg.Iters, cfg.LogPoints, cfg.SkipOptimum = 500, 3, true
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer run.Close()
	res, err := run.Execute(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	m := res.Model() // or run.Model(); before Close
	fmt.Printf("%d nodes × %d parameters; node 0 has %d; mean θ̄ has %d\n", m.Rows, m.P, len(m.Row(0)), len(m.Mean))
	// Output:
	// 699 nodes × 9 parameters; node 0 has 9; mean θ̄ has 9
}
