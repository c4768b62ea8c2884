package pairgossip

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/problem"
)

// optimumRun prepares and runs cfg (few iterations) and returns the run
// and its result.
func optimumRun(t *testing.T, cfg Config, in Input) (*Run, *Result) {
	t.Helper()
	cfg.Iters, cfg.LogPoints = 50, 3
	return executedInput(t, cfg, in)
}

// TestOptimumCache: a second run of the same problem (another seed, graph
// and algorithm) takes the optimum from the cache, bit for bit; another λ,
// another tolerance or other data solve again; an entry that is corrupt,
// edited, or stored under the file name of another key is never used;
// --no-optimum-cache neither reads nor writes; a user's objective is
// cached only under the key the program gives.
func TestOptimumCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, err := OptimumCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	entries := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		return m
	}
	cfg := DefaultConfig()
	cfg.Reg, cfg.Lambda = "l2", 0.01
	_, r1 := optimumRun(t, cfg, Input{})
	if r1.OptimumCached || len(entries()) != 1 {
		t.Fatalf("first run: cached %v, %d entries", r1.OptimumCached, len(entries()))
	}
	c2 := cfg
	c2.Seed, c2.Graph, c2.Algorithm = 7, "cycle", "async"
	_, r2 := optimumRun(t, c2, Input{})
	if !r2.OptimumCached || math.Float64bits(r2.Optimum.Value) != math.Float64bits(r1.Optimum.Value) || r2.Optimum.Method != r1.Optimum.Method {
		t.Fatalf("second run: cached %v, %v (%s) against %v (%s)", r2.OptimumCached, r2.Optimum.Value, r2.Optimum.Method, r1.Optimum.Value, r1.Optimum.Method)
	}
	for a := range r1.Optimum.Theta {
		if math.Float64bits(r1.Optimum.Theta[a]) != math.Float64bits(r2.Optimum.Theta[a]) {
			t.Fatalf("θ*[%d] %v cached, %v solved", a, r2.Optimum.Theta[a], r1.Optimum.Theta[a])
		}
	}
	// Another λ: solved again, a second entry.
	c3 := cfg
	c3.Lambda = 0.02
	_, r3 := optimumRun(t, c3, Input{})
	if r3.OptimumCached || r3.Optimum.Value == r1.Optimum.Value || len(entries()) != 2 {
		t.Fatalf("another λ: cached %v, value %v, %d entries", r3.OptimumCached, r3.Optimum.Value, len(entries()))
	}
	// Another solver tolerance, one changed data value, one changed
	// label: keys of their own.
	run1, _ := optimumRun(t, cfg, Input{})
	k1, _ := run1.optimumCacheKey(problem.OptimumOptions{})
	if k1b, _ := run1.optimumCacheKey(problem.OptimumOptions{Tol: 1e-8}); string(k1) == string(k1b) {
		t.Fatal("the solver's tolerance is not in the key")
	}
	x0 := run1.Problem.X.Row(5)[2]
	run1.Problem.X.Row(5)[2] = math.Nextafter(x0, 10)
	if k, _ := run1.optimumCacheKey(problem.OptimumOptions{}); string(k) == string(k1) {
		t.Fatal("the data are not in the key")
	}
	run1.Problem.X.Row(5)[2] = x0
	run1.Problem.Label[3] = -run1.Problem.Label[3]
	if k, _ := run1.optimumCacheKey(problem.OptimumOptions{}); string(k) == string(k1) {
		t.Fatal("the labels are not in the key")
	}
	run1.Problem.Label[3] = -run1.Problem.Label[3]
	// --no-optimum-cache: solved, nothing written.
	c4 := cfg
	c4.NoOptimumCache, c4.Lambda = true, 0.03
	if _, r4 := optimumRun(t, c4, Input{}); r4.OptimumCached || len(entries()) != 2 {
		t.Fatalf("--no-optimum-cache: cached %v, %d entries", r4.OptimumCached, len(entries()))
	}
	c4.NoOptimumCache, c4.Lambda = true, 0.01
	if _, r4 := optimumRun(t, c4, Input{}); r4.OptimumCached {
		t.Fatal("--no-optimum-cache read the cache")
	}
	// A corrupt entry (a changed digit of the value), a truncated one, and
	// another key's entry under this key's name are ignored and replaced.
	var path string
	for _, e := range entries() {
		if b, _ := os.ReadFile(e); strings.Contains(string(b), `"lambda":0.01`) {
			path = e
		}
	}
	good, _ := os.ReadFile(path)
	other := ""
	for _, e := range entries() {
		if e != path {
			other = e
		}
	}
	otherBytes, _ := os.ReadFile(other)
	v := strconv.FormatFloat(r1.Optimum.Value, 'g', -1, 64)
	for name, bad := range map[string]string{
		"edited value":  strings.Replace(string(good), `"value":`+v, `"value":`+v+"1", 1),
		"truncated":     string(good[:len(good)/2]),
		"another key's": string(otherBytes),
		"not JSON":      "\x00\x01garbage",
	} {
		if bad == string(good) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, r := optimumRun(t, cfg, Input{})
		if r.OptimumCached || math.Float64bits(r.Optimum.Value) != math.Float64bits(r1.Optimum.Value) {
			t.Fatalf("%s entry: cached %v, value %v (want a fresh solve, %v)", name, r.OptimumCached, r.Optimum.Value, r1.Optimum.Value)
		}
		if b, _ := os.ReadFile(path); string(b) != string(good) {
			t.Fatalf("%s entry: not replaced by the solved optimum", name)
		}
	}
	// A user's objective: not cached without a key, cached under one.
	n, d := 40, 3
	x, lab := memData(n, d)
	obj := func() problem.Objective {
		return &problem.Pairwise{Name: "sq", P: d, Smooth: true,
			Func: func(th, xi, xj []float64, i, j int) float64 {
				var m float64
				for a := range th {
					m += th[a] * (xi[a] - xj[a])
				}
				return (1 - m) * (1 - m)
			},
			GradFunc: func(g []float64, w float64, th, xi, xj []float64, i, j int) bool {
				var m float64
				for a := range th {
					m += th[a] * (xi[a] - xj[a])
				}
				for a := range g {
					g[a] += w * -2 * (1 - m) * (xi[a] - xj[a])
				}
				return true
			}}
	}
	uc := DefaultConfig()
	uc.Graph, uc.Reg, uc.Lambda = "complete", "l2", 0.1
	before := len(entries())
	for i := 0; i < 2; i++ {
		if _, r := optimumRun(t, uc, Input{Objective: obj(), X: x, N: n, D: d, Labels: lab}); r.OptimumCached || len(entries()) != before {
			t.Fatalf("a user objective without a key: cached %v, %d entries (want %d)", r.OptimumCached, len(entries()), before)
		}
	}
	_, ra := optimumRun(t, uc, Input{Objective: obj(), X: x, N: n, D: d, Labels: lab, OptimumCacheKey: "sq v1"})
	_, rb := optimumRun(t, uc, Input{Objective: obj(), X: x, N: n, D: d, Labels: lab, OptimumCacheKey: "sq v1"})
	_, rc := optimumRun(t, uc, Input{Objective: obj(), X: x, N: n, D: d, Labels: lab, OptimumCacheKey: "sq v2"})
	if ra.OptimumCached || !rb.OptimumCached || rc.OptimumCached || rb.Optimum.Value != ra.Optimum.Value {
		t.Fatalf("a user objective with a key: cached %v, %v, %v", ra.OptimumCached, rb.OptimumCached, rc.OptimumCached)
	}
}
