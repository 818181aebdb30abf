package chart

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPreview writes every sample chart as PNG and SVG into the folder
// named by CHART_PREVIEW_DIR, for a person to look at; without it the test
// is skipped.
func TestPreview(t *testing.T) {
	dir := os.Getenv("CHART_PREVIEW_DIR")
	if dir == "" {
		t.Skip("set CHART_PREVIEW_DIR to write sample charts there")
	}
	for _, tc := range sampleCharts(t) {
		for _, ext := range []string{".png", ".svg", ".pdf"} {
			if err := tc.chart.Save(filepath.Join(dir, tc.name+ext)); err != nil {
				t.Error(err)
			}
		}
	}
}
