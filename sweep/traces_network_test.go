package sweep

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/output"
)

// networkSweep runs over the paper's network, a loss and a churn (both
// algorithms): the runs 0 and 3 have no network model.
const networkSweep = `name: net
base:
  iters: 300
  eval_nodes: 4
  log_points: 5
  graph: cycle
optimum: false
axes:
  algorithm: [sync, async]
  network:
    - {loss: 0}
    - {loss: 0.3}
    - {churn: "geometric:up=20,down=10"}
`

// hasNetwork says which runs of networkSweep have a network model.
func hasNetwork(r Run) bool { return r.Index%3 != 0 }

// tracesCSV runs r's configuration as pairgossip run does and returns its
// trace.csv (output.TraceCSVNetwork: the network columns where the run has
// a network model) as a header and rows.
func tracesCSV(t *testing.T, sw *Sweep, r Run, workers int) (header []string, rows [][]string) {
	t.Helper()
	cfg := sw.Resolved(r.Config)
	cfg.Workers = workers
	cfg.SkipOptimum = true
	run, err := pairgossip.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	res, err := run.ExecuteWith(context.Background(), pairgossip.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(output.TraceCSVNetwork(res.Trace, math.NaN(), !run.Network.IsPerfect()))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("trace.csv: %d lines, %v", len(recs), err)
	}
	return recs[0], recs[1:]
}

// checkNetworkColumns compares the stored trace rows of every run of sw
// with the run's trace.csv: the network columns equal, by name, where it
// has them, NULL where it has none.
func checkNetworkColumns(t *testing.T, st *Store, sw *Sweep, workers int) {
	t.Helper()
	stored, err := st.traceRows()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range traceCols {
		col[c] = i
	}
	for _, r := range sw.Runs {
		header, rows := tracesCSV(t, sw, r, workers)
		has := slices.Contains(header, "exchanges_attempted")
		if has != hasNetwork(r) {
			t.Fatalf("run %d (%v): trace.csv has the network columns: %v", r.Index, r.Labels, has)
		}
		db := stored[r.ID]
		if len(db) != len(rows) {
			t.Fatalf("run %d: %d trace rows stored, %d in trace.csv", r.Index, len(db), len(rows))
		}
		var lost bool
		online := map[string]bool{}
		for k, row := range rows {
			if got, want := fmt.Sprint(db[k][col["iter"]]), row[slices.Index(header, "iter")]; got != want {
				t.Fatalf("run %d row %d: iter %s, trace.csv %s", r.Index, k, got, want)
			}
			for _, c := range NetworkColumns {
				v := db[k][col[c]]
				if !has {
					if v != nil {
						t.Errorf("run %d (paper's network) row %d: %s = %v, want NULL", r.Index, k, c, v)
					}
					continue
				}
				want, err := strconv.ParseInt(row[slices.Index(header, c)], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if got, ok := v.(int64); !ok || got != want {
					t.Errorf("run %d row %d: %s stored %#v, trace.csv %d", r.Index, k, c, v, want)
				}
			}
			if has {
				n := func(c string) int64 { x, _ := strconv.ParseInt(row[slices.Index(header, c)], 10, 64); return x }
				lost = lost || n("exchanges_delivered") < n("exchanges_attempted")
				online[row[slices.Index(header, "nodes_online")]] = true
			}
		}
		// The counters are not trivial: the loss loses messages, under the
		// churn the number of nodes online changes.
		switch {
		case has && strings.Contains(fmt.Sprint(r.Labels), "loss") && !lost:
			t.Errorf("run %d (%v): no exchange lost", r.Index, r.Labels)
		case has && strings.Contains(fmt.Sprint(r.Labels), "churn") && len(online) < 2:
			t.Errorf("run %d (%v): nodes online %v at every measurement", r.Index, r.Labels, online)
		}
	}
}

// TestSweepStoresNetworkColumns: a sweep over the network (loss, churn)
// stores trace.csv's network columns in the traces table, row by row as
// the run's trace.csv has them; a run on the paper's network stores NULL.
func TestSweepStoresNetworkColumns(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, networkSweep)
	st := open(t, filepath.Join(dir, "r.db"))
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1, Workers: 1})
	if err != nil || rep.Complete != 6 {
		t.Fatalf("%+v %v", rep, err)
	}
	checkNetworkColumns(t, st, sw, 1)
}

// TestNetworkColumnsMergeDiff: merging task databases carries the network
// columns (the merged database equals the local one, Diff finds nothing),
// and Diff compares them: a changed counter and a NULL made 0 are
// differences.
func TestNetworkColumnsMergeDiff(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, networkSweep)
	ctx := context.Background()
	local := open(t, filepath.Join(dir, "local.db"))
	if _, err := Execute(ctx, sw, sw.Runs, local, Options{Cores: 2, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "tasks")
	for task := 0; task < 2; task++ {
		st := open(t, TaskDB(tasks, task))
		if _, err := Execute(ctx, sw, Share(sw.Runs, task, 2), st, Options{Cores: 1, Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	merged := open(t, filepath.Join(dir, "merged.db"))
	srcs, _ := TaskDBs(tasks)
	for _, src := range srcs {
		if _, err := merged.Merge(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	checkNetworkColumns(t, merged, sw, 1)
	if lines, n, err := Diff(local, merged, 0); err != nil || n != 0 {
		t.Fatalf("diff: %d %q %v", n, lines, err)
	}
	lossRun, paperRun := sw.Runs[1], sw.Runs[0]
	if _, err := merged.db.Exec(`UPDATE traces SET exchanges_delivered = exchanges_delivered + 1 WHERE run_id = ? AND iter = 300`, lossRun.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := merged.db.Exec(`UPDATE traces SET nodes_online = 0 WHERE run_id = ? AND iter = 300`, paperRun.ID); err != nil {
		t.Fatal(err)
	}
	lines, n, err := Diff(local, merged, 0)
	all := strings.Join(lines, "\n")
	if err != nil || n != 2 || !strings.Contains(all, "exchanges_delivered") || !strings.Contains(all, "nodes_online: NULL vs 0") {
		t.Fatalf("diff after edits: %d %q %v", n, lines, err)
	}
	// Merge, like diff, sees the traces: the task databases are the local
	// runs' bits (no conflict); the edited copy's two runs differ in a
	// point before the last (they merged without a word).
	for _, src := range srcs {
		if ms, err := local.Merge(ctx, src); err != nil || ms.Conflicts != 0 {
			t.Fatalf("merge of %s: %+v %v", src, ms, err)
		}
	}
	if ms, err := local.Merge(ctx, filepath.Join(dir, "merged.db")); err != nil || ms.Conflicts != 2 {
		t.Fatalf("merge of the edited traces: %+v %v, want 2 conflicts", ms, err)
	}
}

// schemaV1Tables is the schema of version 1, before the network columns.
const schemaV1Tables = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE plan(id TEXT PRIMARY KEY, sweep TEXT NOT NULL, idx INTEGER NOT NULL, config TEXT NOT NULL, axes TEXT NOT NULL);
CREATE TABLE runs(
  id TEXT PRIMARY KEY, config TEXT NOT NULL, axes TEXT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL,
  wall_seconds REAL, iter INTEGER, grad_evals INTEGER, grad_evals_nonzero INTEGER, objective_mean REAL,
  objective_std REAL, objective_min REAL, objective_max REAL, auc_mean REAL, bias REAL, consensus REAL,
  optimum_objective REAL, eval_nodes INTEGER, summary TEXT NOT NULL, host TEXT NOT NULL, finished_at TEXT NOT NULL
);
CREATE TABLE traces(
  run_id TEXT NOT NULL,
  iter INTEGER NOT NULL,
  grad_evals INTEGER,
  grad_evals_nonzero INTEGER,
  objective_mean REAL,
  objective_std REAL,
  objective_min REAL,
  objective_max REAL,
  auc_mean REAL,
  bias REAL,
  consensus REAL,
  PRIMARY KEY(run_id, iter)
) WITHOUT ROWID;
INSERT INTO meta VALUES ('schema_version', '1');
`

// writeV1 writes a database of schema version 1 holding one complete run
// (id "old") with two trace rows.
func writeV1(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{schemaV1Tables,
		`INSERT INTO plan VALUES ('old', 'v1', 0, '{}', '{}')`,
		`INSERT INTO runs VALUES ('old', '{}', '{}', 'complete', '', 1.5, 20, 40, 40, 0.5, 0.1, 0.4, 0.6, NULL, 0.01, 0.02, NULL, 4, '{}', 'h', 't')`,
		`INSERT INTO traces VALUES ('old', 10, 20, 20, 0.7, 0.1, 0.6, 0.8, NULL, 0.02, 0.03), ('old', 20, 40, 40, 0.5, 0.1, 0.4, 0.6, NULL, 0.01, 0.02)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func schemaVersion(t *testing.T, st *Store) string {
	t.Helper()
	var v string
	if err := st.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func columnsOf(t *testing.T, st *Store) []string {
	t.Helper()
	c, err := tableColumns(context.Background(), st.db, "main", "traces")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOldSchemaDatabase: a database of schema version 1 (traces without the
// network columns) is read as it is by the commands that only read (its
// trace rows with NULL network columns, the file unchanged), merges into a
// new database, and opened for writing is migrated to version 2 once: the
// traces table gains the columns (NULL in the old rows, which keep their
// values), and takes runs with network counters, written or merged.
func TestOldSchemaDatabase(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	old := filepath.Join(dir, "old.db")
	writeV1(t, old)
	before, _ := os.ReadFile(old)

	// A new database has the columns, in the order of traceCols.
	fresh := open(t, filepath.Join(dir, "new.db"))
	if got := columnsOf(t, fresh); !slices.Equal(got, append([]string{"run_id"}, traceCols...)) || !slices.Equal(got[len(got)-4:], output.TraceNetworkColumns) {
		t.Fatalf("new database: traces columns %v", got)
	}
	if v := schemaVersion(t, fresh); v != "2" {
		t.Fatalf("new database: schema_version %s", v)
	}

	// Read only: the rows, NULL network columns; nothing written.
	ro, err := OpenExisting(old)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ro.traceRows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows["old"]) != 2 || len(rows["old"][1]) != len(traceCols) {
		t.Fatalf("old trace rows: %v", rows)
	}
	for _, r := range rows["old"] {
		if fmt.Sprint(r[len(r)-4:]) != "[<nil> <nil> <nil> <nil>]" {
			t.Errorf("old row %v: network columns not NULL", r)
		}
	}

	// Merged into a new database: NULL network columns there too.
	if ms, err := fresh.Merge(ctx, old); err != nil || ms.Added != 1 {
		t.Fatalf("merge of a version-1 database: %+v %v", ms, err)
	}
	if lines, n, err := Diff(ro, fresh, 0); err != nil || n != 0 {
		t.Fatalf("diff old vs merged: %q %v", lines, err)
	}
	ro.Close()
	if after, _ := os.ReadFile(old); !bytes.Equal(before, after) {
		t.Fatal("reading a version-1 database wrote into it")
	}

	// Opened for writing: migrated, twice is once.
	for round := 0; round < 2; round++ {
		st, err := Open(old)
		if err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
		if v := schemaVersion(t, st); v != SchemaVersion {
			t.Fatalf("open %d: schema_version %s", round, v)
		}
		if got := columnsOf(t, st); !slices.Equal(got, append([]string{"run_id"}, traceCols...)) {
			t.Fatalf("open %d: traces columns %v", round, got)
		}
		st.Close()
	}
	st := open(t, old)
	rows, err = st.traceRows()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows["old"]); got != "[[10 20 20 0.7 0.1 0.6 0.8 <nil> 0.02 0.03 <nil> <nil> <nil> <nil>] [20 40 40 0.5 0.1 0.4 0.6 <nil> 0.01 0.02 <nil> <nil> <nil> <nil>]]" {
		t.Fatalf("old rows after the migration: %s", got)
	}

	// It takes a run with a network model, written and merged.
	sw := mustParse(t, "base: {iters: 10, loss: 0.5}\naxes:\n  seed: [1, 2]\n")
	trace := []pairgossip.Record{{Iter: 5, Attempted: 5, Delivered: 2, OneWay: 2, Online: 32}, {Iter: 10, Attempted: 10, Delivered: 4, OneWay: 5, Online: 31}}
	write := func(st *Store, r Run) {
		t.Helper()
		o := &Outcome{Run: r, Axes: "{}", Status: StatusComplete, Wall: time.Second, Final: &trace[1], Optimum: math.NaN(),
			Trace: trace, Network: true, Summary: []byte("{}"), Host: "h"}
		if err := st.Write(o); err != nil {
			t.Fatal(err)
		}
	}
	write(st, sw.Runs[0])
	src := open(t, filepath.Join(dir, "src.db"))
	write(src, sw.Runs[1])
	if _, err := st.Merge(ctx, src.Path); err != nil {
		t.Fatal(err)
	}
	rows, err = st.traceRows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sw.Runs {
		var got []string
		for _, row := range rows[r.ID] {
			got = append(got, fmt.Sprint(row[0], row[len(row)-4:]))
		}
		if strings.Join(got, "; ") != "5 [5 2 2 32]; 10 [10 4 5 31]" {
			t.Errorf("run %d after the migration: iter [network columns] %q", r.Index, got)
		}
	}
}

// TestMergeKeepsLastPlanned: a configuration planned on two contents of its
// input files has two ids; after a merge, the one the source planned last
// is the destination's last planned too (a merge kept the destination's
// order, so that its report showed the other contents).
func TestMergeKeepsLastPlanned(t *testing.T) {
	dir := t.TempDir()
	plan := func(path string, ids ...string) {
		t.Helper()
		st, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, err := st.db.Exec(`INSERT OR REPLACE INTO plan(`+planCols+`) VALUES (?, 's', 0, '{"iters":10}', '{}')`, id); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	dst, src := filepath.Join(dir, "dst.db"), filepath.Join(dir, "src.db")
	plan(dst, "v1", "v2") // v2 planned last here
	plan(src, "v2", "v1") // then v1 again, in the source
	st, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Merge(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	last, err := st.latestPlans()
	if err != nil {
		t.Fatal(err)
	}
	if !last["v1"] || last["v2"] {
		t.Fatalf("after the merge the last planned is %v, want v1", last)
	}
}

// TestTwoFoldersSameNames: two sweep files in two folders whose
// configurations read input files of the same relative names (other
// files, other contents) hold two configurations, not one planned again:
// every run counts, in status and in the report (one sweep's runs were left
// out as "superseded"), which warns that a row averages them; an edit in
// one folder still supersedes that folder's earlier runs; a merge keeps
// the folders apart.
func TestTwoFoldersSameNames(t *testing.T) {
	root := t.TempDir()
	const text = "base:\n  data: synthetic-auc\n  n: 40\n  iters: 50\n  log_points: 2\n  churn: \"file:churn.txt\"\naxes:\n  seed: [1, 2]\noptimum: false\n"
	sweepIn := func(d, churn string) *Sweep {
		t.Helper()
		dir := filepath.Join(root, d)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "churn.txt"), []byte(churn), 0o644); err != nil {
			t.Fatal(err)
		}
		return writeSweep(t, dir, text)
	}
	ctx := context.Background()
	a, b := sweepIn("a", "3 10 40\n"), sweepIn("b", "5 20 45\n")
	st := open(t, filepath.Join(root, "both.db"))
	for _, sw := range []*Sweep{a, b} {
		if _, err := Execute(ctx, sw, sw.Runs, st, Options{Cores: 1}); err != nil {
			t.Fatal(err)
		}
	}
	last, err := st.latestPlans()
	if err != nil {
		t.Fatal(err)
	}
	for id, l := range last {
		if !l {
			t.Errorf("run %s of one of the two folders is taken for superseded", id)
		}
	}
	rep := loadReport(t, st)
	if rep.Superseded != 0 || len(rep.Groups) != 1 || rep.Groups[0].Complete != 4 || len(rep.Mixed) != 1 || !strings.Contains(rep.Mixed[0], "2 folders") {
		t.Fatalf("report: %d superseded, %d groups, mixed %q", rep.Superseded, len(rep.Groups), rep.Mixed)
	}
	// An edit in folder a, planned again: a's earlier runs are superseded,
	// b's are not.
	a2 := sweepIn("a", "3 10 41\n")
	if _, err := Execute(ctx, a2, a2.Runs, st, Options{Cores: 1}); err != nil {
		t.Fatal(err)
	}
	if rep = loadReport(t, st); rep.Superseded != 2 || rep.Groups[0].Complete != 4 {
		t.Fatalf("after an edit in one folder: %d superseded, %d complete", rep.Superseded, rep.Groups[0].Complete)
	}
	// Merged from a database per folder: the same.
	for x, sw := range []*Sweep{a2, b} {
		task := open(t, filepath.Join(root, fmt.Sprintf("task%d.db", x)))
		if _, err := Execute(ctx, sw, sw.Runs, task, Options{Cores: 1}); err != nil {
			t.Fatal(err)
		}
	}
	merged := open(t, filepath.Join(root, "merged.db"))
	for x := 0; x < 2; x++ {
		if _, err := merged.Merge(ctx, filepath.Join(root, fmt.Sprintf("task%d.db", x))); err != nil {
			t.Fatal(err)
		}
	}
	if rep = loadReport(t, merged); rep.Superseded != 0 || rep.Groups[0].Complete != 4 {
		t.Fatalf("merged: %d superseded, %d complete", rep.Superseded, rep.Groups[0].Complete)
	}
}

// TestReportOneSpelling: runs of one configuration whose network knobs are
// written two ways (churn up=…,down=… and down=…,up=….0; activation edges
// and unset; Clocks and clocks) are one row of the report, as they have
// one run id, not rows with one label.
func TestReportOneSpelling(t *testing.T) {
	root := t.TempDir()
	st := open(t, filepath.Join(root, "r.db"))
	for x, text := range []string{
		"axes:\n  activation: [edges, Clocks]\n  seed: [1, 2]\nbase:\n  churn: \"geometric:up=100,down=20\"\n",
		"axes:\n  activation: [clocks]\n  seed: [3, 4]\nbase:\n  churn: \"geometric:down=20,up=100.0\"\n",
		"axes:\n  seed: [3, 4]\nbase:\n  churn: \"geometric:up=100,down=20\"\n",
	} {
		dir := filepath.Join(root, fmt.Sprint(x))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sw := writeSweep(t, dir, "name: s\noptimum: false\n"+strings.Replace(text, "base:\n", "base:\n  data: synthetic-auc\n  n: 40\n  iters: 50\n  log_points: 2\n  algorithm: async\n", 1))
		if _, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1}); err != nil {
			t.Fatal(err)
		}
	}
	rep := loadReport(t, st)
	var got []string
	for _, g := range rep.Groups {
		got = append(got, fmt.Sprintf("%v: %d runs", g.Values, g.Complete))
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Complete != 4 || rep.Groups[1].Complete != 4 {
		t.Errorf("keys %v, groups %q; want 2 groups of 4 runs", rep.Keys, got)
	}
}
