package topograph

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// style is the fill and text colour of a box.
type style struct{ fill, stroke, text, class string }

var styles = map[kind]style{
	kindCPU:    {"#d9d9d9", "#636363", "#000000", "cpu"},
	kindSwitch: {"#fdd49e", "#b37a2c", "#000000", "switch"},
	kindGPU:    {"#76b900", "#4a7500", "#ffffff", "gpu"},
	kindNIC:    {"#9ecae1", "#3f7fa6", "#000000", "nic"},
	kindOther:  {"#f0f0f0", "#636363", "#000000", "other"},
}

const (
	pcieColor   = "#636363"
	nvlinkColor = "#4a9400"
	smpColor    = "#404040"
)

// xmlEscape escapes text for an SVG element or a double-quoted attribute.
var xmlEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// ScaleToFit is the style of a drawing's root element: at its natural size
// where the notebook cell is wide enough, scaled down to the cell's width,
// keeping its proportions, where it is not. The layout keeps an 8-GPU node
// under 1,000 px (see maxWidth), so this matters only for narrow cells and
// odd machines. Front ends that show the SVG as an image scale it the same
// way.
const ScaleToFit = "max-width:100%;height:auto"

// render writes the picture as a standalone SVG document.
func render(p *picture) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" style="%s" font-family="Helvetica, Arial, sans-serif">
`, p.width, p.height, p.width, p.height, ScaleToFit)
	fmt.Fprintf(&b, "<title>%s</title>\n", xmlEscape.Replace(p.title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", p.width, p.height)
	text(&b, margin, margin+fontSize+2, fontSize+2, "start", "#000000", `font-weight="bold"`, p.title)

	b.WriteString(`<g class="edges" fill="none">` + "\n")
	for _, c := range p.boxes {
		if c.parent == nil {
			continue
		}
		par := c.parent
		from, bus, to := par.bottom(), par.bottom()+busDrop, c.y
		if c.y < par.y { // an upside-down band
			from, bus, to = par.y, par.y-busDrop, c.bottom()
		}
		fmt.Fprintf(&b, `<path class="pcie" d="M%d %dV%dH%dV%d" stroke="%s" stroke-width="1.5"/>`+"\n",
			par.cx(), from, bus, c.cx(), to, pcieColor)
	}
	for _, e := range p.smp {
		a, z := e.a, e.b
		if e.side {
			fmt.Fprintf(&b, `<path class="smp" d="M%d %dH%dV%dH%d" stroke="%s" stroke-width="2" stroke-dasharray="6 4"/>`+"\n",
				a.x, e.ya, e.x, e.yb, z.x, smpColor)
			continue
		}
		if a.x > z.x {
			a, z = z, a
		}
		if e.adjacent {
			y := a.y + a.h/2
			fmt.Fprintf(&b, `<path class="smp" d="M%d %dH%d" stroke="%s" stroke-width="2" stroke-dasharray="6 4"/>`+"\n",
				a.x+a.w, y, z.x, smpColor)
			continue
		}
		y := a.y - (e.lane+1)*laneGap
		fmt.Fprintf(&b, `<path class="smp" d="M%d %dV%dH%dV%d" stroke="%s" stroke-width="2" stroke-dasharray="6 4"/>`+"\n",
			a.cx()+a.w/4, a.y, y, z.cx()-z.w/4, z.y, smpColor)
	}
	for _, e := range p.nvlinks {
		if e.b == nil {
			from, to := nvlinkToBar(p, e)
			fmt.Fprintf(&b, `<path class="nvlink" d="M%d %dV%d" stroke="%s" stroke-width="3"/>`+"\n",
				e.xa, from, to, nvlinkColor)
			continue
		}
		y := p.laneTop + (e.lane+1)*laneGap
		fmt.Fprintf(&b, `<path class="nvlink" d="M%d %dV%dH%dV%d" stroke="%s" stroke-width="3"/>`+"\n",
			e.xa, e.a.bottom(), y, e.xb, e.b.bottom(), nvlinkColor)
	}
	b.WriteString("</g>\n")

	b.WriteString(`<g class="nodes">` + "\n")
	boxes := p.boxes
	if p.nvswitch != nil {
		boxes = append(boxes[:len(boxes):len(boxes)], p.nvswitch)
	}
	for _, n := range boxes {
		st := styles[n.kind]
		rx := 4
		if n == p.nvswitch {
			st = style{"#bcbddc", "#6a51a3", "#000000", "nvswitch"}
			rx = 8
		}
		fmt.Fprintf(&b, `<rect class="%s" data-node="%s" x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s" stroke="%s" stroke-width="1.2"/>`+"\n",
			st.class, xmlEscape.Replace(n.id), n.x, n.y, n.w, n.h, rx, st.fill, st.stroke)
		top := n.y + (n.h-len(n.lines)*lineHeight)/2 + fontSize
		for i, l := range n.lines {
			extra := ""
			if i == 0 {
				extra = `font-weight="bold"`
			}
			text(&b, n.cx(), top+i*lineHeight, fontSize, "middle", st.text, extra, l)
		}
	}
	b.WriteString("</g>\n")

	// Labels last, on a white halo, so lines never hide them.
	b.WriteString(`<g class="labels">` + "\n")
	for _, c := range p.boxes {
		if c.busLabel != "" {
			// Beside the drop to the bus, between the box and the bus.
			y := c.bottom() + busDrop - 3
			if c.children[0].y < c.y {
				y = c.y - 3
			}
			label(&b, c.cx()+5, y, "start", pcieColor, c.busLabel)
		}
		if l := pcieLabel(c.uplink); l != "" && c.parent != nil && c.parent.busLabel == "" {
			y := c.y - 6
			if c.y < c.parent.y {
				y = c.bottom() + 6 + labelSize
			}
			label(&b, c.cx()+5, y, "start", pcieColor, l)
		}
	}
	for _, e := range p.smp {
		a, z := e.a, e.b
		if e.side {
			label(&b, a.x-4, e.ya-4, "end", smpColor, "SYS (UPI/xGMI)")
			continue
		}
		if a.x > z.x {
			a, z = z, a
		}
		if e.adjacent {
			label(&b, (a.x+a.w+z.x)/2, a.y+a.h/2-6, "middle", smpColor, "SYS (UPI/xGMI)")
			continue
		}
		y := a.y - (e.lane+1)*laneGap
		label(&b, (a.cx()+a.w/4+z.cx()-z.w/4)/2, y-4, "middle", smpColor, "SYS (UPI/xGMI)")
	}
	for _, e := range p.nvlinks {
		if e.count <= 0 {
			continue
		}
		nv := "NV" + strconv.Itoa(e.count)
		if e.b == nil {
			from, to := nvlinkToBar(p, e)
			label(&b, e.xa+5, (from+to)/2+labelSize/2, "start", nvlinkColor, nv)
			continue
		}
		y := p.laneTop + (e.lane+1)*laneGap
		label(&b, (e.xa+e.xb)/2, y-4, "middle", nvlinkColor, nv)
	}
	b.WriteString("</g>\n")

	y := p.height - len(p.footer)*footLine - vGap/4
	for i, f := range p.footer {
		text(&b, margin, y+i*footLine+labelSize, labelSize+1, "start", "#404040", "", f)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// nvlinkToBar is where a GPU's link to the NVSwitch bar starts and ends:
// down from the GPU's bottom, or up from its top in an upside-down band.
func nvlinkToBar(p *picture, e nvlinkEdge) (from, to int) {
	if e.a.y > p.nvswitch.y {
		return e.a.y, p.nvswitch.bottom()
	}
	return e.a.bottom(), p.nvswitch.y
}

func text(b *bytes.Buffer, x, y, size int, anchor, color, extra, s string) {
	if extra != "" {
		extra = " " + extra
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d" text-anchor="%s" fill="%s"%s>%s</text>`+"\n",
		x, y, size, anchor, color, extra, xmlEscape.Replace(s))
}

// label draws an edge label with a white outline behind the glyphs.
func label(b *bytes.Buffer, x, y int, anchor, color, s string) {
	text(b, x, y, labelSize, anchor, color,
		`stroke="#ffffff" stroke-width="3" paint-order="stroke"`, s)
}
