package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/units"
)

// Chapters that explain each layer.
const (
	chapterInterconnect = "02-interconnect"
	chapterRDMA         = "03-rdma"
	chapterNCCL         = "04-nccl"
	chapterPyTorch      = "05-pytorch"
	chapterTroubleshoot = "06-nccl-tests"
)

// ncclACSDoc is where NCCL says what ACS and the IOMMU do to P2P.
const ncclACSDoc = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs"

func sizeText(b float64) string { return units.Readable(b, "B") }
func gbpsText(v float64) string { return units.Readable(v, "GB/s") }
func usText(v float64) string   { return units.Readable(v, "us") }
func pctText(v float64) string  { return fmt.Sprintf("%.0f%%", v*100) }

// busKey is a PCI address in sysfs form ("0000:18:00.0") from NVML's
// ("00000000:18:00.0") or the matrix's.
func busKey(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) > 12 {
		id = id[len(id)-12:]
	}
	return id
}

// CheckTopology checks PCIe and NUMA placement: each GPU's nearest NIC and
// the path to it (nic-affinity), PCIe links below their maximum
// (pcie-link), ACS on bridges between GPUs or between a GPU and its NIC
// (acs), the IOMMU mode (iommu) and NUMA and CPU affinity
// (numa-affinity). nodes is how many nodes the job spans: NIC placement
// matters only across nodes.
func CheckTopology(t *probes.Topology, pci *probes.PCIFacts, allowedCPUs string, nodes int) []Verdict {
	if t == nil {
		return []Verdict{skipped(LayerTopology, "topology", "no topology: run on the GPU machine, or give --topo with nvidia-smi topo -m output", chapterInterconnect)}
	}
	return []Verdict{
		checkNICAffinity(t, nodes),
		checkPCIeLinks(t),
		checkACS(t, pci),
		checkIOMMU(pci),
		checkNUMA(t, allowedCPUs),
	}
}

func skipped(l Layer, check, why, chapter string) Verdict {
	return Verdict{Layer: l, Check: check, Status: Skipped, Summary: why, Chapter: chapter}
}

// RDMANICs returns the NICs that are RDMA devices: they have ports (sysfs),
// or carry an RDMA device name (nvidia-smi topo -m's "NIC0: mlx5_0"). A
// plain Ethernet function, which sysfs names by its PCI address (a VM's
// virtio NIC), carries no NCCL IB traffic.
func RDMANICs(t *probes.Topology) []probes.NIC {
	var out []probes.NIC
	for _, n := range t.NICs {
		if len(n.Ports) > 0 || (n.Name != "" && n.Name != n.BusID && strings.Count(n.Name, ":") < 2) {
			out = append(out, n)
		}
	}
	return out
}

func checkNICAffinity(t *probes.Topology, nodes int) Verdict {
	v := Verdict{Layer: LayerTopology, Check: "nic-affinity", Chapter: chapterInterconnect}
	if len(t.GPUs) == 0 {
		return v.judge(Skipped, "no GPU in the topology", "")
	}
	if len(RDMANICs(t)) == 0 {
		if nodes > 1 {
			v.judge(Fail, fmt.Sprintf("the job spans %d nodes but this machine has no RDMA NIC: inter-node traffic goes through sockets", nodes),
				"install or enable the NICs' RDMA driver (mlx5_ib) or run the job on nodes with RDMA")
		} else {
			v.judge(Skipped, "no RDMA NIC: GPUs have no network path of their own (fine on one node)", "")
		}
		for _, n := range t.NICs {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s (%s): a network function with no RDMA device", n.ID(), n.Name))
		}
		return v
	}
	paths := t.NICPaths(probes.LevelPXB)
	var sys, far []string
	for _, p := range paths {
		line := p.GPU + ": no NIC reachable"
		if p.NIC != "" {
			name := p.NIC
			if p.NICName != "" {
				name += " (" + p.NICName + ")"
			}
			line = fmt.Sprintf("%s -> %s over %s", p.GPU, name, p.Path)
			if p.CeilingGBps > 0 {
				line += ", ceiling " + gbpsText(p.CeilingGBps)
			}
			if p.GDR {
				line += ", GPUDirect RDMA"
			} else {
				line += ", staged through host memory"
			}
			if p.PXN != "" {
				line += ", PXN via " + p.PXN
			}
			switch {
			case p.Path.Level == probes.LevelSYS:
				sys = append(sys, p.GPU)
			case p.Path.Level >= probes.LevelPHB:
				far = append(far, p.GPU)
			}
		}
		v.Evidence = append(v.Evidence, line)
	}
	switch {
	case len(sys) > 0:
		v.judge(Fail, fmt.Sprintf("%d of %d GPUs reach a NIC only across CPU sockets (SYS): %s", len(sys), len(paths), strings.Join(sys, ", ")),
			"place NICs on both sockets (one per GPU under its PCIe switch), or check that the NICs of the far socket are up; across sockets NCCL stages through host memory")
	case len(far) > 0:
		v.judge(Warn, fmt.Sprintf("%d of %d GPUs reach their NIC only through the CPU (PHB/NODE): no GPUDirect RDMA at NCCL's default NCCL_NET_GDR_LEVEL (PXB)", len(far), len(paths)),
			"a NIC under each GPU's PCIe switch gives GPUDirect RDMA; NCCL_NET_GDR_LEVEL=PHB forces it at a cost")
	default:
		v.judge(OK, fmt.Sprintf("every GPU has a NIC within its PCIe switch (%d GPUs, %d NICs)", len(paths), len(t.NICs)), "")
	}
	return v
}

func checkPCIeLinks(t *probes.Topology) Verdict {
	v := Verdict{Layer: LayerTopology, Check: "pcie-link", Chapter: chapterInterconnect}
	var narrow, slowNIC, idleGPU []string
	known := 0
	look := func(id string, l probes.PCIeLink, gpu bool) {
		if l.WidthMax == 0 && l.GenMax == 0 {
			return
		}
		known++
		v.Evidence = append(v.Evidence, id+": "+l.String())
		switch {
		case l.WidthMax > 0 && l.WidthCurrent > 0 && l.WidthCurrent < l.WidthMax:
			narrow = append(narrow, fmt.Sprintf("%s x%d of x%d", id, l.WidthCurrent, l.WidthMax))
		case l.GenMax > 0 && l.GenCurrent > 0 && l.GenCurrent < l.GenMax && gpu:
			idleGPU = append(idleGPU, fmt.Sprintf("%s Gen%d of Gen%d", id, l.GenCurrent, l.GenMax))
		case l.GenMax > 0 && l.GenCurrent > 0 && l.GenCurrent < l.GenMax:
			slowNIC = append(slowNIC, fmt.Sprintf("%s Gen%d of Gen%d", id, l.GenCurrent, l.GenMax))
		}
	}
	for _, g := range t.GPUs {
		look(g.ID(), g.PCIe, true)
	}
	for _, n := range t.NICs {
		look(n.ID(), n.PCIe, false)
	}
	switch {
	case known == 0:
		v.judge(Skipped, "no PCIe link widths or generations in the evidence (nvidia-smi topo -m does not print them)", "")
	case len(narrow) > 0:
		v.judge(Fail, "PCIe links narrower than they can train: "+strings.Join(narrow, ", "),
			"reseat the card or riser, check the slot's wiring and BIOS bifurcation; a link at half width halves host-device and GPUDirect bandwidth")
	case len(slowNIC) > 0:
		v.judge(Warn, "NIC links below their maximum generation: "+strings.Join(slowNIC, ", "),
			"check the slot's generation in BIOS and the riser; a NIC on a Gen4 link cannot carry a 400 Gb/s port")
	case len(idleGPU) > 0:
		v.judge(OK, "GPU links run below their maximum generation now ("+strings.Join(idleGPU, ", ")+"): idle GPUs lower it to save power; the host-device bandwidth check says whether it holds under load", "")
	default:
		v.judge(OK, fmt.Sprintf("%s at %s maximum width and generation", countText(known, "PCIe link"), pick(known == 1, "its", "their")), "")
	}
	return v
}

func checkACS(t *probes.Topology, pci *probes.PCIFacts) Verdict {
	v := Verdict{Layer: LayerTopology, Check: "acs", Chapter: chapterInterconnect}
	if pci == nil {
		return v.judge(Skipped, "no PCI facts: run on the machine as root, or give --lspci with lspci -vvv output (as root)", "")
	}
	if !pci.ACSRead {
		return v.judge(Skipped, "ACS registers not readable ("+pci.Source+" without root): no ACS entry does not mean ACS is off",
			"run the doctor (or lspci -vvv) as root")
	}
	redirect := map[string]probes.ACS{}
	for _, a := range pci.ACS {
		if a.Ctl.Redirects() {
			redirect[a.Address] = a
		}
	}
	if len(redirect) == 0 {
		return v.judge(OK, fmt.Sprintf("no bridge redirects peer-to-peer traffic (%d functions with ACS read from %s)", len(pci.ACS), pci.Source), "")
	}
	type dev struct{ id, bus string }
	var gpus, nics []dev
	for _, g := range t.GPUs {
		gpus = append(gpus, dev{g.ID(), busKey(g.BusID)})
	}
	for _, n := range RDMANICs(t) {
		nics = append(nics, dev{n.ID(), busKey(n.BusID)})
	}
	var hits []string
	unknownPaths := false
	pair := func(a, b dev) {
		if p, ok := t.PathBetween(a.id, b.id); ok && p.Level == probes.LevelNVLink {
			return // GPU pairs on NVLink do not cross PCIe
		}
		br, ok := pci.BridgesBetween(a.bus, b.bus)
		if !ok {
			unknownPaths = true
			return
		}
		for _, addr := range br {
			if acs, ok := redirect[addr]; ok {
				hits = append(hits, fmt.Sprintf("%s-%s crosses %s (ACSCtl %s)", a.id, b.id, addr, acs.Ctl))
			}
		}
	}
	for i, g := range gpus {
		for _, h := range gpus[i+1:] {
			pair(g, h)
		}
		for _, n := range nics {
			pair(g, n)
		}
	}
	for _, a := range pci.ACS {
		if a.Ctl.Redirects() {
			v.Evidence = append(v.Evidence, fmt.Sprintf("%s ACSCtl: %s", a.Address, a.Ctl))
		}
	}
	switch {
	case len(hits) > 0:
		v.judge(Fail, fmt.Sprintf("ACS redirect is on in %d GPU-GPU or GPU-NIC paths: peer traffic detours through the root complex (slow P2P, broken or slow GPUDirect RDMA)", len(hits)),
			"disable ACS on these bridges (BIOS, or setpci -s BDF ECAP_ACS+0x6.w=0000 at boot), as NCCL's troubleshooting guide says: "+ncclACSDoc)
		v.Evidence = append(hits, v.Evidence...)
	case unknownPaths:
		v.judge(Warn, fmt.Sprintf("%d bridges have ACS redirect on; which GPU or NIC paths they lie in is not known", len(redirect)),
			"give the bridge hierarchy (lspci -vvv as root, or run on the machine) to place them; "+ncclACSDoc)
	default:
		v.judge(OK, fmt.Sprintf("%d bridges have ACS redirect on, none between two GPUs or a GPU and a NIC", len(redirect)), "")
	}
	return v
}

func checkIOMMU(pci *probes.PCIFacts) Verdict {
	v := Verdict{Layer: LayerTopology, Check: "iommu", Chapter: chapterInterconnect}
	if pci == nil {
		return v.judge(Skipped, "no PCI facts: the IOMMU mode is read from /sys/kernel/iommu_groups and /proc/cmdline on the machine", "")
	}
	s := pci.IOMMU
	v.Evidence = append(v.Evidence, fmt.Sprintf("%d IOMMU groups", s.Groups))
	types := slices.Sorted(maps.Keys(s.Types))
	for _, t := range types {
		v.Evidence = append(v.Evidence, fmt.Sprintf("%d groups of type %s", s.Types[t], t))
	}
	if len(s.Cmdline) > 0 {
		v.Evidence = append(v.Evidence, "kernel command line: "+strings.Join(s.Cmdline, " "))
	}
	switch s.Mode {
	case probes.IOMMUTranslated:
		v.judge(Warn, "the IOMMU translates device DMA: PCIe peer-to-peer traffic goes through the root complex, slowing P2P and GPUDirect RDMA",
			"boot with iommu=pt (passthrough) on bare metal; "+ncclACSDoc)
	case probes.IOMMUPassthrough, probes.IOMMUOff:
		v.judge(OK, "IOMMU "+s.Mode+": "+s.Why, "")
	default:
		v.judge(Skipped, "IOMMU mode not known: "+s.Why, "")
	}
	return v
}

func checkNUMA(t *probes.Topology, allowed string) Verdict {
	v := Verdict{Layer: LayerTopology, Check: "numa-affinity", Chapter: chapterInterconnect}
	known := 0
	var outside []string
	for _, g := range t.GPUs {
		if g.NUMANode < 0 {
			continue
		}
		known++
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s: NUMA node %d, CPUs %s", g.ID(), g.NUMANode, orDash(g.CPUAffinity)))
		if allowed != "" && g.CPUAffinity != "" && !cpusOverlap(allowed, g.CPUAffinity) {
			outside = append(outside, g.ID())
		}
	}
	if allowed != "" {
		v.Evidence = append(v.Evidence, "this process may run on CPUs "+allowed)
	}
	switch {
	case known == 0:
		v.judge(Skipped, "the GPUs' NUMA nodes are not reported (a VM, or a matrix without NUMA columns)", "")
	case len(outside) > 0:
		v.judge(Warn, "this process is pinned to CPUs far from "+strings.Join(outside, ", ")+": host staging and kernel launches cross sockets",
			"bind each rank to its GPU's NUMA node (numactl --cpunodebind, or the launcher's --cpu-bind)")
	default:
		nodes := map[int]bool{}
		for _, g := range t.GPUs {
			if g.NUMANode >= 0 {
				nodes[g.NUMANode] = true
			}
		}
		v.judge(OK, fmt.Sprintf("%s on %s; CPU affinity known for each", countText(known, "GPU"), countText(len(nodes), "NUMA node")), "")
	}
	return v
}

// countText is "1 GPU", "8 GPUs".
func countText(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cpusOverlap reports whether two cpulists ("0-47,96-143") share a CPU.
func cpusOverlap(a, b string) bool {
	set := map[int]bool{}
	for _, c := range cpuList(a) {
		set[c] = true
	}
	for _, c := range cpuList(b) {
		if set[c] {
			return true
		}
	}
	return false
}

func cpuList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		var a, b int
		if _, err := fmt.Sscan(lo, &a); err != nil {
			continue
		}
		b = a
		if isRange {
			if _, err := fmt.Sscan(hi, &b); err != nil {
				continue
			}
		}
		for c := a; c <= b && c-a < 4096; c++ {
			out = append(out, c)
		}
	}
	return out
}
