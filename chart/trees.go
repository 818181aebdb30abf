package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Tree is one tree to draw over ranks 0..n-1: Parent[r] is rank r's parent,
// -1 for the root (costmodel.BinaryTree's Parent).
type Tree struct {
	Name   string
	Parent []int
}

// maxTreeRanks keeps a drawing readable: each rank gets a column.
const maxTreeRanks = 64

// depths returns each rank's distance from the root, checking that Parent
// is one tree: indices in range, exactly one root, no cycle.
func (t Tree) depths() ([]int, error) {
	n := len(t.Parent)
	roots := 0
	for r, p := range t.Parent {
		if p < -1 || p >= n || p == r {
			return nil, fmt.Errorf("%w: tree %q: rank %d has parent %d (ranks are 0..%d, -1 for the root)", ErrInput, t.Name, r, p, n-1)
		}
		if p == -1 {
			roots++
		}
	}
	if roots != 1 {
		return nil, fmt.Errorf("%w: tree %q has %d roots, want 1", ErrInput, t.Name, roots)
	}
	depth := make([]int, n)
	for r := range t.Parent {
		d := 0
		for p := t.Parent[r]; p != -1; p = t.Parent[p] {
			if d++; d >= n {
				return nil, fmt.Errorf("%w: tree %q: rank %d's parents form a cycle", ErrInput, t.Name, r)
			}
		}
		depth[r] = d
	}
	return depth, nil
}

// Trees draws trees over the same ranks one above the other, every rank in
// its own column in each tree, so that a reader sees where each rank sits
// in each: an inner node filled in its tree's colour, a leaf white, edges
// from each rank up to its parent. It is the picture of a double binary
// tree (costmodel.NCCLDoubleTree), where the filled ranks of one tree are
// the white ones of the other.
func Trees(title string, trees ...Tree) (*Chart, error) {
	if len(trees) == 0 {
		return nil, fmt.Errorf("%w: no tree to draw", ErrInput)
	}
	n := len(trees[0].Parent)
	if n < 1 || n > maxTreeRanks {
		return nil, fmt.Errorf("%w: %d ranks: draw 1 to %d", ErrInput, n, maxTreeRanks)
	}
	c := newChart("Trees", title, Axis{Label: "rank"}, Axis{}, false)
	d := &treeDrawing{n: n}
	top := 0.0
	for i, t := range trees {
		if len(t.Parent) != n {
			return nil, fmt.Errorf("%w: tree %q has %d ranks, tree %q %d", ErrInput, t.Name, len(t.Parent), trees[0].Name, n)
		}
		depth, err := t.depths()
		if err != nil {
			return nil, err
		}
		levels := 0
		for _, v := range depth {
			levels = max(levels, v)
		}
		col, err := c.nextColor("")
		if err != nil {
			return nil, err
		}
		d.bands = append(d.bands, treeBand{tree: t, depth: depth, top: top, color: col})
		inner := map[int]bool{}
		for _, p := range t.Parent {
			if p != -1 {
				inner[p] = true
			}
		}
		var innerList []string
		for r := 0; r < n; r++ {
			if inner[r] {
				innerList = append(innerList, strconv.Itoa(r))
			}
		}
		root := 0
		for r, p := range t.Parent {
			if p == -1 {
				root = r
			}
		}
		name := t.Name
		if name == "" {
			name = fmt.Sprintf("tree %d", i)
		}
		c.lines = append(c.lines, fmt.Sprintf("%s: root %d, %d %s deep, inner ranks %s", name, root, levels,
			plural(levels, "level"), strings.Join(innerList, ", ")))
		top -= float64(levels) + 1.6 // a band per tree, a gap for the next one's name
	}
	c.plot.Add(d)
	c.plot.HideAxes()
	c.plot.X.Label.Text = "" // the columns are the ranks; the nodes say which
	c.plot.X.Min, c.plot.X.Max = -0.6, float64(n)-0.4
	c.plot.Y.Min, c.plot.Y.Max = top+0.6, 0.9
	c.xr.add(0)
	c.xr.add(float64(n - 1))
	c.notes = append(c.notes, "filled: inner node (sends up to its parent and down to its children); white: leaf")
	return c, nil
}

// treeBand is one tree of the drawing: its rows start at y = top and go
// down one unit per level.
type treeBand struct {
	tree  Tree
	depth []int
	top   float64
	color color.Color
}

type treeDrawing struct {
	n     int
	bands []treeBand
}

func (d *treeDrawing) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	cell := trX(1) - trX(0)
	level := trY(1) - trY(0) // y grows upwards
	radius := min(vg.Points(15), 0.42*cell, 0.34*level)
	size := min(noteSize, radius*1.1)
	at := func(b treeBand, r int) vg.Point {
		return vg.Point{X: trX(float64(r)), Y: trY(b.top - float64(b.depth[r]))}
	}
	for i, b := range d.bands {
		name := b.tree.Name
		if name == "" {
			name = fmt.Sprintf("tree %d", i)
		}
		label := textStyle(sansBold, noteSize, draw.XLeft, draw.YBottom)
		label.Color = b.color
		c.FillText(label, vg.Point{X: trX(-0.5), Y: trY(b.top) + radius + vg.Points(4)}, name)

		edge := draw.LineStyle{Color: b.color, Width: vg.Points(1.6)}
		for r, parent := range b.tree.Parent {
			if parent != -1 {
				from, to := at(b, r), at(b, parent)
				c.StrokeLine2(edge, from.X, from.Y, to.X, to.Y)
			}
		}
		inner := make([]bool, d.n)
		for _, parent := range b.tree.Parent {
			if parent != -1 {
				inner[parent] = true
			}
		}
		for r := 0; r < d.n; r++ {
			circle := circlePath(at(b, r), radius)
			fill, ink := color.Color(color.White), color.Color(textColor)
			if inner[r] {
				fill, ink = b.color, color.White
			}
			c.SetColor(fill)
			c.Fill(circle)
			c.SetLineStyle(edge)
			c.Stroke(circle)
			sty := textStyle(sansBold, size, draw.XCenter, draw.YCenter)
			sty.Color = ink
			c.FillText(sty, at(b, r), strconv.Itoa(r))
		}
	}
	note := textStyle(sansFont, noteSize, draw.XLeft, draw.YBottom)
	note.Color = noteColor
	c.FillText(note, vg.Point{X: c.Min.X + vg.Points(4), Y: c.Min.Y + vg.Points(2)},
		"filled: inner node, sends up to its parent and down to its children; white: leaf")
}

// circlePath is a closed circle around centre.
func circlePath(centre vg.Point, radius vg.Length) vg.Path {
	var path vg.Path
	path.Move(vg.Point{X: centre.X + radius, Y: centre.Y})
	path.Arc(centre, radius, 0, 2*math.Pi)
	path.Close()
	return path
}

var _ plot.Plotter = (*treeDrawing)(nil)
