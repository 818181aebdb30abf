package topograph

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/probes"
	"github.com/commlab/commlab/probes/published"
)

// recordedH200 is the topology `commlab probe topo --json` recorded on the
// project's H200 machine (see probes/testdata/h200-topo/README.md).
const recordedH200 = "../testdata/h200-topo/probe-topo.json"

func loadRecorded(t testing.TB) *probes.Topology {
	t.Helper()
	data, err := os.ReadFile(recordedH200)
	if err != nil {
		t.Skipf("recorded H200 topology absent: %v", err)
	}
	var topo probes.Topology
	if err := json.Unmarshal(data, &topo); err != nil {
		t.Fatalf("%s: %v", recordedH200, err)
	}
	return &topo
}

func fakeTopology(t testing.TB, m *published.Machine) *probes.Topology {
	t.Helper()
	topo, err := m.Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// rect is a box of the drawing as the SVG states it.
type rect struct {
	id, class  string
	x, y, w, h float64
}

func (r rect) overlaps(o rect) bool {
	return r.x < o.x+o.w && o.x < r.x+r.w && r.y < o.y+o.h && o.y < r.y+r.h
}

// parsed is what the tests read back from an SVG.
type parsed struct {
	width, height float64
	viewBox       string
	style         string // the root element's
	boxes         []rect
	labels        []rect // edge labels, by their estimated extent
	textRects     []rect // every text, by its estimated extent; id is the text
	texts         []string
}

// parseSVG reads the SVG strictly as XML and collects its boxes and texts.
func parseSVG(t *testing.T, svg []byte) parsed {
	t.Helper()
	var p parsed
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var group string
	var open *xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			num := func(k string) float64 {
				v, err := strconv.ParseFloat(attr[k], 64)
				if err != nil {
					t.Fatalf("<%s %s=%q>: %v", el.Name.Local, k, attr[k], err)
				}
				return v
			}
			switch el.Name.Local {
			case "svg":
				p.width, p.height, p.viewBox, p.style = num("width"), num("height"), attr["viewBox"], attr["style"]
			case "g":
				group = attr["class"]
			case "rect":
				if id, ok := attr["data-node"]; ok {
					p.boxes = append(p.boxes, rect{id: id, class: attr["class"], x: num("x"), y: num("y"), w: num("width"), h: num("height")})
				}
			case "text":
				e := el.Copy()
				open = &e
				if group == "labels" {
					p.labels = append(p.labels, rect{x: num("x"), y: num("y") - labelSize, h: labelSize, class: attr["text-anchor"]})
				}
				size := num("font-size")
				p.textRects = append(p.textRects, rect{x: num("x"), y: num("y") - size, h: size, w: size, class: attr["text-anchor"]})
			}
		case xml.CharData:
			if open != nil {
				s := string(el)
				p.texts = append(p.texts, s)
				r := &p.textRects[len(p.textRects)-1]
				r.id = s
				r.w = float64(textWidth(s, int(r.w))) // r.w held the font size
				switch r.class {
				case "middle":
					r.x -= r.w / 2
				case "end":
					r.x -= r.w
				}
				if group == "labels" {
					l := &p.labels[len(p.labels)-1]
					l.id = s
					l.w = float64(textWidth(s, labelSize))
					switch l.class {
					case "middle":
						l.x -= l.w / 2
					case "end":
						l.x -= l.w
					}
				}
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				open = nil
			}
		}
	}
	return p
}

func (p parsed) box(id string) (rect, bool) {
	for _, b := range p.boxes {
		if b.id == id {
			return b, true
		}
	}
	return rect{}, false
}

func (p parsed) hasText(s string) bool {
	for _, x := range p.texts {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// checkDrawing holds every drawing to the rules: a sized viewBox, every
// GPU and NIC drawn once, no box over another, inside the picture, and no
// edge label over a box.
func checkDrawing(t *testing.T, topo *probes.Topology, svg []byte) parsed {
	t.Helper()
	p := parseSVG(t, svg)
	if p.width <= 0 || p.height <= 0 || p.viewBox != fmt.Sprintf("0 0 %g %g", p.width, p.height) {
		t.Errorf("svg size %gx%g, viewBox %q", p.width, p.height, p.viewBox)
	}
	// A drawing wider than the notebook cell scales down to it instead of
	// overflowing it.
	if !strings.Contains(p.style, "max-width:100%") || !strings.Contains(p.style, "height:auto") {
		t.Errorf("svg style %q does not scale the drawing to the cell", p.style)
	}
	var want []string
	for _, g := range topo.GPUs {
		want = append(want, g.ID())
	}
	for _, n := range topo.NICs {
		want = append(want, n.ID())
	}
	for _, id := range want {
		if _, ok := p.box(id); !ok {
			t.Errorf("%s is not drawn", id)
		}
	}
	seen := map[string]bool{}
	for i, a := range p.boxes {
		if seen[a.id] {
			t.Errorf("%s drawn twice", a.id)
		}
		seen[a.id] = true
		if a.w <= 0 || a.h <= 0 || a.x < 0 || a.y < 0 || a.x+a.w > p.width || a.y+a.h > p.height {
			t.Errorf("%s at %+v lies outside the %gx%g picture", a.id, a, p.width, p.height)
		}
		for _, b := range p.boxes[i+1:] {
			if a.overlaps(b) {
				t.Errorf("boxes overlap: %+v and %+v", a, b)
			}
		}
		for _, l := range p.labels {
			if l.overlaps(a) {
				t.Errorf("label %q at %+v covers box %s %+v", l.id, l, a.id, a)
			}
		}
	}
	return p
}

func TestSVGGolden(t *testing.T) {
	cases := []struct {
		name  string
		topo  func(t *testing.T) *probes.Topology
		texts []string // must be drawn
	}{
		{"hgx-h200", func(t *testing.T) *probes.Topology { return fakeTopology(t, published.HGXH200()) },
			[]string{"GPU0 H200", "NIC0 mlx5_1", "400 Gb/s IB", "18:00.0", "NVSwitch fabric", "NV18", "PCIe switch", "SYS (UPI/xGMI)", "NUMA 1 · CPU", "cores 48-95,144-191"}},
		{"pcie-box", func(t *testing.T) *probes.Topology { return fakeTopology(t, published.PCIeBox()) },
			[]string{"GPU7", "CPU socket 1", "PCIe switch", "(inferred)", "SYS (UPI/xGMI)"}},
		{"h200-recorded", func(t *testing.T) *probes.Topology { return loadRecorded(t) },
			[]string{"GPU0 H200", "PCIe Gen5 x16", "NIC0 0000:00:03.0", "NUMA 0 · CPU"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo := c.topo(t)
			svg, err := SVG(context.Background(), topo)
			if err != nil {
				t.Fatal(err)
			}
			p := checkDrawing(t, topo, svg)
			for _, s := range c.texts {
				if !p.hasText(s) {
					t.Errorf("drawing lacks %q", s)
				}
			}
			again, _ := SVG(context.Background(), c.topo(t))
			if !bytes.Equal(svg, again) {
				t.Error("two drawings of one topology differ")
			}
			golden.Check(t, filepath.Join("testdata", c.name+".svg"), svg)
		})
	}
}

// TestHGXLayers checks the drawing is built like the machine, one band a
// socket: NUMA 0 on top with its switches, then GPU0-3 each beside its
// NIC, the NVSwitch bar, GPU4-7, their switches and NUMA 1 upside down
// below, so both sockets' GPUs face the fabric.
func TestHGXLayers(t *testing.T) {
	topo := fakeTopology(t, published.HGXH200())
	svg, err := SVG(context.Background(), topo)
	if err != nil {
		t.Fatal(err)
	}
	p := parseSVG(t, svg)
	get := func(id string) rect {
		r, ok := p.box(id)
		if !ok {
			t.Fatalf("%s not drawn", id)
		}
		return r
	}
	cpu0, cpu1, nvs := get("NUMA0"), get("NUMA1"), get(probes.NVSwitchID)
	if cpu0.y+cpu0.h >= nvs.y || nvs.y+nvs.h >= cpu1.y {
		t.Errorf("NUMA 0 %+v, the NVSwitch bar %+v and NUMA 1 %+v not stacked", cpu0, nvs, cpu1)
	}
	for _, s := range topo.Switches {
		sw := get(s.ID)
		above := sw.y < nvs.y
		if above && sw.y <= cpu0.y+cpu0.h || !above && sw.y+sw.h >= cpu1.y {
			t.Errorf("%s %+v not between its CPU and the bar", s.ID, sw)
		}
		for _, m := range s.Members {
			d := get(m)
			if above && (d.y <= sw.y+sw.h || d.y+d.h >= nvs.y) || !above && (d.y+d.h >= sw.y || d.y <= nvs.y+nvs.h) {
				t.Errorf("%s %+v not between its switch %s %+v and the bar", m, d, s.ID, sw)
			}
		}
	}
	for i := range topo.GPUs {
		g, n := get("GPU"+strconv.Itoa(i)), get("NIC"+strconv.Itoa(i))
		if g.y != n.y || n.x-(g.x+g.w) > float64(hGap) || n.x < g.x {
			t.Errorf("GPU%d and NIC%d not adjacent: %+v %+v", i, i, g, n)
		}
		if nvs.x > g.x || nvs.x+nvs.w < g.x+g.w {
			t.Errorf("NVSwitch bar %+v not beside GPU%d %+v", nvs, i, g)
		}
		if i < 4 && g.y+g.h >= nvs.y || i >= 4 && g.y <= nvs.y+nvs.h {
			t.Errorf("GPU%d %+v on the wrong socket's side of the bar %+v", i, g, nvs)
		}
	}
}

// TestFakeMachinesFitCell holds every fake machine's drawing to what a
// notebook cell shows at natural size: at most 1,000 px wide, every text
// inside the picture and clear of every other.
func TestFakeMachinesFitCell(t *testing.T) {
	for _, name := range published.Names() {
		t.Run(name, func(t *testing.T) {
			m, err := published.ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			topo := fakeTopology(t, m)
			svg, err := SVG(context.Background(), topo)
			if err != nil {
				t.Fatal(err)
			}
			checkFits(t, checkDrawing(t, topo, svg))
		})
	}
}

// checkFits holds a drawing to the cell: at most maxWidth wide, every text
// inside the picture and clear of every other.
func checkFits(t *testing.T, p parsed) {
	t.Helper()
	if p.width > maxWidth {
		t.Errorf("%g px wide, want at most %d", p.width, maxWidth)
	}
	t.Logf("%gx%g", p.width, p.height)
	for i, a := range p.textRects {
		if a.x < 0 || a.y < 0 || a.x+a.w > p.width || a.y+a.h > p.height {
			t.Errorf("text %q at %+v lies outside the %gx%g picture", a.id, a, p.width, p.height)
		}
		for _, b := range p.textRects[i+1:] {
			if a.overlaps(b) {
				t.Errorf("texts overlap: %q %+v and %q %+v", a.id, a, b.id, b)
			}
		}
	}
}

// TestStackedSockets: sockets too wide side by side are stacked even
// without an NVSwitch fabric, each SMP link in its own lane on the left.
func TestStackedSockets(t *testing.T) {
	for _, sockets := range []int{2, 3} {
		topo := &probes.Topology{Source: "synthetic: PCIe sockets"}
		for s := 0; s < sockets; s++ {
			numa := "NUMA" + strconv.Itoa(s)
			topo.NUMANodes = append(topo.NUMANodes, probes.NUMANode{ID: s, CPUs: "0-63"})
			for o := 0; o < s; o++ {
				topo.Links = append(topo.Links, probes.Link{Kind: probes.LinkSMP, A: "NUMA" + strconv.Itoa(o), B: numa})
			}
			for i := 0; i < 8; i++ {
				g := s*8 + i
				topo.GPUs = append(topo.GPUs, probes.GPU{Index: g, Name: "NVIDIA L40S", NUMANode: s})
				sw := "PCISW" + strconv.Itoa(g/2)
				if g%2 == 0 {
					topo.Switches = append(topo.Switches, probes.PCISwitch{ID: sw})
					topo.Links = append(topo.Links, probes.Link{Kind: probes.LinkPCIe, A: sw, B: numa, Version: 5, Width: 16})
				}
				topo.Links = append(topo.Links, probes.Link{Kind: probes.LinkPCIe, A: "GPU" + strconv.Itoa(g), B: sw, Version: 4, Width: 16})
			}
		}
		t.Run(strconv.Itoa(sockets), func(t *testing.T) {
			svg, err := SVG(context.Background(), topo)
			if err != nil {
				t.Fatal(err)
			}
			p := checkDrawing(t, topo, svg)
			checkFits(t, p)
			if n := strings.Count(string(svg), `class="smp"`); n != sockets*(sockets-1)/2 {
				t.Errorf("%d SMP links drawn, want %d", n, sockets*(sockets-1)/2)
			}
			prev := -1.0
			for s := 0; s < sockets; s++ {
				b, _ := p.box("NUMA" + strconv.Itoa(s))
				if b.y <= prev {
					t.Errorf("NUMA%d at y %g, not below the one before (%g)", s, b.y, prev)
				}
				prev = b.y
			}
		})
	}
}

// synthetic builds an input topology (not a measurement): gpus GPUs under
// one CPU, a PCIe switch per pair, direct NVLinks between pairs.
func synthetic(gpus int) *probes.Topology {
	t := &probes.Topology{Source: "synthetic <test> & \"input\"", NUMANodes: []probes.NUMANode{{ID: 0}}}
	for i := 0; i < gpus; i++ {
		t.GPUs = append(t.GPUs, probes.GPU{Index: i, Name: "Test GPU", NUMANode: 0})
		sw := "PCISW" + strconv.Itoa(i/2)
		if i%2 == 0 {
			t.Switches = append(t.Switches, probes.PCISwitch{ID: sw})
			t.Links = append(t.Links, probes.Link{Kind: probes.LinkPCIe, A: sw, B: "NUMA0", Version: 5, Width: 16})
		}
		t.Links = append(t.Links, probes.Link{Kind: probes.LinkPCIe, A: "GPU" + strconv.Itoa(i), B: sw, Version: 4, Width: 16})
		if i%2 == 1 {
			t.Links = append(t.Links, probes.Link{Kind: probes.LinkNVLink, A: "GPU" + strconv.Itoa(i-1), B: "GPU" + strconv.Itoa(i), Count: 4})
		}
	}
	return t
}

func TestWidthGrowsWithLeaves(t *testing.T) {
	prev := 0.0
	for _, n := range []int{2, 4, 8, 16} {
		topo := synthetic(n)
		svg, err := SVG(context.Background(), topo)
		if err != nil {
			t.Fatal(err)
		}
		p := checkDrawing(t, topo, svg)
		if p.width <= prev {
			t.Errorf("%d GPUs: width %g, not wider than %g", n, p.width, prev)
		}
		prev = p.width
		if !p.hasText("NV4") || !p.hasText("PCIe Gen4 x16") {
			t.Errorf("%d GPUs: NVLink or PCIe labels missing", n)
		}
	}
}

// TestOddTopologies feeds inputs no real source gives; the drawing must
// still be well-formed, complete and free of overlaps.
func TestOddTopologies(t *testing.T) {
	gpu := func(i int) probes.GPU { return probes.GPU{Index: i, NUMANode: -1} }
	cases := []struct {
		name string
		topo *probes.Topology
		want []string
	}{
		{"empty", &probes.Topology{}, []string{"topology"}},
		{"devices without links", &probes.Topology{GPUs: []probes.GPU{gpu(0), gpu(1)}, NICs: []probes.NIC{{Index: 0, Name: "mlx5_0", NUMANode: -1}}}, []string{"GPU1", "NIC0 mlx5_0"}},
		{"cycle and self link", &probes.Topology{GPUs: []probes.GPU{gpu(0)}, Links: []probes.Link{
			{Kind: probes.LinkPCIe, A: "PCISW0", B: "PCISW1"}, {Kind: probes.LinkPCIe, A: "PCISW1", B: "PCISW0"},
			{Kind: probes.LinkPCIe, A: "GPU0", B: "GPU0"}, {Kind: probes.LinkPCIe, A: "GPU0", B: "PCISW0"}}}, []string{"links not drawn:", "PCISW1 – PCISW0: PCIe"}},
		{"device as a parent", &probes.Topology{GPUs: []probes.GPU{gpu(0), gpu(1)}, Links: []probes.Link{
			{Kind: probes.LinkPCIe, A: "GPU1", B: "GPU0", Version: 4, Width: 8}}}, []string{"GPU1 – GPU0: PCIe Gen4 x8"}},
		{"three sockets", &probes.Topology{NUMANodes: []probes.NUMANode{{ID: 0}, {ID: 1}, {ID: 2}}, Links: []probes.Link{
			{Kind: probes.LinkSMP, A: "NUMA0", B: "NUMA1"}, {Kind: probes.LinkSMP, A: "NUMA0", B: "NUMA2"}, {Kind: probes.LinkSMP, A: "NUMA1", B: "NUMA2"}}}, []string{"NUMA 2 · CPU", "SYS (UPI/xGMI)"}},
		{"nested switches and unknown parts", &probes.Topology{GPUs: []probes.GPU{gpu(0), gpu(1)}, Links: []probes.Link{
			{Kind: probes.LinkPCIe, A: "GPU0", B: "PCISW1", Version: 5, Width: 16}, {Kind: probes.LinkPCIe, A: "PCISW1", B: "PCISW0"},
			{Kind: probes.LinkPCIe, A: "GPU1", B: "CPU"}, {Kind: probes.LinkPCIe, A: "PCISW0", B: "CPU"},
			{Kind: probes.LinkNet, A: "NIC9", B: "fabric"}, {Kind: probes.LinkNVLink, A: "GPU0", B: "CPU", Count: 2}}},
			[]string{"GPU0 – CPU: NVLink ×2", "fabric"}},
		{"escaped text", &probes.Topology{Host: `<a href="x">&`, GPUs: []probes.GPU{{Index: 0, Name: "<GPU> & 'co'", NUMANode: -1}}}, []string{`<a href="x">&`, "GPU0 <GPU> & 'co'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svg, err := SVG(context.Background(), c.topo)
			if err != nil {
				t.Fatal(err)
			}
			p := checkDrawing(t, c.topo, svg)
			for _, s := range c.want {
				if !p.hasText(s) {
					t.Errorf("drawing lacks %q", s)
				}
			}
		})
	}
}

func TestSVGErrors(t *testing.T) {
	if _, err := SVG(context.Background(), nil); !errors.Is(err, errNilTopology) {
		t.Errorf("nil topology: %v, want errNilTopology", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SVG(ctx, synthetic(2)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

// TestSVGLeavesInputAlone: drawing a matrix-only topology infers the
// graph on a copy.
func TestSVGLeavesInputAlone(t *testing.T) {
	topo := fakeTopology(t, published.PCIeBox())
	topo.Links, topo.Switches = nil, nil
	if _, err := SVG(context.Background(), topo); err != nil {
		t.Fatal(err)
	}
	if len(topo.Links) != 0 || len(topo.Switches) != 0 {
		t.Errorf("SVG changed its input: %d links, %d switches", len(topo.Links), len(topo.Switches))
	}
}

func TestWriteSVGAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topo.svg")
	topo := fakeTopology(t, published.PCIeBox())
	if err := WriteSVG(context.Background(), topo, path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left %d files, want only topo.svg", len(entries))
	}
	got, _ := os.ReadFile(path)
	want, _ := SVG(context.Background(), topo)
	if !bytes.Equal(got, want) {
		t.Error("file differs from SVG's bytes")
	}
	if err := WriteSVG(context.Background(), topo, filepath.Join(dir, "missing", "x.svg")); err == nil {
		t.Error("write into a missing directory: want an error")
	}
}

// FuzzSVG draws topologies decoded from JSON: no panic, always well-formed
// and free of overlapping boxes.
func FuzzSVG(f *testing.F) {
	if data, err := os.ReadFile(recordedH200); err == nil {
		f.Add(data)
	}
	for _, m := range []*published.Machine{published.HGXH200(), published.PCIeBox()} {
		topo := fakeTopology(f, m)
		data, _ := json.Marshal(topo)
		f.Add(data)
	}
	data, _ := json.Marshal(synthetic(4))
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		var topo probes.Topology
		if json.Unmarshal(data, &topo) != nil {
			return
		}
		if len(topo.GPUs)+len(topo.NICs)+len(topo.Links)+len(topo.Switches)+len(topo.NUMANodes) > 200 {
			return
		}
		svg, err := SVG(context.Background(), &topo)
		if err != nil {
			t.Fatal(err)
		}
		checkDrawing(t, &topo, svg)
	})
}
