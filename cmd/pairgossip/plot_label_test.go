package main

import "testing"

// TestLabelRunsUnsetMeans: a key one run sets and another leaves unset is
// labelled, for the one that leaves it, by what unset means (loss 0,
// link_up 1, activation edges), as sweep report labels it, not "unset",
// which read as another setting.
func TestLabelRunsUnsetMeans(t *testing.T) {
	runs := []*plotRun{
		{dir: "a", cfg: map[string]any{"seed": 1.0, "loss": 0.1, "activation": "clocks"}},
		{dir: "b", cfg: map[string]any{"seed": 1.0}},
	}
	diff := labelRuns(runs)
	if len(diff) != 2 || runs[0].label != "activation=clocks, loss=0.1" || runs[1].label != "activation=edges, loss=0" {
		t.Errorf("keys %v, labels %q and %q", diff, runs[0].label, runs[1].label)
	}
}
