package chart

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Where things go when a chart is drawn: each continuous axis gets a
// margin, so that no point touches the frame, and a range whose labelled
// ticks cover the data (a sweep to 64 MiB is labelled up to at least 64
// MiB); the legend goes into the first corner of the data area where it
// covers no point, line or label, else outside the data area on the right.
// Both are computed from the chart's own geometry at draw time, so a chart
// drawn at another size is laid out again.

// axisFit says how an axis is fitted to what it shows.
type axisFit int

const (
	// fitData adds a margin around the content and widens the range to
	// the labelled ticks that enclose it.
	fitData axisFit = iota
	// fitFixed leaves the range and ticks as the builder set them
	// (categories, lanes, cells, a plot built with gonum/plot directly).
	fitFixed
	// fitFromMin is fitData that keeps the minimum the builder set: bars
	// stand on zero.
	fitFromMin
)

// marginFraction is the share of an axis' span left empty at either end.
const marginFraction = 0.03

// maxLabels is how many labelled ticks an axis may carry at 720 px.
const maxLabels = 11

// fitAxis sets a's range and ticker for the content range it holds.
func fitAxis(a *plot.Axis, spec Axis, fit axisFit) {
	lo, hi := a.Min, a.Max
	if a.Width == 0 && a.Tick.Length == 0 {
		// hidden (plot.HideAxes): a drawing such as Trees, whose
		// coordinates are not values a reader reads
		return
	}
	if fit == fitFixed || math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
		return
	}
	switch {
	case spec.Log && !(lo > 0):
		return
	case spec.Log && spec.Unit == UnitBytes:
		fitLog2(a, lo, hi, fit)
	case spec.Log:
		fitLog10(a, lo, hi, fit, formatterFor(spec.Unit))
	default:
		format := formatterFor(spec.Unit)
		if spec.Unit == UnitBytes {
			format = formatBytesSI
		}
		fitLinear(a, lo, hi, fit, format)
	}
}

// fitLog2 labels a log byte axis at powers of two, every step-th one from
// the power at or below the smallest value up to one at or above the
// largest.
func fitLog2(a *plot.Axis, lo, hi float64, fit axisFit) {
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	l0, l1 := math.Log2(lo), math.Log2(hi)
	pad := marginFraction * (l1 - l0)
	e0, e1 := int(math.Floor(l0+1e-9)), int(math.Ceil(l1-1e-9))
	n := e1 - e0
	if n < 1 {
		a.Min, a.Max = math.Exp2(l0-pad), math.Exp2(l1+pad)
		a.Tick.Marker = relabel(formatBytes)
		return
	}
	step := labelStep(n)
	top := e0 + (n+step-1)/step*step
	if fit != fitFromMin {
		a.Min = math.Min(math.Exp2(float64(e0)), math.Exp2(l0-pad))
	}
	a.Max = math.Max(math.Exp2(float64(top)), math.Exp2(l1+pad))
	a.Tick.Marker = powerOfTwoTicker{anchor: e0, step: step}
}

// labelStep is how many powers apart labels go so that at most maxLabels
// show over n powers.
func labelStep(n int) int {
	for _, s := range []int{1, 2, 3, 4, 5, 10, 20} {
		if (n+s-1)/s+1 <= maxLabels {
			return s
		}
	}
	return (n + maxLabels - 2) / (maxLabels - 1)
}

// fitLog10 labels a log axis at powers of ten, and at 2 and 5 times them
// when the content spans at most four decades.
func fitLog10(a *plot.Axis, lo, hi float64, fit axisFit, f func(float64) string) {
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	l0, l1 := math.Log10(lo), math.Log10(hi)
	pad := marginFraction * (l1 - l0)
	dense := l1-l0 <= 4
	if fit != fitFromMin {
		a.Min = math.Min(decadeLabelAtOrBelow(lo, dense), math.Pow(10, l0-pad))
	}
	a.Max = math.Max(decadeLabelAtOrAbove(hi, dense), math.Pow(10, l1+pad))
	a.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick { return decadeTicksWith(min, max, dense, f) })
}

// decadeMultiples are the labelled multiples of each power of ten.
func decadeMultiples(dense bool) []float64 {
	if dense {
		return []float64{1, 2, 5}
	}
	return []float64{1}
}

func decadeLabelAtOrBelow(v float64, dense bool) float64 {
	base := math.Pow(10, math.Floor(math.Log10(v)+1e-9))
	best := base / 10 * decadeMultiples(dense)[len(decadeMultiples(dense))-1]
	for _, m := range decadeMultiples(dense) {
		if m*base <= v*(1+1e-9) {
			best = m * base
		}
	}
	return best
}

func decadeLabelAtOrAbove(v float64, dense bool) float64 {
	base := math.Pow(10, math.Floor(math.Log10(v)-1e-9))
	for _, m := range decadeMultiples(dense) {
		if m*base >= v*(1-1e-9) {
			return m * base
		}
	}
	return base * 10
}

// fitLinear labels a linear axis at multiples of a round step (1, 2 or 5
// times a power of ten) from the multiple at or below the smallest value
// to the one at or above the largest.
func fitLinear(a *plot.Axis, lo, hi float64, fit axisFit, f func(float64) string) {
	if lo == hi {
		d := math.Max(math.Abs(lo)*0.1, 1)
		lo, hi = lo-d, hi+d
	}
	step := roundStep((hi - lo) / 5)
	pad := marginFraction * (hi - lo)
	// Data reaching past the last labelled tick by more than a quarter
	// step gets the next tick; a sliver past it reads off the last one.
	outer := func(v, inner float64) float64 {
		if math.Abs(v-inner) > step/4 {
			return inner + math.Copysign(step, v-inner)
		}
		return inner
	}
	if fit != fitFromMin {
		a.Min = math.Min(outer(lo, math.Ceil(lo/step-1e-9)*step), lo-pad)
	}
	a.Max = math.Max(outer(hi, math.Floor(hi/step+1e-9)*step), hi+pad)
	a.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick { return stepTicks(min, max, step, f) })
}

// roundStep is the smallest of 1, 2 and 5 times a power of ten that is at
// least raw.
func roundStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// stepTicks labels every multiple of step between min and max.
func stepTicks(min, max, step float64, f func(float64) string) []plot.Tick {
	if !(max > min) || !(step > 0) || (max-min)/step > 1000 {
		return nil
	}
	var ticks []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: f(v)})
	}
	return ticks
}

// powerOfTwoTicker marks every power of two in range and labels every
// step-th one counted from anchor.
type powerOfTwoTicker struct{ anchor, step int }

func (t powerOfTwoTicker) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || t.step < 1 {
		return nil
	}
	lo := int(math.Ceil(math.Log2(min) - 1e-9))
	hi := int(math.Floor(math.Log2(max) + 1e-9))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		tk := plot.Tick{Value: v}
		if ((e-t.anchor)%t.step+t.step)%t.step == 0 {
			tk.Label = formatBytes(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// obstacle is something drawn that a legend must not cover: a filled
// rectangle (a bar, a point's marker, a text label) or a line segment of
// some width, in canvas coordinates.
type obstacle struct {
	rect      vg.Rectangle
	segment   bool
	a, b      vg.Point
	halfWidth vg.Length
}

func rectObstacle(r vg.Rectangle) obstacle { return obstacle{rect: r} }

func segmentObstacle(a, b vg.Point, width vg.Length) obstacle {
	return obstacle{segment: true, a: a, b: b, halfWidth: width / 2}
}

// textObstacle is the box of text drawn at at in style sty.
func textObstacle(sty text.Style, at vg.Point, s string) obstacle {
	r := sty.Rectangle(s)
	return rectObstacle(vg.Rectangle{Min: r.Min.Add(at), Max: r.Max.Add(at)})
}

// overlaps says whether the obstacle touches r.
func (o obstacle) overlaps(r vg.Rectangle) bool {
	if !o.segment {
		return o.rect.Min.X < r.Max.X && o.rect.Max.X > r.Min.X && o.rect.Min.Y < r.Max.Y && o.rect.Max.Y > r.Min.Y
	}
	grown := vg.Rectangle{Min: vg.Point{X: r.Min.X - o.halfWidth, Y: r.Min.Y - o.halfWidth},
		Max: vg.Point{X: r.Max.X + o.halfWidth, Y: r.Max.Y + o.halfWidth}}
	return segmentHitsRect(o.a, o.b, grown)
}

// segmentHitsRect clips the segment a-b to r (Liang and Barsky, 1984) and
// says whether anything is left.
func segmentHitsRect(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, edge := range [4]struct{ p, q float64 }{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		if edge.p == 0 {
			if edge.q < 0 {
				return false
			}
			continue
		}
		t := edge.q / edge.p
		if edge.p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// obstacler is a drawn element that can say where it drew, given the data
// area and the plot whose transforms place it.
type obstacler interface {
	obstacles(c draw.Canvas, p *plot.Plot) []obstacle
}

// legendEntry is one line of a legend: a name and the thumbnails that
// show its style.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// addLegend adds an entry to the chart's legend; draw places it.
func (c *Chart) addLegend(name string, thumbs ...plot.Thumbnailer) {
	c.entries = append(c.entries, legendEntry{name: name, thumbs: thumbs})
	c.legend = append(c.legend, name)
}

// legendPlace is where draw puts the legend: in a corner of the data area
// (a box of entries one under another) or, when no corner is free, in a
// band above the data area, under the title, entries side by side.
type legendPlace struct {
	box    vg.Rectangle // the legend's box (or band), canvas coordinates
	corner string       // "top left", ..., or "above"
	band   vg.Length    // height taken from the top of the plot (above)
}

// Legend geometry, in points.
var (
	legendMargin    = vg.Points(5)  // inside the box, around the entries
	legendInset     = vg.Points(6)  // between the box and the data area's edge
	legendGap       = vg.Points(2)  // clearance the box keeps from anything drawn
	legendThumb     = vg.Points(28) // a thumbnail's width
	legendRowGap    = vg.Points(3)  // between entries one under another
	legendColumnGap = vg.Points(16) // between entries side by side
)

func legendStyle() text.Style { return textStyle(sansFont, legendSize, draw.XLeft, draw.YCenter) }

// legendRowHeight is the height of one entry.
func legendRowHeight() vg.Length {
	e := legendStyle().FontExtents()
	return e.Ascent + e.Descent
}

// entryWidth is the width of one entry: thumbnail, a space, the name.
func entryWidth(name string) vg.Length {
	sty := legendStyle()
	return legendThumb + sty.Width(" ") + sty.Width(name)
}

// legendBoxSize is the box that holds the entries one under another.
func legendBoxSize(entries []legendEntry) (w, h vg.Length) {
	for _, e := range entries {
		w = max(w, entryWidth(e.name))
	}
	n := vg.Length(len(entries))
	h = n*legendRowHeight() + (n-1)*legendRowGap
	return w + 2*legendMargin, h + 2*legendMargin
}

// bandRows splits entries into rows side by side that fit width.
func bandRows(entries []legendEntry, width vg.Length) [][]legendEntry {
	var rows [][]legendEntry
	var row []legendEntry
	var used vg.Length
	for _, e := range entries {
		w := entryWidth(e.name)
		if len(row) > 0 && used+legendColumnGap+w > width {
			rows = append(rows, row)
			row, used = nil, 0
		}
		if len(row) > 0 {
			used += legendColumnGap
		}
		row = append(row, e)
		used += w
	}
	return append(rows, row)
}

// placeLegend finds the first corner of the data area (top left, top
// right, bottom right, bottom left) where the legend covers nothing drawn,
// else a band above the data area.
func (c *Chart) placeLegend(p *plot.Plot, area draw.Canvas) legendPlace {
	w, h := legendBoxSize(c.entries)
	dataC := p.DataCanvas(area)
	obs := c.obstaclesIn(dataC, p)
	in := dataC.Rectangle
	if w+2*legendInset <= in.Max.X-in.Min.X && h+2*legendInset <= in.Max.Y-in.Min.Y {
		left, right := in.Min.X+legendInset, in.Max.X-legendInset-w
		top, bottom := in.Max.Y-legendInset-h, in.Min.Y+legendInset
		for _, cand := range []struct {
			name string
			x, y vg.Length
		}{{"top left", left, top}, {"top right", right, top}, {"bottom right", right, bottom}, {"bottom left", left, bottom}} {
			box := vg.Rectangle{Min: vg.Point{X: cand.x, Y: cand.y}, Max: vg.Point{X: cand.x + w, Y: cand.y + h}}
			if free(box, obs) {
				return legendPlace{box: box, corner: cand.name}
			}
		}
	}
	top := area.Max.Y - titleHeight(p)
	rows := bandRows(c.entries, area.Max.X-area.Min.X-2*legendMargin)
	band := vg.Length(len(rows))*legendRowHeight() + vg.Length(len(rows)-1)*legendRowGap + 2*legendMargin
	return legendPlace{box: vg.Rectangle{Min: vg.Point{X: area.Min.X, Y: top - band}, Max: vg.Point{X: area.Max.X, Y: top}},
		corner: "above", band: band + legendInset}
}

// titleHeight is the height plot.Draw gives the title.
func titleHeight(p *plot.Plot) vg.Length {
	if p.Title.Text == "" {
		return 0
	}
	return p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
}

// drawLegend draws the entries in place: one under another on white in a
// corner, or centred rows in the band above the data area.
func drawLegend(dc draw.Canvas, entries []legendEntry, place legendPlace) {
	rowH := legendRowHeight()
	if place.corner != "above" {
		dc.SetColor(legendBackground)
		dc.Fill(place.box.Path())
		y := place.box.Max.Y - legendMargin
		for _, e := range entries {
			drawEntry(dc, e, place.box.Min.X+legendMargin, y-rowH)
			y -= rowH + legendRowGap
		}
		return
	}
	width := place.box.Max.X - place.box.Min.X - 2*legendMargin
	y := place.box.Max.Y - legendMargin
	for _, row := range bandRows(entries, width) {
		var used vg.Length
		for i, e := range row {
			if i > 0 {
				used += legendColumnGap
			}
			used += entryWidth(e.name)
		}
		x := (place.box.Min.X+place.box.Max.X)/2 - used/2
		for _, e := range row {
			drawEntry(dc, e, x, y-rowH)
			x += entryWidth(e.name) + legendColumnGap
		}
		y -= rowH + legendRowGap
	}
}

// drawEntry draws one entry with its bottom left corner at (x, y).
func drawEntry(dc draw.Canvas, e legendEntry, x, y vg.Length) {
	rowH := legendRowHeight()
	icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x, Y: y + rowH*0.15}, Max: vg.Point{X: x + legendThumb, Y: y + rowH*0.85}}}
	for _, t := range e.thumbs {
		t.Thumbnail(&icon)
	}
	sty := legendStyle()
	dc.FillText(sty, vg.Point{X: x + legendThumb + sty.Width(" "), Y: y + rowH/2}, e.name)
}

// free says whether box, grown by legendGap, touches none of obs.
func free(box vg.Rectangle, obs []obstacle) bool {
	grown := vg.Rectangle{Min: vg.Point{X: box.Min.X - legendGap, Y: box.Min.Y - legendGap},
		Max: vg.Point{X: box.Max.X + legendGap, Y: box.Max.Y + legendGap}}
	for _, o := range obs {
		if o.overlaps(grown) {
			return false
		}
	}
	return true
}

// obstaclesIn is everything the chart's elements draw in the data area
// dataC of p.
func (c *Chart) obstaclesIn(dataC draw.Canvas, p *plot.Plot) []obstacle {
	var out []obstacle
	for _, s := range c.shapes {
		out = append(out, s.obstacles(dataC, p)...)
	}
	return out
}
