package chart

import (
	"errors"
	"strings"
	"testing"

	"github.com/commlab/commlab/costmodel"
)

// doubleTreeOf8 is NCCL's double binary tree of 8 ranks as Trees takes it.
func doubleTreeOf8(t *testing.T) []Tree {
	t.Helper()
	d, err := costmodel.NCCLDoubleTree(8)
	if err != nil {
		t.Fatal(err)
	}
	return []Tree{{Name: "tree 0", Parent: d.Trees[0].Parent}, {Name: "tree 1 (mirror)", Parent: d.Trees[1].Parent}}
}

func TestTreesDescribe(t *testing.T) {
	c, err := Trees("NCCL's double binary tree, 8 ranks", doubleTreeOf8(t)...)
	if err != nil {
		t.Fatal(err)
	}
	want := `Trees "NCCL's double binary tree, 8 ranks": x rank [0 .. 7]
  tree 0: root 0, 3 levels deep, inner ranks 0, 2, 4, 6
  tree 1 (mirror): root 7, 3 levels deep, inner ranks 1, 3, 5, 7
  filled: inner node (sends up to its parent and down to its children); white: leaf`
	if got := c.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTreesGoldenPNG compares the double tree's render with
// testdata/trees.golden.png as TestGoldenPNG does for the other builders.
func TestTreesGoldenPNG(t *testing.T) {
	c, err := Trees("NCCL's double binary tree, 8 ranks", doubleTreeOf8(t)...)
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenPNG(t, "trees", c)
}

func TestTreesRefuseBadInput(t *testing.T) {
	for name, trees := range map[string][]Tree{
		"none":         nil,
		"no ranks":     {{Parent: nil}},
		"two roots":    {{Parent: []int{-1, -1}}},
		"cycle":        {{Parent: []int{-1, 2, 1}}},
		"out of range": {{Parent: []int{-1, 5}}},
		"self":         {{Parent: []int{-1, 1}}},
		"lengths":      {{Parent: []int{-1, 0}}, {Parent: []int{-1}}},
		"too many":     {{Parent: append([]int{-1}, make([]int, maxTreeRanks)...)}},
	} {
		if _, err := Trees(name, trees...); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
}

func TestTreesSVG(t *testing.T) {
	c, err := Trees("", doubleTreeOf8(t)...)
	if err != nil {
		t.Fatal(err)
	}
	svg := c.SVG()
	if !strings.Contains(svg, "<svg") || strings.Count(svg, "tree 1 (mirror)") == 0 {
		t.Errorf("SVG lacks the drawing or the tree's name: %.200s", svg)
	}
}
