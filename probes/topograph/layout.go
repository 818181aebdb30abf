package topograph

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes"
)

// kind is what a box in the drawing stands for; it picks the box's row
// and colours.
type kind int

const (
	kindCPU    kind = iota // NUMA node, CPU socket: the top row
	kindSwitch             // PCIe switch or another bridge between CPU and device
	kindGPU
	kindNIC
	kindOther // a link endpoint the topology does not describe
)

// Sizes in SVG user units (pixels). Text widths are estimated from the
// character count, as the SVG is drawn without font metrics.
const (
	margin      = 20
	fontSize    = 12
	lineHeight  = 15
	labelSize   = 10
	boxPad      = 10
	hGap        = 30 // between sibling boxes
	cpuGap      = 140
	vGap        = 64 // between rows
	busDrop     = 16 // parent bottom to its children's bus
	nvGap       = 46 // device row bottom to the NVSwitch bar
	nvBarHeight = 30
	laneGap     = 20 // between lanes of direct NVLinks or SMP arcs
	titleHeight = 30
	footLine    = 15
)

// textWidth estimates the width of s drawn at size px: Helvetica's
// average advance is about 0.55 em; 0.6 leaves room.
func textWidth(s string, size int) int {
	return (len([]rune(s))*size*6 + 9) / 10
}

type box struct {
	id       string
	kind     kind
	lines    []string
	parent   *box
	uplink   probes.Link // the PCIe link to parent
	children []*box
	row      int
	order    int // sort key among siblings
	span     int // width of the subtree's column
	x, y     int // top-left corner
	w, h     int
}

func (b *box) cx() int     { return b.x + b.w/2 }
func (b *box) bottom() int { return b.y + b.h }

// nvlinkEdge is an NVLink to the NVSwitch bar or between two GPUs.
type nvlinkEdge struct {
	a, b  *box // b is nil for a link to the NVSwitch fabric
	count int
	lane  int // for GPU-GPU links: which lane under the device row
	xa    int // attachment points on the boxes' bottom edges
	xb    int
}

// smpEdge joins two top-row boxes.
type smpEdge struct {
	a, b     *box
	adjacent bool
	lane     int // arcs above the top row when not adjacent
}

// picture is a laid-out topology, ready to render.
type picture struct {
	title    string
	boxes    []*box // drawing order
	nvswitch *box   // nil when there is no NVSwitch fabric
	nvlinks  []nvlinkEdge
	smp      []smpEdge
	footer   []string
	laneTop  int // y of the first lane's base for direct GPU-GPU NVLinks
	width    int
	height   int
}

// classify tells what an ID names, by the naming rules of probes.
func classify(t *probes.Topology, id string) kind {
	switch {
	case strings.HasPrefix(id, "NUMA"), strings.HasPrefix(id, probes.SocketPrefix), id == "CPU":
		return kindCPU
	case strings.HasPrefix(id, "PCISW"):
		return kindSwitch
	}
	if _, ok := t.GPUByID(id); ok {
		return kindGPU
	}
	if _, ok := t.NICByID(id); ok {
		return kindNIC
	}
	for _, s := range t.Switches {
		if s.ID == id {
			return kindSwitch
		}
	}
	return kindOther
}

// layout places every part of the topology in rows and columns.
func layout(t *probes.Topology) *picture {
	p := &picture{title: title(t)}
	byID := map[string]*box{}
	var all []*box
	add := func(id string) *box {
		if b, ok := byID[id]; ok {
			return b
		}
		b := &box{id: id, kind: classify(t, id)}
		b.lines = labelOf(t, b)
		byID[id] = b
		all = append(all, b)
		return b
	}
	for _, n := range t.NUMANodes {
		add(n.NodeID())
	}
	for _, g := range t.GPUs {
		add(g.ID())
	}
	for _, n := range t.NICs {
		add(n.ID())
	}
	for _, s := range t.Switches {
		add(s.ID)
	}
	var nvSwitchLinks, gpuPairs []probes.Link
	for _, l := range t.Links {
		if l.A == "" || l.B == "" || l.A == l.B {
			continue
		}
		switch l.Kind {
		case probes.LinkPCIe:
			child, parent := add(l.A), add(l.B)
			if child.parent != nil || child.kind == kindCPU || parent.kind == kindGPU || parent.kind == kindNIC || isAncestor(child, parent) {
				p.footer = append(p.footer, linkText(l))
				continue
			}
			child.parent, child.uplink = parent, l
			parent.children = append(parent.children, child)
		case probes.LinkNVLink:
			a, b := l.A, l.B
			if a == probes.NVSwitchID {
				a, b = b, a
			}
			switch {
			case b == probes.NVSwitchID && classify(t, a) == kindGPU:
				add(a)
				nvSwitchLinks = append(nvSwitchLinks, l)
			case classify(t, a) == kindGPU && classify(t, b) == kindGPU:
				add(a)
				add(b)
				gpuPairs = append(gpuPairs, l)
			default:
				p.footer = append(p.footer, linkText(l))
			}
		case probes.LinkSMP:
			a, b := add(l.A), add(l.B)
			if a.kind != kindCPU || b.kind != kindCPU {
				p.footer = append(p.footer, linkText(l))
				continue
			}
			p.smp = append(p.smp, smpEdge{a: a, b: b})
		default:
			add(l.A)
			add(l.B)
			p.footer = append(p.footer, linkText(l))
		}
	}

	// Tops are drawn in the first row, lone devices beside the trees.
	var tops, loners []*box
	for _, b := range all {
		if b.parent != nil {
			continue
		}
		if (b.kind == kindGPU || b.kind == kindNIC || b.kind == kindOther) && len(b.children) == 0 {
			loners = append(loners, b)
		} else {
			tops = append(tops, b)
		}
	}
	for _, b := range all {
		b.order = orderKey(t, b)
	}
	for _, b := range all {
		sortBoxes(b.children)
	}
	sortBoxes(tops)
	sortBoxes(loners)

	// Rows: tops 0, bridges by depth, every device on one row below.
	deviceRow := 1
	var setRows func(b *box, depth int)
	setRows = func(b *box, depth int) {
		b.row = depth
		if len(b.children) > 0 && depth > 0 && depth+1 > deviceRow {
			deviceRow = depth + 1
		}
		for _, c := range b.children {
			setRows(c, depth+1)
		}
	}
	for _, b := range tops {
		setRows(b, 0)
	}
	var mark func(b *box)
	mark = func(b *box) {
		if b.row > 0 && len(b.children) == 0 {
			b.row = deviceRow
		}
		for _, c := range b.children {
			mark(c)
		}
	}
	for _, b := range tops {
		mark(b)
	}
	for _, b := range loners {
		b.row = deviceRow
	}

	// Box sizes: all boxes below the top row share one width, so the
	// columns line up; a box is as tall as the tallest of its row.
	inner := 0
	for _, b := range all {
		b.w = boxWidth(b.lines)
		if b.row > 0 && b.w > inner {
			inner = b.w
		}
	}
	// An edge label sits right of its line, inside the column.
	for _, b := range all {
		if l := pcieLabel(b.uplink); l != "" {
			inner = max(inner, 2*(textWidth(l, labelSize)+6)-hGap)
		}
	}
	for _, b := range all {
		if b.row > 0 {
			b.w = inner
		}
	}
	rowHeight := make([]int, deviceRow+1)
	for _, b := range all {
		rowHeight[b.row] = max(rowHeight[b.row], len(b.lines)*lineHeight+2*boxPad-lineHeight/3)
	}

	// Top margin: the title, then lanes for SMP arcs between top boxes
	// that are not neighbours.
	topIndex := map[*box]int{}
	for i, b := range tops {
		topIndex[b] = i
	}
	sort.SliceStable(p.smp, func(i, j int) bool {
		return spread(topIndex, p.smp[i]) < spread(topIndex, p.smp[j])
	})
	lanes := 0
	for i := range p.smp {
		e := &p.smp[i]
		if d := topIndex[e.a] - topIndex[e.b]; d == 1 || d == -1 {
			e.adjacent = true
			continue
		}
		e.lane = lanes
		lanes++
	}
	y := margin + titleHeight + lanes*laneGap
	rowY := make([]int, deviceRow+1)
	for r := range rowY {
		rowY[r] = y
		y += rowHeight[r] + vGap
	}
	for _, b := range all {
		b.y, b.h = rowY[b.row], rowHeight[b.row]
	}

	// Columns: each subtree is as wide as its leaves, or its own box.
	var measure func(b *box) int
	measure = func(b *box) int {
		own := inner + hGap
		if b.row == 0 {
			own = b.w + cpuGap
		}
		sum := 0
		for _, c := range b.children {
			sum += measure(c)
		}
		b.span = max(own, sum)
		return b.span
	}
	var place func(b *box, left int)
	place = func(b *box, left int) {
		center := left + b.span/2
		if len(b.children) > 0 {
			sum := 0
			for _, c := range b.children {
				sum += c.span
			}
			x := left + (b.span-sum)/2
			for _, c := range b.children {
				place(c, x)
				x += c.span
			}
			first, last := b.children[0], b.children[len(b.children)-1]
			center = (first.cx() + last.cx()) / 2
		}
		// Keep the box inside its own column.
		pad := hGap / 2
		if b.row == 0 {
			pad = cpuGap / 2
		}
		lo, hi := left+pad+b.w/2, left+b.span-pad-(b.w-b.w/2)
		center = min(max(center, lo), hi)
		b.x = center - b.w/2
	}
	x := margin
	for _, b := range tops {
		measure(b)
		place(b, x)
		x += b.span
	}
	for _, b := range loners {
		measure(b)
		place(b, x)
		x += b.span
	}
	p.width = max(x+margin, textWidth(p.title, fontSize+2)+2*margin)

	// NVLinks below the device row: to the NVSwitch bar, then a lane for
	// each directly joined GPU pair.
	y = rowY[deviceRow] + rowHeight[deviceRow]
	ports := map[*box]int{}
	for _, l := range nvSwitchLinks {
		a := l.A
		if a == probes.NVSwitchID {
			a = l.B
		}
		ports[byID[a]]++
	}
	for _, l := range gpuPairs {
		ports[byID[l.A]]++
		ports[byID[l.B]]++
	}
	used := map[*box]int{}
	port := func(b *box) int {
		used[b]++
		return b.x + b.w*used[b]/(ports[b]+1)
	}
	if len(nvSwitchLinks) > 0 {
		lo, hi := p.width, 0
		for _, l := range nvSwitchLinks {
			a := l.A
			if a == probes.NVSwitchID {
				a = l.B
			}
			g := byID[a]
			lo, hi = min(lo, g.x), max(hi, g.x+g.w)
			p.nvlinks = append(p.nvlinks, nvlinkEdge{a: g, count: l.Count, xa: port(g)})
		}
		p.nvswitch = &box{id: probes.NVSwitchID, kind: kindOther, lines: []string{"NVSwitch fabric"},
			x: lo, y: y + nvGap, w: hi - lo, h: nvBarHeight}
		y += nvGap + nvBarHeight
	}
	p.laneTop = y
	// Pairs share a lane when their spans do not meet (NVLink bridges
	// joining neighbours all fit on one).
	var laneEnd []int
	for _, l := range gpuPairs {
		a, b := byID[l.A], byID[l.B]
		e := nvlinkEdge{a: a, b: b, count: l.Count, xa: port(a), xb: port(b)}
		lo, hi := min(e.xa, e.xb), max(e.xa, e.xb)
		e.lane = len(laneEnd)
		for i, end := range laneEnd {
			if end+laneGap < lo {
				e.lane = i
				break
			}
		}
		if e.lane == len(laneEnd) {
			laneEnd = append(laneEnd, hi)
		}
		laneEnd[e.lane] = max(laneEnd[e.lane], hi)
		p.nvlinks = append(p.nvlinks, e)
	}
	if len(laneEnd) > 0 {
		y += (len(laneEnd) + 1) * laneGap
	}
	if len(p.footer) > 0 {
		p.footer = append([]string{"links not drawn:"}, p.footer...)
		for _, f := range p.footer {
			p.width = max(p.width, textWidth(f, labelSize+1)+2*margin)
		}
	}
	p.height = y + vGap/2 + len(p.footer)*footLine
	p.boxes = all
	return p
}

func spread(index map[*box]int, e smpEdge) int {
	d := index[e.a] - index[e.b]
	if d < 0 {
		d = -d
	}
	return d
}

// isAncestor reports whether a is b or above b in the tree.
func isAncestor(a, b *box) bool {
	for n := b; n != nil; n = n.parent {
		if n == a {
			return true
		}
	}
	return false
}

// orderKey sorts siblings like the hardware is numbered: by the lowest
// GPU below them, then the lowest NIC.
func orderKey(t *probes.Topology, b *box) int {
	best := 1 << 30
	var walk func(n *box)
	walk = func(n *box) {
		switch n.kind {
		case kindGPU:
			if g, ok := t.GPUByID(n.id); ok {
				best = min(best, g.Index)
			}
		case kindNIC:
			if c, ok := t.NICByID(n.id); ok {
				best = min(best, 1<<20+c.Index)
			}
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(b)
	if b.kind == kindCPU {
		// Top boxes go by their own number: NUMA0 left of NUMA1.
		if n, err := strconv.Atoi(strings.TrimLeft(b.id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")); err == nil {
			return n
		}
		return 1<<29 + best%(1<<20)
	}
	return best
}

func sortBoxes(bs []*box) {
	sort.SliceStable(bs, func(i, j int) bool {
		if bs[i].order != bs[j].order {
			return bs[i].order < bs[j].order
		}
		if bs[i].kind != bs[j].kind {
			return bs[i].kind < bs[j].kind
		}
		return bs[i].id < bs[j].id
	})
}

func boxWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, textWidth(l, fontSize))
	}
	return w + 2*boxPad
}

// title is the drawing's heading: host and source.
func title(t *probes.Topology) string {
	parts := []string{}
	if t.Host != "" {
		parts = append(parts, t.Host)
	}
	if t.Source != "" {
		parts = append(parts, t.Source)
	}
	if len(parts) == 0 {
		return "topology"
	}
	return strings.Join(parts, " · ")
}

// labelOf is the text inside a box, one string a line.
func labelOf(t *probes.Topology, b *box) []string {
	switch b.kind {
	case kindCPU:
		for _, n := range t.NUMANodes {
			if n.NodeID() == b.id {
				lines := []string{"NUMA " + strconv.Itoa(n.ID) + " · CPU"}
				if n.CPUs != "" {
					lines = append(lines, "cores "+n.CPUs)
				}
				return lines
			}
		}
		if s, ok := strings.CutPrefix(b.id, probes.SocketPrefix); ok {
			return []string{"CPU socket " + s, "(inferred from SYS paths)"}
		}
		if b.id == "CPU" {
			// sysfs's name for the CPU of devices with no NUMA node.
			return []string{"CPU", "(NUMA node unknown)"}
		}
		return []string{b.id}
	case kindSwitch:
		lines := []string{"PCIe switch"}
		for _, s := range t.Switches {
			if s.ID == b.id {
				if s.Inferred {
					lines = append(lines, "(inferred)")
				}
				if s.BusID != "" {
					lines = append(lines, s.BusID)
				}
			}
		}
		return lines
	case kindGPU:
		g, _ := t.GPUByID(b.id)
		lines := []string{g.ID()}
		if g.Name != "" {
			lines[0] += " " + strings.TrimPrefix(g.Name, "NVIDIA ")
		}
		if g.BusID != "" {
			lines = append(lines, g.BusID)
		}
		if l := g.PCIe; l.GenMax != 0 && l.GenCurrent != 0 && (l.GenCurrent != l.GenMax || l.WidthCurrent != l.WidthMax) {
			lines = append(lines, fmt.Sprintf("degraded, max Gen%d x%d", l.GenMax, l.WidthMax))
		}
		return lines
	case kindNIC:
		n, _ := t.NICByID(b.id)
		lines := []string{strings.TrimSpace(n.ID() + " " + n.Name)}
		var ports []probes.RDMAPort
		for _, p := range n.Ports {
			if p.RateGbps > 0 {
				ports = append(ports, p)
			}
		}
		for _, p := range ports {
			s := portText(p)
			if len(ports) > 1 {
				s = "p" + strconv.Itoa(p.Port) + " " + s
			}
			lines = append(lines, s)
		}
		if len(ports) == 0 && n.BusID != "" && n.BusID != n.Name {
			lines = append(lines, n.BusID)
		}
		return lines
	}
	return []string{b.id}
}

// portText is "400 Gb/s NDR IB" from an RDMA port.
func portText(p probes.RDMAPort) string {
	s := strconv.FormatFloat(p.RateGbps, 'g', -1, 64) + " Gb/s"
	// The rate string ends in the lane speed: "400 Gb/sec (4X NDR)".
	if i, j := strings.LastIndexByte(p.Rate, '('), strings.LastIndexByte(p.Rate, ')'); i >= 0 && j > i {
		if f := strings.Fields(p.Rate[i+1 : j]); len(f) > 0 {
			s += " " + f[len(f)-1]
		}
	}
	switch p.LinkLayer {
	case "InfiniBand":
		s += " IB"
	case "Ethernet":
		s += " RoCE"
	}
	return s
}

// pcieLabel is the label of a PCIe edge: "PCIe Gen5 x16", or "" when the
// link's generation is unknown.
func pcieLabel(l probes.Link) string {
	if l.Kind != probes.LinkPCIe || l.Version == 0 {
		return ""
	}
	if l.Width == 0 {
		return "PCIe Gen" + strconv.Itoa(l.Version)
	}
	return fmt.Sprintf("PCIe Gen%d x%d", l.Version, l.Width)
}

// linkText describes a link the drawing leaves out.
func linkText(l probes.Link) string {
	s := fmt.Sprintf("%s – %s: %s", l.A, l.B, l.Kind)
	switch {
	case l.Kind == probes.LinkNVLink && l.Count > 0:
		s += " ×" + strconv.Itoa(l.Count)
	case l.Version > 0:
		s += " " + strings.TrimPrefix(pcieLabel(l), "PCIe ")
	}
	return s
}
