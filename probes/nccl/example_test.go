package nccl_test

import (
	"errors"
	"fmt"
	"time"

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

// A hung collective comes back as a *TimeoutError that wraps ErrTimeout;
// the hang lab reads which operation hung and whether the abort worked.
func ExampleTimeoutError() {
	var err error = &nccl.TimeoutError{Phase: nccl.PhaseCompletion, Op: nccl.StalledStream, Bytes: 1024,
		Devices: []int{0}, After: 2 * time.Second, Aborted: true}
	var te *nccl.TimeoutError
	if errors.Is(err, nccl.ErrTimeout) && errors.As(err, &te) {
		fmt.Println(te.Op, te.Phase, te.Aborted)
		fmt.Println(err)
	}
	// Output:
	// stalled_stream completion true
	// nccl: collective timed out: stalled_stream 1024 bytes out-of-place on GPUs [0]: completion not finished after 2s; communicators aborted (ncclCommAbort)
}
