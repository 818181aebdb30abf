package costmodel_test

import (
	"fmt"

	"github.com/commlab/commlab/costmodel"
)

// NCCL's own model of a ring all_reduce with the LL protocol on two H200s
// of one node, NVLink SHARP off: its latency and the bandwidth it assumes.
func ExampleTunerTable_Entry() {
	node, err := costmodel.NodeByName("hgx-h200")
	if err != nil {
		panic(err)
	}
	tuner, err := costmodel.Machine{Node: node, GPUsPerNode: 2, NVLSOff: true}.Tuner()
	if err != nil {
		panic(err)
	}
	e, ok := tuner.Entry(costmodel.AllReduce, "ring", "ll")
	fmt.Println(ok, e.Algorithm, e.Protocol, e.LatencyUs, "µs", e.BandwidthGBps, "GB/s")
	_, ok = tuner.Entry(costmodel.AllReduce, "ring", "no such protocol")
	fmt.Println(ok)
	// Output:
	// true Ring LL 7.8 µs 141 GB/s
	// false
}
