package chart

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
)

type namedChart struct {
	name  string
	chart *Chart
	// texts must appear in the SVG (title, axis labels, legend, notes).
	texts []string
}

// sampleCharts builds one chart of each builder from recorded and modelled
// inputs, as the chapters do.
func sampleCharts(t testing.TB) []namedChart {
	t.Helper()
	sw := loadSweep(t)
	rows := modelRows(t, sw.sizes)
	measuredTime := Series{Name: "measured (2 x 8 H100, nccl-tests)", X: sw.sizes, Y: sw.times, Points: true}
	measuredBW := Series{Name: "measured (2 x 8 H100, nccl-tests)", X: sw.sizes, Y: sw.busbw, Points: true}

	// For ring all_reduce the latency term 2(n-1)alpha equals the bandwidth
	// term 2(n-1)/n S/beta at S* = n alpha beta.
	crossover := h100Ranks * h100Alpha * h100Beta
	tvs, err := TimeVsSize("all_reduce, 16 GPUs: measured vs ring model", crossover,
		ModelTime("ring model", rows), measuredTime)
	if err != nil {
		t.Fatal(err)
	}

	nvl, err := costmodel.LinkByName("nvlink4-gpu")
	if err != nil {
		t.Fatal(err)
	}
	peak := nvl.Bandwidth.OneWay() / 1e9
	bw, err := BusBWVsSize("all_reduce bus bandwidth, 16 GPUs", peak, "NVLink 4 per GPU, 450 GB/s one way",
		ModelBusBW("ring model", rows), measuredBW)
	if err != nil {
		t.Fatal(err)
	}

	hm, err := Heatmap("P2P read bandwidth, 6x RTX A6000 (nvbandwidth)", loadP2P(t))
	if err != nil {
		t.Fatal(err)
	}

	algRows := costmodel.SweepAlgorithms(costmodel.Params{
		Collective: costmodel.AllReduce, Ranks: 8, Bytes: 256 << 10, Alpha: 5e-6, Beta: 25e9,
	})
	bars, err := StackedBars("all_reduce of 256 KiB, 8 GPUs, 25 GB/s links: where the time goes",
		BreakdownByAlgorithm(algRows))
	if err != nil {
		t.Fatal(err)
	}

	resid := make([]float64, len(rows))
	for i, r := range rows {
		resid[i] = 100 * (sw.times[i]/r.Time - 1)
	}
	res, err := Lines("Residual of the ring model", Axis{Label: "Message size", Unit: UnitBytes, Log: true},
		Axis{Label: "measured / model - 1", Unit: "%"}, Series{Name: "residual", X: sw.sizes, Y: resid, Points: true, Dashed: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.AddHLine(0, "model"); err != nil {
		t.Fatal(err)
	}
	if err := res.AddVLine(128<<10, "decode TP all_reduce"); err != nil {
		t.Fatal(err)
	}

	// Synthetic spans, shaped like a DDP step (backward kernels on the
	// compute stream, bucket all_reduces on the NCCL stream); not a trace.
	spans := []Span{
		{Lane: "stream 7 (compute)", Start: 0, End: 900e-6, Kind: "compute", Label: "backward L3"},
		{Lane: "stream 7 (compute)", Start: 920e-6, End: 1800e-6, Kind: "compute", Label: "backward L2"},
		{Lane: "stream 7 (compute)", Start: 1820e-6, End: 2700e-6, Kind: "compute", Label: "backward L1"},
		{Lane: "stream 13 (NCCL)", Start: 950e-6, End: 1700e-6, Kind: "communication", Label: "all_reduce b0"},
		{Lane: "stream 13 (NCCL)", Start: 1850e-6, End: 2600e-6, Kind: "communication", Label: "all_reduce b1"},
		{Lane: "stream 13 (NCCL)", Start: 2750e-6, End: 3500e-6, Kind: "communication", Label: "all_reduce b2"},
	}
	tl, err := Timeline("DDP step: overlap of compute and communication", spans)
	if err != nil {
		t.Fatal(err)
	}

	return []namedChart{
		{"time_vs_size", tvs, []string{"all_reduce, 16 GPUs: measured vs ring model", "Message size", "Time",
			"ring model", "measured (2 x 8 H100, nccl-tests)", "latency-bound", "bandwidth-bound", "8 B", "1 GiB", "1 ms", "S* = "}},
		{"busbw_vs_size", bw, []string{"all_reduce bus bandwidth, 16 GPUs", "Bus bandwidth (GB/s)", "Message size",
			"ring model", "NVLink 4 per GPU, 450 GB/s one way"}},
		{"heatmap", hm, []string{"P2P read bandwidth, 6x RTX A6000 (nvbandwidth)", "Source GPU", "Destination GPU",
			"GPU5", "N/A", "26.3", "GB/s"}},
		{"stacked_bars", bars, []string{"where the time goes", "Algorithm", "latency term", "bandwidth term", "ring", "Time"}},
		{"lines", res, []string{"Residual of the ring model", "measured / model - 1 (%)", "decode TP all_reduce"}},
		{"timeline", tl, []string{"DDP step: overlap of compute and communication", "stream 13 (NCCL)", "communication",
			"all_reduce b2", "Time", "3 ms"}},
	}
}

func TestRenderPNG(t *testing.T) {
	for _, tc := range sampleCharts(t) {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.chart.PNG()
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			got := img.Bounds().Size()
			if got.X != DefaultWidth*PixelRatio || got.Y != DefaultHeight*PixelRatio {
				t.Errorf("PNG is %dx%d, want %dx%d", got.X, got.Y, DefaultWidth*PixelRatio, DefaultHeight*PixelRatio)
			}
			// Not blank: a rendered chart has many distinct colours.
			colours := map[[4]uint32]bool{}
			for y := 0; y < got.Y; y += 7 {
				for x := 0; x < got.X; x += 7 {
					r, g, b, a := img.At(x, y).RGBA()
					colours[[4]uint32{r, g, b, a}] = true
				}
			}
			if len(colours) < 20 {
				t.Errorf("PNG has %d distinct colours in a sample: looks blank", len(colours))
			}
		})
	}
}

func TestRenderSVG(t *testing.T) {
	for _, tc := range sampleCharts(t) {
		t.Run(tc.name, func(t *testing.T) {
			svg := tc.chart.SVG()
			if !strings.Contains(svg, `<svg width="720" height="450" viewBox="0 0 720 450"`) {
				t.Errorf("SVG header not sized in CSS pixels: %.200s", svg)
			}
			if !strings.HasSuffix(strings.TrimSpace(svg), "</svg>") {
				t.Error("SVG not closed")
			}
			if !strings.Contains(svg, "Arial") {
				t.Error("SVG fonts have no fallback family")
			}
			for _, want := range tc.texts {
				if !strings.Contains(svg, escapeXML(want)) {
					t.Errorf("SVG lacks %q", want)
				}
			}
		})
	}
}

func escapeXML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func TestMIMEBundle(t *testing.T) {
	c := sampleCharts(t)[0].chart
	b := c.MIMEBundle()
	for _, k := range []string{"image/png", "image/svg+xml", "text/plain"} {
		if _, ok := b[k].(string); !ok {
			t.Fatalf("bundle lacks %s string: %v", k, keys(b))
		}
	}
	raw, err := base64.StdEncoding.DecodeString(b["image/png"].(string))
	if err != nil {
		t.Fatalf("image/png is not base64: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatalf("image/png does not decode: %v", err)
	}
	if b["text/plain"] != c.String() {
		t.Errorf("text/plain = %q, want String()", b["text/plain"])
	}
	md := c.MIMEMetadata()["image/png"].(map[string]any)
	if md["width"] != float64(DefaultWidth) || md["height"] != float64(DefaultHeight) {
		t.Errorf("metadata = %v, want the logical size", md)
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestSave(t *testing.T) {
	c := sampleCharts(t)[2].chart
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		magic string
	}{
		{"chart.png", "\x89PNG"},
		{"chart.svg", "<?xml"},
		{"chart.PDF", "%PDF"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := c.Save(path); err != nil {
			t.Fatalf("Save(%s): %v", tc.name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(tc.magic)) {
			t.Errorf("%s starts %q, want %q", tc.name, b[:min(8, len(b))], tc.magic)
		}
	}
	if err := c.Save(filepath.Join(dir, "chart.gif")); !errors.Is(err, ErrFormat) {
		t.Errorf("Save(.gif) = %v, want ErrFormat", err)
	}
	if err := c.Save(filepath.Join(dir, "missing", "chart.png")); err == nil {
		t.Error("Save into a missing folder succeeded")
	}
	// Only the three saved files: no temporary file left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want the 3 saved files", names)
	}
}

func TestBadInput(t *testing.T) {
	good := Series{Name: "ok", X: []float64{8, 16}, Y: []float64{1e-5, 2e-5}}
	nan := math.NaN()
	size := Axis{Label: "Message size", Unit: UnitBytes, Log: true}
	lin := Axis{Label: "Value"}
	for _, tc := range []struct {
		name string
		make func() (*Chart, error)
		want string
	}{
		{"mismatched lengths", func() (*Chart, error) {
			return TimeVsSize("t", 0, Series{Name: "m", X: []float64{8, 16, 32}, Y: []float64{1, 2}})
		}, `series "m" has 3 x values but 2 y values`},
		{"no series", func() (*Chart, error) { return TimeVsSize("t", 0) }, "no series"},
		{"empty series", func() (*Chart, error) { return Lines("t", lin, lin, Series{Name: "e"}) }, `series "e" has no points`},
		{"zero size on log axis", func() (*Chart, error) {
			return TimeVsSize("t", 0, Series{Name: "m", X: []float64{0, 8}, Y: []float64{1, 2}})
		}, `series "m" point 0: x = 0 on a log axis (Message size): values must be > 0`},
		{"negative time on log axis", func() (*Chart, error) {
			return TimeVsSize("t", 0, good, Series{Name: "m", X: []float64{8, 16}, Y: []float64{1, -2}})
		}, `series "m" point 1: y = -2 on a log axis (Time)`},
		{"NaN", func() (*Chart, error) { return Lines("t", lin, lin, Series{X: []float64{1}, Y: []float64{nan}}) },
			`series "(unnamed)" point 0: y = NaN`},
		{"Inf", func() (*Chart, error) {
			return BusBWVsSize("t", 0, "", Series{Name: "b", X: []float64{8}, Y: []float64{math.Inf(1)}})
		}, `y = +Inf`},
		{"negative crossover", func() (*Chart, error) { return TimeVsSize("t", -1, good) }, "crossover -1 bytes"},
		{"NaN peak", func() (*Chart, error) { return BusBWVsSize("t", nan, "", good) }, "peak NaN GB/s"},
		{"bad colour", func() (*Chart, error) {
			return Lines("t", lin, lin, Series{X: []float64{1}, Y: []float64{1}, Color: "blue"})
		},
			`colour "blue": want #rrggbb`},
		{"ragged matrix", func() (*Chart, error) {
			return Heatmap("h", Matrix{Rows: []string{"a", "b"}, Cols: []string{"x", "y"}, Values: [][]float64{{1, 2}, {3}}})
		}, "matrix row 1 (b) has 1 values but 2 column labels"},
		{"matrix rows", func() (*Chart, error) {
			return Heatmap("h", Matrix{Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{1}, {2}}})
		}, "1 row labels but 2 rows of values"},
		{"empty matrix", func() (*Chart, error) { return Heatmap("h", Matrix{}) }, "matrix has 0 rows"},
		{"Inf cell", func() (*Chart, error) {
			return Heatmap("h", Matrix{Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{math.Inf(-1)}}})
		}, "cell a,x is -Inf"},
		{"bars lengths", func() (*Chart, error) {
			return StackedBars("b", Bars{Categories: []string{"a", "b"}, Stacks: []Stack{{Name: "s", Values: []float64{1}}}})
		}, `stack "s" has 1 values but there are 2 categories`},
		{"negative bar", func() (*Chart, error) {
			return StackedBars("b", Bars{Categories: []string{"a"}, Stacks: []Stack{{Name: "s", Values: []float64{-1}}}})
		}, `stack "s", a: value -1`},
		{"log bars", func() (*Chart, error) {
			return StackedBars("b", Bars{Categories: []string{"a"}, Stacks: []Stack{{Values: []float64{1}}}, Value: Axis{Log: true}})
		}, "log value axis"},
		{"no stacks", func() (*Chart, error) { return StackedBars("b", Bars{Categories: []string{"a"}}) }, "no stacks"},
		{"no spans", func() (*Chart, error) { return Timeline("t", nil) }, "no spans"},
		{"span backwards", func() (*Chart, error) {
			return Timeline("t", []Span{{Lane: "s", Start: 2, End: 1}})
		}, "span 0 (s): start 2, end 1"},
		{"span NaN", func() (*Chart, error) { return Timeline("t", []Span{{Lane: "s", Start: nan, End: 1}}) }, "start NaN"},
		{"log line at zero", func() (*Chart, error) {
			c, err := Lines("t", size, lin, good)
			if err != nil {
				return nil, err
			}
			return c, c.AddVLine(0, "zero")
		}, `x = 0 on a log axis`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.make()
			if !errors.Is(err, ErrInput) {
				t.Fatalf("err = %v, want ErrInput", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "chart: bad input: ") {
				t.Errorf("err = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSetSize(t *testing.T) {
	c := sampleCharts(t)[1].chart
	if err := c.SetSize(400, 300); err != nil {
		t.Fatal(err)
	}
	b, err := c.PNG()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 800 || cfg.Height != 600 {
		t.Errorf("PNG is %dx%d, want 800x600", cfg.Width, cfg.Height)
	}
	if !strings.Contains(c.SVG(), `width="400" height="300"`) {
		t.Error("SVG not resized")
	}
	if err := c.SetSize(0, 300); !errors.Is(err, ErrInput) {
		t.Errorf("SetSize(0, 300) = %v, want ErrInput", err)
	}
}
