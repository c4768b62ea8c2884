// Package output writes what a run produces: trace.csv (TraceCSV, read
// back by ReadTraceCSV), nodes.csv (NodesCSV), summary.json (Summarize,
// JSON) and the model's .npy files (SaveModel, through package npy, the
// codec the data reader uses too). The run itself is package pairgossip's;
// nothing here changes results.
package output

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/graph"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/network"
	"github.com/pairgossip/pairgossip/problem"
)

// TraceColumns are the first columns of trace.csv, in order: the metrics
// every run has had (the sweep database stores these).
var TraceColumns = []string{"iter", "grad_evals", "grad_evals_nonzero", "objective_mean", "objective_std",
	"objective_min", "objective_max", "auc_mean", "bias", "consensus"}

// TraceMeasureColumns follow TraceColumns in trace.csv: the standard errors
// of objective_mean, auc_mean and bias (0 when exact, as at small n; empty,
// no value, for the AUC of metric learning) and the pairs sampled for the objective and
// AUC (0 when exact). They come last so that readers of the first columns
// keep working.
var TraceMeasureColumns = []string{"objective_stderr", "auc_stderr", "bias_stderr", "measure_pairs"}

// TraceOptimumColumns end trace.csv: the suboptimality of the mean
// objective, objective_mean − R_n(θ*), and relative to the optimum,
// (objective_mean − R_n(θ*))/|R_n(θ*)|, where the optimum is known (empty
// fields otherwise: --no-optimum, out of reach, a run that failed, or a
// zero optimum for the relative one). They come last, after
// TraceMeasureColumns, so that readers of the earlier columns keep
// working.
var TraceOptimumColumns = []string{"suboptimality", "suboptimality_rel"}

// TraceNetworkColumns end trace.csv of a run with a network model (not the
// paper's network; docs/networks.md), and only then, so that every other
// trace keeps its bytes: the exchanges attempted so far (activations with
// both endpoints online), of which both messages arrived (delivered: the
// paper's exchange) or exactly one (one-way loss), and the nodes online at
// the measured iteration (engine.Record's network counters).
var TraceNetworkColumns = []string{"exchanges_attempted", "exchanges_delivered", "exchanges_oneway", "nodes_online"}

// TraceHeader is trace.csv's header: TraceColumns, TraceMeasureColumns,
// TraceOptimumColumns.
func TraceHeader() []string {
	return slices.Concat(TraceColumns, TraceMeasureColumns, TraceOptimumColumns)
}

// TraceHeaderNetwork is the header of a trace of a run with a network
// model: TraceHeader then TraceNetworkColumns.
func TraceHeaderNetwork() []string { return slices.Concat(TraceHeader(), TraceNetworkColumns) }

// Float is a float64 whose JSON form is null when it is NaN or infinite.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// UnmarshalJSON implements json.Unmarshaler (null reads as NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	*f = Float(v)
	return err
}

func fmtFloat(v float64) string { return CSVFloat(v) }

// CSVFloat formats a value for a CSV file of this project: the shortest
// round-trip form, and an empty field for NaN or ±Inf — the same as null in
// summary.json (Float) and NULL in a sweep database: one representation of
// "no finite value" everywhere (the AUC of metric learning, a measurement of
// an empty trace).
func CSVFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// TraceCSV renders a trace as CSV (shortest round-trip float formatting, so
// equal traces give equal bytes; an empty field where a value is NaN or
// infinite, as summary.json's null), the optimum unknown (TraceOptimumColumns
// empty).
func TraceCSV(trace []engine.Record) []byte { return TraceCSVOptimum(trace, math.NaN()) }

// Suboptimality returns objective − optimum and that relative to
// |optimum| (NaN where either is unknown, or the optimum is 0 for the
// relative one).
func Suboptimality(objective, optimum float64) (abs, rel float64) {
	abs = objective - optimum
	rel = math.NaN()
	if optimum != 0 {
		rel = abs / math.Abs(optimum)
	}
	return abs, rel
}

// TraceCSVOptimum is TraceCSV with the optimum R_n(θ*) known (NaN:
// unknown), which fills the suboptimality columns.
func TraceCSVOptimum(trace []engine.Record, optimum float64) []byte {
	return TraceCSVNetwork(trace, optimum, false)
}

// TraceCSVNetwork is TraceCSVOptimum with, when network is true (a run with
// a network model), the columns TraceNetworkColumns at the end.
func TraceCSVNetwork(trace []engine.Record, optimum float64, network bool) []byte {
	var b bytes.Buffer
	header := TraceHeader()
	if network {
		header = TraceHeaderNetwork()
	}
	for i, c := range header {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	b.WriteByte('\n')
	for _, r := range trace {
		sub, rel := Suboptimality(r.ObjMean, optimum)
		fmt.Fprintf(&b, "%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s\n", r.Iter, r.GradEvals, r.GradEvalsNonzero,
			fmtFloat(r.ObjMean), fmtFloat(r.ObjStd), fmtFloat(r.ObjMin), fmtFloat(r.ObjMax),
			fmtFloat(r.AUCMean), fmtFloat(r.Bias), fmtFloat(r.Consensus),
			fmtFloat(r.ObjStdErr), fmtFloat(aucStdErr(r)), fmtFloat(r.BiasStdErr), r.MeasurePairs,
			fmtFloat(sub), fmtFloat(rel))
		if network {
			b.Truncate(b.Len() - 1)
			fmt.Fprintf(&b, ",%d,%d,%d,%d\n", r.Attempted, r.Delivered, r.OneWay, r.Online)
		}
	}
	return b.Bytes()
}

// NodesColumns is nodes.csv's header: long format, one row per
// (measurement, evaluated node), measurements in order and nodes
// ascending within each.
var NodesColumns = []string{"iter", "node", "degree", "objective", "auc"}

// NodesCSV renders the per-node trace as CSV (the formatting of
// TraceCSV: an empty field for no value).
func NodesCSV(nodes []pairgossip.NodeRecord) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Join(NodesColumns, ","))
	b.WriteByte('\n')
	for _, n := range nodes {
		fmt.Fprintf(&b, "%d,%d,%d,%s,%s\n", n.Iter, n.Node, n.Degree, fmtFloat(n.Objective), fmtFloat(n.AUC))
	}
	return b.Bytes()
}

// aucStdErr is r.AUCStdErr, NaN where there is no AUC (metric learning).
func aucStdErr(r engine.Record) float64 {
	if math.IsNaN(r.AUCMean) {
		return math.NaN()
	}
	return r.AUCStdErr
}

// measureModes names how r's objective, AUC and bias were measured
// (problem.EvalMethod names; "none" for the AUC of metric learning).
func measureModes(r engine.Record) (obj, auc, bias string) {
	auc = r.Measure.AUC.String()
	if math.IsNaN(r.AUCMean) {
		auc = "none"
	}
	return r.Measure.Obj.String(), auc, r.Measure.Bias.String()
}

// Summary is the content of summary.json.
type Summary struct {
	Status string        `json:"status"` // complete, diverged, cancelled
	Error  string        `json:"error,omitempty"`
	Config config.Config `json:"config"`
	Seed   uint64        `json:"seed"`
	Data   struct {
		Name    string `json:"name"`
		N       int    `json:"n"`
		D       int    `json:"d"`
		Classes int    `json:"classes"`
		// PositiveClass is the label text the AUC losses take as +1 (of a
		// two-class data set: dataset.Dataset.Binary's rule), so that text
		// labels ("benign"/"malignant") say which way the AUC reads.
		PositiveClass string `json:"positive_class,omitempty"`
	} `json:"data"`
	Graph *GraphInfo `json:"graph,omitempty"`
	// Network describes the network model of a run that has one (absent
	// for the paper's network).
	Network *NetworkInfo `json:"network,omitempty"`
	// Execution is how the run was executed (none of it changes results
	// beyond what Config.Schedule says).
	Execution Execution `json:"execution"`
	// Final values of the trace columns.
	Iter             int64 `json:"iter"`
	GradEvals        int64 `json:"grad_evals"`
	GradEvalsNonzero int64 `json:"grad_evals_nonzero"`
	ObjectiveMean    Float `json:"objective_mean"`
	ObjectiveStd     Float `json:"objective_std"`
	ObjectiveMin     Float `json:"objective_min"`
	ObjectiveMax     Float `json:"objective_max"`
	AUCMean          Float `json:"auc_mean"`
	Bias             Float `json:"bias"`
	Consensus        Float `json:"consensus"`
	EvalNodes        int   `json:"eval_nodes"`
	// The final measurement's standard errors (0 when exact) and sample
	// size (0 when exact), and how it was taken: exact, exact-sorted,
	// exact-streamed or sampled (docs in problem/evalplan.go).
	ObjectiveStdErr Float  `json:"objective_stderr"`
	AUCStdErr       Float  `json:"auc_stderr"`
	BiasStdErr      Float  `json:"bias_stderr"`
	MeasurePairs    int64  `json:"measure_pairs"`
	MeasureMode     string `json:"measure_mode"`
	MeasureModeAUC  string `json:"measure_mode_auc"`
	MeasureModeBias string `json:"measure_mode_bias"`
	// The centralized optimum R_n(θ*).
	OptimumObjective Float  `json:"optimum_objective"`
	OptimumMethod    string `json:"optimum_method,omitempty"`
	// OptimumErrorBound bounds |optimum_objective − R_n(θ*)| where the
	// value comes from the fast pair sums (0: evaluated exactly).
	OptimumErrorBound float64 `json:"optimum_error_bound"`
	// OptimumStdErr is the standard error of an incomplete-U optimum
	// (optimum_method "incomplete-u (B pairs)"; 0 otherwise).
	OptimumStdErr    float64 `json:"optimum_stderr,omitempty"`
	OptimumConverged bool    `json:"optimum_converged"`
	// OptimumCached says the optimum came from the cache of optima
	// (Run.SolveOptimum): Timing.OptimumSolver is then the lookup's time.
	OptimumCached bool `json:"optimum_cached"`
	// With Config.StopAt: the target (as in the config), Stop "reached"
	// (the run stopped at the measurement Iter, which met it) or "not
	// reached" (it ran to the cap, --iters, or ended otherwise: Status
	// says how), and Reached the same as a bool. Absent without StopAt.
	StopAt      float64 `json:"stop_at,omitempty"`
	Stop        string  `json:"stop,omitempty"`
	Reached     *bool   `json:"reached,omitempty"`
	WallSeconds float64 `json:"wall_seconds"`
	// Timing splits the run's time: set-up (data, problem, graph, engine),
	// the iterations and the measurements (together WallSeconds), the
	// optimum.
	Timing   Timing   `json:"timing"`
	Warnings []string `json:"warnings,omitempty"`
}

// The values of Summary.Stop.
const (
	StopReached    = "reached"
	StopNotReached = "not reached"
)

// Timing is where a run's time went, in seconds.
type Timing struct {
	SetupData     float64 `json:"setup_data_seconds"`
	SetupProblem  float64 `json:"setup_problem_seconds"`
	SetupGraph    float64 `json:"setup_graph_seconds"`
	SetupEngine   float64 `json:"setup_engine_seconds"`
	Setup         float64 `json:"setup_seconds"`
	Iterations    float64 `json:"iterations_seconds"`
	Measurement   float64 `json:"measurement_seconds"`
	OptimumSolver float64 `json:"optimum_seconds"`
}

// Execution describes how a run was executed.
type Execution struct {
	Schedule string `json:"schedule"` // the schedule auto chose, or the one asked for
	Kernel   string `json:"kernel"`   // the kernel implementation (generic, avx2)
	// LAPACK is the BLAS/LAPACK behind blas64 and lapack64 (gonum, or
	// openblas with -tags netlib); BLASCore the kernels OpenBLAS chose for
	// the CPU, on which its bits depend (problem.BLASCore).
	LAPACK   string `json:"lapack"`
	BLASCore string `json:"blas_core,omitempty"`
	// Build is the arithmetic of the build's Go code (GOARCH, on amd64
	// with its GOAMD64 level: kernel.Build) and FusedMultiplyAdd whether
	// it fuses x*y + z (GOAMD64=v3 and up, arm64): the same seed gives the
	// same bits only in builds with the same ones.
	Build            string `json:"build"`
	FusedMultiplyAdd bool   `json:"fused_multiply_add"`
	Workers          int    `json:"workers"`
	// EventsSerial says why an asynchronous run given several workers ran
	// its events on one of them (engine.Sim.SerialEvents).
	EventsSerial string `json:"events_serial,omitempty"`
	// PinnedCPUs is the CPU of each worker when they were pinned (--pin);
	// PinNote says why they were not.
	PinnedCPUs []int  `json:"pinned_cpus,omitempty"`
	PinNote    string `json:"pin_note,omitempty"`
}

// GraphInfo describes the graph of a run.
type GraphInfo struct {
	Name            string `json:"name"`
	Kind            string `json:"kind"`
	N               int    `json:"n"`
	UndirectedEdges int    `json:"undirected_edges"`
	MinDegree       int    `json:"min_degree"`
	MaxDegree       int    `json:"max_degree"`
	Tries           int    `json:"tries"`
}

// NetworkInfo is summary.json's "network": the model (network.Model's
// String, in the flags' syntax), each knob as configured (by its JSON name),
// the effective spectral gap 1 − λ₂(W̄) of the expected gossip matrix under
// the model beside the paper's network's gap on the run's graph
// (network.Net.EffectiveGap, docs/networks.md §9), and the run's exchange
// counters at its last measurement.
type NetworkInfo struct {
	Model string         `json:"model"`
	Knobs map[string]any `json:"knobs"`
	// EffectiveGap and PerfectGap are null where they were not computed
	// (GapMethod says why).
	EffectiveGap Float   `json:"effective_gap"`
	PerfectGap   Float   `json:"perfect_gap"`
	GapRatio     Float   `json:"gap_ratio"`
	GapMethod    string  `json:"gap_method"`
	GapResidual  float64 `json:"gap_residual,omitempty"`
	// Attempted exchanges (activations with both endpoints online), of
	// which Delivered (the loss model let both messages through) and
	// OneWay (exactly one), counted when sent.
	Attempted int64 `json:"exchanges_attempted"`
	Delivered int64 `json:"exchanges_delivered"`
	OneWay    int64 `json:"exchanges_oneway"`
	// NodesOnline at the last measurement.
	NodesOnline int `json:"nodes_online"`
	// MessagesInFlight, under --delay only, is the messages sent and not
	// arrived at the last measurement: counted in Delivered or OneWay,
	// they changed no node (engine.NetCounts). Absent when the run's state
	// went past its last measurement (a signal or a divergence stopped it
	// between two), as the state's count would not be that measurement's.
	MessagesInFlight *int64 `json:"messages_in_flight,omitempty"`
}

// SummaryGapMaxN bounds the runs whose summary computes the effective gap
// by an eigensolve: up to it the dense eigensolver does it at once; beyond,
// Lanczos on the sparse weighted Laplacian, whose cost grows as n/gap, can
// take longer than the run (pairgossip gap computes it beyond,
// docs/networks.md §9). A model the graph's gap scales (loss, parametric
// churn: Model.GapScale) on a graph whose gap has a closed form needs no
// eigensolve, and its summary gives the gap at any n.
const SummaryGapMaxN = graph.DenseMaxN

// scaledClosedForm reports whether the effective gap of net under m is the
// graph's closed-form gap times Model.GapScale's factor: no eigensolve, at
// any n.
func scaledClosedForm(m network.Model, net *network.Net) bool {
	f, ok := m.GapScale()
	return ok && f > 0 && graph.HasClosedForm(net.Graph(1))
}

// NewNetworkInfo describes the network of a run (nil for the paper's
// network). net is the run's network (engine.Sim.Net), for the effective
// gap; final the last measurement, for the counters.
func NewNetworkInfo(cfg config.Config, m network.Model, net *network.Net, final *engine.Record) *NetworkInfo {
	return NewNetworkInfoContext(context.Background(), cfg, m, net, final)
}

// NewNetworkInfoContext is NewNetworkInfo whose effective gap stops when
// ctx is done (gap_method then says it was interrupted).
func NewNetworkInfoContext(ctx context.Context, cfg config.Config, m network.Model, net *network.Net, final *engine.Record) *NetworkInfo {
	if m.IsPerfect() {
		return nil
	}
	ni := &NetworkInfo{Model: m.String(), Knobs: map[string]any{}, EffectiveGap: Float(math.NaN()), PerfectGap: Float(math.NaN()),
		GapRatio: Float(math.NaN()), NodesOnline: -1}
	if m.StreamP == "empirical" {
		// Another run than the stream's p_k from the graph (Model.String,
		// which names checkpoints, leaves it to the configuration).
		ni.Model += " --stream-p empirical"
	}
	for _, p := range config.Params() {
		if p.Group == "network" && p.JSON != "-" {
			ni.Knobs[p.JSON] = p.Get(&cfg)
		}
	}
	if cfg.LinkUp == 0 { // unset: every link up (a given 0 is refused)
		ni.Knobs["link_up"] = 1.0
	}
	if final != nil {
		ni.Attempted, ni.Delivered, ni.OneWay, ni.NodesOnline = final.Attempted, final.Delivered, final.OneWay, final.Online
	}
	switch {
	case net == nil:
		ni.GapMethod = "not computed: no network was built"
	case net.Graph(1).N > SummaryGapMaxN && !scaledClosedForm(m, net):
		how := "pairgossip gap with the same flags computes it"
		if m.Churn.Dist == network.DistFile || len(m.Schedule) > 0 || m.EdgeStream != "" || m.Stream != nil {
			// Over the run's horizon, as this summary would.
			how = fmt.Sprintf("pairgossip gap with the same flags and --iters %d computes it", cfg.Iters)
		}
		ni.GapMethod = fmt.Sprintf("not computed at n = %d > %d (%s)", net.Graph(1).N, SummaryGapMaxN, how)
	default:
		g, err := net.EffectiveGapContext(ctx, network.GapOptions{Horizon: int64(cfg.Iters)})
		if ctx.Err() != nil {
			ni.GapMethod = "not computed: interrupted (pairgossip gap with the same flags computes it)"
			break
		}
		if err != nil {
			ni.GapMethod = "not computed: " + err.Error()
			break
		}
		ni.EffectiveGap, ni.PerfectGap, ni.GapMethod, ni.GapResidual = Float(g.Value), Float(g.Perfect), g.Method, g.Residual
		ni.GapRatio = Float(g.Value / g.Perfect)
	}
	return ni
}

// Summarize builds the summary of a run. res may be partial; err is the
// error that stopped the run, if any.
func Summarize(r *pairgossip.Run, res *pairgossip.Result, err error) Summary {
	return SummarizeContext(context.Background(), r, res, err)
}

// SummarizeContext is Summarize whose one long part, the effective gap of
// a run under a network model (a dense eigensolve, up to seconds), stops
// when ctx is done: a Ctrl-C after the run does not wait for it.
func SummarizeContext(ctx context.Context, r *pairgossip.Run, res *pairgossip.Result, err error) Summary {
	s := NewSummary(r.Config, err)
	s.Data.Name, s.Data.N, s.Data.D, s.Data.Classes = r.Data.Name, r.Data.N, r.Data.D, r.Data.NumClasses()
	if l, err := problem.ParseLoss(r.Config.Problem); err == nil && !l.IsMetric() && len(r.Data.ClassNames) == 2 {
		if c := r.Data.PositiveClass(); c >= 0 {
			s.Data.PositiveClass = r.Data.ClassNames[c]
		}
	}
	// A schedule replaces the run's graph (built for its n alone): the
	// network section names the phases, and no graph is described.
	if g := r.Graph; g != nil && r.Config.GraphSchedule == "" {
		s.Graph = &GraphInfo{Name: g.Name, Kind: g.Kind, N: g.N, UndirectedEdges: g.UndirectedEdges(),
			MinDegree: g.MinDegree(), MaxDegree: g.MaxDegree(), Tries: g.Tries}
	}
	s.EvalNodes = len(r.Sim.EvalNodes())
	s.Execution = NewExecution(string(r.Sim.Schedule()), r.Sim.Workers())
	s.Execution.EventsSerial = r.Sim.SerialEvents()
	s.Execution.PinnedCPUs, s.Execution.PinNote = r.Sim.Pinned()
	s.Warnings = r.Warnings
	var final *engine.Record
	if res != nil && len(res.Trace) > 0 {
		final = &res.Trace[len(res.Trace)-1]
	}
	if r.Graph != nil {
		s.Network = NewNetworkInfoContext(ctx, r.Config, r.Network, r.Sim.Net(), final)
		// In flight now, beside counters of the last measurement: only
		// when the run's state is at that measurement (not a run a
		// signal or a divergence stopped after it).
		if s.Network != nil && r.Network.Delay.Dist != "" && final != nil && final.Iter == r.Sim.Iter() {
			f := r.Sim.NetCounts().InFlight
			s.Network.MessagesInFlight = &f
		}
	}
	if res == nil {
		s.SetTimes(r.Setup, 0, 0)
		return s
	}
	s.SetTrace(res.Trace)
	if res.OptimumSkipped != "" {
		s.OptimumMethod = res.OptimumSkipped
	}
	if res.Optimum != nil {
		s.OptimumObjective = Float(res.Optimum.Value)
		s.OptimumMethod = res.Optimum.Method
		s.OptimumErrorBound = res.Optimum.ErrorBound
		s.OptimumStdErr = res.Optimum.StdErr
		s.OptimumConverged = res.Optimum.Converged
		s.OptimumCached = res.OptimumCached
	}
	if r.Config.StopAt > 0 {
		s.StopAt, s.Stop, s.Reached = r.Config.StopAt, StopNotReached, &res.Reached
		if res.Reached {
			s.Stop = StopReached
		}
	}
	s.SetTimes(r.Setup, res.Wall, res.Measure)
	s.Timing.OptimumSolver = res.OptimumTime.Seconds()
	return s
}

// NewSummary begins the summary of a run of cfg that err ended (nil: it
// completed): its status (complete, failed or diverged), error and
// configuration; the optimum unknown (null) until set. Summarize, and the
// run over MPI ranks (package ranks), fill in the rest.
func NewSummary(cfg config.Config, err error) Summary {
	s := Summary{Status: "complete", Config: cfg, Seed: cfg.Seed, OptimumObjective: Float(math.NaN())}
	if err != nil {
		s.Status = "failed"
		if _, ok := err.(*engine.DivergenceError); ok {
			s.Status = "diverged"
		}
		s.Error = err.Error()
	}
	return s
}

// NewExecution describes an execution on this process: the schedule run,
// the workers, the kernels, the BLAS/LAPACK and the build's arithmetic in
// use (pinning unset).
func NewExecution(schedule string, workers int) Execution {
	return Execution{Schedule: schedule, Kernel: kernel.Active(), LAPACK: problem.LAPACK,
		BLASCore: problem.BLASCore(), Build: kernel.Build(), FusedMultiplyAdd: kernel.Fused(), Workers: workers}
}

// SetTrace sets the final values of the trace columns and how they were
// measured from the trace's last record (null values for an empty trace),
// and adds a warning where a sampled measurement missed the precision
// s.Config asked for.
func (s *Summary) SetTrace(trace []engine.Record) {
	var f engine.Record
	if len(trace) > 0 {
		f = trace[len(trace)-1]
	}
	s.Iter, s.GradEvals, s.GradEvalsNonzero = f.Iter, f.GradEvals, f.GradEvalsNonzero
	s.ObjectiveMean, s.ObjectiveStd, s.ObjectiveMin, s.ObjectiveMax = Float(f.ObjMean), Float(f.ObjStd), Float(f.ObjMin), Float(f.ObjMax)
	s.AUCMean, s.Bias, s.Consensus = Float(f.AUCMean), Float(f.Bias), Float(f.Consensus)
	s.setMeasure(f, len(trace))
	if len(trace) == 0 {
		nan := Float(math.NaN())
		s.ObjectiveMean, s.ObjectiveStd, s.ObjectiveMin, s.ObjectiveMax = nan, nan, nan, nan
		s.AUCMean, s.Bias, s.Consensus = nan, nan, nan
	}
	if w := precisionMissed(s.Config, trace); w != "" {
		s.Warnings = append(slices.Clip(s.Warnings), w)
	}
}

// SetTimes sets where the run's time went: the set-up by part, and wall,
// the iterations and the measurements together, of which measure the
// measurements.
func (s *Summary) SetTimes(setup pairgossip.SetupTimes, wall, measure time.Duration) {
	s.Timing = Timing{SetupData: setup.Data.Seconds(), SetupProblem: setup.Problem.Seconds(), SetupGraph: setup.Graph.Seconds(),
		SetupEngine: setup.Engine.Seconds(), Setup: setup.Total().Seconds(),
		Iterations: (wall - measure).Seconds(), Measurement: measure.Seconds()}
	s.WallSeconds = wall.Seconds()
}

// precisionMissed says, when a sampled measurement of the trace ended with
// a relative standard error above the precision asked for (the sample
// stops at its pair limit or time budget), by how much and where; "" when
// every one reached it. The plan sizes the sample from a pilot's estimate
// of the variance, so a quarter over the target is still counted as
// reached.
func precisionMissed(c config.Config, trace []engine.Record) string {
	want := c.MeasurePrecision
	if !(want > 0) {
		want = problem.DefaultPrecision
	}
	worst, at, missed := 0.0, -1, 0
	for i, rec := range trace {
		if rec.Measure.Obj != problem.MethodSampled || rec.ObjMean == 0 {
			continue
		}
		rel := rec.ObjStdErr / math.Abs(rec.ObjMean)
		if rel > 1.25*want {
			missed++
			if rel > worst || at < 0 {
				worst, at = rel, i
			}
		}
	}
	if missed == 0 {
		return ""
	}
	rec := trace[at]
	return fmt.Sprintf("the sampled objective did not reach the relative standard error asked for (%.3g, --measure-precision) at %d of %d measurements: at iteration %d it is %.3g with %d pairs, the sample's limit; use --measure exact for exact values",
		want, missed, len(trace), rec.Iter, worst, rec.MeasurePairs)
}

// setMeasure sets the measurement fields from the final record f of a trace
// of traceLen records (none: null errors, no mode).
func (s *Summary) setMeasure(f engine.Record, traceLen int) {
	if traceLen == 0 {
		s.ObjectiveStdErr, s.AUCStdErr, s.BiasStdErr = Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
		s.MeasurePairs = 0
		s.MeasureMode, s.MeasureModeAUC, s.MeasureModeBias = "", "", ""
		return
	}
	s.ObjectiveStdErr, s.AUCStdErr, s.BiasStdErr = Float(f.ObjStdErr), Float(aucStdErr(f)), Float(f.BiasStdErr)
	s.MeasurePairs = f.MeasurePairs
	s.MeasureMode, s.MeasureModeAUC, s.MeasureModeBias = measureModes(f)
}

// JSON renders v indented, with a final newline.
func JSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// ReadTraceCSV parses a trace.csv (TraceCSV's format, or an earlier one
// without some of the later columns: their values are then zero, NaN for
// the floats) by its header's column names. An empty field is NaN, as
// TraceCSV writes it. A trace without the network columns (the paper's
// network) reads with zero counters and Online −1, as the engine records it. The suboptimality columns are not returned: they
// follow from objective_mean and the optimum in summary.json.
func ReadTraceCSV(r io.Reader) ([]engine.Record, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("empty file (no header)")
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"iter", "objective_mean"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("no column %q in the header (not a trace.csv of pairgossip run)", need)
		}
	}
	var out []engine.Record
	for li, row := range rows[1:] {
		var perr error
		f := func(name string) float64 {
			i, ok := col[name]
			if !ok || i >= len(row) || row[i] == "" {
				return math.NaN()
			}
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("line %d, column %s: %q is not a number", li+2, name, row[i])
			}
			return v
		}
		n := func(name string) int64 {
			i, ok := col[name]
			if !ok || i >= len(row) || row[i] == "" {
				return 0
			}
			v, err := strconv.ParseInt(row[i], 10, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("line %d, column %s: %q is not an integer", li+2, name, row[i])
			}
			return v
		}
		rec := engine.Record{Iter: n("iter"), GradEvals: n("grad_evals"), GradEvalsNonzero: n("grad_evals_nonzero"),
			ObjMean: f("objective_mean"), ObjStd: f("objective_std"), ObjMin: f("objective_min"), ObjMax: f("objective_max"),
			AUCMean: f("auc_mean"), Bias: f("bias"), Consensus: f("consensus"), ObjStdErr: f("objective_stderr"),
			AUCStdErr: f("auc_stderr"), BiasStdErr: f("bias_stderr"), MeasurePairs: n("measure_pairs"),
			Attempted: n("exchanges_attempted"), Delivered: n("exchanges_delivered"), OneWay: n("exchanges_oneway"), Online: -1}
		if _, ok := col["nodes_online"]; ok {
			rec.Online = int(n("nodes_online"))
		}
		if perr != nil {
			return nil, perr
		}
		out = append(out, rec)
	}
	return out, nil
}
