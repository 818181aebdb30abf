package chart_test

import (
	"fmt"

	"github.com/commlab/commlab/chart"
	"github.com/commlab/commlab/costmodel"
)

// The two trees NCCL builds over 4 nodes, drawn one above the other; in a
// notebook the chart shows as a picture, its String as these lines.
func ExampleTrees() {
	d, err := costmodel.NCCLDoubleTree(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := chart.Trees("double binary tree, 4 nodes",
		chart.Tree{Name: "tree 0", Parent: d.Trees[0].Parent},
		chart.Tree{Name: "tree 1", Parent: d.Trees[1].Parent})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output:
	// Trees "double binary tree, 4 nodes": x rank [0 .. 3]
	//   tree 0: root 0, 2 levels deep, inner ranks 0, 2
	//   tree 1: root 3, 2 levels deep, inner ranks 1, 3
	//   filled: inner node (sends up to its parent and down to its children); white: leaf
}
