package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one curve or set of points: X[i], Y[i] in the units of the
// chart's axes (bytes, seconds, GB/s).
type Series struct {
	// Name is the legend entry; an empty name leaves the series out of the
	// legend.
	Name string
	X, Y []float64
	// Dashed draws the line dashed: the house style for a model or a
	// theoretical curve.
	Dashed bool
	// Points draws a marker at every point and no line, unless Dashed
	// asks for a dashed line between them: the style for measurements.
	Points bool
	// Color is "#rrggbb"; empty takes the next colour of the palette. Give
	// a model and its measurement the same colour to pair them.
	Color string
}

// check reports why a series cannot be drawn on the axes x and y.
func (s Series) check(x, y Axis) error {
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("%w: series %q has %d x values but %d y values", ErrInput, name, len(s.X), len(s.Y))
	}
	if len(s.X) == 0 {
		return fmt.Errorf("%w: series %q has no points", ErrInput, name)
	}
	for i := range s.X {
		if err := checkValue(name, "x", i, s.X[i], x); err != nil {
			return err
		}
		if err := checkValue(name, "y", i, s.Y[i], y); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(series, coord string, i int, v float64, a Axis) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: series %q point %d: %s = %v", ErrInput, series, i, coord, v)
	}
	if a.Log && v <= 0 {
		return fmt.Errorf("%w: series %q point %d: %s = %v on a log axis (%s): values must be > 0",
			ErrInput, series, i, coord, v, a.title())
	}
	return nil
}

// addSeries checks and draws one series.
func (c *Chart) addSeries(s Series) error {
	if err := s.check(c.x, c.y); err != nil {
		return err
	}
	col, err := c.nextColor(s.Color)
	if err != nil {
		return err
	}
	xys := make(plotter.XYs, len(s.X))
	for i := range s.X {
		xys[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
		c.xr.add(s.X[i])
		c.yr.add(s.Y[i])
	}
	if len(s.X) == 1 {
		s.Points = true // a line through one point would draw nothing
	}
	var thumbs []plot.Thumbnailer
	style := "line"
	if !s.Points || s.Dashed {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("%w: series %q: %v", ErrInput, s.Name, err)
		}
		l.Color = col
		l.Width = lineWidth
		if s.Dashed {
			l.Dashes = dashes
			style = "dashed line"
		}
		c.plot.Add(l)
		thumbs = append(thumbs, l)
	}
	if s.Points {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("%w: series %q: %v", ErrInput, s.Name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: markerRadius, Shape: draw.CircleGlyph{}}
		c.plot.Add(sc)
		thumbs = append(thumbs, sc)
		if s.Dashed {
			style = "points, dashed"
		} else {
			style = "points"
		}
	}
	if s.Name != "" {
		c.plot.Legend.Add(s.Name, thumbs...)
		c.legend = append(c.legend, s.Name)
	}
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	c.lines = append(c.lines, fmt.Sprintf("%s: %d %s, %s", name, len(s.X), plural(len(s.X), "point"), style))
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Lines draws series as lines (or points, as each Series says) on the axes
// x and y: the builder for any figure the others do not cover.
func Lines(title string, x, y Axis, series ...Series) (*Chart, error) {
	return lines("Lines", title, x, y, series)
}

// Scatter draws every series as points, whatever its Points field says.
func Scatter(title string, x, y Axis, series ...Series) (*Chart, error) {
	pts := make([]Series, len(series))
	for i, s := range series {
		s.Points = true
		pts[i] = s
	}
	return lines("Scatter", title, x, y, pts)
}

func lines(kind, title string, x, y Axis, series []Series) (*Chart, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: %s %q: no series", ErrInput, kind, title)
	}
	c := newChart(kind, title, x, y, true)
	for _, s := range series {
		if err := c.addSeries(s); err != nil {
			return nil, err
		}
	}
	c.legendTopLeft(0)
	return c, nil
}

// AddHLine draws a labelled horizontal reference line at y, such as a
// link's peak bandwidth, and widens the y axis to show it.
func (c *Chart) AddHLine(y float64, label string) error {
	if err := checkValue("reference "+label, "y", 0, y, c.y); err != nil {
		return err
	}
	c.plot.Add(&refLine{horizontal: true, at: y, label: label})
	c.notes = append(c.notes, fmt.Sprintf("reference y = %s: %s", formatWithUnit(y, c.y.Unit), label))
	return nil
}

// AddVLine draws a labelled vertical marker at x, such as a message size
// a real job sends, and widens the x axis to show it.
func (c *Chart) AddVLine(x float64, label string) error {
	if err := checkValue("marker "+label, "x", 0, x, c.x); err != nil {
		return err
	}
	c.plot.Add(&refLine{at: x, label: label})
	c.notes = append(c.notes, fmt.Sprintf("marker x = %s: %s", formatWithUnit(x, c.x.Unit), label))
	return nil
}

// refLine is a reference line across the whole data area.
type refLine struct {
	horizontal bool
	at         float64
	label      string
}

func (r *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	inf := math.Inf(1)
	if r.horizontal {
		return inf, -inf, r.at, r.at
	}
	return r.at, r.at, inf, -inf
}

func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: noteColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
	sty := textStyle(sansFont, noteSize, draw.XRight, draw.YBottom)
	sty.Color = noteColor
	if r.horizontal {
		y := trY(r.at)
		c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(4), Y: y + vg.Points(2)}, r.label)
		return
	}
	x := trX(r.at)
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: x - vg.Points(4), Y: c.Max.Y - vg.Points(4)}, r.label)
}

// fillColumn shades the data area between x0 and x1 (data units, clamped
// to the area) in col.
func fillColumn(c draw.Canvas, p *plot.Plot, x0, x1 float64, col color.Color) (left, right vg.Length, ok bool) {
	trX, _ := p.Transforms(&c)
	l, r := clampX(c, trX(x0)), clampX(c, trX(x1))
	if r-l < 1 {
		return 0, 0, false
	}
	c.SetColor(col)
	c.Fill(vg.Rectangle{Min: vg.Point{X: l, Y: c.Min.Y}, Max: vg.Point{X: r, Y: c.Max.Y}}.Path())
	return l, r, true
}

func clampX(c draw.Canvas, x vg.Length) vg.Length {
	return vg.Length(math.Max(float64(c.Min.X), math.Min(float64(c.Max.X), float64(x))))
}

var (
	_ plot.Plotter    = (*refLine)(nil)
	_ plot.DataRanger = (*refLine)(nil)
)

// legendTopLeft places the legend in the top-left corner of the data
// area, down by below (room for labels drawn along the top).
func (c *Chart) legendTopLeft(below vg.Length) {
	c.plot.Legend.Top, c.plot.Legend.Left = true, true
	c.plot.Legend.XOffs, c.plot.Legend.YOffs = vg.Points(12), -vg.Points(10)-below
}
