package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Matrix is a table of values with labelled rows and columns, such as a
// GPU x GPU peer-to-peer bandwidth matrix.
type Matrix struct {
	// Rows and Cols label the rows (top to bottom) and columns (left to
	// right): "GPU0", "GPU1", ...
	Rows, Cols []string
	// Values[r][c] is the value of row r, column c. NaN marks a cell with
	// no value (the diagonal of a P2P matrix, a pair without peer access)
	// and is drawn as N/A.
	Values [][]float64
	// Unit is written on the colour bar, e.g. "GB/s".
	Unit string
	// RowTitle and ColTitle name the axes, e.g. "Source GPU" and
	// "Destination GPU".
	RowTitle, ColTitle string
	// ScaleFromMin starts the colour scale at the smallest value instead
	// of zero, to tell close values apart (the printed values stay exact).
	ScaleFromMin bool
}

// check reports why a matrix cannot be drawn.
func (m Matrix) check() error {
	if len(m.Rows) == 0 || len(m.Cols) == 0 {
		return fmt.Errorf("%w: matrix has %d rows and %d columns: want at least one of each", ErrInput, len(m.Rows), len(m.Cols))
	}
	if len(m.Values) != len(m.Rows) {
		return fmt.Errorf("%w: matrix has %d row labels but %d rows of values", ErrInput, len(m.Rows), len(m.Values))
	}
	for r, row := range m.Values {
		if len(row) != len(m.Cols) {
			return fmt.Errorf("%w: matrix row %d (%s) has %d values but %d column labels", ErrInput, r, m.Rows[r], len(row), len(m.Cols))
		}
		for c, v := range row {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: matrix cell %s,%s is %v", ErrInput, m.Rows[r], m.Cols[c], v)
			}
		}
	}
	return nil
}

// Colour ramp of the heatmap cells: ColorBrewer's sequential "Blues"
// (Cynthia Brewer, colorbrewer2.org), dark for high values, in order of
// rising lightness as moreland.NewLuminance wants it.
var bluesDarkToLight = []color.Color{
	color.NRGBA{R: 0x08, G: 0x30, B: 0x6b, A: 0xff},
	color.NRGBA{R: 0x21, G: 0x71, B: 0xb5, A: 0xff},
	color.NRGBA{R: 0x6b, G: 0xae, B: 0xd6, A: 0xff},
	color.NRGBA{R: 0xc6, G: 0xdb, B: 0xef, A: 0xff},
	color.NRGBA{R: 0xf7, G: 0xfb, B: 0xff, A: 0xff},
}

var naColor = color.NRGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}

// Heatmap draws a matrix as coloured cells with each value written in its
// cell, and a colour bar in the matrix's unit beside it. The colour scale
// starts at zero for non-negative values, so that a cell half as dark as
// another carries about half its bandwidth, unless m.ScaleFromMin.
func Heatmap(title string, m Matrix) (*Chart, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	lo, hi, na := math.Inf(1), math.Inf(-1), 0
	for _, row := range m.Values {
		for _, v := range row {
			if math.IsNaN(v) {
				na++
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	x := Axis{Label: m.ColTitle}
	y := Axis{Label: m.RowTitle}
	c := newChart("Heatmap", title, x, y, false)
	c.xFit, c.yFit = fitFixed, fitFixed

	ramp, err := moreland.NewLuminance(bluesDarkToLight)
	if err != nil {
		return nil, fmt.Errorf("chart: heatmap colours: %w", err)
	}
	cmap := palette.Reverse(ramp)
	valued := hi >= lo
	if valued {
		min, max := lo, hi
		if min >= 0 && !m.ScaleFromMin {
			min = 0
		}
		if max <= min {
			max = min + 1
		}
		cmap.SetMin(min)
		cmap.SetMax(max)
	}
	c.plot.Add(&cells{m: m, cmap: cmap})
	c.plot.X.Min, c.plot.X.Max = -0.5, float64(len(m.Cols))-0.5
	c.plot.Y.Min, c.plot.Y.Max = -0.5, float64(len(m.Rows))-0.5
	c.plot.X.Tick.Marker = labelTicks(m.Cols, false)
	c.plot.Y.Tick.Marker = labelTicks(m.Rows, true)
	c.plot.X.Tick.Length, c.plot.Y.Tick.Length = 0, 0
	c.plot.X.Padding, c.plot.Y.Padding = 0, 0

	if valued {
		bar := plot.New()
		bar.BackgroundColor = nil
		bar.HideX()
		styleAxis(&bar.Y, Axis{Label: m.Unit}, draw.XRight, draw.YCenter)
		bar.Y.Label.Text = m.Unit
		bar.Y.Padding = 0
		bar.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			return niceTicks(min, max, 5, formatNumber)
		})
		bar.Add(&colorRamp{cmap: cmap})
		c.colorBar = bar
	}

	c.lines = append(c.lines, fmt.Sprintf("%d x %d cells", len(m.Rows), len(m.Cols)))
	if valued {
		c.lines = append(c.lines, fmt.Sprintf("values %s .. %s %s", formatNumber(lo), formatNumber(hi), m.Unit))
	}
	if na > 0 {
		c.lines = append(c.lines, fmt.Sprintf("%d N/A %s", na, plural(na, "cell")))
	}
	return c, nil
}

// labelTicks puts one label on each cell; rows count down from the top.
func labelTicks(labels []string, fromTop bool) plot.Ticker {
	ticks := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		v := float64(i)
		if fromTop {
			v = float64(len(labels) - 1 - i)
		}
		ticks[i] = plot.Tick{Value: v, Label: l}
	}
	return ticks
}

// cells draws the matrix: a filled square per cell and its value on top in
// black or white, whichever reads on the fill.
type cells struct {
	m    Matrix
	cmap palette.ColorMap
}

func (h *cells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(h.m.Rows)
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YCenter)
	gap := vg.Points(1)
	for r, row := range h.m.Values {
		yc := float64(n - 1 - r)
		for col, v := range row {
			xc := float64(col)
			rect := vg.Rectangle{
				Min: vg.Point{X: trX(xc-0.5) + gap, Y: trY(yc-0.5) + gap},
				Max: vg.Point{X: trX(xc+0.5) - gap, Y: trY(yc+0.5) - gap},
			}
			fill, label := color.Color(naColor), "N/A"
			if !math.IsNaN(v) {
				if cl, err := h.cmap.At(v); err == nil {
					fill = cl
				}
				label = formatCell(v)
			}
			c.SetColor(fill)
			c.Fill(rect.Path())
			sty.Color = textColor
			if luminance(fill) < 0.45 {
				sty.Color = color.White
			} else if math.IsNaN(v) {
				sty.Color = noteColor
			}
			c.FillText(sty, vg.Point{X: (rect.Min.X + rect.Max.X) / 2, Y: (rect.Min.Y + rect.Max.Y) / 2}, label)
		}
	}
}

// formatCell prints a cell with the digits a bandwidth table shows: 338,
// 26.3, 0.42.
func formatCell(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// luminance is the relative luminance of c (0 black, 1 white), from its
// sRGB components as WCAG 2 defines it.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// colorRamp draws a colour map as a vertical bar of filled bands.
// plotter.ColorBar draws a one-pixel-wide raster that SVG viewers keep at
// its aspect ratio, a hairline; bands stay vector shapes in every format.
type colorRamp struct{ cmap palette.ColorMap }

func (r *colorRamp) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, r.cmap.Min(), r.cmap.Max()
}

func (r *colorRamp) Plot(c draw.Canvas, p *plot.Plot) {
	const bands = 64
	_, trY := p.Transforms(&c)
	lo, hi := r.cmap.Min(), r.cmap.Max()
	step := (hi - lo) / bands
	for i := range bands {
		v0, v1 := lo+float64(i)*step, lo+float64(i+1)*step
		col, err := r.cmap.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		c.SetColor(col)
		// Overlap by half a point so that no seams show between bands.
		rect := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: trY(v0)}, Max: vg.Point{X: c.Max.X, Y: trY(v1) + vg.Points(0.5)}}
		c.Fill(rect.Path())
	}
}

var (
	_ plot.Plotter    = (*cells)(nil)
	_ plot.Plotter    = (*colorRamp)(nil)
	_ plot.DataRanger = (*colorRamp)(nil)
)
