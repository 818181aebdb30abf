package costmodel

// This file is the tuner's input: what NCCL's topology search found
// (TunerTopology, TunerGraph) and the rules NCCL derives from it before
// tuning: where the NIC lies, whether LL128 is on by default, PAT's share.

import (
	"strings"
)

// TunerGraph is what NCCL's topology search found for one algorithm: the
// number of channels and the bandwidth of each inside and between nodes,
// as the log prints them ("Pattern 4, crossNic 0, nChannels 16, bw
// 40.000000/40.000000, type NVL/PIX, sameChannels 1").
type TunerGraph struct {
	Channels int
	// BwIntraGBps and BwInterGBps are per channel, GB/s.
	BwIntraGBps float64 `unit:"GB/s"`
	BwInterGBps float64 `unit:"GB/s"`
	// SameChannels is the log's sameChannels flag (ring graph).
	SameChannels bool
	// LatencyInterUs is extra network latency the net plugin reports (0).
	LatencyInterUs float64 `unit:"us"`
}

// TunerTopology is the input of the NCCL-like tuner.
type TunerTopology struct {
	// Family is "2.19", "2.23" ... "2.27" or "2.28" (see the top of
	// tuner.go); "" is DefaultNCCL.
	Family      string
	Nodes       int
	GPUsPerNode int
	// IntraNVLink: GPUs of a node talk over NVLink (else PCIe).
	IntraNVLink bool
	// ComputeCapability is the SM version x 10 (70, 80, 90, 100).
	ComputeCapability int
	// MinComputeCapability is the lowest SM version x 10 among the GPUs
	// when they differ; 0 means every GPU has ComputeCapability. NCCL up
	// to 2.28 enables LL128 only when all GPUs share one (tuning.cc,
	// ncclTopoTuneModel: minCompCap == maxCompCap).
	MinComputeCapability int
	// CPUVendor is "intel" (default), "amd" or "arm"; it sets NCCL's
	// network overhead and its multi-node LL limits.
	CPUVendor string
	// NICPath is how far each GPU is from its NIC, as NCCL's graph
	// "type NVL/PIX" and nvidia-smi topo -m name it: "PIX", "PXB", "PXN",
	// "PHB" or "SYS" (NCCL's graph typeInter). "" takes NICFar ("PHB"
	// when set, else "PIX"). It is a separate input from IntraNVLink: it
	// matters across nodes only, since on one node NCCL removes the NICs
	// and searches with typeInter PIX (paths.cc ncclTopoTrimSystem sets
	// system->inter 0; search.cc ncclTopoCompute starts minTypeInter at
	// PATH_PIX and only reads NIC paths when system->inter is set).
	NICPath string
	// NICFar is true when GPUs reach their NIC through the CPU (PHB/SYS
	// paths), which keeps NCCL from enabling LL128 across nodes. NICPath,
	// when set, takes precedence.
	NICFar bool
	// NVLSSupport: NVSwitch multicast (NVLink SHARP) is usable.
	// CollNetSupport: a CollNet (SHARP) network plugin is loaded.
	NVLSSupport    bool
	CollNetSupport bool
	// NVLSDisable is NCCL_NVLS_ENABLE=0: NVLS and NVLSTree stay off even
	// where the switch supports them, as on the lab's H200 machines, whose
	// logs say "0 nvls channels" (NCCL then builds no NVLS graph:
	// init.cc skips ncclNvlsInit's channels, tuning.cc sees nChannels 0).
	NVLSDisable bool
	// TreePattern is true when the tree graph's pattern is
	// NCCL_TOPO_PATTERN_TREE (log: "Pattern 3": all NIC traffic through
	// one GPU), which NCCL discounts by 0.85.
	TreePattern bool
	Ring        TunerGraph
	Tree        TunerGraph
	CollNet     TunerGraph
	NVLS        TunerGraph
	// CollChannels is the communicator's channel count, as the log's
	// "24 coll channels, ..." line prints it. 0 derives it as NCCL does on
	// one node: the ring graph's channels doubled (ncclTopoPostset), at
	// most 32. It sets TunerChoice.Channels and, in family 2.28, the ring
	// plateau test (older families keep using Ring.Channels there).
	CollChannels int
}

// NCCL's path types in its order (src/include/graph.h, PATH_LOC ...
// PATH_SYS); the tuner reads only where the NIC lies among them.
var ncclPathTypes = []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"}

func pathIndex(s string) int {
	for i, p := range ncclPathTypes {
		if strings.EqualFold(p, strings.TrimSpace(s)) {
			return i
		}
	}
	return -1
}

// nicPath is the NIC's path type index; "" takes NICFar.
func (t TunerTopology) nicPath() int {
	if t.NICPath == "" {
		if t.NICFar {
			return pathIndex("PHB")
		}
		return pathIndex("PIX")
	}
	return pathIndex(t.NICPath)
}

// ll128Default is ncclTopoTuneModel's default LL128 rule (src/graph/
// tuning.cc; checked at v2.19.3-1, v2.23.4-1, v2.25.1-1, v2.27.3-1,
// v2.28.9-1 and 2.30.7): LL128 is on only when
//   - the graph's intra-node path is NVLink (typeIntra <= PATH_NVB): a
//     PCIe node never gets it;
//   - across nodes, the NIC is within PXB, or within PXN on sm90+
//     (typeInter <= PATH_PXB || (minCompCap >= 90 && typeInter <=
//     PATH_PXN)); on one node typeInter is PIX (see NICPath);
//   - every GPU has the same compute capability (minCompCap ==
//     maxCompCap; 2.29+ also accept mixed sm90+, a family not modelled);
//   - the compute capability is one NCCL lists: 70, 80 and 90 up to
//     2.24, plus 100 and 120 in 2.25 and 2.26, any from 70 on since 2.27
//     (the CUDA 11.8 two-rank Hopper exception is not modelled).
func (t TunerTopology) ll128Default() bool {
	cc := t.ComputeCapability
	minCC := t.MinComputeCapability
	if minCC == 0 || minCC > cc {
		minCC = cc
	}
	if !t.IntraNVLink || minCC != cc {
		return false
	}
	if t.Nodes > 1 {
		path := t.nicPath()
		if !(path <= pathIndex("PXB") || (minCC >= 90 && path <= pathIndex("PXN"))) {
			return false
		}
	}
	switch m := t.minor(); {
	case m <= 24:
		return cc == 70 || cc == 80 || cc == 90
	case m <= 26:
		return cc == 70 || cc == 80 || cc == 90 || cc == 100 || cc == 120
	}
	return cc >= 70
}

// patFactor is the share of the ring bandwidth NCCL gives PAT
// (ncclTopoTuneModel, "if (a == NCCL_ALGO_PAT) busBw *= ..."): 0.85 in
// v2.23.4-1, 0.75 from v2.24.3-1 on (checked in tuning.cc at v2.23.4-1,
// v2.24.3-1, v2.27.7-1, v2.28.9-1 and 2.30.7). So family "2.23" is 2.23
// itself here; give "2.24" to "2.27" for the later factor.
func (t TunerTopology) patFactor() float64 {
	if t.minor() <= 23 {
		return .85
	}
	return .75
}
