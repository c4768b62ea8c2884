package sweep

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

const claimSweep = `base:
  iters: 20
  eval_nodes: 2
  log_points: 2
optimum: false
axes:
  seed: {range: [1, 4]}
`

// claimOf inserts a claim of run id as another runner would.
func claimOf(t *testing.T, st *Store, id, host string, pid int, beat float64) {
	t.Helper()
	if _, err := st.db.Exec(`INSERT OR REPLACE INTO claims(id, owner, host, pid, heartbeat) VALUES (?, ?, ?, ?, ?)`,
		id, host+":other", host, pid, beat); err != nil {
		t.Fatal(err)
	}
}

func countClaims(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM claims`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func hostOf(t *testing.T, st *Store, id string) string {
	t.Helper()
	var h string
	if err := st.db.QueryRow(`SELECT host FROM runs WHERE id = ?`, id).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestClaimsSplitTheWork: a run claimed by another live runner is not run
// again: Execute runs the others, waits, and counts the claimed run as the
// other runner's when it ends; the other runner's row is kept.
func TestClaimsSplitTheWork(t *testing.T) {
	defer func(p time.Duration) { claimPoll = p }(claimPoll)
	claimPoll = time.Millisecond
	sw := mustParse(t, claimSweep)
	path := filepath.Join(t.TempDir(), "r.db")
	st, other := open(t, path), open(t, path) // two connections: two runners
	first := sw.Runs[0]
	claimOf(t, other, first.ID, "elsewhere", 1, now())
	waits := 0
	rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1, OnWait: func(held int) {
		waits++
		if held != 1 {
			t.Errorf("waiting for %d runs, want 1", held)
		}
		if waits == 3 { // the other runner ends its run
			o := &Outcome{Run: first, Axes: "{}", Status: StatusComplete, Optimum: math.NaN(), Summary: []byte("{}"), Host: "elsewhere"}
			if err := other.Write(o); err != nil {
				t.Error(err)
			}
			other.db.Exec(`DELETE FROM claims WHERE id = ?`, first.ID)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 3 || rep.Others != 1 || rep.Complete != 3 || waits != 3 {
		t.Fatalf("ran %d (complete %d), others %d, waited %d times; want 3, 3, 1, 3", rep.Ran, rep.Complete, rep.Others, waits)
	}
	if h := hostOf(t, st, first.ID); h != "elsewhere" {
		t.Errorf("the other runner's run was overwritten (host %q)", h)
	}
	if n := countClaims(t, st); n != 0 {
		t.Errorf("%d claims left after the sweep", n)
	}
}

// TestClaimsTakeOver: the claims of a runner that stopped are taken over at
// once: one silent for longer than the lease (any host), or one of a
// process of this host that no longer exists (killed with SIGKILL).
func TestClaimsTakeOver(t *testing.T) {
	sw := mustParse(t, claimSweep)
	host, _ := os.Hostname()
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		host string
		pid  int
		beat float64
	}{
		{"silent past the lease", "elsewhere", 1, now() - 2*claimLease.Seconds()},
		{"process gone", host, gone.Process.Pid, now()},
	} {
		st := open(t, filepath.Join(t.TempDir(), "r.db"))
		claimOf(t, st, sw.Runs[1].ID, c.host, c.pid, c.beat)
		waited := false
		rep, err := Execute(context.Background(), sw, sw.Runs, st, Options{Cores: 1, OnWait: func(int) { waited = true }})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ran != 4 || rep.Others != 0 || waited {
			t.Errorf("%s: ran %d, others %d, waited %v; want the claimed run taken over", c.name, rep.Ran, rep.Others, waited)
		}
		if n := countClaims(t, st); n != 0 {
			t.Errorf("%s: %d claims left", c.name, n)
		}
	}
	// A live claim of this host's process (this test) by another session
	// holds: only the lease or the process's end frees it.
	st := open(t, filepath.Join(t.TempDir(), "r.db"))
	cs, err := newClaimSession(st)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.close()
	claimOf(t, st, sw.Runs[2].ID, host, os.Getppid(), now())
	if got, err := cs.claim(sw.Runs[2].ID); err != nil || got != heldOther {
		t.Errorf("claim of a run held by a live process: %v %v", got, err)
	}
	if got, err := cs.claim(sw.Runs[3].ID); err != nil || got != claimed {
		t.Errorf("claim of a free run: %v %v", got, err)
	}
}
