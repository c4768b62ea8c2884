package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/figure"
	"github.com/pairgossip/pairgossip/output"
)

// pairgossip plot DIR... --out DIR [--html]: the figures of one or more
// runs' outputs (trace.csv and summary.json), overlaid, each run labelled
// by the configuration keys in which the runs differ.

const plotUsage = "pairgossip plot DIR... --out DIR [--html]: figures of the runs whose outputs are in the DIRs\n" +
	"(pairgossip run --out DIR: trace.csv and summary.json), overlaid and labelled by the parameters in\n" +
	"which they differ, as PNG and SVG in the style of the reproduce report:\n" +
	"  objective.*      mean objective R_n(θ̄_k) over the measured nodes with its ±std band, against\n" +
	"                   the iterations (log axis), the centralized optimum R_n(θ*) as a dotted line\n" +
	"  suboptimality.*  objective − R_n(θ*) on log–log axes (runs whose optimum is known)\n" +
	"  auc.*            mean AUC (AUC problems), consensus.* the consensus spread, bias.* the bias term\n" +
	"A sampled measurement (large n) is drawn with a ±1.96 standard-error band on the suboptimality,\n" +
	"AUC and bias panels. --html also writes DIR/plot.html, one self-contained page with the figures,\n" +
	"the configuration and the final values of each run."

// plotRun is one run's outputs.
type plotRun struct {
	dir     string
	label   string
	cfg     map[string]any // summary.json's config
	sum     output.Summary
	trace   []engine.Record
	optimum float64 // NaN: unknown
}

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", plotUsage, stderr)
	out := fs.String("out", "", "output folder for the figures (created if missing) [required]")
	asHTML := fs.Bool("html", false, "also write DIR/plot.html: the figures, the configuration and the summary on one page")
	dirs, err := sweepParseArgs(fs, args, 1, -1, "run output folder (pairgossip plot DIR... --out DIR)")
	if err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required")
	}
	runs := make([]*plotRun, 0, len(dirs))
	for _, d := range dirs {
		r, err := readPlotRun(d)
		if err != nil {
			return usageError{Err: err}
		}
		runs = append(runs, r)
	}
	keys := labelRuns(runs)
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	specs := plotSpecs(runs)
	if len(specs) == 0 {
		var empty []string
		for _, r := range runs {
			if len(r.trace) == 0 {
				empty = append(empty, filepath.Join(r.dir, "trace.csv"))
			}
		}
		if len(empty) == 0 {
			return usagef("nothing to plot: the runs' traces hold no measured value")
		}
		return usagef("nothing to plot: the runs' traces have no rows (%s)", strings.Join(empty, ", "))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	var figs []plotFigure
	wrote := map[string]bool{}
	for _, s := range specs {
		pngPath, svgPath, png, err := figure.Write(*out, s.Spec)
		if err != nil {
			return err
		}
		wrote[filepath.Base(pngPath)], wrote[filepath.Base(svgPath)] = true, true
		figs = append(figs, plotFigure{Title: s.Title, Caption: s.caption, PNG: filepath.Base(pngPath), SVG: filepath.Base(svgPath), URI: template.URL(figure.DataURI(png))})
		fmt.Fprintln(stdout, "wrote", pngPath)
		fmt.Fprintln(stdout, "wrote", svgPath)
	}
	if *asHTML {
		page, err := plotPage(runs, keys, figs)
		if err != nil {
			return err
		}
		p := filepath.Join(*out, "plot.html")
		if err := atomicfile.WriteBytes(p, page); err != nil {
			return err
		}
		wrote["plot.html"] = true
		fmt.Fprintln(stdout, "wrote", p)
	}
	// The figures of an earlier plot into the same folder that this one
	// did not draw (a metric run has no AUC panel; no --html this time)
	// would read as this plot's: named, and left to the user (the folder
	// may hold files of theirs under those names).
	var stale []string
	for _, name := range plotFigureNames {
		for _, f := range []string{name + ".png", name + ".svg"} {
			if st, err := os.Lstat(filepath.Join(*out, f)); err == nil && st.Mode().IsRegular() && !wrote[f] {
				stale = append(stale, f)
			}
		}
	}
	if st, err := os.Lstat(filepath.Join(*out, "plot.html")); err == nil && st.Mode().IsRegular() && !wrote["plot.html"] {
		stale = append(stale, "plot.html")
	}
	if len(stale) > 0 {
		fmt.Fprintf(stderr, "warning: %s also holds %s, which this plot did not write (an earlier plot's?): left in place; plot into an empty folder to keep one plot's files together\n",
			*out, strings.Join(stale, ", "))
	}
	return nil
}

// plotFigureNames are the names of the figures plot draws (plotSpecs).
var plotFigureNames = []string{"objective", "suboptimality", "auc", "bias", "consensus"}

// readPlotRun reads a run's trace.csv and summary.json.
func readPlotRun(dir string) (*plotRun, error) {
	r := &plotRun{dir: dir, optimum: math.NaN()}
	sp := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(sp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a folder written by pairgossip run --out)", sp, err)
	}
	var raw struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.Config == nil {
		return nil, fmt.Errorf("%s: not a summary.json of pairgossip run (%v)", sp, err)
	}
	if err := json.Unmarshal(b, &r.sum); err != nil {
		return nil, fmt.Errorf("%s: %w", sp, err)
	}
	r.cfg = raw.Config
	if v := float64(r.sum.OptimumObjective); !math.IsNaN(v) && !math.IsInf(v, 0) && r.sum.OptimumMethod != "" {
		r.optimum = v
	}
	tp := filepath.Join(dir, "trace.csv")
	f, err := os.Open(tp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tp, err)
	}
	defer f.Close()
	if r.trace, err = output.ReadTraceCSV(f); err != nil {
		return nil, fmt.Errorf("%s: %w", tp, err)
	}
	return r, nil
}

// labelRuns labels each run by the configuration keys whose values differ
// between the runs ("seed=2, lambda=0.001"), or by its folder where they
// do not tell them apart; it returns the differing keys.
func labelRuns(runs []*plotRun) []string {
	all := map[string]bool{}
	for _, r := range runs {
		for k := range r.cfg {
			all[k] = true
		}
	}
	var diff []string
	for k := range all {
		first := jsonText(runs[0].cfg[k])
		for _, r := range runs[1:] {
			if jsonText(r.cfg[k]) != first {
				diff = append(diff, k)
				break
			}
		}
	}
	sort.Strings(diff)
	seen := map[string]int{}
	for _, r := range runs {
		var parts []string
		for _, k := range diff {
			v, ok := r.cfg[k]
			if !ok {
				// Named by what unset means (loss 0, link_up 1,
				// activation edges), as sweep report names it.
				if p := config.ParamByJSON(k); p != nil {
					parts = append(parts, k+"="+p.UnsetLabel())
				} else {
					parts = append(parts, k+" unset")
				}
				continue
			}
			parts = append(parts, k+"="+strings.Trim(jsonText(v), `"`))
		}
		r.label = strings.Join(parts, ", ")
		if len(runs) == 1 || r.label == "" {
			r.label = filepath.Base(filepath.Clean(r.dir))
		}
		seen[r.label]++
	}
	for _, r := range runs {
		if seen[r.label] > 1 { // same configuration: the folder tells them apart
			r.label += " (" + filepath.Base(filepath.Clean(r.dir)) + ")"
		}
	}
	return diff
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// plotSpec is a figure with its caption.
type plotSpec struct {
	figure.Spec
	caption string
}

// column extracts a trace column.
func column(tr []engine.Record, f func(engine.Record) float64) []float64 {
	v := make([]float64, len(tr))
	for i, r := range tr {
		v[i] = f(r)
	}
	return v
}

// seBand returns v ± 1.96·se where any se is positive (a sampled
// measurement), nil bands otherwise.
func seBand(v, se []float64) (lo, hi []float64) {
	any := false
	for _, s := range se {
		any = any || s > 0
	}
	if !any {
		return nil, nil
	}
	lo, hi = make([]float64, len(v)), make([]float64, len(v))
	for i := range v {
		s := se[i]
		if math.IsNaN(s) {
			s = 0
		}
		lo[i], hi[i] = v[i]-1.96*s, v[i]+1.96*s
	}
	return lo, hi
}

// plotSpecs builds the figures of the runs (those with something to show).
func plotSpecs(runs []*plotRun) []plotSpec {
	color := func(i int) figure.Curve { return figure.Curve{Color: figure.Palette[i%len(figure.Palette)]} }
	iters := func(r *plotRun) []float64 {
		return column(r.trace, func(x engine.Record) float64 { return float64(x.Iter) })
	}
	xl := "iteration t (log scale)"
	var out []plotSpec
	has := func(f func(engine.Record) float64) bool {
		for _, r := range runs {
			for _, x := range r.trace {
				if v := f(x); !math.IsNaN(v) {
					return true
				}
			}
		}
		return false
	}

	// Objective, ±std over the measured nodes, the optima.
	obj := figure.Spec{Name: "objective", Title: "Objective R_n(θ̄_k), mean ± std over the measured nodes", XLabel: xl, YLabel: "R_n(θ̄_k)", LogX: true}
	optima := map[float64]bool{}
	for i, r := range runs {
		c := color(i)
		c.Label, c.X = r.label, iters(r)
		c.Y = column(r.trace, func(x engine.Record) float64 { return x.ObjMean })
		c.Lo = column(r.trace, func(x engine.Record) float64 { return x.ObjMean - x.ObjStd })
		c.Hi = column(r.trace, func(x engine.Record) float64 { return x.ObjMean + x.ObjStd })
		obj.Curves = append(obj.Curves, c)
		if !math.IsNaN(r.optimum) && !optima[r.optimum] {
			optima[r.optimum] = true
			lbl := "optimum R_n(θ*)"
			if len(runs) > 1 {
				lbl += " (" + r.label + ")"
			}
			obj.HLines = append(obj.HLines, figure.HLine{Y: r.optimum, Label: lbl, Color: c.Color})
		}
	}
	if len(optima) == 1 { // one optimum for all: one grey line
		obj.HLines[0].Color, obj.HLines[0].Label = figure.Grey, "optimum R_n(θ*)"
	}
	if has(func(x engine.Record) float64 { return x.ObjMean }) {
		out = append(out, plotSpec{obj, "Mean over the measured nodes of the objective at their running averages θ̄_k, with a band of ± one standard deviation over the nodes; the dotted line is the centralized optimum R_n(θ*) (summary.json)."})
	}

	// Suboptimality, log–log.
	sub := figure.Spec{Name: "suboptimality", Title: "Suboptimality R_n(θ̄_k) − R_n(θ*), mean over the measured nodes", XLabel: xl, YLabel: "objective − optimum (log scale)", LogX: true, LogY: true}
	for i, r := range runs {
		if math.IsNaN(r.optimum) || len(r.trace) == 0 { // no rows: nothing to draw (an empty trace is "nothing to plot")
			continue
		}
		c := color(i)
		c.Label, c.X = r.label, iters(r)
		c.Y = column(r.trace, func(x engine.Record) float64 { return x.ObjMean - r.optimum })
		c.Lo, c.Hi = seBand(c.Y, column(r.trace, func(x engine.Record) float64 { return x.ObjStdErr }))
		sub.Curves = append(sub.Curves, c)
	}
	if len(sub.Curves) > 0 {
		out = append(out, plotSpec{sub, "The mean objective minus the centralized optimum (runs whose optimum was solved), on log–log axes; a sampled measurement has a band of ±1.96 standard errors."})
	}

	// AUC.
	if has(func(x engine.Record) float64 { return x.AUCMean }) {
		s := figure.Spec{Name: "auc", Title: "AUC of θ̄_k, mean over the measured nodes", XLabel: xl, YLabel: "AUC", LogX: true}
		for i, r := range runs {
			c := color(i)
			c.Label, c.X = r.label, iters(r)
			c.Y = column(r.trace, func(x engine.Record) float64 { return x.AUCMean })
			c.Lo, c.Hi = seBand(c.Y, column(r.trace, func(x engine.Record) float64 { return x.AUCStdErr }))
			s.Curves = append(s.Curves, c)
		}
		out = append(out, plotSpec{s, "The AUC of the scoring rule x ↦ xᵀθ̄_k (ties count one half), mean over the measured nodes; a sampled measurement has a band of ±1.96 standard errors."})
	}

	// Consensus spread.
	if has(func(x engine.Record) float64 {
		if x.Consensus > 0 {
			return x.Consensus
		}
		return math.NaN()
	}) {
		s := figure.Spec{Name: "consensus", Title: "Consensus spread, mean of ‖θ̄_k − mean θ̄‖", XLabel: xl, YLabel: "spread (log scale)", LogX: true, LogY: true}
		for i, r := range runs {
			c := color(i)
			c.Label, c.X = r.label, iters(r)
			c.Y = column(r.trace, func(x engine.Record) float64 { return x.Consensus })
			s.Curves = append(s.Curves, c)
		}
		out = append(out, plotSpec{s, "The mean over all nodes of the distance of θ̄_k to the nodes' mean (zero for the centralized algorithm, not drawn on the log axis)."})
	}

	// Bias term.
	if has(func(x engine.Record) float64 { return x.Bias }) {
		s := figure.Spec{Name: "bias", Title: "Bias term ε̄ᵀω, mean over the measured nodes", XLabel: xl, YLabel: "ε̄ᵀω", LogX: true,
			HLines: []figure.HLine{{Y: 0, Color: figure.Grey}}}
		for i, r := range runs {
			c := color(i)
			c.Label, c.X = r.label, iters(r)
			c.Y = column(r.trace, func(x engine.Record) float64 { return x.Bias })
			c.Lo, c.Hi = seBand(c.Y, column(r.trace, func(x engine.Record) float64 { return x.BiasStdErr }))
			s.Curves = append(s.Curves, c)
		}
		out = append(out, plotSpec{s, "The paper's bias term: the error of each node's next gradient estimate against ω = π_t(z̄) (docs/design.md §3); a sampled measurement has a band of ±1.96 standard errors."})
	}
	return out
}

// plotFigure is a figure on the page.
type plotFigure struct {
	Title, Caption, PNG, SVG string
	URI                      template.URL
}

var plotPageTmpl = template.Must(template.New("plot").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pairgossip plot — {{len .Runs}} run{{if gt (len .Runs) 1}}s{{end}}</title>
<style>
` + figure.PageCSS + `
td.diff { background: #fff4d6; font-weight: 600; }
</style>
</head>
<body>
<h1>pairgossip runs</h1>
<p>{{len .Runs}} run{{if gt (len .Runs) 1}}s{{end}}{{if .Diff}}, told apart by {{range $i, $k := .Diff}}{{if $i}}, {{end}}<code>{{$k}}</code>{{end}} (highlighted below){{end}}.
Written by <code>pairgossip plot</code> from each folder's <code>trace.csv</code> and <code>summary.json</code>.</p>
<h2 id="figures">Figures</h2>
{{range .Figures}}<figure>
<img src="{{.URI}}" alt="{{.Title}}">
<figcaption><b>{{.Title}}.</b> {{.Caption}} Files: <a href="{{.PNG}}">{{.PNG}}</a>, <a href="{{.SVG}}">{{.SVG}}</a>.</figcaption>
</figure>
{{end}}
<h2 id="summary">Summary (final measurement)</h2>
<table>
<tr><th class="l">run</th><th class="l">folder</th><th class="l">status</th><th>iterations</th><th>objective</th><th>std over nodes</th><th>R_n(θ*)</th><th class="l">optimum</th><th>suboptimality</th><th>AUC</th><th>consensus</th><th>bias</th><th>measured nodes</th><th>wall s</th></tr>
{{range .Rows}}<tr><td class="l">{{.Label}}</td><td class="l"><code>{{.Dir}}</code></td><td class="l">{{.Status}}</td><td>{{.Iter}}</td><td>{{.Obj}}</td><td>{{.Std}}</td><td>{{.Opt}}</td><td class="l">{{.Method}}</td><td>{{.Sub}}</td><td>{{.AUC}}</td><td>{{.Cons}}</td><td>{{.Bias}}</td><td>{{.Eval}}</td><td>{{.Wall}}</td></tr>
{{end}}</table>
<h2 id="configuration">Configuration</h2>
<table>
<tr><th class="l">parameter</th>{{range .Runs}}<th class="l">{{.}}</th>{{end}}</tr>
{{range .Config}}<tr><td class="l{{if .Diff}} diff{{end}}">{{.Key}}</td>{{$d := .Diff}}{{range .Values}}<td class="l{{if $d}} diff{{end}}">{{.}}</td>{{end}}</tr>
{{end}}</table>
</body>
</html>
`))

func plotNum(v output.Float) string {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.6g", f)
}

// plotPage renders the self-contained page.
func plotPage(runs []*plotRun, diff []string, figs []plotFigure) ([]byte, error) {
	type row struct {
		Label, Dir, Status, Obj, Std, Opt, Method, Sub, AUC, Cons, Bias, Wall string
		Iter                                                                  int64
		Eval                                                                  int
	}
	type cfgRow struct {
		Key    string
		Diff   bool
		Values []string
	}
	var data struct {
		Runs    []string
		Diff    []string
		Figures []plotFigure
		Rows    []row
		Config  []cfgRow
	}
	data.Diff, data.Figures = diff, figs
	keys := map[string]bool{}
	for _, r := range runs {
		data.Runs = append(data.Runs, r.label)
		s := r.sum
		method := s.OptimumMethod
		if s.OptimumCached {
			method += " (cached)"
		}
		sub := output.Float(math.NaN())
		if !math.IsNaN(r.optimum) {
			sub = output.Float(float64(s.ObjectiveMean) - r.optimum)
		}
		opt := output.Float(r.optimum)
		data.Rows = append(data.Rows, row{Label: r.label, Dir: r.dir, Status: s.Status, Iter: s.Iter, Obj: plotNum(s.ObjectiveMean),
			Std: plotNum(s.ObjectiveStd), Opt: plotNum(opt), Method: method, Sub: plotNum(sub), AUC: plotNum(s.AUCMean),
			Cons: plotNum(s.Consensus), Bias: plotNum(s.Bias), Eval: s.EvalNodes, Wall: fmt.Sprintf("%.2f", s.WallSeconds)})
		for k := range r.cfg {
			keys[k] = true
		}
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	isDiff := map[string]bool{}
	for _, k := range diff {
		isDiff[k] = true
	}
	for _, k := range names {
		cr := cfgRow{Key: k, Diff: isDiff[k]}
		for _, r := range runs {
			v, ok := r.cfg[k]
			s := "—"
			if ok {
				s = strings.Trim(jsonText(v), `"`)
			}
			cr.Values = append(cr.Values, s)
		}
		data.Config = append(data.Config, cr)
	}
	var b bytes.Buffer
	if err := plotPageTmpl.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
