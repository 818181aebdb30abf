package topograph

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// DOT renders the topology as a Graphviz graph: NUMA nodes (with their
// CPUs), PCIe switches, GPUs, NICs and the NVSwitch fabric as nodes, links
// as edges labelled with their PCIe generation and width or NVLink count.
// When Links is empty it draws what InferGraph infers, on a copy. Graphviz
// lays the text out; SVG draws without it.
func DOT(t *probes.Topology) string {
	g := graphOf(t)
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
		if strings.HasPrefix(id, probes.SocketPrefix) {
			sockets = append(sockets, id)
		}
	}
	sort.Strings(sockets)
	for _, id := range sockets {
		label := "CPU socket " + strings.TrimPrefix(id, probes.SocketPrefix) + "\n(inferred from SYS paths)"
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
	if used[probes.NVSwitchID] {
		fmt.Fprintf(&b, "  %s [shape=hexagon, fillcolor=\"#bcbddc\", label=\"NVSwitch fabric\"];\n", dotQuote(probes.NVSwitchID))
		delete(used, probes.NVSwitchID)
	}
	for _, id := range slices.Sorted(maps.Keys(used)) {
		fmt.Fprintf(&b, "  %s [shape=box];\n", dotQuote(id))
	}
	for _, l := range g.Links {
		attrs := []string{}
		switch l.Kind {
		case probes.LinkNVLink:
			attrs = append(attrs, "label="+dotQuote("NV"+strconv.Itoa(l.Count)), "color=\"#76b900\"", "penwidth=2.5")
		case probes.LinkPCIe:
			if l.Version > 0 {
				attrs = append(attrs, "label="+dotQuote(fmt.Sprintf("Gen%d x%d", l.Version, l.Width)))
			}
		case probes.LinkSMP:
			attrs = append(attrs, "label=\"SMP\"", "style=dashed")
		case probes.LinkNet:
			attrs = append(attrs, "style=dotted")
		}
		// dot ranks an edge's first node above its second: CPUs on top,
		// then switches, devices, and the NVSwitch fabric at the bottom.
		a, z := l.A, l.B
		if l.Kind == probes.LinkPCIe || l.Kind == probes.LinkNet {
			a, z = z, a
		}
		if l.Kind == probes.LinkSMP {
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
