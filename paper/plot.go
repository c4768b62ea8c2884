package paper

import (
	"image/color"

	"github.com/pairgossip/pairgossip/internal/figure"
)

// The figures are drawn by package internal/figure, the one style of the
// project's figures (shared with pairgossip plot and sweep report).
type (
	figSpec = figure.Spec
	curve   = figure.Curve
	hline   = figure.HLine
	marker  = figure.Marker
)

func render(spec figSpec) (pngData, svgData []byte, err error) { return figure.Render(spec) }

func fmtTick(v float64) string { return figure.FmtTick(v) }

var (
	colBlue   = figure.Blue
	colOrange = figure.Orange
	colGreen  = figure.Green
	colPurple = figure.Purple
	colSky    = figure.Sky
	colYellow = figure.Yellow
	colGrey   = figure.Grey
)

var graphColors = map[string]color.NRGBA{"complete": colBlue, "ws": colOrange, "cycle": colGreen}
