package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
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
		c.plot.Add(&regions{crossover: crossover})
		c.notes = append(c.notes, "crossover S* = "+formatBytes(crossover)+
			": latency-bound below, bandwidth-bound above")
	}
	for _, s := range series {
		if err := c.addSeries(s); err != nil {
			return nil, err
		}
	}
	// Headroom above the curves for the region labels; the legend sits
	// under them, top left, where a time-size curve leaves space.
	c.plot.Y.Max *= 4
	below := vg.Length(0)
	if crossover > 0 {
		below = vg.Points(22)
	}
	c.legendTopLeft(below)
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

// regions shades the two sides of the crossover size and labels them.
type regions struct{ crossover float64 }

func (r *regions) Plot(c draw.Canvas, p *plot.Plot) {
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YTop)
	sty.Color = noteColor
	top := c.Max.Y - vg.Points(6)
	// A label goes in its region only when it fits there.
	label := func(l, r vg.Length, text string) {
		if sty.Width(text)+vg.Points(8) <= r-l {
			c.FillText(sty, vg.Point{X: (l + r) / 2, Y: top}, text)
		}
	}
	if l, rt, ok := fillColumn(c, p, p.X.Min, r.crossover, latencyShade); ok {
		label(l, rt, "latency-bound")
	}
	if l, rt, ok := fillColumn(c, p, r.crossover, p.X.Max, bandwidthShade); ok {
		label(l, rt, "bandwidth-bound")
	}
	trX, _ := p.Transforms(&c)
	x := trX(r.crossover)
	if x >= c.Min.X && x <= c.Max.X {
		ls := draw.LineStyle{Color: noteColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		// The S* label sits beside the line, on the side with more room.
		lab := sty
		lab.XAlign, lab.YAlign = draw.XLeft, draw.YTop
		at := x + vg.Points(4)
		if x > (c.Min.X+c.Max.X)/2 {
			lab.XAlign = draw.XRight
			at = x - vg.Points(4)
		}
		c.FillText(lab, vg.Point{X: at, Y: top - vg.Points(18)}, "S* = "+formatBytes(r.crossover))
	}
}

var _ plot.Plotter = (*regions)(nil)
