package chart_test

import (
	"fmt"

	"github.com/commlab/commlab/chart"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// A figure built with gonum/plot directly renders as the builders' charts.
func ExampleFromPlot() {
	p := plot.New()
	p.Title.Text = "squares"
	p.X.Label.Text = "n"
	line, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 4}, {X: 3, Y: 9}})
	if err != nil {
		panic(err)
	}
	p.Add(line)
	c := chart.FromPlot(p)
	png, err := c.PNG()
	fmt.Println(c)
	fmt.Println(len(png) > 0, err)
	// Output:
	// plot "squares": x n [1 .. 3], y (unlabelled) [1 .. 9]
	// true <nil>
}
