package costmodel

import (
	"fmt"
	"strings"
)

// This file turns the NCCL-like tuner into rows, as `commlab model --algo
// auto` prints them: the tuner's pick (or the best choice within an
// algorithm and protocol forced as NCCL_ALGO and NCCL_PROTO force them) at
// every size of a sweep.

// TunedRow is one size as Estimate predicts it (the tuner's pick, NCCL's
// latency, the bandwidth of the machine's links). Row's Algorithm and
// Protocol carry NCCL's names ("Ring", "Simple"). Slowdown is how much
// slower the forced choice is than the free pick (1 when they agree), and
// 0 when nothing was forced. NCCLTime is NCCL's own prediction for the
// pick (its tuner), Floor the harness floor, both in seconds.
type TunedRow struct {
	Row
	Slowdown float64 `unit:"x"`
	NCCLTime float64 `unit:"s"`
	Floor    float64 `unit:"s"`
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
		NIC: Link{Kind: "ib", Bandwidth: Bandwidth{BytesPerSecond: p.InterBeta}, Alpha: p.InterAlpha,
			NCCLBandwidth: p.InterBeta / 1e9}}, nil
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

// TuneSweep is Machine.Sweep for nodes of node with the NCCL version
// family (or version) family, NVLS as the node has it, and one GPU per
// host thread.
func TuneSweep(node Node, nodes int, family string, c Collective, sizes []float64, algorithm, protocol string) (TunerTable, []TunedRow, error) {
	return Machine{Node: node, Nodes: nodes, NCCL: family}.Sweep(c, sizes, algorithm, protocol)
}

// Sweep estimates collective c at every size over all the machine's GPUs.
// algorithm and protocol are NCCLAlgorithm's and NCCLProtocol's inputs;
// when either is not free, each row is the best choice within them and
// carries its Slowdown against the free pick. The tuning table is
// returned too, for printing as NCCL does.
func (m Machine) Sweep(c Collective, sizes []float64, algorithm, protocol string) (TunerTable, []TunedRow, error) {
	fa, err := NCCLAlgorithm(algorithm)
	if err != nil {
		return TunerTable{}, nil, err
	}
	fp, err := NCCLProtocol(protocol)
	if err != nil {
		return TunerTable{}, nil, err
	}
	T, err := m.Tuner()
	if err != nil {
		return TunerTable{}, nil, err
	}
	out := make([]TunedRow, 0, len(sizes))
	for _, s := range sizes {
		e, err := m.Estimate(c, s, fa, fp)
		if err != nil {
			return T, nil, err
		}
		t := e.TimeUs * 1e-6
		r := TunedRow{Row: Row{Collective: string(c), Algorithm: e.Algorithm, Protocol: e.Protocol, Ranks: e.Ranks,
			Nodes: e.Nodes, Bytes: s, Time: t, LatencyTerm: e.LatencyTermUs() * 1e-6,
			BandwidthTerm: e.BandwidthUs * 1e-6, AlgBW: e.AlgBWGBps * 1e9, BusBW: e.BusBWGBps * 1e9, Bound: e.Bound},
			NCCLTime: e.NCCLTimeUs * 1e-6, Floor: e.FloorUs * 1e-6}
		if fa != "" || fp != "" {
			free, err := m.Estimate(c, s, "", "")
			if err != nil {
				return T, nil, err
			}
			if free.TimeUs > 0 {
				r.Slowdown = e.TimeUs / free.TimeUs
			}
		}
		out = append(out, r)
	}
	return T, out, nil
}
