package nvml

import (
	"context"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/commlab/commlab/probes"
)

// Source reads the topology through NVML, merged over what a base source
// (normally probes/sysfs) gives.
type Source struct {
	lib gonvml.Interface
	// Base, when set, supplies the rest of the machine (NICs, PCIe
	// switches, NUMA nodes, PCIe paths); NVML's GPU facts win over its.
	Base probes.Source
}

var _ probes.Source = (*Source)(nil)

// New returns a Source over the system's libnvidia-ml, merged over base
// (sysfs.New(os.DirFS("/")) live; nil for NVML alone).
func New(base probes.Source) *Source { return &Source{lib: gonvml.New(), Base: base} }

// NewWithLibrary returns a Source over a given NVML implementation, such as
// go-nvml's mock of a DGX H200, for tests.
func NewWithLibrary(lib gonvml.Interface, base probes.Source) *Source {
	return &Source{lib: lib, Base: base}
}

// nvlinkLinkGBps is one NVLink's one-direction bandwidth in GB/s by NVLink
// version: NVLink 1 (P100) 20, NVLink 2 (V100), 3 (A100) and 4 (H100, H200)
// 25, NVLink 5 (B200) 50. Source: NVIDIA NVLink and NVSwitch product page
// and the P100, V100, A100, H100 and B200 datasheets (per-GPU totals over
// link counts).
var nvlinkLinkGBps = map[int]float64{1: 20, 2: 25, 3: 25, 4: 25, 5: 50}

// collector gathers notes about calls that failed, once per kind of call.
type collector struct {
	notes map[string]bool
	order []string
}

func (c *collector) note(s string) {
	if c.notes == nil {
		c.notes = map[string]bool{}
	}
	if !c.notes[s] {
		c.notes[s] = true
		c.order = append(c.order, s)
	}
}

// call runs one NVML call, turning a panic (go-nvml without a symbol, a
// mock without a function) into a note, and reports success. Calls that
// are simply not supported on this GPU are quiet.
func (c *collector) call(what string, f func() gonvml.Return) bool {
	ret := gonvml.ERROR_UNKNOWN
	panicked := false
	func() {
		defer func() {
			if r := recover(); r != nil {
				panicked = true
				c.note(fmt.Sprintf("nvml: %s: not available (%v)", what, firstLine(fmt.Sprint(r))))
			}
		}()
		ret = f()
	}()
	if panicked {
		return false
	}
	switch ret {
	case gonvml.SUCCESS:
		return true
	case gonvml.ERROR_NOT_SUPPORTED, gonvml.ERROR_INVALID_ARGUMENT, gonvml.ERROR_NOT_FOUND:
		return false
	}
	c.note(fmt.Sprintf("nvml: %s: %s", what, ret.Error()))
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// Topology reads every GPU through NVML and, when Base is set, the rest of
// the machine through it. Without a usable driver it returns an error
// wrapping probes.ErrUnavailable, together with whatever Base gave.
func (s *Source) Topology(ctx context.Context) (topo *probes.Topology, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var c collector
	topo = &probes.Topology{Source: "nvml"}
	if s.Base != nil {
		bt, berr := s.Base.Topology(ctx)
		if berr != nil {
			c.note(berr.Error())
		}
		if bt != nil {
			topo = bt
			topo.Source = "nvml+" + bt.Source
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("nvml: %w: the library panicked: %v", probes.ErrUnavailable, firstLine(fmt.Sprint(r)))
		}
		topo.Notes = append(topo.Notes, c.order...)
	}()
	if s.lib == nil {
		return topo, fmt.Errorf("nvml: %w: no library", probes.ErrUnavailable)
	}
	ret := gonvml.ERROR_UNKNOWN
	if !c.call("init", func() gonvml.Return { ret = s.lib.Init(); return ret }) {
		reason := "init failed"
		if ret != gonvml.ERROR_UNKNOWN {
			reason = ret.Error()
		}
		if ret == gonvml.ERROR_LIBRARY_NOT_FOUND {
			reason = "libnvidia-ml.so.1 not found (no NVIDIA driver installed)"
		}
		return topo, fmt.Errorf("nvml: %w: %s", probes.ErrUnavailable, reason)
	}
	defer c.call("shutdown", func() gonvml.Return { return s.lib.Shutdown() })
	s.read(topo, &c)
	return topo, nil
}

// device is one GPU as NVML sees it, with its handle.
type device struct {
	h     gonvml.Device
	gpu   probes.GPU
	links []probes.NVLinkPort
}

func (s *Source) read(topo *probes.Topology, c *collector) {
	lib := s.lib
	c.call("driver version", func() gonvml.Return {
		v, r := lib.SystemGetDriverVersion()
		topo.Driver = v
		return r
	})
	n := 0
	if !c.call("device count", func() gonvml.Return { var r gonvml.Return; n, r = lib.DeviceGetCount(); return r }) {
		return
	}
	var devs []device
	for i := 0; i < n; i++ {
		var h gonvml.Device
		if !c.call("device handle", func() gonvml.Return { var r gonvml.Return; h, r = lib.DeviceGetHandleByIndex(i); return r }) {
			continue
		}
		devs = append(devs, device{h: h, gpu: readGPU(h, i, c)})
	}
	// Merge with the GPUs sysfs found, matched by bus id; NVML's facts win.
	bySysfs := map[string]probes.GPU{}
	for _, g := range topo.GPUs {
		bySysfs[g.BusID] = g
	}
	oldID := map[string]string{} // NVML GPU id -> sysfs GPU id of the same bus id
	topo.GPUs = topo.GPUs[:0]
	for i := range devs {
		g := &devs[i].gpu
		if sg, ok := bySysfs[g.BusID]; ok {
			oldID[g.ID()] = sg.ID()
			if g.NUMANode < 0 {
				g.NUMANode = sg.NUMANode
			}
			if g.CPUAffinity == "" {
				g.CPUAffinity = sg.CPUAffinity
			}
			if g.PCIe.GenCurrent == 0 {
				g.PCIe = sg.PCIe
			}
		}
		devs[i].links = g.NVLinks
		topo.GPUs = append(topo.GPUs, *g)
	}
	renumber(topo, oldID)
	for _, d := range devs {
		topo.AddDevice(d.gpu.ID())
	}
	busToGPU := map[string]string{}
	for _, d := range devs {
		busToGPU[d.gpu.BusID] = d.gpu.ID()
	}
	s.paths(topo, devs, busToGPU, c)
}

// renumber renames sysfs GPU ids in links and the matrix to NVML's, which
// normally agree (both follow PCI bus order) but need not.
func renumber(topo *probes.Topology, oldID map[string]string) {
	same := true
	for n, o := range oldID {
		if n != o {
			same = false
		}
	}
	if same {
		return
	}
	rename := map[string]string{}
	for n, o := range oldID {
		rename[o] = n
	}
	for i, d := range topo.Devices {
		if r, ok := rename[d]; ok {
			topo.Devices[i] = r
		}
	}
	for i, l := range topo.Links {
		if r, ok := rename[l.A]; ok {
			topo.Links[i].A = r
		}
		if r, ok := rename[l.B]; ok {
			topo.Links[i].B = r
		}
	}
	for i, sw := range topo.Switches {
		for j, m := range sw.Members {
			if r, ok := rename[m]; ok {
				topo.Switches[i].Members[j] = r
			}
		}
	}
}

func readGPU(h gonvml.Device, index int, c *collector) probes.GPU {
	g := probes.GPU{Index: index, NUMANode: -1, MemoryNUMANode: -1}
	c.call("name", func() gonvml.Return { var r gonvml.Return; g.Name, r = h.GetName(); return r })
	c.call("uuid", func() gonvml.Return { var r gonvml.Return; g.UUID, r = h.GetUUID(); return r })
	c.call("pci info", func() gonvml.Return {
		p, r := h.GetPciInfo()
		g.BusID = busID(p)
		return r
	})
	c.call("memory", func() gonvml.Return {
		m, r := h.GetMemoryInfo()
		g.MemoryBytes = m.Total
		return r
	})
	c.call("compute capability", func() gonvml.Return {
		major, minor, r := h.GetCudaComputeCapability()
		if r == gonvml.SUCCESS {
			g.ComputeCapability = strconv.Itoa(major) + "." + strconv.Itoa(minor)
		}
		return r
	})
	c.call("architecture", func() gonvml.Return {
		a, r := h.GetArchitecture()
		g.Architecture = architecture(a)
		return r
	})
	// The link's generation and width, as it runs now and at most.
	for _, f := range []struct {
		what string
		into *int
		get  func() (int, gonvml.Return)
	}{
		{"PCIe generation", &g.PCIe.GenCurrent, h.GetCurrPcieLinkGeneration},
		{"PCIe max generation", &g.PCIe.GenMax, h.GetMaxPcieLinkGeneration},
		{"PCIe width", &g.PCIe.WidthCurrent, h.GetCurrPcieLinkWidth},
		{"PCIe max width", &g.PCIe.WidthMax, h.GetMaxPcieLinkWidth},
	} {
		c.call(f.what, func() gonvml.Return {
			var r gonvml.Return
			*f.into, r = f.get()
			return r
		})
	}
	c.call("CPU affinity", func() gonvml.Return {
		words, r := h.GetCpuAffinity(cpuWords)
		g.CPUAffinity = cpulist(words)
		return r
	})
	c.call("NUMA affinity", func() gonvml.Return {
		words, r := h.GetMemoryAffinity(numaWords, gonvml.AFFINITY_SCOPE_NODE)
		if r == gonvml.SUCCESS {
			if nodes := setBits(words); len(nodes) == 1 {
				g.NUMANode = nodes[0]
			}
		}
		return r
	})
	c.call("GPU NUMA id", func() gonvml.Return {
		id, r := h.GetNumaNodeId()
		if r == gonvml.SUCCESS && id >= 0 {
			g.MemoryNUMANode = id
		}
		return r
	})
	for _, f := range []struct {
		what    string
		into    *float64
		counter gonvml.PcieUtilCounter
	}{
		{"PCIe TX throughput", &g.PCIeTxKBps, gonvml.PCIE_UTIL_TX_BYTES},
		{"PCIe RX throughput", &g.PCIeRxKBps, gonvml.PCIE_UTIL_RX_BYTES},
	} {
		c.call(f.what, func() gonvml.Return {
			v, r := h.GetPcieThroughput(f.counter)
			*f.into = float64(v)
			return r
		})
	}
	for l := 0; l < gonvml.NVLINK_MAX_LINKS; l++ {
		var state gonvml.EnableState
		if !c.call("NVLink state", func() gonvml.Return { var r gonvml.Return; state, r = h.GetNvLinkState(l); return r }) {
			// Links are numbered densely; the first unsupported one ends them.
			break
		}
		port := probes.NVLinkPort{Link: l, Active: state == gonvml.FEATURE_ENABLED}
		c.call("NVLink version", func() gonvml.Return {
			v, r := h.GetNvLinkVersion(l)
			port.Version = int(v)
			return r
		})
		c.call("NVLink remote", func() gonvml.Return {
			p, r := h.GetNvLinkRemotePciInfo(l)
			port.RemoteBusID = busID(p)
			return r
		})
		c.call("NVLink remote type", func() gonvml.Return {
			t, r := h.GetNvLinkRemoteDeviceType(l)
			switch t {
			case gonvml.NVLINK_DEVICE_TYPE_GPU:
				port.RemoteKind = "GPU"
			case gonvml.NVLINK_DEVICE_TYPE_SWITCH:
				port.RemoteKind = "NVSwitch"
			case gonvml.NVLINK_DEVICE_TYPE_IBMNPU:
				port.RemoteKind = "CPU"
			}
			return r
		})
		g.NVLinks = append(g.NVLinks, port)
	}
	return g
}

// cpuWords and numaWords size the affinity masks NVML fills: 64-bit words
// for up to 4096 CPUs and 1024 NUMA nodes.
const (
	cpuWords  = 64
	numaWords = 16
)

// busID renders NVML's PCI info as sysfs does: "0000:18:00.0".
func busID(p gonvml.PciInfo) string {
	var b strings.Builder
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	s := strings.ToLower(b.String())
	if dom, rest, ok := strings.Cut(s, ":"); ok && len(dom) == 8 {
		s = dom[4:] + ":" + rest
	}
	if s == "" && (p.Bus != 0 || p.Domain != 0 || p.Device != 0) {
		s = fmt.Sprintf("%04x:%02x:%02x.0", p.Domain, p.Bus, p.Device)
	}
	return s
}

func architecture(a gonvml.DeviceArchitecture) string {
	switch a {
	case gonvml.DEVICE_ARCH_KEPLER:
		return "Kepler"
	case gonvml.DEVICE_ARCH_MAXWELL:
		return "Maxwell"
	case gonvml.DEVICE_ARCH_PASCAL:
		return "Pascal"
	case gonvml.DEVICE_ARCH_VOLTA:
		return "Volta"
	case gonvml.DEVICE_ARCH_TURING:
		return "Turing"
	case gonvml.DEVICE_ARCH_AMPERE:
		return "Ampere"
	case gonvml.DEVICE_ARCH_ADA:
		return "Ada"
	case gonvml.DEVICE_ARCH_HOPPER:
		return "Hopper"
	}
	return ""
}

// setBits lists the set bits of 64-bit mask words.
func setBits(words []uint) []int {
	var out []int
	for w, v := range words {
		x := uint64(v)
		for x != 0 {
			b := bits.TrailingZeros64(x)
			out = append(out, w*64+b)
			x &^= 1 << b
		}
	}
	return out
}

// cpulist renders a CPU mask as the kernel's cpulist ("0-47,96-143").
func cpulist(words []uint) string {
	cpus := setBits(words)
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// paths fills GPU-to-GPU paths (NVLink counts, else NVML's common
// ancestor), NVLink links for the drawing, and P2P status.
func (s *Source) paths(topo *probes.Topology, devs []device, busToGPU map[string]string, c *collector) {
	toSwitch := map[string]int{}
	direct := map[[2]string]int{}
	version := map[string]int{}
	for _, d := range devs {
		id := d.gpu.ID()
		for _, l := range d.links {
			if !l.Active {
				continue
			}
			if l.Version > version[id] {
				version[id] = l.Version
			}
			switch {
			case l.RemoteKind == "NVSwitch":
				toSwitch[id]++
			case busToGPU[l.RemoteBusID] != "":
				direct[[2]string{id, busToGPU[l.RemoteBusID]}]++
			}
		}
	}
	nvlinkGBps := func(id string, count int) float64 { return float64(count) * nvlinkLinkGBps[version[id]] }
	for i, a := range devs {
		for _, b := range devs[i+1:] {
			ia, ib := a.gpu.ID(), b.gpu.ID()
			n := direct[[2]string{ia, ib}]
			if sa, sb := toSwitch[ia], toSwitch[ib]; sa > 0 && sb > 0 {
				n += min(sa, sb)
			}
			if n > 0 {
				topo.SetPath(ia, ib, probes.Path{Level: probes.LevelNVLink, NVLinks: n})
			} else {
				var lvl gonvml.GpuTopologyLevel
				if c.call("topology common ancestor", func() gonvml.Return {
					var r gonvml.Return
					lvl, r = a.h.GetTopologyCommonAncestor(b.h)
					return r
				}) {
					topo.SetPath(ia, ib, probes.Path{Level: level(lvl)})
				}
			}
			if m := direct[[2]string{ia, ib}]; m > 0 {
				topo.Links = append(topo.Links, probes.Link{Kind: probes.LinkNVLink, A: ia, B: ib, Count: m, Version: version[ia], GBps: nvlinkGBps(ia, m)})
			}
			p2p := probes.P2P{GPU1: a.gpu.Index, GPU2: b.gpu.Index}
			for _, q := range []struct {
				idx gonvml.GpuP2PCapsIndex
				dst *string
			}{
				{gonvml.P2P_CAPS_INDEX_READ, &p2p.Read},
				{gonvml.P2P_CAPS_INDEX_WRITE, &p2p.Write},
				{gonvml.P2P_CAPS_INDEX_NVLINK, &p2p.NVLink},
				{gonvml.P2P_CAPS_INDEX_ATOMICS, &p2p.Atomics},
			} {
				c.call("P2P status", func() gonvml.Return {
					st, r := a.h.GetP2PStatus(b.h, q.idx)
					if r == gonvml.SUCCESS {
						*q.dst = p2pText(st)
					}
					return r
				})
			}
			if p2p.Read != "" || p2p.Write != "" || p2p.NVLink != "" || p2p.Atomics != "" {
				topo.P2P = append(topo.P2P, p2p)
			}
		}
	}
	ids := slices.Sorted(maps.Keys(toSwitch))
	for _, id := range ids {
		topo.Links = append(topo.Links, probes.Link{Kind: probes.LinkNVLink, A: id, B: probes.NVSwitchID, Count: toSwitch[id], Version: version[id], GBps: nvlinkGBps(id, toSwitch[id])})
	}
}

// level maps NVML's common-ancestor levels to nvidia-smi's.
func level(l gonvml.GpuTopologyLevel) probes.Level {
	switch l {
	case gonvml.TOPOLOGY_INTERNAL, gonvml.TOPOLOGY_SINGLE:
		return probes.LevelPIX
	case gonvml.TOPOLOGY_MULTIPLE:
		return probes.LevelPXB
	case gonvml.TOPOLOGY_HOSTBRIDGE:
		return probes.LevelPHB
	case gonvml.TOPOLOGY_NODE:
		return probes.LevelNODE
	case gonvml.TOPOLOGY_SYSTEM:
		return probes.LevelSYS
	}
	return probes.LevelUnknown
}

func p2pText(s gonvml.GpuP2PStatus) string {
	switch s {
	case gonvml.P2P_STATUS_OK:
		return "OK"
	case gonvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED:
		return "chipset not supported"
	case gonvml.P2P_STATUS_GPU_NOT_SUPPORTED:
		return "GPU not supported"
	case gonvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
		return "IOH topology not supported"
	case gonvml.P2P_STATUS_DISABLED_BY_REGKEY:
		return "disabled by regkey"
	case gonvml.P2P_STATUS_NOT_SUPPORTED:
		return "not supported"
	}
	return "unknown"
}
