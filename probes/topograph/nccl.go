package topograph

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse/ncclxml"
	"github.com/commlab/commlab/probes"
)

// FromNCCL maps the topology NCCL detected (an NCCL_TOPO_DUMP_FILE or an
// NCCL_TOPO_FILE, parsed by ncclxml) onto a probes.Topology, so it is drawn
// like a probed machine: each <cpu> a NUMA node (a VM's numaid -1 drawn as
// NUMA0), each PCI bridge with devices below it a switch, GPUs by their
// dev index, NICs by the order of their <net> ports, NVLinks to GPUs or to
// the NVSwitch fabric, and SMP links between the CPUs. Source says "NCCL
// topology".
func FromNCCL(sys *ncclxml.System) *probes.Topology {
	t := &probes.Topology{Source: "NCCL topology (NCCL_TOPO_DUMP_FILE)"}
	if sys == nil {
		return t
	}
	m := ncclMapper{t: t, gpuByBus: map[string]string{}}
	var numaIDs []string
	for i, cpu := range sys.CPUs {
		numa := cpu.NumaID
		if numa < 0 {
			numa = i
			t.Notes = append(t.Notes, fmt.Sprintf("<cpu numaid=%d> drawn as NUMA%d (the machine reported no NUMA node)", cpu.NumaID, numa))
		}
		node := probes.NUMANode{ID: numa}
		t.NUMANodes = append(t.NUMANodes, node)
		numaIDs = append(numaIDs, node.NodeID())
		for _, p := range cpu.PCIs {
			m.pci(p, node.NodeID(), numa)
		}
		for _, nic := range cpu.NICs {
			m.nic(nic, "", node.NodeID(), numa)
		}
	}
	for i := 1; i < len(numaIDs); i++ {
		t.Links = append(t.Links, probes.Link{Kind: probes.LinkSMP, A: numaIDs[0], B: numaIDs[i]})
	}
	// NVLinks: GPU pairs once each; a GPU's links to NVSwitches (one
	// <nvlink> per switch chip) summed into one link to the fabric.
	toFabric := map[string]int{}
	var order []string
	for _, l := range m.nvlinks {
		target, ok := m.gpuByBus[strings.ToLower(l.link.Target)]
		switch {
		case ok:
			if target < l.from {
				continue
			}
			t.Links = append(t.Links, probes.Link{Kind: probes.LinkNVLink, A: l.from, B: target, Count: l.link.Count})
		case strings.HasPrefix(strings.TrimPrefix(strings.ToLower(l.link.TClass), "0x"), "0680"):
			if _, seen := toFabric[l.from]; !seen {
				order = append(order, l.from)
			}
			toFabric[l.from] += l.link.Count
		}
	}
	for _, g := range order {
		t.Links = append(t.Links, probes.Link{Kind: probes.LinkNVLink, A: g, B: probes.NVSwitchID, Count: toFabric[g]})
	}
	return t
}

type pendingNVLink struct {
	from string
	link ncclxml.NVLink
}

type ncclMapper struct {
	t        *probes.Topology
	gpuByBus map[string]string
	nvlinks  []pendingNVLink
	switches int
}

// pci maps one <pci> below parent (a NUMA node or a switch).
func (m *ncclMapper) pci(p ncclxml.PCI, parent string, numa int) {
	link := pcieLink(p)
	kind := p.Kind()
	switch {
	case kind == "gpu":
		// A hand-written NCCL_TOPO_FILE has GPU-class <pci> without <gpu>:
		// NCCL fills those in; here they are numbered in file order.
		g := probes.GPU{Index: len(m.t.GPUs), BusID: p.BusID, NUMANode: numa, PCIe: link}
		if p.GPU != nil {
			g.Index, g.ComputeCapability = p.GPU.Dev, smVersion(p.GPU.SM)
		}
		m.t.GPUs = append(m.t.GPUs, g)
		m.gpuByBus[strings.ToLower(p.BusID)] = g.ID()
		m.t.Links = append(m.t.Links, probes.Link{Kind: probes.LinkPCIe, A: g.ID(), B: parent, Width: link.WidthCurrent, Version: link.GenCurrent})
		if p.GPU != nil {
			for _, l := range p.GPU.NVLinks {
				m.nvlinks = append(m.nvlinks, pendingNVLink{from: g.ID(), link: l})
			}
		}
	case kind == "nic":
		nic := ncclxml.NIC{Nets: []ncclxml.Net{{Name: p.BusID}}}
		if p.NIC != nil && len(p.NIC.Nets) > 0 {
			nic = *p.NIC
		}
		m.nic(nic, p.BusID, parent, numa)
	case len(p.Children) > 0:
		sw := probes.PCISwitch{ID: "PCISW" + strconv.Itoa(m.switches), BusID: p.BusID, NUMANode: numa}
		m.switches++
		m.t.Switches = append(m.t.Switches, sw)
		at := len(m.t.Switches) - 1
		m.t.Links = append(m.t.Links, probes.Link{Kind: probes.LinkPCIe, A: sw.ID, B: parent, Width: link.WidthCurrent, Version: link.GenCurrent})
		for _, c := range p.Children {
			m.pci(c, sw.ID, numa)
		}
		for _, l := range m.t.Links {
			if l.Kind == probes.LinkPCIe && l.B == sw.ID {
				m.t.Switches[at].Members = append(m.t.Switches[at].Members, l.A)
			}
		}
	}
}

// nic maps a <nic>: one probes.NIC per <net> port.
func (m *ncclMapper) nic(n ncclxml.NIC, busID, parent string, numa int) {
	for _, net := range n.Nets {
		nic := probes.NIC{Index: len(m.t.NICs), Name: net.Name, BusID: busID, NUMANode: numa}
		if net.Speed > 0 {
			nic.Ports = []probes.RDMAPort{{Port: net.Port, RateGbps: float64(net.Speed) / 1000, Rate: fmt.Sprintf("%g Gb/s", float64(net.Speed)/1000)}}
		}
		m.t.NICs = append(m.t.NICs, nic)
		m.t.Links = append(m.t.Links, probes.Link{Kind: probes.LinkPCIe, A: nic.ID(), B: parent})
	}
}

func pcieLink(p ncclxml.PCI) probes.PCIeLink {
	gen := probes.PCIeGenFromSpeed(p.LinkSpeed)
	return probes.PCIeLink{GenCurrent: gen, GenMax: gen, WidthCurrent: p.LinkWidth, WidthMax: p.LinkWidth}
}

// smVersion writes NCCL's sm attribute (90) as a compute capability (9.0).
func smVersion(sm int) string {
	if sm <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", sm/10, sm%10)
}
