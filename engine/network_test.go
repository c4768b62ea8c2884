package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// netPicker is an adaptive activation scheme that reads the state: of two
// edges drawn at iteration t it calls the one whose endpoints have the
// smaller z_0 + θ_0 and, on a tie, fewer activations.
type netPicker struct{ g *graph.Graph }

func (p netPicker) Next(t int64, d network.Draw, v network.NodeView) (int, int) {
	a, b := p.g.Edges[d.IntN(0, len(p.g.Edges))], p.g.Edges[d.IntN(1, len(p.g.Edges))]
	score := func(e [2]int32) (float64, int64) {
		i, j := int(e[0]), int(e[1])
		return v.Z(i)[0] + v.Theta(i)[0] + v.Z(j)[0] + v.Theta(j)[0], v.Activations(i) + v.Activations(j)
	}
	sa, ca := score(a)
	sb, cb := score(b)
	if sb < sa || sb == sa && cb < ca {
		a = b
	}
	return int(a[0]), int(a[1])
}

type namedModel struct {
	name string
	m    network.Model
}

// netModels returns one model per knob of docs/networks.md (and two
// combinations) for a run of iters iterations on g (n nodes); delays only
// for the asynchronous algorithm.
func netModels(g *graph.Graph, iters int64, async bool) []namedModel {
	n := g.N
	ws := graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1}
	churn := network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}
	// A stream over the graph's edges with a gap every seventh iteration.
	st := &network.Stream{Name: "test stream"}
	for t := int64(1); t <= iters; t++ {
		if t%7 == 0 {
			continue
		}
		e := g.Edges[(t*2654435761)%int64(len(g.Edges))]
		st.T, st.I, st.J = append(st.T, t), append(st.I, e[0]), append(st.J, e[1])
	}
	ms := []namedModel{
		{"loss", network.Model{Loss: 0.3}},
		{"oneway", network.Model{Loss: 0.4, LossOneWay: true}},
		{"churn", network.Model{Churn: churn}},
		{"schedule", network.Model{Schedule: []network.Phase{{Spec: ws, Length: 70}, {Spec: graph.Spec{Kind: "cycle", N: n}, Length: 30}}}},
		{"linkup", network.Model{Schedule: []network.Phase{{Graph: g, Length: 50}}, LinkUp: 0.6}},
		{"stream", network.Model{Stream: st}},
		{"clocks", network.Model{Activation: network.Activation{Kind: network.ActClocks}}},
		{"weights", network.Model{Activation: network.Activation{Kind: network.ActWeights,
			Weights: func(i, j int) float64 { return float64(1 + (i+2*j)%3) }}}},
		{"adaptive", network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: netPicker{g}, PilotDraws: 2000}}},
		{"oneway+churn+schedule", network.Model{Loss: 0.25, LossOneWay: true, Churn: churn,
			Schedule: []network.Phase{{Spec: ws, Length: 60}, {Spec: graph.Spec{Kind: "complete", N: n}, Length: 40}}}},
	}
	if async {
		ms = append(ms,
			namedModel{"delays", network.Model{Delay: network.Delay{Dist: network.DelayUniform, A: 0, B: 6}}},
			namedModel{"delays+loss+churn", network.Model{Loss: 0.2, LossOneWay: true, Churn: churn,
				Delay: network.Delay{Dist: network.DelayGeometric, Mean: 2, Max: 9}}})
	}
	return ms
}

// netSnap is what two runs that agree bit for bit share, whatever their
// executors: z, θ, θ̄, y, the clocks, the trace with its network fields.
type netSnap struct {
	z, th, bar []float64
	y          []int32
	cnt        []int64
	tr         []Record
	counts     NetCounts
}

func snapNet(s *Sim, tr []Record) netSnap {
	if s.flushAux != nil {
		s.flushAux(nil)
	}
	var sn netSnap
	th := s.ThetaMatrix()
	for k := 0; k < s.Z.Rows; k++ {
		sn.z = append(sn.z, s.Z.Row(k)...)
		sn.th = append(sn.th, th.Row(k)...)
		sn.bar = append(sn.bar, s.ThetaBar.Row(k)...)
	}
	sn.y = append(sn.y, s.Y...)
	sn.cnt = append(sn.cnt, s.Count...)
	sn.tr, sn.counts = tr, s.NetCounts()
	return sn
}

func sameFloatBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// diff reports the first difference between two snapshots ("" if none).
func (a netSnap) diff(b netSnap) string {
	switch {
	case !sameFloatBits(a.z, b.z):
		return "z"
	case !sameFloatBits(a.th, b.th):
		return "θ"
	case !sameFloatBits(a.bar, b.bar):
		return "θ̄"
	case fmt.Sprint(a.y) != fmt.Sprint(b.y):
		return "y"
	case fmt.Sprint(a.cnt) != fmt.Sprint(b.cnt):
		return "clocks"
	case a.counts != b.counts:
		return fmt.Sprintf("counters %+v vs %+v", a.counts, b.counts)
	case len(a.tr) != len(b.tr):
		return "trace length"
	}
	for i := range a.tr {
		x, y := a.tr[i], b.tr[i]
		if !sameRecord(x, y) || x.Attempted != y.Attempted || x.Delivered != y.Delivered || x.OneWay != y.OneWay || x.Online != y.Online {
			return fmt.Sprintf("record %d: %+v vs %+v", i, x, y)
		}
	}
	return ""
}

func useGenericKernels(t *testing.T) {
	best := kernel.Active()
	if err := kernel.Use("generic"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kernel.Use(best) })
}

type netCase struct {
	algo Algorithm
	est  Estimator
}

var netCases = []netCase{{Sync, Gossip}, {Sync, Unbiased}, {Async, Gossip}, {Async, Unbiased}}

// TestNetworkExecutorsMatchReference: under every network model the
// executor auto picks (plain synchronous, serial or parallel
// asynchronous) gives the reference executor's state and trace bit for
// bit (generic kernels), for 1, 2 and 8 workers; the parallel
// asynchronous executor engages for every model but delays and adaptive
// pickers.
func TestNetworkExecutorsMatchReference(t *testing.T) {
	useGenericKernels(t)
	forcePool(t)
	shrinkAsync(t)
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	for _, c := range netCases {
		iters := int64(600)
		if c.algo == Async {
			iters = 3000
		}
		for _, nm := range netModels(g, iters, c.algo == Async) {
			name := fmt.Sprintf("%s/%s/%s", c.algo, c.est, nm.name)
			cfg := Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 6, EvalNodes: -1,
				Network: nm.m, Workers: 1, Schedule: ScheduleReference}
			tr, s := runTrace(t, p, g, cfg)
			ref := snapNet(s, tr)
			if ref.counts.Attempted == 0 || tr[len(tr)-1].Online < 0 {
				t.Fatalf("%s: counters %+v, online %d", name, ref.counts, tr[len(tr)-1].Online)
			}
			perfect := cfg
			perfect.Network = network.Model{}
			ptr, ps := runTrace(t, p, g, perfect)
			if snapNet(ps, ptr).diff(ref) == "" {
				t.Fatalf("%s: the model changed nothing", name)
			}
			// blocked and plain by name (auto runs the reduced schedule for
			// the gossip estimator, which agrees with the reference to
			// rounding: TestNetworkReducedMatchesReference); auto picks plain
			// for an adaptive picker, which the block schedules refuse.
			adaptive := nm.m.Activation.Kind == network.ActAdaptive
			rows := []struct {
				sched Schedule
				want  string
			}{{ScheduleBlocked, "blocked"}, {SchedulePlain, "plain"}}
			if adaptive {
				rows[0] = struct {
					sched Schedule
					want  string
				}{ScheduleAuto, "plain"}
			}
			if c.algo == Async {
				rows = rows[:1]
				rows[0].sched, rows[0].want = ScheduleAuto, "async"
			}
			for _, row := range rows {
				for _, w := range []int{1, 2, 8} {
					cfg.Workers, cfg.Schedule = w, row.sched
					tr, s := runTrace(t, p, g, cfg)
					// The parallel asynchronous executor runs every model
					// but delays and adaptive pickers (parallelNet).
					par := c.algo == Async && w > 1 && nm.m.Delay.Dist == "" && !adaptive
					if s.kind.name != row.want || (apar(s) != nil) != par {
						t.Fatalf("%s workers %d: executor %s (parallel %v), want %s (parallel %v)", name, w, s.kind.name, apar(s) != nil, row.want, par)
					}
					if d := snapNet(s, tr).diff(ref); d != "" {
						t.Fatalf("%s workers %d (%s): %s differs from the reference", name, w, s.kind.name, d)
					}
				}
			}
		}
	}
}

// TestNetworkRefusingRows: a row that does not honour a model refuses it
// by name with its reason (the reduced and blocked schedules an adaptive
// picker, the reduced metric schedule churn, the blocked generic one churn),
// and auto then runs a row that does; the centralized algorithm and delays
// with Algorithm 2 are refused by Validate.
func TestNetworkRefusingRows(t *testing.T) {
	n := 40
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	auc := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	metric := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 3, 2)
	adaptive := network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: netPicker{g}, PilotDraws: 200}}
	churn := network.Model{Churn: network.Churn{Dist: network.DistGeometric, Up: 30, Down: 10}}
	for _, c := range []struct {
		p     *problem.Problem
		sched Schedule
		m     network.Model
		why   string
	}{
		{auc, ScheduleReduced, adaptive, "adaptive picker"},
		{auc, ScheduleBlocked, adaptive, "adaptive picker"},
		{metric, ScheduleReduced, churn, "no churn"},
	} {
		_, err := New(c.p, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 1, Schedule: c.sched, Network: c.m})
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Fatalf("%s %s: %v, want a refusal naming %q", c.p.Loss, c.sched, err, c.why)
		}
		s, err := New(c.p, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Seed: 1, Network: c.m})
		if err != nil {
			t.Fatal(err)
		}
		if s.kind.schedule == c.sched {
			t.Fatalf("%s: auto picked the %s schedule, which refuses the model", c.p.Loss, s.kind.name)
		}
		s.Close()
	}
	if _, err := New(auc, nil, Config{Algorithm: Centralized, Iters: 10, GammaC: 1, Network: network.Model{Loss: 0.1}}); err == nil || !strings.Contains(err.Error(), "centralized") {
		t.Fatalf("centralized: %v", err)
	}
	if _, err := New(auc, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Network: network.Model{Delay: network.Delay{Dist: network.DelayConstant, C: 2}}}); err == nil || !strings.Contains(err.Error(), "--delay") {
		t.Fatalf("sync delays: %v", err)
	}
	if _, err := New(auc, g, Config{Algorithm: Sync, Iters: 10, GammaC: 1, Network: network.Model{Loss: 2}}); err == nil || !strings.Contains(err.Error(), "--loss") {
		t.Fatalf("loss 2: %v", err)
	}
}

// TestNetworkDefaultBits: the zero model and the default spellings (loss
// 0, uniform edges, link-up 1, graph p) are the paper's network: no Net,
// and every executor's state bits are those of a run without the field.
func TestNetworkDefaultBits(t *testing.T) {
	n := 40
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	auc := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	metric := testProblem(t, problem.MetricHinge, problem.Regularizer{Kind: problem.RegPSD}, n, 3, 2)
	def := network.Model{Loss: 0, Activation: network.Activation{Kind: network.ActEdges}, LinkUp: 1, StreamP: "graph"}
	for _, p := range []*problem.Problem{auc, metric} {
		for _, c := range netCases {
			for _, sched := range Schedules {
				var sums [][32]byte
				for _, m := range []network.Model{{}, def} {
					s, err := New(p, g, Config{Algorithm: c.algo, Estimator: c.est, Iters: 500, GammaC: 0.3, Seed: 2, LogPoints: 3, Schedule: sched, Network: m})
					if err != nil {
						break // a schedule that does not run this problem
					}
					if s.net != nil {
						t.Fatalf("%+v: a Net for the paper's network", m)
					}
					tr, err := s.Run(context.Background(), nil)
					if err != nil {
						t.Fatal(err)
					}
					if r := tr[len(tr)-1]; r.Online != -1 || r.Attempted != 0 {
						t.Fatalf("record without a model: online %d attempted %d", r.Online, r.Attempted)
					}
					sums = append(sums, s.StateChecksum())
					s.Close()
				}
				if len(sums) == 2 && sums[0] != sums[1] {
					t.Fatalf("%s %s/%s %s: default spellings change the bits", p.Loss, c.algo, c.est, sched)
				}
			}
		}
	}
}

// TestNetworkLossOne: with every exchange lost the AUC model stays at
// θ = 0 (y_k = x_k: a pair of one class has no gradient), so every
// measurement is R_n(0), for both algorithms and executors.
func TestNetworkLossOne(t *testing.T) {
	n := 30
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	for _, algo := range []Algorithm{Sync, Async} {
		for _, sched := range []Schedule{ScheduleAuto, ScheduleReference} {
			for _, oneway := range []bool{false, true} {
				cfg := Config{Algorithm: algo, Iters: 400, GammaC: 1, Seed: 3, LogPoints: 4, EvalNodes: -1, Schedule: sched,
					Network: network.Model{Loss: 1, LossOneWay: oneway}}
				fresh, err := New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				r0 := fresh.Measure() // θ̄ = 0: R_n(0)
				tr, s := runTrace(t, p, g, cfg)
				sn := snapNet(s, tr)
				for _, v := range append(append(sn.z, sn.th...), sn.bar...) {
					if v != 0 {
						t.Fatalf("%s %s: a non-zero variable under loss 1", algo, sched)
					}
				}
				for _, r := range tr {
					if r.ObjMean != r0.ObjMean || r.Delivered+r.OneWay != 0 || r.Attempted != r.Iter {
						t.Fatalf("%s %s: record %+v (R_n(0) = %g)", algo, sched, r, r0.ObjMean)
					}
				}
			}
		}
	}
}

// TestNetworkCheckpointResume: for every model, a run interrupted,
// checkpointed and resumed in a fresh Sim ends in the uninterrupted run's
// state and trace, bit for bit (the executor auto picks); a checkpoint is
// refused by a run with another model.
func TestNetworkCheckpointResume(t *testing.T) {
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	for _, c := range []netCase{{Sync, Gossip}, {Async, Gossip}, {Async, Unbiased}} {
		iters := int64(800)
		if c.algo == Async {
			iters = 3000
		}
		for _, nm := range netModels(g, iters, c.algo == Async) {
			for _, sched := range []Schedule{ScheduleAuto, ScheduleReference} {
				name := fmt.Sprintf("%s/%s/%s/%s", c.algo, c.est, nm.name, sched)
				cfg := Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 8, EvalNodes: -1,
					Network: nm.m, Workers: 1, Schedule: sched}
				mk := func() *Sim {
					s, err := New(p, g, cfg)
					if err != nil {
						t.Fatal(err)
					}
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
					if r.Iter >= iters/5 {
						cancel()
					}
				}}, nil)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: %v", name, err)
				}
				var buf bytes.Buffer
				if err := a.WriteCheckpoint(&buf, []byte("id"), trace); err != nil {
					t.Fatal(err)
				}
				b := mk()
				tr, err := b.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if tr, err = b.RunWith(context.Background(), RunOptions{}, tr); err != nil {
					t.Fatal(err)
				}
				if d := snapNet(b, tr).diff(snapNet(ref, refTrace)); d != "" {
					t.Fatalf("%s: resumed run: %s differs", name, d)
				}
				if !bytes.Equal(stateBytes(t, b), stateBytes(t, ref)) {
					t.Fatalf("%s: resumed state differs", name)
				}
				// Another model, or none, refuses the checkpoint.
				for _, other := range []network.Model{{}, {Loss: 0.99}} {
					cfg2 := cfg
					cfg2.Network = other
					o, err := New(p, g, cfg2)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := o.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id")); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "network model") {
						t.Fatalf("%s: resumed with %s: %v", name, other, err)
					}
				}
			}
		}
	}
}

// edgeLog is an EdgeSink that keeps the activations as a stream.
type edgeLog struct {
	network.Stream
	fail int64 // iteration at which Edge fails (0: never)
}

func (l *edgeLog) Edge(t int64, i, j int) error {
	if t == l.fail {
		return errors.New("disk full")
	}
	l.T, l.I, l.J = append(l.T, t), append(l.I, int32(i)), append(l.J, int32(j))
	return nil
}

// TestNetworkEdgeSinkReplay: the sink sees every activation in order of t
// (every iteration, under uniform edges), and replaying what it recorded
// as a stream with the same loss and churn gives the same state bits; a
// sink's error stops the run; a run past the stream's end is refused.
func TestNetworkEdgeSinkReplay(t *testing.T) {
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	churn := network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}
	for _, c := range netCases {
		for _, sched := range []Schedule{ScheduleAuto, ScheduleReference} {
			for _, m := range []network.Model{{}, {Loss: 0.3, LossOneWay: true, Churn: churn}} {
				iters := int64(1500)
				log := &edgeLog{Stream: network.Stream{Name: "recorded"}}
				cfg := Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 4, EvalNodes: -1,
					Network: m, EdgeSink: log, Schedule: sched}
				tr, s := runTrace(t, p, g, cfg)
				want := snapNet(s, tr)
				if int64(len(log.T)) != iters {
					t.Fatalf("%s: the sink saw %d activations of %d", c.algo, len(log.T), iters)
				}
				for x, v := range log.T {
					if v != int64(x+1) {
						t.Fatalf("sink out of order at %d: %d", x, v)
					}
				}
				m.Stream = &log.Stream
				cfg.EdgeSink, cfg.Network = nil, m
				tr, s = runTrace(t, p, g, cfg)
				if d := snapNet(s, tr).diff(want); d != "" {
					t.Fatalf("%s/%s %s: the replay's %s differs", c.algo, c.est, sched, d)
				}
				// A run longer than the stream is refused.
				cfg.Iters = iters + 1
				s, err := New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "--edge-stream") {
					t.Fatalf("run past the stream: %v", err)
				}
				if err := s.Advance(iters + 1); err == nil {
					t.Fatal("advance past the stream")
				}
				// A failing sink stops the run with its error.
				cfg.Iters, cfg.Network.Stream = iters, nil
				cfg.EdgeSink = &edgeLog{fail: 100}
				s, err = New(p, g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "disk full") || s.Iter() >= 100 {
					t.Fatalf("failing sink: %v at %d", err, s.Iter())
				}
			}
		}
	}
}

// badPicker picks a pair that is not an edge every fifth iteration; it
// declares uniform probabilities (no pilot, which would refuse it).
type badPicker struct{ g *graph.Graph }

func (p badPicker) EdgeProbabilities(g *graph.Graph) []float64 {
	pe := make([]float64, len(g.Edges))
	for x := range pe {
		pe[x] = 1 / float64(len(pe))
	}
	return pe
}

func (p badPicker) Next(t int64, d network.Draw, v network.NodeView) (int, int) {
	if t%5 == 0 {
		return 0, 0
	}
	e := p.g.Edges[d.IntN(0, len(p.g.Edges))]
	return int(e[0]), int(e[1])
}

// TestNetworkInvalidPick: an adaptive picker's pick that is not an edge
// breaks its contract (docs/networks.md §8): the run stops at that
// iteration with an error naming the pick, in every executor.
func TestNetworkInvalidPick(t *testing.T) {
	n := 20
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	for _, algo := range []Algorithm{Sync, Async} {
		for _, sch := range []Schedule{ScheduleAuto, ScheduleReference} {
			m := network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: badPicker{g}}}
			s, err := New(p, g, Config{Algorithm: algo, Iters: 100, GammaC: 1, Seed: 1, Network: m, Schedule: sch})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), nil)
			s.Close()
			if err == nil || !strings.Contains(err.Error(), "adaptive picker gave (0, 0) at iteration 5, not an edge") {
				t.Errorf("%s %s: err %v", algo, sch, err)
			}
		}
	}
}

// zeroPicker activates node 0's edges although it declares them
// probability 0.
type zeroPicker struct{ g *graph.Graph }

func (p zeroPicker) EdgeProbabilities(g *graph.Graph) []float64 {
	pe := make([]float64, len(g.Edges))
	m := 0
	for x, e := range g.Edges {
		if e[0] != 0 && e[1] != 0 {
			m++
			pe[x] = 1
		}
	}
	for x := range pe {
		pe[x] /= float64(m)
	}
	return pe
}

func (p zeroPicker) Next(t int64, d network.Draw, v network.NodeView) (int, int) {
	e := p.g.Edges[d.IntN(0, len(p.g.Edges))]
	return int(e[0]), int(e[1])
}

// TestNetworkPickAtZeroP: Algorithm 3 stops, naming the node, when the
// picker activates a node whose p_k is 0 (its step 1/p_k would be
// infinite: the node froze in silence, or diverged); Algorithm 2, which
// does not weigh by 1/p_k, runs.
func TestNetworkPickAtZeroP(t *testing.T) {
	n := 20
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	m := network.Model{Activation: network.Activation{Kind: network.ActAdaptive, Picker: zeroPicker{g}}}
	for _, sch := range []Schedule{ScheduleAuto, ScheduleReference} {
		s, err := New(p, g, Config{Algorithm: Async, Iters: 2000, GammaC: 1, Seed: 1, Network: m, Schedule: sch})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), nil)
		s.Close()
		if err == nil || !strings.Contains(err.Error(), "activated node 0 at iteration") || !strings.Contains(err.Error(), "p_k is 0") {
			t.Errorf("async %s: err %v", sch, err)
		}
	}
	runTrace(t, p, g, Config{Algorithm: Sync, Iters: 200, GammaC: 1, Seed: 1, Network: m})
}

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// netTiny is the hand-checked setting: six nodes on the complete graph,
// nodes 1, 2, 4 and 5 of label −1 (a node of label −1 never has an AUC
// gradient, so its z moves only by the exchanges), an edge stream among
// them with gaps, and distinct initial z.
func netTiny(t *testing.T, algo Algorithm, m network.Model, iters int64) *Sim {
	t.Helper()
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, 6, 2, 4)
	g := mustGraph(t, graph.Spec{Kind: "complete", N: 6})
	if m.Stream == nil {
		st := &network.Stream{Name: "tiny"}
		pairs := [][2]int32{{1, 2}, {4, 5}, {2, 4}, {1, 5}, {5, 2}}
		for t := int64(1); t <= iters; t++ {
			if t%4 == 3 {
				continue // a gap: an idle iteration
			}
			e := pairs[t%int64(len(pairs))]
			st.T, st.I, st.J = append(st.T, t), append(st.I, e[0]), append(st.J, e[1])
		}
		m.Stream = st
	}
	s, err := New(p, g, Config{Algorithm: algo, Iters: iters, GammaC: 0.5, Seed: 11, Schedule: ScheduleReference, Workers: 1, Network: m})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 6; k++ {
		z := s.Z.Row(k)
		for a := range z {
			z[a] = float64(1+k) * float64(a+1) * 0.25
		}
	}
	return s
}

type tinySnap struct {
	z, th, bar [][]float64
	y          []int32
	cnt        []int64
}

func tinyState(s *Sim) tinySnap {
	var sn tinySnap
	for k := 0; k < s.Z.Rows; k++ {
		sn.z = append(sn.z, append([]float64(nil), s.Z.Row(k)...))
		sn.th = append(sn.th, append([]float64(nil), s.Theta.Row(k)...))
		sn.bar = append(sn.bar, append([]float64(nil), s.ThetaBar.Row(k)...))
	}
	sn.y = append(sn.y, s.Y...)
	sn.cnt = append(sn.cnt, s.Count...)
	return sn
}

func halfway(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = (a[i] + b[i]) / 2
	}
	return out
}

// TestNetworkSemanticsAsync checks the reference's Algorithm 3 event by
// event against docs/networks.md: an idle event (no edge, or an endpoint
// offline) changes nothing; otherwise z_i ← (z_i + z_j)/2 only if j → i
// arrived and z_j likewise, from the old values, y swapped only if both
// arrived, and both endpoints step (their clocks count) whatever arrived.
func TestNetworkSemanticsAsync(t *testing.T) {
	churn := writeFile(t, "sessions", "# node start end\n2 5 9\n4 20 22\n")
	iters := int64(60)
	s := netTiny(t, Async, network.Model{Loss: 0.5, LossOneWay: true, Churn: network.Churn{Dist: network.DistFile, File: churn}}, iters)
	defer s.Close()
	seen := map[string]int{}
	for tt := int64(1); tt <= iters; tt++ {
		before := tinyState(s)
		if err := s.Advance(1); err != nil {
			t.Fatal(err)
		}
		after := tinyState(s)
		i, j, ok := s.cfg.Network.Stream.At(tt)
		if !ok || !s.net.Online(i, tt) || !s.net.Online(j, tt) {
			seen["idle"]++
			if fmt.Sprint(before) != fmt.Sprint(after) {
				t.Fatalf("t=%d: an idle event changed the state", tt)
			}
			continue
		}
		toI, toJ := s.net.Delivered(tt, i, j)
		seen[fmt.Sprint(toI, toJ)]++
		wantI, wantJ := before.z[i], before.z[j]
		if toI {
			wantI = halfway(before.z[i], before.z[j])
		}
		if toJ {
			wantJ = halfway(before.z[j], before.z[i])
		}
		if !sameFloatBits(after.z[i], wantI) || !sameFloatBits(after.z[j], wantJ) {
			t.Fatalf("t=%d (%v, %v): z_i %v z_j %v, want %v %v", tt, toI, toJ, after.z[i], after.z[j], wantI, wantJ)
		}
		swapped := after.y[i] == before.y[j] && after.y[j] == before.y[i]
		if swapped != (toI && toJ) || !swapped && (after.y[i] != before.y[i] || after.y[j] != before.y[j]) {
			t.Fatalf("t=%d (%v, %v): y %v → %v", tt, toI, toJ, before.y, after.y)
		}
		for k := 0; k < 6; k++ {
			step := int64(0)
			if k == i || k == j {
				step = 1
			}
			if after.cnt[k] != before.cnt[k]+step {
				t.Fatalf("t=%d: clock of node %d %d → %d", tt, k, before.cnt[k], after.cnt[k])
			}
			if step == 0 && fmt.Sprint(after.z[k], after.bar[k]) != fmt.Sprint(before.z[k], before.bar[k]) {
				t.Fatalf("t=%d: node %d changed", tt, k)
			}
		}
		// θ̄_k ← (1 − 1/c_k) θ̄_k + θ_k/c_k at the endpoints.
		for _, k := range []int{i, j} {
			bar := append([]float64(nil), before.bar[k]...)
			avg(bar, after.th[k], float64(after.cnt[k]))
			if !sameFloatBits(bar, after.bar[k]) {
				t.Fatalf("t=%d: θ̄ of node %d", tt, k)
			}
		}
	}
	for _, k := range []string{"idle", "true true", "true false", "false true", "false false"} {
		if seen[k] == 0 {
			t.Fatalf("case %q never happened (%v): choose another seed", k, seen)
		}
	}
	if c := s.NetCounts(); c.Attempted != iters-int64(seen["idle"]) || c.Delivered != int64(seen["true true"]) ||
		c.OneWay != int64(seen["true false"]+seen["false true"]) {
		t.Fatalf("counters %+v, seen %v", c, seen)
	}
}

// TestNetworkSemanticsSync checks the reference's Algorithm 2 round by
// round: the exchange per direction as in Algorithm 3, no exchange with an
// offline endpoint, an offline node frozen (z, θ, θ̄), and an online node's
// θ̄ averaged with its own count of online rounds c_k.
func TestNetworkSemanticsSync(t *testing.T) {
	churn := writeFile(t, "sessions", "2 5 9\n0 3 4\n3 10 30\n")
	iters := int64(40)
	s := netTiny(t, Sync, network.Model{Loss: 0.5, LossOneWay: true, Churn: network.Churn{Dist: network.DistFile, File: churn}}, iters)
	defer s.Close()
	online := make([]int64, 6)
	seen := map[string]int{}
	for tt := int64(1); tt <= iters; tt++ {
		before := tinyState(s)
		if err := s.Advance(1); err != nil {
			t.Fatal(err)
		}
		after := tinyState(s)
		i, j, ok := s.cfg.Network.Stream.At(tt)
		exch := ok && s.net.Online(i, tt) && s.net.Online(j, tt)
		var toI, toJ bool
		if exch {
			toI, toJ = s.net.Delivered(tt, i, j)
			seen[fmt.Sprint(toI, toJ)]++
			wantI, wantJ := before.z[i], before.z[j]
			if toI {
				wantI = halfway(before.z[i], before.z[j])
			}
			if toJ {
				wantJ = halfway(before.z[j], before.z[i])
			}
			if !sameFloatBits(after.z[i], wantI) || !sameFloatBits(after.z[j], wantJ) {
				t.Fatalf("t=%d (%v, %v): z of the endpoints", tt, toI, toJ)
			}
		} else if ok {
			seen["offline endpoint"]++
		}
		if swapped := exch && toI && toJ; ok && swapped != (after.y[i] != before.y[i]) {
			t.Fatalf("t=%d: y %v → %v (exchange %v, %v, %v)", tt, before.y, after.y, exch, toI, toJ)
		}
		for k := 0; k < 6; k++ {
			if !s.net.Online(k, tt) {
				seen["offline node"]++
				if fmt.Sprint(after.z[k], after.th[k], after.bar[k]) != fmt.Sprint(before.z[k], before.th[k], before.bar[k]) {
					t.Fatalf("t=%d: offline node %d changed", tt, k)
				}
				continue
			}
			online[k]++
			bar := append([]float64(nil), before.bar[k]...)
			avg(bar, after.th[k], float64(online[k]))
			if !sameFloatBits(bar, after.bar[k]) {
				t.Fatalf("t=%d: θ̄ of node %d not averaged with c_k = %d", tt, k, online[k])
			}
		}
	}
	if fmt.Sprint(online) != fmt.Sprint(s.nx.rounds) {
		t.Fatalf("c_k %v, want %v", s.nx.rounds, online)
	}
	for _, k := range []string{"offline endpoint", "offline node", "true true", "true false", "false true", "false false"} {
		if seen[k] == 0 {
			t.Fatalf("case %q never happened (%v)", k, seen)
		}
	}
	if g, _ := s.GradEvals(); g != online[0]+online[1]+online[2]+online[3]+online[4]+online[5] {
		t.Fatalf("gradient evaluations %d, online node-rounds %v", g, online)
	}
}

// TestNetworkSemanticsDelays: a message sent at event t with delay 2
// arrives at the start of event t + 2: nothing is averaged at t, and at
// t + 2 each side averages with the z the other sent and takes its y.
func TestNetworkSemanticsDelays(t *testing.T) {
	st := &network.Stream{Name: "delays", T: []int64{1, 5}, I: []int32{1, 4}, J: []int32{2, 5}}
	s := netTiny(t, Async, network.Model{Stream: st, Delay: network.Delay{Dist: network.DelayConstant, C: 2}}, 6)
	defer s.Close()
	s0 := tinyState(s)
	if err := s.Advance(1); err != nil {
		t.Fatal(err)
	}
	s1 := tinyState(s)
	if !sameFloatBits(s1.z[1], s0.z[1]) || !sameFloatBits(s1.z[2], s0.z[2]) || s1.y[1] != 1 || s1.cnt[1] != 1 || s1.cnt[2] != 1 {
		t.Fatal("event 1 exchanged at once under a delay of 2")
	}
	if err := s.Advance(1); err != nil { // event 2: a gap
		t.Fatal(err)
	}
	if s.nx.queue.Len() != 2 || !sameFloatBits(s.Z.Row(1), s0.z[1]) {
		t.Fatalf("event 2: %d messages in flight", s.nx.queue.Len())
	}
	if err := s.Advance(1); err != nil { // event 3: the messages arrive
		t.Fatal(err)
	}
	if !sameFloatBits(s.Z.Row(1), halfway(s0.z[1], s0.z[2])) || !sameFloatBits(s.Z.Row(2), halfway(s0.z[2], s0.z[1])) ||
		s.Y[1] != 2 || s.Y[2] != 1 || s.nx.queue.Len() != 0 {
		t.Fatalf("event 3: z_1 %v z_2 %v y %v", s.Z.Row(1), s.Z.Row(2), s.Y)
	}
}

// TestNetworkNoAllocs: an iteration under a network model allocates
// nothing, on the executors that honour it (the plain synchronous one on
// the pool, the serial asynchronous one, with delays too, the reference
// with delays).
func TestNetworkNoAllocs(t *testing.T) {
	forcePool(t)
	n := 200
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 5})
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 4, 11)
	churn := network.Churn{Dist: network.DistGeometric, Up: 300, Down: 100}
	for _, c := range []struct {
		algo  Algorithm
		sched Schedule
		m     network.Model
	}{
		{Sync, ScheduleAuto, network.Model{Loss: 0.3, LossOneWay: true, Churn: churn}},
		{Async, ScheduleAuto, network.Model{Loss: 0.3, Churn: churn, Activation: network.Activation{Kind: network.ActClocks}}},
		{Async, ScheduleReference, network.Model{Loss: 0.3, Churn: churn, Delay: network.Delay{Dist: network.DelayUniform, A: 0, B: 5}}},
		{Async, ScheduleAuto, network.Model{Loss: 0.3, LossOneWay: true, Churn: churn, Delay: network.Delay{Dist: network.DelayUniform, A: 0, B: 5}}},
	} {
		s, err := New(p, g, Config{Algorithm: c.algo, Iters: 1 << 40, GammaC: 1, Seed: 1, Workers: 2, Schedule: c.sched, Network: c.m})
		if err != nil {
			t.Fatal(err)
		}
		s.Advance(5000)
		if a := testing.AllocsPerRun(50, func() { s.Advance(1) }); a != 0 {
			t.Fatalf("%s %s: %v allocations per iteration", c.algo, s.kind.name, a)
		}
		s.Close()
	}
}

// TestNetworkActiveKernels: with the active kernels (which may fuse
// multiply-adds, and so differ from the reference in rounding only) the
// executors that honour a model agree with the reference to 1e-9.
func TestNetworkActiveKernels(t *testing.T) {
	n := 40
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 5, 2)
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: n, K: 4, P: 0.3, Seed: 1})
	churn := network.Churn{Dist: network.DistGeometric, Up: 40, Down: 15}
	for _, c := range netCases {
		iters := int64(600)
		m := network.Model{Loss: 0.3, LossOneWay: true, Churn: churn}
		if c.algo == Async {
			iters = 3000
			m.Delay = network.Delay{Dist: network.DelayUniform, A: 0, B: 4}
		}
		var bars [2][]float64
		for x, sched := range []Schedule{ScheduleReference, ScheduleAuto} {
			tr, s := runTrace(t, p, g, Config{Algorithm: c.algo, Estimator: c.est, Iters: iters, GammaC: 0.5, Seed: 7, LogPoints: 3,
				Network: m, Schedule: sched})
			bars[x] = snapNet(s, tr).bar
		}
		if !rowsClose(bars[1], bars[0], 1e-9) {
			t.Fatalf("%s/%s (kernel %s): θ̄ differs from the reference beyond rounding", c.algo, c.est, kernel.Active())
		}
	}
}

// TestNetworkCheckpointRefusesOtherData: a checkpoint of a run whose model
// read data (a churn file, a recorded stream, a weights function) is
// refused by a run with the same flags over other data — a file edited
// between the checkpoint and the resume — and taken by one over the same
// data (Net.Fingerprint in the checkpoint's network name).
func TestNetworkCheckpointRefusesOtherData(t *testing.T) {
	n := 30
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	churnA, churnB := "3 10 40\n7 5 9\n", "3 10 41\n7 5 9\n"
	var streamA strings.Builder
	for x := 1; x <= 60; x++ {
		fmt.Fprintf(&streamA, "%d %d %d\n", x, x%n, (x+1)%n)
	}
	streamB := streamA.String() + "61 4 5\n" // one more contact, after the checkpoint
	w := func(scale float64) func(i, j int) float64 {
		return func(i, j int) float64 { return 1 + scale*float64(i%3) }
	}
	for _, c := range []struct {
		name string
		algo Algorithm
		a, b func() network.Model
	}{
		{"churn file", Sync,
			func() network.Model {
				return network.Model{Churn: network.Churn{Dist: network.DistFile, File: write("sessions", churnA)}}
			},
			func() network.Model {
				return network.Model{Churn: network.Churn{Dist: network.DistFile, File: write("sessions", churnB)}}
			}},
		{"edge stream", Async,
			func() network.Model { return network.Model{EdgeStream: write("stream", streamA.String())} },
			func() network.Model { return network.Model{EdgeStream: write("stream", streamB)} }},
		{"weights function", Async,
			func() network.Model {
				return network.Model{Activation: network.Activation{Kind: network.ActWeights, Weights: w(1)}}
			},
			func() network.Model {
				return network.Model{Activation: network.Activation{Kind: network.ActWeights, Weights: w(2)}}
			}},
	} {
		cfg := Config{Algorithm: c.algo, Iters: 60, GammaC: 0.5, Seed: 3, LogPoints: 2, EvalNodes: -1, Workers: 1, Network: c.a()}
		a, err := New(p, g, cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := a.Advance(50); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := a.WriteCheckpoint(&buf, []byte("id"), nil); err != nil {
			t.Fatal(err)
		}
		same, err := New(p, g, cfg) // the same data (the file as it was)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := same.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id")); err != nil {
			t.Errorf("%s: the same data refused: %v", c.name, err)
		}
		cfg.Network = c.b()
		other, err := New(p, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Network.String() != c.a().String() {
			t.Fatalf("%s: the models' flags differ (%q, %q): the case tests nothing", c.name, cfg.Network.String(), c.a().String())
		}
		_, err = other.ReadCheckpoint(bytes.NewReader(buf.Bytes()), []byte("id"))
		if err == nil || !strings.Contains(err.Error(), "the same network flags") || !strings.Contains(err.Error(), "[data ") {
			t.Errorf("%s: the same flags over other data: err = %v, want a refusal naming the model's data", c.name, err)
		}
	}
}

// TestNetworkCheckpointFileBlind: a checkpoint names the files its network
// model read by their contents, not their paths (Model.FileBlind beside
// Net.Fingerprint): the same files under other paths resume it, bit for bit
// as the uninterrupted run; a checkpoint written before, which named them by
// their paths, resumes through ReadCheckpointOf's legacy identity, and not
// without it.
func TestNetworkCheckpointFileBlind(t *testing.T) {
	n := 30
	p := testProblem(t, problem.AUCLogistic, problem.Regularizer{}, n, 3, 2)
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: n})
	write := func(dir, name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var stream strings.Builder
	for x := 1; x <= 60; x++ {
		fmt.Fprintf(&stream, "%d %d %d\n", x, x%n, (x+1)%n)
	}
	var weights strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&weights, "%d %d %d\n", i, (i+1)%n, 1+i%3)
	}
	model := func(dir string) map[string]network.Model {
		return map[string]network.Model{
			"churn file":   {Churn: network.Churn{Dist: network.DistFile, File: write(dir, "sessions", "3 10 40\n7 5 9\n")}},
			"edge stream":  {EdgeStream: write(dir, "stream", stream.String())},
			"weights file": {Activation: network.Activation{Kind: network.ActWeights, File: write(dir, "w", weights.String())}},
		}
	}
	here, there := model(t.TempDir()), model(t.TempDir())
	for name, m := range here {
		cfg := Config{Algorithm: Async, Iters: 60, GammaC: 0.5, Seed: 3, LogPoints: 2, EvalNodes: -1, Workers: 1, Network: m}
		a, err := New(p, g, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := a.Advance(50); err != nil {
			t.Fatal(err)
		}
		var cur, old bytes.Buffer
		if err := a.WriteCheckpoint(&cur, []byte("id"), nil); err != nil {
			t.Fatal(err)
		}
		if err := a.writeCheckpoint(&old, []byte("old id"), nil, nil, true); err != nil {
			t.Fatal(err)
		}
		if err := a.Advance(60); err != nil {
			t.Fatal(err)
		}
		moved := cfg
		moved.Network = there[name]
		b, err := New(p, g, moved)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ReadCheckpoint(bytes.NewReader(cur.Bytes()), []byte("id")); err != nil {
			t.Fatalf("%s: the same file under another path refused: %v", name, err)
		}
		if err := b.Advance(60); err != nil {
			t.Fatal(err)
		}
		if sa, sb := snapNet(a, nil), snapNet(b, nil); !reflect.DeepEqual(sa, sb) {
			t.Errorf("%s: resumed under another path: θ̄ differs from the uninterrupted run's", name)
		}
		c, err := New(p, g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadCheckpoint(bytes.NewReader(old.Bytes()), []byte("id")); err == nil {
			t.Errorf("%s: a checkpoint that names its files by path taken without the legacy identity", name)
		}
		if _, err := c.ReadCheckpointOf(bytes.NewReader(old.Bytes()), []byte("id"), []byte("old id")); err != nil {
			t.Errorf("%s: a checkpoint written before (files by path) refused: %v", name, err)
		}
		// Through ReadCheckpoint, whose caller identity is the same in
		// both forms; and refused under other paths, saying to use its own.
		var same bytes.Buffer
		if err := a.writeCheckpoint(&same, []byte("id"), nil, nil, true); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadCheckpoint(bytes.NewReader(same.Bytes()), []byte("id")); err != nil {
			t.Errorf("%s: ReadCheckpoint refused a checkpoint written before: %v", name, err)
		}
		if _, err := b.ReadCheckpoint(bytes.NewReader(same.Bytes()), []byte("id")); err == nil || !strings.Contains(err.Error(), "resume it with the paths it names") {
			t.Errorf("%s: a checkpoint written before, under other paths: %v, want the advice to use its paths", name, err)
		}
	}
}
