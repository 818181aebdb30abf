package cells

import (
	"fmt"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/kernel/display"
)

func renderPlot(v any) (display.Bundle, error) {
	c, ok := chart.Figure(v)
	if !ok {
		return display.Bundle{}, fmt.Errorf("cells: %T is not a gonum plot", v)
	}
	return display.BundleOf(c), nil
}
