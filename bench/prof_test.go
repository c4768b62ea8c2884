package bench

import (
	"testing"

	"github.com/pairgossip/pairgossip/engine"
)

func BenchmarkProfAsync(b *testing.B) {
	p, g := randomAUC(b, 1000, 16), ws(b, 1000)
	s, err := engine.New(p, g, engine.Config{Algorithm: engine.Async, Iters: 1 << 50, GammaC: 1, Seed: 1, Workers: 1, LogPoints: 1, EvalNodes: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		s.Advance(1 << 22)
	}
}
