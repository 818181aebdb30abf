package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The two axes every size sweep shares.
var (
	sizeAxis  = Axis{Label: "Message size", Unit: UnitBytes, Log: true}
	timeAxis  = Axis{Label: "Time", Unit: UnitSeconds, Log: true}
	busBWAxis = Axis{Label: "Bus bandwidth", Unit: "GB/s"}
)

// Region shades: light enough that lines and points stay the eye's target.
var (
	latencyShade   = color.NRGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0x26}
	bandwidthShade = color.NRGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0x26}
)

// TimeVsSize draws time (seconds) against message size (bytes) on log-log
// axes, model and measured series together. A crossover > 0 (bytes; the
// S* = alpha*beta of the Hockney model, where the latency term equals the
// bandwidth term) shades the latency-bound sizes below it and the
// bandwidth-bound sizes above it; 0 draws no regions.
func TimeVsSize(title string, crossover float64, series ...Series) (*Chart, error) {
	if math.IsNaN(crossover) || math.IsInf(crossover, 0) || crossover < 0 {
		return nil, fmt.Errorf("%w: TimeVsSize %q: crossover %v bytes: want >= 0", ErrInput, title, crossover)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: TimeVsSize %q: no series", ErrInput, title)
	}
	c := newChart("TimeVsSize", title, sizeAxis, timeAxis, true)
	if crossover > 0 {
		r := &regions{crossover: crossover, chart: c}
		c.plot.Add(r)
		c.shapes = append(c.shapes, r)
		// In the size axis' binary units, as its ticks read.
		c.notes = append(c.notes, "crossover S* = "+formatBytes(crossover)+
			": latency-bound below, bandwidth-bound above")
	}
	for _, s := range series {
		if err := c.addSeries(s); err != nil {
			return nil, err
		}
	}
	if crossover > 0 {
		// Headroom above the curves for the region labels.
		c.plot.Y.Max *= 4
	}
	return c, nil
}

// BusBWVsSize draws bus bandwidth (GB/s) against message size (bytes, log
// axis): measured series as points, model series as lines. A peakGBps > 0
// adds a horizontal reference at that rate labelled peakLabel, such as
// "NVLink 4, 450 GB/s one way"; busbw compares to it directly.
func BusBWVsSize(title string, peakGBps float64, peakLabel string, series ...Series) (*Chart, error) {
	if math.IsNaN(peakGBps) || math.IsInf(peakGBps, 0) || peakGBps < 0 {
		return nil, fmt.Errorf("%w: BusBWVsSize %q: peak %v GB/s: want >= 0", ErrInput, title, peakGBps)
	}
	c, err := lines("BusBWVsSize", title, sizeAxis, busBWAxis, series)
	if err != nil {
		return nil, err
	}
	if peakGBps > 0 {
		if err := c.AddHLine(peakGBps, peakLabel); err != nil {
			return nil, err
		}
	}
	// Bandwidth starts at zero: a plateau at half the peak must look like
	// half. Headroom keeps the peak label inside the plot.
	c.plot.Y.Min = 0
	c.plot.Y.Max *= 1.08
	return c, nil
}

// regions shades the two sides of the crossover size and labels them;
// chart holds the markers whose labels the region names must not cover.
type regions struct {
	crossover float64
	chart     *Chart
}

func (r *regions) Plot(c draw.Canvas, p *plot.Plot) {
	fillColumn(c, p, p.X.Min, r.crossover, latencyShade)
	fillColumn(c, p, r.crossover, p.X.Max, bandwidthShade)
	ls := draw.LineStyle{Color: noteColor, Width: refLineWidth, Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
	for _, l := range r.labels(c, p) {
		if l.line {
			c.StrokeLine2(ls, l.at.X, c.Min.Y, l.at.X, c.Max.Y)
			continue
		}
		c.FillText(l.sty, l.at, l.text)
	}
}

// regionLabel is a label regions writes, or (line true) the crossover's
// vertical line at at.X.
type regionLabel struct {
	sty  text.Style
	at   vg.Point
	text string
	line bool
}

// labels are the region names (each only where it fits in its region,
// clear of the markers' labels), the crossover line and its S* label
// beside it, on the side with more room.
func (r *regions) labels(c draw.Canvas, p *plot.Plot) []regionLabel {
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YTop)
	sty.Color = noteColor
	top := c.Max.Y - vg.Points(6)
	trX, _ := p.Transforms(&c)
	x := trX(r.crossover)
	avoid := r.markerLabels(c, p)
	var out []regionLabel
	for _, reg := range []struct {
		l, r vg.Length
		text string
	}{{clampX(c, c.Min.X), clampX(c, x), "latency-bound"}, {clampX(c, x), clampX(c, c.Max.X), "bandwidth-bound"}} {
		if sty.Width(reg.text)+vg.Points(8) <= reg.r-reg.l {
			out = append(out, regionLabel{sty: sty, at: placeName(sty, reg.l, reg.r, top, reg.text, avoid), text: reg.text})
		}
	}
	if x >= c.Min.X && x <= c.Max.X {
		out = append(out, regionLabel{at: vg.Point{X: x}, line: true})
		lab := sty
		lab.XAlign, lab.YAlign = draw.XLeft, draw.YTop
		at := x + vg.Points(4)
		if x > (c.Min.X+c.Max.X)/2 {
			lab.XAlign = draw.XRight
			at = x - vg.Points(4)
		}
		out = append(out, regionLabel{sty: lab, at: vg.Point{X: at, Y: top - vg.Points(18)}, text: "S* = " + formatBytes(r.crossover)})
	}
	return out
}

// markerLabels are the boxes of the vertical markers' labels.
func (r *regions) markerLabels(c draw.Canvas, p *plot.Plot) []obstacle {
	var out []obstacle
	for _, s := range r.chart.shapes {
		if m, ok := s.(*refLine); ok && !m.horizontal {
			_, _, sty, at := m.geometry(c, p)
			out = append(out, textObstacle(sty, at, m.label))
		}
	}
	return out
}

// placeName is where a region's name goes at the top of [l, r]: centred
// if that covers none of avoid, else at the nearest place beside the
// centre that does not, else centred below the labels it would cover.
func placeName(sty text.Style, l, r, top vg.Length, name string, avoid []obstacle) vg.Point {
	covers := func(at vg.Point) []obstacle {
		box := textObstacle(sty, at, name).rect
		var hit []obstacle
		for _, o := range avoid {
			if o.overlaps(box) {
				hit = append(hit, o)
			}
		}
		return hit
	}
	centre := (l + r) / 2
	half := sty.Width(name)/2 + vg.Points(4)
	for d := vg.Length(0); centre-d >= l+half || centre+d <= r-half; d += vg.Points(2) {
		for _, x := range []vg.Length{centre - d, centre + d} {
			if x >= l+half && x <= r-half && len(covers(vg.Point{X: x, Y: top})) == 0 {
				return vg.Point{X: x, Y: top}
			}
		}
	}
	y := top
	for _, o := range covers(vg.Point{X: centre, Y: top}) {
		y = vg.Length(math.Min(float64(y), float64(o.rect.Min.Y-vg.Points(4))))
	}
	return vg.Point{X: centre, Y: y}
}

func (r *regions) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	var out []obstacle
	for _, l := range r.labels(c, p) {
		if l.line {
			out = append(out, segmentObstacle(vg.Point{X: l.at.X, Y: c.Min.Y}, vg.Point{X: l.at.X, Y: c.Max.Y}, refLineWidth))
			continue
		}
		out = append(out, textObstacle(l.sty, l.at, l.text))
	}
	return out
}

var (
	_ plot.Plotter = (*regions)(nil)
	_ obstacler    = (*regions)(nil)
)
