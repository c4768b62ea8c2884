package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/internal/lab"
)

// TestHostileFlags: sizes that panicked or died out of memory are refused
// before any allocation, naming the flag or the memory needed, with exit
// status 2 (issue #15, item 2). The memory available is fixed at 8 GiB.
func TestHostileFlags(t *testing.T) {
	defer func(f func() int64) { availableMemory = f }(availableMemory)
	availableMemory = func() int64 { return 8 << 30 }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "--triad-n", "-5"}, "--triad-n must be >= 1, got -5"},
		{[]string{"sync", "--triad-n", "0"}, "--triad-n must be >= 1, got 0"},
		{[]string{"sync", "--n", "1000000000", "--d", "1000"}, "n = 1000000000, d = 1000 needs about"},
		{[]string{"sync", "--n", "1000", "--triad-n", "100000000000"}, "needs about 2.24e+03 GiB"},
		{[]string{"metric", "--d", "100000"}, "n = 1000, d = 100000 needs about"},
		{[]string{"async", "--n", "1000000000", "--d", "1000"}, "but only 8 GiB is available"},
		{[]string{"sync", "--workers", "9223372036854775807"}, "--workers must be <= 4096"},
		{[]string{"metric", "--workers", "100000000"}, "--workers must be <= 4096"},
		{[]string{"sync", "--n", "1"}, "--n must be >= 2"},
		{[]string{"sync", "--loss", "2"}, "--loss: 2 is not a probability"},
		{[]string{"sync", "--churn", "weibull:up=3"}, "--churn"},
	} {
		var out, errb bytes.Buffer
		code := realMain(c.args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestAsyncHotAndCopies: bench async --hot --copies reports the 64-node
// loop and the independent copies' rate, both positive, beside an
// identical parallel run; and the copies' memory counts in the size check.
func TestAsyncHotAndCopies(t *testing.T) {
	var out, errb bytes.Buffer
	code := realMain([]string{"async", "--n", "5000", "--d", "9", "--events", "20000", "--workers", "2",
		"--hot", "--copies", "--ceiling=false", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err, out.String())
	}
	for _, k := range []string{"hot_events_per_s", "hot_cpu_ns_per_event", "copies_events_per_s"} {
		if v, ok := r[k].(float64); !ok || !(v > 0) {
			t.Errorf("%s = %v, want > 0", k, r[k])
		}
	}
	if r["identical_to_serial"] != true {
		t.Errorf("identical_to_serial = %v", r["identical_to_serial"])
	}

	defer func(f func() int64) { availableMemory = f }(availableMemory)
	// Room for one state of n = 4·10⁶ at d = 16 (about 1.4 GiB with the
	// graph) but not for 64 copies of its records.
	availableMemory = func() int64 { return 4 << 30 }
	if err := checkSize("auc", "watts-strogatz", 4000000, 16, 64, 1, 0); err != nil {
		t.Fatalf("one state should fit: %v", err)
	}
	out.Reset()
	errb.Reset()
	args := []string{"async", "--n", "4000000", "--events", "1", "--workers", "64", "--copies"}
	if code := realMain(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "needs about") {
		t.Errorf("%v: exit %d, stderr %q; want 2 and the memory needed", args, code, errb.String())
	}
}

// TestAsyncCeilingSweep: --ceiling-sweep times every prefetching of the
// list and the serial loop's own, and reports the fastest of them.
func TestAsyncCeilingSweep(t *testing.T) {
	var out, errb bytes.Buffer
	code := realMain([]string{"async", "--n", "5000", "--d", "9", "--events", "20000", "--workers", "1",
		"--ceiling-sweep", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Sweep []struct {
			Group, Ahead int
			Rate         float64 `json:"events_per_s"`
		} `json:"ceiling_sweep"`
		Best      float64 `json:"ceiling_sweep_best_events_per_s"`
		BestGroup int     `json:"ceiling_sweep_best_group"`
		BestAhead int     `json:"ceiling_sweep_best_ahead"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err, out.String())
	}
	g, a := lab.AsyncPrefetch()
	own, fastest, fg, fa := false, 0.0, -1, -1
	for _, row := range r.Sweep {
		if !(row.Rate > 0) {
			t.Errorf("group %d, ahead %d: %v events/s", row.Group, row.Ahead, row.Rate)
		}
		own = own || row.Group == g && row.Ahead == a
		if row.Rate > fastest {
			fastest, fg, fa = row.Rate, row.Group, row.Ahead
		}
	}
	if fg != r.BestGroup || fa != r.BestAhead {
		t.Errorf("fastest %d/%d, reported %d/%d", fg, fa, r.BestGroup, r.BestAhead)
	}
	if len(r.Sweep) < len(ceilingStrategies) || !own {
		t.Errorf("%d strategies timed (want %d and the loop's own %d/%d: %v)", len(r.Sweep), len(ceilingStrategies), g, a, own)
	}
	if r.Best != fastest {
		t.Errorf("best %v, want the fastest row %v", r.Best, fastest)
	}
}

// TestTTASmoke: bench tta at a tiny n reaches both targets, reports the
// columns of bench/RESULTS.md's time-to-accuracy table, and refuses a bad
// flag by name with exit 2.
func TestTTASmoke(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := realMain([]string{"tta", "--n", "64", "--d", "4", "--targets", "2,1", "--max-wall", "30s", "--plain-seconds", "100ms", "--json"}, &out, &errb)
	var res struct {
		Rows []map[string]any `json:"rows"`
	}
	if code != 0 || json.Unmarshal(out.Bytes(), &res) != nil {
		t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
	}
	if len(res.Rows) != 4 {
		t.Fatalf("%d rows, want 4 (sync and async, two targets)", len(res.Rows))
	}
	for _, r := range res.Rows {
		for _, k := range []string{"iterations", "wall_seconds", "node_updates", "nonzero_share", "ns_per_node_update", "ns_per_contributing_node_update", "kernel_alone_ns"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("row %v: no %s", r, k)
			}
		}
		if r["reached"] != true || r["relative_gap"].(float64) > r["target"].(float64) {
			t.Fatalf("row %v: target not reached", r)
		}
		if _, ok := r["plain_ns_per_node_update"]; ok != (r["algo"] == "sync") {
			t.Fatalf("row %v: the plain rate belongs to sync rows", r)
		}
	}
	for _, bad := range [][]string{{"tta", "--targets", "0"}, {"tta", "--algo", "x"}, {"tta", "--n", "1"}, {"tta", "--runs", "0"}} {
		var o, e bytes.Buffer
		if code := realMain(bad, &o, &e); code != 2 || !strings.Contains(e.String(), "--"+strings.TrimPrefix(bad[1], "--")) || o.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, e.String())
		}
	}
}

// TestAsyncFaults: bench async --loss --churn runs the serial loop and the
// parallel executor under the model, identical, and times both again
// without faults, side by side; a bad --loss or --churn is a usage error
// naming the flag.
func TestAsyncFaults(t *testing.T) {
	var out, errb bytes.Buffer
	code := realMain([]string{"async", "--n", "5000", "--d", "9", "--events", "20000", "--workers", "2",
		"--loss", "0.3", "--churn", "geometric:up=9000,down=1000", "--ceiling=false", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		Network     string  `json:"network"`
		Identical   bool    `json:"identical_to_serial"`
		Rate        float64 `json:"events_per_s"`
		Clean       float64 `json:"faultless_events_per_s"`
		CleanSerial float64 `json:"faultless_serial_events_per_s"`
		Slowdown    float64 `json:"fault_slowdown"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err, out.String())
	}
	if !r.Identical || r.Rate <= 0 || r.Clean <= 0 || r.CleanSerial <= 0 || r.Slowdown <= 0 ||
		!strings.Contains(r.Network, "--loss 0.3") || !strings.Contains(r.Network, "--churn geometric") {
		t.Fatalf("%+v", r)
	}
	for _, c := range [][]string{{"--loss", "1.5"}, {"--churn", "weibull:up=1"}} {
		errb.Reset()
		args := append([]string{"async", "--n", "5000", "--events", "10"}, c...)
		if code := realMain(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c[0]) {
			t.Fatalf("%v: exit %d: %s", c, code, errb.String())
		}
	}
}

// TestAsyncParallelAlone: bench async --serial=false times the parallel
// executor alone (the serial loop's fields null, not zero or infinite),
// --decide-from sets where a model's events are decided and says so,
// --cpuprofile writes a profile, and the serial loop's extras are refused
// without it.
func TestAsyncParallelAlone(t *testing.T) {
	for _, from := range []string{"2", "4"} {
		var out, errb bytes.Buffer
		prof := filepath.Join(t.TempDir(), "cpu.prof")
		code := realMain([]string{"async", "--n", "5000", "--d", "9", "--events", "20000", "--workers", "2", "--serial=false",
			"--decide-from", from, "--loss", "0.3", "--churn", "geometric:up=9000,down=1000", "--json", "--cpuprofile", prof}, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
			t.Fatalf("--cpuprofile wrote no profile: %v", err)
		}
		var r map[string]any
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err, out.String())
		}
		if r["serial_events_per_s"] != nil || r["speedup"] != nil || r["identical_to_serial"] != nil ||
			r["memory_ceiling_events_per_s"] != nil || r["events_per_s"].(float64) <= 0 ||
			r["faultless_events_per_s"].(float64) <= 0 || fmt.Sprint(r["decide_from"]) != from {
			t.Fatalf("%s", out.String())
		}
	}
	for _, c := range [][]string{{"--ceiling"}, {"--hot"}, {"--decide-from", "-1"}} {
		var out, errb bytes.Buffer
		args := append([]string{"async", "--n", "5000", "--events", "10", "--serial=false"}, c...)
		if code := realMain(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), strings.TrimPrefix(c[0], "-")) {
			t.Fatalf("%v: exit %d: %s", c, code, errb.String())
		}
	}
}

// TestSyncNetwork: bench sync --loss --churn runs the reduced schedule
// under the model and says so in its JSON; --cpuprofile writes a profile,
// and names itself when it cannot.
func TestSyncNetwork(t *testing.T) {
	var out, errb bytes.Buffer
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	code := realMain([]string{"sync", "--n", "3000", "--d", "4", "--iters", "300", "--workers", "1", "--triad-n", "1000",
		"--loss", "0.3", "--churn", "geometric:up=450,down=50", "--json", "--cpuprofile", prof}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Fatalf("--cpuprofile wrote no profile: %v", err)
	}
	errb.Reset()
	bad := filepath.Join(t.TempDir(), "no-such-dir", "cpu.prof")
	if code := realMain([]string{"sync", "--n", "3000", "--d", "4", "--iters", "3", "--triad-n", "1000", "--cpuprofile", bad}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "--cpuprofile") {
		t.Fatalf("--cpuprofile into a missing folder: exit %d: %s", code, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["schedule"] != "reduced" || !strings.Contains(m["network"].(string), "loss") || !strings.Contains(m["network"].(string), "churn") {
		t.Fatalf("schedule %v, network %v", m["schedule"], m["network"])
	}
}
