// Package figure draws the project's figures with gonum/plot, in one style
// (the reproduce report's): Okabe–Ito colours, Liberation Sans, an 8 × 4.8
// in canvas at 120 dpi, log axes labelled 1, 2, 5 × 10^k, ±bands as
// translucent polygons, reference lines (the optimum) dotted, the legend
// in a strip right of the plot so that it never covers data; PNG and SVG
// from the same drawing. reproduce (package paper), pairgossip plot and
// sweep report draw through it.
package figure

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure geometry and fonts (points). At 120 dpi an 8 × 4.8 in figure is
// 960 × 576 pixels; tick labels are 12 pt.
const (
	figW, figH             = 8 * vg.Inch, 4.8 * vg.Inch
	figDPI                 = 120
	sizeTitle, sizeLabel   = 14, 13.5
	sizeTick, sizeLegend   = 12, 12
	lineWidth, bandOpacity = 2.2, 46 // of 255
)

var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Okabe–Ito colours, distinguishable with the common colour-vision deficiencies.
var (
	Blue   = color.NRGBA{0, 114, 178, 255}
	Orange = color.NRGBA{213, 94, 0, 255}
	Green  = color.NRGBA{0, 158, 115, 255}
	Purple = color.NRGBA{204, 121, 167, 255}
	Sky    = color.NRGBA{86, 180, 233, 255}
	Yellow = color.NRGBA{230, 159, 0, 255}
	Grey   = color.NRGBA{90, 90, 90, 255}
)

// Palette is the colours in the order curves take them.
var Palette = []color.NRGBA{Blue, Orange, Green, Purple, Sky, Yellow, Grey}

// Curve is one line of a figure, with an optional band [Lo, Hi].
type Curve struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
	Color  color.NRGBA
	Dashed bool
}

// HLine is a horizontal reference line (the optimum, a threshold, zero).
type HLine struct {
	Y     float64
	Label string
	Color color.NRGBA
	Long  bool // long dashes (a threshold) instead of dots
}

// Marker is a labelled point (a threshold crossing).
type Marker struct {
	X, Y  float64
	Label string
	Color color.NRGBA
}

// Spec describes one figure.
type Spec struct {
	Name           string // file stem
	Title          string
	XLabel, YLabel string
	LogX, LogY     bool
	Curves         []Curve
	HLines         []HLine
	Markers        []Marker
}

// Render draws the figure as PNG and SVG.
func Render(spec Spec) (pngData, svgData []byte, err error) {
	defer func() {
		// gonum/plot panics on invalid ranges (a log axis with no positive
		// value); turn that into an error naming the figure.
		if r := recover(); r != nil {
			err = fmt.Errorf("figure %s: %v", spec.Name, r)
		}
	}()
	ic := vgimg.NewWith(vgimg.UseWH(figW, figH), vgimg.UseDPI(figDPI))
	if err := drawFigure(draw.New(ic), spec); err != nil {
		return nil, nil, err
	}
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	sc := vgsvg.New(figW, figH)
	if err := drawFigure(draw.New(sc), spec); err != nil {
		return nil, nil, err
	}
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	return pb.Bytes(), sb.Bytes(), nil
}

func style(size float64) font.Font {
	return font.Font{Typeface: sansFont.Typeface, Variant: sansFont.Variant, Size: vg.Points(size)}
}

// drawFigure draws the plot on the left and its legend in a strip on the
// right, so that the legend never covers data.
func drawFigure(c draw.Canvas, spec Spec) error {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = spec.XLabel, spec.YLabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = style(sizeLabel)
		ax.Tick.Label.Font = style(sizeTick)
		ax.Label.Padding = vg.Points(4)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)

	// Ranges: computed here so that log axes get positive limits and bands
	// are clipped to them.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	see := func(x, y float64) {
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(y, 0) || (spec.LogX && x <= 0) || (spec.LogY && y <= 0) {
			return
		}
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	for _, cv := range spec.Curves {
		for i := range cv.X {
			see(cv.X[i], cv.Y[i])
			if cv.Lo != nil {
				see(cv.X[i], cv.Lo[i])
				see(cv.X[i], cv.Hi[i])
			}
		}
	}
	for _, h := range spec.HLines {
		if !(spec.LogY && h.Y <= 0) && !math.IsNaN(h.Y) {
			ymin, ymax = math.Min(ymin, h.Y), math.Max(ymax, h.Y)
		}
	}
	if math.IsInf(xmin, 0) || math.IsInf(ymin, 0) {
		return fmt.Errorf("figure %s: no data to plot", spec.Name)
	}
	// Log axes are drawn as linear axes over log10 of the data with
	// logarithmic tick labels: gonum's LogScale places a centred axis
	// label's glyph box at the arithmetic midpoint of the range, which
	// squeezes the data area.
	tx := func(x float64) float64 {
		if spec.LogX {
			return math.Log10(x)
		}
		return x
	}
	ty := func(y float64) float64 {
		if spec.LogY {
			return math.Log10(y)
		}
		return y
	}
	if spec.LogY {
		ymin, ymax = ymin/1.25, ymax*1.25
	} else {
		pad := 0.05 * (ymax - ymin)
		if pad == 0 {
			pad = math.Max(1e-3, math.Abs(ymax)*0.1)
		}
		ymin, ymax = ymin-pad, ymax+pad
	}

	var leg []legendEntry
	for _, cv := range spec.Curves {
		xs, ys := cv.X, cv.Y
		if cv.Lo != nil {
			var up, lo plotter.XYs
			for i := range xs {
				if spec.LogX && xs[i] <= 0 {
					continue
				}
				l, h := cv.Lo[i], cv.Hi[i]
				if math.IsNaN(l) || math.IsNaN(h) || (spec.LogY && h <= 0) {
					continue // no band where it lies wholly off a log axis
				}
				up = append(up, plotter.XY{X: tx(xs[i]), Y: ty(math.Min(h, ymax))})
				lo = append(lo, plotter.XY{X: tx(xs[i]), Y: ty(math.Max(l, ymin))})
			}
			if len(up) > 1 {
				ring := append(plotter.XYs{}, up...)
				for i := len(lo) - 1; i >= 0; i-- {
					ring = append(ring, lo[i])
				}
				poly, err := plotter.NewPolygon(ring)
				if err != nil {
					return err
				}
				bc := cv.Color
				bc.A = bandOpacity
				poly.Color = bc
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
		}
		var pts plotter.XYs
		for i := range xs {
			if (spec.LogX && xs[i] <= 0) || (spec.LogY && ys[i] <= 0) || math.IsNaN(ys[i]) {
				continue
			}
			pts = append(pts, plotter.XY{X: tx(xs[i]), Y: ty(ys[i])})
		}
		if len(pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		ln.Color = cv.Color
		ln.Width = vg.Points(lineWidth)
		if cv.Dashed {
			ln.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
		}
		p.Add(ln)
		leg = append(leg, legendEntry{cv.Label, ln, cv.Lo != nil, cv.Color})
	}
	for _, h := range spec.HLines {
		if math.IsNaN(h.Y) || (spec.LogY && h.Y <= 0) {
			continue
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: tx(xmin), Y: ty(h.Y)}, {X: tx(xmax), Y: ty(h.Y)}})
		if err != nil {
			return err
		}
		ln.Color = h.Color
		ln.Width = vg.Points(1.4)
		ln.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
		if h.Long {
			ln.Width = vg.Points(1.6)
			ln.Dashes = []vg.Length{vg.Points(10), vg.Points(4), vg.Points(2), vg.Points(4)}
		}
		p.Add(ln)
		if h.Label != "" {
			leg = append(leg, legendEntry{h.Label, ln, false, h.Color})
		}
	}
	for _, m := range spec.Markers {
		if math.IsNaN(m.X) || math.IsNaN(m.Y) {
			continue
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: tx(m.X), Y: ty(m.Y)}})
		if err != nil {
			return err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(5)
		sc.GlyphStyle.Color = m.Color
		p.Add(sc)
		if m.Label != "" {
			leg = append(leg, legendEntry{m.Label, sc, false, m.Color})
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = tx(xmin), tx(xmax), ty(ymin), ty(ymax)
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	if spec.LogX {
		p.X.Tick.Marker = log10Ticks{}
	}
	if spec.LogY {
		p.Y.Tick.Marker = log10Ticks{}
	}

	// Legend strip on the right.
	l := plot.NewLegend()
	l.TextStyle.Font = style(sizeLegend)
	l.Left, l.Top = true, true
	l.ThumbnailWidth = vg.Points(28)
	l.Padding = vg.Points(5)
	// The strip takes at most 40% of the width: a longer label is cut with
	// "…", so that the plot keeps its area.
	maxLabel := c.Size().X*0.4 - l.ThumbnailWidth - 2*l.Padding - vg.Points(18)
	for i := range leg {
		leg[i].label = fitLabel(l.TextStyle, leg[i].label, maxLabel)
	}
	for _, e := range leg {
		if e.band {
			bc := e.color
			bc.A = bandOpacity
			l.Add(e.label, bandThumb{bc}, e.thumb)
		} else {
			l.Add(e.label, e.thumb)
		}
	}
	var stripW vg.Length
	if len(leg) > 0 {
		stripW = l.Rectangle(c).Size().X + vg.Points(18)
	}
	// The title is centred on the whole figure, above plot and legend.
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	ts := p.Title.TextStyle
	ts.Font = style(sizeTitle)
	titleH := ts.Rectangle(spec.Title).Size().Y + vg.Points(10)
	c.FillText(ts, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(4)}, spec.Title)
	p.Draw(draw.Crop(c, vg.Points(4), -stripW, vg.Points(2), -titleH))
	if len(leg) > 0 {
		l.Draw(draw.Crop(c, c.Size().X-stripW+vg.Points(10), 0, 0, -titleH-vg.Points(16)))
	}
	return nil
}

// fitLabel returns s, or its longest prefix with "…" whose width under ts
// is at most max.
func fitLabel(ts text.Style, s string, max vg.Length) string {
	if max <= 0 || ts.Rectangle(s).Size().X <= max {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix that fits is r[:lo]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ts.Rectangle(string(r[:mid])+"…").Size().X <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.TrimRight(string(r[:lo]), " ,") + "…"
}

type legendEntry struct {
	label string
	thumb plot.Thumbnailer
	band  bool
	color color.NRGBA
}

// bandThumb draws a band's colour behind a line's legend thumbnail.
type bandThumb struct{ c color.NRGBA }

func (b bandThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Size().Y
	pts := []vg.Point{{X: r.Min.X, Y: r.Min.Y + h*0.15}, {X: r.Max.X, Y: r.Min.Y + h*0.15}, {X: r.Max.X, Y: r.Max.Y - h*0.15}, {X: r.Min.X, Y: r.Max.Y - h*0.15}}
	c.FillPolygon(b.c, pts)
}

// logTicks labels 1, 2, 5 × 10^k (or only 10^k over wide ranges) with
// unlabelled minor ticks at the other integers.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return nil
	}
	decades := math.Log10(hi / lo)
	labelled := map[int]bool{1: true}
	switch {
	case decades <= 1.2:
		labelled = map[int]bool{1: true, 2: true, 3: true, 5: true}
	case decades <= 2.5:
		labelled = map[int]bool{1: true, 2: true, 5: true}
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		base := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] && (decades <= 8 || e%2 == 0) {
				t.Label = FmtTick(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// log10Ticks are logTicks for an axis that holds log10 of the data.
type log10Ticks struct{}

func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	ts := logTicks{}.Ticks(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// plainTicks are gonum's default ticks with compact labels.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = FmtTick(ts[i].Value)
		}
	}
	return ts
}

var superscript = strings.NewReplacer("0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴", "5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹", "-", "⁻")

// FmtTick writes 10⁴, 2×10⁵ for large and tiny magnitudes and plain
// decimals in between.
func FmtTick(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e4 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if len(s) > 7 {
			s = strconv.FormatFloat(v, 'g', 3, 64)
		}
		return s
	}
	e := int(math.Floor(math.Log10(a)))
	m := v / math.Pow(10, float64(e))
	m = math.Round(m*100) / 100
	exp := "10" + superscript.Replace(strconv.Itoa(e))
	if m == 1 {
		return exp
	}
	if m == -1 {
		return "−" + exp
	}
	return strconv.FormatFloat(m, 'g', 3, 64) + "×" + exp
}

// PageCSS is the style sheet of the project's HTML pages (the reproduce
// report, pairgossip plot's page, sweep report's summary).
const PageCSS = `body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2.2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.55em; text-align: right; vertical-align: top; }
th { background: #f3f3f3; }
td.l, th.l { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
.agrees { color: #1a7f37; font-weight: 600; }
.partly { color: #9a6700; font-weight: 600; }
.disagrees { color: #cf222e; font-weight: 600; }
.inconclusive { color: #57606a; font-weight: 600; }
.note { font-size: 0.9em; color: #555; }
p.lab { margin: 0.4em 0; }
code { background: #f6f8fa; padding: 0 0.2em; }
`

// Write renders spec (Render) and writes dir/NAME.png and dir/NAME.svg,
// each atomically (a temporary file and a rename), returning their paths
// and the PNG's bytes (for a page that embeds it).
func Write(dir string, spec Spec) (pngPath, svgPath string, pngData []byte, err error) {
	p, s, err := Render(spec)
	if err != nil {
		return "", "", nil, err
	}
	pngPath, svgPath = filepath.Join(dir, spec.Name+".png"), filepath.Join(dir, spec.Name+".svg")
	if err := atomicfile.WriteBytes(pngPath, p); err != nil {
		return "", "", nil, err
	}
	if err := atomicfile.WriteBytes(svgPath, s); err != nil {
		return "", "", nil, err
	}
	return pngPath, svgPath, p, nil
}

// DataURI is a PNG as a data: URI, for a self-contained page.
func DataURI(png []byte) string {
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}
