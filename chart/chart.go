package chart

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/atomicfile"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Sizes of a chart in a notebook cell, in logical (CSS) pixels. One logical
// pixel is one gonum/plot point, so font sizes below read as pixel sizes.
const (
	DefaultWidth  = 720
	DefaultHeight = 450
	// PixelRatio is how many PNG pixels make one logical pixel: 2 keeps
	// text sharp on high-DPI screens when the front end shows the image at
	// DefaultWidth x DefaultHeight.
	PixelRatio = 2
)

// Errors callers can branch on with errors.Is.
var (
	// ErrInput is wrapped by every builder for input it cannot draw:
	// mismatched lengths, no data, NaN or Inf, non-positive values on a
	// log axis, a ragged matrix.
	ErrInput = errors.New("chart: bad input")
	// ErrFormat is returned by Save for a file name whose extension is not
	// .png, .svg or .pdf.
	ErrFormat = errors.New("chart: unknown file format")
)

// Chart is one figure ready to show or save. Builders return it; its
// methods render it. A zero Chart renders to an error, not a picture.
type Chart struct {
	plot     *plot.Plot
	colorBar *plot.Plot // heatmaps draw a colour bar beside the plot
	width    float64
	height   float64

	kind     string // the builder's name, for String
	title    string
	x, y     Axis
	xr, yr   span          // data ranges of the series, for String
	lines    []string      // one per series, for String
	notes    []string      // regions, reference lines, for String
	colorIdx int           // next palette colour
	legend   []string      // legend entry names, for String and tests
	entries  []legendEntry // the legend, placed at draw time (layout.go)

	xFit, yFit axisFit                // how draw fits each axis to its content
	shapes     []obstacler            // what the legend must not cover
	keyColors  map[string]color.Color // a series' colour by its pairing key
}

// span is a running min/max.
type span struct{ min, max float64 }

func emptySpan() span { return span{math.Inf(1), math.Inf(-1)} }

func (s *span) add(v float64) {
	s.min = math.Min(s.min, v)
	s.max = math.Max(s.max, v)
}

func (s span) ok() bool { return s.min <= s.max }

// Axis says what an axis measures and how its ticks print.
type Axis struct {
	// Label names the quantity, e.g. "Message size".
	Label string
	// Unit selects the tick labels: UnitBytes prints 8 B ... 8 GiB (powers
	// of two on a log axis), UnitSeconds prints ns/us/ms/s; any other unit
	// ("GB/s", "%") is written after the label in parentheses.
	Unit string
	// Log draws the axis on a log scale; every value on it must be > 0.
	Log bool
}

// Units with their own tick labels.
const (
	UnitBytes   = "B"
	UnitSeconds = "s"
)

// title returns the label as drawn: units that the ticks do not show are
// added in parentheses.
func (a Axis) title() string {
	switch a.Unit {
	case "", UnitBytes, UnitSeconds:
		return a.Label
	}
	if a.Label == "" {
		return a.Unit
	}
	return a.Label + " (" + a.Unit + ")"
}

// The house style. Sizes are points = logical pixels at DefaultWidth.
var (
	sansFont     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBold     = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
	titleSize    = vg.Points(16)
	labelSize    = vg.Points(13)
	tickSize     = vg.Points(11)
	legendSize   = vg.Points(11)
	noteSize     = vg.Points(11)
	lineWidth    = vg.Points(2)
	markerRadius = vg.Points(3.5)
	dashes       = []vg.Length{vg.Points(7), vg.Points(4)}
	gridColor    = color.NRGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	textColor    = color.NRGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}
	noteColor    = color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
)

// seriesColors is Okabe and Ito's colour-blind-safe set (Color Universal
// Design, 2008), ordered so that the first colours contrast most on white;
// yellow comes last because it is faint on white.
var seriesColors = []color.NRGBA{
	{R: 0x00, G: 0x72, B: 0xB2, A: 0xff}, // blue
	{R: 0xD5, G: 0x5E, B: 0x00, A: 0xff}, // vermillion
	{R: 0x00, G: 0x9E, B: 0x73, A: 0xff}, // bluish green
	{R: 0xCC, G: 0x79, B: 0xA7, A: 0xff}, // reddish purple
	{R: 0xE6, G: 0x9F, B: 0x00, A: 0xff}, // orange
	{R: 0x56, G: 0xB4, B: 0xE9, A: 0xff}, // sky blue
	{R: 0x00, G: 0x00, B: 0x00, A: 0xff}, // black
	{R: 0xF0, G: 0xE4, B: 0x42, A: 0xff}, // yellow
}

func textStyle(f font.Font, size vg.Length, x draw.XAlignment, y draw.YAlignment) text.Style {
	return text.Style{
		Color:   textColor,
		Font:    font.From(f, size),
		XAlign:  x,
		YAlign:  y,
		Handler: plot.DefaultTextHandler,
	}
}

// newChart makes an empty chart in the house style, with grid lines at
// the major ticks when grid is true.
func newChart(kind, title string, x, y Axis, grid bool) *Chart {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(sansBold, titleSize, draw.XCenter, draw.YTop)
	p.Title.Padding = vg.Points(10)
	c := &Chart{plot: p, width: DefaultWidth, height: DefaultHeight, kind: kind, title: title,
		x: x, y: y, xr: emptySpan(), yr: emptySpan()}
	styleAxis(&p.X, x, draw.XCenter, draw.YTop)
	styleAxis(&p.Y, y, draw.XRight, draw.YCenter)
	if grid {
		p.Add(newGrid())
	}
	return c
}

// newGrid returns light grid lines at the major ticks of both axes.
func newGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.6), vg.Points(0.6)
	return g
}

func styleAxis(a *plot.Axis, spec Axis, x draw.XAlignment, y draw.YAlignment) {
	a.Label.Text = spec.title()
	a.Label.TextStyle = textStyle(sansFont, labelSize, draw.XCenter, draw.YBottom)
	a.Label.Padding = vg.Points(6)
	a.Tick.Label = textStyle(sansFont, tickSize, x, y)
	a.Tick.Length = vg.Points(5)
	a.Color, a.Tick.Color = noteColor, noteColor
	a.Padding = vg.Points(2)
	if spec.Log {
		a.Scale = plot.LogScale{}
	}
	a.Tick.Marker = tickerFor(spec)
}

// SetSize changes the logical size in pixels (the PNG has PixelRatio
// times as many pixels each way).
func (c *Chart) SetSize(width, height float64) error {
	if !(width >= 100 && height >= 100 && width <= 10000 && height <= 10000) {
		return fmt.Errorf("%w: size %gx%g: want 100 to 10000 logical pixels each way", ErrInput, width, height)
	}
	c.width, c.height = width, height
	return nil
}

// Size returns the logical size in pixels.
func (c *Chart) Size() (width, height float64) { return c.width, c.height }

// nextColor returns the series colour: the one asked for, or the next of
// the palette.
func (c *Chart) nextColor(hex string) (color.Color, error) {
	if hex != "" {
		return parseHexColor(hex)
	}
	col := seriesColors[c.colorIdx%len(seriesColors)]
	c.colorIdx++
	return col, nil
}

func parseHexColor(s string) (color.Color, error) {
	var r, g, b uint8
	if len(s) != 7 || s[0] != '#' {
		return nil, fmt.Errorf("%w: colour %q: want #rrggbb", ErrInput, s)
	}
	if _, err := fmt.Sscanf(s[1:], "%02x%02x%02x", &r, &g, &b); err != nil {
		return nil, fmt.Errorf("%w: colour %q: want #rrggbb", ErrInput, s)
	}
	return color.NRGBA{R: r, G: g, B: b, A: 0xff}, nil
}

// String describes the chart in a few lines: what it is, its title, its
// axes with the data ranges, its series and annotations. It is the
// text/plain form of the chart in a notebook.
func (c *Chart) String() string {
	if c == nil {
		return "chart: <nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", c.kind, c.title)
	sep := ": "
	for _, a := range []struct {
		name string
		axis Axis
		r    span
	}{{"x", c.x, c.xr}, {"y", c.y, c.yr}} {
		if a.axis.title() != "" || a.r.ok() {
			b.WriteString(sep + a.name + " " + describeAxis(a.axis, a.r))
			sep = ", "
		}
	}
	for _, l := range c.lines {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	for _, n := range c.notes {
		b.WriteString("\n  ")
		b.WriteString(n)
	}
	return b.String()
}

func describeAxis(a Axis, r span) string {
	s := a.title()
	if s == "" {
		s = "(unlabelled)"
	}
	if r.ok() {
		f := formatterFor(a.Unit)
		s += " [" + f(r.min) + " .. " + f(r.max) + "]"
	}
	if a.Log {
		s += " log"
	}
	return s
}

// draw renders the chart on any gonum canvas, converting a panic inside
// gonum/plot into an error so that nothing panics across the package.
func (c *Chart) draw(cv vg.CanvasSizer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart: render %q: %v", c.title, r)
		}
	}()
	dc := draw.New(cv)
	f := c.layout(dc)
	if c.colorBar != nil {
		w := dc.Max.X - dc.Min.X
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		c.colorBar.Draw(draw.Crop(dc, w-colorBarStrip+vg.Points(12), -vg.Points(14), vg.Points(50), -vg.Points(38)))
	}
	if f.title.Text != "" {
		// The title keeps the whole width; the legend's band sits under it.
		dc.FillText(f.title.TextStyle, vg.Point{X: dc.Center().X, Y: dc.Max.Y + f.title.TextStyle.FontExtents().Descent}, f.title.Text)
	}
	f.p.Draw(f.area)
	dataC := f.p.DataCanvas(f.area)
	if f.xLabel.Text != "" {
		l := f.xLabel
		dc.FillText(l.TextStyle, vg.Point{X: dataC.Center().X, Y: f.xLabelAt + l.TextStyle.FontExtents().Descent}, l.Text)
	}
	if f.yLabel.Text != "" {
		l := f.yLabel
		sty := l.TextStyle
		sty.Rotation += math.Pi / 2
		dc.FillText(sty, vg.Point{X: f.yLabelAt + l.TextStyle.Height(l.Text) - l.TextStyle.FontExtents().Descent, Y: dataC.Center().Y}, l.Text)
	}
	if f.legend {
		drawLegend(dc, c.entries, f.place)
	}
	return nil
}

// colorBarStrip is the width a heatmap's colour bar takes on the right.
var colorBarStrip = vg.Points(100)

// frame is a chart laid out on a canvas: the plot with its axes fitted,
// the area it draws in, where the legend goes, and what draw writes
// itself rather than through plot.Draw.
type frame struct {
	p      plot.Plot
	area   draw.Canvas
	legend bool
	place  legendPlace
	// title is drawn across the whole width when a legend band sits
	// under it (then the plot's own title is empty).
	title textLine
	// The labels of log axes, drawn centred on the data area: gonum
	// reserves room for them around the linear midpoint of the range,
	// which on a log axis pushes the data area away from the title.
	xLabel, yLabel     textLine
	xLabelAt, yLabelAt vg.Length
}

// textLine is a title or an axis label that draw writes itself.
type textLine struct {
	Text      string
	Padding   vg.Length
	TextStyle text.Style
}

// layout fits the axes, moves log axes' labels out of gonum's hands and
// places the legend on dc. It works on a shallow copy of the plot (axes
// are values in plot.Plot), so that repeated renders start from the
// builder's ranges.
func (c *Chart) layout(dc draw.Canvas) frame {
	f := frame{p: *c.plot, area: dc}
	widenLogRange(&f.p.X, c.x.Log)
	widenLogRange(&f.p.Y, c.y.Log)
	fitAxis(&f.p.X, c.x, c.xFit)
	fitAxis(&f.p.Y, c.y, c.yFit)
	if c.colorBar != nil {
		f.area = draw.Crop(dc, 0, -colorBarStrip, 0, 0)
	}
	if c.x.Log && f.p.X.Label.Text != "" {
		f.xLabel = textLine{f.p.X.Label.Text, f.p.X.Label.Padding, f.p.X.Label.TextStyle}
		f.p.X.Label.Text = ""
		f.xLabelAt = f.area.Min.Y
		f.area = draw.Crop(f.area, 0, 0, f.xLabel.TextStyle.Height(f.xLabel.Text)+f.xLabel.Padding, 0)
	}
	if c.y.Log && f.p.Y.Label.Text != "" {
		f.yLabel = textLine{f.p.Y.Label.Text, f.p.Y.Label.Padding, f.p.Y.Label.TextStyle}
		f.p.Y.Label.Text = ""
		f.yLabelAt = f.area.Min.X
		l := f.yLabel.TextStyle
		f.area = draw.Crop(f.area, l.Height(f.yLabel.Text)+f.yLabel.Padding, 0, 0, 0)
	}
	if len(c.legend) == 0 {
		return f
	}
	f.legend = true
	f.place = c.placeLegend(&f.p, f.area)
	if f.place.band > 0 {
		f.area = draw.Crop(f.area, 0, 0, 0, -(titleHeight(&f.p) + f.place.band))
		f.title = textLine{f.p.Title.Text, f.p.Title.Padding, f.p.Title.TextStyle}
		f.p.Title.Text = ""
	}
	return f
}

// legendLayout is where the legend goes at the chart's logical size, with
// the obstacles of the data area it was placed among and that area: what
// the tests check.
func (c *Chart) legendLayout() (legendPlace, []obstacle, vg.Rectangle) {
	dc := draw.New(vgimg.New(vg.Length(c.width), vg.Length(c.height)))
	f := c.layout(dc)
	dataC := f.p.DataCanvas(f.area)
	return f.place, c.obstaclesIn(dataC, &f.p), dataC.Rectangle
}

// usable reports a chart no builder made, before any canvas is sized.
func (c *Chart) usable() error {
	if c == nil || c.plot == nil || c.width <= 0 || c.height <= 0 {
		return fmt.Errorf("%w: empty chart: make one with a builder such as Lines", ErrInput)
	}
	return nil
}

// widenLogRange gives a log axis holding a single value a range around it:
// gonum widens an empty range by 1 either way, below zero on a log axis.
func widenLogRange(a *plot.Axis, log bool) {
	if log && a.Min == a.Max && a.Min > 0 {
		a.Min, a.Max = a.Min/2, a.Max*2
	}
}

// PNG renders the chart as a PNG of PixelRatio times its logical size.
func (c *Chart) PNG() ([]byte, error) { return c.renderPNG(PixelRatio) }

// renderPNG renders ratio image pixels per logical pixel.
func (c *Chart) renderPNG(ratio int) ([]byte, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	cv := vgimg.NewWith(vgimg.UseWH(vg.Length(c.width), vg.Length(c.height)), vgimg.UseDPI(72*ratio))
	if err := c.draw(cv); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// svgBytes renders the chart as an SVG document sized in CSS pixels.
func (c *Chart) svgBytes() ([]byte, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	cv := vgsvg.New(vg.Length(c.width), vg.Length(c.height))
	if err := c.draw(cv); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: encode svg: %w", err)
	}
	s := buf.String()
	// vgsvg sizes the document in points, which a browser shows 4/3 larger
	// than the PNG; the viewBox already holds the logical size.
	w, h := svgLength(c.width), svgLength(c.height)
	s = strings.Replace(s, `width="`+w+`pt" height="`+h+`pt"`, `width="`+w+`" height="`+h+`"`, 1)
	// Fonts are not embedded (it would add ~400 KB); Arial and Helvetica
	// have the same metrics as Liberation Sans, so the layout holds.
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	return []byte(fitText(s)), nil
}

// svgText is one text element as vgsvg writes it: its attributes, its
// style's weight and size, and its content.
var svgText = regexp.MustCompile(`<text ([^>]*?font-weight:(\w+);[^>]*?font-size:([\d.]+)px;[^>]*)>([^<]*)</text>`)

// fitText gives every text element the width its Liberation Sans metrics
// have (textLength): gonum lays labels out with those metrics, and a
// browser that substitutes a wider font would otherwise draw past the
// edge ("1 GiB" cut to "1 Gi").
func fitText(s string) string {
	return svgText.ReplaceAllStringFunc(s, func(el string) string {
		m := svgText.FindStringSubmatch(el)
		size, err := strconv.ParseFloat(m[3], 64)
		if err != nil || m[4] == "" {
			return el
		}
		f := sansFont
		if m[2] == "bold" {
			f = sansBold
		}
		face := font.DefaultCache.Lookup(f, vg.Length(size))
		w := face.Width(html.UnescapeString(m[4]))
		return fmt.Sprintf(`<text textLength="%.5g" lengthAdjust="spacingAndGlyphs" %s>%s</text>`, float64(w), m[1], m[4])
	})
}

func svgLength(v float64) string { return fmt.Sprintf("%.*g", 6, v) }

// SVG renders the chart as an SVG document. SVG cannot return an error, so
// a chart that fails to render gives a small SVG that says why.
func (c *Chart) SVG() string {
	b, err := c.svgBytes()
	if err != nil {
		var esc strings.Builder
		_ = xml.EscapeText(&esc, []byte(err.Error()))
		return `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="40"><text x="8" y="24">` +
			esc.String() + `</text></svg>`
	}
	return string(b)
}

// PDF renders the chart as a PDF page of its logical size in points.
func (c *Chart) PDF() ([]byte, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	cv := vgpdf.New(vg.Length(c.width), vg.Length(c.height))
	// vgpdf v0.17 registers a bold face under the regular style and then
	// cannot find it; the PDF title is drawn in the regular weight.
	saved := c.plot.Title.TextStyle.Font
	c.plot.Title.TextStyle.Font = font.From(sansFont, titleSize)
	err := c.draw(cv)
	c.plot.Title.TextStyle.Font = saved
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: encode pdf: %w", err)
	}
	return buf.Bytes(), nil
}

// MIMEBundle gives the notebook PNG (base64) and SVG renderings with the
// text description; kernel/display uses it before any other method.
func (c *Chart) MIMEBundle() map[string]any {
	png, err := c.PNG()
	if err != nil {
		return map[string]any{"text/plain": c.String() + "\n" + err.Error()}
	}
	svg, err := c.svgBytes()
	if err != nil {
		return map[string]any{"text/plain": c.String() + "\n" + err.Error()}
	}
	return map[string]any{
		"image/png":     base64.StdEncoding.EncodeToString(png),
		"image/svg+xml": string(svg),
		"text/plain":    c.String(),
	}
}

// MIMEMetadata is the display_data metadata that goes with MIMEBundle: the
// logical size, so that the front end shows the double-density PNG at
// that size and it stays sharp.
func (c *Chart) MIMEMetadata() map[string]any {
	if c.usable() != nil {
		return map[string]any{}
	}
	return map[string]any{
		"image/png": map[string]any{"width": c.width, "height": c.height},
	}
}

// Save writes the chart to path in the format its extension names (.png,
// .svg, .pdf). It writes a temporary file in the same folder and renames
// it, so a reader never sees half a file.
func (c *Chart) Save(path string) error {
	var (
		data []byte
		err  error
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		data, err = c.PNG()
	case ".svg":
		data, err = c.svgBytes()
	case ".pdf":
		data, err = c.PDF()
	default:
		return fmt.Errorf("%w: %q: want .png, .svg or .pdf", ErrFormat, path)
	}
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("chart: save: %w", err)
	}
	return nil
}

// legendBackground keeps legend entries readable over grid lines and
// shaded regions.
var legendBackground = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xf0}
