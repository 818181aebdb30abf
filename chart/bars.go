package chart

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Stack is one layer of a stacked bar chart, such as the latency term or
// the bandwidth term of a predicted time: its value in each category.
type Stack struct {
	Name   string
	Values []float64
	// Color is "#rrggbb"; empty takes the next colour of the palette.
	Color string
}

// Bars is the input of StackedBars.
type Bars struct {
	// Categories label the bars left to right: sizes ("64 KiB", "1 GiB")
	// or algorithms ("ring", "tree").
	Categories []string
	// CategoryLabel names the category axis, e.g. "Algorithm".
	CategoryLabel string
	// Stacks are the layers, bottom first; each has one value per
	// category, all >= 0.
	Stacks []Stack
	// Value is the value axis: Label and Unit (UnitSeconds prints
	// us/ms/s). It cannot be a log axis: stacked lengths would not add.
	Value Axis
}

func (b Bars) check() error {
	if len(b.Categories) == 0 {
		return fmt.Errorf("%w: bars: no categories", ErrInput)
	}
	if len(b.Stacks) == 0 {
		return fmt.Errorf("%w: bars: no stacks", ErrInput)
	}
	if b.Value.Log {
		return fmt.Errorf("%w: bars: a log value axis cannot show stacked sums", ErrInput)
	}
	for _, s := range b.Stacks {
		if len(s.Values) != len(b.Categories) {
			return fmt.Errorf("%w: bars: stack %q has %d values but there are %d categories", ErrInput, s.Name, len(s.Values), len(b.Categories))
		}
		for i, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("%w: bars: stack %q, %s: value %v: want a finite value >= 0", ErrInput, s.Name, b.Categories[i], v)
			}
		}
	}
	return nil
}

// StackedBars draws one bar per category, its stacks piled bottom first,
// with the total written above each bar: a time breakdown per size or per
// algorithm.
func StackedBars(title string, b Bars) (*Chart, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	c := newChart("StackedBars", title, Axis{Label: b.CategoryLabel}, b.Value, false)
	c.xFit, c.yFit = fitFixed, fitFromMin
	g := newGrid()
	g.Vertical.Color = nil
	c.plot.Add(g)

	// Bars take 60% of their slot, within bounds that read at 720 px.
	slot := (vg.Length(c.width) - vg.Points(120)) / vg.Length(len(b.Categories))
	width := vg.Length(math.Max(8, math.Min(90, float64(slot)*0.6)))
	totals := make([]float64, len(b.Categories))
	var below *plotter.BarChart
	for _, s := range b.Stacks {
		col, err := c.nextColor(s.Color)
		if err != nil {
			return nil, err
		}
		bc, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return nil, fmt.Errorf("%w: bars: stack %q: %v", ErrInput, s.Name, err)
		}
		bc.Color = col
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		c.plot.Add(bc)
		if s.Name != "" {
			c.addLegend(s.Name, bc)
		}
		for i, v := range s.Values {
			totals[i] += v
		}
		c.lines = append(c.lines, fmt.Sprintf("%s: %s", s.Name, joinFormatted(s.Values, formatterFor(b.Value.Unit))))
	}
	bt := &barTotals{totals: totals, format: formatterFor(b.Value.Unit)}
	c.plot.Add(bt)
	c.shapes = append(c.shapes, barShape{stacks: b.Stacks, width: width}, bt)
	c.plot.NominalX(b.Categories...)
	c.plot.X.Min, c.plot.X.Max = -0.5, float64(len(b.Categories))-0.5
	c.plot.X.Tick.Label = textStyle(sansFont, tickSize, draw.XCenter, draw.YTop)
	c.plot.X.Tick.Length = 0
	c.plot.Y.Min = 0
	max := 0.0
	for _, t := range totals {
		max = math.Max(max, t)
	}
	if max == 0 {
		max = 1
	}
	c.plot.Y.Max = max * 1.12 // room for the totals above the bars
	c.notes = append(c.notes, "categories: "+strings.Join(b.Categories, ", "))
	return c, nil
}

func joinFormatted(vs []float64, f func(float64) string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = f(v)
	}
	return strings.Join(parts, ", ")
}

// barTotals writes each bar's total above it.
type barTotals struct {
	totals []float64
	format func(float64) string
}

func (t *barTotals) Plot(c draw.Canvas, p *plot.Plot) {
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YBottom)
	for i, v := range t.totals {
		c.FillText(sty, t.at(c, p, i), t.format(v))
	}
}

// at is where the total of bar i is written.
func (t *barTotals) at(c draw.Canvas, p *plot.Plot, i int) vg.Point {
	trX, trY := p.Transforms(&c)
	return vg.Point{X: trX(float64(i)), Y: trY(t.totals[i]) + vg.Points(3)}
}

func (t *barTotals) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	sty := textStyle(sansFont, noteSize, draw.XCenter, draw.YBottom)
	out := make([]obstacle, len(t.totals))
	for i, v := range t.totals {
		out[i] = textObstacle(sty, t.at(c, p, i), t.format(v))
	}
	return out
}

// barShape is where the stacked bars stand: each bar from zero to its
// total, width wide, centred on its category.
type barShape struct {
	stacks []Stack
	width  vg.Length
}

func (b barShape) obstacles(c draw.Canvas, p *plot.Plot) []obstacle {
	trX, trY := p.Transforms(&c)
	var out []obstacle
	for i := range b.stacks[0].Values {
		total := 0.0
		for _, s := range b.stacks {
			total += s.Values[i]
		}
		x := trX(float64(i))
		out = append(out, rectObstacle(vg.Rectangle{Min: vg.Point{X: x - b.width/2, Y: trY(0)}, Max: vg.Point{X: x + b.width/2, Y: trY(total)}}))
	}
	return out
}

var (
	_ plot.Plotter = (*barTotals)(nil)
	_ obstacler    = (*barTotals)(nil)
	_ obstacler    = barShape{}
)
