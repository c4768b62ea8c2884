package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/internal/figure"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/pairgossip/pairgossip/internal/atomicfile"
)

// ReportMetrics are the final metrics a report aggregates: the trace's
// final values, suboptimality = objective_mean − optimum_objective, and the
// wall time.
var ReportMetrics = []string{"objective_mean", "objective_std", "objective_min", "objective_max",
	"suboptimality", "auc_mean", "bias", "consensus", "optimum_objective", "wall_seconds"}

// ReportOptions configures BuildReport.
type ReportOptions struct {
	// Over are the configuration keys aggregated over (default: seed).
	Over []string
	// Metrics to plot (default: objective_mean).
	Metrics []string
	// X is the key on the plots' x axis (default: the first swept key that
	// is not in Over, in axis order).
	X string
}

type reportRun struct {
	id     string
	cfg    map[string]json.RawMessage
	status string
	vals   map[string]float64
	order  int
}

// Group is one configuration less the Over keys.
type Group struct {
	Values   []string // of Report.Keys
	raw      []json.RawMessage
	Runs     int
	Complete int
	Diverged int
	Failed   int
	Mean     map[string]float64 // over the complete runs
	Std      map[string]float64 // sample standard deviation (NaN for fewer than 2)
	// Curves are the traces of the complete runs by metric (the trace
	// columns of CurveMetrics), aggregated iteration by iteration.
	Curves map[string]*Curve
	order  int
}

// Curve is a metric's trace aggregated over a group's complete runs: at
// each logged iteration, the mean and the sample standard deviation (NaN
// for fewer than 2) over the runs that logged it.
type Curve struct {
	Iter, Mean, Std []float64
	Runs            []int // how many runs logged each iteration
}

// CurveMetrics are the metrics whose traces sweep report draws as curves
// (suboptimality: objective_mean less the run's optimum).
var CurveMetrics = []string{"objective_mean", "objective_std", "suboptimality", "auc_mean", "bias", "consensus"}

// Report is a sweep's results aggregated per configuration.
type Report struct {
	Keys    []string // the swept keys that define a group, in axis order
	Over    []string
	Metrics []string
	Groups  []*Group
	Plots   []string // files written by Write
	X       string
	// Superseded counts the runs left out: those of a configuration on
	// earlier contents of its input files, planned again since on the
	// current ones (Store.latestPlans).
	Superseded int
	// Mixed names the groups whose runs were planned from sweep files in
	// several folders with the same relative input names (other files,
	// maybe other contents): averaged together, as their swept values are
	// the same; a key that tells them apart (data, a file's name) would
	// split them.
	Mixed []string
}

// LoadReport reads the runs of a results database and groups them.
func LoadReport(st *Store, opt ReportOptions) (*Report, error) {
	if len(opt.Over) == 0 {
		opt.Over = []string{"seed"}
	}
	over := map[string]bool{}
	for i, o := range opt.Over {
		k := keyByName[o]
		if k == nil {
			return nil, fmt.Errorf("--over: unknown key %q (valid: %s)", o, strings.Join(KeyNames(), ", "))
		}
		opt.Over[i] = k.Name // a deprecated spelling names the same key
		over[k.Name] = true
	}
	if k := keyByName[opt.X]; k != nil {
		opt.X = k.Name
	}
	runs, err := st.reportRuns()
	if err != nil {
		return nil, err
	}
	// The runs of a configuration on earlier contents of its input files
	// are left out: averaged with the current ones they would mix two
	// problems in one row.
	latest, err := st.latestPlans()
	if err != nil {
		return nil, err
	}
	superseded := 0
	kept := runs[:0]
	for _, r := range runs {
		if last, planned := latest[r.id]; planned && !last {
			superseded++
			continue
		}
		kept = append(kept, r)
	}
	runs = kept
	for _, r := range runs {
		r.vals["suboptimality"] = r.vals["objective_mean"] - r.vals["optimum_objective"]
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", st.Path)
	}
	rep := &Report{Over: opt.Over, Metrics: ReportMetrics, Superseded: superseded}
	if rep.Keys, err = sweptKeys(st, runs, over); err != nil {
		return nil, err
	}
	byKey := map[string]*Group{}
	members := map[*Group][]*reportRun{}
	for _, r := range runs {
		var parts []string
		raw := make([]json.RawMessage, len(rep.Keys))
		for i, k := range rep.Keys {
			raw[i] = r.cfg[jsonName(k)]
			parts = append(parts, string(raw[i]))
		}
		gk := strings.Join(parts, "\x00")
		g := byKey[gk]
		if g == nil {
			g = &Group{raw: raw, order: r.order}
			for i, x := range raw {
				if x == nil {
					// Left unset (the JSON form omits a zero): named by what
					// that means (loss 0, link_up 1, activation edges), as a
					// number where it is one, so that it plots at its x.
					raw[i] = unsetRaw(keyByName[rep.Keys[i]].param.UnsetLabel())
				}
				g.Values = append(g.Values, rawLabel(raw[i]))
			}
			byKey[gk] = g
			rep.Groups = append(rep.Groups, g)
		}
		g.order = min(g.order, r.order)
		g.Runs++
		switch r.status {
		case StatusComplete:
			g.Complete++
			members[g] = append(members[g], r)
		case StatusDiverged:
			g.Diverged++
		default:
			g.Failed++
		}
	}
	sort.SliceStable(rep.Groups, func(i, j int) bool { return rep.Groups[i].order < rep.Groups[j].order })
	srcs, err := st.planSources()
	if err != nil {
		return nil, err
	}
	for _, g := range rep.Groups {
		seen := map[string]bool{}
		var dirs []string
		for _, r := range members[g] {
			if s := srcs[r.id]; s != "" && !seen[s] {
				seen[s] = true
				dirs = append(dirs, s)
			}
		}
		if len(dirs) > 1 {
			sort.Strings(dirs)
			label := strings.Join(g.Values, ", ")
			if label == "" {
				label = "the one configuration"
			}
			rep.Mixed = append(rep.Mixed, fmt.Sprintf("%s: averages runs planned from sweep files in %d folders (%s) whose relative input files have the same names", label, len(dirs), strings.Join(dirs, ", ")))
		}
	}
	for _, g := range rep.Groups {
		g.Mean, g.Std = map[string]float64{}, map[string]float64{}
		for _, m := range ReportMetrics {
			var xs []float64
			for _, r := range members[g] {
				xs = append(xs, r.vals[m])
			}
			g.Mean[m], g.Std[m] = meanStd(xs)
		}
	}
	if err := rep.loadCurves(st, members); err != nil {
		return nil, err
	}
	rep.X = opt.X
	if rep.X == "" && len(rep.Keys) > 0 {
		rep.X = rep.Keys[0]
	}
	if rep.X != "" && contains(rep.Over, rep.X) {
		return nil, fmt.Errorf("--x: %q is aggregated over (--over %s): to plot against it, leave it out of --over (--over names the keys the rows average)", rep.X, strings.Join(rep.Over, ","))
	}
	if rep.X != "" && !contains(rep.Keys, rep.X) {
		return nil, fmt.Errorf("--x: %q is not a swept key of this database (swept: %s)", rep.X, strings.Join(rep.Keys, ", "))
	}
	if len(opt.Metrics) == 0 {
		opt.Metrics = []string{"objective_mean"}
	}
	for _, m := range opt.Metrics {
		if !contains(ReportMetrics, m) {
			return nil, fmt.Errorf("--metric: unknown metric %q (valid: %s)", m, strings.Join(ReportMetrics, ", "))
		}
	}
	rep.Metrics = opt.Metrics
	return rep, nil
}

// sweptKeys returns the keys whose value varies among the runs, but those
// in over: the keys of the sweeps' axes first, in axis order, then the
// others in the order of Keys. Deprecated spellings recorded in the
// database count as their current names.
func sweptKeys(st *Store, runs []*reportRun, over map[string]bool) ([]string, error) {
	order, err := st.axisKeys()
	if err != nil {
		return nil, err
	}
	for _, k := range Keys {
		order = append(order, k.Name)
	}
	var swept []string
	seen := map[string]bool{}
	for _, name := range order {
		if k := keyByName[name]; k != nil {
			name = k.Name
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		j := jsonName(name)
		first := string(runs[0].cfg[j])
		for _, r := range runs[1:] {
			if string(r.cfg[j]) != first {
				if !over[name] {
					swept = append(swept, name)
				}
				break
			}
		}
	}
	return swept, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// unsetRaw is the JSON value of label, a parameter's UnsetLabel: a number
// where it reads as one, else a string.
func unsetRaw(label string) json.RawMessage {
	if _, err := strconv.ParseFloat(label, 64); err == nil {
		return json.RawMessage(label)
	}
	b, _ := json.Marshal(label)
	return b
}

func rawLabel(x json.RawMessage) string {
	var s string
	if json.Unmarshal(x, &s) == nil {
		return s
	}
	if x == nil {
		return ""
	}
	return string(x)
}

func meanStd(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	if len(xs) < 2 {
		return m, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

func fnum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// CSV renders the table: one row per group, the group's key values, its run
// counts, then mean and std of every metric.
func (r *Report) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := append([]string{}, r.Keys...)
	head = append(head, "runs", "complete", "diverged", "failed")
	for _, m := range ReportMetrics {
		head = append(head, m+"_mean", m+"_std")
	}
	w.Write(head)
	for _, g := range r.Groups {
		row := append([]string{}, g.Values...)
		row = append(row, strconv.Itoa(g.Runs), strconv.Itoa(g.Complete), strconv.Itoa(g.Diverged), strconv.Itoa(g.Failed))
		for _, m := range ReportMetrics {
			row = append(row, fnum(g.Mean[m]), fnum(g.Std[m]))
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

var htmlTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; }
td.key { text-align: left; }
img { max-width: 48em; display: block; margin: 1em 0; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>Final metrics per configuration: mean ± sample standard deviation over {{.Over}}, complete runs only
({{.Runs}} runs in {{len .Groups}} configurations).</p>
<table>
<tr>{{range .Keys}}<th>{{.}}</th>{{end}}<th>runs</th><th>complete</th><th>diverged</th><th>failed</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .Keys}}<td class="key">{{.}}</td>{{end}}{{range .Counts}}<td>{{.}}</td>{{end}}{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Plots}}<img src="{{.}}" alt="{{.}}">
{{end}}</body></html>
`))

func pm(mean, std float64) string {
	if math.IsNaN(mean) {
		return "—"
	}
	if math.IsNaN(std) {
		return fmt.Sprintf("%.4g", mean)
	}
	return fmt.Sprintf("%.4g ± %.2g", mean, std)
}

// HTML renders the table and links the plots.
func (r *Report) HTML(title string) []byte {
	type row struct {
		Keys   []string
		Counts []int
		Cells  []string
	}
	data := struct {
		Title, Over string
		Keys        []string
		Metrics     []string
		Rows        []row
		Runs        int
		Groups      []*Group
		Plots       []string
	}{Title: title, Over: strings.Join(r.Over, ", "), Keys: r.Keys, Metrics: ReportMetrics, Groups: r.Groups}
	for _, g := range r.Groups {
		rw := row{Keys: g.Values, Counts: []int{g.Runs, g.Complete, g.Diverged, g.Failed}}
		for _, m := range ReportMetrics {
			rw.Cells = append(rw.Cells, pm(g.Mean[m], g.Std[m]))
		}
		data.Rows = append(data.Rows, rw)
		data.Runs += g.Runs
	}
	for _, p := range r.Plots {
		if strings.HasSuffix(p, ".svg") {
			data.Plots = append(data.Plots, filepath.Base(p))
		}
	}
	var b bytes.Buffer
	if err := htmlTmpl.Execute(&b, data); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Plot draws metric against the X key, one line per combination of the
// other keys, with ± std error bars (linear y axis).
func (r *Report) Plot(metric string) (*plot.Plot, error) {
	xi := -1
	for i, k := range r.Keys {
		if k == r.X {
			xi = i
		}
	}
	if xi < 0 {
		return nil, fmt.Errorf("no swept key to plot against")
	}
	// x positions: numeric values, or the order of first appearance.
	numeric := true
	var nominal []string
	pos := map[string]int{}
	for _, g := range r.Groups {
		lab := g.Values[xi]
		if _, ok := pos[lab]; !ok {
			pos[lab] = len(nominal)
			nominal = append(nominal, lab)
		}
		var f float64
		if json.Unmarshal(g.raw[xi], &f) != nil {
			numeric = false
		}
	}
	xOf := func(g *Group) float64 {
		if numeric {
			var f float64
			json.Unmarshal(g.raw[xi], &f)
			return f
		}
		return float64(pos[g.Values[xi]])
	}
	type series struct {
		name string
		pts  plotter.XYs
		errs plotter.YErrors
	}
	var ss []*series
	byName := map[string]*series{}
	for _, g := range r.Groups {
		var parts []string
		for i, k := range r.Keys {
			if i != xi {
				parts = append(parts, k+"="+g.Values[i])
			}
		}
		name := strings.Join(parts, ", ")
		s := byName[name]
		if s == nil {
			s = &series{name: name}
			byName[name] = s
			ss = append(ss, s)
		}
		m, sd := g.Mean[metric], g.Std[metric]
		if math.IsNaN(m) || math.IsInf(m, 0) {
			continue
		}
		if math.IsNaN(sd) || math.IsInf(sd, 0) {
			sd = 0
		}
		s.pts = append(s.pts, plotter.XY{X: xOf(g), Y: m})
		s.errs = append(s.errs, struct{ Low, High float64 }{sd, sd})
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s vs %s (mean ± std over %s)", metric, r.X, strings.Join(r.Over, ", "))
	p.X.Label.Text = r.X
	p.Y.Label.Text = metric
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(8)
	if numeric {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, g := range r.Groups {
			lo, hi = math.Min(lo, xOf(g)), math.Max(hi, xOf(g))
		}
		if lo > 0 && hi/lo >= 50 {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	}
	for i, s := range ss {
		if len(s.pts) == 0 {
			continue
		}
		idx := make([]int, len(s.pts))
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.pts[idx[a]].X < s.pts[idx[b]].X })
		pts := make(plotter.XYs, len(idx))
		errs := make(plotter.YErrors, len(idx))
		for j, k := range idx {
			pts[j], errs[j] = s.pts[k], s.errs[k]
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		l.Color, sc.Color, sc.Shape = c, c, plotutil.Shape(i)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		eb.Color = c
		p.Add(l, sc, eb)
		if s.name != "" {
			p.Legend.Add(s.name, l, sc)
		}
	}
	// Headroom above the data for the legend (top left).
	ylo, yhi := math.Inf(1), math.Inf(-1)
	named := 0
	for _, s := range ss {
		for j, pt := range s.pts {
			ylo, yhi = math.Min(ylo, pt.Y-s.errs[j].Low), math.Max(yhi, pt.Y+s.errs[j].High)
		}
		if s.name != "" && len(s.pts) > 0 {
			named++
		}
	}
	if named > 0 && yhi > ylo {
		p.Y.Min, p.Y.Max = ylo, yhi+(yhi-ylo)*0.09*float64(named+1)
	}
	if !numeric {
		p.NominalX(nominal...)
		p.X.Min, p.X.Max = -0.5, float64(len(nominal))-0.5
	}
	return p, nil
}

// loadCurves aggregates the stored traces of each group's complete runs.
func (r *Report) loadCurves(st *Store, members map[*Group][]*reportRun) error {
	traces, err := st.traceRows()
	if err != nil {
		return err
	}
	colOf := map[string]int{}
	for i, c := range traceCols {
		colOf[c] = i
	}
	num := func(v any) float64 {
		switch x := v.(type) {
		case float64:
			return x
		case int64:
			return float64(x)
		}
		return math.NaN()
	}
	for _, g := range r.Groups {
		g.Curves = map[string]*Curve{}
		for _, m := range CurveMetrics {
			byIter := map[float64][]float64{}
			for _, run := range members[g] {
				for _, row := range traces[run.id] {
					var v float64
					if m == "suboptimality" {
						v = num(row[colOf["objective_mean"]]) - run.vals["optimum_objective"]
					} else {
						v = num(row[colOf[m]])
					}
					if !math.IsNaN(v) {
						it := num(row[colOf["iter"]])
						byIter[it] = append(byIter[it], v)
					}
				}
			}
			if len(byIter) == 0 {
				continue
			}
			c := &Curve{}
			for it := range byIter {
				c.Iter = append(c.Iter, it)
			}
			sort.Float64s(c.Iter)
			for _, it := range c.Iter {
				mean, std := meanStd(byIter[it])
				c.Mean, c.Std, c.Runs = append(c.Mean, mean), append(c.Std, std), append(c.Runs, len(byIter[it]))
			}
			g.Curves[m] = c
		}
	}
	return nil
}

// CurveSpec is the figure of metric's curves: one per group, labelled by
// the group's swept values, with a band of ± one standard deviation over
// the runs (the Over keys: the seeds), against the iterations on a log
// axis; false when no group has the metric's trace.
func (r *Report) CurveSpec(metric string) (figure.Spec, bool) {
	s := figure.Spec{Name: metric + "-curves", Title: fmt.Sprintf("%s, mean ± sd over %s", metric, strings.Join(r.Over, ", ")),
		XLabel: "iteration t (log scale)", YLabel: metric, LogX: true, LogY: metric == "suboptimality" || metric == "consensus"}
	for i, g := range r.Groups {
		c := g.Curves[metric]
		if c == nil {
			continue
		}
		var parts []string
		for k, key := range r.Keys {
			parts = append(parts, key+"="+g.Values[k])
		}
		lbl := strings.Join(parts, ", ")
		if lbl == "" {
			lbl = "all runs"
		}
		runs := fmt.Sprintf("%d runs", slices.Max(c.Runs))
		if slices.Max(c.Runs) == 1 {
			runs = "1 run"
		}
		cv := figure.Curve{Label: fmt.Sprintf("%s (%s)", lbl, runs), X: c.Iter, Y: c.Mean,
			Color: figure.Palette[i%len(figure.Palette)], Lo: make([]float64, len(c.Mean)), Hi: make([]float64, len(c.Mean))}
		for j := range c.Mean {
			sd := c.Std[j]
			if math.IsNaN(sd) {
				sd = 0
			}
			cv.Lo[j], cv.Hi[j] = c.Mean[j]-sd, c.Mean[j]+sd
		}
		s.Curves = append(s.Curves, cv)
	}
	return s, len(s.Curves) > 0
}

// Write writes DIR/summary.csv, DIR/summary.html and, when a key was swept,
// DIR/METRIC-vs-X.png and .svg for each metric; and, for each metric with
// a trace (CurveMetrics), DIR/METRIC-curves.png and .svg (CurveSpec).
func (r *Report) Write(dir, title string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.Plots = nil
	if r.X != "" {
		for _, m := range r.Metrics {
			p, err := r.Plot(m)
			if err != nil {
				return err
			}
			for _, ext := range []string{"png", "svg"} {
				wt, err := p.WriterTo(18*vg.Centimeter, 12*vg.Centimeter, ext)
				if err != nil {
					return err
				}
				path := filepath.Join(dir, fmt.Sprintf("%s-vs-%s.%s", m, r.X, ext))
				if err := atomicfile.Write(path, func(f *os.File) error { _, err := wt.WriteTo(f); return err }); err != nil {
					return err
				}
				r.Plots = append(r.Plots, path)
			}
		}
	}
	for _, m := range r.Metrics {
		if spec, ok := r.CurveSpec(m); ok {
			png, svg, _, err := figure.Write(dir, spec)
			if err != nil {
				return err
			}
			r.Plots = append(r.Plots, png, svg)
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "summary.csv"), r.CSV()); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "summary.html"), r.HTML(title))
}
