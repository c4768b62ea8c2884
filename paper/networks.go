package paper

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/figure"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/output"
)

// The networks part of the report (issue #34; reproduce --networks): the
// paper's AUC experiment (Breast Cancer, Watts–Strogatz k = 5, p = 0.3, as
// in the paper's report, synchronous and asynchronous gossip) on the
// networks of docs/networks.md — message loss 0, 0.1, 0.3, 0.5, churn with
// 10% and 30% of the nodes offline, node clocks against uniform edges, a
// two-phase changing graph — with the iterations each needs to reach a
// fixed objective beside what the effective spectral gap predicts.
//
// The target objective of an algorithm is a quarter of the way from R_n(0)
// (every run starts at θ = 0) to the final mean objective of the perfect
// network's runs: R* = R_n(0) − ¼ (R_n(0) − R_T^perfect). The iterations to
// reach it are read off the mean trace over the seeds (the first
// measurement at or below R*, interpolated linearly in log t from the one
// before). The prediction is the paper's rate read through the effective
// gap: the iterations needed scale as 1/(1 − λ₂(W̄)), normalised on the
// perfect run, t_pred = t_perfect · gap_perfect / gap_model.

// NetworksPlan sizes the networks part.
type NetworksPlan struct {
	Mode       string `json:"mode"`
	SyncIters  int64  `json:"sync_iters"`
	AsyncIters int64  `json:"async_iters"`
	Runs       int    `json:"runs"`
	LogPoints  int    `json:"log_points"`
	EvalNodes  int    `json:"eval_nodes"`
	// ChurnScale multiplies the churn sessions of the asynchronous runs
	// (given in rounds for the synchronous ones): an event wakes two of n
	// nodes, so a session spanning as many of a node's own steps lasts
	// about n/2 times as many events.
	ChurnScale int `json:"churn_scale"`
}

// NetworksFullPlan is the networks part at its full size.
func NetworksFullPlan() NetworksPlan {
	return NetworksPlan{Mode: "full", SyncIters: 10000, AsyncIters: 100000, Runs: 4, LogPoints: 30, EvalNodes: 50, ChurnScale: 349}
}

// NetworksQuickPlan is the networks part at a size for CI.
func NetworksQuickPlan() NetworksPlan {
	return NetworksPlan{Mode: "quick", SyncIters: 2000, AsyncIters: 20000, Runs: 2, LogPoints: 20, EvalNodes: 16, ChurnScale: 349}
}

// NetworkSetting is one network under one algorithm, with its measured
// and predicted iterations to the target.
type NetworkSetting struct {
	ID        string `json:"id"`
	Algorithm string `json:"algorithm"`
	Group     string `json:"group"` // loss, churn, activation, schedule
	Label     string `json:"label"`
	Model     string `json:"model"` // network.Model's String: the flags
	Iters     int64  `json:"iters"`
	Runs      int    `json:"runs"`
	// EffectiveGap is 1 − λ₂(W̄) under the model (network.Net.EffectiveGap,
	// dense), PerfectGap the paper's network's on the run's graph (the
	// loss-0 row's), for every row, the schedule's included.
	EffectiveGap F `json:"effective_gap"`
	PerfectGap   F `json:"perfect_gap"`
	GapRatio     F `json:"gap_ratio"`
	// Final mean objective, AUC; the fraction of attempted exchanges that
	// were delivered (both messages) and the mean nodes online at the end.
	Objective   F `json:"objective"`
	AUC         F `json:"auc"`
	Delivered   F `json:"delivered_fraction"`
	NodesOnline F `json:"nodes_online"`
	// Reach is the iterations the mean trace needs to reach the target
	// (null: not within Iters); Predicted the perfect run's Reach scaled by
	// gap_perfect/gap_model; Ratio Reach/Predicted.
	Reach     F `json:"iterations_to_target"`
	Predicted F `json:"predicted_iterations"`
	Ratio     F `json:"measured_over_predicted"`
	// Iter and Mean are the mean trace over the seeds.
	Iter     []int64   `json:"iter"`
	Mean     []float64 `json:"objective_mean"`
	RunCSVs  []string  `json:"run_csvs"`
	cfg      pairgossip.Config
	traces   [][]engine.Record
	nodes    int // the run's nodes (the graph's), online throughout without churn
	gapLabel string
}

// NetworksResults is the content of networks.json.
type NetworksResults struct {
	Generator   string            `json:"generator"`
	Plan        NetworksPlan      `json:"plan"`
	BaseSeed    uint64            `json:"base_seed"`
	Started     string            `json:"started"`
	WallSeconds float64           `json:"wall_seconds"`
	Targets     map[string]F      `json:"targets"`    // R* per algorithm
	AtZero      F                 `json:"objective0"` // R_n(0)
	Settings    []*NetworkSetting `json:"settings"`
	Figures     []Figure          `json:"figures"`
	Files       []string          `json:"files"`
	Report      string            `json:"report"`
	byAlgo      map[string][]*NetworkSetting
}

// NetworksOptions configures ReproduceNetworks.
type NetworksOptions struct {
	Out      string
	Plan     NetworksPlan
	Workers  int
	Seed     uint64
	Progress func(Progress)
}

// networkPhases is the number of phases of the two-phase graph over a run.
const networkPhases = 500

// networkSettings lists the settings of one algorithm.
func networkSettings(plan NetworksPlan, algo string, seed uint64) []*NetworkSetting {
	iters, scale := plan.SyncIters, 1
	if algo == "async" {
		iters, scale = plan.AsyncIters, plan.ChurnScale
	}
	var out []*NetworkSetting
	add := func(group, id, label string, set func(c *pairgossip.Config)) {
		c := baseConfig(probAUC, Plan{AUCGammaC: 1, AUCLogPoints: plan.LogPoints, AUCEvalNodes: plan.EvalNodes}, seed)
		c.Algorithm, c.Iters = algo, iters
		set(&c)
		out = append(out, &NetworkSetting{ID: "networks-" + algo + "-" + id, Algorithm: algo, Group: group, Label: label,
			Iters: iters, Runs: plan.Runs, cfg: c, gapLabel: label})
	}
	for _, q := range []float64{0, 0.1, 0.3, 0.5} {
		label := fmt.Sprintf("loss %g", q)
		if q == 0 {
			label = "perfect (loss 0)"
		}
		add("loss", fmt.Sprintf("loss%g", q), label, func(c *pairgossip.Config) { c.Loss = q })
	}
	for _, off := range []int{10, 30} {
		up, down := (100-off)*scale, off*scale
		add("churn", fmt.Sprintf("churn%d", off), fmt.Sprintf("churn %d%% offline", off), func(c *pairgossip.Config) {
			c.Churn = fmt.Sprintf("geometric:up=%d,down=%d", up, down)
		})
	}
	add("activation", "clocks", "node clocks", func(c *pairgossip.Config) { c.Activation = network.ActClocks })
	// Phases short beside the iterations to the target (a few hundred
	// events, asynchronous, at the quick size), so that the graph changes
	// many times before it and the run is the schedule's, not its first
	// phase's (with phases of iters/10 the asynchronous row ran on the
	// first graph alone); the effective gap averages W over the phases.
	phase := max(1, iters/networkPhases)
	add("schedule", "schedule", "two-phase graph", func(c *pairgossip.Config) {
		c.GraphSchedule = fmt.Sprintf("%d:watts-strogatz:k=5,p=0.3,seed=%d;%d:cycle", phase, seed, phase)
	})
	return out
}

// ReproduceNetworks runs the networks part and writes DIR/networks.html,
// DIR/networks.json, DIR/figures/networks-*.png|svg and
// DIR/traces/networks/*.csv (each file atomically).
func ReproduceNetworks(ctx context.Context, opt NetworksOptions) (*NetworksResults, error) {
	plan := opt.Plan
	if plan.Mode == "" {
		plan = NetworksFullPlan()
	}
	if plan.Runs < 1 || plan.SyncIters < 10 || plan.AsyncIters < 10 || plan.LogPoints < 2 {
		return nil, fmt.Errorf("networks plan: runs, iterations and log points too small: %+v", plan)
	}
	if opt.Out == "" {
		return nil, fmt.Errorf("no output directory")
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	t0 := time.Now()
	res := &NetworksResults{Generator: "pairgossip reproduce --networks", Plan: plan, BaseSeed: opt.Seed, Started: t0.UTC().Format(time.RFC3339),
		Targets: map[string]F{}, byAlgo: map[string][]*NetworkSetting{}}
	var jobs []job
	for _, algo := range []string{"sync", "async"} {
		ss := networkSettings(plan, algo, opt.Seed)
		res.byAlgo[algo] = ss
		res.Settings = append(res.Settings, ss...)
		for _, s := range ss {
			s.traces = make([][]engine.Record, plan.Runs)
			for r := 0; r < plan.Runs; r++ {
				s, r := s, r
				cost := float64(s.Iters) / 1e4
				if algo == "sync" {
					cost *= 10
				}
				jobs = append(jobs, job{name: fmt.Sprintf("%s seed %d", s.ID, opt.Seed+uint64(r)), cost: cost, run: func(ctx context.Context) error {
					c := s.cfg
					c.Seed = opt.Seed + uint64(r)
					run, err := pairgossip.Prepare(c)
					if err != nil {
						return err
					}
					defer run.Close()
					if r == 0 {
						s.Model = run.Network.String()
						s.nodes = run.Graph.N
					}
					out, err := run.Execute(ctx, nil)
					if err != nil {
						return err
					}
					s.traces[r] = out.Trace
					return nil
				}})
			}
		}
	}
	// The effective gaps, one per model (the same for both algorithms:
	// churn sessions scaled alike have the same stationary π).
	gaps := map[string]network.Gap{}
	var gmu sync.Mutex
	for _, s := range res.byAlgo["sync"] {
		s := s
		jobs = append(jobs, job{name: "effective gap " + s.gapLabel, cost: 1, run: func(ctx context.Context) error {
			g, err := effectiveGap(s.cfg)
			gmu.Lock()
			gaps[s.gapLabel] = g
			gmu.Unlock()
			return err
		}})
	}
	for _, d := range []string{"figures", filepath.Join("traces", "networks")} {
		if err := os.MkdirAll(filepath.Join(opt.Out, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := runPool(ctx, jobs, workers, opt.Progress); err != nil {
		return nil, err
	}
	for _, algo := range []string{"sync", "async"} {
		ss := res.byAlgo[algo]
		for _, s := range ss {
			g := gaps[s.gapLabel]
			s.EffectiveGap, s.PerfectGap, s.GapRatio = F(g.Value), F(g.Perfect), F(g.Value/g.Perfect)
			if err := s.aggregate(opt.Out, opt.Seed); err != nil {
				return nil, err
			}
			res.Files = append(res.Files, s.RunCSVs...)
		}
		perfect := ss[0] // loss 0
		// Every row's gap beside the paper's network on the run's graph
		// (the loss-0 row's): a schedule's own perfect gap
		// (network.Gap.Perfect, its phases' paper network) would hide what
		// changing the graph does.
		for _, s := range ss {
			s.PerfectGap = perfect.PerfectGap
			s.GapRatio = F(float64(s.EffectiveGap) / float64(s.PerfectGap))
		}
		r0 := perfect.Mean[0]
		res.AtZero = F(r0)
		target := r0 - (r0-perfect.Mean[len(perfect.Mean)-1])/4
		res.Targets[algo] = F(target)
		for _, s := range ss {
			s.Reach = F(reachAt(s.Iter, s.Mean, target))
		}
		for _, s := range ss {
			s.Predicted = F(float64(perfect.Reach) * float64(perfect.EffectiveGap) / float64(s.EffectiveGap))
			s.Ratio = F(float64(s.Reach) / float64(s.Predicted))
		}
	}
	if err := res.figures(ctx, opt.Out); err != nil {
		return nil, err
	}
	res.WallSeconds = time.Since(t0).Seconds()
	res.Report = "networks.html"
	var b bytes.Buffer
	if err := networksPage.Execute(&b, res); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(opt.Out, "networks.html"), b.Bytes()); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(opt.Out, "networks.json"), output.JSON(res)); err != nil {
		return nil, err
	}
	return res, nil
}

// effectiveGap is the effective gap of a setting's network on its graph,
// over its runs' iterations (a schedule's phases weighed as they run, as
// a run's summary.json weighs them).
func effectiveGap(c pairgossip.Config) (network.Gap, error) {
	horizon := c.Iters
	c.Iters, c.SkipOptimum = 1, true
	run, err := pairgossip.Prepare(c)
	if err != nil {
		return network.Gap{}, err
	}
	defer run.Close()
	nt, err := network.New(run.Network, run.Graph, c.Seed) // the paper's network too: its gap is the graph's (Gap.Perfect)
	if err != nil {
		return network.Gap{}, err
	}
	return nt.EffectiveGap(network.GapOptions{Horizon: horizon})
}

// aggregate writes the runs' traces and sets the mean trace and the final
// values.
func (s *NetworkSetting) aggregate(out string, seed uint64) error {
	perfect := !s.cfg.HasNetwork()
	var n int
	for r, tr := range s.traces {
		name := filepath.ToSlash(filepath.Join("traces", "networks", fmt.Sprintf("%s-seed%d.csv", s.ID, seed+uint64(r))))
		if err := writeFile(filepath.Join(out, name), output.TraceCSVNetwork(tr, math.NaN(), !perfect)); err != nil {
			return err
		}
		s.RunCSVs = append(s.RunCSVs, name)
		if r == 0 {
			n = len(tr)
		} else if len(tr) != n {
			return fmt.Errorf("%s: runs measured %d and %d times", s.ID, n, len(tr))
		}
	}
	s.Iter, s.Mean = make([]int64, n), make([]float64, n)
	var auc, del, online float64
	for _, tr := range s.traces {
		for i, rec := range tr {
			s.Iter[i] = rec.Iter
			s.Mean[i] += rec.ObjMean / float64(len(s.traces))
		}
		last := tr[n-1]
		auc += last.AUCMean / float64(len(s.traces))
		if last.Attempted > 0 {
			del += float64(last.Delivered) / float64(last.Attempted) / float64(len(s.traces))
		} else {
			del += 1 / float64(len(s.traces))
		}
		on := float64(last.Online)
		if last.Online < 0 { // no churn: every node online
			on = float64(s.nodes)
		}
		online += on / float64(len(s.traces))
	}
	s.Objective, s.AUC, s.Delivered, s.NodesOnline = F(s.Mean[n-1]), F(auc), F(del), F(online)
	return nil
}

// reachAt returns the first iteration at which the trace (iter, obj) is at
// or below target, interpolated linearly in log t from the measurement
// before; NaN if it never is.
func reachAt(iter []int64, obj []float64, target float64) float64 {
	for i := range obj {
		if obj[i] > target {
			continue
		}
		if i == 0 {
			return float64(iter[0])
		}
		a, b := math.Log(float64(iter[i-1])), math.Log(float64(iter[i]))
		f := (obj[i-1] - target) / (obj[i-1] - obj[i])
		return math.Exp(a + f*(b-a))
	}
	return math.NaN()
}

// figures draws, per algorithm, the objective under loss and under the
// other networks, and the measured iterations to the target against the
// prediction.
func (res *NetworksResults) figures(ctx context.Context, out string) error {
	var figs []Figure
	for _, algo := range []string{"sync", "async"} {
		ss := res.byAlgo[algo]
		name := map[string]string{"sync": "synchronous", "async": "asynchronous"}[algo]
		unit := map[string]string{"sync": "rounds", "async": "edge events"}[algo]
		curves := func(group string) []figure.Curve {
			var cs []figure.Curve
			for k, s := range ss {
				if s.Group != group && !(k == 0 && group != "loss") {
					continue
				}
				x := make([]float64, len(s.Iter))
				for i, t := range s.Iter {
					x[i] = float64(t)
				}
				cs = append(cs, figure.Curve{Label: s.Label, X: x, Y: s.Mean, Color: figure.Palette[len(cs)%len(figure.Palette)]})
			}
			return cs
		}
		target := []figure.HLine{{Y: float64(res.Targets[algo]), Label: "target R*", Color: figure.Grey, Long: true}}
		figs = append(figs, Figure{ID: "networks-" + algo + "-loss", Title: fmt.Sprintf("AUC, %s gossip under message loss", name),
			Caption: fmt.Sprintf("Mean objective over %d seeds (Breast Cancer, Watts–Strogatz k = 5, p = 0.3) with loss q = 0, 0.1, 0.3, 0.5; the dashed line is the target R*.", res.Plan.Runs),
			spec: figSpec{Name: "networks-" + algo + "-loss", Title: fmt.Sprintf("AUC, %s, message loss", name), XLabel: "iteration (" + unit + ")", YLabel: "objective R_n(θ̄_k), mean", LogX: true,
				Curves: curves("loss"), HLines: target}})
		var other []figure.Curve
		for _, g := range []string{"churn", "activation", "schedule"} {
			for _, c := range curves(g) {
				if len(other) > 0 && c.Label == other[0].Label {
					continue
				}
				c.Color = figure.Palette[len(other)%len(figure.Palette)]
				other = append(other, c)
			}
		}
		figs = append(figs, Figure{ID: "networks-" + algo + "-other", Title: fmt.Sprintf("AUC, %s gossip under churn, node clocks and a changing graph", name),
			Caption: "Mean objective over the seeds: the perfect network, churn with 10% and 30% of the nodes offline (geometric sessions), node clocks instead of uniform edges, and a graph alternating between Watts–Strogatz and a cycle every tenth of the run.",
			spec: figSpec{Name: "networks-" + algo + "-other", Title: fmt.Sprintf("AUC, %s, churn / clocks / schedule", name), XLabel: "iteration (" + unit + ")", YLabel: "objective R_n(θ̄_k), mean", LogX: true,
				Curves: other, HLines: target}})
	}
	// Measured against predicted.
	var cs []figure.Curve
	lo, hi := math.Inf(1), math.Inf(-1)
	var markers []figure.Marker
	for k, algo := range []string{"sync", "async"} {
		for _, s := range res.byAlgo[algo] {
			if math.IsNaN(float64(s.Reach)) || math.IsNaN(float64(s.Predicted)) {
				continue
			}
			lo, hi = math.Min(lo, math.Min(float64(s.Predicted), float64(s.Reach))), math.Max(hi, math.Max(float64(s.Predicted), float64(s.Reach)))
			markers = append(markers, figure.Marker{X: float64(s.Predicted), Y: float64(s.Reach), Label: algo + " " + s.Label, Color: figure.Palette[k]})
		}
	}
	if !math.IsInf(lo, 0) {
		cs = append(cs, figure.Curve{Label: "measured = predicted", X: []float64{lo / 1.2, hi * 1.2}, Y: []float64{lo / 1.2, hi * 1.2}, Color: figure.Grey, Dashed: true})
	}
	figs = append(figs, Figure{ID: "networks-prediction", Title: "Iterations to the target: measured against the effective gap's prediction",
		Caption: "Each point is a network under one algorithm: x the prediction t_perfect · gap_perfect / gap_model, y the iterations the mean trace needs to reach R* (settings that do not reach it within the run are left out; see the table).",
		spec: figSpec{Name: "networks-prediction", Title: "iterations to R*: measured vs predicted", XLabel: "predicted iterations", YLabel: "measured iterations", LogX: true, LogY: true,
			Curves: cs, Markers: markers}})
	for i := range figs {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := &figs[i]
		pngData, svgData, err := render(f.spec)
		if err != nil {
			return err
		}
		f.PNG = filepath.ToSlash(filepath.Join("figures", f.ID+".png"))
		f.SVG = filepath.ToSlash(filepath.Join("figures", f.ID+".svg"))
		if err := writeFile(filepath.Join(out, f.PNG), pngData); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(out, f.SVG), svgData); err != nil {
			return err
		}
		f.dataURI = "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData)
		res.Files = append(res.Files, f.PNG, f.SVG)
	}
	res.Figures = figs
	return nil
}

var networksPage = template.Must(template.New("networks").Funcs(funcs).Funcs(template.FuncMap{
	"pct": func(v F) string { return fmt.Sprintf("%.1f%%", 100*float64(v)) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pairgossip — gossip dual averaging on imperfect networks</title>
<style>
` + figure.PageCSS + `</style>
</head>
<body>
<h1>Gossip dual averaging on imperfect networks</h1>
<p>Generated by <code>{{.Generator}}</code> ({{.Plan.Mode}} plan) on {{.Started}} in {{secs .WallSeconds}} s; base seed {{.BaseSeed}}, {{.Plan.Runs}} seeds per setting (run r uses seed {{.BaseSeed}} + r).</p>
<h2 id="method">Method</h2>
<p>The paper's AUC experiment: the embedded Breast Cancer data (699 nodes, logistic pairwise loss, no regulariser, γ(t) = 1/√t),
a Watts–Strogatz graph (k = 5, p = 0.3, graph seed {{.BaseSeed}}), synchronous gossip (Algorithm 2, {{int .Plan.SyncIters}} rounds) and
asynchronous gossip (Algorithm 3, {{int .Plan.AsyncIters}} edge events), the objective R_n(θ̄_k) measured at {{.Plan.EvalNodes}} seeded nodes at {{.Plan.LogPoints}} log-spaced iterations.
Each network is one of docs/networks.md: message loss q (an exchange fails, both messages), churn (geometric online/offline sessions of mean
90/10 and 70/30 rounds; for the asynchronous runs {{.Plan.ChurnScale}} times as many events, so that a session spans as many of a node's own steps),
node clocks (a uniform node wakes and calls a uniform neighbour; p_k exact), and a two-phase graph (Watts–Strogatz, then a cycle, each for a tenth of the run, cycled).</p>
<p><b>Target and prediction.</b> The target of an algorithm is a quarter of the way from R_n(0) = {{num .AtZero}} to the perfect network's final mean objective:
R* = R_n(0) − ¼ (R_n(0) − R_T<sup>perfect</sup>){{range $a, $t := .Targets}}; {{$a}}: R* = {{num $t}}{{end}}.
The iterations to R* are read off the mean trace (the first measurement at or below R*, interpolated in log t).
The prediction takes the paper's rate through the effective spectral gap 1 − λ₂(W̄) of the expected gossip matrix under the model
(docs/networks.md §9): iterations ∝ 1/gap, normalised on the perfect run, <b>t_pred = t_perfect · gap_perfect / gap_model</b>.</p>
<table>
<tr><th class="l">algorithm</th><th class="l">network</th><th class="l">flags</th><th>effective gap (× perfect)</th><th>final objective</th><th>AUC</th><th>delivered</th><th>nodes online</th><th>iterations to R*</th><th>predicted</th><th>measured / predicted</th></tr>
{{range .Settings}}<tr><td class="l">{{.Algorithm}}</td><td class="l">{{.Label}}</td><td class="l"><code>{{.Model}}</code></td><td>{{sig3 .EffectiveGap}} ({{sig3 .GapRatio}})</td><td>{{num .Objective}}</td><td>{{num .AUC}}</td><td>{{pct .Delivered}}</td><td>{{sig3 .NodesOnline}}</td><td>{{if isnan .Reach}}not within {{int .Iters}}{{else}}{{sig3 .Reach}}{{end}}</td><td>{{sig3 .Predicted}}</td><td>{{if isnan .Ratio}}—{{else}}{{sig3 .Ratio}}{{end}}</td></tr>
{{end}}</table>
{{range .Figures}}
<figure>
<img src="{{img .}}" alt="{{.Title}}">
<figcaption><b>{{.Title}}.</b> {{.Caption}} Files: <a href="{{.PNG}}">{{.PNG}}</a>, <a href="{{.SVG}}">{{.SVG}}</a>.</figcaption>
</figure>
{{end}}
<h2 id="files">Files</h2>
<p class="note"><code>networks.json</code> holds every number quoted here; figures in <code>figures/networks-*</code>; each run's trace (with the exchange counters and nodes online) in <code>traces/networks/</code>.</p>
</body>
</html>
`))
