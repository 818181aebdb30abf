package sysfs

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// PCI class codes (PCI Code and ID Assignment Specification, PCI-SIG).
const (
	classDisplay3D   = "0x0302" // 3D controller: data-centre GPUs
	classDisplayVGA  = "0x0300"
	classEthernet    = "0x0200"
	classInfiniBand  = "0x0207"
	classBridgePCI   = "0x0604"
	classBridgeOther = "0x0680" // NVSwitch presents itself so
	vendorNVIDIA     = "0x10de"
	vendorMellanox   = "0x15b3"
)

// Device is one PCI function found under sys/devices.
type Device struct {
	Address string          `json:"address"` // "0000:18:00.0"
	Host    string          `json:"host"`    // host bridge directory, "pci0000:15"
	Chain   []string        `json:"chain"`   // bridges from the root port down, the device excluded
	Class   string          `json:"class"`   // "0x030200"
	Vendor  string          `json:"vendor"`
	Device  string          `json:"device"`
	NUMA    int             `json:"numa_node"`
	PCIe    probes.PCIeLink `json:"pcie"`
}

// IsBridge says whether the function is a PCI-to-PCI bridge (a root port or
// a switch port).
func (d Device) IsBridge() bool { return strings.HasPrefix(d.Class, classBridgePCI) }

// IsNVIDIAGPU says whether the function is an NVIDIA display or 3D device.
func (d Device) IsNVIDIAGPU() bool {
	return d.Vendor == vendorNVIDIA && (strings.HasPrefix(d.Class, classDisplay3D) || strings.HasPrefix(d.Class, classDisplayVGA))
}

// IsNVSwitch says whether the function is an NVIDIA NVSwitch.
func (d Device) IsNVSwitch() bool {
	return d.Vendor == vendorNVIDIA && strings.HasPrefix(d.Class, classBridgeOther)
}

// IsNetwork says whether the function is an Ethernet or InfiniBand adapter.
func (d Device) IsNetwork() bool {
	return strings.HasPrefix(d.Class, classEthernet) || strings.HasPrefix(d.Class, classInfiniBand)
}

// Source reads sysfs through an fs.FS rooted at "/".
type Source struct {
	FS fs.FS
}

var _ probes.Source = (*Source)(nil)

// New returns a Source over fsys, which must be rooted where "/" is:
// os.DirFS("/") on a live machine.
func New(fsys fs.FS) *Source { return &Source{FS: fsys} }

// isPCIAddress reports whether a directory name is a PCI function address
// such as 0000:18:00.0.
func isPCIAddress(s string) bool {
	if len(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.' {
		return false
	}
	for i, c := range s {
		if i == 4 || i == 7 || i == 10 {
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (s *Source) read(p string) string {
	b, err := fs.ReadFile(s.FS, p)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// PCIDevices walks the PCI hierarchy under sys/devices/pci*. Each device
// directory nests under its parent bridge there, which gives the chain of
// bridges without reading symlinks.
func (s *Source) PCIDevices() ([]Device, error) {
	roots, err := fs.ReadDir(s.FS, "sys/devices")
	if err != nil {
		return nil, fmt.Errorf("sysfs: %w: no sys/devices: %v", probes.ErrUnavailable, err)
	}
	var out []Device
	for _, r := range roots {
		if !r.IsDir() || !strings.HasPrefix(r.Name(), "pci") {
			continue
		}
		s.walk(path.Join("sys/devices", r.Name()), r.Name(), nil, &out, 0)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out, nil
}

// maxDepth bounds the walk; real trees nest a handful of bridges deep.
const maxDepth = 16

func (s *Source) walk(dir, host string, chain []string, out *[]Device, depth int) {
	if depth > maxDepth {
		return
	}
	entries, err := fs.ReadDir(s.FS, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !isPCIAddress(name) {
			continue
		}
		p := path.Join(dir, name)
		d := Device{
			Address: name,
			Host:    host,
			Chain:   append([]string(nil), chain...),
			Class:   s.read(p + "/class"),
			Vendor:  s.read(p + "/vendor"),
			Device:  s.read(p + "/device"),
			NUMA:    -1,
		}
		if n, err := strconv.Atoi(s.read(p + "/numa_node")); err == nil && n >= 0 {
			d.NUMA = n
		}
		d.PCIe.GenCurrent = probes.PCIeGenFromSpeed(s.read(p + "/current_link_speed"))
		d.PCIe.GenMax = probes.PCIeGenFromSpeed(s.read(p + "/max_link_speed"))
		d.PCIe.WidthCurrent, _ = strconv.Atoi(s.read(p + "/current_link_width"))
		d.PCIe.WidthMax, _ = strconv.Atoi(s.read(p + "/max_link_width"))
		*out = append(*out, d)
		s.walk(p, host, append(chain, name), out, depth+1)
	}
}

// NUMANodes reads sys/devices/system/node/node*/cpulist.
func (s *Source) NUMANodes() []probes.NUMANode {
	entries, err := fs.ReadDir(s.FS, "sys/devices/system/node")
	if err != nil {
		return nil
	}
	var nodes []probes.NUMANode
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "node")
		if !ok {
			continue
		}
		id, err := strconv.Atoi(rest)
		if err != nil {
			continue
		}
		nodes = append(nodes, probes.NUMANode{ID: id, CPUs: s.read("sys/devices/system/node/" + e.Name() + "/cpulist")})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	return nodes
}

// RDMADevice is one entry of sys/class/infiniband.
type RDMADevice struct {
	Name    string            `json:"name"`
	Address string            `json:"address,omitempty"` // PCI function, from device/uevent
	Ports   []probes.RDMAPort `json:"ports"`
}

// maxGIDs bounds the GIDs kept per port; a RoCE port lists hundreds of
// empty slots and a handful of real ones.
const maxGIDs = 16

// RDMADevices reads sys/class/infiniband: each device's PCI function and
// its ports' state, physical state, rate, link layer and non-zero GIDs.
func (s *Source) RDMADevices() []RDMADevice {
	entries, err := fs.ReadDir(s.FS, "sys/class/infiniband")
	if err != nil {
		return nil
	}
	var devs []RDMADevice
	for _, e := range entries {
		base := "sys/class/infiniband/" + e.Name()
		d := RDMADevice{Name: e.Name()}
		for _, l := range strings.Split(s.read(base+"/device/uevent"), "\n") {
			if v, ok := strings.CutPrefix(l, "PCI_SLOT_NAME="); ok {
				d.Address = strings.ToLower(strings.TrimSpace(v))
			}
		}
		ports, _ := fs.ReadDir(s.FS, base+"/ports")
		for _, p := range ports {
			n, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			pb := base + "/ports/" + p.Name()
			port := probes.RDMAPort{
				Port:      n,
				State:     afterColon(s.read(pb + "/state")),
				PhysState: afterColon(s.read(pb + "/phys_state")),
				LinkLayer: s.read(pb + "/link_layer"),
				Rate:      s.read(pb + "/rate"),
			}
			port.RateGbps, _ = strconv.ParseFloat(firstField(port.Rate), 64)
			gids, _ := fs.ReadDir(s.FS, pb+"/gids")
			sort.Slice(gids, func(i, j int) bool { return atoi(gids[i].Name()) < atoi(gids[j].Name()) })
			for _, g := range gids {
				v := s.read(pb + "/gids/" + g.Name())
				if v == "" || isZeroGID(v) {
					continue
				}
				if len(port.GIDs) < maxGIDs {
					port.GIDs = append(port.GIDs, v)
				}
			}
			d.Ports = append(d.Ports, port)
		}
		devs = append(devs, d)
	}
	return devs
}

// afterColon turns sysfs's "4: ACTIVE" into "ACTIVE".
func afterColon(s string) string {
	if _, v, ok := strings.Cut(s, ":"); ok {
		return strings.TrimSpace(v)
	}
	return s
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func isZeroGID(g string) bool {
	return strings.Trim(g, "0:") == ""
}

// GPUDirect reads the hints that say whether GPUDirect RDMA can work.
func (s *Source) GPUDirect() probes.GPUDirect {
	var h probes.GPUDirect
	if _, err := fs.Stat(s.FS, "sys/module/nvidia_peermem"); err == nil {
		h.PeerMem = true
		h.PeerMemVersion = s.read("sys/module/nvidia_peermem/version")
	}
	h.NvidiaVersion = s.read("sys/module/nvidia/version")
	kernel := s.read("proc/sys/kernel/osrelease")
	driver := s.read("proc/driver/nvidia/version")
	open := strings.Contains(driver, "Open Kernel Module")
	switch {
	case kernel == "":
		h.DMABuf = "unknown: kernel version not readable"
	case !kernelAtLeast(kernel, 5, 12):
		h.DMABuf = "no: kernel " + kernel + " is older than 5.12"
	case driver == "":
		h.DMABuf = "kernel " + kernel + " supports DMA-BUF; NVIDIA driver not loaded"
	case open:
		h.DMABuf = "likely: kernel " + kernel + " and NVIDIA open kernel modules"
	default:
		h.DMABuf = "no: kernel " + kernel + " supports it but the NVIDIA proprietary kernel module does not export DMA-BUF; use nvidia_peermem or the open modules"
	}
	return h
}

// kernelAtLeast compares a release string such as "6.1.0-18-amd64".
func kernelAtLeast(release string, major, minor int) bool {
	f := strings.FieldsFunc(release, func(r rune) bool { return r == '.' || r == '-' })
	if len(f) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// Topology builds a topology from the PCI tree: GPUs (NVIDIA display or 3D
// functions, numbered in bus order as NVML does), NICs (the RDMA devices,
// or network functions when there are none), PCIe switches, NUMA nodes,
// PCIe links and the path matrix. It returns an error wrapping
// probes.ErrUnavailable when sys/devices cannot be read.
func (s *Source) Topology(ctx context.Context) (*probes.Topology, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	devs, err := s.PCIDevices()
	if err != nil {
		return nil, err
	}
	t := &probes.Topology{Source: "sysfs"}
	t.Host = s.read("proc/sys/kernel/hostname")
	t.NUMANodes = s.NUMANodes()
	t.GPUDirect = s.GPUDirect()
	cpus := map[int]string{}
	for _, n := range t.NUMANodes {
		cpus[n.ID] = n.CPUs
	}
	byAddr := map[string]Device{}
	for _, d := range devs {
		byAddr[d.Address] = d
	}
	ids := map[string]string{} // PCI address -> matrix id
	for _, d := range devs {
		if !d.IsNVIDIAGPU() {
			continue
		}
		g := probes.GPU{Index: len(t.GPUs), BusID: d.Address, PCIe: d.PCIe, NUMANode: d.NUMA, MemoryNUMANode: -1, CPUAffinity: cpus[d.NUMA]}
		ids[d.Address] = g.ID()
		t.GPUs = append(t.GPUs, g)
	}
	rdma := s.RDMADevices()
	for _, r := range rdma {
		d, ok := byAddr[r.Address]
		nic := probes.NIC{Index: len(t.NICs), Name: r.Name, BusID: r.Address, NUMANode: -1, Ports: r.Ports}
		if ok {
			nic.NUMANode, nic.PCIe = d.NUMA, d.PCIe
			ids[r.Address] = nic.ID()
		}
		t.NICs = append(t.NICs, nic)
	}
	if len(rdma) == 0 {
		for _, d := range devs {
			if d.IsNetwork() && strings.HasSuffix(d.Address, ".0") {
				nic := probes.NIC{Index: len(t.NICs), Name: d.Address, BusID: d.Address, NUMANode: d.NUMA, PCIe: d.PCIe}
				ids[d.Address] = nic.ID()
				t.NICs = append(t.NICs, nic)
			}
		}
	}
	nvswitches := 0
	for _, d := range devs {
		if d.IsNVSwitch() {
			nvswitches++
		}
	}
	s.addSwitchesAndLinks(t, devs, byAddr, ids)
	// Path matrix: every GPU and NIC pair from their places in the tree.
	var matrix []Device
	for _, g := range t.GPUs {
		matrix = append(matrix, byAddr[g.BusID])
		t.AddDevice(g.ID())
	}
	for _, n := range t.NICs {
		if d, ok := byAddr[n.BusID]; ok {
			matrix = append(matrix, d)
			t.AddDevice(n.ID())
		}
	}
	for i, a := range matrix {
		for _, b := range matrix[i+1:] {
			l := probes.PCIeLevel(a.Host, a.Chain, a.NUMA, b.Host, b.Chain, b.NUMA)
			t.SetPath(ids[a.Address], ids[b.Address], probes.Path{Level: l})
		}
	}
	for i, a := range t.NUMANodes {
		for _, b := range t.NUMANodes[i+1:] {
			t.Links = append(t.Links, probes.Link{Kind: probes.LinkSMP, A: a.NodeID(), B: b.NodeID()})
		}
	}
	if len(t.GPUs) == 0 {
		t.Notes = append(t.Notes, "sysfs: no NVIDIA GPU on the PCI bus")
	}
	if nvswitches > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("sysfs: %d NVSwitch functions on the PCI bus (NVLink paths need NVML)", nvswitches))
	}
	if len(t.NUMANodes) == 0 {
		t.Notes = append(t.Notes, "sysfs: no NUMA node information")
	}
	return t, nil
}

// addSwitchesAndLinks adds a PCISwitch for each switch upstream port above
// a GPU or NIC, and PCIe links device -> switch -> ... -> NUMA node. In a
// chain [root port, upstream, downstream, upstream, downstream, ...] the
// upstream ports of switches sit at odd positions.
func (s *Source) addSwitchesAndLinks(t *probes.Topology, devs []Device, byAddr map[string]Device, ids map[string]string) {
	switchID := map[string]string{}
	linked := map[[2]string]bool{}
	link := func(a, b string, l probes.PCIeLink) {
		if linked[[2]string{a, b}] {
			return
		}
		linked[[2]string{a, b}] = true
		t.Links = append(t.Links, probes.Link{Kind: probes.LinkPCIe, A: a, B: b, Version: l.GenCurrent, Width: l.WidthCurrent, GBps: l.GBps()})
	}
	for _, addr := range slices.Sorted(maps.Keys(ids)) {
		d := byAddr[addr]
		cpu := "NUMA" + strconv.Itoa(d.NUMA)
		switch {
		case d.NUMA < 0 && len(t.NUMANodes) == 1:
			// No NUMA node on the device (a VM's numa_node -1) and one in
			// the machine: it can only hang from that one.
			cpu = t.NUMANodes[0].NodeID()
		case d.NUMA < 0:
			cpu = "CPU"
		}
		node, pcie := ids[addr], d.PCIe
		for i := len(d.Chain) - 1; i >= 1; i-- {
			if i%2 == 0 {
				continue
			}
			usp := d.Chain[i]
			id, ok := switchID[usp]
			if !ok {
				id = "PCISW" + strconv.Itoa(len(t.Switches))
				switchID[usp] = id
				t.Switches = append(t.Switches, probes.PCISwitch{ID: id, BusID: usp, NUMANode: d.NUMA})
			}
			for k := range t.Switches {
				if t.Switches[k].ID == id {
					t.Switches[k].Members = append(t.Switches[k].Members, ids[addr])
				}
			}
			link(node, id, pcie)
			node, pcie = id, byAddr[usp].PCIe
		}
		link(node, cpu, pcie)
	}
}
