package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNetworkSemanticsIndependent: the network model's semantics as an
// independent program reads them from the documents (scripts/netcheck.py:
// Algorithms 2 and 3 under two-way and one-way loss, geometric churn and
// (Algorithm 3) constant and uniform delays,
// the counter-based draws re-derived from docs/networks.md §2) give the
// running averages every schedule saves, to within 1e-9 of their largest
// entry, on the activations the run wrote. The blocked schedule, which
// cannot write its edges, is checked on those of the plain schedule's run
// of the same seed (the edge stream does not depend on the schedule).
func TestNetworkSemanticsIndependent(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("Debian's python3 with NumPy is not installed (apt-get install python3-numpy): the cross-check runs in CI")
	}
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "scripts", "netcheck.py")
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for k := 0; k < 40; k++ {
		y := r.IntN(2)
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%d\n", r.NormFloat64()+float64(y), r.NormFloat64(), r.NormFloat64()+0.5*float64(y), y)
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		algo, schedule, iters, churn string
		up, down                     string
		oneway, ownEdges             bool
		delay, delayRange            string // --delay, and netcheck.py's A..B
	}{
		{algo: "sync", schedule: "plain", iters: "400", up: "20", down: "5"},
		{algo: "sync", schedule: "plain", iters: "400", up: "20", down: "5", oneway: true},
		{algo: "sync", schedule: "reduced", iters: "400", up: "20", down: "5"},
		{algo: "sync", schedule: "reduced", iters: "400", up: "20", down: "5", oneway: true},
		{algo: "sync", schedule: "reference", iters: "400", up: "20", down: "5", oneway: true},
		{algo: "sync", schedule: "blocked", iters: "400", up: "20", down: "5", ownEdges: true},
		{algo: "async", schedule: "auto", iters: "3000", up: "600", down: "150"},
		{algo: "async", schedule: "auto", iters: "3000", up: "600", down: "150", oneway: true},
		{algo: "async", schedule: "reference", iters: "3000", up: "600", down: "150", oneway: true},
		{algo: "async", schedule: "auto", iters: "3000", up: "600", down: "150", oneway: true, delay: "constant:3", delayRange: "3..3"},
		{algo: "async", schedule: "auto", iters: "3000", up: "600", down: "150", delay: "uniform:0..4", delayRange: "0..4"},
		{algo: "async", schedule: "reference", iters: "3000", up: "600", down: "150", oneway: true, delay: "uniform:0..4", delayRange: "0..4"},
	} {
		name := fmt.Sprintf("%s/%s/oneway=%v/delay=%s", c.algo, c.schedule, c.oneway, c.delayRange)
		edges := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".edges")
		flags := []string{"--data", data, "--graph", "cycle", "--algo", c.algo, "--iters", c.iters, "--seed", "7", "--loss", "0.3",
			"--churn", "geometric:up=" + c.up + ",down=" + c.down, "--no-optimum", "--log-points", "3", "--workers", "2"}
		if c.oneway {
			flags = append(flags, "--loss-oneway")
		}
		if c.delay != "" {
			flags = append(flags, "--delay", c.delay)
		}
		if c.ownEdges { // the plain schedule's run writes the edges
			out := filepath.Join(dir, name, "edges-run")
			if code, _, stderr := runCLI(append([]string{"run", "--out", out, "--schedule", "plain", "--write-edges", edges}, flags...)...); code != 0 {
				t.Fatalf("%s: the plain run writing the edges: exit %d: %s", name, code, stderr)
			}
		} else {
			flags = append(flags, "--write-edges", edges)
		}
		out := filepath.Join(dir, name, "out")
		if code, _, stderr := runCLI(append([]string{"run", "--out", out, "--schedule", c.schedule, "--save-model"}, flags...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		args := []string{script, data, edges, filepath.Join(out, "theta_bar.npy"), "--algo", c.algo, "--seed", "7", "--iters", c.iters,
			"--loss", "0.3", "--churn-up", c.up, "--churn-down", c.down}
		if c.oneway {
			args = append(args, "--oneway")
		}
		if c.delay != "" {
			args = append(args, "--delay", c.delayRange)
		}
		got, err := exec.Command(py, args...).Output()
		var res struct {
			MaxRelDiff            float64 `json:"max_rel_diff"`
			OneWay                int     `json:"one_way"`
			Exchanges, Lost, Idle int
			Delayed               int
		}
		if jerr := json.Unmarshal(got, &res); jerr != nil {
			t.Fatalf("%s: netcheck.py: %v %v: %s", name, err, jerr, got)
		}
		if err != nil || !(res.MaxRelDiff <= 1e-9) {
			t.Errorf("%s: the independent reading differs: %s", name, got)
		}
		// Every rule was exercised: whole, lost and (one-way) partial
		// exchanges, idle activations.
		if res.Lost == 0 || res.Idle == 0 || c.delay != "" && res.Delayed == 0 ||
			c.delay != "constant:3" && (res.Exchanges == 0 || c.oneway != (res.OneWay > 0)) {
			t.Errorf("%s: a rule never ran: %s", name, got)
		}
	}
}
