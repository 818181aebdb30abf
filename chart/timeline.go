package chart

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Span is one interval on a timeline: a kernel on a CUDA stream, a
// collective on a rank.
type Span struct {
	// Lane is the row the span sits in, e.g. "stream 7"; lanes show top to
	// bottom in the order they first appear.
	Lane string
	// Start and End are in seconds from a common origin; End >= Start.
	Start, End float64
	// Kind groups spans for colour and legend, e.g. "communication" and
	// "compute".
	Kind string
	// Label is written inside the bar when it fits.
	Label string
}

// Timeline draws spans as bars along a time axis, one lane per row: the
// picture of compute and communication overlapping (or not) on streams.
func Timeline(title string, spans []Span) (*Chart, error) {
	if len(spans) == 0 {
		return nil, fmt.Errorf("%w: Timeline %q: no spans", ErrInput, title)
	}
	var lanes, kinds []string
	laneIdx, kindIdx := map[string]int{}, map[string]int{}
	busy := map[string]float64{}
	for i, s := range spans {
		if math.IsNaN(s.Start) || math.IsNaN(s.End) || math.IsInf(s.Start, 0) || math.IsInf(s.End, 0) || s.End < s.Start {
			return nil, fmt.Errorf("%w: Timeline %q: span %d (%s): start %v, end %v: want finite times with end >= start",
				ErrInput, title, i, s.Lane, s.Start, s.End)
		}
		if _, ok := laneIdx[s.Lane]; !ok {
			laneIdx[s.Lane] = len(lanes)
			lanes = append(lanes, s.Lane)
		}
		if _, ok := kindIdx[s.Kind]; !ok {
			kindIdx[s.Kind] = len(kinds)
			kinds = append(kinds, s.Kind)
		}
		busy[s.Kind] += s.End - s.Start
	}
	c := newChart("Timeline", title, Axis{Label: "Time", Unit: UnitSeconds}, Axis{}, false)
	c.yFit = fitFixed
	g := newGrid()
	g.Horizontal.Color = nil
	c.plot.Add(g)
	colors := make([]color.Color, len(kinds))
	for i := range kinds {
		colors[i], _ = c.nextColor("")
	}
	tl := &timelineBars{spans: spans, lanes: laneIdx, kinds: kindIdx, colors: colors, n: len(lanes)}
	c.plot.Add(tl)
	c.shapes = append(c.shapes, tl)
	c.plot.Y.Min, c.plot.Y.Max = -0.5, float64(len(lanes))-0.5
	c.plot.Y.Tick.Marker = labelTicks(lanes, true)
	c.plot.Y.Tick.Length = 0
	for i, k := range kinds {
		if k != "" {
			c.addLegend(k, swatch{colors[i]})
		}
	}

	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range spans {
		lo, hi = math.Min(lo, s.Start), math.Max(hi, s.End)
		c.xr.add(s.Start)
		c.xr.add(s.End)
	}
	c.lines = append(c.lines, fmt.Sprintf("%d %s in %d %s, %s .. %s",
		len(spans), plural(len(spans), "span"), len(lanes), plural(len(lanes), "lane"), formatSeconds(lo), formatSeconds(hi)))
	sorted := append([]string(nil), kinds...)
	sort.Strings(sorted)
	for _, k := range sorted {
		name := k
		if name == "" {
			name = "(no kind)"
		}
		c.lines = append(c.lines, fmt.Sprintf("%s: busy %s", name, formatSeconds(busy[k])))
	}
	return c, nil
}

// timelineBars draws each span as a bar in its lane.
type timelineBars struct {
	spans  []Span
	lanes  map[string]int
	kinds  map[string]int
	colors []color.Color
	n      int
}

func (t *timelineBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, s := range t.spans {
		xmin, xmax = math.Min(xmin, s.Start), math.Max(xmax, s.End)
	}
	if xmax == xmin {
		xmax = xmin + 1e-6
	}
	return xmin, xmax, -0.5, float64(t.n) - 0.5
}

func (t *timelineBars) Plot(c draw.Canvas, p *plot.Plot) {
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YCenter)
	sty.Color = color.White
	for _, s := range t.spans {
		r := t.rect(c, p, s)
		c.SetColor(t.colors[t.kinds[s.Kind]])
		c.Fill(r.Path())
		if s.Label != "" && sty.Width(s.Label)+vg.Points(6) < r.Max.X-r.Min.X {
			c.FillText(sty, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, s.Label)
		}
	}
}

// rect is the bar of span s.
func (t *timelineBars) rect(c draw.Canvas, p *plot.Plot, s Span) vg.Rectangle {
	trX, trY := p.Transforms(&c)
	y := float64(t.n - 1 - t.lanes[s.Lane])
	x0, x1 := trX(s.Start), trX(s.End)
	if x1-x0 < 1 {
		x1 = x0 + 1 // a zero-length span still shows as a tick
	}
	return vg.Rectangle{Min: vg.Point{X: x0, Y: trY(y - 0.35)}, Max: vg.Point{X: x1, Y: trY(y + 0.35)}}
}

func (t *timelineBars) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	out := make([]obstacle, len(t.spans))
	for i, s := range t.spans {
		out[i] = rectObstacle(t.rect(c, p, s))
	}
	return out
}

// swatch is a legend thumbnail: a filled square of one colour.
type swatch struct{ color color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.color)
	c.Fill(c.Rectangle.Path())
}

var (
	_ plot.Plotter     = (*timelineBars)(nil)
	_ plot.DataRanger  = (*timelineBars)(nil)
	_ obstacler        = (*timelineBars)(nil)
	_ plot.Thumbnailer = swatch{}
)
