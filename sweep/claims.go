package sweep

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// Several sweep run processes may share one results database (started on
// purpose to use more machines or by mistake): each claims a run before it
// starts it, in a transaction, so that they split the work instead of all
// doing all of it. A claim names its owner (host, process id and a random
// session id) and carries a heartbeat the owner renews while it runs; a
// claim whose owner is gone — a process of this host that no longer exists,
// or any owner silent for longer than the lease (another host, or a hung
// process) — is taken over, so the runs of a runner killed with SIGKILL are
// not lost. A run's row and the removal of its claim are one transaction.

// Lease is how long a claim holds without a heartbeat; heartbeats come
// every Lease/4. Tests shorten both.
var (
	claimLease = 2 * time.Minute
	claimPoll  = 500 * time.Millisecond // how often a runner waiting for others looks again
)

const claimsSchema = `
CREATE TABLE IF NOT EXISTS claims(
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  heartbeat REAL NOT NULL
);
`

// claimResult is what a runner finds when it tries to claim a run.
type claimResult int

const (
	claimed   claimResult = iota // the run is ours to run
	heldOther                    // another live runner is running it
	doneOther                    // another runner finished it (or attempted it) since this session began
)

// claimSession is one sweep run's use of a database: its owner id and the
// runs' rows as they were when it began.
type claimSession struct {
	st    *Store
	owner string
	host  string
	pid   int
	// before is the finished_at of each run's row when the session began:
	// a row written since was written by another runner.
	before map[string]string
	stop   chan struct{}
	done   chan struct{}
}

func newClaimSession(st *Store) (*claimSession, error) {
	host, _ := os.Hostname()
	c := &claimSession{st: st, host: host, pid: os.Getpid(), before: map[string]string{}}
	var id [8]byte
	rand.Read(id[:])
	c.owner = fmt.Sprintf("%s:%d:%s", host, c.pid, hex.EncodeToString(id[:]))
	rows, err := st.db.Query(`SELECT id, finished_at FROM runs`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, at string
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		c.before[id] = at
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	st.owner = c.owner
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.heartbeats()
	return c, nil
}

// heartbeats renews the session's claims every lease/4 until close.
func (c *claimSession) heartbeats() {
	defer close(c.done)
	t := time.NewTicker(claimLease / 4)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.st.mu.Lock()
			c.st.db.Exec(`UPDATE claims SET heartbeat = ? WHERE owner = ?`, now(), c.owner)
			c.st.mu.Unlock()
		}
	}
}

// close stops the heartbeats and releases the claims still held (of runs
// interrupted before they ended).
func (c *claimSession) close() {
	close(c.stop)
	<-c.done
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	c.st.db.Exec(`DELETE FROM claims WHERE owner = ?`, c.owner)
	c.st.owner = ""
}

func now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// claim tries to claim run id, in one transaction.
func (c *claimSession) claim(id string) (claimResult, error) {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	tx, err := c.st.db.Begin() // BEGIN IMMEDIATE (the DSN's _txlock)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var status, at string
	switch err := tx.QueryRow(`SELECT status, finished_at FROM runs WHERE id = ?`, id).Scan(&status, &at); {
	case err == nil:
		if old, ok := c.before[id]; Done(status) || !ok || old != at {
			return doneOther, nil
		}
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	}
	var owner, host string
	var pid int
	var beat float64
	switch err := tx.QueryRow(`SELECT owner, host, pid, heartbeat FROM claims WHERE id = ?`, id).Scan(&owner, &host, &pid, &beat); {
	case err == nil:
		if owner != c.owner && c.alive(host, pid, beat) {
			return heldOther, nil
		}
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO claims(id, owner, host, pid, heartbeat) VALUES (?, ?, ?, ?, ?)`,
		id, c.owner, c.host, c.pid, now()); err != nil {
		return 0, err
	}
	return claimed, tx.Commit()
}

// alive reports whether the owner of a claim may still be running it: its
// heartbeat is within the lease and, on this host, its process exists.
func (c *claimSession) alive(host string, pid int, beat float64) bool {
	if now()-beat > claimLease.Seconds() {
		return false
	}
	if host == c.host && pid != c.pid {
		return processExists(pid)
	}
	return true
}
