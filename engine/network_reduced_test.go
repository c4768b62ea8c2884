package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// closeTo reports whether got agrees with want to tol relative on the whole
// vector (rowsClose on the concatenated rows).
func closeTo(got, want []float64, tol float64) bool {
	return len(got) == len(want) && rowsClose(got, want, tol)
}

// TestNetworkReducedMatchesReference: under every model but an adaptive
// picker the reduced schedule (the default for sync AUC) agrees with the
// reference executor to rounding (1e-9 relative on z, θ and θ̄), with the
// same y, gradient counts, network counters and online counts, for 1, 2
// and 8 workers, which agree bit for bit; small chunks and a pool on every
// block make the untouched nodes' chunks, the pool's overlap and the
// piece events (churn sessions of tens of rounds in blocks of 277) all run.
func TestNetworkReducedMatchesReference(t *testing.T) {
	forcePool(t)
	rc := reducedChunk
	reducedChunk = 16
	t.Cleanup(func() { reducedChunk = rc })
	n := 300
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	iters := int64(1500)
	models := netModels(g, iters, false)
	models = append(models,
		namedModel{"loss+churn", network.Model{Loss: 0.3, Churn: network.Churn{Dist: network.DistExponential, Up: 300, Down: 60}}},
		namedModel{"loss1", network.Model{Loss: 1}},
		namedModel{"l2", network.Model{Loss: 0.2, LossOneWay: true, Churn: network.Churn{Dist: network.DistGeometric, Up: 30, Down: 30}}})
	for _, nm := range models {
		if nm.m.Activation.Kind == network.ActAdaptive {
			continue
		}
		cfg := Config{Algorithm: Sync, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 5, EvalNodes: -1,
			Network: nm.m, Workers: 1, Schedule: ScheduleReference}
		pr := p
		if nm.name == "l2" {
			pr = testProblem(t, problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL2Sq, Lambda: 0.01}, n, 4, 2)
		}
		tr, s := runTrace(t, pr, g, cfg)
		ref := snapNet(s, tr)
		refEvals, refNZ := s.GradEvals()
		var first netSnap
		for _, w := range []int{1, 2, 8} {
			cfg.Workers, cfg.Schedule = w, ScheduleAuto
			tr, s := runTrace(t, pr, g, cfg)
			name := fmt.Sprintf("%s workers %d", nm.name, w)
			if s.kind.name != "reduced" {
				t.Fatalf("%s: auto ran %s, want reduced", name, s.kind.name)
			}
			got := snapNet(s, tr)
			for _, f := range []struct {
				what      string
				got, want []float64
			}{{"z", got.z, ref.z}, {"θ", got.th, ref.th}, {"θ̄", got.bar, ref.bar}} {
				if !closeTo(f.got, f.want, 1e-9) {
					t.Fatalf("%s: %s differs from the reference beyond rounding", name, f.what)
				}
			}
			if fmt.Sprint(got.y) != fmt.Sprint(ref.y) || got.counts != ref.counts {
				t.Fatalf("%s: y or counters %+v differ from the reference's %+v", name, got.counts, ref.counts)
			}
			if a, nz := s.GradEvals(); a != refEvals || nz != refNZ {
				t.Fatalf("%s: gradient evaluations %d/%d, reference %d/%d", name, a, nz, refEvals, refNZ)
			}
			if len(got.tr) != len(ref.tr) {
				t.Fatalf("%s: trace length", name)
			}
			for i, r := range got.tr {
				q := ref.tr[i]
				if r.Iter != q.Iter || r.Attempted != q.Attempted || r.Delivered != q.Delivered || r.OneWay != q.OneWay || r.Online != q.Online ||
					math.Abs(r.ObjMean-q.ObjMean) > 1e-9*math.Abs(q.ObjMean) {
					t.Fatalf("%s: record %d: %+v, reference %+v", name, i, r, q)
				}
			}
			if w == 1 {
				first = got
			} else if d := got.diff(first); d != "" {
				t.Fatalf("%s: %s differs from 1 worker's", name, d)
			}
		}
	}
}

// TestNetworkReducedQuietIdentical: the untouched nodes that do not
// contribute, which the reduced schedule advances directly (quiet), end
// every block with the bits the chunk's Host path gives them (Add, End),
// under loss, one-way loss, churn of each distribution and both together,
// on 1 and 2 workers (small chunks and a pool on every block, as above).
func TestNetworkReducedQuietIdentical(t *testing.T) {
	forcePool(t)
	rc := reducedChunk
	reducedChunk = 16
	t.Cleanup(func() { reducedChunk = rc; reducedHostOnly = false })
	n := 300
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	for _, nm := range []namedModel{
		{"loss", network.Model{Loss: 0.3}},
		{"one-way", network.Model{Loss: 0.3, LossOneWay: true}},
		{"geometric", network.Model{Churn: network.Churn{Dist: network.DistGeometric, Up: 40, Down: 20}}},
		{"lognormal+loss", network.Model{Loss: 0.2, Churn: network.Churn{Dist: network.DistLognormal, Up: 60, Down: 30}}},
		{"exponential+loss", network.Model{Loss: 0.3, Churn: network.Churn{Dist: network.DistExponential, Up: 300, Down: 60}}},
	} {
		for _, w := range []int{1, 2} {
			cfg := Config{Algorithm: Sync, Iters: 1500, GammaC: 0.5, Seed: 7, LogPoints: 5, EvalNodes: -1,
				Network: nm.m, Workers: w, Schedule: ScheduleReduced}
			reducedHostOnly = true
			tr, s := runTrace(t, p, g, cfg)
			host := snapNet(s, tr)
			hostEvals, _ := s.GradEvals()
			reducedHostOnly = false
			tr, s = runTrace(t, p, g, cfg)
			if d := snapNet(s, tr).diff(host); d != "" {
				t.Fatalf("%s, %d workers: %s differs from the Host path's", nm.name, w, d)
			}
			if a, _ := s.GradEvals(); a != hostEvals {
				t.Fatalf("%s, %d workers: %d gradient evaluations, the Host path %d", nm.name, w, a, hostEvals)
			}
		}
	}
}

// TestNetworkReducedRefusesAdaptive: the reduced schedule refuses an
// adaptive picker with its reason, and auto then runs the plain schedule.
func TestNetworkReducedRefusesAdaptive(t *testing.T) {
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	m := network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: netPicker{g}, PilotDraws: 200}}
	_, err := New(p, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 1, Schedule: ScheduleReduced, Network: m})
	if err == nil || !strings.Contains(err.Error(), "adaptive picker") {
		t.Fatalf("reduced with an adaptive picker: %v", err)
	}
	s, err := New(p, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 1, Network: m})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.kind.name != "plain" {
		t.Fatalf("auto ran %s under an adaptive picker, want plain", s.kind.name)
	}
}
