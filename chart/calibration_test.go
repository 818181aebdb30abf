package chart_test

import (
	"strings"
	"testing"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/costmodel"
)

// The calibration chart has a series per size regime and one for the
// known misses, and draws.
func TestCalibrationChart(t *testing.T) {
	rows, err := costmodel.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := chart.Calibration("calibrated model against published measurements", rows)
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	for _, want := range []string{"small (time, limit 30%)", "middle (busbw, limit 20%)", "large (busbw, limit 10%)", "known misses",
		"model = measured"} {
		if !strings.Contains(s, want) {
			t.Errorf("chart lacks %q:\n%s", want, s)
		}
	}
	if svg := c.SVG(); !strings.Contains(svg, "<svg") {
		t.Error("no SVG")
	}
}
