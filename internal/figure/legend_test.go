package figure

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// TestFitLabel: a legend label wider than the strip allows is cut with "…"
// to fit (the strip took the whole width and the plot none); one that
// fits is left as it is.
func TestFitLabel(t *testing.T) {
	l := plot.NewLegend()
	l.TextStyle.Font = style(sizeLegend)
	short := "loss=0.1"
	if got := fitLabel(l.TextStyle, short, vg.Points(200)); got != short {
		t.Errorf("a label that fits: %q", got)
	}
	long := strings.Repeat("graph_schedule=100:watts-strogatz:k=4,p=0.2;100:cycle, ", 4)
	max := vg.Points(200)
	got := fitLabel(l.TextStyle, long, max)
	if !strings.HasSuffix(got, "…") || l.TextStyle.Rectangle(got).Size().X > max || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("a long label cut to %q (%v wide, at most %v)", got, l.TextStyle.Rectangle(got).Size().X, max)
	}
}
