package probes

import (
	"fmt"
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

// socketPrefix names the nodes that stand for CPU sockets inferred from
// SYS paths when the NUMA nodes are unknown: "SOCKET0", "SOCKET1".
const socketPrefix = "SOCKET"

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
		if c := cpus[d]; strings.HasPrefix(c, socketPrefix) && !seen[c] {
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
				cpus[d] = socketPrefix + strconv.Itoa(k)
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

// DOT renders the topology as a Graphviz graph: NUMA nodes (with their
// CPUs), PCIe switches, GPUs, NICs and the NVSwitch fabric as nodes, links
// as edges labelled with their PCIe generation and width or NVLink count.
// When Links is empty it draws what InferGraph infers, on a copy.
func (t *Topology) DOT() string {
	g := t
	if len(t.Links) == 0 {
		c := *t
		c.NUMANodes = append([]NUMANode(nil), t.NUMANodes...)
		c.Switches = append([]PCISwitch(nil), t.Switches...)
		c.NICs = append([]NIC(nil), t.NICs...)
		c.InferGraph()
		g = &c
	}
	var b strings.Builder
	b.WriteString("graph topology {\n")
	fmt.Fprintf(&b, "  graph [rankdir=TB, nodesep=0.2, ranksep=0.6, fontname=\"Helvetica\", labelloc=t, label=%s];\n", dotQuote(g.Source))
	b.WriteString("  node [fontname=\"Helvetica\", fontsize=11, style=filled];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	used := map[string]bool{}
	for _, l := range g.Links {
		used[l.A], used[l.B] = true, true
	}
	for _, n := range g.NUMANodes {
		label := "NUMA " + strconv.Itoa(n.ID) + " / CPU"
		if n.CPUs != "" {
			label += "\ncores " + n.CPUs
		}
		fmt.Fprintf(&b, "  %s [shape=box3d, fillcolor=\"#d9d9d9\", label=%s];\n", dotQuote(n.NodeID()), dotQuote(label))
		delete(used, n.NodeID())
	}
	var sockets []string
	for id := range used {
		if strings.HasPrefix(id, socketPrefix) {
			sockets = append(sockets, id)
		}
	}
	sort.Strings(sockets)
	for _, id := range sockets {
		label := "CPU socket " + strings.TrimPrefix(id, socketPrefix) + "\n(inferred from SYS paths)"
		fmt.Fprintf(&b, "  %s [shape=box3d, fillcolor=\"#d9d9d9\", label=%s];\n", dotQuote(id), dotQuote(label))
		delete(used, id)
	}
	for _, s := range g.Switches {
		label := "PCIe switch"
		if s.Inferred {
			label += "\n(inferred)"
		}
		if s.BusID != "" {
			label += "\n" + s.BusID
		}
		fmt.Fprintf(&b, "  %s [shape=diamond, fillcolor=\"#fdd49e\", label=%s];\n", dotQuote(s.ID), dotQuote(label))
		delete(used, s.ID)
	}
	for _, gpu := range g.GPUs {
		label := gpu.ID()
		if gpu.Name != "" {
			label += "\n" + gpu.Name
		}
		if gpu.BusID != "" {
			label += "\n" + gpu.BusID
		}
		fmt.Fprintf(&b, "  %s [shape=box, fillcolor=\"#76b900\", fontcolor=white, label=%s];\n", dotQuote(gpu.ID()), dotQuote(label))
		delete(used, gpu.ID())
	}
	for _, n := range g.NICs {
		label := n.ID() + "\n" + n.Name
		for _, p := range n.Ports {
			if p.RateGbps > 0 {
				label += fmt.Sprintf("\nport %d: %g Gb/s %s", p.Port, p.RateGbps, p.LinkLayer)
			}
		}
		fmt.Fprintf(&b, "  %s [shape=ellipse, fillcolor=\"#9ecae1\", label=%s];\n", dotQuote(n.ID()), dotQuote(label))
		delete(used, n.ID())
	}
	if used[NVSwitchID] {
		fmt.Fprintf(&b, "  %s [shape=hexagon, fillcolor=\"#bcbddc\", label=\"NVSwitch fabric\"];\n", dotQuote(NVSwitchID))
		delete(used, NVSwitchID)
	}
	rest := make([]string, 0, len(used))
	for id := range used {
		rest = append(rest, id)
	}
	sort.Strings(rest)
	for _, id := range rest {
		fmt.Fprintf(&b, "  %s [shape=box];\n", dotQuote(id))
	}
	for _, l := range g.Links {
		attrs := []string{}
		switch l.Kind {
		case LinkNVLink:
			attrs = append(attrs, "label="+dotQuote("NV"+strconv.Itoa(l.Count)), "color=\"#76b900\"", "penwidth=2.5")
		case LinkPCIe:
			if l.Version > 0 {
				attrs = append(attrs, "label="+dotQuote(fmt.Sprintf("Gen%d x%d", l.Version, l.Width)))
			}
		case LinkSMP:
			attrs = append(attrs, "label=\"SMP\"", "style=dashed")
		case LinkNet:
			attrs = append(attrs, "style=dotted")
		}
		// dot ranks an edge's first node above its second: CPUs on top,
		// then switches, devices, and the NVSwitch fabric at the bottom.
		a, z := l.A, l.B
		if l.Kind == LinkPCIe || l.Kind == LinkNet {
			a, z = z, a
		}
		if l.Kind == LinkSMP {
			attrs = append(attrs, "constraint=false")
		}
		fmt.Fprintf(&b, "  %s -- %s", dotQuote(a), dotQuote(z))
		if len(attrs) > 0 {
			b.WriteString(" [" + strings.Join(attrs, ", ") + "]")
		}
		b.WriteString(";\n")
	}
	var top []string
	for _, n := range g.NUMANodes {
		top = append(top, dotQuote(n.NodeID()))
	}
	for _, id := range sockets {
		top = append(top, dotQuote(id))
	}
	if len(top) > 1 {
		b.WriteString("  { rank=same; " + strings.Join(top, "; ") + "; }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string; newlines become DOT's centred breaks.
func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + s + `"`
}
