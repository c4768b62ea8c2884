package sweep

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver "sqlite"

	"github.com/pairgossip/pairgossip"
)

// Run statuses in the runs table.
const (
	StatusComplete = "complete" // ran to the last iteration
	StatusDiverged = "diverged" // stopped by divergence: a deterministic outcome, not retried
	StatusFailed   = "failed"   // an error (bad data file, ...): retried by the next sweep run
)

// Done reports whether a status is final (the run is not run again).
func Done(status string) bool { return status == StatusComplete || status == StatusDiverged }

// MetricColumns are the final-metric columns of the runs table, which are
// also the columns of the traces table after run_id (then come
// NetworkColumns).
var MetricColumns = output.TraceColumns

// NetworkColumns end the traces table (schema version 2): trace.csv's
// network columns (output.TraceNetworkColumns: exchanges attempted,
// delivered, one-way so far and nodes online, engine.Record's counters),
// NULL in every row of a run without a network model, whose trace.csv has
// no such columns (not 0 and -1, the engine's values there).
var NetworkColumns = output.TraceNetworkColumns

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plan(
  id TEXT PRIMARY KEY,
  sweep TEXT NOT NULL,
  idx INTEGER NOT NULL,
  config TEXT NOT NULL,
  axes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs(
  id TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  axes TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT NOT NULL,
  wall_seconds REAL,
  iter INTEGER,
  grad_evals INTEGER,
  grad_evals_nonzero INTEGER,
  objective_mean REAL,
  objective_std REAL,
  objective_min REAL,
  objective_max REAL,
  auc_mean REAL,
  bias REAL,
  consensus REAL,
  optimum_objective REAL,
  eval_nodes INTEGER,
  summary TEXT NOT NULL,
  host TEXT NOT NULL,
  finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS traces(
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
  exchanges_attempted INTEGER,
  exchanges_delivered INTEGER,
  exchanges_oneway INTEGER,
  nodes_online INTEGER,
  PRIMARY KEY(run_id, iter)
) WITHOUT ROWID;
`

const runsCols = "id, config, axes, status, error, wall_seconds, iter, grad_evals, grad_evals_nonzero, " +
	"objective_mean, objective_std, objective_min, objective_max, auc_mean, bias, consensus, " +
	"optimum_objective, eval_nodes, summary, host, finished_at"

// tracesV1Cols are the columns of the traces table of schema version 1,
// tracesCols all of them: those and NetworkColumns.
const tracesV1Cols = "run_id, iter, grad_evals, grad_evals_nonzero, objective_mean, objective_std, " +
	"objective_min, objective_max, auc_mean, bias, consensus"

var tracesCols = tracesV1Cols + ", " + strings.Join(NetworkColumns, ", ")

const planCols = "id, sweep, idx, config, axes"

// traceCols are the columns of the traces table after run_id.
var traceCols = strings.Split(tracesCols, ", ")[1:]

// SchemaVersion is stored in the meta table. Version 2 added NetworkColumns
// to the traces table. A database of version 1 (schemaV1) is read as it is
// (its trace rows read with NULL network columns) and migrated to version 2
// when opened for writing (Open, migrate).
const SchemaVersion = "2"

// schemaV1 is the version before the traces table's network columns.
const schemaV1 = "1"

// Store is a results database.
type Store struct {
	Path  string
	db    *sql.DB
	mu    sync.Mutex // one writer transaction at a time
	owner string     // the claim owner of the sweep run in progress (claims.go), "" when none
	// netCols: the traces table has NetworkColumns (always after Open; a
	// version-1 database opened by OpenExisting has not).
	netCols bool
}

func dsn(path string) (string, error) {
	if strings.ContainsAny(path, "?#") {
		return "", fmt.Errorf("results database path %q must not contain ? or #", path)
	}
	// The default rollback journal (not WAL) works on network file systems;
	// every run is one transaction, durable once committed.
	return path + "?_pragma=busy_timeout(30000)&_pragma=synchronous(FULL)&_pragma=journal_mode(DELETE)&_txlock=immediate", nil
}

// DBError is a results database that cannot be used: not an SQLite file,
// not a sweep results database, one of an unknown schema version, or a
// corrupt one. The command line reports it as a bad input (exit status 2).
type DBError struct {
	Path string
	Msg  string
}

func (e *DBError) Error() string { return e.Path + ": " + e.Msg }

// Open opens (creating if needed) a results database for writing. An
// existing file must be a sweep results database of this schema version
// that passes SQLite's quick_check (see verify).
func Open(path string) (*Store, error) {
	// An existing path must be a regular file: SQLite opens /dev/null (or
	// a pipe, a device) as an empty database and writes its journal beside
	// it (/dev/null-journal). Refused before anything is created.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory"
		}
		return nil, &DBError{Path: path, Msg: "not a results database (" + what + ")"}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	s, fresh, err := openVerified(path)
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := s.create(); err != nil {
			s.Close()
			return nil, err
		}
	}
	// A version-1 database gains the network columns.
	if err := s.migrate(); err != nil {
		s.Close()
		return nil, err
	}
	// Tables added to version 1 since without changing its meaning.
	if _, err := s.db.Exec(claimsSchema + planSourcesSchema); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.loadColumns(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// migrate brings a database of version 1 to SchemaVersion in one
// transaction (BEGIN IMMEDIATE: of several runners opening it together,
// one migrates, the others find it done): the traces table gains
// NetworkColumns (ALTER TABLE ADD COLUMN, NULL in the rows already there:
// runs of version 1 kept no network counters) and meta's schema_version
// becomes SchemaVersion. A database of SchemaVersion is left as it is.
func (s *Store) migrate() error {
	var v string
	if err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		return sqliteError(s.Path, err)
	}
	if v == SchemaVersion {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		return sqliteError(s.Path, err)
	}
	switch v {
	case SchemaVersion: // migrated meanwhile by another process
		return nil
	case schemaV1:
	default:
		return &DBError{Path: s.Path, Msg: fmt.Sprintf("schema_version %q changed while it was opened", v)}
	}
	have, err := tableColumns(context.Background(), tx, "main", "traces")
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	for _, c := range NetworkColumns {
		if slices.Contains(have, c) {
			continue
		}
		if _, err := tx.Exec(`ALTER TABLE traces ADD COLUMN ` + c + ` INTEGER`); err != nil {
			return fmt.Errorf("%s: migrating schema version %s to %s: %w", s.Path, schemaV1, SchemaVersion, err)
		}
	}
	if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, SchemaVersion); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	return nil
}

// queryer is a *sql.DB, *sql.Tx or *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// tableColumns returns the column names of a table of the database schema
// ("main", or an attached one), in order.
func tableColumns(ctx context.Context, q queryer, schema, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?, ?) ORDER BY cid`, table, schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// hasNetworkColumns reports whether the traces table of the database
// schema has every one of NetworkColumns (a version-1 database has none).
func hasNetworkColumns(ctx context.Context, q queryer, schema string) (bool, error) {
	have, err := tableColumns(ctx, q, schema, "traces")
	if err != nil {
		return false, err
	}
	for _, c := range NetworkColumns {
		if !slices.Contains(have, c) {
			return false, nil
		}
	}
	return true, nil
}

// loadColumns sets s.netCols.
func (s *Store) loadColumns() error {
	ok, err := hasNetworkColumns(context.Background(), s.db, "main")
	if err != nil {
		return sqliteError(s.Path, err)
	}
	s.netCols = ok
	return nil
}

// tracesSelect is the select list of tracesCols from a traces table with
// (netCols) or without the network columns (version 1: NULL in their place).
func tracesSelect(netCols bool) string {
	if netCols {
		return tracesCols
	}
	return tracesV1Cols + strings.Repeat(", NULL", len(NetworkColumns))
}

// create makes the tables of a new database in one transaction, so that
// another process opening it at the same time sees none or all of them;
// when one made them first, it checks them instead.
func (s *Store) create() error {
	tx, err := s.db.Begin() // BEGIN IMMEDIATE: one creator at a time
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&n); err != nil {
		return sqliteError(s.Path, err)
	}
	if n > 0 { // made meanwhile by another process
		tx.Rollback()
		_, err := s.verify()
		return err
	}
	if _, err := tx.Exec(schema); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('schema_version', ?)`, SchemaVersion); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	return nil
}

// OpenExisting opens a results database that must exist, for reading: it
// writes nothing to it.
func OpenExisting(path string) (*Store, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &DBError{Path: path, Msg: "not a results database (not a regular file)"}
	}
	s, fresh, err := openVerified(path)
	if err != nil {
		return nil, err
	}
	if fresh {
		s.Close()
		return nil, &DBError{Path: path, Msg: "not a sweep results database (it has no tables)"}
	}
	if err := s.loadColumns(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openVerified opens the database at path and checks it with verify; fresh
// reports a database with no tables yet (a new or empty file).
func openVerified(path string) (s *Store, fresh bool, err error) {
	d, err := dsn(path)
	if err != nil {
		return nil, false, err
	}
	db, err := sql.Open("sqlite", d)
	if err != nil {
		return nil, false, err
	}
	db.SetMaxOpenConns(1)
	s = &Store{Path: path, db: db}
	if fresh, err = s.verify(); err != nil {
		db.Close()
		return nil, false, err
	}
	return s, fresh, nil
}

// sweepTables are the tables of every results database.
var sweepTables = []string{"meta", "plan", "runs", "traces"}

// verify checks that the database is one sweep run can use: an SQLite
// file (not any other), holding the tables of a results database (not an
// unrelated SQLite database, which is refused rather than written into),
// of schema version SchemaVersion, and passing PRAGMA quick_check. It
// reports a database without any table (new, or an empty file) as fresh.
//
// quick_check, not integrity_check: it reads every page and checks the
// structure of every b-tree and the format of every record in time linear
// in the size of the file, but does not cross-check index entries against
// their rows, which makes integrity_check several times slower on
// databases of millions of trace rows. A corruption that leaves pages and
// records well-formed (a changed byte inside a number or a text) is found
// by neither.
func (s *Store) verify() (fresh bool, err error) {
	bad := func(format string, a ...any) error { return &DBError{Path: s.Path, Msg: fmt.Sprintf(format, a...)} }
	rows, err := s.db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return false, sqliteError(s.Path, err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return false, sqliteError(s.Path, err)
		}
		tables = append(tables, n)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return false, sqliteError(s.Path, err)
	}
	rows.Close()
	if len(tables) == 0 {
		return true, nil
	}
	for _, t := range sweepTables {
		if !slices.Contains(tables, t) {
			return false, bad("not a pairgossip sweep results database (its tables: %s; a results database has %s)",
				strings.Join(tables, ", "), strings.Join(sweepTables, ", "))
		}
	}
	var v string
	switch err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		return false, bad("not a pairgossip sweep results database (no schema_version in its meta table)")
	case err != nil:
		return false, sqliteError(s.Path, err)
	}
	if v != SchemaVersion && v != schemaV1 {
		return false, bad("schema_version %q, but this pairgossip reads version %s or %s (was it written by another version of pairgossip?)", v, schemaV1, SchemaVersion)
	}
	var res []string
	qr, err := s.db.Query(`PRAGMA quick_check(3)`)
	if err != nil {
		return false, sqliteError(s.Path, err)
	}
	defer qr.Close()
	for qr.Next() {
		var l string
		if err := qr.Scan(&l); err != nil {
			return false, sqliteError(s.Path, err)
		}
		for _, l := range strings.Split(l, "\n") {
			if l != "" && !strings.HasPrefix(l, "***") && len(res) < 3 {
				res = append(res, l)
			}
		}
	}
	if err := qr.Err(); err != nil {
		return false, sqliteError(s.Path, err)
	}
	if len(res) != 1 || res[0] != "ok" {
		return false, bad("the database is corrupt (SQLite's quick_check: %s); restore it from a copy, or run the sweep again into a new database", strings.Join(res, "; "))
	}
	return false, nil
}

// sqliteError names a database SQLite refuses to read as a DBError: a file
// that is not an SQLite database, or a corrupt one; other errors (I/O,
// permissions) as they are, with the path.
func sqliteError(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database"):
		return &DBError{Path: path, Msg: "not an SQLite database (a sweep results database is one)"}
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "corrupt"):
		return &DBError{Path: path, Msg: fmt.Sprintf("the database is corrupt (%v); restore it from a copy, or run the sweep again into a new database", err)}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// planSourcesSchema is the table of the folder each planned run's relative
// input paths were resolved from (the absolute folder of its sweep file;
// "" for a run whose inputs are all built in or absolute): two sweeps in
// two folders whose configurations read the same relative names hold two
// configurations, not one planned again (latestPlans). A database without
// it (written before) reads as every source "".
const planSourcesSchema = `
CREATE TABLE IF NOT EXISTS plansrc(
  id TEXT PRIMARY KEY,
  src TEXT NOT NULL
);
`

// planSource is the source AddPlan records for a run of sw (planSourcesSchema).
func planSource(sw *Sweep, r Run) string {
	written, _ := inputFiles(sw.Dir, r.Config)
	for _, p := range written {
		if !filepath.IsAbs(p) {
			if abs, err := filepath.Abs(sw.Dir); err == nil {
				return abs
			}
			return sw.Dir
		}
	}
	return ""
}

// planSources returns each planned run's source folder (planSourcesSchema;
// empty in a database written before the table).
func (s *Store) planSources() (map[string]string, error) {
	out := map[string]string{}
	if ok, err := s.hasTable("plansrc"); err != nil || !ok {
		return out, err
	}
	rows, err := s.db.Query(`SELECT id, src FROM plansrc`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, src string
		if err := rows.Scan(&id, &src); err != nil {
			return nil, err
		}
		out[id] = src
	}
	return out, rows.Err()
}

// hasTable reports whether the database has the named table.
func (s *Store) hasTable(name string) (bool, error) {
	var n int
	err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return n > 0, err
}

// AddPlan records the runs of a sweep (all of them, whatever share of them
// this process runs) so that status knows the total.
func (s *Store) AddPlan(sw *Sweep) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// REPLACE, not IGNORE: a run planned again moves to the end of the
	// table (its rowid), so that of the runs of one configuration on
	// several contents of its input files the last planned is known
	// (latestPlans: sweep report leaves the others out).
	st, err := tx.Prepare(`INSERT OR REPLACE INTO plan(` + planCols + `) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	src, err := tx.Prepare(`INSERT OR REPLACE INTO plansrc(id, src) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	for _, r := range sw.Runs {
		if _, err := st.Exec(r.ID, sw.Name, r.Index, string(ConfigJSON(r.Config)), sw.LabelsJSON(r)); err != nil {
			return err
		}
		if _, err := src.Exec(r.ID, planSource(sw, r)); err != nil {
			return err
		}
	}
	var keys []string
	for _, a := range sw.Axes {
		keys = append(keys, a.Keys...)
	}
	for k, v := range map[string]string{"axes:": strings.Join(sw.AxisNames(), ","), "keys:": strings.Join(keys, ",")} {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)`, k+sw.Name, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Statuses returns the status of every run in the runs table.
func (s *Store) Statuses() (map[string]string, error) {
	rows, err := s.db.Query(`SELECT id, status FROM runs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// PlanIDs returns the ids in the plan table.
func (s *Store) PlanIDs() ([]string, error) {
	rows, err := s.db.Query(`SELECT id FROM plan`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// RunError is the error message of a run's last attempt.
type RunError struct {
	ID     string
	Status string // StatusFailed or StatusDiverged
	Error  string
}

// RunErrors returns the runs whose last attempt failed or diverged, with
// its error (for a divergence: the iteration, node and field), sorted by id.
func (s *Store) RunErrors() ([]RunError, error) {
	rows, err := s.db.Query(`SELECT id, status, error FROM runs WHERE status IN ('failed', 'diverged') ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunError
	for rows.Next() {
		var e RunError
		if err := rows.Scan(&e.ID, &e.Status, &e.Error); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// RunWarning is a warning of a run's last attempt (summary.json's
// warnings: a bipartite graph, a lost precision, an optimum not solved).
type RunWarning struct {
	ID      string
	Warning string
}

// RunWarnings returns the warnings of the runs whose last attempt is
// complete or diverged, sorted by id, each run's in its summary's order.
func (s *Store) RunWarnings() ([]RunWarning, error) {
	rows, err := s.db.Query(`SELECT id, summary FROM runs WHERE status IN ('complete', 'diverged') ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunWarning
	for rows.Next() {
		var id, sum string
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, err
		}
		var w struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(sum), &w); err != nil {
			return nil, fmt.Errorf("run %s: its summary: %w", id, err)
		}
		for _, x := range w.Warnings {
			out = append(out, RunWarning{id, x})
		}
	}
	return out, rows.Err()
}

// Counts is the number of rows of each table of a results database.
type Counts struct {
	Planned   int // runs in the plan table (of every sweep recorded)
	Runs      int // rows of the runs table: one per run attempted, its last attempt
	TraceRows int // rows of the traces table, all runs together
}

// Count counts the rows of the plan, runs and traces tables.
func (s *Store) Count() (Counts, error) {
	var c Counts
	q := `SELECT (SELECT count(*) FROM plan), (SELECT count(*) FROM runs), (SELECT count(*) FROM traces)`
	if err := s.db.QueryRow(q).Scan(&c.Planned, &c.Runs, &c.TraceRows); err != nil {
		return c, fmt.Errorf("%s: %w", s.Path, err)
	}
	return c, nil
}

// runWall is a run's status and wall time, for StatusOf.
type runWall struct {
	id, status string
	wall       float64
}

// runWalls returns the status and wall time (0 when unknown) of every run
// in the runs table.
func (s *Store) runWalls() ([]runWall, error) {
	rows, err := s.db.Query(`SELECT id, status, COALESCE(wall_seconds, 0) FROM runs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runWall
	for rows.Next() {
		var r runWall
		if err := rows.Scan(&r.id, &r.status, &r.wall); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// latestPlans returns, for each run id in the plan, whether it is the last
// planned of the runs of its configuration (plan.config, whose JSON leaves
// out the input files' contents): a configuration planned on several
// contents of its files (a data file edited between two sweep runs) has
// several ids, and only the last planned describes the files as they are.
func (s *Store) latestPlans() (map[string]bool, error) {
	q := `SELECT id, config, rowid, '' FROM plan`
	if ok, err := s.hasTable("plansrc"); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	} else if ok {
		// A configuration is its text and the folder its relative
		// paths were resolved from.
		q = `SELECT p.id, p.config, p.rowid, COALESCE(s.src, '') FROM plan p LEFT JOIN plansrc s ON s.id = p.id`
	}
	rows, err := s.db.Query(q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	type plan struct {
		id  string
		seq int64
	}
	last := map[string]plan{}    // by configuration: its last planned run
	cfgOf := map[string]string{} // by run id: its configuration
	for rows.Next() {
		var p plan
		var cfg, src string
		if err := rows.Scan(&p.id, &cfg, &p.seq, &src); err != nil {
			return nil, err
		}
		cfg += "\x00" + src
		if l, ok := last[cfg]; !ok || p.seq > l.seq {
			last[cfg] = p
		}
		cfgOf[p.id] = cfg
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(cfgOf))
	for id, cfg := range cfgOf {
		out[id] = last[cfg].id == id
	}
	return out, nil
}

// reportMetricCols are the final metrics reportRuns reads, in its order.
var reportMetricCols = []string{"objective_mean", "objective_std", "objective_min", "objective_max", "auc_mean", "bias",
	"consensus", "optimum_objective", "wall_seconds"}

// reportRuns reads every run for a report: id, configuration JSON, status,
// the reportMetricCols (NaN when NULL) and its position in the plan (runs
// missing from the plan come last), in plan order.
func (s *Store) reportRuns() ([]*reportRun, error) {
	q := `SELECT r.id, r.config, r.status, r.` + strings.Join(reportMetricCols, ", r.") + `, COALESCE(p.idx, 1000000000)
	      FROM runs r LEFT JOIN plan p ON p.id = r.id ORDER BY ` + fmt.Sprint(4+len(reportMetricCols)) + `, r.id`
	rows, err := s.db.Query(q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	var runs []*reportRun
	for rows.Next() {
		var r reportRun
		var cfg string
		v := make([]sql.NullFloat64, len(reportMetricCols))
		dest := []any{&r.id, &cfg, &r.status}
		for i := range v {
			dest = append(dest, &v[i])
		}
		dest = append(dest, &r.order)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		// The network knobs in one spelling, as the run ids take them
		// (sameNetwork): runs of one configuration written two ways
		// (churn down=…,up=… and up=…,down=…; activation edges and
		// unset) are one row of the report, not two with one label.
		var c pairgossip.Config
		if json.Unmarshal([]byte(cfg), &c) == nil {
			if b, err := json.Marshal(sameNetwork(c)); err == nil {
				cfg = string(b)
			}
		}
		if err := json.Unmarshal([]byte(cfg), &r.cfg); err != nil {
			return nil, fmt.Errorf("run %s: bad config: %w", r.id, err)
		}
		r.vals = map[string]float64{}
		for i, n := range reportMetricCols {
			r.vals[n] = math.NaN()
			if v[i].Valid {
				r.vals[n] = v[i].Float64
			}
		}
		runs = append(runs, &r)
	}
	return runs, rows.Err()
}

// axisKeys returns the configuration keys of the sweeps' axes, in axis
// order, as recorded by AddPlan (one sweep after the other).
func (s *Store) axisKeys() ([]string, error) {
	rows, err := s.db.Query(`SELECT value FROM meta WHERE key LIKE 'keys:%' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if v != "" {
			out = append(out, strings.Split(v, ",")...)
		}
	}
	return out, rows.Err()
}

// rowValues are the values of one row, as the driver returns them.
type rowValues []any

// resultRows returns, by run id, the diffCols of the runs table (one row).
func (s *Store) resultRows() (map[string][]rowValues, error) {
	return s.rowsByID(`SELECT id, `+strings.Join(diffCols, ", ")+` FROM runs`, 1+len(diffCols))
}

// traceRows returns, by run id, the trace rows (traceCols, the columns of
// the traces table after run_id, NULL network columns in a database of
// version 1) in iteration order.
func (s *Store) traceRows() (map[string][]rowValues, error) {
	return s.rowsByID(`SELECT `+tracesSelect(s.netCols)+` FROM traces ORDER BY run_id, iter`, len(traceCols)+1)
}

// rowsByID runs a query whose first column is a run id and groups the
// other ncols-1 columns by it.
func (s *Store) rowsByID(query string, ncols int) (map[string][]rowValues, error) {
	rows, err := s.db.Query(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	out := map[string][]rowValues{}
	for rows.Next() {
		vals := make([]any, ncols)
		ptrs := make([]any, ncols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		id := fmt.Sprint(vals[0])
		if b, ok := vals[0].([]byte); ok {
			id = string(b)
		}
		out[id] = append(out[id], vals[1:])
	}
	return out, rows.Err()
}

// Outcome is the result of one run, as stored.
type Outcome struct {
	Run     Run
	Axes    string // LabelsJSON
	Status  string
	Error   string
	Wall    time.Duration
	Final   *pairgossip.Record // nil when the run produced no record
	Optimum float64            // NaN when not solved
	Eval    int
	Trace   []pairgossip.Record
	// Network: the run had a network model (its trace.csv has the network
	// columns): Trace's network counters are stored, NULL otherwise.
	Network bool
	Summary []byte
	// Warnings are the run's (summary.json's warnings), for the progress
	// lines of sweep run; the database has them in Summary.
	Warnings []string
	Host     string
	other    claimResult // not claimed: another runner holds or ran it (nothing run, nothing written)
}

func nullable(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// Write stores a run's row and its trace in one transaction, replacing any
// earlier (failed) attempt, and releases the run's claim. A row already
// final (complete or diverged: written meanwhile by another runner that
// took the run over) is kept.
func (s *Store) Write(o *Outcome) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	id := o.Run.ID
	if s.owner != "" {
		if _, err := tx.Exec(`DELETE FROM claims WHERE id = ? AND owner = ?`, id, s.owner); err != nil {
			return err
		}
		var old string
		err := tx.QueryRow(`SELECT status FROM runs WHERE id = ?`, id).Scan(&old)
		if err == nil && Done(old) {
			return tx.Commit()
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	if _, err := tx.Exec(`DELETE FROM traces WHERE run_id = ?`, id); err != nil {
		return err
	}
	f := o.Final
	var iter, ge, gnz any
	m := make([]any, 7)
	if f != nil {
		iter, ge, gnz = f.Iter, f.GradEvals, f.GradEvalsNonzero
		for i, v := range []float64{f.ObjMean, f.ObjStd, f.ObjMin, f.ObjMax, f.AUCMean, f.Bias, f.Consensus} {
			m[i] = nullable(v)
		}
	}
	_, err = tx.Exec(`INSERT OR REPLACE INTO runs(`+runsCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		id, string(ConfigJSON(o.Run.Config)), o.Axes, o.Status, o.Error, o.Wall.Seconds(), iter, ge, gnz,
		m[0], m[1], m[2], m[3], m[4], m[5], m[6], nullable(o.Optimum), o.Eval, string(o.Summary), o.Host,
		time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return err
	}
	if len(o.Trace) > 0 {
		st, err := tx.Prepare(`INSERT INTO traces(` + tracesCols + `) VALUES (?` + strings.Repeat(",?", len(traceCols)) + `)`)
		if err != nil {
			return err
		}
		for _, r := range o.Trace {
			var att, del, one, online any // NULL without a network model
			if o.Network {
				att, del, one, online = r.Attempted, r.Delivered, r.OneWay, r.Online
			}
			if _, err := st.Exec(id, r.Iter, r.GradEvals, r.GradEvalsNonzero, nullable(r.ObjMean), nullable(r.ObjStd),
				nullable(r.ObjMin), nullable(r.ObjMax), nullable(r.AUCMean), nullable(r.Bias), nullable(r.Consensus),
				att, del, one, online); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// Status counts runs.
type Status struct {
	Total    int     `json:"total"`    // runs planned (all sweeps recorded in the database)
	Complete int     `json:"complete"` // ran to the end
	Diverged int     `json:"diverged"` // stopped by divergence (final, not retried)
	Failed   int     `json:"failed"`   // errors; retried by the next sweep run
	Pending  int     `json:"pending"`  // planned, not yet done
	Done     bool    `json:"done"`     // every planned run is complete or diverged
	Wall     float64 `json:"wall_seconds"`
}

// StatusOf counts the planned runs of one or more databases together (a run
// counts once; a final status in any database wins over a failure).
// If only is not nil, the counts are restricted to those ids; else to the
// last planned run of each configuration (latestPlans, as sweep report):
// a run planned on input files since edited is not pending for ever.
func StatusOf(stores []*Store, only []string) (Status, error) {
	plan := map[string]bool{}
	status := map[string]string{}
	wall := map[string]float64{}
	superseded := map[string]bool{} // planned again on other input contents
	for _, s := range stores {
		ids, err := s.PlanIDs()
		if err != nil {
			return Status{}, fmt.Errorf("%s: %w", s.Path, err)
		}
		for _, id := range ids {
			plan[id] = true
		}
		latest, err := s.latestPlans()
		if err != nil {
			return Status{}, err
		}
		for id, last := range latest {
			if !last {
				superseded[id] = true
			}
		}
		walls, err := s.runWalls()
		if err != nil {
			return Status{}, fmt.Errorf("%s: %w", s.Path, err)
		}
		for _, r := range walls {
			plan[r.id] = true
			if old, ok := status[r.id]; !ok || (!Done(old) && Done(r.status)) {
				status[r.id] = r.status
				wall[r.id] = r.wall
			}
		}
	}
	if only != nil {
		plan = map[string]bool{}
		for _, id := range only {
			plan[id] = true
		}
	} else {
		for id := range superseded {
			delete(plan, id)
		}
	}
	var st Status
	for id := range plan {
		st.Total++
		switch status[id] {
		case StatusComplete:
			st.Complete++
		case StatusDiverged:
			st.Diverged++
		case StatusFailed:
			st.Failed++
		}
		st.Wall += wall[id]
	}
	st.Pending = st.Total - st.Complete - st.Diverged
	st.Done = st.Pending == 0
	return st, nil
}

// TaskDB is the database file of one SLURM array task.
func TaskDB(dir string, task int) string {
	return filepath.Join(dir, fmt.Sprintf("task-%d.db", task))
}

// TaskDBs lists the task databases in dir, sorted.
func TaskDBs(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "task-*.db"))
	if err != nil {
		return nil, err
	}
	sort.Strings(m)
	return m, nil
}

// MergeStats reports what Merge did with one source.
type MergeStats struct {
	Source    string
	Added     int // runs copied (new, or replacing a failed attempt)
	Present   int // runs already in the destination with a final status
	Conflicts int // runs final in both whose final metrics or traces differ
}

// Merge copies the runs of the database at src into s, one transaction:
// a run is copied when s lacks it, or has only a failed attempt and src has
// a final one. Merging the same source again changes nothing.
func (s *Store) Merge(ctx context.Context, src string) (MergeStats, error) {
	st := MergeStats{Source: src}
	fi, err := os.Stat(src)
	if err != nil {
		return st, err
	}
	// The same file under another name (a hard or symbolic link) too: its
	// device and inode. Attaching it would wait for our own lock.
	if di, err := os.Stat(s.Path); err == nil && os.SameFile(fi, di) {
		return st, &DBError{Path: src, Msg: fmt.Sprintf("is the destination %s itself (the same file): cannot merge a database into itself", s.Path)}
	}
	// The source must be a sound results database of this version.
	check, err := OpenExisting(src)
	if err != nil {
		return st, err
	}
	check.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return st, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS src`, src); err != nil {
		return st, fmt.Errorf("%s: %w", src, err)
	}
	defer conn.ExecContext(context.Background(), `DETACH DATABASE src`)
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM src.sqlite_master WHERE name IN ('plan','runs','traces')`).Scan(&n); err != nil {
		return st, fmt.Errorf("%s: %w", src, err)
	}
	if n != 3 {
		return st, fmt.Errorf("%s: not a sweep results database", src)
	}
	// A source of version 1 has no network columns: NULL in their place.
	if !s.netCols {
		return st, fmt.Errorf("%s: merge into a database opened for reading", s.Path)
	}
	srcNet, err := hasNetworkColumns(ctx, conn, "src")
	if err != nil {
		return st, fmt.Errorf("%s: %w", src, err)
	}
	var srcSources int // the source's plansrc table (none in a database written before it)
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = 'plansrc'`).Scan(&srcSources); err != nil {
		return st, fmt.Errorf("%s: %w", src, err)
	}
	err = func() error {
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			return err
		}
		ok := false
		defer func() {
			if !ok {
				conn.ExecContext(context.Background(), `ROLLBACK`)
			}
		}()
		stmts := []string{
			// REPLACE in the source's order, as AddPlan plans: the runs
			// the source planned last are the destination's last planned
			// (latestPlans), so that a task database of runs planned again
			// on the input files as they are now is reported as such.
			`INSERT OR REPLACE INTO main.plan(` + planCols + `) SELECT ` + planCols + ` FROM src.plan ORDER BY rowid`,

			`CREATE TEMP TABLE IF NOT EXISTS take(id TEXT PRIMARY KEY)`,
			`DELETE FROM temp.take`,
			`INSERT INTO temp.take SELECT s.id FROM src.runs s WHERE NOT EXISTS (
			   SELECT 1 FROM main.runs m WHERE m.id = s.id AND
			     (m.status IN ('complete','diverged') OR s.status NOT IN ('complete','diverged')))`,
			`DELETE FROM main.traces WHERE run_id IN (SELECT id FROM temp.take)`,
			`INSERT OR REPLACE INTO main.runs(` + runsCols + `) SELECT ` + runsCols + ` FROM src.runs WHERE id IN (SELECT id FROM temp.take)`,
			`INSERT INTO main.traces(` + tracesCols + `) SELECT ` + tracesSelect(srcNet) + ` FROM src.traces WHERE run_id IN (SELECT id FROM temp.take)`,
		}
		if srcSources > 0 {
			stmts = append(stmts[:1], append([]string{`INSERT OR REPLACE INTO main.plansrc(id, src) SELECT id, src FROM src.plansrc`}, stmts[1:]...)...)
		}
		for _, q := range stmts {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM temp.take`).Scan(&st.Added); err != nil {
			return err
		}
		q := `SELECT count(*) FROM src.runs s JOIN main.runs m ON m.id = s.id
		      WHERE s.status IN ('complete','diverged') AND m.status IN ('complete','diverged')
		        AND s.id NOT IN (SELECT id FROM temp.take)`
		if err := conn.QueryRowContext(ctx, q).Scan(&st.Present); err != nil {
			return err
		}
		var diff []string
		for _, c := range MetricColumns {
			diff = append(diff, fmt.Sprintf("s.%s IS NOT m.%s", c, c))
		}
		// The traces too (the same run id is the same bits: a difference
		// anywhere in a trace is a conflict, not only in its last point).
		var tdiff []string
		cols := strings.Split(tracesV1Cols, ", ")[2:] // after run_id, iter
		if srcNet {
			cols = append(cols, NetworkColumns...)
		}
		for _, c := range cols {
			tdiff = append(tdiff, fmt.Sprintf("a.%s IS NOT b.%s", c, c))
		}
		traceDiff := `EXISTS (SELECT 1 FROM src.traces a LEFT JOIN main.traces b ON b.run_id = a.run_id AND b.iter = a.iter
		                WHERE a.run_id = s.id AND (b.run_id IS NULL OR ` + strings.Join(tdiff, " OR ") + `))
		              OR (SELECT count(*) FROM src.traces WHERE run_id = s.id) != (SELECT count(*) FROM main.traces WHERE run_id = s.id)`
		q += ` AND (s.status IS NOT m.status OR ` + strings.Join(diff, " OR ") + ` OR ` + traceDiff + `)`
		if err := conn.QueryRowContext(ctx, q).Scan(&st.Conflicts); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
			return err
		}
		ok = true
		return nil
	}()
	if err != nil {
		return st, fmt.Errorf("merge %s: %w", src, err)
	}
	return st, nil
}
