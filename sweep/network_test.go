package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/config"
)

// TestSweepNetworkKeys: a sweep over the loss gives one run per value with
// the value in its configuration (and so in its id), the other network keys
// are read, a boolean key takes only true or false, and a refused knob is
// named by its key.
func TestSweepNetworkKeys(t *testing.T) {
	s := mustParse(t, "base: {iters: 100, churn: \"geometric:up=50,down=5\", loss_oneway: true}\naxes:\n  loss: [0.1, 0.3, 0.5]\n")
	if len(s.Runs) != 3 {
		t.Fatalf("%d runs", len(s.Runs))
	}
	ids := map[string]bool{}
	for i, want := range []float64{0.1, 0.3, 0.5} {
		c := s.Runs[i].Config
		if c.Loss != want || !c.LossOneWay || c.Churn != "geometric:up=50,down=5" {
			t.Errorf("run %d: %+v", i, c)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		ids[s.Runs[i].ID] = true
	}
	if len(ids) != 3 {
		t.Error("the loss does not enter the run ids")
	}
	// The default loss leaves the id of the paper's run as it was.
	a := mustParse(t, "base: {iters: 100}\naxes:\n  seed: [1]\n")
	b := mustParse(t, "base: {iters: 100, loss: 0}\naxes:\n  seed: [1]\n")
	if a.Runs[0].ID != b.Runs[0].ID {
		t.Error("loss: 0 changes the run id")
	}
	if _, err := parseString(t, "base: {iters: 100, loss_oneway: 1}\n"); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("loss_oneway: 1: %v", err)
	}
	if _, err := parseString(t, "base: {iters: 100, loss: 2}\n"); err == nil || !strings.Contains(err.Error(), `key "loss"`) {
		t.Errorf("loss: 2: %v", err)
	}
	// link_up 0 in an axis of link-up probabilities would be the Go API's
	// unset (every link up), the opposite of what it reads as: refused.
	if _, err := parseString(t, "base: {iters: 100, graph_schedule: \"50:cycle\"}\naxes:\n  link_up: [0, 0.5, 1]\n"); err == nil ||
		!strings.Contains(err.Error(), `key "link_up"`) || !strings.Contains(err.Error(), "0 is not accepted") {
		t.Errorf("link_up: [0, …]: %v", err)
	}
	if _, err := parseString(t, "base: {iters: 100, graph_schedule: \"50:cycle\"}\naxes:\n  link_up: [0.5, 1]\n"); err != nil {
		t.Errorf("link_up: [0.5, 1]: %v", err)
	}
}

// TestSweepNetworkFiles: the files of the network keys are resolved
// relative to the sweep file, as the data and graph files are, and one
// that does not exist there is refused when the sweep is read (a churn
// file, a weights file, a schedule phase's edge list: they were found only
// when each run failed).
func TestSweepNetworkFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "edges.txt"), []byte("1 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, missing := range []string{`churn: "file:none.txt"`, `activation: "weights:none.txt"`, `graph_schedule: "5:file:none.txt;5:cycle"`} {
		p := filepath.Join(dir, "m.yaml")
		if err := os.WriteFile(p, []byte("base:\n  iters: 10\n  "+missing+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "none.txt")+`": no such file`) {
			t.Errorf("%s: %v, want the missing file named (resolved from the sweep's folder)", missing, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte("0 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("base: {iters: 1, edge_stream: edges.txt, churn: \"file:c.txt\"}\naxes:\n  seed: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Resolved(s.Runs[0].Config)
	if c.EdgeStream != filepath.Join(dir, "edges.txt") || c.Churn != "file:"+filepath.Join(dir, "c.txt") {
		t.Errorf("resolved %q %q", c.EdgeStream, c.Churn)
	}
	if s.Runs[0].Config.EdgeStream != "edges.txt" {
		t.Errorf("the run keeps the path as written, got %q", s.Runs[0].Config.EdgeStream)
	}
}

// TestSweepOverLoss: a sweep over loss 0, 0.1, 0.3 runs (both algorithms),
// and the loss reaches the engine: the runs' results differ.
func TestSweepOverLoss(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "name: loss\nbase:\n  iters: 300\n  eval_nodes: 4\n  log_points: 4\n  graph: cycle\noptimum: false\naxes:\n  algorithm: [sync, async]\n  loss: [0, 0.1, 0.3]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1})
	if err != nil || rep.Ran != 6 || rep.Complete != 6 {
		t.Fatalf("%+v %v", rep, err)
	}
	rows, err := st.resultRows()
	if err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 2; a++ {
		seen := map[string]bool{}
		for l := 0; l < 3; l++ {
			seen[fmt.Sprint(rows[sw.Runs[3*a+l].ID])] = true
		}
		if len(seen) != 3 {
			t.Errorf("%s: the three losses give %d distinct results", sw.Runs[3*a].Config.Algorithm, len(seen))
		}
	}
}

// TestIDsFollowInputFiles: a run that reads files (data, labels, graph,
// the network knobs') has an id that hashes their contents, so that a
// file edited between two sweep runs gives its runs new ids (they run
// again) — the same contents give the same ids whatever the working
// folder the sweep is loaded from; a run that reads no file keeps RunID.
func TestIDsFollowInputFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d.csv", "1,0.5,1\n2,0.25,-1\n3,1.5,1\n4,0.75,-1\n")
	write("c.txt", "0 5 9\n")
	write("s.yaml", "base: {iters: 10, data: d.csv, churn: \"file:c.txt\"}\naxes:\n  seed: [1, 2]\n")
	load := func(path string) []string {
		t.Helper()
		s, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return []string{s.Runs[0].ID, s.Runs[1].ID, s.PlanHash()}
	}
	first := load(filepath.Join(dir, "s.yaml"))
	if first[0] == RunID(mustLoad(t, filepath.Join(dir, "s.yaml")).Runs[0].Config) {
		t.Error("a run that reads files is identified by its configuration alone")
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	here := load("s.yaml")
	if err := os.Chdir(wd); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(here) != fmt.Sprint(first) {
		t.Errorf("loaded from its own folder: ids %v, from elsewhere %v", here, first)
	}
	for _, edit := range []struct{ name, text string }{{"c.txt", "0 5 10\n"}, {"d.csv", "1,0.5,1\n2,0.25,-1\n3,1.5,1\n4,0.5,-1\n"}} {
		write(edit.name, edit.text)
		if got := load(filepath.Join(dir, "s.yaml")); got[0] == first[0] || got[1] == first[1] || got[2] == first[2] {
			t.Errorf("%s edited: ids %v, before %v", edit.name, got, first)
		}
	}
	// A .npy data set's labels, read from the y.npy beside it without a
	// labels file: an edit of them gives new ids too (the old labels'
	// results were kept as done). Load hashes the files, never parses them.
	write("X.npy", "features")
	write("y.npy", "labels 1")
	write("n.yaml", "base: {iters: 10, data: X.npy}\naxes:\n  seed: [1, 2]\n")
	before := load(filepath.Join(dir, "n.yaml"))
	write("y.npy", "labels 2")
	if after := load(filepath.Join(dir, "n.yaml")); after[0] == before[0] {
		t.Errorf("y.npy edited: id %s unchanged", after[0])
	}
	// No file: the configuration's id, as before.
	s := mustParse(t, "base: {iters: 10, churn: \"geometric:up=50,down=5\"}\naxes:\n  seed: [1]\n")
	if s.Runs[0].ID != RunID(s.Runs[0].Config) {
		t.Error("a run that reads no file changed its id")
	}
}

func mustLoad(t *testing.T, path string) *Sweep {
	t.Helper()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInputEditedAfterPlan: a data file edited between the plan and the
// run is caught before the run reads it (its id hashes the old contents):
// the run is failed, naming the file, and no result is stored under the
// old contents' id; with the file as planned it runs.
func TestInputEditedAfterPlan(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	var b strings.Builder
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&b, "%d,%g,%d\n", k, float64(k%7)/3, 2*(k%2)-1)
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sw := writeSweep(t, dir, "base: {iters: 50, data: d.csv, label_column: 3, log_points: 3, graph: cycle}\noptimum: false\naxes:\n  seed: [1, 2]\n")
	if err := os.WriteFile(data, []byte(b.String()+"40,1.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := open(t, filepath.Join(dir, "r.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1})
	if err != nil || rep.Complete != 0 {
		t.Fatalf("%+v %v: a run of the edited file completed", rep, err)
	}
	failed, err := st.RunErrors()
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 2 || !strings.Contains(fmt.Sprint(failed), "d.csv changed since the sweep planned this run") {
		t.Errorf("failures %v", failed)
	}
	// The file as planned again: its runs run.
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1, RerunFailed: true}); err != nil || rep.Complete != 2 {
		t.Fatalf("the file as planned: %+v %v", rep, err)
	}
}

// TestReportLeavesOutEarlierContents: a sweep run on a data file, the file
// edited, the sweep run again: the database holds both contents' runs
// under the same configurations, and the report shows the current
// contents' runs only, counting the others (Report.Superseded); with the
// first contents restored and run again, those are the current ones.
func TestReportLeavesOutEarlierContents(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	write := func(shift float64) {
		t.Helper()
		var b strings.Builder
		for k := 0; k < 40; k++ {
			fmt.Fprintf(&b, "%d,%g,%d\n", k, float64(k%7)/3+shift*float64(k%2), 2*(k%2)-1)
		}
		if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := "base: {iters: 50, data: d.csv, label_column: 3, log_points: 3, graph: cycle}\noptimum: false\naxes:\n  seed: [1, 2]\n"
	st := open(t, filepath.Join(dir, "r.db"))
	report := func(shift float64) *Report {
		t.Helper()
		write(shift)
		sw := writeSweep(t, dir, text)
		if rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1}); err != nil || rep.Ran+rep.Skipped != 2 {
			t.Fatalf("%+v %v", rep, err)
		}
		rep := loadReport(t, st)
		return rep
	}
	a := report(0)
	b := report(3)
	// Status without the sweep file counts the current contents' runs: 2
	// complete, done (it counted 4 planned, 2 pending for ever).
	if stat, err := StatusOf([]*Store{st}, nil); err != nil || stat.Total != 2 || stat.Complete != 2 || !stat.Done {
		t.Errorf("status after the edit: %+v %v, want 2 runs, 2 complete, done", stat, err)
	}
	if a.Superseded != 0 || b.Superseded != 2 || len(b.Groups) != 1 || b.Groups[0].Runs != 2 {
		t.Fatalf("superseded %d then %d; groups %d, runs %d: want 0, 2, one group of 2", a.Superseded, b.Superseded, len(b.Groups), b.Groups[0].Runs)
	}
	if a.Groups[0].Mean["objective_mean"] == b.Groups[0].Mean["objective_mean"] {
		t.Error("the report after the edit shows the first contents' objective")
	}
	c := report(0) // the first contents again: their runs are stored, and current
	if c.Superseded != 2 || c.Groups[0].Mean["objective_mean"] != a.Groups[0].Mean["objective_mean"] {
		t.Errorf("first contents restored: superseded %d, objective %v (first %v)", c.Superseded, c.Groups[0].Mean["objective_mean"], a.Groups[0].Mean["objective_mean"])
	}
}

// TestReportNamesUnsetValues: a swept value that is the parameter's unset
// one (loss 0, activation edges: the JSON form omits it) is named in the
// report's cells, and a numeric one plots at its x; they were blank cells,
// and the x axis fell back to the order of appearance.
func TestReportNamesUnsetValues(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "base: {iters: 40, data: synthetic-auc, n: 60, log_points: 2}\noptimum: false\naxes:\n  loss: [0, 0.3]\n  activation: [edges, clocks]\n")
	st := open(t, filepath.Join(dir, "r.db"))
	if _, err := Execute(context.Background(), sw, sw.Runs, st, Options{}); err != nil {
		t.Fatal(err)
	}
	rep := loadReport(t, st)
	var got []string
	for _, g := range rep.Groups {
		got = append(got, strings.Join(g.Values, " "))
	}
	if strings.Join(got, ",") != "0 edges,0 clocks,0.3 edges,0.3 clocks" {
		t.Fatalf("cells %q", got)
	}
	csv := string(rep.CSV())
	if !strings.Contains(csv, "\n0,edges,1,1,0,0,") {
		t.Errorf("summary.csv:\n%s", csv)
	}
	p, err := rep.Plot("objective_mean")
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 0 || p.X.Max != 0.3 {
		t.Errorf("x axis [%g, %g], want the values [0, 0.3]", p.X.Min, p.X.Max)
	}
	for _, k := range config.Params() {
		if k.RefusesGivenZero() && k.Unset == "" {
			t.Errorf("%s: a zero given is refused, so its unset value needs a name (Param.Unset)", k.Field)
		}
	}
}

// loadReport is LoadReport with the default options, failing the test on
// an error.
func loadReport(t *testing.T, st *Store) *Report {
	t.Helper()
	rep, err := LoadReport(st, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
