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
}

// Beta returns the one-way rate in bytes per second.
func (l Link) Beta() float64 { return l.Bandwidth.OneWay() }

// NCCL's per-hop latencies in seconds for the Simple protocol on a ring
// (NVIDIA/nccl src/graph/tuning.cc, hwLat, 2.19 to 2.26).
const (
	ncclNVLinkHop = 3.4e-6
	ncclPCIeHop   = 5.7e-6
	ncclNetHop    = 14e-6
)

const (
	srcPCIe = "PCI-SIG base specifications 3.0-6.0: 8/16/32/64 GT/s per lane; " +
		"128b/130b encoding (3.0-5.0), 242B/256B FLIT (6.0); per direction"
	srcNVLink = "NVIDIA NVLink page (nvidia.com/en-us/data-center/nvlink): V100 6 links 300 GB/s, " +
		"A100 12 links 600 GB/s, H100 18 links 900 GB/s, B200 18 links 1.8 TB/s, totals both ways; 50 GB/s " +
		"per NVLink 2-4 link and 100 GB/s per NVLink 5 link both ways"
	srcIB   = "InfiniBand Trade Association roadmap: HDR 200 Gb/s, NDR 400 Gb/s, XDR 800 Gb/s per 4x port, each direction"
	srcRoCE = "IEEE 802.3 Ethernet rates 100/200/400 GbE, each direction (RoCE v2 runs over them)"
)

func pcie(gen int, gtps, encoding float64, width int) Link {
	perLane := gtps * encoding / 8 * 1e9 // bytes/s per lane per direction
	return Link{
		Name: fmt.Sprintf("pcie%dx%d", gen, width), Kind: "pcie",
		Description: fmt.Sprintf("PCIe %d.0 x%d", gen, width),
		Bandwidth:   Bandwidth{BytesPerSecond: perLane * float64(width)},
		Alpha:       ncclPCIeHop, Source: srcPCIe,
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
	nv := func(name, desc string, bidir float64, src string) Link {
		return Link{Name: name, Kind: "nvlink", Description: desc,
			Bandwidth: Bandwidth{BytesPerSecond: bidir, Direction: Bidirectional},
			Alpha:     ncclNVLinkHop, Source: src}
	}
	ls = append(ls,
		nv("nvlink2-link", "NVLink 2 (V100), one link", 50e9, srcNVLink),
		nv("nvlink3-link", "NVLink 3 (A100), one link", 50e9, srcNVLink),
		nv("nvlink4-link", "NVLink 4 (H100/H200), one link", 50e9, srcNVLink),
		nv("nvlink5-link", "NVLink 5 (B200), one link", 100e9, srcNVLink),
		nv("nvlink2-gpu", "NVLink 2 (V100), 6 links per GPU", 300e9, srcNVLink),
		nv("nvlink3-gpu", "NVLink 3 (A100), 12 links per GPU", 600e9, srcNVLink),
		nv("nvlink4-gpu", "NVLink 4 (H100/H200), 18 links per GPU", 900e9, srcNVLink),
		nv("nvlink5-gpu", "NVLink 5 (B200), 18 links per GPU", 1800e9, srcNVLink),
	)
	h100 := &ls[len(ls)-2]
	h100.Efficiency = 370e9 / h100.Beta()
	h100.EfficiencySource = "8xH100 nccl-tests all_reduce ring busbw about 370 GB/s (NVIDIA/nccl-tests#212)"
	ls = append(ls,
		Link{Name: "nvswitch3", Kind: "nvswitch",
			Description: "NVSwitch gen 3 (HGX H100/H200): every GPU reaches every other at its full 900 GB/s, with NVLS multicast and in-switch reduction",
			Bandwidth:   Bandwidth{BytesPerSecond: 900e9, Direction: Bidirectional}, Alpha: ncclNVLinkHop,
			Source: srcNVLink + "; NVSwitch: 4 chips of 64 NVLink 4 ports on an HGX H100 board"},
		Link{Name: "ib-hdr", Kind: "ib", Description: "InfiniBand HDR 4x port", Bandwidth: Bandwidth{BytesPerSecond: 200e9 / 8},
			Alpha: ncclNetHop, Source: srcIB, Efficiency: 24 / 25.0,
			EfficiencySource: "24 GB/s nccl-tests busbw per 200G NIC, NVIDIA's expectation (NVIDIA/nccl-tests#119, 2022-11-17)"},
		Link{Name: "ib-ndr", Kind: "ib", Description: "InfiniBand NDR 4x port", Bandwidth: Bandwidth{BytesPerSecond: 400e9 / 8},
			Alpha: ncclNetHop, Source: srcIB, Efficiency: 47 / 50.0,
			EfficiencySource: "46-48 GB/s per NDR NIC expected by NVIDIA (NVIDIA/nccl-tests#290)"},
		Link{Name: "ib-xdr", Kind: "ib", Description: "InfiniBand XDR 4x port", Bandwidth: Bandwidth{BytesPerSecond: 800e9 / 8},
			Alpha: ncclNetHop, Source: srcIB},
		Link{Name: "roce-100", Kind: "roce", Description: "RoCE v2 over 100 GbE", Bandwidth: Bandwidth{BytesPerSecond: 100e9 / 8},
			Alpha: ncclNetHop, Source: srcRoCE},
		Link{Name: "roce-200", Kind: "roce", Description: "RoCE v2 over 200 GbE", Bandwidth: Bandwidth{BytesPerSecond: 200e9 / 8},
			Alpha: ncclNetHop, Source: srcRoCE},
		Link{Name: "roce-400", Kind: "roce", Description: "RoCE v2 over 400 GbE", Bandwidth: Bandwidth{BytesPerSecond: 400e9 / 8},
			Alpha: ncclNetHop, Source: srcRoCE},
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
	Source            string
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
	ns := []Node{
		{Name: "dgx-a100", Description: "8x A100 SXM, NVSwitch (NVLink 3, 600 GB/s per GPU), 8x HDR 200 Gb/s",
			GPUs: 8, Intra: must("nvlink3-gpu"), NVSwitch: true, NICs: 8, NIC: must("ib-hdr"), ComputeCapability: 80,
			Source: "NVIDIA DGX A100 System Architecture white paper: 8 A100, 6 NVSwitch, 8 single-port ConnectX-6 HDR for compute"},
		{Name: "hgx-h100", Description: "8x H100 SXM, NVSwitch (NVLink 4, 900 GB/s per GPU), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: "NVIDIA DGX H100 user guide: 8 H100, 4 NVSwitch, 8 ConnectX-7 NDR 400 Gb/s compute ports"},
		{Name: "hgx-h200", Description: "8x H200 SXM, NVSwitch (NVLink 4, 900 GB/s per GPU), 8x NDR 400 Gb/s",
			GPUs: 8, Intra: must("nvlink4-gpu"), NVSwitch: true, NVLS: true, NICs: 8, NIC: must("ib-ndr"), ComputeCapability: 90,
			Source: "NVIDIA H200 datasheet (NVLink 900 GB/s); HGX H200 boards share the H100 board's NVSwitch and 8-NIC layout"},
		{Name: "pcie-8gpu", Description: "8 GPUs on PCIe 4.0 x16 behind switches, no NVLink, 2x 100 GbE RoCE (a generic PCIe-only box)",
			GPUs: 8, Intra: must("pcie4x16"), NICs: 2, NIC: must("roce-100"), ComputeCapability: 89,
			Source: "an illustrative PCIe-only server, not a product; link rates from PCI-SIG and IEEE 802.3"},
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	return ns
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
