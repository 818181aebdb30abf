package costmodel_test

import (
	"fmt"
	"slices"

	"github.com/commlab/commlab/costmodel"
)

// The two trees NCCL builds over 8 nodes: the second is the first's mirror,
// so the even ranks are inner nodes of the first and leaves of the second.
// Over one tree the busiest rank sends 3S; over the pair, each carrying
// half the data, 2S: the ring's bandwidth term.
func ExampleNCCLDoubleTree() {
	d, err := costmodel.NCCLDoubleTree(8)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, t := range d.Trees {
		fmt.Printf("tree %d: root %d, parents %v, inner %v, depth %d\n", i, t.Root, t.Parent, t.Inner(), t.Depth())
	}
	fmt.Println("one tree, sends per rank:", d.Trees[0].AllReduceSends(1))
	fmt.Println("both trees, sends per rank:", d.AllReduceSends(), "busiest", slices.Max(d.AllReduceSends()))
	// Output:
	// tree 0: root 0, parents [-1 2 4 2 0 6 4 6], inner [0 2 4 6], depth 3
	// tree 1: root 7, parents [1 3 1 7 5 3 5 -1], inner [1 3 5 7], depth 3
	// one tree, sends per rank: [1 1 3 1 3 1 3 1]
	// both trees, sends per rank: [1 2 2 2 2 2 2 1] busiest 2
}

// A ring all_reduce of 4 ranks: three reduce_scatter steps, after which
// rank r holds chunk r+1 summed over all four, then three all_gather steps
// that pass the sums on.
func ExampleRingAllReduceSchedule() {
	steps, err := costmodel.RingAllReduceSchedule(4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range steps {
		fmt.Printf("step %d %-14s chunks sent %v, inputs summed in each %v\n", s.Step, s.Phase, s.Chunk, s.Sums)
	}
	// Output:
	// step 1 reduce_scatter chunks sent [0 1 2 3], inputs summed in each [1 1 1 1]
	// step 2 reduce_scatter chunks sent [3 0 1 2], inputs summed in each [2 2 2 2]
	// step 3 reduce_scatter chunks sent [2 3 0 1], inputs summed in each [3 3 3 3]
	// step 4 all_gather     chunks sent [1 2 3 0], inputs summed in each [4 4 4 4]
	// step 5 all_gather     chunks sent [0 1 2 3], inputs summed in each [4 4 4 4]
	// step 6 all_gather     chunks sent [3 0 1 2], inputs summed in each [4 4 4 4]
}
