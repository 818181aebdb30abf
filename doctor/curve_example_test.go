package doctor_test

import (
	"fmt"
	"os"

	"github.com/commlab/commlab/costmodel"
	"github.com/commlab/commlab/doctor"
	"github.com/commlab/commlab/parse/nccltests"
	"github.com/commlab/commlab/probes/recorded"
)

// A notebook reads the recorded all_reduce of two H200s with NCCL_PROTO=LL
// forced against the model of the same machine: the plateau is far too low,
// and the doctor names the checks of that branch of the decision tree.
func ExampleDiagnoseCurve() {
	run, err := recorded.Load("nccl-h200x2-proto-LL")
	if err != nil {
		fmt.Println(err)
		return
	}
	curve, err := doctor.CurveFromRun(run, "all_reduce", false)
	if err != nil {
		fmt.Println(err)
		return
	}
	// commlab's NCCL probe issues each operation to both GPUs from one
	// thread: the curve says so, and the model's host floor counts it.
	machine := doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 2, Nodes: 1, Family: "2.28",
		Harness: costmodel.Harness{ThreadGPUs: curve.ThreadGPUs}}
	model, err := doctor.ExpectedCurve(machine, curve.Collective, curve.Sizes())
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := doctor.DiagnoseCurve(curve, model, doctor.DefaultCurveOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range rep.Verdicts {
		fmt.Println(v)
	}
	b, _ := doctor.BranchByID(rep.Verdicts[0].Check)
	fmt.Println("first check:", b.Checks[0])
	// Output:
	// [fail] collective/large-plateau: large-message plateau too low: 121.7 GB/s busbw, 35% of the model's 350 GB/s
	// [ok] collective/small-floor: small-message floor 22.37 µs, 2.3x the model
	// [ok] collective/dip: no dip: no size below 70% of its neighbours' ratio to the model
	// first check: the path (nvidia-smi topo -m levels, chapter 2)
}

// A notebook reads a public nccl-tests output without saying what machine
// it came from: the doctor takes the preset from the GPU its device lines
// name, and says so.
func ExampleJudgeCurve() {
	f, err := os.Open("../parse/nccltests/testdata/allreduce_h100_2node_a3mega.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	res, err := nccltests.Parse(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	curve, err := doctor.CurveFromNCCLTests(&res.Runs[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := doctor.JudgeCurve(curve, doctor.CurveSetup{}, doctor.DefaultCurveOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(curve.Collective, curve.Ranks, "ranks from", curve.RanksFrom)
	fmt.Println("preset:", rep.Preset, "from", rep.PresetFrom)
	fmt.Println(rep.Verdicts[0])
	// The run is a GCP A3 Mega's (GPUDirect-TCPXO): told so, the model is
	// that machine's.
	rep, err = doctor.JudgeCurve(curve, doctor.CurveSetup{Network: "tcpxo", NetworkFrom: "--network", NVLSFrom: "--nvls"}, doctor.DefaultCurveOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("preset:", rep.Preset)
	fmt.Println(rep.Verdicts[0])
	// Output:
	// all_reduce 16 ranks from device lines
	// preset: hgx-h100 from the GPU the input names: NVIDIA H100 80GB HBM3
	// [skipped] collective/multi-node: cannot tell: 330.6 GB/s is 69% of the model, which assumed what the evidence does not say; if this machine's network is 8x 200 Gb/s GPUDirect-TCPXO (gcp-a3-mega), 330.6 GB/s is 100% of that model; if this machine has no NVLS, 330.6 GB/s is 94% of that model
	// preset: gcp-a3-mega
	// [ok] collective/multi-node: multi-node plateau at 100% of the model (330.6 GB/s busbw)
}

// A notebook judges a posted nccl-tests output that carries NCCL's INFO
// lines: two one-GPU EFA nodes whose pods were not given the EFA device,
// so NCCL fell back to TCP sockets. The output names neither its
// collective nor its ranks; the job's command says all_reduce_perf, and
// the columns then say 2 ranks.
func ExampleJudgeLoggedOutput() {
	pub, err := recorded.Public("awsdoeks_karpenter_efa_disabled_socket_excerpt.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := doctor.JudgeLoggedOutput(pub.Text, "all_reduce", "the job's command", doctor.CurveSetup{Nodes: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Log[0].String())
	c := out.Report.Curve
	fmt.Printf("%s on %d ranks, %d nodes: %.2f GB/s at 1 GiB\n", c.Collective, c.Ranks, c.Nodes, c.BusBWAt(1<<30))
	// Output:
	// [fail] nccl/nccl-network: Socket fallback: NCCL chose TCP sockets (Using network Socket) for a job on 2 nodes (no RDMA, no GPUDirect)
	// all_reduce on 2 ranks, 2 nodes: 2.00 GB/s at 1 GiB
}
