package costmodel

import (
	"fmt"
	"strings"
)

// This file turns the NCCL-like tuner into rows, as `commlab model --algo
// auto` prints them: the tuner's pick (or the best choice within an
// algorithm and protocol forced as NCCL_ALGO and NCCL_PROTO force them) at
// every size of a sweep.

// TunedRow is one size as the tuner predicts it. Row's Algorithm and
// Protocol carry NCCL's names ("Ring", "Simple"). Slowdown is how much
// slower the forced choice is than the tuner's free pick (1 when they
// agree), and 0 when nothing was forced.
type TunedRow struct {
	Row
	Slowdown float64
}

// NCCLAlgorithm reads an algorithm as `commlab model --algo` takes it for
// the tuner and returns NCCL's name for it: ring -> "Ring", tree or dbtree
// -> "Tree" (NCCL's tree is a double binary tree), nvls -> "NVLS",
// nvlstree -> "NVLSTree", pat -> "PAT", collnet -> "CollNetDirect"; "" and
// "auto" leave the choice to the tuner ("").
func NCCLAlgorithm(s string) (string, error) {
	if name, ok := ncclAlgorithmNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return name, nil
	}
	return "", fmt.Errorf("%w: %q is not one of NCCL's algorithms (ring, tree, nvls, nvlstree, pat, collnet, auto)", ErrParams, s)
}

// NCCLProtocol reads a protocol for the tuner and returns NCCL's name for
// it: simple -> "Simple", ll -> "LL", ll128 -> "LL128"; "" and "auto"
// leave the choice to the tuner ("").
func NCCLProtocol(s string) (string, error) {
	if name, ok := ncclProtocolNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return name, nil
	}
	return "", fmt.Errorf("%w: unknown protocol %q (want simple, ll, ll128 or auto)", ErrParams, s)
}

var (
	ncclAlgorithmNames = map[string]string{"": "", "auto": "", "ring": "Ring", "tree": "Tree", "dbtree": "Tree", "nvls": "NVLS", "nvlstree": "NVLSTree",
		"nvls_tree": "NVLSTree", "pat": "PAT", "collnet": "CollNetDirect"}
	ncclProtocolNames = map[string]string{"": "", "auto": "", "simple": "Simple", "ll": "LL", "ll128": "LL128"}
)

// CustomNode is the node the tuner models when no preset is named: p.Ranks
// / p.Nodes GPUs whose in-node link is link at p.Beta one way with latency
// p.Alpha, and one NIC per GPU at p.InterBeta with latency p.InterAlpha.
// link is "nvlink" (GPUs behind an NVSwitch, every pair at the full rate;
// no NVLS), "pcie" (no NVLink: NCCL runs PCIe paths, never LL128), or ""
// for CustomLinkFor(p.Beta). The NIC is taken to sit under the GPU's PCIe
// switch (NICPath "PIX"); set the returned node's NICPath otherwise.
func CustomNode(p Params, link string) (Node, error) {
	gpus := p.Ranks / max(p.Nodes, 1)
	kind := strings.ToLower(strings.TrimSpace(link))
	if kind == "" {
		kind = CustomLinkFor(p.Beta)
	}
	if kind != "nvlink" && kind != "pcie" {
		return Node{}, fmt.Errorf("%w: unknown in-node link %q (want pcie or nvlink)", ErrParams, link)
	}
	return Node{Name: "custom", GPUs: gpus, NVSwitch: kind == "nvlink", NICs: gpus, NICPath: "PIX", ComputeCapability: 90,
		Intra: Link{Kind: kind, Bandwidth: Bandwidth{BytesPerSecond: p.Beta}, Alpha: p.Alpha},
		NIC:   Link{Kind: "ib", Bandwidth: Bandwidth{BytesPerSecond: p.InterBeta}, Alpha: p.InterAlpha}}, nil
}

// CustomLinkFor is the in-node link CustomNode assumes for a one-way rate
// in bytes per second when none is named: "pcie" up to 64 GB/s (PCIe 6.0
// x16 carries about 60.5 GB/s one way), "nvlink" above it (one NVLink 4
// GPU carries 450 GB/s one way). A rate says nothing certain about the
// link; callers should say which was assumed.
func CustomLinkFor(beta float64) string {
	if beta > 64e9 {
		return "nvlink"
	}
	return "pcie"
}

// TuneSweep tunes nodes of node for NCCL's version family and predicts
// collective c at every size, over all the nodes' GPUs. algorithm and
// protocol are NCCLAlgorithm's and NCCLProtocol's inputs; when either is
// not free, each row is the best choice within them and carries its
// Slowdown. The table is returned too, for printing as NCCL does.
func TuneSweep(node Node, nodes int, family string, c Collective, sizes []float64, algorithm, protocol string) (TunerTable, []TunedRow, error) {
	nodes = max(nodes, 1)
	fa, err := NCCLAlgorithm(algorithm)
	if err != nil {
		return TunerTable{}, nil, err
	}
	fp, err := NCCLProtocol(protocol)
	if err != nil {
		return TunerTable{}, nil, err
	}
	T, err := Tune(NCCLTopology(node, nodes, family))
	if err != nil {
		return TunerTable{}, nil, err
	}
	ranks := node.GPUs * nodes
	out := make([]TunedRow, 0, len(sizes))
	for _, s := range sizes {
		f, err := T.Force(c, s, fa, fp)
		if err != nil {
			return T, nil, err
		}
		ch := f.Forced
		t := ch.TimeUs * 1e-6
		r := TunedRow{Row: Row{Collective: string(c), Algorithm: ch.Algorithm, Protocol: ch.Protocol, Ranks: ranks,
			Nodes: nodes, Bytes: s, Time: t, LatencyTerm: ch.LatencyUs * 1e-6}}
		r.BandwidthTerm = max(t-r.LatencyTerm, 0)
		if t > 0 {
			r.AlgBW = s / t
			r.BusBW = r.AlgBW * BusBWFactor(c, ranks)
		}
		r.Bound = "bandwidth"
		if r.LatencyTerm > r.BandwidthTerm {
			r.Bound = "latency"
		}
		if fa != "" || fp != "" {
			r.Slowdown = f.Slowdown
		}
		out = append(out, r)
	}
	return T, out, nil
}
