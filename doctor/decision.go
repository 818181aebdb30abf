package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The report walks chapter 6's decision tree (DecisionTree, curve_tree.go)
// with the verdicts it has: each leaf is marked by the verdicts that reach
// it (a verdict's Branch, or a curve verdict whose Check is the branch id,
// or a check that the leaf's list of checks names), and the gaps are
// ranked so that a cause comes before what it explains.

// checkBranch places the checks that carry no Branch of their own on the
// leaf whose list of checks names them (curve_tree.go's decisionTree).
var checkBranch = map[string]string{
	"nccl-network":     BranchMultiNode, // "a fallback to sockets"
	"nic-affinity":     BranchMultiNode, // "GPU-to-NIC affinity"
	"rdma-devices":     BranchMultiNode,
	"env-nics":         BranchMultiNode, // "NCCL_IB_HCA naming the right ports"
	"gdr":              BranchLargePlateau,
	"gpudirect-module": BranchLargePlateau,
	"nccl-transports":  BranchLargePlateau, // "the transport per channel"
	"nccl-channels":    BranchLargePlateau, // "the channel count"
	"env-masking":      BranchLargePlateau, // "a forced NCCL_PROTO or NCCL_ALGO left in the environment"
	"tuner-pick":       BranchSmallFloor,   // "the protocol and algorithm NCCL picks"
	"numa-affinity":    BranchSmallFloor,   // "ranks crossing NUMA nodes"
	"nccl-warnings":    BranchHangSame,     // "NCCL_DEBUG=WARN lines just before the stop"
}

// TreeMark is one leaf of the decision tree and what the evidence says
// there: the worst status of the verdicts that reach it (Skipped when none
// does) and which they are.
type TreeMark struct {
	Branch  Branch   `json:"branch"`
	Status  Status   `json:"status"`
	Reached bool     `json:"reached"`
	Checks  []string `json:"checks,omitempty"`
}

// branchOf is the leaf a verdict marks. A check placed by checkBranch
// marks its leaf only when it found something: its "ok" answers a
// question other than the leaf's.
func branchOf(v Verdict) string {
	if v.Branch != "" {
		return v.Branch
	}
	if _, ok := BranchByID(v.Check); ok {
		return v.Check
	}
	if v.Status == Warn || v.Status == Fail {
		return checkBranch[v.Check]
	}
	return ""
}

// MarkTree marks the decision tree's leaves with verdicts.
func MarkTree(vs []Verdict) []TreeMark {
	var out []TreeMark
	for _, b := range DecisionTree() {
		m := TreeMark{Branch: b, Status: Skipped}
		for _, v := range vs {
			if v.Status == Skipped || branchOf(v) != b.ID {
				continue
			}
			if !m.Reached || v.Status > m.Status {
				m.Status = v.Status
			}
			m.Reached = true
			// one name per check: a chapter's several curves reach a
			// leaf through the same check
			if r := ref(v); !slices.Contains(m.Checks, r) {
				m.Checks = append(m.Checks, r)
			}
		}
		out = append(out, m)
	}
	return out
}

// TreeText draws the marked tree as text (DrawDecisionTree's drawing),
// each reached leaf followed by the checks that reached it.
func TreeText(marks []TreeMark) string {
	var vs []Verdict
	for _, m := range marks {
		if m.Reached {
			vs = append(vs, Verdict{Check: m.Branch.ID, Status: m.Status})
		}
	}
	drawn := DrawDecisionTree(vs)
	// Name the checks under the sign they marked.
	for _, m := range marks {
		if !m.Reached {
			continue
		}
		sign := "] " + m.Branch.Sign + "\n"
		if i := strings.Index(drawn, sign); i >= 0 {
			at := i + len(sign)
			drawn = drawn[:at] + "           (" + strings.Join(m.Checks, ", ") + ")\n" + drawn[at:]
		}
	}
	return drawn
}

// Gap is a warning or failure in the order to look at it: causes first.
type Gap struct {
	Rank    int    `json:"rank"`
	Check   string `json:"check"` // "nccl/nccl-network"
	Status  Status `json:"status"`
	Summary string `json:"summary"`
	// ExplainedBy are the gaps above it that explain it ("the Socket
	// fallback is why GPUDirect RDMA is not in effect").
	ExplainedBy []string `json:"explained_by,omitempty"`
}

// causeTier orders checks from the first thing to look at to the last: a
// process or device that is gone, then the hang's own reading, then
// settings and hardware that change how NCCL moves data, then what they
// make slow, then hygiene.
var causeTier = map[string]int{
	"evidence": 0, "processes": 1, "kernel-log": 1, "nccl-warnings": 1,
	"hang": 2, "straggler": 2,
	"env-masking": 3, "env-nics": 3, "env-unknown": 3, "rdma-devices": 3, "nvlink-state": 3, "pcie-link": 3, "acs": 3, "iommu": 3, "p2p": 3, "gpudirect-module": 3, "nccl-version": 3,
	"nccl-network": 4, "nic-affinity": 4, "numa-affinity": 4,
	"gdr": 5, "nccl-transports": 5, "nccl-channels": 5, "tuner-pick": 5, "wrong-results": 5,
	"host-device-bandwidth": 6, "p2p-bandwidth": 6, "slow-rank": 6, "overlap": 6,
	"env-timeouts": 8, "env-flight-recorder": 8, "env-renamed": 8,
}

// tierOf places curve and baseline checks, which name their own ids,
// among the consequences.
func tierOf(check string) int {
	if t, ok := causeTier[check]; ok {
		return t
	}
	return 7
}

// explains says which checks a failing check explains when both are gaps:
// a Socket fallback is why GPUDirect RDMA is off and why multi-node busbw
// is low; NCCL_IB_DISABLE is why there is a Socket fallback; a missing
// peermem module is why GPUDirect RDMA is off; a GPU off the bus or a dead
// process is why the others hang.
var explains = map[string][]string{
	"kernel-log":       {"hang", "processes", "straggler", "nccl-warnings"},
	"processes":        {"hang", "straggler"},
	"nccl-warnings":    {"hang", "nccl-network", "nccl-transports", "gdr"},
	"env-masking":      {"nccl-network", "nccl-transports", "gdr", "tuner-pick", "nccl-channels", BranchLargePlateau, BranchSmallFloor, BranchDip, BranchMultiNode},
	"env-nics":         {"nccl-network", "gdr", "nic-affinity", BranchMultiNode, BranchLargePlateau},
	"rdma-devices":     {"nccl-network", "gdr", BranchMultiNode},
	"gpudirect-module": {"gdr", BranchMultiNode, BranchLargePlateau},
	"acs":              {"gdr", "p2p-bandwidth", "p2p", BranchLargePlateau},
	"iommu":            {"p2p-bandwidth", "host-device-bandwidth"},
	"pcie-link":        {"host-device-bandwidth", "p2p-bandwidth", BranchLargePlateau},
	"nvlink-state":     {"p2p-bandwidth", "nccl-transports", BranchLargePlateau},
	"p2p":              {"nccl-transports", "p2p-bandwidth", BranchLargePlateau},
	"nccl-network":     {"gdr", BranchMultiNode, BranchLargePlateau, "slow-rank"},
	"nic-affinity":     {"gdr", BranchMultiNode},
	"nccl-channels":    {BranchLargePlateau},
	"nccl-transports":  {BranchLargePlateau, "p2p-bandwidth"},
	"slow-rank":        {"straggler", BranchMultiNode},
}

// RankGaps orders the warnings and failures: by tier (causes before what
// they cause), then failures before warnings, then as checked; each gap
// names the gaps above it that explain it.
func RankGaps(vs []Verdict) []Gap {
	type item struct {
		v   Verdict
		idx int
	}
	var bad []item
	for i, v := range vs {
		if v.Status == Fail || v.Status == Warn {
			bad = append(bad, item{v, i})
		}
	}
	slices.SortStableFunc(bad, func(a, b item) int {
		// lowest tier first, then the worse status, then report order
		return cmp.Or(cmp.Compare(tierOf(a.v.Check), tierOf(b.v.Check)), cmp.Compare(b.v.Status, a.v.Status), cmp.Compare(a.idx, b.idx))
	})
	var out []Gap
	for i, it := range bad {
		g := Gap{Rank: i + 1, Check: ref(it.v), Status: it.v.Status, Summary: it.v.Summary}
		for _, above := range bad[:i] {
			for _, e := range explains[above.v.Check] {
				if e == it.v.Check {
					g.ExplainedBy = append(g.ExplainedBy, ref(above.v))
					break
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// GapsText writes the ranked gaps, one per line.
func GapsText(gaps []Gap) string {
	if len(gaps) == 0 {
		return "no check found a fault in the evidence given"
	}
	var lines []string
	for _, g := range gaps {
		s := fmt.Sprintf("%d. %s (%s): %s", g.Rank, g.Status, g.Check, g.Summary)
		if len(g.ExplainedBy) > 0 {
			s += " [follows from " + strings.Join(g.ExplainedBy, ", ") + "]"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}
