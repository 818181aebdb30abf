package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/commlab/commlab/probes"
)

// checkWrongResults walks the decision tree's wrong-results branch with
// what the evidence holds: elements the correctness check of nccl-tests
// (or commlab's sweep) found wrong; whether a NaN would be caught where it
// first appears (TORCH_NCCL_NAN_CHECK); whether the reduction order is
// fixed between runs (NCCL_ALGO, NCCL_PROTO: NCCL picks per size and
// version, and a ring and a tree add in different orders, so the last
// bits of a float sum may differ between runs that pick differently).
func checkWrongResults(ev *Evidence, env map[string]string) Verdict {
	v := Verdict{Layer: LayerCollective, Check: "wrong-results", Chapter: chapterTroubleshoot}
	checked, wrong, off := 0, map[string]int64{}, 0
	for _, run := range []*probes.Run{ev.NCCLTests, ev.NCCL} {
		if run == nil {
			continue
		}
		for _, s := range run.Samples {
			switch {
			case s.Wrong < 0:
				off++
			case s.Wrong > 0:
				wrong[fmt.Sprintf("%s %s%s", s.Op, sizeText(float64(s.Bytes)), inPlaceText(s.InPlace))] += s.Wrong
				checked++
			default:
				checked++
			}
		}
	}
	nan := ev.TorchSetting("TORCH_NCCL_NAN_CHECK")
	v.Evidence = append(v.Evidence, nan.String())
	algo, proto := env["NCCL_ALGO"], env["NCCL_PROTO"]
	if algo == "" {
		v.Evidence = append(v.Evidence, "NCCL_ALGO unset: NCCL picks the algorithm per size (and per version and channel count), so two runs that pick differently add the ranks' values in different orders and may differ in the last bits")
	} else {
		v.Evidence = append(v.Evidence, fmt.Sprintf("NCCL_ALGO=%s NCCL_PROTO=%s: the reduction order is fixed for a given size, ranks and channels", algo, orDash(proto)))
	}
	if c, ok := env["CUBLAS_WORKSPACE_CONFIG"]; ok {
		v.Evidence = append(v.Evidence, "CUBLAS_WORKSPACE_CONFIG="+c+" (cuBLAS deterministic workspaces)")
	}
	switch {
	case len(wrong) > 0:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(wrong)) {
			parts = append(parts, fmt.Sprintf("%s: %d", k, wrong[k]))
		}
		v.judge(Fail, fmt.Sprintf("the collective returned wrong elements in %d of %d checked sizes (%s)", len(wrong), checked, strings.Join(parts, "; ")),
			"rerun with NCCL_ALGO and NCCL_PROTO forced in turn to find the path that corrupts; read the nodes' dmesg for memory Xids (row remapping, ECC) and the NVLink and PCIe error counters (nvidia-smi nvlink -e, nvidia-smi -q -d ECC)")
		v.Branch = BranchWrongUnstable
	case checked > 0:
		v.judge(OK, fmt.Sprintf("no wrong element in %d sizes the correctness check read", checked), "")
		v.Branch = BranchWrongUnstable
	case off > 0:
		v.judge(Skipped, fmt.Sprintf("the correctness check was off for all %d sizes (nccl-tests -c 0 prints N/A in #wrong)", off), "")
	default:
		v.judge(Skipped, "no correctness check in the evidence (nccl-tests' #wrong column; it says N/A with -c 0)", "")
	}
	switch {
	case nan.Known && truthy(nan.Value):
		v.Evidence = append(v.Evidence, "a NaN entering a collective raises on the rank and operation that first sees it")
	case nan.Known:
		v.Next = strings.TrimSpace(v.Next + " For NaN: TORCH_NCCL_NAN_CHECK=1 stops the first rank and operation whose input holds one (it is off here).")
	}
	return v
}

func inPlaceText(in bool) string {
	if in {
		return " in place"
	}
	return ""
}

// CheckEvidence says what the inputs held: each one that could not be read,
// whole or in part, with the reason, so a report never rests silently on
// less than it was given.
func CheckEvidence(ev *Evidence) Verdict {
	v := Verdict{Layer: LayerEvidence, Check: "evidence", Chapter: chapterTroubleshoot}
	for _, p := range ev.Problems {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s %s: %s", p.What, p.Source, p.Note))
	}
	switch {
	case len(ev.Problems) > 0:
		v.judge(Warn, fmt.Sprintf("%d input(s) could not be read whole; the report rests on what was read: %s", len(ev.Problems), ev.Problems[0].Source+": "+ev.Problems[0].Note),
			"fix or replace the files named (a truncated dump, the wrong file for a flag) and run again")
	case len(ev.Inputs) == 0:
		v.judge(Skipped, "no evidence given", "")
	default:
		v.judge(OK, fmt.Sprintf("%d input(s) read", len(ev.Inputs)), "")
	}
	return v
}
