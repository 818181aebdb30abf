package doctor

import (
	"fmt"
	"strings"
)

// The decision tree of the series' chapter 6 (seed: "一棵决策树"), from a
// symptom (slow, hang, wrong) through what the evidence shows to the checks
// it calls for. The curve doctor's verdicts carry a branch id as their
// Check, so a set of verdicts marks the branches it reached; the chapter
// draws the tree with DrawDecisionTree. The mid-size dip is the seed's
// fourth abnormal curve shape ("中段有凹陷"), which its tree leaves out.

// Branch ids of the decision tree.
const (
	BranchLargePlateau  = "large-plateau"
	BranchSmallFloor    = "small-floor"
	BranchDip           = "dip"
	BranchMultiNode     = "multi-node"
	BranchHangSame      = "hang-same-place"
	BranchHangDiffer    = "hang-different-places"
	BranchHangSome      = "hang-some-ranks"
	BranchWrongUnstable = "wrong-unstable"
	BranchWrongNaN      = "wrong-nan"
)

// Branch is one leaf of the decision tree: a symptom, the sign that sends
// the reader down this branch, and the checks to make, in order.
type Branch struct {
	ID      string   `json:"id"`
	Symptom string   `json:"symptom"` // "slow", "hang" or "wrong"
	Sign    string   `json:"sign"`
	Checks  []string `json:"checks"`
	Layer   Layer    `json:"layer"`
	Chapter string   `json:"chapter"`
}

var decisionTree = []Branch{
	{BranchLargePlateau, "slow", "large-message busbw low",
		[]string{"the path (nvidia-smi topo -m levels, chapter 2)", "the transport per channel in NCCL_DEBUG=INFO (P2P, SHM, NET)", "GPUDirect RDMA in use (NET/IB/.../GDRDMA)", "the channel count (NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS)", "a forced NCCL_PROTO or NCCL_ALGO left in the environment"},
		LayerCollective, "06-nccl-tests"},
	{BranchSmallFloor, "slow", "small-message latency high",
		[]string{"the protocol and algorithm NCCL picks (NCCL_DEBUG_SUBSYS=TUNING)", "ranks crossing NUMA nodes (CPU affinity of each rank)", "the proxy thread pre-empted (busy cores, NCCL_PROXY_* settings)", "the framework not coalescing small operations (bucketing, chapter 5)"},
		LayerCollective, "06-nccl-tests"},
	{BranchDip, "slow", "a dip in the middle of the curve",
		[]string{"where NCCL switches algorithm or protocol (NCCL_DEBUG_SUBSYS=TUNING around the dip)", "runs with NCCL_PROTO and NCCL_ALGO forced on both sides of the dip", "a tuner plugin or NCCL_*_THRESHOLD settings", "the NCCL version's tuning constants (chapter 4)"},
		LayerCollective, "06-nccl-tests"},
	{BranchMultiNode, "slow", "multi-node far below single-node",
		[]string{"GPU-to-NIC affinity (nvidia-smi topo -m, NCCL's NET/IB/n choice per channel)", "NCCL_IB_HCA naming the right ports", "a fallback to sockets (NET/Socket in NCCL_DEBUG=INFO)", "RoCE PFC and ECN on the switches and NICs"},
		LayerNIC, "06-nccl-tests"},
	{BranchHangSame, "hang", "every rank stopped in the same collective",
		[]string{"the network (dmesg, ibstat, link state)", "a crashed rank (is every process alive)", "NCCL_DEBUG=WARN lines just before the stop"},
		LayerHang, "06-nccl-tests"},
	{BranchHangDiffer, "hang", "ranks stopped in different places",
		[]string{"collective calls that differ between ranks: Flight Recorder sequence ids aligned across ranks", "each rank's Python stack (py-spy dump, faulthandler)", "a rank stuck outside communication (data loader, checkpoint)"},
		LayerHang, "06-nccl-tests"},
	{BranchHangSome, "hang", "only some ranks stopped",
		[]string{"a send without its receive (Flight Recorder p2p entries)", "two communicators waiting on each other (per-group sequence ids)"},
		LayerHang, "06-nccl-tests"},
	{BranchWrongUnstable, "wrong", "results differ between runs",
		[]string{"floating-point reduction order", "a different algorithm between runs (NCCL_ALGO)", "a data race: streams not synchronized"},
		LayerCollective, "06-nccl-tests"},
	{BranchWrongNaN, "wrong", "NaN appears",
		[]string{"TORCH_NCCL_NAN_CHECK=1: the first rank and operation that sees it"},
		LayerFramework, "06-nccl-tests"},
}

// DecisionTree returns the tree's branches, symptom by symptom.
func DecisionTree() []Branch {
	out := make([]Branch, len(decisionTree))
	for i, b := range decisionTree {
		b.Checks = append([]string(nil), b.Checks...)
		out[i] = b
	}
	return out
}

// BranchByID returns the branch with that id.
func BranchByID(id string) (Branch, bool) {
	for _, b := range decisionTree {
		if b.ID == id {
			b.Checks = append([]string(nil), b.Checks...)
			return b, true
		}
	}
	return Branch{}, false
}

// HangBranch is the branch a Flight Recorder finding kind (the flightrec
// package's Finding.Kind) sends a hang down: a rank that never called the
// collective the others wait in, or calls that differ, mean ranks stopped
// in different places; an unpaired send or receive means only some ranks
// stopped; no finding at all, every rank in one collective ("all-stuck"),
// a rank that left no dump ("no-dump") or a rank whose process died
// ("died", parse/hanglab) means the same place (the branch that
// checks for a crashed rank or a broken network).
func HangBranch(kind string) string {
	switch kind {
	case "missing", "op-mismatch", "size-mismatch", "dtype-mismatch":
		return BranchHangDiffer
	case "unpaired-p2p", "cross-group":
		return BranchHangSome
	case "", "died", "all-stuck", "no-dump":
		return BranchHangSame
	}
	return BranchHangDiffer
}

// DrawDecisionTree draws the tree as text, one symptom per block, and
// marks each branch with the worst status among the verdicts whose Check is
// its id ("fail", "warn", "ok"; blank when no verdict reached it), so a
// chapter shows the tree with this machine's answers.
func DrawDecisionTree(vs []Verdict) string {
	mark := map[string]Status{}
	seen := map[string]bool{}
	for _, v := range vs {
		if v.Status == Skipped {
			continue
		}
		if !seen[v.Check] || v.Status > mark[v.Check] {
			mark[v.Check] = v.Status
		}
		seen[v.Check] = true
	}
	var b strings.Builder
	symptom := ""
	for _, br := range decisionTree {
		if br.Symptom != symptom {
			if symptom != "" {
				b.WriteString("\n")
			}
			symptom = br.Symptom
			fmt.Fprintf(&b, "%s\n", symptom)
		}
		tag := "      "
		if seen[br.ID] {
			tag = fmt.Sprintf("[%-4s]", mark[br.ID])
		}
		fmt.Fprintf(&b, "  %s %s\n", tag, br.Sign)
		for i, c := range br.Checks {
			lead := "├─"
			if i == len(br.Checks)-1 {
				lead = "└─"
			}
			fmt.Fprintf(&b, "           %s %s\n", lead, c)
		}
	}
	return b.String()
}
