package engine

import (
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// TestChooseSaysWhy: a named schedule that no row fits is refused with
// each candidate row's reason, built from the rows' fits (the one
// statement of their rules).
func TestChooseSaysWhy(t *testing.T) {
	auc := Shape{N: 100, D: 4, P: 4, Loss: problem.AUCLogistic, Reg: problem.RegNone, Edges: 200}
	for _, c := range []struct {
		cfg  Config
		sh   Shape
		want []string
	}{
		{Config{Algorithm: Async, Schedule: ScheduleReduced}, auc,
			[]string{"reduced schedule", "cone: needs the sync algorithm", "reduced: needs the sync algorithm"}},
		{Config{Algorithm: Sync, Estimator: Unbiased, Schedule: ScheduleReduced}, auc,
			[]string{"reduced: needs the gossip estimator"}},
		{Config{Algorithm: Sync, Schedule: ScheduleBlocked}, Shape{N: 100, D: 4, P: 16, Loss: problem.MetricHinge, Reg: problem.RegPSD},
			[]string{"blocked: needs an AUC loss", "generic-blocked: needs a user objective"}},
	} {
		_, err := choose(c.sh, c.cfg)
		if err == nil {
			t.Fatalf("%+v: chosen, want refused", c.cfg)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c.cfg, err, w)
			}
		}
	}
	// A row that fits is chosen, and auto's blocked rule only holds for auto.
	if k, err := choose(auc, Config{Algorithm: Sync, Schedule: ScheduleBlocked}); err != nil || k.name != "blocked" {
		t.Fatalf("blocked: %v, %v", k.name, err)
	}
}

// TestParallelColumn: the parallel asynchronous executor is a property of
// the row (its events column), not of a type found at run time: the
// asynchronous rows run in parallel with several workers and enough
// nodes, the heavy metric events from fewer nodes, the synchronous rows
// never.
func TestParallelColumn(t *testing.T) {
	byName := map[string]execKind{}
	for _, k := range executors {
		byName[k.name] = k
	}
	auc := Shape{N: asyncMinNodes, D: 4, P: 4, Loss: problem.AUCLogistic, Reg: problem.RegNone}
	if pl, ok, _ := byName["async"].parallel(auc, Config{Algorithm: Async}, 2); !ok || !pl.dataflow {
		t.Errorf("async, gossip, 2 workers: %+v %v, want the dataflow schedule", pl, ok)
	}
	if pl, ok, _ := byName["async"].parallel(auc, Config{Algorithm: Async, Estimator: Unbiased}, 2); !ok || pl.dataflow {
		t.Errorf("async, unbiased: %+v %v, want levels", pl, ok)
	}
	if _, ok, _ := byName["async"].parallel(auc, Config{Algorithm: Async}, 1); ok {
		t.Error("async, 1 worker: parallel")
	}
	small := Shape{N: asyncHeavyMinNodes, D: 4, P: 16, Loss: problem.MetricHinge, Reg: problem.RegPSD}
	if pl, ok, _ := byName["async-cone"].parallel(small, Config{Algorithm: Async}, 2); !ok || !pl.heavy {
		t.Errorf("async-cone on the PSD cone at n = %d: %+v %v, want heavy", small.N, pl, ok)
	}
	small.Reg = problem.RegNone
	if _, ok, _ := byName["async-cone"].parallel(small, Config{Algorithm: Async}, 2); ok && small.N < asyncMinNodes {
		t.Errorf("async-cone without the cone at n = %d: parallel", small.N)
	}
	for _, name := range []string{"plain", "blocked", "reduced", "cone", "generic-blocked"} {
		if _, ok, _ := byName[name].parallel(auc, Config{Algorithm: Async}, 8); ok {
			t.Errorf("%s: parallel asynchronous", name)
		}
	}
}

// TestSerialEventsSaysWhy: an asynchronous run given several workers that
// runs its events on one says why (summary.json's events_serial), and says
// nothing when the workers share them or the run is synchronous.
func TestSerialEventsSaysWhy(t *testing.T) {
	big, small := asyncMinNodes, 50
	for _, c := range []struct {
		name    string
		n       int
		algo    Algorithm
		workers int
		m       network.Model
		want    string // "" for none
	}{
		{"parallel", big, Async, 2, network.Model{}, ""},
		{"one worker", big, Async, 1, network.Model{}, ""},
		{"sync", big, Sync, 2, network.Model{}, ""},
		{"small", small, Async, 2, network.Model{}, "50 nodes"},
		{"delays", big, Async, 2, network.Model{Delay: network.Delay{Dist: network.DelayConstant, C: 2}}, "network model"},
		{"loss runs parallel", big, Async, 2, network.Model{Loss: 0.3}, ""},
	} {
		p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, c.n, 3, 1)
		g := mustGraph(t, graph.Spec{Kind: "cycle", N: c.n})
		s, err := New(p, g, Config{Algorithm: c.algo, Iters: 10, GammaC: 0.5, Seed: 1, Workers: c.workers, LogPoints: 1, EvalNodes: 1, Network: c.m})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := s.SerialEvents()
		s.Close()
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: SerialEvents() = %q, want %q", c.name, got, c.want)
		}
	}
}
