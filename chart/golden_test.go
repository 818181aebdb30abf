package chart

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/commlab/commlab/internal/golden"
)

// TestGoldenPNG compares each sample chart, rendered at one image pixel per
// logical pixel, with testdata/<name>.golden.png. Fonts are embedded in
// gonum/plot, so renders are stable; the tolerance absorbs anti-aliasing
// changes between library versions, not layout changes.
func TestGoldenPNG(t *testing.T) {
	for _, tc := range sampleCharts(t) {
		t.Run(tc.name, func(t *testing.T) {
			checkGoldenPNG(t, tc.name, tc.chart)
		})
	}
}

// imageDiff returns the mean absolute difference of two PNGs per colour
// channel, from 0 (equal) to 1; images of different sizes differ by 1.
func imageDiff(a, b []byte) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 1, nil
	}
	return meanDiff(ia, ib), nil
}

func meanDiff(a, b image.Image) float64 {
	var sum float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			sum += absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2) + absDiff(a1, a2)
		}
	}
	return sum / float64(4*0xffff*r.Dx()*r.Dy())
}

func absDiff(a, b uint32) float64 {
	if a > b {
		return float64(a - b)
	}
	return float64(b - a)
}

func TestImageDiff(t *testing.T) {
	c := sampleCharts(t)[3].chart
	a, err := c.renderPNG(1)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := imageDiff(a, a); err != nil || d != 0 {
		t.Errorf("diff of an image with itself = %v, %v", d, err)
	}
	other, err := sampleCharts(t)[4].chart.renderPNG(1)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := imageDiff(a, other); d <= 0.002 {
		t.Errorf("diff of two different charts = %v, want above the golden tolerance", d)
	}
	if _, err := imageDiff(a, []byte("not a png")); err == nil {
		t.Error("diff with a non-PNG succeeded")
	}
}

// checkGoldenPNG renders c at one image pixel per logical pixel and
// compares it with testdata/<name>.golden.png (-update writes it).
func checkGoldenPNG(t *testing.T, name string, c *Chart) {
	t.Helper()
	got, err := c.renderPNG(1)
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckFunc(t, filepath.Join("testdata", name+".golden.png"), got, func(got, want []byte) error {
		diff, err := imageDiff(got, want)
		if err != nil {
			return err
		}
		if diff > 0.002 {
			out := filepath.Join(t.TempDir(), name+".png")
			_ = os.WriteFile(out, got, 0o644)
			return fmt.Errorf("by %.4f (mean per channel, 0..1); got %s", diff, out)
		}
		return nil
	})
}
