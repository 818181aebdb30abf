package costmodel

import (
	"fmt"
	"sort"
	"strings"
)

// Link is one kind of interconnect with its datasheet rate.
type Link struct {
	// Name is the key LinkByName takes, e.g. "pcie5x16", "nvlink4-gpu".
	Name string
	// Kind is "pcie", "nvlink", "nvswitch", "ib", "roce" or "memory".
	Kind        string
	Description string
	// Bandwidth is the rate as the source quotes it, with its direction.
	Bandwidth Bandwidth
	// Alpha is the per-step latency NCCL's model charges on this kind of
	// link (ring, Simple protocol: src/graph/tuning.cc hwLat), in seconds;
	// 0 where NCCL has no number.
	Alpha float64 `unit:"s"`
	// Efficiency is the fraction of Bandwidth measured in practice, with
	// EfficiencySource saying where that was measured; 0 when unknown.
	Efficiency       float64 `unit:"%"`
	EfficiencySource string
	// Source names where Bandwidth comes from.
	Source string
	// NCCLBandwidth is what NCCL's topology rates the link at, one way, in
	// GB/s: per GPU for NVLink (links x NCCL's per-link rate, src/graph/
	// topo.h), width x NCCL's per-lane rate for PCIe (src/graph/topo.cc),
	// the port rate for a NIC. NCCL's graph search, its tuner and this
	// package's Estimate work from it; 0 where NCCL has no number.
	NCCLBandwidth float64 `unit:"GB/s"`
	// NetLatency is the latency a network's NCCL plugin reports
	// (ncclNetProperties_t.latency), which NCCL adds to every network hop
	// of its model (tuning.cc: interLat += graph->latencyInter); 0 for
	// InfiniBand and RoCE, whose transport does not set it (net_ib.cc).
	NetLatency       float64 `unit:"s"`
	NetLatencySource string
	// NetLatencyFit names the fitted constant NetLatency comes from
	// ("efa": FitEFALatency, "tcpxo": FitTCPXOLatency), so a fit under
	// trial replaces it; "" where NetLatency is a fixed figure.
	NetLatencyFit string
	// NetLatencyScale multiplies the fitted latency on this link (0 means
	// 1): the ratio of the latency the network's plugin reports for this
	// platform to the one it reports where the constant was fitted, so a
	// newer generation of one network takes the plugin's own step down.
	NetLatencyScale       float64
	NetLatencyScaleSource string
}

// Beta returns the one-way rate in bytes per second.
func (l Link) Beta() float64 { return l.Bandwidth.OneWay() }

// efaB200LatencyScale is the internode latency aws-ofi-nccl reports to
// NCCL on p5en and p6 (35 us) over what it reports on p4d, p4de, p5 and
// p5e (75 us), where FitEFALatency is fitted (srcEFALatencyScale).
const efaB200LatencyScale = 35.0 / 75.0

const srcEFALatencyScale = "aws/aws-ofi-nccl src/platform-aws.cpp at 45197df, platform_data_map: .latency = 75.0 for p4d.24xlarge, p4de.24xlarge and p5/p5e, 35.0 for the \"p-series\" entry (p5en.48xlarge and p6 on); the plugin reports it to NCCL as ncclNetProperties_t.latency"

// NCCL's per-hop latencies in seconds for the Simple protocol on a ring
// (NVIDIA/nccl src/graph/tuning.cc, hwLat, 2.19 to 2.28).
const (
	ncclNVLinkHop = 3.4e-6
	ncclPCIeHop   = 5.7e-6
	ncclNetHop    = 14e-6
)

// NCCL's rate of one NVLink, one way, in GB/s, by GPU generation
// (NVIDIA/nccl v2.28.9-1 src/graph/topo.h: SM70_NVLINK_BW 20.0,
// SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1): about
// 80% of the 25 GB/s (NVLink 2-4) or 50 GB/s (NVLink 5) line rate, the
// share left with 128-byte payloads (sjeaugey, NVIDIA/nccl-tests#149).
const (
	ncclNVLinkSM70  = 20.0
	ncclNVLinkSM80  = 20.0
	ncclNVLinkSM90  = 20.6
	ncclNVLinkSM100 = 40.1
)

const srcNCCLTopo = "NCCL's link rates: NVIDIA/nccl v2.28.9-1 src/graph/topo.h (SMxx_NVLINK_BW) and src/graph/topo.cc (PCIe: width x per-lane rate from kvDictPciGen / 80)"

const (
	srcPCIe = "PCI-SIG base specifications 3.0-6.0: 8/16/32/64 GT/s per lane; " +
		"128b/130b encoding (3.0-5.0), 242B/256B FLIT (6.0); per direction"
	srcNVLink = "NVIDIA NVLink page (nvidia.com/en-us/data-center/nvlink): V100 6 links 300 GB/s, " +
		"A100 12 links 600 GB/s, H100 18 links 900 GB/s, B200 18 links 1.8 TB/s, totals both ways; 50 GB/s " +
		"per NVLink 2-4 link and 100 GB/s per NVLink 5 link both ways"
	srcIB   = "InfiniBand Trade Association roadmap: EDR 100 Gb/s, HDR 200 Gb/s, NDR 400 Gb/s, XDR 800 Gb/s per 4x port, each direction"
	srcRoCE = "IEEE 802.3 Ethernet rates 100/200/400 GbE, each direction (RoCE v2 runs over them)"
	srcEFA  = "AWS EC2 accelerated computing instances (aws.amazon.com/ec2/instance-types/p4 and /p5): p4d.24xlarge and " +
		"p4de.24xlarge 400 Gbps EFA (4 x 100 Gbps), p5.48xlarge 3200 Gbps EFA (32 x 100 Gbps)"
	srcEFAB200 = "awslabs.github.io/accelerated-compute-tutorials ai-infra/efa-setup: 'On the latest B200-generation GPU instances, " +
		"EFA provides 3.2 Tbps (400 GB/s) per instance'; the split into 8 devices of 400 Gb/s is this preset's reading"
	srcTCPX = "Google Cloud GPU machine types (cloud.google.com/compute/docs/gpus, accelerator-optimized A3): " +
		"a3-highgpu-8g 4 x 200 Gbps GPU NICs with GPUDirect-TCPX, a3-megagpu-8g 8 x 200 Gbps with GPUDirect-TCPXO"
	srcH800 = "NVIDIA H800 SXM5: NVLink 400 GB/s both ways (8 NVLink 4 links; the export variant of H100's 900 GB/s), " +
		"as NVIDIA's H800 product brief states; NCCL's log on an H800 board reports the NVLink total (not checked here)"
	srcH20 = "NVIDIA H20 (HGX H20): NVLink 900 GB/s (18 links) like H100, fewer SMs and 4.0 TB/s HBM3 per NVIDIA's H20 product " +
		"brief; NCCL logs on H20 boards print NVL[370.8] = 18 x 20.6 (NVIDIA/nccl#1189)"
	srcA100PCIe = "NVIDIA A100 PCIe datasheet: two GPUs joined by 3 NVLink bridges, 600 GB/s both ways (12 NVLink 3 links); " +
		"NCCL rates them 12 x 20.0 = 240 GB/s one way (topo.h SM80_NVLINK_BW)"
)

func pcie(gen int, gtps, encoding float64, width int) Link {
	perLane := gtps * encoding / 8 * 1e9 // bytes/s per lane per direction
	return Link{
		Name: fmt.Sprintf("pcie%dx%d", gen, width), Kind: "pcie",
		Description: fmt.Sprintf("PCIe %d.0 x%d", gen, width),
		Bandwidth:   Bandwidth{BytesPerSecond: perLane * float64(width)},
		Alpha:       ncclPCIeHop, Source: srcPCIe,
		// topo.cc: link_speed in 100 Mb/s per lane (8 GT/s -> 60, 16 -> 120,
		// 32 -> 240, 64 -> 480), bandwidth width x speed / 80 GB/s.
		NCCLBandwidth: float64(width) * gtps * 7.5 / 80,
	}
}

// Links returns every link preset, sorted by name.
func Links() []Link {
	var ls []Link
	for _, g := range []struct {
		gen       int
		gtps, enc float64
	}{{3, 8, 128.0 / 130}, {4, 16, 128.0 / 130}, {5, 32, 128.0 / 130}, {6, 64, 242.0 / 256}} {
		for _, w := range []int{1, 4, 8, 16} {
			l := pcie(g.gen, g.gtps, g.enc, w)
			if g.gen == 5 && w == 16 {
				l.Efficiency = 55e9 / l.Beta()
				l.EfficiencySource = "pinned host-to-device copy measured on an H200, about 55 GB/s (recorded run copies-h200x1)"
			}
			ls = append(ls, l)
		}
	}
	nv := func(name, desc string, bidir float64, src string, links int, perLink float64) Link {
		return Link{Name: name, Kind: "nvlink", Description: desc,
			Bandwidth: Bandwidth{BytesPerSecond: bidir, Direction: Bidirectional},
			Alpha:     ncclNVLinkHop, Source: src + "; " + srcNCCLTopo, NCCLBandwidth: float64(links) * perLink}
	}
	ls = append(ls,
		nv("nvlink2-link", "NVLink 2 (V100), one link", 50e9, srcNVLink, 1, ncclNVLinkSM70),
		nv("nvlink3-link", "NVLink 3 (A100), one link", 50e9, srcNVLink, 1, ncclNVLinkSM80),
		nv("nvlink4-link", "NVLink 4 (H100/H200), one link", 50e9, srcNVLink, 1, ncclNVLinkSM90),
		nv("nvlink5-link", "NVLink 5 (B200), one link", 100e9, srcNVLink, 1, ncclNVLinkSM100),
		nv("nvlink3-bridge", "NVLink 3 bridge pair (A100 PCIe): 3 bridges, 12 links between two GPUs", 600e9,
			srcA100PCIe, 12, ncclNVLinkSM80),
		nv("nvlink4-h800", "NVLink 4 cut to 8 links per GPU (H800)", 400e9, srcH800, 8, ncclNVLinkSM90),
		nv("nvlink2-gpu", "NVLink 2 (V100), 6 links per GPU", 300e9, srcNVLink, 6, ncclNVLinkSM70),
		nv("nvlink3-gpu", "NVLink 3 (A100), 12 links per GPU", 600e9, srcNVLink, 12, ncclNVLinkSM80),
		nv("nvlink4-gpu", "NVLink 4 (H100/H200/H20), 18 links per GPU", 900e9, srcNVLink, 18, ncclNVLinkSM90),
		nv("nvlink5-gpu", "NVLink 5 (B200/GB200), 18 links per GPU", 1800e9, srcNVLink, 18, ncclNVLinkSM100),
	)
	h100 := &ls[len(ls)-2]
	h100.Efficiency = 370e9 / h100.Beta()
	h100.EfficiencySource = "8xH100 nccl-tests all_reduce ring busbw about 370 GB/s (NVIDIA/nccl-tests#212)"
	net := func(name, kind, desc string, gbits float64, src string) Link {
		return Link{Name: name, Kind: kind, Description: desc, Bandwidth: Bandwidth{BytesPerSecond: gbits * 1e9 / 8},
			Alpha: ncclNetHop, Source: src + "; NCCL rates a NIC at its port speed (ncclNetProperties_t.speed, Mb/s / 8000 GB/s)",
			NCCLBandwidth: gbits / 8}
	}
	hdr := net("ib-hdr", "ib", "InfiniBand HDR 4x port", 200, srcIB)
	hdr.Efficiency, hdr.EfficiencySource = 24/25.0, "24 GB/s nccl-tests busbw per 200G NIC, NVIDIA's expectation (NVIDIA/nccl-tests#119, 2022-11-17)"
	ndr := net("ib-ndr", "ib", "InfiniBand NDR 4x port", 400, srcIB)
	ndr.Efficiency, ndr.EfficiencySource = 47/50.0, "46-48 GB/s per NDR NIC expected by NVIDIA (NVIDIA/nccl-tests#290)"
	efa := net("efa-100", "efa", "AWS Elastic Fabric Adapter, one 100 Gb/s device (p4d has 4, p5 has 32)", 100, srcEFA)
	efa.NetLatency, efa.NetLatencyFit, efa.NetLatencySource = FitEFALatency, "efa", "fitted: see the package doc, calibration"
	efa400 := net("efa-400", "efa", "AWS Elastic Fabric Adapter (EFAv4), one 400 Gb/s device (p6-b200: 8, 3200 Gbps in all)", 400, srcEFAB200)
	efa400.NetLatency, efa400.NetLatencyFit, efa400.NetLatencySource = FitEFALatency*efaB200LatencyScale, "efa", "fitted on p5 rows (efa-100), scaled by NetLatencyScale: see the package doc, calibration"
	efa400.NetLatencyScale, efa400.NetLatencyScaleSource = efaB200LatencyScale, srcEFALatencyScale
	tcpx := net("tcpx-200", "tcpx", "Google Cloud GPUDirect-TCPX NIC, 200 Gb/s (A3: 4 per VM)", 200, srcTCPX)
	tcpx.NetLatency, tcpx.NetLatencyFit, tcpx.NetLatencySource = FitTCPXOLatency, "tcpxo", "not measured here: taken as TCPXO's fitted latency (same host-staged TCP design); see the package doc"
	tcpxo := net("tcpxo-200", "tcpxo", "Google Cloud GPUDirect-TCPXO NIC, 200 Gb/s (A3 Mega: 8 per VM)", 200, srcTCPX)
	tcpxo.NetLatency, tcpxo.NetLatencyFit, tcpxo.NetLatencySource = FitTCPXOLatency, "tcpxo", "fitted: see the package doc, calibration"
	ls = append(ls,
		Link{Name: "nvswitch3", Kind: "nvswitch",
			Description: "NVSwitch gen 3 (HGX H100/H200): every GPU reaches every other at its full 900 GB/s, with NVLS multicast and in-switch reduction",
			Bandwidth:   Bandwidth{BytesPerSecond: 900e9, Direction: Bidirectional}, Alpha: ncclNVLinkHop,
			Source:        srcNVLink + "; NVSwitch: 4 chips of 64 NVLink 4 ports on an HGX H100 board; " + srcNCCLTopo,
			NCCLBandwidth: 18 * ncclNVLinkSM90},
		hdr, ndr, efa, efa400, tcpx, tcpxo,
		net("ib-edr", "ib", "InfiniBand EDR 4x port", 100, srcIB),
		net("ib-xdr", "ib", "InfiniBand XDR 4x port", 800, srcIB),
		net("roce-100", "roce", "RoCE v2 over 100 GbE", 100, srcRoCE),
		net("roce-200", "roce", "RoCE v2 over 200 GbE", 200, srcRoCE),
		net("roce-400", "roce", "RoCE v2 over 400 GbE", 400, srcRoCE),
		Link{Name: "ddr4-3200-8ch", Kind: "memory", Description: "host memory, DDR4-3200, 8 channels (one socket)",
			Bandwidth: Bandwidth{BytesPerSecond: 8 * 3200e6 * 8},
			Source:    "JEDEC DDR4-3200: 3200 MT/s x 8 bytes = 25.6 GB/s per channel"},
		Link{Name: "ddr5-4800-8ch", Kind: "memory", Description: "host memory, DDR5-4800, 8 channels (one socket)",
			Bandwidth: Bandwidth{BytesPerSecond: 8 * 4800e6 * 8},
			Source:    "JEDEC DDR5-4800: 4800 MT/s x 8 bytes = 38.4 GB/s per channel"},
	)
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	return ls
}

// LinkByName returns the link preset with that name (case-insensitive).
func LinkByName(name string) (Link, error) {
	return presetByName(Links(), func(l Link) string { return l.Name }, name, "link")
}

// Node is a machine preset: GPUs, their link to each other and their NICs.
type Node struct {
	Name        string
	Description string
	GPUs        int
	// Intra is each GPU's link to the others (through NVSwitch or PCIe).
	Intra Link
	// NVSwitch is true when every GPU pair talks at the full Intra rate;
	// NVLS when the switch can reduce and multicast (NVLink SHARP).
	NVSwitch bool
	NVLS     bool
	// NICs and NIC describe the network ports used for GPU traffic.
	NICs int
	NIC  Link
	// NICPath is how far each GPU is from its NIC, as nvidia-smi topo -m
	// and NCCL's graph print it: "PIX", "PXB", "PXN", "PHB" or "SYS" (see
	// TunerTopology.NICPath). "" is PIX on an NVSwitch board (a NIC per
	// GPU under its PCIe switch) and PHB otherwise.
	NICPath string
	// ComputeCapability is the GPUs' SM version times 10 (80 A100, 90 H100).
	ComputeCapability int
	// NoP2P is true when GPUs cannot reach each other's memory over PCIe
	// (GeForce boards, where the driver turns peer-to-peer off), so NCCL
	// moves data through host memory (its SHM transport).
	NoP2P  bool
	Source string
}

// InterBeta returns each GPU's share of the node's network rate, one way.
func (n Node) InterBeta() float64 {
	if n.GPUs == 0 {
		return 0
	}
	return n.NIC.Beta() * float64(n.NICs) / float64(n.GPUs)
}

// WithGPUs returns one node of this kind with only gpus of its GPUs in
// use (a communicator over part of the board): the same links, and the
// NICs that serve those GPUs (NICs x gpus / GPUs, rounded up). gpus must
// be between 1 and GPUs.
func (n Node) WithGPUs(gpus int) (Node, error) {
	if gpus < 1 || gpus > n.GPUs {
		return Node{}, fmt.Errorf("%w: %s has %d GPUs, not %d", ErrParams, n.Name, n.GPUs, gpus)
	}
	if gpus == n.GPUs {
		return n, nil
	}
	m := n
	m.GPUs = gpus
	if n.NICs > 0 {
		m.NICs = (n.NICs*gpus + n.GPUs - 1) / n.GPUs
	}
	m.Description = fmt.Sprintf("%d of %s", gpus, n.Description)
	return m, nil
}

// Params fills the link parts of Params for nodes of this kind:
// ranks = GPUs x nodes, Alpha/Beta from Intra, InterAlpha/InterBeta from
// the NICs shared by the GPUs.
func (n Node) Params(c Collective, a Algorithm, nodes int, size float64) Params {
	if nodes < 1 {
		nodes = 1
	}
	return Params{Collective: c, Algorithm: a, Ranks: n.GPUs * nodes, Nodes: nodes, Bytes: size,
		Alpha: n.Intra.Alpha, Beta: n.Intra.Beta(), InterAlpha: n.NIC.Alpha, InterBeta: n.InterBeta()}
}

// Nodes returns the node presets, sorted by name.
func Nodes() []Node {
	byName := map[string]Link{}
	for _, l := range Links() {
		byName[l.Name] = l
	}
	// A typo below gives a zero Link; TestNodePresets catches it.
	must := func(name string) Link { return byName[name] }
	const (
		srcHGXH100 = "NVIDIA DGX H100 user guide: 8 H100, 4 NVSwitch, 8 ConnectX-7 NDR 400 Gb/s compute ports"
		srcGeForce = "GeForce boards run peer-to-peer off (NVIDIA driver), so NCCL's SHM transport stages through host memory " +
			"(NCCL_P2P_LEVEL docs; sjeaugey in NVIDIA/nccl#1639: on PCI systems the CPU and memory set the bandwidth)"
	)
	ns := []Node{
		{Name: "dgx-a100", Description: "8x A100 SXM, NVSwitch (NVLink 3, 600 GB/s per GPU), 8x HDR 200 Gb/s",
			GPUs: 8, Intra: must("nvlink3-gpu"), NVSwitch: true, NICs: 8, NIC: must("ib-hdr"), ComputeCapability: 80,
			Source: "NVIDIA DGX A100 System Architecture white paper: 8 A100, 6 NVSwitch, 8 single-port ConnectX-6 HDR for compute"},
		{Name: "hgx-h100", Description: "8x H100 SXM, NVSwitch (NVLink 4, 900 GB/s per GPU), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: srcHGXH100},
		{Name: "hgx-h200", Description: "8x H200 SXM, NVSwitch (NVLink 4, 900 GB/s per GPU), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: "NVIDIA H200 datasheet (NVLink 900 GB/s); HGX H200 boards share the H100 board's NVSwitch and 8-NIC layout"},
		{Name: "hgx-h800", Description: "8x H800 SXM, NVSwitch with NVLink cut to 400 GB/s per GPU (8 links), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-h800"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: srcH800 + "; NICs as on the HGX H100 board (8 x 400 Gb/s; some H800 systems carry 100 or 200 Gb/s NICs)"},
		{Name: "hgx-h20", Description: "8x H20, NVSwitch (NVLink 4, 900 GB/s per GPU, fewer SMs than H100), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: srcH20 + "; 8 ConnectX-7 NDR per node as in NVIDIA/nccl#1244 (16 NICs on 2 nodes)"},
		{Name: "p4d", Description: "AWS p4d.24xlarge: 8x A100 40GB SXM, NVSwitch (600 GB/s per GPU), 4x 100 Gb/s EFA",
			GPUs: 8, Intra: must("nvlink3-gpu"), NVSwitch: true, NICs: 4, NIC: must("efa-100"), ComputeCapability: 80,
			Source: srcEFA + "; 8 A100 40GB on NVSwitch (aws.amazon.com/ec2/instance-types/p4)"},
		{Name: "p4de", Description: "AWS p4de.24xlarge: 8x A100 80GB SXM, NVSwitch (600 GB/s per GPU), 4x 100 Gb/s EFA",
			GPUs: 8, Intra: must("nvlink3-gpu"), NVSwitch: true, NICs: 4, NIC: must("efa-100"), ComputeCapability: 80,
			Source: srcEFA + "; 8 A100 80GB on NVSwitch (aws.amazon.com/ec2/instance-types/p4)"},
		{Name: "p5", Description: "AWS p5.48xlarge: 8x H100 SXM, NVSwitch (900 GB/s per GPU), 32x 100 Gb/s EFA (3200 Gb/s)",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 32, NIC: must("efa-100"), ComputeCapability: 90,
			Source: srcEFA + "; 8 H100 80GB on NVSwitch (aws.amazon.com/ec2/instance-types/p5)"},
		{Name: "p6-b200", Description: "AWS p6-b200.48xlarge: 8x B200, NVSwitch (NVLink 5, 1.8 TB/s per GPU), 8x 400 Gb/s EFA (3200 Gbps)",
			GPUs: 8, Intra: must("nvlink5-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("efa-400"), ComputeCapability: 100,
			Source: srcEFAB200 + "; 8 B200 on NVLink 5 (aws.amazon.com/ec2/instance-types/p6)"},
		{Name: "gcp-a3", Description: "Google Cloud a3-highgpu-8g: 8x H100 SXM, NVSwitch, 4x 200 Gb/s GPUDirect-TCPX",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 4, NIC: must("tcpx-200"), ComputeCapability: 90,
			Source: srcTCPX},
		{Name: "gcp-a3-mega", Description: "Google Cloud a3-megagpu-8g: 8x H100 SXM, NVSwitch, 8x 200 Gb/s GPUDirect-TCPXO",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("tcpxo-200"), ComputeCapability: 90,
			Source: srcTCPX},
		{Name: "gb200-nvl72", Description: "GB200 NVL72: 72 Blackwell GPUs in one NVLink 5 domain (1.8 TB/s per GPU, NVLS), one 400 Gb/s NIC per GPU",
			GPUs: 72, Intra: must("nvlink5-gpu"), NVSwitch: true, NVLS: true, NICs: 72, NIC: must("ib-ndr"), ComputeCapability: 100,
			Source: "NVIDIA GB200 NVL72 product page: 72 Blackwell GPUs, fifth-generation NVLink 1.8 TB/s per GPU, 130 TB/s in the " +
				"domain; compute trays of 4 GPUs with 4 ConnectX-7 400 Gb/s NICs"},
		{Name: "a100-pcie-nvbridge", Description: "2x A100 PCIe joined by 3 NVLink bridges (600 GB/s), PCIe 4.0 x16, one HDR NIC",
			GPUs: 2, Intra: must("nvlink3-bridge"), NICs: 1, NIC: must("ib-hdr"), ComputeCapability: 80,
			Source: srcA100PCIe + "; the NIC is illustrative"},
		{Name: "l40s-pcie", Description: "8x L40S on PCIe 4.0 x16, no NVLink, peer-to-peer over PCIe, 4x 200 GbE RoCE",
			GPUs: 8, Intra: must("pcie4x16"), NICs: 4, NIC: must("roce-200"), ComputeCapability: 89,
			Source: "NVIDIA L40S datasheet: PCIe Gen4 x16 (64 GB/s both ways), no NVLink; the 4 NICs are an illustrative server, not a product"},
		{Name: "rtx4090-pcie", Description: "8x GeForce RTX 4090 on PCIe 4.0 x16, no NVLink, no peer-to-peer (host-memory staging), 1x 100 GbE",
			GPUs: 8, Intra: must("pcie4x16"), NICs: 1, NIC: must("roce-100"), ComputeCapability: 89, NoP2P: true,
			Source: "NVIDIA RTX 4090 specifications: PCIe Gen4 x16, no NVLink; " + srcGeForce + "; the NIC is illustrative"},
		{Name: "rtx5090-pcie", Description: "8x GeForce RTX 5090 on PCIe 5.0 x16, no NVLink, no peer-to-peer (host-memory staging), 1x 100 GbE",
			GPUs: 8, Intra: must("pcie5x16"), NICs: 1, NIC: must("roce-100"), ComputeCapability: 120, NoP2P: true,
			Source: "NVIDIA RTX 5090 specifications: PCIe Gen5 x16, no NVLink; " + srcGeForce + "; the NIC is illustrative"},
		{Name: "rtx3090-pcie", Description: "8x GeForce RTX 3090 on PCIe 4.0 x16 behind PCIe switches, no NVLink bridge, no peer-to-peer (host-memory staging), 1x 100 GbE",
			GPUs: 8, Intra: must("pcie4x16"), NICs: 1, NIC: must("roce-100"), ComputeCapability: 86, NoP2P: true,
			Source: "NVIDIA RTX 3090 specifications: PCIe Gen4 x16; " + srcGeForce + "; 8 GPUs as in NVIDIA/nccl#1439; the NIC is illustrative"},
		{Name: "rtx2080ti-pcie", Description: "2x GeForce RTX 2080 Ti on PCIe 3.0 x16 under one PCIe switch, no NVLink, no peer-to-peer (host-memory staging), 1x 100 GbE",
			GPUs: 2, Intra: must("pcie3x16"), NICs: 1, NIC: must("roce-100"), ComputeCapability: 75, NoP2P: true,
			Source: "NVIDIA RTX 2080 Ti specifications: PCIe Gen3 x16; " + srcGeForce + "; the two GPUs under one switch (PIX) as in " +
				"Anthony-Hoo/Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_Interconnection_Test.md; the NIC is illustrative"},
		{Name: "pcie-8gpu", Description: "8 GPUs on PCIe 4.0 x16 behind switches, no NVLink, 2x 100 GbE RoCE (a generic PCIe-only box)",
			GPUs: 8, Intra: must("pcie4x16"), NICs: 2, NIC: must("roce-100"), ComputeCapability: 89,
			Source: "an illustrative PCIe-only server, not a product; link rates from PCI-SIG and IEEE 802.3"},
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	return ns
}

// NodeNames lists the node presets' names, comma-separated, as flag
// usage names them.
func NodeNames() string {
	var names []string
	for _, n := range Nodes() {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}

// NodeByName returns the node preset with that name (case-insensitive).
func NodeByName(name string) (Node, error) {
	return presetByName(Nodes(), func(n Node) string { return n.Name }, name, "node preset")
}

// presetByName finds a preset by name, case-insensitive, or says which
// names there are. Unexported: yaegi cannot extract generic functions.
func presetByName[T any](presets []T, nameOf func(T) string, name, what string) (T, error) {
	var names []string
	for _, p := range presets {
		if strings.EqualFold(nameOf(p), name) {
			return p, nil
		}
		names = append(names, nameOf(p))
	}
	var zero T
	return zero, fmt.Errorf("%w: unknown %s %q (known: %s)", ErrParams, what, name, strings.Join(names, ", "))
}

// Preset is one named preset as a table lists it: a node or a link, what
// it is, and the public sources of its numbers.
type Preset struct {
	Name string
	// Kind is "node", or a link's kind (nvlink, nvswitch, pcie, ib, roce,
	// efa, tcpx, tcpxo, memory).
	Kind        string
	Description string
	Sources     []string
}

// String prints the preset in one line: name, kind and description.
func (p Preset) String() string { return fmt.Sprintf("%s (%s): %s", p.Name, p.Kind, p.Description) }

// Presets lists every node preset, then every link preset, each with the
// sources of its numbers (a chapter's link table, `commlab model --help`).
func Presets() []Preset {
	var out []Preset
	add := func(sources []string, s string) []string {
		if s == "" {
			return sources
		}
		for _, have := range sources {
			if have == s {
				return sources
			}
		}
		return append(sources, s)
	}
	for _, n := range Nodes() {
		var src []string
		for _, s := range []string{n.Source, n.Intra.Source, n.Intra.EfficiencySource, n.NIC.Source, n.NIC.EfficiencySource,
			n.NIC.NetLatencySource} {
			src = add(src, s)
		}
		out = append(out, Preset{Name: n.Name, Kind: "node", Description: n.Description, Sources: src})
	}
	for _, l := range Links() {
		var src []string
		for _, s := range []string{l.Source, l.EfficiencySource, l.NetLatencySource} {
			src = add(src, s)
		}
		out = append(out, Preset{Name: l.Name, Kind: l.Kind, Description: l.Description, Sources: src})
	}
	return out
}

// LinksByName is the presets of the given names, in that order.
func LinksByName(names ...string) ([]Link, error) {
	out := make([]Link, 0, len(names))
	for _, n := range names {
		l, err := LinkByName(n)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}
