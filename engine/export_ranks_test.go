package engine

import (
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/problem"
)

// TestExportRanks: the exported forms give the engine's own values (the
// run over ranks relies on them for its bits).
func TestExportRanks(t *testing.T) {
	x, y, z := []float64{1, -2, 0.5}, []float64{0.25, 3, -1}, []float64{0.1, 0.7, -0.3}
	if a, b := MarginScaled(x, y, z, -0.3), marginScaled(x, y, z, -0.3); math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("MarginScaled %v, marginScaled %v", a, b)
	}
	for _, reg := range []problem.Regularizer{{}, {Kind: problem.RegL2Sq, Lambda: 0.01}} {
		s := state{prob: &problem.Problem{Reg: reg}}
		if a, b := LinearScale(reg, 0.2, 17), s.linearScale(0.2, 17); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("%v: LinearScale %v, linearScale %v", reg.Kind, a, b)
		}
	}
	if got := LinearScale(problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.5}, 0.1, 10); got != -0.1/(1+2*10*0.1*0.5) {
		t.Errorf("LinearScale with squared ℓ2: %v", got)
	}
	for _, ev := range []int{-1, 0, 7} {
		cfg := Config{EvalNodes: ev}
		for _, n := range []int{100, 1 << 20} {
			if a, b := EvalCount(problem.AUCLogistic, n, n/3, 8, cfg), evalCountShape(problem.AUCLogistic, n, n/3, 8, cfg, n); a != b {
				t.Errorf("EvalNodes %d, n %d: EvalCount %d, evalCountShape %d", ev, n, a, b)
			}
		}
	}
}
