package chart

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/probes"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

func TestString(t *testing.T) {
	for _, tc := range sampleCharts(t) {
		s := tc.chart.String()
		if !strings.Contains(s, tc.texts[0]) {
			t.Errorf("%s: String() = %q lacks the title", tc.name, s)
		}
		for _, l := range tc.chart.legend {
			if !strings.Contains(s, l) {
				t.Errorf("%s: String() lacks series %q", tc.name, l)
			}
		}
	}
	tvs := sampleCharts(t)[0].chart.String()
	for _, want := range []string{"x Message size [8 B .. 8 GiB] log", "y Time [", "crossover S* = 21.27 MiB", "31 points, points"} {
		if !strings.Contains(tvs, want) {
			t.Errorf("TimeVsSize String() = %q, lacks %q", tvs, want)
		}
	}
}

// panicker stands for a gonum/plot failure inside rendering.
type panicker struct{}

func (panicker) Plot(draw.Canvas, *plot.Plot) { panic("boom") }

func TestRenderPanicBecomesError(t *testing.T) {
	c, err := Lines("p", Axis{}, Axis{}, Series{X: []float64{1}, Y: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	c.plot.Add(panicker{})
	if _, err := c.PNG(); err == nil || !strings.Contains(err.Error(), `chart: render "p": boom`) {
		t.Errorf("PNG() error = %v, want the render panic as an error", err)
	}
	if svg := c.SVG(); !strings.Contains(svg, "boom") {
		t.Errorf("SVG() = %q, want an SVG naming the error", svg)
	}
	b := c.MIMEBundle()
	if _, ok := b["image/png"]; ok || !strings.Contains(b["text/plain"].(string), "boom") {
		t.Errorf("MIMEBundle() = %v, want text/plain with the error only", b)
	}
	if err := c.Save(t.TempDir() + "/x.png"); err == nil {
		t.Error("Save of a chart that cannot render succeeded")
	}
}

// Rendering twice gives the same picture: drawing must not change the
// chart (the legend's box is added to a copy).
func TestRenderRepeatable(t *testing.T) {
	c := sampleCharts(t)[0].chart
	a, b := c.SVG(), c.SVG()
	if a != b {
		t.Error("two SVG renders of one chart differ")
	}
}

func TestAdapters(t *testing.T) {
	rows, err := costmodel.SweepSizes(costmodel.Params{Collective: costmodel.AllReduce, Algorithm: costmodel.Ring,
		Ranks: 8, Alpha: 5e-6, Beta: 25e9}, []float64{64e3, 1e9})
	if err != nil {
		t.Fatal(err)
	}
	mt := ModelTime("m", rows)
	if !mt.Dashed || mt.X[1] != 1e9 || mt.Y[1] != rows[1].Time {
		t.Errorf("ModelTime = %+v", mt)
	}
	mb := ModelBusBW("m", rows)
	if math.Abs(mb.Y[1]-rows[1].BusBW/1e9) > 1e-12 {
		t.Errorf("ModelBusBW y = %v, want GB/s", mb.Y[1])
	}
	bars := BreakdownBySize(rows)
	if got := strings.Join(bars.Categories, ","); got != "64 KB,1 GB" {
		t.Errorf("categories = %q", got)
	}
	if bars.Stacks[0].Values[0] != rows[0].LatencyTerm || bars.Stacks[1].Values[1] != rows[1].BandwidthTerm {
		t.Errorf("stacks = %+v", bars.Stacks)
	}
	algs := BreakdownByAlgorithm([]costmodel.Row{{Algorithm: "ring", Protocol: "simple"}, {Algorithm: "tree"}})
	if got := strings.Join(algs.Categories, ","); got != "ring/simple,tree" {
		t.Errorf("algorithm categories = %q", got)
	}

	// Synthetic samples: the adapter's bookkeeping, not measurements.
	samples := []probes.Sample{
		{Op: "all_reduce", Bytes: 1024, MedianUS: 20, BusBW: 0.1},
		{Op: "all_reduce", Bytes: 1 << 20, MedianUS: 40, BusBW: 45},
	}
	ms := MeasuredTime("nccl", samples)
	if !ms.Points || ms.X[1] != 1<<20 || math.Abs(ms.Y[1]-40e-6) > 1e-18 {
		t.Errorf("MeasuredTime = %+v", ms)
	}
	if mb := MeasuredBusBW("nccl", samples); mb.Y[1] != 45 {
		t.Errorf("MeasuredBusBW = %+v", mb)
	}

	p2p := []probes.Sample{
		{Op: "p2p_write", Src: 0, Dst: 1, Bytes: 1 << 20, AlgBW: 100},
		{Op: "p2p_write", Src: 0, Dst: 1, Bytes: 1 << 30, AlgBW: 300},
		{Op: "p2p_write", Src: 1, Dst: 0, Bytes: 1 << 30, AlgBW: 310},
		{Op: "p2p_read", Src: 1, Dst: 2, Bytes: 1 << 30, AlgBW: 1},
		{Op: "p2p_write", Src: -1, Dst: 0, Bytes: 1 << 30, AlgBW: 50},
		{Op: "p2p_write", Src: 0, Dst: 9, Bytes: 1 << 30, AlgBW: 50},
	}
	m := PeerMatrix(p2p, "p2p_write", 3)
	if m.Values[0][1] != 300 || m.Values[1][0] != 310 || !math.IsNaN(m.Values[1][2]) || !math.IsNaN(m.Values[0][0]) {
		t.Errorf("PeerMatrix values = %v", m.Values)
	}
	if strings.Join(m.Cols, ",") != "GPU0,GPU1,GPU2" || len(m.Rows) != 3 {
		t.Errorf("PeerMatrix labels = %v %v", m.Rows, m.Cols)
	}
	if _, err := Heatmap("p2p", m); err != nil {
		t.Errorf("Heatmap(PeerMatrix) = %v", err)
	}
	if _, err := Heatmap("none", PeerMatrix(nil, "x", 0)); !errors.Is(err, ErrInput) {
		t.Errorf("Heatmap of an empty PeerMatrix = %v, want ErrInput", err)
	}
}

func TestHeatmapEdgeCases(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		m    Matrix
		bar  bool
		want string
	}{
		{"all N/A", Matrix{Rows: []string{"a"}, Cols: []string{"b"}, Values: [][]float64{{nan}}}, false, "1 N/A cell"},
		{"one value", Matrix{Rows: []string{"a"}, Cols: []string{"b"}, Values: [][]float64{{5}}, Unit: "GB/s"}, true, "values 5 .. 5 GB/s"},
		{"negative", Matrix{Rows: []string{"a"}, Cols: []string{"b", "c"}, Values: [][]float64{{-5, 5}}}, true, "values -5 .. 5"},
		{"from min", Matrix{Rows: []string{"a"}, Cols: []string{"b", "c"}, Values: [][]float64{{21.8, 26.4}}, ScaleFromMin: true}, true, "values 21.8 .. 26.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Heatmap(tc.name, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if (c.colorBar != nil) != tc.bar {
				t.Errorf("colour bar = %v, want %v", c.colorBar != nil, tc.bar)
			}
			if !strings.Contains(c.String(), tc.want) {
				t.Errorf("String() = %q, want %q", c.String(), tc.want)
			}
			if _, err := c.PNG(); err != nil {
				t.Error(err)
			}
			if !strings.Contains(c.SVG(), tc.name) {
				t.Error("SVG lacks the title")
			}
		})
	}
}

func TestSeriesColors(t *testing.T) {
	c, err := Lines("c", Axis{}, Axis{},
		Series{Name: "a", X: []float64{1}, Y: []float64{1}, Color: "#123456"},
		Series{Name: "b", X: []float64{1}, Y: []float64{2}},
		Series{X: []float64{1}, Y: []float64{3}})
	if err != nil {
		t.Fatal(err)
	}
	svg := c.SVG()
	// The explicit colour, then the palette's first two.
	for _, want := range []string{"#123456", "#0072B2", "#D55E00"} {
		if !strings.Contains(strings.ToUpper(svg), strings.ToUpper(want)) {
			t.Errorf("SVG lacks colour %s", want)
		}
	}
	if len(c.legend) != 2 {
		t.Errorf("legend = %v: an unnamed series has no entry", c.legend)
	}
}

func BenchmarkPNG(b *testing.B) {
	c := sampleCharts(b)[0].chart
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.PNG(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSVG(b *testing.B) {
	c := sampleCharts(b)[0].chart
	b.ResetTimer()
	for b.Loop() {
		_ = c.SVG()
	}
}

// FuzzLines feeds arbitrary numbers to a builder and renders what it
// accepts: bad input must come back as ErrInput, never as a panic.
func FuzzLines(f *testing.F) {
	sw := loadSweep(f)
	for i := 0; i+1 < len(sw.sizes); i += 7 {
		f.Add(sw.sizes[i], sw.times[i], sw.sizes[i+1], sw.times[i+1], true)
	}
	f.Add(0.0, 1.0, -1.0, math.Inf(1), false)
	f.Add(math.NaN(), 1e300, 1e-300, 0.0, true)
	f.Add(1.0, 1.0, 1.0, 1.0, false)
	f.Fuzz(func(t *testing.T, x0, y0, x1, y1 float64, log bool) {
		ax := Axis{Label: "x", Unit: UnitBytes, Log: log}
		ay := Axis{Label: "y", Unit: UnitSeconds, Log: log}
		c, err := Lines("fuzz", ax, ay, Series{Name: "s", X: []float64{x0, x1}, Y: []float64{y0, y1}, Points: true})
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v is not ErrInput", err)
			}
			return
		}
		_ = c.String()
		_, _ = c.svgBytes()
	})
}

// SVG must stay well-formed XML whatever the labels hold.
func TestSVGWellFormed(t *testing.T) {
	c, err := Lines(`P2P <read> & "write"`, Axis{Label: "a < b", Unit: "B/s & more"}, Axis{Label: "y"},
		Series{Name: "s & t", X: []float64{1, 2}, Y: []float64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	charts := append(sampleCharts(t), namedChart{name: "escapes", chart: c})
	for _, tc := range charts {
		d := xml.NewDecoder(strings.NewReader(tc.chart.SVG()))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not well-formed XML: %v", tc.name, err)
			}
		}
	}
}

// Degenerate but valid inputs render: one point, equal values, zeros.
func TestDegenerateInputsRender(t *testing.T) {
	logB := Axis{Label: "Size", Unit: UnitBytes, Log: true}
	logS := Axis{Label: "Time", Unit: UnitSeconds, Log: true}
	one := Series{Name: "one", X: []float64{1024}, Y: []float64{1e-5}}
	for _, tc := range []struct {
		name string
		make func() (*Chart, error)
	}{
		{"one point log-log", func() (*Chart, error) { return Lines("one", logB, logS, one) }},
		{"one point time vs size", func() (*Chart, error) { return TimeVsSize("one", 4096, one) }},
		{"flat line log", func() (*Chart, error) {
			return Lines("flat", logB, logS, Series{X: []float64{8, 16}, Y: []float64{1e-5, 1e-5}})
		}},
		{"zero busbw", func() (*Chart, error) {
			return BusBWVsSize("zero", 0, "", Series{X: []float64{8, 16}, Y: []float64{0, 0}, Points: true})
		}},
		{"zero bars", func() (*Chart, error) {
			return StackedBars("zero", Bars{Categories: []string{"a"}, Stacks: []Stack{{Name: "s", Values: []float64{0}}}})
		}},
		{"instant span", func() (*Chart, error) { return Timeline("instant", []Span{{Lane: "s", Start: 1, End: 1}}) }},
		{"crossover outside data", func() (*Chart, error) {
			return TimeVsSize("outside", 1<<40, Series{X: []float64{8, 16}, Y: []float64{1e-5, 2e-5}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.PNG(); err != nil {
				t.Errorf("PNG: %v", err)
			}
			if _, err := c.svgBytes(); err != nil {
				t.Errorf("SVG: %v", err)
			}
		})
	}
}

func TestZeroChart(t *testing.T) {
	var zero Chart
	if _, err := zero.PNG(); !errors.Is(err, ErrInput) {
		t.Errorf("zero Chart PNG() = %v, want ErrInput", err)
	}
	if svg := zero.SVG(); !strings.Contains(svg, "empty chart") {
		t.Errorf("zero Chart SVG() = %q", svg)
	}
	var nilChart *Chart
	if s := nilChart.String(); s != "chart: <nil>" {
		t.Errorf("nil Chart String() = %q", s)
	}
	if err := nilChart.Save(filepath.Join(t.TempDir(), "x.svg")); !errors.Is(err, ErrInput) {
		t.Errorf("nil Chart Save() = %v, want ErrInput", err)
	}
}
