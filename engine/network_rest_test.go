package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// parallelModels are netModels' asynchronous models that the parallel
// asynchronous executor runs (parallelNet): all but delays and adaptive
// pickers.
func parallelModels(g *graph.Graph, iters int64) []namedModel {
	var ms []namedModel
	for _, nm := range netModels(g, iters, true) {
		if nm.m.Delay.Dist == "" && nm.m.Activation.Kind != network.ActAdaptive {
			ms = append(ms, nm)
		}
	}
	return ms
}

// TestNetworkParallelAsyncIdentical: under every model it runs, the
// parallel asynchronous executor (levels for the unbiased estimator and
// the reference's events, the dataflow schedule for the gossip fast path)
// ends in the serial loop's state, trace and network counters bit for bit
// with the active kernels, for 2, 3 and 8 workers, with levels or windows
// run on the pool, its events decided by the builder (2, 3) or by the
// workers that run them (8: asyncLateDecide); idle events change nothing.
func TestNetworkParallelAsyncIdentical(t *testing.T) {
	shrinkAsync(t)
	n := 96
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	for _, spec := range []graph.Spec{{Kind: "complete", N: n}, {Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3}} {
		g := mustGraph(t, spec)
		iters := int64(4000)
		for _, nm := range parallelModels(g, iters) {
			for _, c := range []struct {
				est   Estimator
				sched Schedule
			}{{Gossip, ScheduleAuto}, {Unbiased, ScheduleAuto}, {Gossip, ScheduleReference}} {
				name := fmt.Sprintf("%s/%s/%s/%s", spec.Kind, nm.name, c.est, c.sched)
				cfg := Config{Algorithm: Async, Estimator: c.est, Iters: iters, GammaC: 0.5, Seed: 5, LogPoints: 7, EvalNodes: -1,
					Network: nm.m, Schedule: c.sched, Workers: 1}
				tr, s := runTrace(t, p, g, cfg)
				ref := snapNet(s, tr)
				refSt, refEvals := stateBytes(t, s), s.gradEvals
				if ref.counts.Attempted == 0 {
					t.Fatalf("%s: nothing attempted", name)
				}
				for _, w := range []int{2, 3, 8} {
					cfg.Workers = w
					tr, s := runTrace(t, p, g, cfg)
					a := apar(s)
					if a == nil {
						t.Fatalf("%s: %d workers: the parallel executor did not engage", name, w)
					}
					if spec.Kind == "complete" && a.parLevels == 0 {
						t.Fatalf("%s: %d workers: nothing ran on the pool", name, w)
					}
					if a.late != (w >= asyncLateDecide) {
						t.Fatalf("%s: %d workers: deciding late %v", name, w, a.late)
					}
					if d := snapNet(s, tr).diff(ref); d != "" {
						t.Fatalf("%s: %d workers: %s differs from the serial loop", name, w, d)
					}
					if s.gradEvals != refEvals || !bytes.Equal(stateBytes(t, s), refSt) {
						t.Fatalf("%s: %d workers: state or gradient evaluations (%d, want %d) differ", name, w, s.gradEvals, refEvals)
					}
				}
			}
		}
	}
}

// TestNetworkParallelAsyncFallsBack: under delays, an adaptive picker or
// an edge sink the parallel asynchronous executor does not engage (the
// serial loop runs), and the memory estimate counts its windows' flags
// only under a model.
func TestNetworkParallelAsyncFallsBack(t *testing.T) {
	shrinkAsync(t)
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	for _, nm := range netModels(g, 1000, true) {
		for _, sink := range []bool{false, true} {
			cfg := Config{Algorithm: Async, Iters: 1000, GammaC: 0.5, Seed: 5, Workers: 2, Network: nm.m}
			if sink {
				cfg.EdgeSink = &edgeLog{}
			}
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := !sink && nm.m.Delay.Dist == "" && nm.m.Activation.Kind != network.ActAdaptive
			if got := apar(s) != nil; got != want {
				t.Fatalf("%s (sink %v): parallel %v, want %v", nm.name, sink, got, want)
			}
			s.Close()
		}
	}
	if asyncParBytes(1000, true, true) <= asyncParBytes(1000, true, false) {
		t.Fatal("the windows' iterations and flags are not counted under a model")
	}
}

// TestNetworkParallelAsyncCheckpointResume: a parallel run under loss,
// churn and a schedule, interrupted, checkpointed and resumed on 2
// workers ends in the serial loop's state and trace, bit for bit.
func TestNetworkParallelAsyncCheckpointResume(t *testing.T) {
	shrinkAsync(t)
	n := 200
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 1)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 2})
	m := network.Model{Loss: 0.3, LossOneWay: true, Churn: network.Churn{Dist: network.DistGeometric, Up: 400, Down: 50},
		Schedule: []network.Phase{{Spec: graph.Spec{Kind: "watts-strogatz", N: n, K: 6, P: 0.2, Seed: 4}, Length: 900},
			{Graph: g, Length: 500}}}
	defer func(v int) { asyncLateDecide = v }(asyncLateDecide)
	for _, c := range []struct {
		est  Estimator
		late int
	}{{Gossip, 1 << 30}, {Unbiased, 1 << 30}, {Gossip, 2}, {Unbiased, 2}} {
		est := c.est
		asyncLateDecide = c.late
		mk := func(workers int) *Sim {
			s, err := New(p, g, Config{Algorithm: Async, Estimator: est, Iters: 6000, GammaC: 1, Seed: 4, LogPoints: 12,
				EvalNodes: -1, Workers: workers, Network: m})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}
		serial := mk(1)
		refTrace, err := serial.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mk(2)
		ctx, cancel := context.WithCancel(context.Background())
		trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= 1700 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: want context.Canceled, got %v", est, err)
		}
		if apar(a) == nil || apar(a).parLevels == 0 || apar(a).late != (c.late == 2) {
			t.Fatalf("%s: the parallel executor did not run, or not deciding late %v", est, c.late == 2)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := mk(2)
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
			t.Fatal(err)
		}
		if d := snapNet(b, tr).diff(snapNet(serial, refTrace)); d != "" {
			t.Fatalf("%s: resumed parallel run: %s differs from the serial run", est, d)
		}
		if b.StateChecksum() != serial.StateChecksum() {
			t.Fatalf("%s: resumed parallel run's checksum differs from the serial run's", est)
		}
	}
}

// TestNetworkParallelAsyncDivergence: under a model the parallel executor
// reports the serial loop's first divergence, with its gradient count.
func TestNetworkParallelAsyncDivergence(t *testing.T) {
	shrinkAsync(t)
	p := testProblem(t, problem.AUCSquaredHinge, problem.Regularizer{}, 64, 3, 1)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 64})
	m := network.Model{Loss: 0.3, Churn: network.Churn{Dist: network.DistGeometric, Up: 300, Down: 30}}
	defer func(v int) { asyncLateDecide = v }(asyncLateDecide)
	asyncLateDecide = 4 // 3 workers decide in the builder, 8 late
	for _, est := range []Estimator{Gossip, Unbiased} {
		var errs []string
		var evals []int64
		for _, w := range []int{1, 3, 8} {
			s, err := New(p, g, Config{Algorithm: Async, Estimator: est, Iters: 100000, GammaC: 1e300, Seed: 1, Workers: w, Network: m})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			if _, ok := err.(*DivergenceError); !ok {
				t.Fatalf("%s workers %d: %v", est, w, err)
			}
			errs, evals = append(errs, err.Error()), append(evals, s.gradEvals)
			s.Close()
		}
		for k := 1; k < len(errs); k++ {
			if errs[0] != errs[k] || evals[0] != evals[k] {
				t.Fatalf("%s: serial: %s (%d evaluations); parallel (run %d): %s (%d)", est, errs[0], evals[0], k, errs[k], evals[k])
			}
		}
	}
}

// TestNetworkBlockedRefuses: the blocked schedule refuses an adaptive
// picker and an edge sink, naming why; auto then runs the plain schedule
// for the picker (the reduced one refuses it too) and the reduced one for
// the sink (it records its blocks' activations as it draws them).
func TestNetworkBlockedRefuses(t *testing.T) {
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	adaptive := network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: netPicker{g}, PilotDraws: 200}}
	for _, c := range []struct {
		name string
		m    network.Model
		sink EdgeSink
	}{{"adaptive", adaptive, nil}, {"sink", network.Model{Loss: 0.2}, &edgeLog{}}} {
		cfg := Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 1, Schedule: ScheduleBlocked, Network: c.m, EdgeSink: c.sink}
		if _, err := New(p, g, cfg); err == nil || !strings.Contains(err.Error(), "needs no adaptive picker and no edge sink") {
			t.Fatalf("%s: %v", c.name, err)
		}
		cfg.Schedule = ScheduleAuto
		s, err := New(p, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := "plain"
		if c.sink != nil {
			want = "reduced"
		}
		if s.kind.name != want {
			t.Fatalf("%s: auto picked %s, want %s", c.name, s.kind.name, want)
		}
		s.Close()
	}
}

// TestNetworkBlockedMatchesReference: under every synchronous model but
// an adaptive picker the blocked schedule, on blocks of 20 rounds, gives
// the reference executor's state, trace and counters bit for bit (generic
// kernels), for both estimators and 1, 2 and 8 workers.
func TestNetworkBlockedMatchesReference(t *testing.T) {
	useGenericKernels(t)
	forcePool(t)
	n := 320
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	if blockRounds(n) != 20 {
		t.Fatalf("blocks of %d rounds", blockRounds(n))
	}
	iters := int64(500)
	for _, est := range []Estimator{Gossip, Unbiased} {
		for x, nm := range netModels(g, iters, false) {
			if skipShort(x) {
				continue
			}
			if nm.m.Activation.Kind == network.ActAdaptive {
				continue
			}
			name := fmt.Sprintf("%s/%s", est, nm.name)
			cfg := Config{Algorithm: Sync, Estimator: est, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 6, EvalNodes: -1,
				Network: nm.m, Workers: 1, Schedule: ScheduleReference}
			tr, s := runTrace(t, p, g, cfg)
			ref := snapNet(s, tr)
			for _, w := range shortWorkers() {
				cfg.Workers, cfg.Schedule = w, ScheduleBlocked
				tr, s := runTrace(t, p, g, cfg)
				if s.kind.name != "blocked" {
					t.Fatalf("%s: executor %s", name, s.kind.name)
				}
				if d := snapNet(s, tr).diff(ref); d != "" {
					t.Fatalf("%s workers %d: %s differs from the reference", name, w, d)
				}
			}
		}
	}
}

// TestNetworkBlockedCheckpointResume: a blocked run under loss, churn and
// a schedule, interrupted, checkpointed and resumed, ends in the
// uninterrupted run's state and trace, bit for bit.
func TestNetworkBlockedCheckpointResume(t *testing.T) {
	n := 320
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	m := network.Model{Loss: 0.25, LossOneWay: true, Churn: network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15},
		Schedule: []network.Phase{{Spec: graph.Spec{Kind: "watts-strogatz", N: n, K: 6, P: 0.2, Seed: 4}, Length: 90}, {Graph: g, Length: 50}}}
	for _, est := range []Estimator{Gossip, Unbiased} {
		cfg := Config{Algorithm: Sync, Estimator: est, Iters: 600, GammaC: 0.5, Seed: 7, LogPoints: 8, EvalNodes: -1,
			Network: m, Workers: 2, Schedule: ScheduleBlocked}
		mk := func() *Sim {
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}
		ref := mk()
		refTrace, err := ref.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		ctx, cancel := context.WithCancel(context.Background())
		trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= 150 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", est, err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := mk()
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
			t.Fatal(err)
		}
		if d := snapNet(b, tr).diff(snapNet(ref, refTrace)); d != "" {
			t.Fatalf("%s: resumed blocked run: %s differs", est, d)
		}
		if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
			t.Fatalf("%s: resumed blocked state differs", est)
		}
	}
}

// TestNetworkGenericMatchesReference: a user objective under every model
// the generic executors run (not delays; not churn nor an adaptive picker
// on the blocked schedule) gives the reference executor's
// state, trace and counters bit for bit: generic-blocked and generic
// synchronous, the serial and the parallel asynchronous generic events,
// for 1, 2 and 8 workers.
func TestNetworkGenericMatchesReference(t *testing.T) {
	shrinkAsync(t)
	forcePool(t)
	n, d := 160, 4
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	base := testProblem(t, problem.AUCLogistic, problem.Regularizer{Kind: problem.RegL1, Lambda: 0.002}, n, d, 11)
	user := asObjective(t, base, userLogistic{"user-logistic"}, nil)
	for _, c := range netCases {
		iters := int64(300)
		if c.algo == Async {
			iters = 3000
		}
		for x, nm := range netModels(g, iters, c.algo == Async) {
			if skipShort(x) {
				continue
			}
			if nm.m.Delay.Dist != "" {
				continue // the reference runs them (TestNetworkGenericRefuses)
			}
			adaptive := nm.m.Activation.Kind == network.ActAdaptive
			name := fmt.Sprintf("%s/%s/%s", c.algo, c.est, nm.name)
			cfg := Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: 1, Seed: 3, Workers: 1, LogPoints: 5, EvalNodes: -1,
				Network: nm.m, Schedule: ScheduleReference}
			tr, s := runTrace(t, user, g, cfg)
			ref := snapNet(s, tr)
			rows := []struct {
				sched Schedule
				want  string
			}{{ScheduleAuto, "generic-blocked"}, {SchedulePlain, "generic"}}
			if c.algo == Async || adaptive || nm.m.Churn.Dist != "" {
				rows = rows[1:]
				rows[0].sched = ScheduleAuto
			}
			for _, row := range rows {
				for _, w := range shortWorkers() {
					cfg.Workers, cfg.Schedule = w, row.sched
					tr, s := runTrace(t, user, g, cfg)
					par := c.algo == Async && w > 1 && !adaptive
					if s.kind.name != row.want || (apar(s) != nil) != par {
						t.Fatalf("%s workers %d: executor %s (parallel %v), want %s (parallel %v)", name, w, s.kind.name, apar(s) != nil, row.want, par)
					}
					if par && apar(s).parLevels == 0 {
						t.Fatalf("%s workers %d: no level ran on the pool", name, w)
					}
					if d := snapNet(s, tr).diff(ref); d != "" {
						t.Fatalf("%s workers %d (%s): %s differs from the reference", name, w, s.kind.name, d)
					}
				}
			}
		}
	}
}

// TestNetworkGenericRefuses: the generic executors refuse delays, and
// generic-blocked churn, naming why; auto then runs the reference, or the
// generic plain schedule.
func TestNetworkGenericRefuses(t *testing.T) {
	n := 40
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	user := asObjective(t, testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 11), userLogistic{"user-logistic"}, nil)
	churn := network.Model{Churn: network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}}
	delays := network.Model{Delay: network.Delay{Dist: network.DelayUniform, A: 0, B: 6}}
	for _, c := range []struct {
		algo      Algorithm
		m         network.Model
		sched     Schedule
		why, auto string
	}{{Sync, churn, ScheduleBlocked, "no churn (the generic schedule runs it", "generic"},
		{Async, delays, SchedulePlain, "no delays (an arrival changes z_k", "reference"}} {
		cfg := Config{Algorithm: c.algo, Iters: 10, GammaC: 1, Seed: 1, Schedule: c.sched, Network: c.m}
		if _, err := New(user, g, cfg); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Fatalf("%s %s: %v", c.algo, c.sched, err)
		}
		cfg.Schedule = ScheduleAuto
		s, err := New(user, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.kind.name != c.auto {
			t.Fatalf("%s: auto picked %s, want %s", c.algo, s.kind.name, c.auto)
		}
		s.Close()
	}
}

// TestNetworkGenericCheckpointResume: generic-blocked and the parallel
// asynchronous generic events under loss, a schedule and (asynchronous)
// churn, interrupted, checkpointed and resumed, end in the uninterrupted
// run's state and trace, bit for bit.
func TestNetworkGenericCheckpointResume(t *testing.T) {
	shrinkAsync(t)
	n := 160
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	user := asObjective(t, testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 11), userLogistic{"user-logistic"}, nil)
	sched := []network.Phase{{Spec: graph.Spec{Kind: "watts-strogatz", N: n, K: 6, P: 0.2, Seed: 4}, Length: 90}, {Graph: g, Length: 50}}
	for _, c := range []struct {
		algo  Algorithm
		m     network.Model
		iters int64
		want  string
	}{
		{Sync, network.Model{Loss: 0.3, LossOneWay: true, Schedule: sched}, 400, "generic-blocked"},
		{Sync, network.Model{Loss: 0.2, Churn: network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}}, 400, "generic"},
		{Async, network.Model{Loss: 0.3, Schedule: sched, Churn: network.Churn{Dist: network.DistGeometric, Up: 400, Down: 50}}, 4000, "generic"},
	} {
		cfg := Config{Algorithm: c.algo, Iters: c.iters, GammaC: 1, Seed: 7, LogPoints: 8, EvalNodes: -1, Network: c.m, Workers: 2}
		mk := func() *Sim {
			s, err := New(user, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}
		ref := mk()
		refTrace, err := ref.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		if a.kind.name != c.want {
			t.Fatalf("%s: executor %s", c.algo, a.kind.name)
		}
		ctx, cancel := context.WithCancel(context.Background())
		trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= c.iters/4 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", c.algo, err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := mk()
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
			t.Fatal(err)
		}
		if d := snapNet(b, tr).diff(snapNet(ref, refTrace)); d != "" {
			t.Fatalf("%s: resumed run: %s differs", c.algo, d)
		}
	}
}

// TestNetworkAsyncConeMatchesReference: the asynchronous metric schedule
// (PSD cone) under every model, delays and adaptive pickers included,
// agrees with the reference as it does without one (z within 1e-12, θ and
// θ̄ within 1e-9 relative; the same y, clocks and counters), and is
// bit-identical for 1, 2 and 8 workers, the parallel executor running
// every model but delays and adaptive pickers.
func TestNetworkAsyncConeMatchesReference(t *testing.T) {
	shrinkAsync(t)
	n := 60
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 4, 11)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	iters := int64(1500)
	for _, est := range []Estimator{Gossip, Unbiased} {
		for _, nm := range netModels(g, iters, true) {
			name := fmt.Sprintf("%s/%s", est, nm.name)
			cfg := Config{Algorithm: Async, Estimator: est, Iters: iters, GammaC: 0.05, Seed: 9, Workers: 1, LogPoints: 4, EvalNodes: -1,
				Network: nm.m, Schedule: ScheduleReference}
			_, ref := runTrace(t, p, g, cfg)
			var first netSnap
			for x, w := range []int{1, 2, 8} {
				cfg.Workers, cfg.Schedule = w, ScheduleAuto
				tr, s := runTrace(t, p, g, cfg)
				if s.kind.name != "async-cone" {
					t.Fatalf("%s: executor %s", name, s.kind.name)
				}
				par := w > 1 && nm.m.Delay.Dist == "" && nm.m.Activation.Kind != network.ActAdaptive
				if (apar(s) != nil) != par {
					t.Fatalf("%s workers %d: parallel %v, want %v", name, w, apar(s) != nil, par)
				}
				sn := snapNet(s, tr)
				if x == 0 {
					first = sn
					if d := relDiff(s.Z, ref.Z); d > 1e-12 {
						t.Fatalf("%s: z differs from the reference by %g", name, d)
					}
					for _, f := range []struct {
						a, b layout.Matrix
						what string
					}{{s.ThetaMatrix(), ref.ThetaMatrix(), "θ"}, {s.ThetaBar, ref.ThetaBar, "θ̄"}} {
						if d := relDiff(f.a, f.b); !(d <= 1e-9) {
							t.Fatalf("%s: %s differs from the reference by %g relative", name, f.what, d)
						}
					}
					if fmt.Sprint(s.Y, s.Count) != fmt.Sprint(ref.Y, ref.Count) || s.NetCounts() != ref.NetCounts() || s.gradEvals != ref.gradEvals {
						t.Fatalf("%s: y, clocks, counters or gradient evaluations differ from the reference", name)
					}
					continue
				}
				if d := sn.diff(first); d != "" {
					t.Fatalf("%s workers %d: %s differs from 1 worker", name, w, d)
				}
			}
		}
	}
}

// TestNetworkAsyncConeCheckpointResume: the asynchronous metric schedule
// under delays, loss and churn (serial) and under loss, churn and a
// schedule (parallel), interrupted, checkpointed and resumed, ends in the
// uninterrupted run's state and trace, bit for bit.
func TestNetworkAsyncConeCheckpointResume(t *testing.T) {
	shrinkAsync(t)
	n := 60
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 4, 11)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	churn := network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}
	for _, c := range []struct {
		m       network.Model
		workers int
	}{
		{network.Model{Loss: 0.2, LossOneWay: true, Churn: churn, Delay: network.Delay{Dist: network.DelayGeometric, Mean: 2, Max: 9}}, 1},
		{network.Model{Loss: 0.3, Churn: churn, Schedule: []network.Phase{{Spec: graph.Spec{Kind: "cycle", N: n}, Length: 70}, {Graph: g, Length: 50}}}, 2},
	} {
		cfg := Config{Algorithm: Async, Iters: 1500, GammaC: 0.05, Seed: 9, LogPoints: 10, EvalNodes: -1, Network: c.m, Workers: c.workers}
		mk := func() *Sim {
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}
		ref := mk()
		refTrace, err := ref.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		ctx, cancel := context.WithCancel(context.Background())
		trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
			if r.Iter >= 150 {
				cancel()
			}
		}}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", c.m, err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
			t.Fatal(err)
		}
		b := mk()
		tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err != nil {
			t.Fatal(err)
		}
		if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
			t.Fatal(err)
		}
		if d := snapNet(b, tr).diff(snapNet(ref, refTrace)); d != "" {
			t.Fatalf("%s: resumed run: %s differs", c.m, d)
		}
		if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
			t.Fatalf("%s: resumed state differs", c.m)
		}
	}
}

// TestNetworkConeMatchesReference: the reduced synchronous metric schedule
// (PSD cone) under every model but churn and an adaptive picker agrees
// with the reference as it does without one (z within 1e-12, θ and θ̄
// within 1e-9 relative; the same y and counters), bit-identical for 1, 2
// and 8 workers; churn and an adaptive picker are refused, naming why, and
// auto runs the reference.
func TestNetworkConeMatchesReference(t *testing.T) {
	forcePool(t)
	n := 60
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 4, 11)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	iters := int64(300)
	for _, nm := range netModels(g, iters, false) {
		refuse := nm.m.Churn.Dist != "" || nm.m.Activation.Kind == network.ActAdaptive
		cfg := Config{Algorithm: Sync, Iters: iters, GammaC: 0.05, Seed: 9, Workers: 1, LogPoints: 4, EvalNodes: -1,
			Network: nm.m, Schedule: ScheduleReduced}
		if refuse {
			if _, err := New(p, g, cfg); err == nil || !strings.Contains(err.Error(), "no churn and no adaptive picker") {
				t.Fatalf("%s: %v", nm.name, err)
			}
			cfg.Schedule = ScheduleAuto
			s, err := New(p, g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if s.kind.name != "reference" {
				t.Fatalf("%s: auto picked %s", nm.name, s.kind.name)
			}
			s.Close()
			continue
		}
		cfg.Schedule = ScheduleReference
		_, ref := runTrace(t, p, g, cfg)
		var first netSnap
		for x, w := range []int{1, 2, 8} {
			cfg.Workers, cfg.Schedule = w, ScheduleAuto
			tr, s := runTrace(t, p, g, cfg)
			if s.kind.name != "cone" {
				t.Fatalf("%s: executor %s", nm.name, s.kind.name)
			}
			sn := snapNet(s, tr)
			if x > 0 {
				if d := sn.diff(first); d != "" {
					t.Fatalf("%s workers %d: %s differs from 1 worker", nm.name, w, d)
				}
				continue
			}
			first = sn
			if d := relDiff(s.Z, ref.Z); d > 1e-12 {
				t.Fatalf("%s: z differs from the reference by %g", nm.name, d)
			}
			for _, f := range []struct {
				a, b layout.Matrix
				what string
			}{{s.ThetaMatrix(), ref.ThetaMatrix(), "θ"}, {s.ThetaBar, ref.ThetaBar, "θ̄"}} {
				if d := relDiff(f.a, f.b); !(d <= 1e-9) {
					t.Fatalf("%s: %s differs from the reference by %g relative", nm.name, f.what, d)
				}
			}
			if fmt.Sprint(s.Y) != fmt.Sprint(ref.Y) || s.NetCounts() != ref.NetCounts() || s.gradEvals != ref.gradEvals {
				t.Fatalf("%s: y, counters or gradient evaluations differ from the reference", nm.name)
			}
		}
	}
}

// TestNetworkConeCheckpointResume: the reduced metric schedule under
// one-way loss and a schedule, interrupted, checkpointed and resumed, ends
// in the uninterrupted run's state and trace, bit for bit.
func TestNetworkConeCheckpointResume(t *testing.T) {
	n := 60
	p := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 4, 11)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	m := network.Model{Loss: 0.3, LossOneWay: true, Schedule: []network.Phase{{Spec: graph.Spec{Kind: "cycle", N: n}, Length: 70}, {Graph: g, Length: 50}}}
	cfg := Config{Algorithm: Sync, Iters: 600, GammaC: 0.05, Seed: 9, LogPoints: 10, EvalNodes: -1, Network: m, Workers: 2}
	mk := func() *Sim {
		s, err := New(p, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	ref := mk()
	refTrace, err := ref.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := mk()
	if a.kind.name != "cone" {
		t.Fatalf("executor %s", a.kind.name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	trace, err := a.RunWith(ctx, RunOptions{OnRecord: func(r Record) {
		if r.Iter >= 100 {
			cancel()
		}
	}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
		t.Fatal(err)
	}
	b := mk()
	tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
	if err != nil {
		t.Fatal(err)
	}
	if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
		t.Fatal(err)
	}
	if d := snapNet(b, tr).diff(snapNet(ref, refTrace)); d != "" {
		t.Fatalf("resumed run: %s differs", d)
	}
}

// TestNetworkPrefetchIdentical: under loss, with churn and without, the
// serial gossip loop's prefetching (forced on) and the churn cursors'
// prefetching are hints, and so is the parallel executor's: its workers
// deciding late decide ahead, while they prefetch, the events whose nodes'
// earlier events are decided, and skip the idle ones' records. The state
// is that of the serial loop without prefetching, bit for bit, for 1
// worker, 2 (the builder deciding, and the workers deciding late) and 8
// (late); and every node's events are decided in order of t (checkOrder:
// a cursor never walks back).
func TestNetworkPrefetchIdentical(t *testing.T) {
	shrinkAsync(t)
	late := asyncLateDecide
	t.Cleanup(func() { asyncLateDecide, checkDecideOrder = late, false })
	checkDecideOrder = true
	n := 96
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 3})
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 9, 2)
	pb := asyncGossipPrefetchBytes
	t.Cleanup(func() { asyncGossipPrefetchBytes = pb })
	churn := network.Churn{Dist: network.DistGeometric, Up: 90, Down: 10}
	for _, m := range []network.Model{{Loss: 0.3, Churn: churn}, {Loss: 0.3}, {Churn: churn}} {
		var ref []byte
		for _, c := range []struct {
			limit      int64
			workers    int
			decideFrom int
		}{{1 << 40, 1, 4}, {0, 1, 4}, {0, 2, 4}, {0, 2, 2}, {0, 8, 4}, {1 << 40, 8, 4}} {
			asyncGossipPrefetchBytes, asyncLateDecide = c.limit, c.decideFrom
			s, err := New(p, g, Config{Algorithm: Async, Iters: 20000, GammaC: 0.5, Seed: 5, Workers: c.workers, LogPoints: 3, Network: m})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("loss %v churn %v, threshold %d, %d workers deciding from %d", m.Loss, m.Churn.Dist != "", c.limit, c.workers, c.decideFrom)
			a := apar(s)
			if (a != nil) != (c.workers > 1) || a != nil && a.late != (c.workers >= c.decideFrom) {
				t.Fatalf("%s: parallel %v", name, a != nil)
			}
			if a != nil {
				if a.lastDecided == nil && a.late && a.churn {
					t.Fatalf("%s: decisions not checked", name)
				}
				if b := a.backward.Load(); b != 0 {
					t.Fatalf("%s: %d decisions of a node's event before an earlier one's", name, b)
				}
			}
			var ex *asyncExec
			if a != nil {
				ex = a.gossip
			} else {
				ex = s.exec.(*asyncExec)
			}
			if on := ex.pfOn; on != (c.limit == 0) {
				t.Fatalf("%s: prefetching %v", name, on)
			}
			st := stateBytes(t, s)
			s.Close()
			if ref == nil {
				ref = st
			} else if !bytes.Equal(st, ref) {
				t.Fatalf("%s: the state differs from the serial loop's without prefetching", name)
			}
		}
	}
}

// TestNetworkZeroModelBitsRest: the zero model and loss 0 are the paper's
// network on the executors this file extends (the parallel asynchronous
// executor, blocked, generic and generic-blocked, cone and async-cone):
// no Net, and the state checksum of a run without the field.
func TestNetworkZeroModelBitsRest(t *testing.T) {
	shrinkAsync(t)
	n := 96
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	auc := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	user := asObjective(t, auc, userLogistic{"user-logistic"}, nil)
	metric := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 3, 2)
	for _, c := range []struct {
		p       *problem.Problem
		algo    Algorithm
		workers int
		want    string
	}{{auc, Async, 2, "async"}, {auc, Sync, 2, "blocked"}, {user, Sync, 2, "generic-blocked"}, {user, Async, 2, "generic"},
		{metric, Sync, 2, "cone"}, {metric, Async, 2, "async-cone"}, {user, Sync, 2, "generic"}} {
		sched := ScheduleAuto
		if c.want == "blocked" {
			sched = ScheduleBlocked
		} else if c.want == "generic" && c.algo == Sync {
			sched = SchedulePlain
		}
		var sums [][32]byte
		for _, m := range []*network.Model{nil, {}, {Loss: 0}} {
			cfg := Config{Algorithm: c.algo, Iters: 2000, GammaC: 0.3, Seed: 2, LogPoints: 3, Workers: c.workers, Schedule: sched}
			if m != nil {
				cfg.Network = *m
			}
			tr, s := runTrace(t, c.p, g, cfg)
			if s.net != nil || s.kind.name != c.want || (c.algo == Async) != (apar(s) != nil) || tr[len(tr)-1].Online != -1 {
				t.Fatalf("%s %s: executor %s, parallel %v, a Net %v", c.p.Loss, c.algo, s.kind.name, apar(s) != nil, s.net != nil)
			}
			sums = append(sums, s.StateChecksum())
		}
		if sums[0] != sums[1] || sums[0] != sums[2] {
			t.Fatalf("%s %s (%s): the zero model or loss 0 changes the bits", c.p.Loss, c.algo, c.want)
		}
	}
}

// skipShort and shortWorkers bound the two slowest comparisons with the
// reference in -short runs (CI runs them under the race detector): every
// third model, on 1 and 8 workers; the full runs take every model on 1, 2
// and 8.
func skipShort(model int) bool { return testing.Short() && model%3 != 0 }

func shortWorkers() []int {
	if testing.Short() {
		return []int{1, 8}
	}
	return []int{1, 2, 8}
}
