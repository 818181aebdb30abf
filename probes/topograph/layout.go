package topograph

import (
	"cmp"
	"fmt"
	"slices"
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
	hGap        = 16 // between sibling boxes
	cpuGap      = 120
	vGap        = 64 // between rows
	busDrop     = 16 // parent bottom to its children's bus
	nvGap       = 46 // device row bottom to the NVSwitch bar
	nvBarHeight = 30
	laneGap     = 20 // between lanes of direct NVLinks or SMP arcs
	sideGap     = 10 // between lanes of SMP links beside stacked sockets
	titleHeight = 30
	footLine    = 15
	// maxWidth is the widest drawing that reads at its natural size in a
	// notebook cell (some 900-1000 px); a wider one stacks its sockets.
	maxWidth = 1000
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
	busLabel string      // the PCIe label all children's uplinks share, drawn once by the parent
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
	// side is set when the sockets are stacked: the edge runs from a's
	// left side at ya down lane x and into b's left side at yb.
	side      bool
	x, ya, yb int
}

// picture is a laid-out topology, ready to render.
type picture struct {
	title    string
	boxes    []*box // drawing order
	nvswitch *box   // nil when there is no NVSwitch fabric
	nvlinks  []nvlinkEdge
	smp      []smpEdge
	footer   []string
	laneTop  int  // y of the first lane's base for direct GPU-GPU NVLinks
	stacked  bool // one band per socket, stacked, instead of side by side
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

	// A PCIe label all of a parent's children share is drawn once, beside
	// the parent's drop to their bus; only differing ones beside each child.
	for _, b := range all {
		if len(b.children) == 0 {
			continue
		}
		l := pcieLabel(b.children[0].uplink)
		for _, c := range b.children[1:] {
			if pcieLabel(c.uplink) != l {
				l = ""
				break
			}
		}
		b.busLabel = l
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
	for _, b := range all {
		// A child's own edge label sits right of its line, inside the
		// column; a bus label right of its parent's drop, inside the
		// parent's column.
		if b.parent != nil && b.parent.busLabel == "" {
			if l := pcieLabel(b.uplink); l != "" {
				inner = max(inner, 2*(textWidth(l, labelSize)+6)-hGap)
			}
		}
		if b.row > 0 && b.busLabel != "" {
			inner = max(inner, textWidth(b.busLabel, labelSize)+12-hGap)
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
	// Bands: each top with its tree, and the lone devices together.
	var bands [][]*box
	for _, b := range tops {
		bands = append(bands, []*box{b})
	}
	if len(loners) > 0 {
		bands = append(bands, loners)
	}
	sideBySide := 2 * margin
	bandSpan := make([]int, len(bands))
	for i, band := range bands {
		for _, b := range band {
			bandSpan[i] += measure(b)
		}
		sideBySide += bandSpan[i]
	}
	// Side by side, an 8-GPU node is over 2,000 px wide and unreadable
	// once scaled to a cell, so its sockets are stacked instead: one band
	// a socket. Stacked, the NVSwitch fabric lies between two bands, the
	// second drawn upside down so both device rows face it; with more
	// sockets or direct GPU-GPU NVLinks the drawing stays side by side.
	p.stacked = sideBySide > maxWidth && len(bands) >= 2 && len(gpuPairs) == 0 &&
		(len(nvSwitchLinks) == 0 || len(bands) == 2)

	var y, barY int
	if !p.stacked {
		// Top margin: the title, then lanes for SMP arcs between top
		// boxes that are not neighbours.
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
		y = margin + titleHeight + lanes*laneGap
		rowY := make([]int, deviceRow+1)
		for r := range rowY {
			rowY[r] = y
			y += rowHeight[r] + vGap
		}
		for _, b := range all {
			b.y, b.h = rowY[b.row], rowHeight[b.row]
		}
		x := margin
		for _, band := range bands {
			for _, b := range band {
				place(b, x)
				x += b.span
			}
		}
		p.width = x + margin
		y = rowY[deviceRow] + rowHeight[deviceRow]
		barY = y + nvGap
	} else {
		y, barY = p.stackBands(bands, bandSpan, rowHeight, deviceRow, len(nvSwitchLinks) > 0, place)
	}
	p.width = max(p.width, textWidth(p.title, fontSize+2)+2*margin)

	// NVLinks: to the NVSwitch bar, then a lane below the device row for
	// each directly joined GPU pair.
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
			x: lo, y: barY, w: hi - lo, h: nvBarHeight}
		if !p.stacked {
			y = barY + nvBarHeight
		}
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

// stackBands places the bands one under another, each centred in the
// widest, with the SMP links in lanes down the left side. With an
// NVSwitch fabric (then there are two bands) the bar lies between them
// and the second band is drawn upside down. It sets the picture's width
// and returns the bottom of the last row and the bar's top.
func (p *picture) stackBands(bands [][]*box, bandSpan, rowHeight []int, deviceRow int, fabric bool, place func(*box, int)) (bottom, barY int) {
	left := margin + len(p.smp)*sideGap
	widest := 0
	for _, s := range bandSpan {
		widest = max(widest, s)
	}
	p.width = left + widest + margin
	y := margin + titleHeight
	for i, band := range bands {
		rows := make([]int, 0, deviceRow+1)
		if band[0].row == 0 {
			for r := 0; r < deviceRow; r++ {
				rows = append(rows, r)
			}
		}
		rows = append(rows, deviceRow)
		if fabric && i == 1 {
			barY = y - vGap + nvGap
			y = barY + nvBarHeight + nvGap
			for l, r := 0, len(rows)-1; l < r; l, r = l+1, r-1 {
				rows[l], rows[r] = rows[r], rows[l]
			}
		}
		rowY := map[int]int{}
		for _, r := range rows {
			rowY[r] = y
			y += rowHeight[r] + vGap
		}
		var walk func(b *box)
		walk = func(b *box) {
			b.y, b.h = rowY[b.row], rowHeight[b.row]
			for _, c := range b.children {
				walk(c)
			}
		}
		x := left + (widest-bandSpan[i])/2
		for _, b := range band {
			walk(b)
			place(b, x)
			x += b.span
		}
	}
	bottom = y - vGap

	// SMP links: the widest apart in the outermost lane, each leaving its
	// upper box's left side and entering the lower one's.
	sort.SliceStable(p.smp, func(i, j int) bool {
		return abs(p.smp[i].a.y-p.smp[i].b.y) < abs(p.smp[j].a.y-p.smp[j].b.y)
	})
	ends := map[*box]int{}
	for _, e := range p.smp {
		ends[e.a]++
		ends[e.b]++
	}
	seen := map[*box]int{}
	at := func(b *box) int {
		seen[b]++
		return b.y + b.h*seen[b]/(ends[b]+1)
	}
	for i := range p.smp {
		e := &p.smp[i]
		if e.a.y > e.b.y {
			e.a, e.b = e.b, e.a
		}
		e.side = true
		e.x = left - (i+1)*sideGap
		e.ya, e.yb = at(e.a), at(e.b)
	}
	return bottom, barY
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
	slices.SortStableFunc(bs, func(a, b *box) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id))
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
			lines = append(lines, shortBusID(g.BusID))
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

// shortBusID drops the PCI domain when it is the usual 0000:
// "0000:18:00.0" is drawn "18:00.0", so a GPU box is no wider than its name.
func shortBusID(id string) string {
	if s, ok := strings.CutPrefix(id, "0000:"); ok && strings.Count(s, ":") == 1 {
		return s
	}
	return id
}

// portText is "400 Gb/s IB" from an RDMA port. The lane speed's name
// ("4X NDR") is left out: the rate says it, and the box stays narrow
// enough for eight of them in a row.
func portText(p probes.RDMAPort) string {
	s := strconv.FormatFloat(p.RateGbps, 'g', -1, 64) + " Gb/s"
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
