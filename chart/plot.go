package chart

import (
	"reflect"

	"gonum.org/v1/plot"
)

// PlotType is *plot.Plot, a figure built with gonum/plot directly (a cell
// may import gonum/plot's packages). Package cells registers it with the
// kernel's display package through Figure, so that display.Plot(p) and a
// cell ending in p show it, without importing gonum/plot itself: chart
// is gonum/plot's one gateway.
var PlotType = reflect.TypeOf((*plot.Plot)(nil))

// FromPlot wraps p, a figure built with gonum/plot directly, as a Chart of
// the default size: it shows and saves as the builders' charts do (PNG at
// PixelRatio, SVG sized in CSS pixels, PDF). Its text form is the title and
// the axis labels and ranges. p keeps its own style; a nil p renders to an
// error, as a zero Chart does.
func FromPlot(p *plot.Plot) *Chart {
	if p == nil {
		return &Chart{}
	}
	c := &Chart{plot: p, width: DefaultWidth, height: DefaultHeight, kind: "plot", title: p.Title.Text,
		x: Axis{Label: p.X.Label.Text}, y: Axis{Label: p.Y.Label.Text},
		xr: span{p.X.Min, p.X.Max}, yr: span{p.Y.Min, p.Y.Max}, xFit: fitFixed, yFit: fitFixed}
	return c
}

// Figure returns v as a Chart when v is a *plot.Plot (see FromPlot).
func Figure(v any) (*Chart, bool) {
	p, ok := v.(*plot.Plot)
	if !ok {
		return nil, false
	}
	return FromPlot(p), true
}
