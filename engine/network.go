package engine

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/layout"
	"github.com/pairgossip/pairgossip/network"
)

// The network model (docs/networks.md, issue #34). A run whose
// Config.Network is the paper's network (Model.IsPerfect) and that has no
// Config.EdgeSink has s.net == nil and runs today's code, bit for bit.
// Otherwise state.net is the run's network.Net and state.nx what the engine
// keeps of it: counters, the synchronous churn clocks c_k, the delay queue.
// Every executor draws iteration t's activation here (state.activation, or
// its batch form state.activations; the parallel asynchronous executor
// draws the edges ahead, state.edgesAhead, and decides each on the worker
// that runs it, state.decide), so the edge, the idle iterations, churn at
// the endpoints, the deliveries, the counters and Config.EdgeSink are
// decided in one place.
//
// Which executors honour a model (each row's fits says why it refuses
// one, so that auto falls through to a row that honours it; docs/networks.md
// §11 has the table):
//   - reference (exec_reference.go): every model, both algorithms and
//     estimators, every problem; each rule literally (netStep);
//   - plain synchronous (exec_plain.go): every model; under churn θ_k =
//     c·z_k with the c of node k's last step (cNode, churnShard);
//   - blocked (exec_blocked.go): every model but an adaptive picker and an
//     edge sink (needBlockedNet: a block's activations are drawn ahead);
//     under churn as the plain one;
//   - reduced (exec_reduced.go, network_reduced.go): every model but an
//     adaptive picker (reducedNetFit);
//   - cone, the reduced metric schedule (exec_cone.go): every model but
//     churn and an adaptive picker (needConeNet: θ = c·U with one c);
//   - async serial (exec_async.go): every model; under delays an arrival
//     changes z_k of a node that does not step, so its θ_k is held apart
//     until it does;
//   - async parallel (exec_asyncpar.go, over the async, async-cone,
//     generic and reference rows): every model but delays, an adaptive
//     picker and an edge sink, which run on the row's serial loop
//     (parallelNet, execKind.parallel); a window's edges are drawn
//     before it runs (decided there, or from asyncLateDecide workers on
//     by the worker that runs each event);
//   - async-cone (exec_asynccone.go): every model;
//   - generic (exec_generic.go): every model but delays (needGenericNet);
//     under churn an offline node keeps θ_k of its last online round;
//   - generic-blocked (exec_genericblocked.go): refuses churn, an adaptive
//     picker and an edge sink (needBlockedNet and its own rule).
//
// Delays exist for Algorithm 3 only (Model.CheckAlgorithm), and the
// centralized algorithm takes no model (checkNetwork).

// EdgeSink receives every activation of a run in order of t (lost or not,
// with offline endpoints or not; not the idle iterations that activate no
// edge): the recorder behind --write-edges (network.StreamWriter has this
// method). An error stops the run and is returned by Run, RunWith or
// Advance.
type EdgeSink interface {
	Edge(t int64, i, j int) error
}

// The flags of an iteration's activation.
const (
	actEdge   uint8 = 1 << iota // an edge was activated
	actOnline                   // both endpoints are online: the exchange is attempted
	actToI                      // the message j → i arrives
	actToJ                      // the message i → j arrives
	actBoth   = actToI | actToJ
	actAll    = actEdge | actOnline | actBoth
)

// netRun is what the engine keeps of a non-perfect network besides the
// network.Net.
type netRun struct {
	defaultEdges bool // the engine's edge stream (Net.DefaultEdges)
	churn        bool // Net.Churn
	multiPhase   bool // 1/p_k changes with t (a schedule of several phases)
	adaptive     bool // an adaptive picker: edges depend on the state, no drawing ahead
	sink         EdgeSink
	// lossOnly: the deliveries are the two-way loss alone (Net.LossOnly),
	// decided by Net.DeliveredBit without a branch.
	lossOnly bool

	// attempted counts the activations whose endpoints were both online;
	// delivered those whose two messages arrived (a handshake: the swap of
	// y), oneWay those of which exactly one arrived (docs/networks.md §3).
	attempted, delivered, oneWay int64

	// rounds[k] is c_k, node k's count of online rounds (Algorithm 2 with
	// churn; nil otherwise: c_k = t).
	rounds []int64
	// acts[k] counts the activations of node k with both endpoints online
	// (an adaptive picker's NodeView.Activations; nil otherwise).
	acts []int64
	// queue holds the messages in flight under delays (Algorithm 3).
	queue *network.Queue
	qbuf  []int32
	view  netView
	// evals[w] counts worker w's gradient evaluations of a synchronous
	// round under churn (only the online nodes step).
	evals []int64
	// fl is the flags of the asynchronous fast path's window, and live
	// (under churn) the endpoints of its events that run, which it
	// prefetches.
	fl   []uint8
	live []int32
	// cNode[k] is the c of θ_k = c·z_k at node k's last step (the plain
	// synchronous executor under churn: an offline node keeps its θ; nil
	// otherwise).
	cNode []float64
	// shard is the synchronous executor's round under churn
	// (netSyncShard, churnShard), bound once.
	shard func(w int, r layout.Range, tk *task)

	// held[k] says that node k's θ_k is heldTheta's row k, not c_k·z_k:
	// the asynchronous fast path under delays, after a message arrived at
	// k since its last step (z_k changed, θ_k did not). nil otherwise.
	held      []bool
	heldTheta layout.Matrix
	// take and hold are the fast path's bound methods for deliverDueWith.
	take func(k, y int)
	hold func(k int)
}

// netView is the engine's network.NodeView for an adaptive picker.
type netView struct {
	s     *state
	theta func(k int, dst []float64) // the executor's θ_k
	th    []float64
}

func (v *netView) N() int                  { return v.s.rows() }
func (v *netView) Z(k int) []float64       { return v.s.Z.Row(k) }
func (v *netView) Activations(k int) int64 { return v.s.nx.acts[k] }
func (v *netView) Theta(k int) []float64 {
	v.theta(k, v.th)
	return v.th
}

// checkNetwork validates the network part of a configuration.
func (c Config) checkNetwork() error {
	if c.Network.IsPerfect() && c.EdgeSink == nil {
		return nil
	}
	if c.Algorithm == Centralized {
		return fmt.Errorf("a network model (%s) and an edge sink (--write-edges) apply to the gossip algorithms (sync, async), not centralized", c.Network)
	}
	if err := c.Network.Validate(); err != nil {
		return err
	}
	return c.Network.CheckAlgorithm(c.Algorithm == Async)
}

// netFits reports whether cfg runs on the paper's network with no edge
// sink, which every row runs (needBlockedNet and parallelNet start from
// it).
func netFits(cfg Config) bool { return cfg.Network.IsPerfect() && cfg.EdgeSink == nil }

// netEventer is an eventRunner that runs an event under a network model:
// event t on (i, j) with the deliveries fl of its activation (both
// endpoints online), 1/p_k of t's phase, touching the rows of i and j only
// (the parallel asynchronous executor runs these concurrently).
type netEventer interface {
	netEvent(i, j int, t int64, w int, fl uint8) (nonzero int64, bad int)
}

// parallelNet reports whether the parallel asynchronous executor may run
// row k under cfg's network: always on the paper's network; under a model
// when k's runner has network events and the model draws the activations
// ahead of the state — not under delays (an arrival changes a node outside
// its events), an adaptive picker (the edge depends on the state) or an
// edge sink (a window is drawn while the previous one runs); those run on
// the serial asynchronous loop.
func parallelNet(k execKind, cfg Config) bool {
	if netFits(cfg) {
		return true
	}
	m := cfg.Network
	return k.netEvents && cfg.EdgeSink == nil && m.Delay.Dist == "" && m.Activation.Kind != network.ActAdaptive
}

// drawBlock is the start of every block schedule's block under a network
// model (blocked, generic-blocked, reduced): the activations of its B
// rounds from s.t into edges and fl (state.activations: counters, churn
// cursors and the edge sink in order of t), and a new generation of the
// per-node touched stamps (cleared when the generation wraps).
func (s *state) drawBlock(B int, edges [][2]int32, fl []uint8, gen *uint32, stamp []uint32) error {
	if err := s.activations(s.t, unsafe.Slice(&edges[0][0], 2*B), fl[:B]); err != nil {
		return err
	}
	*gen++
	if *gen == 0 {
		clear(stamp)
		*gen = 1
	}
	return nil
}

// attachNetwork builds the run's network on s (nothing for the paper's
// network). For Algorithm 3 with one phase the model's 1/p_k replace the
// graph's in s.invP (the same values for uniform edges); with several phases
// s.invP[k] is set at each activation of k to the phase's (setInvP).
//
// linear says that the executor keeps θ_k = c·z_k implicit (the plain
// synchronous and the serial asynchronous ones), which needs c per node
// under churn (synchronous) and θ held apart under delays (asynchronous).
func (s *state) attachNetwork(workers int, linear bool) error {
	m := s.cfg.Network
	if m.IsPerfect() && s.cfg.EdgeSink == nil {
		return nil // today's run
	}
	nt, err := network.New(m, s.g, s.cfg.Seed)
	if err != nil {
		return err
	}
	s.net = nt
	nx := &netRun{defaultEdges: nt.DefaultEdges(), churn: nt.Churn(), multiPhase: nt.Phases() > 1,
		adaptive: m.Activation.Kind == network.ActAdaptive, sink: s.cfg.EdgeSink, lossOnly: nt.LossOnly()}
	nx.view = netView{s: s, th: make([]float64, s.prob.P)}
	nx.evals = make([]int64, max(1, workers))
	if s.cfg.Algorithm == Sync && nx.churn {
		nx.rounds = make([]int64, s.rows())
		if linear {
			nx.cNode = make([]float64, s.rows())
		}
	}
	if nx.adaptive {
		nx.acts = make([]int64, s.rows())
	}
	if s.cfg.Algorithm == Async {
		copy(s.invP, nt.InvP(1))
		if d := nt.MaxDelay(); d > 0 {
			nx.queue = network.NewQueue(s.prob.P, d)
			if linear {
				nx.held = make([]bool, s.rows())
				nx.heldTheta = layout.NewLazy(s.rows(), s.prob.P)
			}
		}
	}
	s.nx = nx
	return nil
}

// netBytes is the memory of a run's network besides its graphs.
func netBytes(sh Shape, cfg Config) int64 {
	if cfg.Network.IsPerfect() {
		return 0
	}
	b := int64(0)
	if cfg.Algorithm == Sync && cfg.Network.Churn.Dist != "" {
		b += int64(sh.N) * 16 // c_k, and the plain executor's c per node
	}
	if cfg.Network.Activation.Kind == network.ActAdaptive {
		b += int64(sh.N) * 8
	}
	if cfg.Algorithm == Async && cfg.Network.Delay.Dist != "" {
		// The in-flight queue, and the fast path's held θ rows (mapped
		// lazily: only the rows of nodes with an arrival since their
		// step).
		b += network.QueueBytes(sh.P, cfg.Network.Delay.Max+cfg.Network.Delay.B+cfg.Network.Delay.C) + int64(sh.N)*int64(layout.Stride(sh.P)*8+1)
	}
	return b
}

// activation draws iteration t's activation: its edge (i, j) and flags
// (actEdge, actOnline, actToI, actToJ). Without a network model it is
// drawEdge with every flag. An iteration that activates nothing returns
// flags 0 (i = j = −1): a stream gap, a woken node without neighbours. It
// records the edge to the EdgeSink and counts the exchange.
func (s *state) activation(t int64) (i, j int, fl uint8, err error) {
	if s.net == nil {
		i, j = s.drawEdge()
		return i, j, actAll, nil
	}
	if s.nx.defaultEdges {
		i, j = s.drawEdge()
	} else {
		var ok bool
		var view network.NodeView
		if s.nx.adaptive {
			view = &s.nx.view
		}
		if i, j, ok = s.net.Edge(t, s.edges, view); !ok {
			// Nothing activated (a stream gap, a woken node without
			// neighbours); an adaptive picker's pick that is not an
			// edge breaks its contract: the run stops, naming it.
			if err := s.net.Err(); err != nil && s.nx.adaptive {
				return -1, -1, 0, fmt.Errorf("engine: %w", err)
			}
			return -1, -1, 0, nil
		}
		if s.nx.adaptive && s.cfg.Algorithm == Async {
			// Algorithm 3 weighs a step by 1/p_k: a node the picker
			// activates at p_k = 0 (declared, or never drawn by the
			// pilot) would step with an infinite weight.
			inv := s.net.InvP(t)
			for _, k := range [2]int{i, j} {
				if math.IsInf(inv[k], 0) || math.IsNaN(inv[k]) {
					return -1, -1, 0, fmt.Errorf("engine: --activation: the adaptive picker activated node %d at iteration %d, whose activation probability p_k is 0 "+
						"(declared by its EdgeProbabilities, or never drawn by the pilot estimate): Algorithm 3's step 1/p_k is undefined; "+
						"declare probabilities that give it its share, or raise Activation.PilotDraws", k, t)
				}
			}
		}
	}
	fl, err = s.settle(t, i, j)
	return i, j, fl, err
}

// activations is activation's batch form for the iterations t0+1 …
// t0+len(fl): edges into ev (ev[2x], ev[2x+1]; −1 for none) and flags into
// fl, caller-owned, allocating nothing. Without a network model, or with
// uniform edges, the edges are drawEdges'. An adaptive picker's edges
// depend on the state: callers then use activation, one iteration at a time.
func (s *state) activations(t0 int64, ev []int32, fl []uint8) error {
	m := len(fl)
	if s.net == nil || s.nx.defaultEdges {
		s.drawEdges(ev[:2*m])
		if s.net == nil {
			for x := range fl {
				fl[x] = actAll
			}
			return nil
		}
		// Under churn the endpoints' cursors of the events netPrefetchAhead
		// on are asked for ahead, by groups (a hint: the same answers).
		pf := s.nx.churn
		if pf {
			s.net.PrefetchOnline(ev[:2*min(netPrefetchAhead, m)])
		}
		if nx := s.nx; nx.lossOnly && nx.sink == nil && nx.acts == nil {
			// settle's work without its branches on the loss draw: the
			// same flags and counts (decideLoss).
			var att, del int64
			for x := 0; x < m; x++ {
				if lo := x + netPrefetchAhead; pf && x%netPrefetchGroup == 0 && lo < m {
					s.net.PrefetchOnline(ev[2*lo : 2*min(lo+netPrefetchGroup, m)])
				}
				t := t0 + 1 + int64(x)
				if pf && (!s.net.Online(int(ev[2*x]), t) || !s.net.Online(int(ev[2*x+1]), t)) {
					fl[x] = actEdge
					continue
				}
				b := s.net.DeliveredBit(t)
				fl[x] = decideLoss(b)
				att++
				del += int64(b)
			}
			nx.attempted += att
			nx.delivered += del
			return nil
		}
		for x := 0; x < m; x++ {
			if lo := x + netPrefetchAhead; pf && x%netPrefetchGroup == 0 && lo < m {
				s.net.PrefetchOnline(ev[2*lo : 2*min(lo+netPrefetchGroup, m)])
			}
			f, err := s.settle(t0+1+int64(x), int(ev[2*x]), int(ev[2*x+1]))
			if err != nil {
				return err
			}
			fl[x] = f
		}
		return nil
	}
	for x := 0; x < m; x++ {
		i, j, f, err := s.activation(t0 + 1 + int64(x))
		if err != nil {
			return err
		}
		ev[2*x], ev[2*x+1], fl[x] = int32(i), int32(j), f
	}
	return nil
}

// edgesAhead draws the edges of the iterations t0+1 … t0+len(it) without
// deciding them (the parallel asynchronous executor's windows: its workers
// decide each event as they run it, state.decide): the iterations that
// activate an edge into ev (ev[2x], ev[2x+1]) and it (their index within
// the iterations), the others (a schedule's edge down, a given
// probability's none) dropped; it returns how many activate one. With
// uniform edges they are drawEdges'. Not for an adaptive picker (its edge
// depends on the state) or an edge sink (it sees every edge in order of t).
func (s *state) edgesAhead(t0 int64, ev, it []int32) int {
	iters := len(it)
	if s.nx.defaultEdges {
		s.drawEdges(ev[:2*iters])
		for x := range it {
			it[x] = int32(x)
		}
		return iters
	}
	m := 0
	for x := 0; x < iters; x++ {
		if i, j, ok := s.net.Edge(t0+1+int64(x), s.edges, nil); ok {
			ev[2*m], ev[2*m+1], it[m] = int32(i), int32(j), int32(x)
			m++
		}
	}
	return m
}

// The churn cursors of the endpoints of the events netPrefetchAhead on are
// prefetched every netPrefetchGroup events (activations).
const (
	netPrefetchAhead = 16
	netPrefetchGroup = 8
)

// settle decides what happens on the activated edge (i, j) at iteration t:
// the sink sees it, churn may leave it idle, Delivered decides the messages
// (decide), and the counters count it (tally).
func (s *state) settle(t int64, i, j int) (uint8, error) {
	nx := s.nx
	if nx.sink != nil {
		if err := nx.sink.Edge(t, i, j); err != nil {
			return 0, fmt.Errorf("engine: recording the edge of iteration %d: %w", t, err)
		}
	}
	fl := s.decide(t, i, j)
	if fl&actOnline != 0 && nx.acts != nil {
		nx.acts[i]++
		nx.acts[j]++
	}
	nx.tally(fl)
	return fl, nil
}

// decide returns the flags of the activated edge (i, j) at iteration t:
// idle (actEdge) if churn has an endpoint offline, else online with the
// deliveries Delivered draws. It moves the endpoints' churn cursors, so
// that the activations of a node must be decided in order of t, one at a
// time (the parallel asynchronous executor decides an event on the worker
// that runs it, after the node's earlier events: exec_asyncpar.go).
func (s *state) decide(t int64, i, j int) uint8 {
	if s.nx.churn && (!s.net.Online(i, t) || !s.net.Online(j, t)) {
		return actEdge
	}
	if s.nx.lossOnly {
		return decideLoss(s.net.DeliveredBit(t))
	}
	fl := actEdge | actOnline
	toI, toJ := s.net.Delivered(t, i, j)
	if toI {
		fl |= actToI
	}
	if toJ {
		fl |= actToJ
	}
	return fl
}

// decideLoss is the flags of an online activation whose deliveries are
// Net.DeliveredBit's b: both messages (b = 1) or none.
func decideLoss(b uint64) uint8 {
	return actEdge | actOnline | uint8(b)*actBoth
}

// tally counts an activation with flags fl: attempted if its endpoints
// were online, delivered or one-way by its messages.
func (nx *netRun) tally(fl uint8) {
	if fl&actOnline == 0 {
		return
	}
	nx.attempted++
	switch fl & actBoth {
	case actBoth:
		nx.delivered++
	case actToI, actToJ:
		nx.oneWay++
	}
}

// netExchange applies the deliveries fl of an exchange on (i, j) from the
// old values: z_i ← (z_i + z_j)/2 if j → i arrived, z_j ← (z_j + z_i)/2 if
// i → j arrived, y_i ↔ y_j if both did (network.Swap). With both it is
// today's exchange.
func (s *state) netExchange(i, j int, fl uint8) {
	if fl&actOnline == 0 {
		return
	}
	toI, toJ := fl&actToI != 0, fl&actToJ != 0
	if network.Swap(toI, toJ) {
		s.exchange(i, j)
		return
	}
	switch {
	case toI:
		s.averageInto(i, j)
	case toJ:
		s.averageInto(j, i)
	}
}

// averageInto sets z_r ← (z_r + z_f)/2 (a one-way delivery from f to r),
// with average's arithmetic.
func (s *state) averageInto(r, f int) {
	averageRow(s.Z.Row(r), s.Z.Row(f))
}

func averageRow(zr, zf []float64) {
	zf = zf[:len(zr)]
	for a := range zr {
		zr[a] = (zr[a] + zf[a]) / 2
	}
}

// online reports whether node k takes its step at iteration t (always
// without churn).
func (s *state) online(k int, t int64) bool {
	return s.net == nil || !s.nx.churn || s.net.Online(k, t)
}

// netEvent is the serial loop's event under a network model (netSerialTo
// without delays): 1/p_k of the phase, then a whole exchange through the
// fast event, a partial one through partialEvent.
func (e *asyncExec) netEvent(i, j int, t int64, w int, fl uint8) (nonzero int64, bad int) {
	s := e.s
	if s.nx.multiPhase {
		s.setInvP(t, i, j)
		e.nd[i].invP, e.nd[j].invP = s.invP[i], s.invP[j]
	}
	switch {
	case fl&actBoth == actBoth:
		return e.event(i, j, t, w)
	case fl&actBoth == 0 && e.fusedLost():
		return e.lostEvent(i, j, &e.sc[w].EventScalars)
	}
	return e.partialEvent(i, j, t, fl)
}

// fusedLost reports whether a lost exchange (both endpoints online, no
// message delivered) runs in the lost event's kernel (lostEvent): the
// logistic gossip event's direct path, and no θ_k held for a delayed
// message (docs/networks.md §4), which the kernel does not read.
func (e *asyncExec) fusedLost() bool {
	return e.evLost != nil && e.s.cfg.Estimator == Gossip && e.s.nx.held == nil
}

// lostEvent is event t on (i, j) when its exchange was lost: both
// endpoints' local steps at their own y, nothing swapped or averaged, in
// one call of kernel.EventLogisticLost — partialEvent's arithmetic with no
// delivery, operation for operation in the generic kernel, with the
// exponentials side by side and the margins fused in the assembly (as the
// whole event's kernel; bench/RESULTS.md, "Lost exchanges in one call").
// sc is the calling worker's scratch. Its scalars are gossipScalars'
// without the swap, written out: a flag of gossipScalars, which the
// perfect network's events call twice per two-event call, slowed their
// loop measurably (the same section).
func (e *asyncExec) lostEvent(i, j int, sc *kernel.EventScalars) (nonzero int64, bad int) {
	ni, nj := &e.nd[i], &e.nd[j]
	sc.CPrev[0], sc.P[0] = ni.c, 0
	if ni.lab > ni.ylab {
		sc.P[0] = ni.invP
	}
	sc.CPrev[1], sc.P[1] = nj.c, 0
	if nj.lab > nj.ylab {
		sc.P[1] = nj.invP
	}
	if e.sqrtNoReg {
		sc.C[0], sc.A[0], sc.B[0] = e.tickSqrt(ni)
		sc.C[1], sc.A[1], sc.B[1] = e.tickSqrt(nj)
	} else {
		sc.C[0], sc.A[0], sc.B[0] = e.tickNode(ni)
		sc.C[1], sc.A[1], sc.B[1] = e.tickNode(nj)
	}
	ri, rj := unsafe.Add(e.base, uintptr(i)*e.rs), unsafe.Add(e.base, uintptr(j)*e.rs)
	nz, mask := e.evLost((*float64)(ri), (*float64)(unsafe.Add(ri, e.yo)), (*float64)(unsafe.Add(ri, e.zo)), (*float64)(unsafe.Add(ri, e.bo)),
		(*float64)(rj), (*float64)(unsafe.Add(rj, e.yo)), (*float64)(unsafe.Add(rj, e.zo)), (*float64)(unsafe.Add(rj, e.bo)),
		e.d, &sc.CPrev[0])
	switch {
	case mask&1 != 0:
		return int64(nz), i
	case mask&2 != 0:
		return int64(nz), j
	}
	return int64(nz), -1
}

// netEvent is the reference's event under a network model without delays
// (netStep): the deliveries, 1/p_k of the phase, both endpoints' steps.
func (e *referenceExec) netEvent(i, j int, t int64, w int, fl uint8) (nonzero int64, bad int) {
	s := e.s
	s.netExchange(i, j, fl)
	s.setInvP(t, i, j)
	return e.steps(i, j, t, w)
}

// setInvP sets 1/p_k of the endpoints of an activation at iteration t to
// the phase's, when it changes with t (several phases).
func (s *state) setInvP(t int64, i, j int) {
	if s.net == nil || !s.nx.multiPhase {
		return
	}
	inv := s.net.InvP(t)
	s.invP[i], s.invP[j] = inv[i], inv[j]
}

// deliverDue applies the delayed messages arriving at event t (Algorithm 3
// with delays), in send order: the receiver, if online, averages with the
// z that was sent and, after a handshake, takes the observation sent.
func (s *state) deliverDue(t int64) {
	if s.net == nil || s.nx.queue == nil {
		return
	}
	s.deliverDueWith(t, s.takeY, nil)
}

// deliverDueWith is deliverDue with take making an observation a node's
// and hold, if not nil, called before a receiver's z changes (an executor
// that keeps y in its own arrays, or θ implicit, passes its own).
func (s *state) deliverDueWith(t int64, take func(k, y int), hold func(k int)) {
	nx := s.nx
	nx.qbuf = nx.queue.Deliver(t, nx.qbuf[:0])
	for _, slot := range nx.qbuf {
		_, to, y, swap, z := nx.queue.Message(slot)
		if !s.online(to, t) {
			continue
		}
		if hold != nil {
			hold(to)
		}
		averageRow(s.Z.Row(to), z)
		if swap {
			take(to, int(y))
		}
	}
}

// takeY makes x_y node k's auxiliary observation.
func (s *state) takeY(k, y int) {
	s.Y[k] = int32(y)
	s.ylab[k] = s.prob.Label[y]
	if s.YX.Rows > 0 {
		copy(s.YX.Row(k), s.X.Row(y))
	}
}

// sendDelayed is the exchange of event t on (i, j) under delays: the
// directions with τ > 0 are queued with the sender's z and y before the
// exchange, those with τ = 0 applied at once from the old values.
func (s *state) sendDelayed(t int64, i, j int, fl uint8) error {
	if fl&actOnline == 0 {
		return nil
	}
	toI, toJ := fl&actToI != 0, fl&actToJ != 0
	tauJ, tauI := 0, 0
	if toJ {
		tauJ = s.net.Delay(t, network.DirToJ)
	}
	if toI {
		tauI = s.net.Delay(t, network.DirToI)
	}
	if tauJ == 0 && tauI == 0 {
		s.netExchange(i, j, fl)
		return nil
	}
	swap := network.Swap(toI, toJ)
	q := s.nx.queue
	if toJ && tauJ > 0 {
		if err := q.Push(t, network.DirToJ, tauJ, i, j, s.Y[i], swap, s.Z.Row(i)); err != nil {
			return err
		}
	}
	if toI && tauI > 0 {
		if err := q.Push(t, network.DirToI, tauI, j, i, s.Y[j], swap, s.Z.Row(j)); err != nil {
			return err
		}
	}
	// At most one direction is immediate here; its sender is unchanged by
	// the event's exchange, so it reads the old values.
	if toJ && tauJ == 0 {
		averageRow(s.Z.Row(j), s.Z.Row(i))
		if swap {
			s.takeY(j, int(s.Y[i]))
		}
	}
	if toI && tauI == 0 {
		averageRow(s.Z.Row(i), s.Z.Row(j))
		if swap {
			s.takeY(i, int(s.Y[j]))
		}
	}
	return nil
}

// NetCounts are a run's network counters so far (docs/networks.md): the
// activations whose endpoints were both online (an exchange attempted), of
// which the loss model let both messages through (Delivered) or exactly
// one (OneWay), counted when the messages are sent; under delays
// (Algorithm 3) InFlight is the messages sent and not yet arrived (a
// message that arrives at an offline node is dropped then, and stays
// counted as delivered).
type NetCounts struct {
	Attempted, Delivered, OneWay int64
	InFlight                     int64
}

// NetCounts returns the network counters so far (zero without a network
// model).
func (s *Sim) NetCounts() NetCounts {
	if s.nx == nil {
		return NetCounts{}
	}
	c := NetCounts{Attempted: s.nx.attempted, Delivered: s.nx.delivered, OneWay: s.nx.oneWay}
	if s.nx.queue != nil {
		c.InFlight = int64(s.nx.queue.Len())
	}
	return c
}

// Net returns the run's network, nil for the paper's network.
func (s *Sim) Net() *network.Net { return s.net }

// netRecord fills a measurement's network fields at iteration s.t.
func (s *Sim) netRecord(r *Record) {
	if s.net == nil {
		r.Online = -1
		return
	}
	r.Attempted, r.Delivered, r.OneWay = s.nx.attempted, s.nx.delivered, s.nx.oneWay
	r.Online = s.rows()
	if s.nx.churn && s.t > 0 {
		r.Online = s.net.OnlineCount(s.t)
	}
}

// checkHorizon refuses a run up to stop that a recorded stream does not
// cover.
func (s *Sim) checkHorizon(stop int64) error {
	if s.net == nil {
		return nil
	}
	return s.net.CheckHorizon(stop)
}

// writeNet writes the network's state after the state's sections (a
// checkpoint, a checksum): the counters, c_k (synchronous churn), 1/p_k
// (Algorithm 3), the adaptive activation counts and the queue in flight.
func (s *state) writeNet(w io.Writer, fc *floatCodec) error {
	nx := s.nx
	if err := binary.Write(w, binary.LittleEndian, [3]int64{nx.attempted, nx.delivered, nx.oneWay}); err != nil {
		return err
	}
	if nx.rounds != nil {
		if err := binary.Write(w, binary.LittleEndian, nx.rounds); err != nil {
			return err
		}
	}
	if nx.acts != nil {
		if err := binary.Write(w, binary.LittleEndian, nx.acts); err != nil {
			return err
		}
	}
	if nx.cNode != nil {
		if err := fc.write(w, nx.cNode); err != nil {
			return err
		}
	}
	if nx.held != nil {
		// One flag a node, then the held θ rows in node order.
		for _, h := range nx.held {
			b := byte(0)
			if h {
				b = 1
			}
			if _, err := w.Write([]byte{b}); err != nil {
				return err
			}
		}
		for k, h := range nx.held {
			if h {
				if err := fc.write(w, nx.heldTheta.Row(k)); err != nil {
					return err
				}
			}
		}
	}
	if s.cfg.Algorithm == Async {
		if err := fc.write(w, s.invP); err != nil {
			return err
		}
	}
	if nx.queue != nil {
		b, err := nx.queue.MarshalBinary()
		if err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, uint64(len(b))); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// netSaved is the network's state read from a checkpoint, applied only
// after the whole file is verified.
type netSaved struct {
	counts [3]int64
	rounds []int64
	acts   []int64
	invP   []float64
	cNode  []float64
	queue  *network.Queue

	held     []bool
	heldRows [][]float64 // the held θ rows, in node order
}

// readNet reads what writeNet wrote.
func (s *state) readNet(r io.Reader, fc *floatCodec) (*netSaved, error) {
	nx := s.nx
	v := &netSaved{}
	if err := binary.Read(r, binary.LittleEndian, &v.counts); err != nil {
		return nil, ckptErr("truncated network state")
	}
	if nx.rounds != nil {
		v.rounds = make([]int64, len(nx.rounds))
		if err := binary.Read(r, binary.LittleEndian, v.rounds); err != nil {
			return nil, ckptErr("truncated network state")
		}
	}
	if nx.acts != nil {
		v.acts = make([]int64, len(nx.acts))
		if err := binary.Read(r, binary.LittleEndian, v.acts); err != nil {
			return nil, ckptErr("truncated network state")
		}
	}
	if nx.cNode != nil {
		v.cNode = make([]float64, len(nx.cNode))
		if err := fc.read(r, v.cNode); err != nil {
			return nil, ckptErr("truncated network state")
		}
	}
	if nx.held != nil {
		flags := make([]byte, len(nx.held))
		if _, err := io.ReadFull(r, flags); err != nil {
			return nil, ckptErr("truncated network state")
		}
		v.held = make([]bool, len(flags))
		for k, b := range flags {
			if b > 1 {
				return nil, ckptErr("corrupt network state")
			}
			if v.held[k] = b == 1; v.held[k] {
				row := make([]float64, s.prob.P)
				if err := fc.read(r, row); err != nil {
					return nil, ckptErr("truncated network state")
				}
				v.heldRows = append(v.heldRows, row)
			}
		}
	}
	if s.cfg.Algorithm == Async {
		v.invP = make([]float64, len(s.invP))
		if err := fc.read(r, v.invP); err != nil {
			return nil, ckptErr("truncated network state")
		}
	}
	if nx.queue != nil {
		var n uint64
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<40 {
			return nil, ckptErr("truncated network state")
		}
		b := make([]byte, 0, min(n, 1<<20))
		for len(b) < int(n) {
			k := min(int(n)-len(b), 1<<20)
			chunk := make([]byte, k)
			if _, err := io.ReadFull(r, chunk); err != nil {
				return nil, ckptErr("truncated network state")
			}
			b = append(b, chunk...)
		}
		v.queue = network.NewQueue(s.prob.P, s.net.MaxDelay())
		if err := v.queue.UnmarshalBinary(b); err != nil {
			return nil, ckptErr("network delay queue: %v", err)
		}
	}
	return v, nil
}

// applyNet applies a network state read by readNet, and prepares the
// network's cursors for iteration t.
func (s *state) applyNet(v *netSaved, t int64) {
	nx := s.nx
	nx.attempted, nx.delivered, nx.oneWay = v.counts[0], v.counts[1], v.counts[2]
	copy(nx.rounds, v.rounds)
	copy(nx.acts, v.acts)
	copy(nx.cNode, v.cNode)
	if v.held != nil {
		x := 0
		for k, h := range v.held {
			nx.held[k] = h
			if h {
				copy(nx.heldTheta.Row(k), v.heldRows[x])
				x++
			}
		}
	}
	if v.invP != nil {
		copy(s.invP, v.invP)
	}
	if v.queue != nil {
		nx.queue = v.queue
	}
	s.net.ResumeAt(t)
}

// netTraceRecord is the part of a trace record that a checkpoint of a run
// with a network model adds after the trace.
func netTraceRecord(r Record) [4]int64 {
	return [4]int64{r.Attempted, r.Delivered, r.OneWay, int64(r.Online)}
}

// ---- The reference executor (exec_reference.go) ----

// netStep is the reference executor's iteration t under a network model,
// every rule literally (docs/networks.md).
func (e *referenceExec) netStep() error {
	s := e.s
	t := s.t + 1
	if s.cfg.Algorithm == Async {
		s.deliverDue(t)
	}
	i, j, fl, err := s.activation(t)
	if err != nil {
		return err // s.t stays: iteration t did not happen
	}
	s.t = t
	switch s.cfg.Algorithm {
	case Sync:
		s.netExchange(i, j, fl)
		if fl&actOnline == 0 {
			i, j = -1, -1
		}
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		fn := e.fn
		if s.nx.churn {
			if s.nx.shard == nil {
				s.nx.shard = e.netSyncShard
			}
			fn = s.nx.shard
		}
		e.cr.pass(s.prob.N*s.prob.P >= poolMinWork, fn, tk, s.prob.N)
		if s.nx.churn {
			for w, v := range s.nx.evals {
				s.gradEvals += v
				s.nx.evals[w] = 0
			}
		} else {
			s.gradEvals += int64(s.prob.N)
		}
		s.nonzero += e.cr.nonzero()
		if d := firstOf(e.cr.bad); d.found() {
			return s.diverged(d)
		}
	case Async:
		if fl&actOnline == 0 {
			return nil // idle: an endpoint is offline, or no edge
		}
		var nz int64
		var bad int
		if s.nx.queue != nil {
			if err := s.sendDelayed(t, i, j, fl); err != nil {
				return err
			}
			s.setInvP(t, i, j)
			nz, bad = e.steps(i, j, t, 0)
		} else {
			nz, bad = e.netEvent(i, j, t, 0, fl)
		}
		s.nonzero += nz
		s.gradEvals += 2
		if bad >= 0 {
			return s.diverged(divergence{t: t, node: bad})
		}
	}
	return nil
}

// netSyncShard is syncShard under churn: an offline node is frozen (z, θ,
// θ̄); an online node steps with the global γ(t) and averages θ̄ with its
// own count of online rounds c_k.
func (e *referenceExec) netSyncShard(w int, r layout.Range, tk *task) {
	s := e.s
	p, ws := s.prob, e.cr.ws[w]
	t, gamma := tk.t, tk.gamma
	tf := float64(t)
	var nz, evals int64
	for k := r.Lo; k < r.Hi; k++ {
		if !s.net.Online(k, t) {
			continue
		}
		evals++
		s.nx.rounds[k]++
		z, th := s.Z.Row(k), s.Theta.Row(k)
		if p.PairGrad(z, 1, th, k, s.aux(k, t)) {
			nz++
		}
		p.Reg.Smooth(th, z, gamma, tf, ws)
		bar := s.ThetaBar.Row(k)
		avg(bar, th, float64(s.nx.rounds[k]))
		if !finite(bar) {
			e.cr.bad[w].note(t, k, "")
		}
	}
	e.cr.nz[w] += nz
	s.nx.evals[w] += evals
}

// ---- The plain synchronous executor (exec_plain.go) ----

// netAdvance is plainExec.advance under a network model; under churn
// (cNode) a round runs churnShard, θ_k = c·z_k with the c of node k's last
// step.
func (e *plainExec) netAdvance(stop int64) error {
	s := e.s
	end := min(stop, s.t+max(1, min(256, int64(4<<20)/int64(s.prob.N*s.prob.P))))
	big := s.prob.N*s.prob.P >= poolMinWork
	e.cr.sw.start(false)
	defer e.cr.sw.lap(PhaseSerial)
	for s.t < end {
		t := s.t + 1
		i, j, fl, err := s.activation(t)
		if err != nil {
			return err
		}
		s.t = t
		if fl&actOnline != 0 && fl&actBoth != 0 {
			e.netPre(i, j, fl)
		} else {
			i, j = -1, -1 // no exchange: every node's margin stands
		}
		tk := task{t: t, gamma: s.cfg.Gamma(float64(t)), i: i, j: j}
		fn := e.fn
		if s.nx.cNode != nil {
			if s.nx.shard == nil {
				s.nx.shard = e.churnShard
			}
			fn = s.nx.shard
		}
		e.cr.pass(big, fn, tk, s.prob.N)
		e.cPrev = s.linearScale(tk.gamma, float64(t))
		if s.nx.cNode != nil {
			for w, v := range s.nx.evals {
				s.gradEvals += v
				s.nx.evals[w] = 0
			}
		} else {
			s.gradEvals += int64(s.prob.N)
		}
		s.nonzero += e.cr.nonzero()
		if d := firstOf(e.cr.bad); d.found() {
			return s.diverged(d)
		}
	}
	return nil
}

// netPre is pre for the deliveries fl: the paper's exchange when both
// messages arrived; otherwise no swap (the gossip margins, at θ before the
// averaging with y unchanged, stand) and the averaging of the receiving
// side, the unbiased endpoints keeping their θ before it. Under churn
// (cNode) each endpoint's θ is c_k·z_k with its own c.
func (l *linearSync) netPre(i, j int, fl uint8) {
	s := l.s
	cNode := s.nx.cNode
	if fl&actBoth == actBoth && cNode == nil {
		l.pre(i, j)
		return
	}
	both := fl&actBoth == actBoth
	if both {
		s.swapY(i, j)
	}
	for e, k := range [2]int{i, j} {
		c := l.cPrev
		if cNode != nil {
			c = cNode[k]
		}
		z := s.Z.Row(k)
		if s.cfg.Estimator == Unbiased {
			th := l.endTheta[e]
			for a := range th {
				th[a] = c * z[a]
			}
		} else if both {
			l.marg[k] = marginScaled(s.X.Row(k), s.YX.Row(k), z, c)
		}
	}
	if both {
		s.average(i, j)
		return
	}
	s.netExchange(i, j, fl)
}

// churnShard is round tk.t over the nodes of r under churn: an offline node
// is frozen (z, θ = c_k·z_k with the c of its last step, θ̄, its margin);
// an online node steps with the global c(t) and averages θ̄ with its own
// count of online rounds c_k.
func (e *plainExec) churnShard(w int, r layout.Range, tk *task) {
	s := e.s
	nx := s.nx
	c := s.linearScale(tk.gamma, float64(tk.t))
	var nz, evals int64
	for k := r.Lo; k < r.Hi; k++ {
		if !s.net.Online(k, tk.t) {
			continue
		}
		evals++
		nx.rounds[k]++
		cnt := float64(nx.rounds[k])
		cf := roundCoef{c: c, a: 1 - 1/cnt, b: 1 / cnt, cPrev: nx.cNode[k]}
		nonzero, ok := e.nodeRound(k, tk.t, cf, e.endTh(k, tk.i, tk.j))
		nx.cNode[k] = c
		if nonzero {
			nz++
		}
		if !ok {
			e.cr.bad[w].note(tk.t, k, "")
		}
	}
	e.cr.nz[w] += nz
	nx.evals[w] += evals
}

// ---- The serial asynchronous executor (exec_async.go) ----

// netSerialTo is asyncExec.serialTo under a network model: events in
// order, an idle event (an endpoint offline, no edge) changing nothing, a
// partial delivery through partialEvent, a whole one through the fast
// event; under delays the arrivals due at t first (deliverDueWith, θ_k
// held apart), and the events through delayedEvent.
func (e *asyncExec) netSerialTo(stop int64) error {
	s, nx := e.s, e.s.nx
	if nx.fl == nil {
		nx.fl = make([]uint8, asyncSerialWindow)
		if nx.churn {
			nx.live = make([]int32, 2*asyncSerialWindow)
		}
		nx.take, nx.hold = e.takeY, e.holdTheta
	}
	for s.t < stop {
		m := int(min(int64(asyncSerialWindow), stop-s.t))
		if nx.adaptive {
			m = 1 // the picker reads the state the previous event left
			if nx.queue != nil {
				s.deliverDueWith(s.t+1, nx.take, nx.hold) // before the pick, as the reference
			}
		}
		if err := s.activations(s.t, e.ev[:2*m], nx.fl[:m]); err != nil {
			return err
		}
		t0 := s.t
		// The gossip loop's prefetching (gossipWindow: groups of asyncGroup
		// events asyncGroupAhead on; a hint, the same results), over the
		// events that run: an idle one (an endpoint offline) reads nothing,
		// and prefetching its rows would take the memory's time from the
		// events that do (bench/RESULTS.md, "Idle events in the serial loop").
		g, ahead := 0, 0
		if e.pfOn && s.cfg.Estimator == Gossip && m > 1 {
			g, ahead = asyncGroup, asyncGroupAhead
		}
		ev := e.ev[:2*m]
		live := ev
		if nx.churn && g > 0 {
			live = nx.live[:0]
			for x, f := range nx.fl[:m] {
				if f&actOnline != 0 {
					live = append(live, ev[2*x], ev[2*x+1])
				}
			}
		}
		pf := e.startGroups(live, g, ahead)
		lx := 0 // the events of live reached
		// Two whole exchanges in a row (idle iterations between them do
		// nothing) on four distinct nodes run in one call of the two-event
		// kernel, as gossipWindow runs them: the results of two events.
		pairs := e.evp != nil && s.cfg.Estimator == Gossip && nx.queue == nil && !nx.multiPhase
		lostOK := nx.queue == nil && e.fusedLost()
		for x := 0; x < m; x++ {
			t, fl := t0+1+int64(x), nx.fl[x]
			s.t = t
			if nx.queue != nil && !nx.adaptive {
				s.deliverDueWith(t, nx.take, nx.hold)
			}
			if fl&actOnline == 0 {
				if len(live) == len(ev) {
					lx++
				}
				continue
			}
			if lx >= pf.next {
				e.reachGroups(&pf, live, lx)
			}
			lx++
			i, j := int(ev[2*x]), int(ev[2*x+1])
			if nx.multiPhase {
				s.setInvP(t, i, j)
				e.nd[i].invP, e.nd[j].invP = s.invP[i], s.invP[j]
			}
			if pairs && fl&actBoth == actBoth {
				x2 := x + 1
				for x2 < m && nx.fl[x2]&actOnline == 0 {
					x2++
				}
				if x2 < m && nx.fl[x2]&actBoth == actBoth {
					if k, l := int(ev[2*x2]), int(ev[2*x2+1]); k != i && k != j && l != i && l != j {
						nz1, nz2, b1, b2 := e.gossipPair(i, j, k, l, &e.sc[0])
						s.gradEvals += 2
						s.nonzero += nz1
						if b1 >= 0 {
							return s.diverged(divergence{t: t, node: b1})
						}
						s.t = t0 + 1 + int64(x2)
						s.gradEvals += 2
						s.nonzero += nz2
						if b2 >= 0 {
							return s.diverged(divergence{t: s.t, node: b2})
						}
						if len(live) == len(ev) {
							lx += x2 - x // the idle events between count in ev
						} else {
							lx++
						}
						x = x2
						continue
					}
				}
			}
			var nz int64
			var bad int
			switch {
			case nx.queue != nil:
				nz, bad = e.delayedEvent(i, j, t, fl)
			case fl&actBoth == actBoth:
				nz, bad = e.event(i, j, t, 0)
			case fl&actBoth == 0 && lostOK:
				nz, bad = e.lostEvent(i, j, &e.sc[0].EventScalars)
			default:
				nz, bad = e.partialEvent(i, j, t, fl)
			}
			s.gradEvals += 2
			s.nonzero += nz
			if bad >= 0 {
				return s.diverged(divergence{t: t, node: bad})
			}
		}
	}
	return nil
}

// partialEvent is event t on (i, j) when at most one message arrived: no
// swap, the receiving side's averaging, both endpoints' steps (the
// unbiased path's arithmetic for either estimator).
func (e *asyncExec) partialEvent(i, j int, t int64, fl uint8) (nonzero int64, bad int) {
	var pe pendingSteps
	e.margins(&pe, i, j, t)
	e.s.netExchange(i, j, fl)
	return e.steps(&pe, i, j)
}

// pendingSteps is what the endpoints' steps of an event need from before
// its averaging: their y rows, and their margins at θ before the event
// where the pair contributes.
type pendingSteps struct {
	ys      [2][]float64
	ms      [2]float64
	contrib [2]bool
}

// margins fills pe for the endpoints of event t on (i, j) from their
// current y and θ (c_k·z_k before the averaging, or the held θ_k).
func (e *asyncExec) margins(pe *pendingSteps, i, j int, t int64) {
	s := e.s
	held := s.nx.held
	for x, k := range [2]int{i, j} {
		// The labels and 1/p_k from the packed scalars (asyncNode), which
		// prefetchEvents asked for, not the state's arrays: on a large
		// problem each of those is a cache miss an endpoint.
		nd := &e.nd[k]
		var ly int32
		if s.cfg.Estimator == Gossip {
			pe.ys[x], ly = s.YX.Row(k), int32(nd.ylab)
		} else {
			pe.ys[x], ly = s.auxRow(k, t)
		}
		if pe.contrib[x] = int32(nd.lab) > ly; pe.contrib[x] {
			if held != nil && held[k] {
				pe.ms[x] = marginScaled(s.X.Row(k), pe.ys[x], s.nx.heldTheta.Row(k), 1)
			} else {
				pe.ms[x] = marginScaled(s.X.Row(k), pe.ys[x], s.Z.Row(k), nd.c)
			}
		}
	}
}

// steps is both endpoints' local steps after the event's averaging: θ_k is
// c_k·z_k again.
func (e *asyncExec) steps(pe *pendingSteps, i, j int) (nonzero int64, bad int) {
	s := e.s
	bad = -1
	for x, k := range [2]int{i, j} {
		var wt float64
		if pe.contrib[x] {
			wt = e.nd[k].invP * s.prob.Loss.MarginDeriv(pe.ms[x])
			if wt != 0 {
				nonzero++
			}
		}
		c, a, b := e.tick(k)
		m := kernel.SyncLinear(s.Z.Row(k), s.ThetaBar.Row(k), s.X.Row(k), pe.ys[x], wt, c, a, b)
		if !isFinite(m) && bad < 0 {
			bad = k
		}
		if s.nx.held != nil {
			s.nx.held[k] = false
		}
	}
	return nonzero, bad
}

// yOf returns node k's auxiliary observation: with the gossip estimator
// the executor's packed copy (asyncNode), else the state's.
func (e *asyncExec) yOf(k int) int {
	if e.s.cfg.Estimator == Gossip {
		return int(e.nd[k].y)
	}
	return int(e.s.Y[k])
}

// takeY makes x_y node k's auxiliary observation (state.takeY for the
// executor's packed copy).
func (e *asyncExec) takeY(k, y int) {
	s := e.s
	if s.cfg.Estimator != Gossip {
		s.takeY(k, y)
		return
	}
	e.nd[k].y, e.nd[k].ylab = int32(y), int16(s.prob.Label[y])
	copy(s.YX.Row(k), s.X.Row(y))
}

// holdTheta keeps θ_k = c_k·z_k apart before a message changes z_k
// between two steps of node k (the reference keeps θ_k until k steps).
func (e *asyncExec) holdTheta(k int) {
	nx := e.s.nx
	if nx.held[k] {
		return
	}
	nx.held[k] = true
	kernel.Scale(nx.heldTheta.Row(k), e.s.Z.Row(k), e.nd[k].c)
}

// heldTheta writes θ_k into dst when it is held apart, reporting whether
// it was.
func (e *asyncExec) heldTheta(k int, dst []float64) bool {
	nx := e.s.nx
	if nx == nil || nx.held == nil || !nx.held[k] {
		return false
	}
	copy(dst, nx.heldTheta.Row(k))
	return true
}

// delayedEvent is event t on (i, j) under delays (the reference's
// sendDelayed, then both endpoints' steps): the directions with τ > 0 are
// queued with the sender's z and y before the event, those with τ = 0
// applied from the old values.
func (e *asyncExec) delayedEvent(i, j int, t int64, fl uint8) (nonzero int64, bad int) {
	s := e.s
	nx := s.nx
	toI, toJ := fl&actToI != 0, fl&actToJ != 0
	tauJ, tauI := 0, 0
	if toJ {
		tauJ = s.net.Delay(t, network.DirToJ)
	}
	if toI {
		tauI = s.net.Delay(t, network.DirToI)
	}
	if tauJ == 0 && tauI == 0 && !nx.held[i] && !nx.held[j] {
		if fl&actBoth == actBoth {
			return e.event(i, j, t, 0)
		}
		return e.partialEvent(i, j, t, fl)
	}
	swap := network.Swap(toI, toJ)
	yi, yj := e.yOf(i), e.yOf(j)
	if toJ && tauJ > 0 {
		if err := nx.queue.Push(t, network.DirToJ, tauJ, i, j, int32(yi), swap, s.Z.Row(i)); err != nil {
			panic(err) // τ ≤ Net.MaxDelay, the queue's bound
		}
	}
	if toI && tauI > 0 {
		if err := nx.queue.Push(t, network.DirToI, tauI, j, i, int32(yj), swap, s.Z.Row(j)); err != nil {
			panic(err)
		}
	}
	nowJ, nowI := toJ && tauJ == 0, toI && tauI == 0
	// The observations are taken before the margins (a step reads y after
	// the exchange), the z averaged after them (its gradient is at θ
	// before the exchange).
	if swap && nowJ {
		e.takeY(j, yi)
	}
	if swap && nowI {
		e.takeY(i, yj)
	}
	var pe pendingSteps
	e.margins(&pe, i, j, t)
	switch {
	case nowI && nowJ:
		s.average(i, j)
	case nowJ:
		averageRow(s.Z.Row(j), s.Z.Row(i))
	case nowI:
		averageRow(s.Z.Row(i), s.Z.Row(j))
	}
	return e.steps(&pe, i, j)
}

// netName is the network model's String for a checkpoint's header, with
// the digest of the data it read (Net.Fingerprint) where it read some,
// empty for the paper's network; a run on the paper's network with an edge sink
// (whose checkpoint has the network's section) is named apart, so that a
// refused resume does not read "perfect" against "perfect".
// netName is the network model a checkpoint names: its flags, each file
// named FILE (Model.FileBlind; by its path where legacy, as checkpoints
// written before named them), and the fingerprint of what it read.
func (s *state) netName(legacy bool) string {
	if s.net == nil {
		return ""
	}
	if s.cfg.Network.IsPerfect() {
		return "perfect, with an edge sink"
	}
	name := s.cfg.Network.FileBlind()
	if legacy {
		name = s.cfg.Network.String()
	}
	if fp := s.net.Fingerprint(); fp != 0 {
		// The data read from files or built from a schedule or a weights
		// function: the same flags over other data are another model.
		return fmt.Sprintf("%s [data %016x]", name, fp)
	}
	return name
}

func netLabel(name string) string {
	if name == "" {
		return "perfect"
	}
	return name
}
