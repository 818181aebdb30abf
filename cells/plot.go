package cells

import (
	"fmt"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/kernel/display"
)

// A figure a cell builds with gonum/plot directly shows as chart's
// charts do.
func init() {
	display.RegisterRenderer(chart.PlotType, renderPlot)
}

func renderPlot(v any) (display.Bundle, error) {
	c, ok := chart.Figure(v)
	if !ok {
		return display.Bundle{}, fmt.Errorf("render: %T is not a gonum plot", v)
	}
	return display.BundleOf(c), nil
}
