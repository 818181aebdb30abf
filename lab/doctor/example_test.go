package doctor_test

import (
	"fmt"

	"github.com/commlab/commlab/lab/doctor"
)

// The environment lint reads a job's variables as PyTorch and NCCL would.
func ExampleLintEnv() {
	env := doctor.EnvFromText(`
export TORCH_NCCL_TRACE_BUFFER_SIZE=2000
export NCCL_P2P_DISABLE=1
NCCL_DEBUG=INFO
`)
	for _, v := range doctor.LintEnv(env, "", nil) {
		fmt.Printf("%s %s\n", v.Status, v.Check)
	}
	// Output:
	// warn env-renamed
	// ok env-timeouts
	// warn env-masking
	// ok env-flight-recorder
}

// A slow node: every collective waits for it.
func ExampleCheckRanks() {
	v := doctor.CheckRanks([]doctor.RankTime{
		{Rank: 0, Host: "node-a", What: "all_reduce 1 GiB", TimeUS: 5000},
		{Rank: 1, Host: "node-b", What: "all_reduce 1 GiB", TimeUS: 5100},
		{Rank: 2, Host: "node-c", What: "all_reduce 1 GiB", TimeUS: 8000},
	})
	fmt.Println(v.Status, "-", v.Summary)
	// Output:
	// fail - rank 2 on node-c takes 8 ms, 1.57x the median 5.1 ms: every collective waits for it
}

// The lab's recorded 2x H200 machine, diagnosed without a GPU.
func ExampleDiagnose() {
	ev, err := doctor.Recorded("h200x2")
	if err != nil {
		panic(err)
	}
	r := doctor.Diagnose(ev)
	fmt.Println("exit status", r.ExitCode)
	for _, a := range r.Answers[1:2] {
		fmt.Println(a.Question)
		fmt.Println(a.Answer)
	}
	// Output:
	// exit status 0
	// Latency-bound or bandwidth-bound?
	// measured all_reduce: busbw reaches half its peak at 16 MiB, where the fixed cost and the transfer take equal time; below it latency-bound (floor 20.16 µs), above it bandwidth-bound (up to 349.1 GB/s)
}
