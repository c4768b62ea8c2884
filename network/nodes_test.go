package network

import (
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
)

// TestNewNodesMatchesNew: NewNodes decides loss and churn as New does for
// the same seed, and refuses the models that need the graph, naming the
// flag.
func TestNewNodesMatchesNew(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 30})
	for _, m := range []Model{
		{Loss: 0.3},
		{Loss: 0.4, LossOneWay: true},
		{Loss: 0.2, Churn: Churn{Dist: DistGeometric, Up: 20, Down: 7}},
		{Churn: Churn{Dist: DistExponential, Up: 9, Down: 3}},
	} {
		a, b := mustNet(t, m, g, 5), (*Net)(nil)
		var err error
		if b, err = NewNodes(m, 30, 5); err != nil {
			t.Fatal(err)
		}
		if b.Churn() != a.Churn() {
			t.Fatalf("%s: churn %v vs %v", m, b.Churn(), a.Churn())
		}
		for tt := int64(1); tt < 400; tt++ {
			i, j := int(tt%30), int((tt*7+3)%30)
			ai, aj := a.Delivered(tt, i, j)
			bi, bj := b.Delivered(tt, i, j)
			if ai != bi || aj != bj || a.Online(i, tt) != b.Online(i, tt) {
				t.Fatalf("%s: iteration %d differs", m, tt)
			}
		}
		if a.OnlineCount(399) != b.OnlineCount(399) {
			t.Fatalf("%s: online counts differ", m)
		}
	}
	for flag, m := range map[string]Model{
		"--graph-schedule": {Schedule: []Phase{{Graph: g, Length: 5}}},
		"--link-up":        {Schedule: []Phase{{Graph: g, Length: 5}}, LinkUp: 0.5},
		"--edge-stream":    {Stream: &Stream{Name: "s", T: []int64{1}, I: []int32{0}, J: []int32{1}}},
		"--activation":     {Activation: Activation{Kind: ActClocks}},
		"--delay":          {Delay: Delay{Dist: DelayConstant, C: 2}},
	} {
		if _, err := NewNodes(m, 30, 5); err == nil || !strings.HasPrefix(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
}
