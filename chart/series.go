package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
	col, err := c.seriesColor(s.Name, s.Color)
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
	c.shapes = append(c.shapes, seriesShape{xys: xys, line: !s.Points || s.Dashed, points: s.Points})
	if s.Name != "" {
		c.addLegend(s.Name, thumbs...)
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
	return c, nil
}

// AddHLine draws a labelled horizontal reference line at y, such as a
// link's peak bandwidth, and widens the y axis to show it.
func (c *Chart) AddHLine(y float64, label string) error {
	if err := checkValue("reference "+label, "y", 0, y, c.y); err != nil {
		return err
	}
	r := &refLine{horizontal: true, at: y, label: label}
	c.plot.Add(r)
	c.shapes = append(c.shapes, r)
	c.notes = append(c.notes, fmt.Sprintf("reference y = %s: %s", formatWithUnit(y, c.y.Unit), label))
	return nil
}

// AddVLine draws a labelled vertical marker at x, such as a message size
// a real job sends, and widens the x axis to show it.
func (c *Chart) AddVLine(x float64, label string) error {
	if err := checkValue("marker "+label, "x", 0, x, c.x); err != nil {
		return err
	}
	r := &refLine{at: x, label: label}
	c.plot.Add(r)
	c.shapes = append(c.shapes, r)
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
	ls := draw.LineStyle{Color: noteColor, Width: refLineWidth, Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
	a, b, sty, at := r.geometry(c, p)
	c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
	c.FillText(sty, at, r.label)
}

var refLineWidth = vg.Points(1.2)

// geometry is where the line runs and where its label goes.
func (r *refLine) geometry(c draw.Canvas, p *plot.Plot) (a, b vg.Point, sty text.Style, at vg.Point) {
	trX, trY := p.Transforms(&c)
	sty = textStyle(sansFont, noteSize, draw.XRight, draw.YBottom)
	sty.Color = noteColor
	if r.horizontal {
		y := trY(r.at)
		return vg.Point{X: c.Min.X, Y: y}, vg.Point{X: c.Max.X, Y: y}, sty, vg.Point{X: c.Max.X - vg.Points(4), Y: y + vg.Points(2)}
	}
	x := trX(r.at)
	sty.Rotation = math.Pi / 2
	return vg.Point{X: x, Y: c.Min.Y}, vg.Point{X: x, Y: c.Max.Y}, sty, vg.Point{X: x - vg.Points(4), Y: c.Max.Y - vg.Points(4)}
}

func (r *refLine) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	a, b, sty, at := r.geometry(c, p)
	return []obstacle{segmentObstacle(a, b, refLineWidth), textObstacle(sty, at, r.label)}
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
	_ obstacler       = (*refLine)(nil)
	_ obstacler       = seriesShape{}
)

// seriesShape is where a series drew: its points' markers and the
// segments of its line.
type seriesShape struct {
	xys          plotter.XYs
	line, points bool
}

func (s seriesShape) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	trX, trY := p.Transforms(&c)
	var out []obstacle
	var prev vg.Point
	for i, xy := range s.xys {
		pt := vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		if s.points {
			r := markerRadius
			out = append(out, rectObstacle(vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - r}, Max: vg.Point{X: pt.X + r, Y: pt.Y + r}}))
		}
		if s.line && i > 0 {
			out = append(out, segmentObstacle(prev, pt, lineWidth))
		}
		prev = pt
	}
	return out
}

// seriesColor is the colour of a series: the one asked for; else the
// colour of an earlier series with the same pairing key ("LL fit" takes
// the colour of "LL measured"); else the next of the palette.
func (c *Chart) seriesColor(name, hex string) (color.Color, error) {
	key := pairingKey(name)
	if hex == "" && key != "" {
		if col, ok := c.keyColors[key]; ok {
			return col, nil
		}
	}
	col, err := c.nextColor(hex)
	if err != nil {
		return nil, err
	}
	if key != "" {
		if c.keyColors == nil {
			c.keyColors = map[string]color.Color{}
		}
		if _, ok := c.keyColors[key]; !ok {
			c.keyColors[key] = col
		}
	}
	return col, nil
}

// roleWords name what a series is rather than what it is of: a
// measurement and its model or fit share the rest of their names.
var roleWords = map[string]bool{
	"measured": true, "measurement": true, "measurements": true, "fit": true, "fitted": true,
	"model": true, "modelled": true, "modeled": true, "predicted": true, "prediction": true,
	"expected": true, "theory": true, "theoretical": true,
}

// pairingKey is a series name without its role words and without what it
// says in parentheses, lower case: "LL measured" and "LL fit" both give
// "ll". A name of role words alone has no key.
func pairingKey(name string) string {
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var words []string
	for _, w := range strings.Fields(strings.ToLower(b.String())) {
		if !roleWords[strings.Trim(w, ",;:.-")] {
			words = append(words, w)
		}
	}
	return strings.Trim(strings.Join(words, " "), " ,;:.-")
}
