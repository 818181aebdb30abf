package nccl_test

import (
	"fmt"

	"github.com/commlab/commlab/probes/nccl"
)

// nccl-tests' size column and busbw factor for an 8-GPU all_gather of 1 MiB.
func ExampleCounts() {
	param, send, recv, size := nccl.Counts(nccl.AllGather, 1<<20, 4, 8)
	fmt.Println(param, send, recv, size, nccl.BusFactor(nccl.AllGather, 8))
	// Output: 32768 32768 262144 1048576 0.875
}

func ExampleSweep() {
	fmt.Println(nccl.Sweep(8, 128, 2))
	// Output: [8 16 32 64 128]
}
