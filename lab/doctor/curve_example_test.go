package doctor_test

import (
	"fmt"

	"github.com/commlab/commlab/lab/doctor"
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
	machine := doctor.Machine{Preset: "hgx-h200", GPUsPerNode: 2, Nodes: 1, Family: "2.28"}
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
	// [fail] collective/large-plateau: large-message plateau too low: 121.7 GB/s busbw, 34% of the model's 359.5 GB/s
	// [ok] collective/small-floor: small-message floor 22.37 µs, 2.9x the model
	// [ok] collective/dip: no dip: no size below 70% of its neighbours' ratio to the model
	// first check: the path (nvidia-smi topo -m levels, chapter 2)
}
