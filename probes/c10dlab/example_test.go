package c10dlab_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/c10dlab"
	"github.com/commlab/commlab/probes/measure"
)

// The recorded run on two CPU ranks: what gloo keeps in the store, what a
// timeout does to a gloo rank, and where torch.compile puts wait_tensor.
func ExampleRecorded() {
	res, err := c10dlab.Recorded(c10dlab.RecordedCPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range res.Store.Ranks[0].Ops {
		if op.Op == "set" {
			fmt.Printf("rank 0 publishes %d bytes under %s\n", op.Bytes, op.Key)
		}
	}
	r0 := res.Timeout.Run("1").Ranks[0]
	m, _ := r0.Reached("wait() raised")
	fmt.Println("TORCH_NCCL_ASYNC_ERROR_HANDLING=1 on gloo:", strings.SplitN(m.Error, ":", 2)[0], "from wait(), then", r0.Exit)
	fmt.Println(strings.Join(res.Compile.DynamoOps, " -> "))
	// Output:
	// rank 0 publishes 170 bytes under 0//cpu//0/0
	// TORCH_NCCL_ASYNC_ERROR_HANDLING=1 on gloo: RuntimeError from wait(), then exit 0
	// _c10d_functional.all_reduce -> _c10d_functional.wait_tensor -> mm
}

// A coalescing part as the chapter shows it: one table per tensor size,
// and why a method was not supported.
func ExampleCoalescePart_Markdown() {
	p := &c10dlab.CoalescePart{World: 2, Op: "SUM", Rows: []c10dlab.CoalesceRow{
		{Method: "separate", Count: 8, Bytes: 4096, TotalUS: 800},
		{Method: "coalescing_manager", Count: 8, Bytes: 4096, Error: "RuntimeError: not implemented"},
		{Method: "all_reduce_coalesced", Count: 8, Bytes: 4096, TotalUS: 100},
		{Method: "flat", Count: 8, Bytes: 4096, TotalUS: 120},
	}}
	fmt.Print(p.Markdown())
	// Output:
	// **4 KiB per tensor, SUM over 2 ranks**
	//
	// | tensors | separate | coalescing_manager | all_reduce_coalesced | flat (one buffer) | separate per tensor |
	// |---:|---:|:---|---:|---:|---:|
	// | 8 | 800 µs | not supported | 100 µs | 120 µs | 100 µs |
	//
	// coalescing_manager: RuntimeError: not implemented
}

// MeasurePair shows two recordings side by side when neither can run live:
// the gloo lab on CPU ranks and the NCCL lab on one H200.
func ExampleMeasurePair() {
	labs := c10dlab.MeasurePair(context.Background(),
		c10dlab.Request{Mode: measure.ModeRecorded, Config: c10dlab.Config{Backend: "gloo"}, Recorded: c10dlab.RecordedCPU},
		c10dlab.Request{Mode: measure.ModeRecorded, Config: c10dlab.Config{Backend: "nccl"}, Recorded: c10dlab.RecordedH200})
	fmt.Println(labs.CPUErr == nil, labs.CPU.Live, labs.CPU.Recorded)
	fmt.Println(labs.GPUErr == nil, labs.GPU.Live, labs.GPU.Recorded)
	// Output:
	// true false torch-c10d-cpu
	// true false torch-c10d-h200x1
}
