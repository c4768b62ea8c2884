package output

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/network"
)

// TestTraceNetworkColumns: the network columns come last and only when
// asked for (a run with a model); without, the bytes are TraceCSVOptimum's;
// ReadTraceCSV reads them back, and a trace without them as Online −1.
func TestTraceNetworkColumns(t *testing.T) {
	tr := []engine.Record{
		{Iter: 1, ObjMean: 0.5, AUCMean: 0.7, Attempted: 1, Delivered: 1, Online: 10},
		{Iter: 9, ObjMean: 0.25, AUCMean: 0.8, Attempted: 7, Delivered: 4, OneWay: 2, Online: 8},
	}
	plain := TraceCSVOptimum(tr, 0.1)
	if !bytes.Equal(plain, TraceCSVNetwork(tr, 0.1, false)) || bytes.Contains(plain, []byte("exchanges")) {
		t.Fatal("without a model the trace changed")
	}
	withNet := TraceCSVNetwork(tr, 0.1, true)
	lines := strings.Split(strings.TrimSpace(string(withNet)), "\n")
	if lines[0] != strings.Join(TraceHeaderNetwork(), ",") || !strings.HasSuffix(lines[2], ",7,4,2,8") {
		t.Fatalf("got %q", withNet)
	}
	if !strings.HasPrefix(string(withNet), strings.TrimSuffix(strings.SplitN(string(plain), "\n", 2)[0], "\n")) {
		t.Fatal("the network columns are not last")
	}
	back, err := ReadTraceCSV(bytes.NewReader(withNet))
	if err != nil {
		t.Fatal(err)
	}
	if back[1].Attempted != 7 || back[1].Delivered != 4 || back[1].OneWay != 2 || back[1].Online != 8 {
		t.Errorf("read back %+v", back[1])
	}
	back, _ = ReadTraceCSV(bytes.NewReader(plain))
	if back[1].Online != -1 || back[1].Attempted != 0 {
		t.Errorf("a trace without the columns reads %+v", back[1])
	}
}

// TestNewNetworkInfo: nil for the paper's network; with a model, the model,
// every knob, the effective gap beside the perfect one (loss q: 1 − q
// times), and the counters of the last record.
func TestNewNetworkInfo(t *testing.T) {
	cfg := config.Base()
	if NewNetworkInfo(cfg, network.Model{}, nil, nil) != nil {
		t.Fatal("the paper's network has a network object")
	}
	cfg.Loss = 0.25
	m, _ := cfg.NetworkModel(30)
	g, err := graph.Build(graph.Spec{Kind: "cycle", N: 30})
	if err != nil {
		t.Fatal(err)
	}
	nt, err := network.New(m, g, 1)
	if err != nil {
		t.Fatal(err)
	}
	ni := NewNetworkInfo(cfg, m, nt, &engine.Record{Attempted: 5, Delivered: 3, Online: 30})
	if ni.Model != "--loss 0.25" || ni.Knobs["loss"] != 0.25 || ni.Knobs["churn"] != "" || len(ni.Knobs) != 9 {
		t.Errorf("%+v", ni)
	}
	if math.Abs(float64(ni.EffectiveGap)/float64(ni.PerfectGap)-0.75) > 1e-9 || ni.GapMethod != "closed-form × (1 − q)" || ni.Attempted != 5 || ni.Delivered != 3 || ni.NodesOnline != 30 {
		t.Errorf("%+v", ni)
	}
	j := string(JSON(ni))
	for _, k := range []string{`"effective_gap"`, `"perfect_gap"`, `"gap_method": "closed-form × (1 − q)"`, `"exchanges_attempted": 5`, `"nodes_online": 30`} {
		if !strings.Contains(j, k) {
			t.Errorf("JSON lacks %s: %s", k, j)
		}
	}
	// A signal after the run stops the gap (a dense eigensolve that does
	// not look at it ran on, and the command ended "complete", exit 0):
	// the summary says it was interrupted.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ni = NewNetworkInfoContext(ctx, cfg, m, nt, nil)
	if !strings.Contains(ni.GapMethod, "interrupted") || !math.IsNaN(float64(ni.EffectiveGap)) {
		t.Errorf("cancelled: %+v", ni)
	}
}
