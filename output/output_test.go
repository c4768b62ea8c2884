package output

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

// TestTraceCSVMeasureColumns: the measurement's standard errors and sample
// size follow the original columns, which keep their order and values.
func TestTraceCSVMeasureColumns(t *testing.T) {
	tr := []engine.Record{
		{Iter: 1, GradEvals: 2, GradEvalsNonzero: 1, ObjMean: 0.5, ObjStd: 0.1, ObjMin: 0.4, ObjMax: 0.6, AUCMean: 0.75, Bias: 0.01, Consensus: 0.2},
		{Iter: 10, ObjMean: 0.25, AUCMean: 0.8, ObjStdErr: 0.002, AUCStdErr: 0.003, BiasStdErr: 0.0001, MeasurePairs: 8192,
			Measure: engine.MeasureMethods{Obj: problem.MethodSampled, AUC: problem.MethodSorted, Bias: problem.MethodSampled}},
		{Iter: 11, ObjMean: 2, AUCMean: math.NaN()},
	}
	lines := strings.Split(strings.TrimSpace(string(TraceCSV(tr))), "\n")
	head := strings.Split(lines[0], ",")
	want := append(append(append([]string{}, TraceColumns...), TraceMeasureColumns...), TraceOptimumColumns...)
	if strings.Join(head, ",") != strings.Join(want, ",") {
		t.Fatalf("header %v, want %v", head, want)
	}
	if head[len(TraceColumns)] != "objective_stderr" || head[len(TraceColumns)+1] != "auc_stderr" {
		t.Fatalf("the new columns must come right after the original ones: %v", head)
	}
	if lines[1] != "1,2,1,0.5,0.1,0.4,0.6,0.75,0.01,0.2,0,0,0,0,," {
		t.Errorf("exact row %q", lines[1])
	}
	if lines[2] != "10,0,0,0.25,0,0,0,0.8,0,0,0.002,0.003,0.0001,8192,," {
		t.Errorf("sampled row %q", lines[2])
	}
	if lines[3] != "11,0,0,2,0,0,0,,0,0,0,,0,0,," {
		t.Errorf("metric row %q: auc_stderr must be empty (no value) where auc_mean is", lines[3])
	}
	// Non-finite values are empty fields, as they are null in summary.json
	// (issue #15, item 8).
	inf := TraceCSV([]engine.Record{{Iter: 1, ObjMean: math.Inf(1), ObjStd: math.Inf(-1), Consensus: math.NaN()}})
	if row := strings.Split(strings.TrimSpace(string(inf)), "\n")[1]; row != "1,0,0,,,0,0,0,0,,0,0,0,0,," {
		t.Errorf("non-finite row %q", row)
	}
	if b := JSON(struct{ A, B Float }{Float(math.Inf(1)), Float(math.NaN())}); !bytes.Contains(b, []byte(`"A": null`)) || !bytes.Contains(b, []byte(`"B": null`)) {
		t.Errorf("summary.json form %s", b)
	}
}

// TestSummaryMeasureFields: summary.json names the final measurement's
// standard errors, sample size and methods.
func TestSummaryMeasureFields(t *testing.T) {
	final := engine.Record{Iter: 5, ObjMean: 0.3, AUCMean: 0.9, ObjStdErr: 0.001, AUCStdErr: 0.002, BiasStdErr: 0.0005,
		MeasurePairs: 16384, Measure: engine.MeasureMethods{Obj: problem.MethodSampled, AUC: problem.MethodSorted, Bias: problem.MethodStreamed}}
	var s Summary
	s.setMeasure(final, 1)
	b := JSON(s)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"objective_stderr": 0.001, "auc_stderr": 0.002, "bias_stderr": 0.0005, "measure_pairs": 16384.0,
		"measure_mode": "sampled", "measure_mode_auc": "exact-sorted", "measure_mode_bias": "exact-streamed"} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	s = Summary{}
	s.setMeasure(engine.Record{ObjMean: 1, AUCMean: math.NaN()}, 1)
	if s.MeasureMode != "exact" || s.MeasureModeAUC != "none" || !math.IsNaN(float64(s.AUCStdErr)) || s.ObjectiveStdErr != 0 {
		t.Errorf("exact metric summary %+v", s)
	}
	s = Summary{}
	s.setMeasure(engine.Record{}, 0)
	if !bytes.Contains(JSON(s), []byte(`"objective_stderr": null`)) {
		t.Error("an empty trace must give null standard errors")
	}
}

// TestExecutionBuild: summary.json names the build's arithmetic, on which
// a run's bits depend (kernel.Build, kernel.Fused), beside the kernel and
// the LAPACK, in its JSON.
func TestExecutionBuild(t *testing.T) {
	ex := NewExecution("plain", 2)
	if ex.Build != kernel.Build() || ex.FusedMultiplyAdd != kernel.Fused() || ex.Build == "" {
		t.Fatalf("build %q, fused %v; kernel says %q, %v", ex.Build, ex.FusedMultiplyAdd, kernel.Build(), kernel.Fused())
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["build"] != kernel.Build() || m["fused_multiply_add"] != kernel.Fused() {
		t.Fatalf("JSON %s", b)
	}
}
