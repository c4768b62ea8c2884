package paper

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReachAt: the first measurement at or below the target, interpolated
// in log t from the one before; NaN when never reached.
func TestReachAt(t *testing.T) {
	iter := []int64{1, 10, 100, 1000}
	obj := []float64{1, 0.9, 0.5, 0.1}
	if got := reachAt(iter, obj, 0.7); math.Abs(got-math.Sqrt(1000)) > 1e-9 { // halfway from 0.9 to 0.5: t = 10^1.5
		t.Errorf("got %v", got)
	}
	if got := reachAt(iter, obj, 1); got != 1 {
		t.Errorf("reached at the start: %v", got)
	}
	if got := reachAt(iter, obj, 0.05); !math.IsNaN(got) {
		t.Errorf("never reached: %v", got)
	}
}

// TestNetworkSettings: both algorithms have the eight networks of the
// issue, each a valid configuration whose knobs are the ones named.
func TestNetworkSettings(t *testing.T) {
	plan := NetworksQuickPlan()
	for _, algo := range []string{"sync", "async"} {
		ss := networkSettings(plan, algo, 1)
		var labels []string
		for _, s := range ss {
			labels = append(labels, s.Label)
			if err := s.cfg.Validate(); err != nil {
				t.Errorf("%s: %v", s.ID, err)
			}
		}
		if got := strings.Join(labels, ","); got != "perfect (loss 0),loss 0.1,loss 0.3,loss 0.5,churn 10% offline,churn 30% offline,node clocks,two-phase graph" {
			t.Errorf("%s: %s", algo, got)
		}
		if ss[0].cfg.HasNetwork() || ss[3].cfg.Loss != 0.5 || ss[6].cfg.Activation != "clocks" || !strings.Contains(ss[7].cfg.GraphSchedule, ";") {
			t.Errorf("%s: settings %+v", algo, ss)
		}
		// The two phases alternate many times in a run (they are short beside
		// the iterations to the target).
		var phase int64
		fmt.Sscanf(ss[7].cfg.GraphSchedule, "%d:", &phase)
		if phase < 1 || phase*100 > ss[7].Iters {
			t.Errorf("%s: phases of %d iterations in a run of %d (%s)", algo, phase, ss[7].Iters, ss[7].cfg.GraphSchedule)
		}
	}
	if a := networkSettings(plan, "async", 1)[5].cfg.Churn; a != "geometric:up=24430,down=10470" {
		t.Errorf("async churn 30%%: %s", a)
	}
}

// TestReproduceNetworksRenders runs the networks part at a tiny size: the
// page, the JSON and the figures are written, the perfect run's prediction
// is itself, and loss 0.5 halves the effective gap.
func TestReproduceNetworksRenders(t *testing.T) {
	dir := t.TempDir()
	plan := NetworksQuickPlan()
	plan.Runs, plan.SyncIters, plan.AsyncIters, plan.EvalNodes = 1, 800, 4000, 8
	res, err := ReproduceNetworks(context.Background(), NetworksOptions{Out: dir, Plan: plan, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Settings) != 16 || len(res.Figures) != 5 {
		t.Fatalf("%d settings, %d figures", len(res.Settings), len(res.Figures))
	}
	for _, f := range []string{"networks.html", "networks.json", "figures/networks-sync-loss.png", "figures/networks-prediction.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	p := res.byAlgo["sync"]
	if math.Abs(float64(p[0].Ratio)-1) > 1e-12 || math.Abs(float64(p[3].GapRatio)-0.5) > 1e-9 {
		t.Errorf("perfect ratio %v, loss 0.5 gap ratio %v", p[0].Ratio, p[3].GapRatio)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "networks.html"))
	for _, s := range []string{"t_pred = t_perfect · gap_perfect / gap_model", "churn 30% offline", "<img src=\"data:image/png;base64,"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}
