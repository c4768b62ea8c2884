package paper

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
)

// Options configures Reproduce.
type Options struct {
	// Out is the output directory (created if missing).
	Out string
	// Plan sizes the reproduction (FullPlan or QuickPlan, possibly edited).
	Plan Plan
	// Workers bounds the number of concurrent runs (0: GOMAXPROCS). It does
	// not change any result.
	Workers int
	// Seed is the base seed: run r of every setting uses Seed + r, and the
	// Watts–Strogatz graph of the runs is drawn with Seed.
	Seed uint64
	// Progress, if not nil, is called after each finished job (serialised).
	Progress func(Progress)
}

// Results is the content of results.json: every number the report quotes.
type Results struct {
	Generator   string          `json:"generator"`
	Paper       string          `json:"paper"`
	Plan        Plan            `json:"plan"`
	BaseSeed    uint64          `json:"base_seed"`
	Workers     int             `json:"workers"`
	GOMAXPROCS  int             `json:"gomaxprocs"`
	GoVersion   string          `json:"go_version"`
	Started     string          `json:"started"`
	WallSeconds float64         `json:"wall_seconds"`
	Optima      []OptimumResult `json:"optima"`
	Settings    []SettingResult `json:"settings"`
	Experiments []Experiment    `json:"experiments"`
	Files       []string        `json:"files"`
}

// SettingResult is a setting with its averaged trace.
type SettingResult struct {
	Setting
	RunsOK      int               `json:"runs_ok"`
	Failures    []string          `json:"failures,omitempty"`
	EvalNodes   int               `json:"eval_nodes"`
	GraphInfo   *output.GraphInfo `json:"graph_info,omitempty"`
	Optimum     F                 `json:"optimum"`
	WallSeconds float64           `json:"run_wall_seconds_total"`
	TraceCSV    string            `json:"trace_csv"`
	RunCSVs     []string          `json:"run_csvs"`
	Trace       []Point           `json:"trace"`
	runs        []runResult
}

// Final is the last point of the averaged trace (zero Point if none).
func (s *SettingResult) Final() Point {
	if len(s.Trace) == 0 {
		n := F(math.NaN())
		return Point{GradEvals: n, GradEvalsNonzero: n, Objective: n, ObjectiveNodeStd: n, ObjectiveSeedStd: n,
			ObjectiveMin: n, ObjectiveMax: n, AUC: n, Bias: n, BiasSeedStd: n, Consensus: n}
	}
	return s.Trace[len(s.Trace)-1]
}

// Reproduce runs every experiment of the plan and writes DIR/report.html,
// DIR/results.json, DIR/figures/*.png|svg and DIR/traces/*.csv. Every file is
// written into a temporary directory beside DIR and moved into DIR only once
// all are written (report.html and results.json last), so a run that fails
// (a full disk) or is cancelled leaves nothing behind: neither a partial
// set of traces and figures nor a change to an earlier report.
func Reproduce(ctx context.Context, opt Options) (*Results, error) {
	plan := opt.Plan
	if plan.Mode == "" {
		plan = FullPlan()
	}
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if opt.Out == "" {
		return nil, fmt.Errorf("no output directory")
	}
	final := opt.Out
	stage, err := stageDir(final)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage) // empty, or gone, after a success
	opt.Out = stage
	res, err := reproduce(ctx, opt, plan)
	if err != nil {
		return nil, err
	}
	if err := publish(stage, final); err != nil {
		return nil, err
	}
	return res, nil
}

// writeFile writes a file of the report atomically (a variable for the
// test that fails a write, as a full disk does).
var writeFile = atomicfile.WriteBytes

// stageDir makes the temporary directory a reproduction into out is
// written to: in out's nearest existing ancestor, so that the files are
// moved into out by renames on one file system.
func stageDir(out string) (string, error) {
	anc := filepath.Dir(filepath.Clean(out))
	for {
		if st, err := os.Stat(anc); err == nil && st.IsDir() {
			break
		}
		up := filepath.Dir(anc)
		if up == anc {
			return "", fmt.Errorf("%s: no existing parent directory", out)
		}
		anc = up
	}
	dir, err := os.MkdirTemp(anc, ".pairgossip-reproduce-*")
	if err != nil {
		return "", err
	}
	// It becomes out when out does not exist: the mode MkdirAll gave it.
	return dir, os.Chmod(dir, 0o755)
}

// publish moves the files written in stage into out: the whole directory
// by one rename when out does not exist, else file by file over what out
// holds (other files of out are kept), report.html and results.json last.
func publish(stage, out string) error {
	if _, err := os.Lstat(out); os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.Rename(stage, out)
	}
	var files []string
	err := filepath.WalkDir(stage, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(stage, p)
		if err == nil {
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		return err
	}
	last := func(f string) bool { return f == "report.html" || f == "results.json" }
	sort.SliceStable(files, func(i, j int) bool { return !last(files[i]) && last(files[j]) })
	for _, f := range files {
		dst := filepath.Join(out, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(stage, f), dst); err != nil {
			return err
		}
	}
	return nil
}

// reproduce is Reproduce writing into opt.Out, the temporary directory.
func reproduce(ctx context.Context, opt Options, plan Plan) (*Results, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	t0 := time.Now()
	res := &Results{Generator: "pairgossip reproduce", Paper: "Colin, Bellet, Salmon, Clémençon. Gossip Dual Averaging for Decentralized Optimization of Pairwise Functions. ICML 2016.",
		Plan: plan, BaseSeed: opt.Seed, Workers: workers, GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		Started: t0.UTC().Format(time.RFC3339)}

	settings := buildSettings(plan, opt.Seed)
	srs, jobs := settingJobs(settings, opt.Seed)
	// Optima, one per problem.
	probs := []string{probAUC, probMetricSyn, probMetricBCW}
	optima := make([]OptimumResult, len(probs))
	for k, key := range probs {
		k, key := k, key
		maxIter, cost := 0, 0.3
		switch key {
		case probMetricSyn:
			maxIter, cost = plan.OptimumMaxIter, 30
			if maxIter > 0 {
				cost = float64(maxIter) * 4 * 0.03
			}
		case probMetricBCW:
			maxIter, cost = plan.OptimumMaxIter, 3
		}
		cfg := baseConfig(key, plan, opt.Seed)
		jobs = append(jobs, job{name: "optimum " + key, cost: cost, run: func(ctx context.Context) error {
			o, err := solveOptimum(ctx, key, cfg, maxIter)
			optima[k] = o
			return err
		}})
	}
	// Table 1.
	t1 := newTable1Jobs(plan, opt.Seed)
	jobs = append(jobs, t1.jobs...)

	if err := os.MkdirAll(filepath.Join(opt.Out, "figures"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opt.Out, "traces", "runs"), 0o755); err != nil {
		return nil, err
	}
	if err := runPool(ctx, jobs, workers, opt.Progress); err != nil {
		return nil, err
	}
	res.Optima = optima
	optOf := map[string]OptimumResult{}
	for _, o := range optima {
		optOf[o.Problem] = o
	}

	// Aggregate and write the traces.
	for i := range srs {
		if err := ctx.Err(); err != nil {
			return nil, err // interrupted: within a setting's files
		}
		s := &srs[i]
		pts, err := aggregate(s.runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ID, err)
		}
		s.Trace = pts
		s.Optimum = optOf[s.Problem].Value
		for _, rr := range s.runs {
			s.WallSeconds += rr.Wall.Seconds()
			if rr.Err != "" {
				s.Failures = append(s.Failures, fmt.Sprintf("seed %d: %s", rr.Seed, rr.Err))
			} else {
				s.RunsOK++
			}
			if s.EvalNodes == 0 {
				s.EvalNodes = rr.EvalNodes
			}
			if s.GraphInfo == nil {
				s.GraphInfo = rr.Graph
			}
			name := filepath.ToSlash(filepath.Join("traces", "runs", fmt.Sprintf("%s-seed%d.csv", s.ID, rr.Seed)))
			if err := writeFile(filepath.Join(opt.Out, name), output.TraceCSVOptimum(rr.Trace, float64(s.Optimum))); err != nil {
				return nil, err
			}
			s.RunCSVs = append(s.RunCSVs, name)
		}
		s.TraceCSV = filepath.ToSlash(filepath.Join("traces", s.ID+".csv"))
		if err := writeFile(filepath.Join(opt.Out, s.TraceCSV), meanCSV(s.Trace, s.RunsOK)); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, s.TraceCSV)
		res.Files = append(res.Files, s.RunCSVs...)
	}
	res.Settings = srs

	table := t1.table()
	res.Experiments = buildExperiments(plan, table, srs, optOf)

	// Figures.
	for e := range res.Experiments {
		ex := &res.Experiments[e]
		for f := range ex.Figures {
			if err := ctx.Err(); err != nil {
				return nil, err // interrupted: within a figure
			}
			fig := &ex.Figures[f]
			pngData, svgData, err := render(fig.spec)
			if err != nil {
				return nil, err
			}
			fig.PNG = filepath.ToSlash(filepath.Join("figures", fig.ID+".png"))
			fig.SVG = filepath.ToSlash(filepath.Join("figures", fig.ID+".svg"))
			if err := writeFile(filepath.Join(opt.Out, fig.PNG), pngData); err != nil {
				return nil, err
			}
			if err := writeFile(filepath.Join(opt.Out, fig.SVG), svgData); err != nil {
				return nil, err
			}
			fig.dataURI = "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData)
			res.Files = append(res.Files, fig.PNG, fig.SVG)
		}
	}
	if err := writeFile(filepath.Join(opt.Out, "table1.csv"), table.csv()); err != nil {
		return nil, err
	}
	res.Files = append(res.Files, "table1.csv", "results.json", "report.html")
	res.WallSeconds = time.Since(t0).Seconds()
	if err := writeFile(filepath.Join(opt.Out, "results.json"), output.JSON(res)); err != nil {
		return nil, err
	}
	html, err := renderHTML(res)
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(opt.Out, "report.html"), html); err != nil {
		return nil, err
	}
	return res, nil
}

// Experiment returns the experiment with the given id, or nil.
func (r *Results) Experiment(id string) *Experiment {
	for i := range r.Experiments {
		if r.Experiments[i].ID == id {
			return &r.Experiments[i]
		}
	}
	return nil
}

// settingJobs returns one job per run of each setting; run r uses seed
// seed + r and stores its result in srs[setting].runs[r].
func settingJobs(settings []Setting, seed uint64) ([]SettingResult, []job) {
	srs := make([]SettingResult, len(settings))
	var jobs []job
	for i, s := range settings {
		srs[i] = SettingResult{Setting: s, runs: make([]runResult, s.Runs)}
		for r := 0; r < s.Runs; r++ {
			cfg := s.Config
			cfg.Seed = seed + uint64(r)
			i, r := i, r
			jobs = append(jobs, job{name: fmt.Sprintf("%s run %d", s.ID, r+1), cost: estCost(s), run: func(ctx context.Context) error {
				rr, err := simulate(ctx, cfg)
				srs[i].runs[r] = rr
				return err
			}})
		}
	}
	return srs, jobs
}

// table1Jobs computes the spectral gaps of Table 1.
type table1Jobs struct {
	jobs  []job
	sizes []int
	// gaps[n][graph key] holds one value per graph seed (one for the
	// deterministic graphs).
	gaps    map[int]map[string][]gapResult
	wsSeeds int
	seed    uint64
}

func newTable1Jobs(plan Plan, seed uint64) *table1Jobs {
	t := &table1Jobs{sizes: []int{699, 1000}, gaps: map[int]map[string][]gapResult{}, wsSeeds: plan.WSGraphSeeds, seed: seed}
	for _, n := range t.sizes {
		t.gaps[n] = map[string][]gapResult{"complete": make([]gapResult, 1), "cycle": make([]gapResult, 1), "ws": make([]gapResult, plan.WSGraphSeeds)}
		for _, g := range graphDefs {
			count, cost := 1, 0.01
			if g.Key == "ws" {
				count, cost = plan.WSGraphSeeds, 0.35*float64(n*n*n)/1e9
			}
			for s := 0; s < count; s++ {
				spec := graph.Spec{Kind: g.Kind, N: n, K: g.K, P: g.P, Seed: seed + uint64(s)}
				slot := &t.gaps[n][g.Key][s]
				t.jobs = append(t.jobs, job{name: fmt.Sprintf("spectral gap %s n=%d seed %d", g.Key, n, spec.Seed), cost: cost,
					run: func(ctx context.Context) error {
						// A dense eigenproblem of up to a second that
						// takes no context: an interrupt does not wait
						// for it.
						r, err := interruptible(ctx, func() (gapResult, error) { return spectralGap(spec) })
						if ctx.Err() == nil {
							*slot = r
						}
						return err
					}})
			}
		}
	}
	return t
}

// interruptible runs f and returns its result, or ctx's error as soon as
// ctx is cancelled: f then finishes in the background and its result is
// dropped, so f must compute a value of its own and write nothing shared.
// For the computations that take no context (a dense eigenproblem), so that
// an interrupted reproduction ends at once.
func interruptible[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
