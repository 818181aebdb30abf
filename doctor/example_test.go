package doctor_test

import (
	"fmt"

	"github.com/commlab/commlab/doctor"
)

// The environment lint reads a job's variables as PyTorch and NCCL would,
// with the defaults of the PyTorch it names: a deprecated name, a setting
// that masks a fault, a misspelt name with the one likely meant, and the
// Flight Recorder dump PyTorch 2.11 writes at a timeout by default.
func ExampleLintEnv() {
	env := doctor.EnvFromText(`
export TORCH_NCCL_TRACE_BUFFER_SIZE=2000
export NCCL_P2P_DISABLE=1
NCCL_IB_GID_INDX=3
NCCL_DEBUG=INFO
`)
	for _, v := range doctor.LintEnv(&doctor.Evidence{Env: env, EnvSource: "job.env", TorchVersion: "2.11.0"}) {
		fmt.Printf("%s %s: %s\n", v.Status, v.Check, v.Summary)
		if v.Check == "env-unknown" {
			fmt.Println(" ", v.Evidence[0])
		}
	}
	// Output:
	// warn env-renamed: deprecated names set: TORCH_NCCL_TRACE_BUFFER_SIZE (read today; a later PyTorch drops them and the setting silently stops working)
	// ok env-timeouts: a stuck collective is torn down after the process group's timeout (600 s unless the program sets one); a stuck watchdog after 480 s
	// ok env-values: 2 NCCL value(s) read as written
	// warn env-masking: settings that mask a fault rather than fix it: NCCL_P2P_DISABLE=1
	// ok env-flight-recorder: a timeout leaves one Flight Recorder dump per rank (TORCH_NCCL_DUMP_ON_TIMEOUT=1)
	// warn env-unknown: variables the NCCL and PyTorch in use do not read (they do nothing): NCCL_IB_GID_INDX (did you mean NCCL_IB_GID_INDEX?)
	//   NCCL_IB_GID_INDX: no NCCL release we know reads it (2.4.8 to 2.30.7); did you mean NCCL_IB_GID_INDEX?
	// skipped env-nics: neither NCCL_IB_HCA nor NCCL_SOCKET_IFNAME is set: NCCL chooses the NICs itself
	// skipped socket-interface: no interface in the evidence: NCCL's log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET) shows the socket interface it used
	// skipped roce-gid: no RDMA tool output: give show_gids (or ibv_devinfo -v) of each node to check the RoCE GID NCCL uses
	// skipped wrong-results: no correctness check in the evidence (nccl-tests' #wrong column; it says N/A with -c 0)
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

// A hang as a user brings it: four ranks' Flight Recorder dumps, every rank
// inside the same all_reduce, none done, start events off. The doctor says
// what the dumps can and cannot know, and sends the reader down the tree's
// network/dead-rank branch.
func ExampleCheckHang() {
	ev, err := doctor.ReadFiles(doctor.Files{FlightRecorder: "../parse/flightrec/testdata/h200x4_timing_off", Torch: "2.11.0"})
	if err != nil {
		panic(err)
	}
	v, _ := doctor.CheckHang(ev)
	fmt.Println(v.Status, v.Branch)
	fmt.Println(v.Summary)
	// Output:
	// fail hang-same-place
	// every rank with a dump (ranks 0-3) enqueued all_reduce #12 of pg 0 (default_pg) and none completed it: no rank is behind; start events are off (TORCH_NCCL_ENABLE_TIMING unset), so the dump cannot tell whether the GPUs started it; this points at the network or a dead rank; or one rank's GPU is held by earlier work (a long or hung kernel, another process on it) and has not reached the collective: with start events off the dumps cannot tell that from a collective stuck in the network
}

// What a PyTorch setting was in the job: set, printed by PyTorch, set by
// torchrun, or the version's default; unknown said so.
func ExampleEvidence_TorchSetting() {
	plain := &doctor.Evidence{TorchVersion: "2.11.0+cu130"}
	torchrun := &doctor.Evidence{TorchVersion: "2.11.0+cu130", Env: map[string]string{"TORCHELASTIC_RUN_ID": "job-7"}, Launcher: "torchrun", LauncherWhy: "TORCHELASTIC_RUN_ID is set"}
	fmt.Println(plain.TorchSetting("TORCH_NCCL_ASYNC_ERROR_HANDLING").Value, torchrun.TorchSetting("TORCH_NCCL_ASYNC_ERROR_HANDLING").Value)
	fmt.Println(plain.TorchSetting("TORCH_NCCL_DUMP_ON_TIMEOUT").Value)
	fmt.Println((&doctor.Evidence{}).TorchSetting("TORCH_NCCL_DUMP_ON_TIMEOUT"))
	// Output:
	// 3 1
	// 1
	// TORCH_NCCL_DUMP_ON_TIMEOUT unknown: the PyTorch version is not in the evidence (give --torch VERSION)
}
