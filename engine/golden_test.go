package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// Golden state checksums: every schedule runs a small fixed problem and the
// SHA-256 of its final state and trace is compared with testdata/golden.json,
// so that an unintended numeric change between commits fails a test. The
// checksums depend on the kernel implementation (FMA or not) and, for metric
// learning, on the LAPACK build, so the file keys them by both; a key this
// machine cannot run is not checked. After an intended change, regenerate
// with
//
//	go test ./engine -run TestGoldenChecksums -update
//	OPENBLAS_CORETYPE=Haswell go test -tags netlib ./engine -run TestGoldenChecksums -update
//	go test -tags netlib ./engine -run TestGoldenChecksums -update
//
// (each adds or replaces the keys of the implementations this CPU and build
// have and keeps the others), and say in the commit why the numbers moved.
var update = flag.Bool("update", false, "rewrite the golden checksums in testdata/golden.json")

const goldenFile = "testdata/golden.json"

type goldenCase struct {
	name     string
	loss     problem.Loss
	reg      problem.Regularizer
	algo     Algorithm
	est      Estimator
	schedule Schedule
	workers  int
	graph    string
	exactPSD bool
}

func goldenCases() []goldenCase {
	none := problem.Regularizer{}
	psd := problem.Regularizer{Kind: problem.RegPSD}
	l2 := problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.02}
	l1 := problem.Regularizer{Kind: problem.RegL1, Lambda: 0.01}
	return []goldenCase{
		{"sync-reference-hinge-l1", problem.AUCHinge, l1, Sync, Gossip, ScheduleReference, 2, "watts-strogatz", false},
		{"sync-plain-logistic", problem.AUCLogistic, none, Sync, Gossip, SchedulePlain, 2, "watts-strogatz", false},
		{"sync-plain-logistic-unbiased", problem.AUCLogistic, none, Sync, Unbiased, SchedulePlain, 2, "watts-strogatz", false},
		{"sync-blocked-sqhinge-unbiased", problem.AUCSquaredHinge, none, Sync, Unbiased, ScheduleBlocked, 3, "watts-strogatz", false},
		{"sync-blocked-logistic", problem.AUCLogistic, none, Sync, Gossip, ScheduleBlocked, 2, "cycle", false},
		{"sync-reduced-logistic", problem.AUCLogistic, none, Sync, Gossip, ScheduleReduced, 2, "watts-strogatz", false},
		{"sync-reduced-hinge-l2", problem.AUCHinge, l2, Sync, Gossip, ScheduleReduced, 3, "complete", false},
		{"sync-cone-metric-psd", problem.MetricHinge, psd, Sync, Gossip, ScheduleReduced, 2, "watts-strogatz", false},
		{"sync-reference-metric-psd", problem.MetricHinge, psd, Sync, Gossip, ScheduleReference, 2, "watts-strogatz", true},
		{"async-plain-logistic", problem.AUCLogistic, none, Async, Gossip, SchedulePlain, 1, "watts-strogatz", false},
		{"async-plain-sqhinge-unbiased", problem.AUCSquaredHinge, l2, Async, Unbiased, SchedulePlain, 1, "cycle", false},
		{"async-parallel-logistic", problem.AUCLogistic, none, Async, Gossip, SchedulePlain, 2, "watts-strogatz", false},
		{"async-reference-metric-psd", problem.MetricHinge, psd, Async, Gossip, ScheduleReference, 1, "watts-strogatz", false},
		// One worker: at n = 40 (< asyncHeavyMinNodes) more would not engage
		// the parallel executor; its identity to the serial one is
		// TestAsyncConeIdenticalAcrossWorkers.
		{"async-cone-metric-psd", problem.MetricHinge, psd, Async, Gossip, ScheduleAuto, 1, "watts-strogatz", false},
		{"async-cone-metric-psd-d20", problem.MetricHinge, psd, Async, Gossip, ScheduleAuto, 1, "watts-strogatz", false},
		{"async-reference-hinge-l1-unbiased", problem.AUCHinge, l1, Async, Unbiased, ScheduleReference, 1, "complete", false},
		{"centralized-logistic", problem.AUCLogistic, none, Centralized, Gossip, ScheduleReference, 1, "", false},
	}
}

// goldenDim overrides the dimension of a case: the asynchronous metric
// schedule's projection takes other code paths from order 16 on
// (problem.ProjectPSDSelect: tridiagFull, the Householder kernel).
var goldenDim = map[string]int{"async-cone-metric-psd-d20": 20}

// goldenSum runs c on the active kernels and returns the checksum of the
// final state (StateChecksum) and of every record of the trace, bit for bit.
func goldenSum(t *testing.T, c goldenCase) string {
	t.Helper()
	n, d, iters, gc := 64, 4, int64(1500), 0.5
	if c.loss.IsMetric() {
		n, d, iters, gc = 40, 3, 300, 0.05
	}
	if k, ok := goldenDim[c.name]; ok {
		d = k
	}
	p := testProblem(t, c.loss, c.reg, n, d, 11)
	var g *graph.Graph
	switch c.graph {
	case "watts-strogatz":
		g = mustGraph(t, graph.Spec{Kind: c.graph, N: n, K: 4, P: 0.3, Seed: 4})
	case "":
	default:
		g = mustGraph(t, graph.Spec{Kind: c.graph, N: n})
	}
	s, err := New(p, g, Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: gc, GammaAlpha: 0.05, Seed: 21,
		Workers: c.workers, LogPoints: 6, EvalNodes: -1, Schedule: c.schedule, ExactPSD: c.exactPSD, Network: goldenNet()[c.name]})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer s.Close()
	tr, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	h := sha256.New()
	st := s.StateChecksum()
	h.Write(st[:])
	for _, r := range tr {
		binary.Write(h, binary.LittleEndian, [3]int64{r.Iter, r.GradEvals, r.GradEvalsNonzero})
		for _, v := range []float64{r.ObjMean, r.ObjStd, r.ObjMin, r.ObjMax, r.AUCMean, r.Bias, r.Consensus} {
			binary.Write(h, binary.LittleEndian, math.Float64bits(v))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// goldenKey names the checksums of kernel implementation impl with this
// build's LAPACK. Off amd64 the GOARCH is appended: the pure-Go math library
// itself differs between architectures (math.Exp, for one, is assembly on
// some), so the same kernel and LAPACK need not give the same bits there.
// amd64 keys carry no suffix, so the committed amd64 checksums stay valid;
// a GOAMD64=v3 or v4 build, which fuses multiply-adds (kernel.Fused), has
// its own keys ("/fma"; v3 and v4 give the same bits), checked by .ci/run
// in such a build.
// With OpenBLAS (-tags netlib) the name of the kernels it chose for the
// CPU is appended: its sums follow their blocking, so each core type has
// its own bits. .ci/run sets OPENBLAS_CORETYPE=Haswell, whose kernels
// every AVX2 processor runs, so that its checks hold on Intel and AMD
// machines alike; other core types are checked where they were recorded.
func goldenKey(impl string) string {
	key := impl + "+" + problem.LAPACK + goldenBuild
	if runtime.GOARCH != "amd64" {
		key += "/" + runtime.GOARCH
	} else if kernel.Fused() {
		key += "/fma" // GOAMD64=v3 and up: their own bits
	}
	if core := problem.BLASCore(); core != "" {
		key += "/" + core
	}
	return key
}

// TestGoldenChecksums compares every schedule's final state and trace with
// the recorded checksums, for every kernel implementation this CPU has.
func TestGoldenChecksums(t *testing.T) { checkGolden(t, goldenFile, goldenCases(), false) }

// goldenNetFile holds the checksums of the runs under a network model
// (goldenNetCases), apart from goldenFile: they depend on no LAPACK, and
// kernels and a build without recorded checksums skip the test rather than
// fail it (regenerate as above, with -run TestNetworkGoldenChecksums).
const goldenNetFile = "testdata/golden_network.json"

// goldenNetCases run the AUC problem under loss, one-way loss, churn of
// each distribution and delays, on the synchronous schedules (reduced,
// plain) and the asynchronous ones (serial, parallel): a change of the
// network model's draws or of how an executor honours them moves their
// bits, which the reference comparisons (to 10⁻⁹) let through.
func goldenNetCases() []goldenCase {
	none := problem.Regularizer{}
	return []goldenCase{
		{"sync-reduced-logistic-loss-geometric", problem.AUCLogistic, none, Sync, Gossip, ScheduleReduced, 2, "watts-strogatz", false},
		{"sync-reduced-logistic-oneway-lognormal", problem.AUCLogistic, none, Sync, Gossip, ScheduleReduced, 3, "watts-strogatz", false},
		{"sync-plain-logistic-exponential", problem.AUCLogistic, none, Sync, Gossip, SchedulePlain, 2, "cycle", false},
		{"async-plain-logistic-loss-geometric-delay", problem.AUCLogistic, none, Async, Gossip, SchedulePlain, 1, "watts-strogatz", false},
		{"async-parallel-logistic-lognormal", problem.AUCLogistic, none, Async, Gossip, SchedulePlain, 2, "watts-strogatz", false},
	}
}

// goldenNet is the network model of each of goldenNetCases (none for the
// others).
func goldenNet() map[string]network.Model {
	return map[string]network.Model{
		"sync-reduced-logistic-loss-geometric": {Loss: 0.2, Churn: network.Churn{Dist: network.DistGeometric, Up: 30, Down: 10}},
		"sync-reduced-logistic-oneway-lognormal": {Loss: 0.3, LossOneWay: true,
			Churn: network.Churn{Dist: network.DistLognormal, Up: 20, Down: 5, Sigma: 1.5}},
		"sync-plain-logistic-exponential": {Churn: network.Churn{Dist: network.DistExponential, Up: 40, Down: 8}},
		"async-plain-logistic-loss-geometric-delay": {Loss: 0.2, Churn: network.Churn{Dist: network.DistGeometric, Up: 300, Down: 100},
			Delay: network.Delay{Dist: network.DelayUniform, A: 0, B: 4}},
		"async-parallel-logistic-lognormal": {Loss: 0.3, Churn: network.Churn{Dist: network.DistLognormal, Up: 200, Down: 50, Sigma: 1}},
	}
}

func TestNetworkGoldenChecksums(t *testing.T) { checkGolden(t, goldenNetFile, goldenNetCases(), true) }

// checkGolden runs cases on every kernel implementation this CPU has and
// compares their checksums with those recorded in file under the
// implementation's key (-update records them); optional skips the test
// where no implementation has a key.
func checkGolden(t *testing.T, file string, cases []goldenCase, optional bool) {
	forcePool(t)
	shrinkAsync(t)
	golden := map[string]map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(b, &golden); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	} else if !*update {
		t.Fatalf("%s: %v (run with -update to create it)", file, err)
	}
	best := kernel.Active()
	defer kernel.Use(best)
	checked := 0
	for _, impl := range kernel.Implementations() {
		if err := kernel.Use(impl); err != nil {
			t.Fatal(err)
		}
		key := goldenKey(impl)
		want, ok := golden[key]
		if !ok && !*update {
			t.Logf("no golden checksums for %s: not checked", key)
			continue
		}
		got := map[string]string{}
		for _, c := range cases {
			got[c.name] = goldenSum(t, c)
			if !*update && got[c.name] != want[c.name] {
				t.Errorf("%s: %s: state checksum %s, golden %s: the numbers changed (if on purpose, rerun with -update and say why in the commit)",
					key, c.name, got[c.name], want[c.name])
			}
		}
		golden[key] = got
		checked++
	}
	if checked == 0 {
		if core := problem.BLASCore(); core != "" {
			t.Skipf("no golden checksums for OpenBLAS's %s kernels (keys: %v): run with OPENBLAS_CORETYPE=Haswell, or record them with -update",
				core, slices.Sorted(maps.Keys(golden)))
		}
		if optional {
			t.Skipf("%s: no golden checksums for the kernels and build at hand (keys: %v): record them with -update", file, slices.Sorted(maps.Keys(golden)))
		}
		t.Fatalf("no kernel implementation of this machine has golden checksums (keys: %v)", slices.Sorted(maps.Keys(golden)))
	}
	if *update {
		b, _ := json.MarshalIndent(golden, "", "  ")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", file)
	}
}
