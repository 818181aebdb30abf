package published

import (
	"context"
	"embed"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/commlab/commlab/parse/nvidiasmi"
	"github.com/commlab/commlab/probes"
)

//go:embed recorded/*.txt
var recorded embed.FS

// Machine is a fake machine: a fixed Topology served as a probes.Source.
type Machine struct {
	name string
	topo *probes.Topology
	// err is set when the embedded recording failed to parse, a build
	// defect the tests catch; Topology then returns it.
	err error
}

var _ probes.Source = (*Machine)(nil)

// Name is the machine's short name ("hgx-h200", "pcie-8gpu"): the names of
// costmodel's node presets for the same machines.
func (m *Machine) Name() string { return m.name }

// Topology returns a fresh copy of the machine's topology, so callers may
// change it freely.
func (m *Machine) Topology(ctx context.Context) (*probes.Topology, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.err != nil {
		return nil, m.err
	}
	return cloneTopology(m.topo), nil
}

// Facts of the H200 SXM5 141 GB used where the recorded matrix is silent.
const (
	// h200Name and h200MemoryBytes are what NVML reported on this
	// project's H200 machine, driver 580.159.04 (recorded in
	// probes/testdata/h200-topo/probe-topo.json; nvidia-smi shows 143771 MiB).
	h200Name        = "NVIDIA H200"
	h200MemoryBytes = 150754820096
	// NVLink 4: 18 links per GPU at 25 GB/s each way, 900 GB/s both ways
	// together (NVIDIA H200 datasheet).
	h200NVLinks      = 18
	nvlink4LinkGBps  = 25.0
	connectX7Gbps    = 400.0
	connectX7RateStr = "400 Gb/sec (4X NDR)"
)

// hgxBusIDs are the GPU PCI addresses of an HGX H100 baseboard as
// `nvidia-smi -q` reports them (thamada/nvidia-smi nvsim/H100SXMx8_smi.py).
var hgxBusIDs = []string{
	"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
	"0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0",
}

// HGXH200 is an 8-GPU HGX H200 node: NVSwitch between all GPUs (NV18),
// two NUMA nodes of four GPUs, and a 400 Gb/s NIC beside each GPU on its
// PCIe switch.
func HGXH200() *Machine {
	return recordedMachine("hgx-h200", "recorded/hgx-8gpu-8nic-topo-m.txt", fillHGXH200)
}

// fillHGXH200 adds what the recorded HGX matrix lacks: published H200
// GPU facts, the NICs' ports, and the links inferred again from them.
func fillHGXH200(t *probes.Topology) {
	t.Source = "fake: HGX H200 8-GPU (matrix recorded on an HGX H20 node, sglang#24966)"
	t.Host = "fake-hgx-h200"
	for i := range t.GPUs {
		g := &t.GPUs[i]
		g.Name = h200Name
		g.MemoryBytes = h200MemoryBytes
		g.ComputeCapability = "9.0"
		g.Architecture = "Hopper"
		g.BusID = hgxBusIDs[i]
		g.PCIe = probes.PCIeLink{GenCurrent: 5, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
		for l := 0; l < h200NVLinks; l++ {
			g.NVLinks = append(g.NVLinks, probes.NVLinkPort{Link: l, Active: true, Version: 4, RemoteKind: "NVSwitch"})
		}
	}
	for i := range t.NICs {
		n := &t.NICs[i]
		n.PCIe = probes.PCIeLink{GenCurrent: 5, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
		n.Ports = []probes.RDMAPort{{Port: 1, State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "InfiniBand", Rate: connectX7RateStr, RateGbps: connectX7Gbps}}
	}
	// The links were inferred before the PCIe facts were set; infer again.
	t.Links, t.Switches = nil, nil
	t.InferGraph()
	for i, l := range t.Links {
		if l.Kind == probes.LinkNVLink {
			t.Links[i].Version = 4
			t.Links[i].GBps = float64(l.Count) * nvlink4LinkGBps
		}
	}
	t.GPUDirect = probes.GPUDirect{PeerMem: true, DMABuf: "not checked (fake machine)"}
	t.Notes = []string{"fake machine: paths from a recorded HGX matrix, GPU facts from published H200 figures"}
}

// PCIeBox is an 8-GPU PCIe server with two GPUs per PCIe switch, two
// switches per CPU socket, and no NVLink or RDMA NIC.
func PCIeBox() *Machine {
	return recordedMachine("pcie-8gpu", "recorded/pcie-8gpu-topo-m.txt", func(t *probes.Topology) {
		t.Source = "fake: PCIe box, 8 GPUs, two per switch (matrix from hellolijj/k8s-device-plugin)"
		t.Host = "fake-pcie-box"
		t.Notes = []string{"fake machine: paths from a recorded matrix; GPU model and NUMA nodes not recorded, CPU sockets inferred from SYS paths"}
	})
}

// Names lists the fake machines ByName knows, named as costmodel's node
// presets name the same machines.
func Names() []string {
	names := []string{"hgx-h200", "pcie-8gpu"}
	sort.Strings(names)
	return names
}

// ByName returns a fake machine by its short name; "pcie-box", its name
// before it took the preset's, still works.
func ByName(name string) (*Machine, error) {
	switch name {
	case "hgx-h200":
		return HGXH200(), nil
	case "pcie-8gpu", "pcie-box":
		return PCIeBox(), nil
	}
	return nil, fmt.Errorf("published: unknown machine %q (known: %v)", name, Names())
}

// recordedMatrices are the recorded `nvidia-smi topo -m` outputs behind
// the fake machines, by the machine they were recorded on, with where
// they were published (recorded/SOURCES.md).
var recordedMatrices = map[string]struct{ path, source string }{
	"hgx-h20": {"recorded/hgx-8gpu-8nic-topo-m.txt",
		"nvidia-smi topo -m of an 8x NVIDIA H20 HGX node, driver 535.161.08, 8 ConnectX NICs (sgl-project/sglang issue #24966)"},
	"deepep60-mp": {"recorded/deepep60-8gpu-14nic-topo-mp-excerpt.txt",
		"nvidia-smi topo -mp of an 8-GPU node with 14 NICs, as posted in deepseek-ai/DeepEP issue #60 (comment by MinhuiWan, 2025-03-10); the stored copy ends after GPU3's row"},
	"pcie-8gpu": {"recorded/pcie-8gpu-topo-m.txt",
		"nvidia-smi topo -m of an 8-GPU PCIe server, two GPUs per PCIe switch, GPU model not stated (hellolijj/k8s-device-plugin README)"},
}

// Matrices lists the recorded matrices Matrix returns, sorted.
func Matrices() []string {
	return slices.Sorted(maps.Keys(recordedMatrices))
}

// Matrix returns a recorded `nvidia-smi topo -m` output as it was
// published, and where: the matrix of the machine it was recorded on
// ("hgx-h20", "pcie-8gpu"), for readers who parse it as they would their
// own. The fake machines fill such a matrix with facts of another GPU;
// Matrix does not.
func Matrix(name string) (text, source string, err error) {
	m, ok := recordedMatrices[name]
	if !ok {
		return "", "", fmt.Errorf("published: no recorded matrix %q (known: %v)", name, Matrices())
	}
	b, err := recorded.ReadFile(m.path)
	if err != nil {
		return "", "", fmt.Errorf("published: embedded %s: %w", m.path, err)
	}
	return string(b), m.source, nil
}

// recordedMachine is the machine called name whose paths come from the
// recorded `nvidia-smi topo -m` matrix at path; fill adds the facts the
// matrix does not hold.
func recordedMachine(name, path string, fill func(t *probes.Topology)) *Machine {
	t, err := parseRecorded(path)
	if err != nil {
		return &Machine{name: name, err: err}
	}
	fill(t)
	return &Machine{name: name, topo: t}
}

func parseRecorded(path string) (*probes.Topology, error) {
	data, err := recorded.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("published: embedded %s: %w", path, err)
	}
	m, err := nvidiasmi.ParseTopoMatrixString(string(data))
	if err != nil {
		return nil, fmt.Errorf("published: recorded %s: %w", path, err)
	}
	return TopologyFromMatrix(m), nil
}

// TopologyFromMatrix is m.Topology(), kept for callers that found it here.
func TopologyFromMatrix(m *nvidiasmi.TopoMatrix) *probes.Topology { return m.Topology() }

// FromTopoM builds a machine from pasted or recorded `nvidia-smi topo -m`
// text. On damaged input it returns the machine built from what parsed,
// together with the parse error naming the line.
func FromTopoM(name, text string) (*Machine, error) {
	m, err := nvidiasmi.ParseTopoMatrixString(text)
	if m == nil || len(m.Devices) == 0 {
		if err == nil {
			err = fmt.Errorf("published: %s: no devices in the matrix", name)
		}
		return nil, err
	}
	t := TopologyFromMatrix(m)
	t.Host = name
	return &Machine{name: name, topo: t}, err
}

// cloneTopology deep-copies a topology so a caller's edits stay local.
func cloneTopology(t *probes.Topology) *probes.Topology {
	c := *t
	c.GPUs = make([]probes.GPU, len(t.GPUs))
	for i, g := range t.GPUs {
		g.NVLinks = append([]probes.NVLinkPort(nil), g.NVLinks...)
		c.GPUs[i] = g
	}
	c.NICs = make([]probes.NIC, len(t.NICs))
	for i, n := range t.NICs {
		n.Ports = append([]probes.RDMAPort(nil), n.Ports...)
		for j := range n.Ports {
			n.Ports[j].GIDs = append([]string(nil), n.Ports[j].GIDs...)
		}
		c.NICs[i] = n
	}
	c.Switches = make([]probes.PCISwitch, len(t.Switches))
	for i, s := range t.Switches {
		s.Members = append([]string(nil), s.Members...)
		c.Switches[i] = s
	}
	c.NUMANodes = append([]probes.NUMANode(nil), t.NUMANodes...)
	c.Links = append([]probes.Link(nil), t.Links...)
	c.Devices = append([]string(nil), t.Devices...)
	c.Paths = make([][]probes.Path, len(t.Paths))
	for i, row := range t.Paths {
		c.Paths[i] = append([]probes.Path(nil), row...)
	}
	c.P2P = append([]probes.P2P(nil), t.P2P...)
	c.Notes = append([]string(nil), t.Notes...)
	return &c
}
