package probes

import (
	"sort"
	"strconv"
	"strings"
)

// maxNVLinksPerGPU is the most NVLinks one GPU has: 18 on H100, H200 and
// B200 (NVIDIA H100 Tensor Core GPU Architecture whitepaper; Blackwell
// datasheet). When a GPU shows more bonded links to its peers together
// than this, the links cannot be direct and go through NVSwitches.
const maxNVLinksPerGPU = 18

// NVSwitchID is the drawing's node for a GPU baseboard's NVSwitch fabric.
const NVSwitchID = "NVS0"

// SocketPrefix names the nodes that stand for CPU sockets inferred from
// SYS paths when the NUMA nodes are unknown: "SOCKET0", "SOCKET1".
const SocketPrefix = "SOCKET"

// numaNodeID names the drawing node of NUMA node n.
func numaNodeID(n int) string { return "NUMA" + strconv.Itoa(n) }

// InferGraph fills NUMANodes, Switches and Links from the path matrix and
// the GPUs' NUMA affinity, for sources that give only the matrix (a parsed
// `nvidia-smi topo -m`). Devices PIX to each other share an inferred PCIe
// switch; switches or devices PXB to each other share a parent switch;
// the rest hang off their NUMA node's CPU. GPU pairs at NV# are joined
// directly, or through one NVSwitch node when the bonded counts add up to
// more links than a GPU has. It does nothing when Links is already set.
func (t *Topology) InferGraph() {
	if len(t.Links) > 0 {
		return
	}
	t.inferNUMA()
	cpus := t.inferSockets()
	t.inferSwitches(cpus)
	t.inferNVLinks()
	var roots []string
	for _, n := range t.NUMANodes {
		roots = append(roots, n.NodeID())
	}
	seen := map[string]bool{}
	for _, d := range t.matrixDevices() {
		if c := cpus[d]; strings.HasPrefix(c, SocketPrefix) && !seen[c] {
			seen[c] = true
			roots = append(roots, c)
		}
	}
	for i, a := range roots {
		for _, b := range roots[i+1:] {
			t.Links = append(t.Links, Link{Kind: LinkSMP, A: a, B: b})
		}
	}
}

// matrixDevices lists the GPUs and NICs of the matrix in its order.
func (t *Topology) matrixDevices() []string {
	var devices []string
	for _, d := range t.Devices {
		if strings.HasPrefix(d, "GPU") || strings.HasPrefix(d, "NIC") {
			devices = append(devices, d)
		}
	}
	return devices
}

// inferSockets maps each GPU and NIC to the CPU-side node it hangs off:
// its NUMA node when known, else a CPU socket inferred from the matrix
// (devices not SYS to each other share a socket).
func (t *Topology) inferSockets() map[string]string {
	devices := t.matrixDevices()
	cpus := map[string]string{}
	groups := groupBy(devices, func(a, b string) bool {
		p, _ := t.PathBetween(a, b)
		return p.Level != LevelUnknown && p.Level < LevelSYS
	})
	for k, g := range groups {
		for _, d := range g {
			if n := t.deviceNUMA(d); n >= 0 {
				cpus[d] = numaNodeID(n)
			} else {
				cpus[d] = SocketPrefix + strconv.Itoa(k)
			}
		}
	}
	return cpus
}

func (t *Topology) inferNUMA() {
	known := map[int]bool{}
	for _, n := range t.NUMANodes {
		known[n.ID] = true
	}
	for _, g := range t.GPUs {
		if g.NUMANode >= 0 && !known[g.NUMANode] {
			known[g.NUMANode] = true
			t.NUMANodes = append(t.NUMANodes, NUMANode{ID: g.NUMANode, CPUs: g.CPUAffinity})
		}
	}
	// A NIC sits on the NUMA node of any GPU that reaches it without
	// crossing the SMP interconnect.
	for i, n := range t.NICs {
		if n.NUMANode >= 0 {
			continue
		}
		for _, g := range t.GPUs {
			p, ok := t.PathBetween(g.ID(), n.ID())
			if ok && p.Level >= LevelPIX && p.Level <= LevelNODE && g.NUMANode >= 0 {
				t.NICs[i].NUMANode = g.NUMANode
				break
			}
		}
	}
	sort.Slice(t.NUMANodes, func(i, j int) bool { return t.NUMANodes[i].ID < t.NUMANodes[j].ID })
}

// deviceNUMA is the NUMA node of a GPU or NIC by matrix name, or -1.
func (t *Topology) deviceNUMA(id string) int {
	if g, ok := t.GPUByID(id); ok {
		return g.NUMANode
	}
	if n, ok := t.NICByID(id); ok {
		return n.NUMANode
	}
	return -1
}

// devicePCIe is the PCIe link of a GPU or NIC by matrix name.
func (t *Topology) devicePCIe(id string) PCIeLink {
	if g, ok := t.GPUByID(id); ok {
		return g.PCIe
	}
	if n, ok := t.NICByID(id); ok {
		return n.PCIe
	}
	return PCIeLink{}
}

func (t *Topology) pcieLink(a, b string, l PCIeLink) Link {
	return Link{Kind: LinkPCIe, A: a, B: b, Version: l.GenCurrent, Width: l.WidthCurrent, GBps: l.GBps()}
}

// groupBy joins items whose pairwise level satisfies same into groups, in
// first-seen order.
func groupBy(items []string, same func(a, b string) bool) [][]string {
	var groups [][]string
	seen := map[string]bool{}
	for _, a := range items {
		if seen[a] {
			continue
		}
		group := []string{a}
		seen[a] = true
		for k := 0; k < len(group); k++ {
			for _, b := range items {
				if !seen[b] && same(group[k], b) {
					seen[b] = true
					group = append(group, b)
				}
			}
		}
		groups = append(groups, group)
	}
	return groups
}

func (t *Topology) inferSwitches(cpus map[string]string) {
	devices := t.matrixDevices()
	level := func(a, b string) Level {
		p, _ := t.PathBetween(a, b)
		return p.Level
	}
	leaves := groupBy(devices, func(a, b string) bool { return level(a, b) == LevelPIX })
	// upstream is what each leaf (a switch or a lone device) hangs off.
	type leaf struct {
		node    string
		members []string
	}
	var ls []leaf
	for _, g := range leaves {
		if len(g) == 1 {
			ls = append(ls, leaf{node: g[0], members: g})
			continue
		}
		id := "PCISW" + strconv.Itoa(len(t.Switches))
		t.Switches = append(t.Switches, PCISwitch{ID: id, NUMANode: t.deviceNUMA(g[0]), Members: g, Inferred: true})
		for _, m := range g {
			t.Links = append(t.Links, t.pcieLink(m, id, t.devicePCIe(m)))
		}
		ls = append(ls, leaf{node: id, members: g})
	}
	leafNodes := make([]string, len(ls))
	byNode := map[string]leaf{}
	for i, l := range ls {
		leafNodes[i] = l.node
		byNode[l.node] = l
	}
	parents := groupBy(leafNodes, func(a, b string) bool {
		return level(byNode[a].members[0], byNode[b].members[0]) == LevelPXB
	})
	for _, g := range parents {
		up := g[0]
		numa := t.deviceNUMA(byNode[g[0]].members[0])
		if len(g) > 1 {
			up = "PCISW" + strconv.Itoa(len(t.Switches))
			var members []string
			for _, n := range g {
				members = append(members, byNode[n].members...)
			}
			t.Switches = append(t.Switches, PCISwitch{ID: up, NUMANode: numa, Members: members, Inferred: true})
			for _, n := range g {
				l := Link{Kind: LinkPCIe, A: n, B: up}
				if len(byNode[n].members) == 1 && byNode[n].members[0] == n {
					l = t.pcieLink(n, up, t.devicePCIe(n))
				}
				t.Links = append(t.Links, l)
			}
		}
		cpu := cpus[byNode[g[0]].members[0]]
		l := Link{Kind: LinkPCIe, A: up, B: cpu}
		if len(g) == 1 && len(byNode[up].members) == 1 {
			l = t.pcieLink(up, cpu, t.devicePCIe(up))
		}
		t.Links = append(t.Links, l)
	}
}

func (t *Topology) inferNVLinks() {
	type pair struct {
		a, b  string
		count int
	}
	var pairs []pair
	total := map[string]int{}
	for i, g := range t.GPUs {
		for _, h := range t.GPUs[i+1:] {
			p, ok := t.PathBetween(g.ID(), h.ID())
			if ok && p.Level == LevelNVLink {
				pairs = append(pairs, pair{g.ID(), h.ID(), p.NVLinks})
				total[g.ID()] += p.NVLinks
				total[h.ID()] += p.NVLinks
			}
		}
	}
	switched := false
	for _, n := range total {
		if n > maxNVLinksPerGPU {
			switched = true
		}
	}
	if !switched {
		for _, p := range pairs {
			t.Links = append(t.Links, Link{Kind: LinkNVLink, A: p.a, B: p.b, Count: p.count})
		}
		return
	}
	// Through NVSwitches each GPU's bonded count to any peer is its link
	// count to the fabric.
	perGPU := map[string]int{}
	for _, p := range pairs {
		perGPU[p.a] = max(perGPU[p.a], p.count)
		perGPU[p.b] = max(perGPU[p.b], p.count)
	}
	for _, g := range t.GPUs {
		if n := perGPU[g.ID()]; n > 0 {
			t.Links = append(t.Links, Link{Kind: LinkNVLink, A: g.ID(), B: NVSwitchID, Count: n})
		}
	}
}
