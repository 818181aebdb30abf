package probes

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Topology is what one machine is made of and how its parts connect. Every
// Source fills what it can read; fields it cannot read stay at their zero
// value (or -1 for NUMA nodes), and Notes says why.
type Topology struct {
	Host   string `json:"host,omitempty"`
	Source string `json:"source"` // "nvml+sysfs", "nvidia-smi topo -m", "fake: ..."
	Driver string `json:"driver,omitempty"`

	GPUs      []GPU       `json:"gpus"`
	NICs      []NIC       `json:"nics,omitempty"`
	Switches  []PCISwitch `json:"switches,omitempty"`
	NUMANodes []NUMANode  `json:"numa_nodes,omitempty"`
	// Links are the edges of the drawing: PCIe from devices to switches and
	// CPUs, NVLink between GPUs or to an NVSwitch, SMP between NUMA nodes.
	Links []Link `json:"links,omitempty"`

	// Devices names the rows and columns of the path matrix in the order
	// nvidia-smi prints them ("GPU0".."GPU7", "NIC0".."NIC7"); Paths[i][j] is
	// the path between Devices[i] and Devices[j].
	Devices []string `json:"devices,omitempty"`
	Paths   [][]Path `json:"paths,omitempty"`

	P2P       []P2P     `json:"p2p,omitempty"`
	GPUDirect GPUDirect `json:"gpudirect"`
	// Notes are what a source could not read, and why, in plain words.
	Notes []string `json:"notes,omitempty"`

	devIndex map[string]int // Devices position by name, see index
}

// GPU is one NVIDIA GPU as NVML, sysfs or nvidia-smi sees it.
type GPU struct {
	Index             int      `json:"index"`
	Name              string   `json:"name,omitempty"`
	UUID              string   `json:"uuid,omitempty"`
	BusID             string   `json:"bus_id,omitempty"` // "0000:18:00.0"
	MemoryBytes       uint64   `json:"memory_bytes,omitempty"`
	ComputeCapability string   `json:"compute_capability,omitempty"` // "9.0"
	Architecture      string   `json:"architecture,omitempty"`
	PCIe              PCIeLink `json:"pcie"`
	// NUMANode is the NUMA node nearest the GPU (nvidia-smi's NUMA Affinity);
	// -1 when unknown. MemoryNUMANode is the NUMA node of the GPU's own
	// memory where the GPU exposes it as one (Grace Hopper), else -1.
	NUMANode       int          `json:"numa_node"`
	MemoryNUMANode int          `json:"memory_numa_node"`
	CPUAffinity    string       `json:"cpu_affinity,omitempty"` // cpulist "0-47,96-143"
	NVLinks        []NVLinkPort `json:"nvlinks,omitempty"`
	// PCIe throughput over NVML's 20 ms sample window, in KB/s; zero when
	// the source cannot read it.
	PCIeTxKBps float64 `json:"pcie_tx_kbps,omitempty"`
	PCIeRxKBps float64 `json:"pcie_rx_kbps,omitempty"`
}

// ID is the GPU's name in the path matrix and the drawing: "GPU0".
func (g GPU) ID() string { return "GPU" + strconv.Itoa(g.Index) }

// NVLinkPort is one NVLink of a GPU.
type NVLinkPort struct {
	Link        int    `json:"link"`
	Active      bool   `json:"active"`
	Version     int    `json:"version,omitempty"`
	RemoteBusID string `json:"remote_bus_id,omitempty"`
	// RemoteKind is "GPU", "NVSwitch", "CPU" or "" when unknown.
	RemoteKind string `json:"remote_kind,omitempty"`
}

// PCIeLink is a device's PCIe link, as trained now and at most.
type PCIeLink struct {
	GenCurrent   int `json:"gen_current,omitempty"`
	GenMax       int `json:"gen_max,omitempty"`
	WidthCurrent int `json:"width_current,omitempty"`
	WidthMax     int `json:"width_max,omitempty"`
}

// GBps is the one-direction payload bandwidth of the link as trained now,
// after line encoding, before protocol overhead; 0 when unknown.
func (l PCIeLink) GBps() float64 { return PCIeGBps(l.GenCurrent, l.WidthCurrent) }

// MaxGBps is GBps for the link's maximum generation and width.
func (l PCIeLink) MaxGBps() float64 { return PCIeGBps(l.GenMax, l.WidthMax) }

// String renders "Gen5 x16" or "Gen4 x16 (max Gen5 x16)" when degraded.
func (l PCIeLink) String() string {
	if l.GenCurrent == 0 && l.WidthCurrent == 0 {
		return "PCIe"
	}
	s := fmt.Sprintf("Gen%d x%d", l.GenCurrent, l.WidthCurrent)
	if (l.GenMax != 0 && l.GenMax != l.GenCurrent) || (l.WidthMax != 0 && l.WidthMax != l.WidthCurrent) {
		s += fmt.Sprintf(" (max Gen%d x%d)", l.GenMax, l.WidthMax)
	}
	return s
}

// pcieLaneGBps is one lane's one-direction rate in GB/s per generation:
// transfer rate x encoding / 8. Gen1-2 use 8b/10b (2.5, 5 GT/s), Gen3-5
// 128b/130b (8, 16, 32 GT/s), Gen6 PAM4 with 242/256 FLIT efficiency
// (64 GT/s). Source: PCI-SIG PCI Express Base Specification 1.0-6.0.
var pcieLaneGBps = map[int]float64{
	1: 2.5 * 8 / 10 / 8,
	2: 5.0 * 8 / 10 / 8,
	3: 8.0 * 128 / 130 / 8,
	4: 16.0 * 128 / 130 / 8,
	5: 32.0 * 128 / 130 / 8,
	6: 64.0 * 242 / 256 / 8,
}

// PCIeGBps is the one-direction bandwidth of a link of generation gen and
// width lanes in GB/s; 0 for an unknown generation.
func PCIeGBps(gen, width int) float64 {
	return pcieLaneGBps[gen] * float64(width)
}

// PCIeGenFromSpeed maps a sysfs or NCCL link speed ("32.0 GT/s PCIe",
// "16 GT/s", "8.0 GT/s") to a PCIe generation; 0 when unknown.
func PCIeGenFromSpeed(speed string) int {
	f := strings.Fields(speed)
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	for gen := len(pcieMinGTs) - 1; gen >= 1; gen-- {
		if v >= pcieMinGTs[gen] {
			return gen
		}
	}
	return 0
}

// pcieMinGTs[gen] is the lowest printed link speed (GT/s) read as PCIe
// generation gen: a little under its transfer rate (2.5, 5, 8, 16, 32, 64),
// since tools round ("7.9 GT/s").
var pcieMinGTs = [...]float64{1: 2.4, 2: 4.9, 3: 7.9, 4: 15, 5: 31, 6: 63}

// NIC is a network adapter, usually an RDMA device (mlx5_0).
type NIC struct {
	Index    int        `json:"index"` // n in "NICn" of the matrix
	Name     string     `json:"name"`  // "mlx5_0"
	BusID    string     `json:"bus_id,omitempty"`
	NUMANode int        `json:"numa_node"`
	PCIe     PCIeLink   `json:"pcie"`
	Ports    []RDMAPort `json:"ports,omitempty"`
}

// ID is the NIC's name in the path matrix and the drawing: "NIC0".
func (n NIC) ID() string { return "NIC" + strconv.Itoa(n.Index) }

// RDMAPort is one port of an RDMA device, from /sys/class/infiniband.
type RDMAPort struct {
	Port      int      `json:"port"`
	State     string   `json:"state,omitempty"`      // "ACTIVE"
	PhysState string   `json:"phys_state,omitempty"` // "LinkUp"
	LinkLayer string   `json:"link_layer,omitempty"` // "InfiniBand", "Ethernet"
	Rate      string   `json:"rate,omitempty"`       // "400 Gb/sec (4X NDR)"
	RateGbps  float64  `json:"rate_gbps,omitempty"`
	GIDs      []string `json:"gids,omitempty"` // non-zero GIDs only
}

// PCISwitch is a PCIe switch (or, where a source can only infer it, a
// group of devices that nvidia-smi reports as PIX to each other).
type PCISwitch struct {
	ID       string   `json:"id"`               // "PCISW0"
	BusID    string   `json:"bus_id,omitempty"` // upstream port, when known
	NUMANode int      `json:"numa_node"`
	Members  []string `json:"members"` // device IDs below it: "GPU0", "NIC0"
	Inferred bool     `json:"inferred,omitempty"`
}

// NUMANode is one NUMA node: a CPU socket or a part of one.
type NUMANode struct {
	ID   int    `json:"id"`
	CPUs string `json:"cpus,omitempty"` // cpulist "0-47,96-143"
}

// NodeID is the node's name in the drawing: "NUMA0".
func (n NUMANode) NodeID() string { return "NUMA" + strconv.Itoa(n.ID) }

// LinkKind says what a Link is made of.
type LinkKind string

// Link kinds.
const (
	LinkNVLink LinkKind = "NVLink"
	LinkPCIe   LinkKind = "PCIe"
	LinkNet    LinkKind = "NET"
	LinkSMP    LinkKind = "SMP" // between NUMA nodes: UPI, xGMI, ...
)

// Link is one edge of the topology graph between two node IDs ("GPU0",
// "NIC0", "PCISW0", "NUMA0", "NVS0").
type Link struct {
	Kind LinkKind `json:"kind"`
	A    string   `json:"a"`
	B    string   `json:"b"`
	// Count is the number of bonded NVLinks; Version the NVLink version or
	// PCIe generation; Width the PCIe lane count.
	Count   int `json:"count,omitempty"`
	Version int `json:"version,omitempty"`
	Width   int `json:"width,omitempty"`
	// GBps is the one-direction bandwidth where known, else 0.
	GBps float64 `json:"gbps,omitempty"`
}

// P2P is what NVML reports about peer-to-peer access between two GPUs.
// Each field is "OK" or NVML's reason ("not supported", "chipset not
// supported", ...).
type P2P struct {
	GPU1    int    `json:"gpu1"`
	GPU2    int    `json:"gpu2"`
	Read    string `json:"read,omitempty"`
	Write   string `json:"write,omitempty"`
	NVLink  string `json:"nvlink,omitempty"`
	Atomics string `json:"atomics,omitempty"`
}

// GPUDirect collects the hints that say whether GPUDirect RDMA can work.
type GPUDirect struct {
	// PeerMem is true when the nvidia_peermem module is loaded.
	PeerMem        bool   `json:"peermem"`
	PeerMemVersion string `json:"peermem_version,omitempty"`
	// DMABuf is a short sentence on DMA-BUF support, the in-kernel
	// alternative to nvidia_peermem; empty when nothing was checked.
	DMABuf        string `json:"dmabuf,omitempty"`
	NvidiaVersion string `json:"nvidia_version,omitempty"` // nvidia.ko version
}

// index returns the position of a device in Devices, or -1. It keeps a
// lookup table, rebuilt (never edited in place, so copies of a Topology
// may share it) whenever it disagrees with Devices.
func (t *Topology) index(id string) int {
	if i, ok := t.devIndex[id]; ok && i < len(t.Devices) && t.Devices[i] == id {
		return i
	}
	m := make(map[string]int, len(t.Devices))
	for i, d := range t.Devices {
		if _, dup := m[d]; !dup {
			m[d] = i
		}
	}
	t.devIndex = m
	if i, ok := m[id]; ok {
		return i
	}
	return -1
}

// AddDevice appends a device to the path matrix (a no-op if present) and
// returns its index. New cells are unknown except the diagonal.
func (t *Topology) AddDevice(id string) int {
	if i := t.index(id); i >= 0 {
		return i
	}
	t.Devices = append(t.Devices, id)
	n := len(t.Devices)
	for i := range t.Paths {
		t.Paths[i] = append(t.Paths[i], Path{})
	}
	t.Paths = append(t.Paths, make([]Path, n))
	t.Paths[n-1][n-1] = Path{Level: LevelSelf}
	return n - 1
}

// SetPath records the path between two devices in both directions,
// adding them to the matrix when needed.
func (t *Topology) SetPath(a, b string, p Path) {
	i, j := t.AddDevice(a), t.AddDevice(b)
	t.Paths[i][j] = p
	t.Paths[j][i] = p
}

// PathBetween returns the path between two devices of the matrix.
func (t *Topology) PathBetween(a, b string) (Path, bool) {
	i, j := t.index(a), t.index(b)
	if i < 0 || j < 0 || i >= len(t.Paths) || j >= len(t.Paths[i]) {
		return Path{}, false
	}
	return t.Paths[i][j], true
}

// PairsByPath counts the pairs of GPUs by the path between them, keyed by
// the path as the matrix prints it ("NV18", "SYS").
func (t *Topology) PairsByPath() map[string]int {
	counts := map[string]int{}
	for i, g := range t.GPUs {
		for _, h := range t.GPUs[i+1:] {
			if p, ok := t.PathBetween(g.ID(), h.ID()); ok {
				counts[p.String()]++
			}
		}
	}
	return counts
}

// GPUByID finds a GPU by its matrix name ("GPU3").
func (t *Topology) GPUByID(id string) (GPU, bool) {
	for _, g := range t.GPUs {
		if g.ID() == id {
			return g, true
		}
	}
	return GPU{}, false
}

// NICByID finds a NIC by its matrix name ("NIC3").
func (t *Topology) NICByID(id string) (NIC, bool) {
	for _, n := range t.NICs {
		if n.ID() == id {
			return n, true
		}
	}
	return NIC{}, false
}

// NearestNICs returns, for a GPU, the NICs at the closest path level in the
// matrix, and that level. NCCL prefers such a NIC for the GPU's traffic.
func (t *Topology) NearestNICs(gpu string) ([]string, Level) {
	best := LevelUnknown
	var nics []string
	for _, n := range t.NICs {
		p, ok := t.PathBetween(gpu, n.ID())
		if !ok || p.Level == LevelUnknown {
			continue
		}
		switch {
		case best == LevelUnknown || p.Level < best:
			best, nics = p.Level, []string{n.ID()}
		case p.Level == best:
			nics = append(nics, n.ID())
		}
	}
	return nics, best
}

// Summary is a few lines a person reads first: GPUs, NICs, NUMA nodes and
// the kinds of GPU-to-GPU paths.
func (t *Topology) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source: %s\n", t.Source)
	if t.Host != "" {
		fmt.Fprintf(&b, "host: %s\n", t.Host)
	}
	if t.Driver != "" {
		fmt.Fprintf(&b, "driver: %s\n", t.Driver)
	}
	fmt.Fprintf(&b, "GPUs: %d", len(t.GPUs))
	names := map[string]int{}
	for _, g := range t.GPUs {
		if g.Name != "" {
			names[g.Name]++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(&b, " (%d x %s)", names[k], k)
	}
	fmt.Fprintf(&b, "\nNICs: %d\nNUMA nodes: %d\n", len(t.NICs), len(t.NUMANodes))
	if counts := t.PairsByPath(); len(counts) > 0 {
		b.WriteString("GPU pairs by path:")
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			fmt.Fprintf(&b, " %s=%d", k, counts[k])
		}
		b.WriteByte('\n')
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
