package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// legendCases are charts of every builder that has a legend: the sample
// charts the golden images show, and charts whose data leave no corner
// free, so that the legend must go above the data area.
func legendCases(t *testing.T) []namedChart {
	t.Helper()
	var out []namedChart
	for _, c := range sampleCharts(t) {
		if len(c.chart.legend) > 0 {
			out = append(out, c)
		}
	}
	add := func(name string, c *Chart, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, namedChart{name: name, chart: c})
	}

	// Points in a grid over the whole area: no corner is free.
	var gx, gy []float64
	for i := range 12 {
		for j := range 12 {
			gx, gy = append(gx, float64(i)), append(gy, float64(j))
		}
	}
	c, err := Scatter("grid", Axis{Label: "x"}, Axis{Label: "y"}, Series{Name: "everywhere", X: gx, Y: gy})
	add("scatter everywhere", c, err)

	// Lines through all four corners.
	c, err = Lines("corners", Axis{Label: "x", Unit: UnitBytes, Log: true}, Axis{Label: "t", Unit: UnitSeconds, Log: true},
		Series{Name: "rising", X: []float64{8, 1 << 30}, Y: []float64{1e-6, 1}},
		Series{Name: "falling", X: []float64{8, 1 << 30}, Y: []float64{1, 1e-6}})
	add("lines through corners", c, err)

	// Chapter 6 and the doctor report: a busbw curve under a peak line
	// that runs through both top corners.
	sizes, bw := []float64{}, []float64{}
	for e := 3; e <= 33; e++ {
		sizes = append(sizes, math.Ldexp(1, e))
		bw = append(bw, 360/(1+math.Ldexp(1, 24-e)))
	}
	c, err = BusBWVsSize("busbw under a peak", 450, "NVLink 4, 450 GB/s one way",
		Series{Name: "measured (recorded)", X: sizes, Y: bw, Points: true},
		Series{Name: "model", X: sizes, Y: bw, Dashed: true})
	add("busbw under a peak line", c, err)

	// Chapter 5: lanes full of spans.
	var spans []Span
	for lane := range 8 {
		for k := range 12 {
			kind := []string{"compute", "communication", "other copy or memset"}[(lane+k)%3]
			spans = append(spans, Span{Lane: fmt.Sprintf("stream %d", lane), Start: float64(k) * 1e-4, End: float64(k)*1e-4 + 9e-5, Kind: kind})
		}
	}
	c, err = Timeline("full lanes", spans)
	add("timeline full", c, err)

	// Bars as tall as the axis in every category.
	c, err = StackedBars("tall bars", Bars{Categories: []string{"a", "b", "c", "d"}, Value: Axis{Label: "Time", Unit: UnitSeconds},
		Stacks: []Stack{{Name: "latency term", Values: []float64{1, 1, 1, 1}}, {Name: "bandwidth term", Values: []float64{1, 1, 1, 1}}}})
	add("bars full", c, err)

	// TimeVsSize with the crossover in the middle and five series.
	var series []Series
	for k := range 5 {
		y := make([]float64, len(sizes))
		for i, s := range sizes {
			y[i] = float64(k+1)*5e-6 + s/25e9
		}
		series = append(series, Series{Name: fmt.Sprintf("series %d with a long name", k), X: sizes, Y: y, Points: true})
	}
	c, err = TimeVsSize("five series", 1e6, series...)
	add("time vs size, five series", c, err)
	return out
}

// No legend box covers a drawn point, line, bar or label, for every
// builder, checked on the geometry the chart itself draws.
func TestLegendClearOfData(t *testing.T) {
	for _, tc := range legendCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			place, obs, data := tc.chart.legendLayout()
			if len(obs) == 0 {
				t.Fatal("no geometry recorded: the check would pass vacuously")
			}
			for i, o := range obs {
				if o.overlaps(place.box) {
					t.Errorf("legend (%s, %v) covers obstacle %d: %+v", place.corner, place.box, i, o)
				}
			}
			if place.corner == "above" {
				if place.box.Min.Y < data.Max.Y {
					t.Errorf("legend above the data reaches into it: box %v, data %v", place.box, data)
				}
			} else if place.box.Min.X < data.Min.X || place.box.Max.X > data.Max.X || place.box.Min.Y < data.Min.Y || place.box.Max.Y > data.Max.Y {
				t.Errorf("legend in the %s corner leaves the data area: box %v, data %v", place.corner, place.box, data)
			}
			if _, err := tc.chart.PNG(); err != nil {
				t.Error(err)
			}
		})
	}
}

// The crowded charts do push the legend out, and an empty corner keeps it
// in: the placement is decided, not fixed.
func TestLegendPlacementChoices(t *testing.T) {
	want := map[string]string{
		"scatter everywhere":      "above",
		"timeline full":           "above",
		"busbw under a peak line": "bottom right",
		"stacked_bars":            "top right",
		"lines":                   "top left",
	}
	for _, tc := range legendCases(t) {
		if w, ok := want[tc.name]; ok {
			if got, _, _ := tc.chart.legendLayout(); got.corner != w {
				t.Errorf("%s: legend %s, want %s", tc.name, got.corner, w)
			}
		}
	}
}

func TestSegmentHitsRect(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 10, Y: 10}}
	for _, c := range []struct {
		a, b vg.Point
		want bool
	}{
		{vg.Point{X: -5, Y: 5}, vg.Point{X: 15, Y: 5}, true},    // through
		{vg.Point{X: 2, Y: 2}, vg.Point{X: 3, Y: 3}, true},      // inside
		{vg.Point{X: -5, Y: -5}, vg.Point{X: -1, Y: 20}, false}, // beside
		{vg.Point{X: -5, Y: 12}, vg.Point{X: 12, Y: 30}, false}, // above, slanted
		{vg.Point{X: -2, Y: 7}, vg.Point{X: 4, Y: 13}, true},    // clips a corner
		{vg.Point{X: 20, Y: 5}, vg.Point{X: 20, Y: 5}, false},   // a point outside
	} {
		if got := segmentHitsRect(c.a, c.b, r); got != c.want {
			t.Errorf("segment %v-%v: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A measurement and its fit share a colour (chapter 1's fit chart), each
// pair its own; explicit colours win.
func TestFitTakesItsPointsColour(t *testing.T) {
	x, y := []float64{1, 2}, []float64{1, 2}
	c, err := Lines("fits", Axis{}, Axis{},
		Series{Name: "LL measured", X: x, Y: y, Points: true}, Series{Name: "LL fit", X: x, Y: y, Dashed: true},
		Series{Name: "LL128 measured", X: x, Y: y, Points: true}, Series{Name: "LL128 fit", X: x, Y: y, Dashed: true},
		Series{Name: "Simple measured (recorded)", X: x, Y: y, Points: true}, Series{Name: "Simple fit", X: x, Y: y, Dashed: true},
		Series{Name: "ring model", X: x, Y: y, Dashed: true, Color: "#123456"}, Series{Name: "ring measured", X: x, Y: y, Points: true},
		Series{Name: "measured", X: x, Y: y, Points: true}, Series{Name: "model", X: x, Y: y, Dashed: true})
	if err != nil {
		t.Fatal(err)
	}
	colour := map[string]string{}
	for i, e := range c.entries {
		colour[e.name] = fmt.Sprint(thumbColour(t, c, i))
	}
	for _, pair := range [][2]string{{"LL measured", "LL fit"}, {"LL128 measured", "LL128 fit"}, {"Simple measured (recorded)", "Simple fit"}, {"ring model", "ring measured"}} {
		if colour[pair[0]] != colour[pair[1]] {
			t.Errorf("%s %s and %s %s differ", pair[0], colour[pair[0]], pair[1], colour[pair[1]])
		}
	}
	if colour["LL fit"] == colour["LL128 fit"] || colour["LL128 fit"] == colour["Simple fit"] {
		t.Error("two pairs share a colour")
	}
	if colour["measured"] == colour["model"] {
		t.Error("series named by their role alone were paired")
	}
	if !strings.Contains(strings.ToUpper(c.SVG()), "#123456") {
		t.Error("explicit colour lost")
	}
	for name, want := range map[string]string{"LL measured": "ll", "Simple measured (recorded)": "simple", "NCCL model, 2 GPUs": "nccl 2 gpus", "measured (2 x 8 H100)": ""} {
		if got := pairingKey(name); got != want {
			t.Errorf("pairingKey(%q) = %q, want %q", name, got, want)
		}
	}
}

// thumbColour is the colour of the first thumbnail of legend entry i.
func thumbColour(t *testing.T, c *Chart, i int) color.Color {
	t.Helper()
	switch th := c.entries[i].thumbs[0].(type) {
	case *plotter.Line:
		return th.LineStyle.Color
	case *plotter.Scatter:
		return th.GlyphStyle.Color
	}
	t.Fatalf("entry %d: thumbnail %T", i, c.entries[i].thumbs[0])
	return nil
}
