package c10dlab_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/probes/c10dlab"
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
