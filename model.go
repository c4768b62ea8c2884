package pairgossip

import "github.com/pairgossip/pairgossip/layout"

// Model is the nodes' running averages θ̄_k, the paper's output, copied
// out of a run: row k of Data (Rows×P, row-major) is θ̄_k of node k (one
// row for the centralized algorithm), a matrix parameter flattened
// row-major as in the saved files (output.SaveModel); Mean is their mean over the nodes,
// summed in node order (the bits of the saved mean, output.ModelMeanFile).
type Model struct {
	Rows, P int
	Data    []float64
	Mean    []float64
}

// Row returns θ̄_k of node k (a view of Data).
func (m *Model) Row(k int) []float64 { return m.Data[k*m.P : (k+1)*m.P] }

// Model copies the nodes' current θ̄_k and their mean out of the run: after
// Execute, the final model — the values output.SaveModel writes, bit for bit. It
// must be called before Close. It holds Rows·P float64 (n = 10⁷ nodes of
// d = 16 is 1.28 GB): at such sizes, output.SaveModel and a memory map of the file
// cost less.
func (r *Run) Model() *Model {
	bar := r.Sim.ThetaBar
	rows, P := bar.Rows, r.Problem.P
	m := &Model{Rows: rows, P: P, Data: make([]float64, rows*P), Mean: make([]float64, P)}
	for k := 0; k < rows; k++ {
		copy(m.Data[k*P:(k+1)*P], bar.Row(k)[:P])
	}
	modelMean(m.Mean, bar, rows, P)
	return m
}

// Model is the model of the run that returned res (Run.Model): valid
// until the run is closed.
func (res *Result) Model() *Model {
	if res.run == nil {
		return nil
	}
	return res.run.Model()
}

// modelMean sets mean to the mean of the first P columns of bar's rows, in
// node order.
func modelMean(mean []float64, bar layout.Matrix, rows, P int) {
	clear(mean)
	for k := 0; k < rows; k++ {
		for a, v := range bar.Row(k)[:P] {
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(rows)
	}
}

// ModelMean is the mean of the nodes' current θ̄_k over the nodes, summed in
// node order (Model.Mean, without copying the rows).
func (r *Run) ModelMean() []float64 {
	mean := make([]float64, r.Problem.P)
	modelMean(mean, r.Sim.ThetaBar, r.Sim.ThetaBar.Rows, r.Problem.P)
	return mean
}

// NodeRecord is one evaluated node's values at one measurement
// (ExecOptions.TraceNodes; nodes.csv).
type NodeRecord struct {
	Iter      int64
	Node      int     // the node's index, 0-based (as in theta_bar.npy's rows)
	Degree    int     // its degree in the run's graph (0: centralized)
	Objective float64 // R_n(θ̄_k), exact or, for a sampled measurement, estimated on the record's pair sample
	AUC       float64 // the AUC of θ̄_k (NaN: metric learning, none)
}
