package pairgossip

import (
	"context"
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/npy"
)

// TestModelEqualsSavedNPY: the θ̄_k a program gets from Go (Run.Model,
// Result.Model) are bit for bit the rows of the saved theta_bar.npy, and
// their mean is theta_bar_mean.npy, both read back through package npy.
func TestModelEqualsSavedNPY(t *testing.T) {
	for _, algo := range []string{"sync", "async", "centralized"} {
		cfg := DefaultConfig()
		cfg.Algorithm, cfg.Iters, cfg.SkipOptimum, cfg.Workers = algo, 300, true, 2
		run, err := Prepare(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := run.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Model()
		mf, err := run.SaveModel(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := npy.ReadFile(mf.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		mean, err := npy.ReadFile(mf.Mean)
		if err != nil {
			t.Fatal(err)
		}
		wantRows := run.Data.N
		if algo == "centralized" {
			wantRows = 1
		}
		if m.Rows != wantRows || m.P != run.Problem.P || len(nodes.Shape) != 2 || nodes.Shape[0] != m.Rows || nodes.Shape[1] != m.P {
			t.Fatalf("%s: model %d×%d, file shape %v, want %d rows", algo, m.Rows, m.P, nodes.Shape, wantRows)
		}
		moved := false
		for i, v := range m.Data {
			if math.Float64bits(v) != math.Float64bits(nodes.Data[i]) {
				t.Fatalf("%s: θ̄ element %d: %v from Go, %v in the file", algo, i, v, nodes.Data[i])
			}
			moved = moved || v != 0
		}
		if !moved {
			t.Fatalf("%s: the model is all zeros", algo)
		}
		if len(mean.Shape) != 1 || mean.Shape[0] != m.P {
			t.Fatalf("%s: mean file shape %v", algo, mean.Shape)
		}
		for a, v := range m.Mean {
			if math.Float64bits(v) != math.Float64bits(mean.Data[a]) {
				t.Fatalf("%s: mean[%d] %v from Go, %v in the file", algo, a, v, mean.Data[a])
			}
			var s float64
			for k := 0; k < m.Rows; k++ {
				s += m.Row(k)[a]
			}
			if s/float64(m.Rows) != v {
				t.Fatalf("%s: mean[%d] = %v is not the rows' mean %v", algo, a, v, s/float64(m.Rows))
			}
		}
		run.Close()
	}
}
