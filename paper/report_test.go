package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/engine"
)

// tinyPlan is the quick plan cut further so that the whole pipeline runs in
// a few seconds.
func tinyPlan() Plan {
	p := QuickPlan()
	p.Mode = "custom"
	p.WSGraphSeeds = 2
	p.AUCSyncIters, p.AUCAsyncIters, p.MetricIters, p.MetricBCWIters = 1200, 8000, 300, 1500
	p.AUCLogPoints, p.MetricLogPoints = 8, 5
	p.AUCEvalNodes, p.MetricEvalNodes, p.MetricBCWEvalNodes = 8, 2, 4
	p.PilotGammaCs, p.PilotIters, p.PilotBCWIters = []float64{0.01, 0.1}, 200, 500
	p.OptimumMaxIter = 3
	return p
}

// TestReproduceTiny runs the whole pipeline and checks what CI relies on:
// the report and results.json exist and hold every experiment, Table 1's
// complete and cycle gaps match the paper to 3 significant digits, the
// figures exist in PNG and SVG, and the claims carry numbers.
func TestReproduceTiny(t *testing.T) {
	dir := t.TempDir()
	res, err := Reproduce(context.Background(), Options{Out: dir, Plan: tinyPlan(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("data:image/png;base64,")) {
		t.Error("report.html embeds no PNG")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Experiments []struct {
			ID      string `json:"id"`
			Figures []struct {
				ID, PNG, SVG string
			} `json:"figures"`
			Table1 *struct {
				Rows []struct {
					N     int `json:"n"`
					Cells []struct {
						Graph   string   `json:"graph"`
						Value   *float64 `json:"value"`
						Paper   *float64 `json:"paper"`
						Matches *bool    `json:"matches"`
					} `json:"cells"`
				} `json:"rows"`
			} `json:"table1"`
			Claims []struct {
				ID       string              `json:"id"`
				Verdict  string              `json:"verdict"`
				Measured string              `json:"measured"`
				Numbers  map[string]*float64 `json:"numbers"`
			} `json:"claims"`
		} `json:"experiments"`
		Settings []struct {
			ID       string `json:"id"`
			TraceCSV string `json:"trace_csv"`
			RunCSVs  []string
		} `json:"settings"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for i, e := range got.Experiments {
		ids[e.ID] = i
	}
	for _, id := range []string{"table1", "fig1a", "fig1b", "fig1c", "fig2", "fig3", "supp_metric_bcw", "supp_metric_baseline", "claims"} {
		if _, ok := ids[id]; !ok {
			t.Errorf("results.json has no experiment %q", id)
		}
		if !strings.Contains(string(html), `id="`+id+`"`) {
			t.Errorf("report.html has no section %q", id)
		}
	}
	// Fig. 3 has the objective and the bias.
	if i, ok := ids["fig3"]; ok {
		var names []string
		for _, f := range got.Experiments[i].Figures {
			names = append(names, f.ID)
		}
		if j := strings.Join(names, ","); !strings.Contains(j, "fig3a") || !strings.Contains(j, "fig3b") {
			t.Errorf("fig3 figures = %v, want the objective (fig3a) and the bias (fig3b)", names)
		}
	}
	// Table 1.
	if i, ok := ids["table1"]; ok {
		tab := got.Experiments[i].Table1
		if tab == nil || len(tab.Rows) != 2 {
			t.Fatalf("table1 = %+v", tab)
		}
		for _, r := range tab.Rows {
			for _, c := range r.Cells {
				if c.Value == nil || c.Paper == nil {
					t.Errorf("n=%d %s: missing value", r.N, c.Graph)
					continue
				}
				if c.Graph == "ws" {
					if math.Abs(*c.Value-*c.Paper)/(*c.Paper) > 0.2 {
						t.Errorf("Watts–Strogatz n=%d: %g, paper %g", r.N, *c.Value, *c.Paper)
					}
					continue
				}
				if c.Matches == nil || !*c.Matches || sig3(*c.Value) != sig3(*c.Paper) {
					t.Errorf("%s n=%d: %s does not match the paper's %s", c.Graph, r.N, sig3(*c.Value), sig3(*c.Paper))
				}
			}
		}
	}
	// Every figure exists, PNG and SVG, non-empty.
	nfig := 0
	for _, e := range got.Experiments {
		for _, f := range e.Figures {
			nfig++
			for _, p := range []string{f.PNG, f.SVG} {
				st, err := os.Stat(filepath.Join(dir, p))
				if err != nil || st.Size() < 1000 {
					t.Errorf("figure %s: %s missing or tiny (%v)", f.ID, p, err)
				}
			}
			png, _ := os.ReadFile(filepath.Join(dir, f.PNG))
			if !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Errorf("%s is not a PNG", f.PNG)
			}
		}
	}
	if nfig < 10 {
		t.Errorf("%d figures, want at least 10", nfig)
	}
	// Claims carry numbers.
	if i, ok := ids["claims"]; ok {
		cl := got.Experiments[i].Claims
		if len(cl) < 10 {
			t.Errorf("%d claims, want at least 10", len(cl))
		}
		want := map[string]bool{"gradient_evaluations_to_threshold": false, "fig1a_topology": false, "fig1c_bias_small": false, "table1_spectral_gaps": false}
		for _, c := range cl {
			if _, ok := want[c.ID]; ok {
				want[c.ID] = true
			}
			finite := 0
			for _, v := range c.Numbers {
				if v != nil && !math.IsNaN(*v) {
					finite++
				}
			}
			if finite == 0 || c.Measured == "" || c.Verdict == "" {
				t.Errorf("claim %s has no numbers (%d), measurement %q or verdict %q", c.ID, finite, c.Measured, c.Verdict)
			}
		}
		for id, seen := range want {
			if !seen {
				t.Errorf("claim %s missing", id)
			}
		}
	}
	// Traces.
	if len(got.Settings) == 0 {
		t.Fatal("no settings")
	}
	for _, s := range got.Settings {
		b, err := os.ReadFile(filepath.Join(dir, s.TraceCSV))
		if err != nil || !bytes.HasPrefix(b, []byte("iter,")) || bytes.Count(b, []byte("\n")) < 3 {
			t.Errorf("%s: bad mean trace %s (%v)", s.ID, s.TraceCSV, err)
		}
		for _, p := range s.RunCSVs {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("%s: %v", s.ID, err)
			}
		}
	}
	if res.Experiment("claims") == nil || len(res.AllClaims()) == 0 {
		t.Error("Results.AllClaims is empty")
	}
	// No temporary files are left behind.
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestConcurrencyIndependent checks that the traces do not depend on the
// number of concurrent runs.
func TestConcurrencyIndependent(t *testing.T) {
	plan := tinyPlan()
	plan.Runs = 3
	var pick []Setting
	for _, s := range buildSettings(plan, 7) {
		switch s.ID {
		case "auc-sync-ws", "auc-async-unbiased-cycle", "metric-bcw-async-complete":
			s.Config.Iters = min(s.Config.Iters, 600)
			pick = append(pick, s)
		}
	}
	if len(pick) != 3 {
		t.Fatalf("picked %d settings", len(pick))
	}
	run := func(workers int) []SettingResult {
		srs, jobs := settingJobs(pick, 7)
		if err := runPool(context.Background(), jobs, workers, nil); err != nil {
			t.Fatal(err)
		}
		return srs
	}
	a, b := run(1), run(4)
	for i := range a {
		for r := range a[i].runs {
			ta, tb := a[i].runs[r].Trace, b[i].runs[r].Trace
			if len(ta) == 0 || len(ta) != len(tb) {
				t.Fatalf("%s run %d: %d vs %d records", a[i].ID, r, len(ta), len(tb))
			}
			for k := range ta {
				if fmt.Sprintf("%+v", ta[k]) != fmt.Sprintf("%+v", tb[k]) { // NaN-safe and exact (shortest round-trip formatting)
					t.Fatalf("%s run %d differs at record %d: %+v vs %+v", a[i].ID, r, k, ta[k], tb[k])
				}
			}
		}
		if fmt.Sprintf("%+v", a[i].runs[0].Trace) == fmt.Sprintf("%+v", a[i].runs[1].Trace) {
			t.Errorf("%s: runs 1 and 2 are identical; seeds are not varied", a[i].ID)
		}
	}
}

func TestCrossing(t *testing.T) {
	xs := []float64{1, 10, 100, 1000}
	ys := []float64{1, 0.5, 0.05, 0.01}
	// Between 10 (0.5) and 100 (0.05): log-linear, 0.1 is at f = log(0.2)/log(0.1).
	x, ok := crossing(xs, ys, 0.1)
	want := math.Pow(10, 1+math.Log(0.2)/math.Log(0.1))
	if !ok || math.Abs(x-want) > 1e-9*want {
		t.Errorf("crossing = %g, %v; want %g", x, ok, want)
	}
	if _, ok := crossing(xs, ys, 0.001); ok {
		t.Error("crossing below the curve reported as reached")
	}
	if x, ok := crossing(xs, ys, 2); !ok || x != 1 {
		t.Errorf("level above the start: %g, %v", x, ok)
	}
	// A zero abscissa (no non-zero gradient yet) falls back to linear.
	if x, ok := crossing([]float64{0, 10}, []float64{1, 0.1}, 0.5); !ok || !(x > 0 && x < 10) {
		t.Errorf("zero abscissa: %g, %v", x, ok)
	}
	if v := interpAt(xs, []float64{0, 1, 2, 3}, 31.622776601683793); math.Abs(v-1.5) > 1e-12 {
		t.Errorf("interpAt = %g, want 1.5", v)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{210000, "210,000"}, {25031, "25,000"}, {0.0028344, "0.00283"}, {1.5, "1.5"}, {2.5e-5, "2.50×10^-05"}, {math.NaN(), "n/a"}} {
		if got := num(c.v); got != c.want {
			t.Errorf("num(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{1e4, "10⁴"}, {2e5, "2×10⁵"}, {100, "100"}, {0.05, "0.05"}, {1e-5, "10⁻⁵"}} {
		if got := fmtTick(c.v); got != c.want {
			t.Errorf("fmtTick(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	if sig3(1.4306e-3) != sig3(1.43e-3) || sig3(1.436e-3) == sig3(1.43e-3) {
		t.Error("sig3 does not compare at 3 significant digits")
	}
}

func TestPlansValid(t *testing.T) {
	for _, p := range []Plan{FullPlan(), QuickPlan(), LongPlan(), tinyPlan()} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Mode, err)
		}
	}
	if l, f := LongPlan(), FullPlan(); l.MetricIters <= f.MetricIters || l.PilotIters != l.MetricIters || l.Runs != f.Runs {
		t.Errorf("long plan: metric %d (full %d), pilot %d, runs %d: want a longer metric horizon, the pilot to it, the same runs", l.MetricIters, f.MetricIters, l.PilotIters, l.Runs)
	}
	bad := QuickPlan()
	bad.Runs = 0
	if bad.Validate() == nil {
		t.Error("runs = 0 accepted")
	}
	if _, err := Reproduce(context.Background(), Options{Out: t.TempDir(), Plan: bad}); err == nil {
		t.Error("Reproduce accepted an invalid plan")
	}
}

func TestCancelled(t *testing.T) {
	// Cancelled after a few jobs have finished: the error is returned, an
	// existing report is left as it was and no results.json appears.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	old := []byte("an earlier report")
	if err := os.WriteFile(filepath.Join(dir, "report.html"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := 0
	_, err := Reproduce(ctx, Options{Out: dir, Plan: tinyPlan(), Workers: 1, Progress: func(Progress) {
		if jobs++; jobs == 2 {
			cancel()
		}
	}})
	if err == nil {
		t.Fatal("a cancelled reproduction succeeded")
	}
	if jobs < 2 {
		t.Fatalf("cancelled after %d jobs, want the cancellation mid-run", jobs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !bytes.Equal(b, old) {
		t.Errorf("cancelled run changed report.html (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.json")); err == nil {
		t.Error("cancelled run left results.json")
	}
}

// TestOneRunHasNoSeedSpread: the spread across runs of one run is
// undefined (NaN: empty in the CSV), not 0, so that no claim reads a
// standard error of 0 into it; two runs give their sample standard
// deviation.
func TestOneRunHasNoSeedSpread(t *testing.T) {
	rec := func(obj, bias float64) []engine.Record {
		return []engine.Record{{Iter: 1, ObjMean: obj, Bias: bias}}
	}
	one, err := aggregate([]runResult{{Trace: rec(1, 0.1)}})
	if err != nil || !math.IsNaN(float64(one[0].ObjectiveSeedStd)) || !math.IsNaN(float64(one[0].BiasSeedStd)) {
		t.Fatalf("one run: %+v %v", one, err)
	}
	if csv := string(meanCSV(one, 1)); !strings.Contains(csv, "\n1,0,0,1,0,,") {
		t.Errorf("one run's CSV: %q", csv)
	}
	two, _ := aggregate([]runResult{{Trace: rec(1, 0.1)}, {Trace: rec(3, 0.3)}})
	if s := float64(two[0].ObjectiveSeedStd); math.Abs(s-math.Sqrt2) > 1e-15 {
		t.Errorf("two runs: objective spread %v, want √2", s)
	}
}
