package ncclxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/commlab/commlab/parse"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrTruncated: the document ends before its root element closes.
	ErrTruncated = errors.New("ncclxml: truncated input")
	// ErrMalformed: the XML is not well formed.
	ErrMalformed = errors.New("ncclxml: malformed XML")
)

// Node is one XML element as read: its name, attributes and children.
type Node struct {
	Name     string            `json:"name"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	Children []*Node           `json:"children,omitempty"`
	Line     int               `json:"line"`
	// Closed is false for an element the input ended inside.
	Closed bool `json:"closed"`
}

// Attr returns an attribute's value, "" when absent.
func (n *Node) Attr(name string) string { return n.Attrs[name] }

// SetAttr sets an attribute, on an element that had none too (a bare
// <nvlink/> parses with a nil map).
func (n *Node) SetAttr(name, value string) {
	if n.Attrs == nil {
		n.Attrs = map[string]string{}
	}
	n.Attrs[name] = value
}

// Document is a parsed file: System for a topology, Graphs for a graph
// dump; the other is nil.
type Document struct {
	Root   string  `json:"root"`
	System *System `json:"system,omitempty"`
	Graphs *Graphs `json:"graphs,omitempty"`
}

// Parse reads a topology or graph XML file. On an error it still returns
// what parsed.
func Parse(r io.Reader) (*Document, error) {
	root, err := readTree(r)
	doc := &Document{}
	if root == nil {
		if err == nil {
			err = notNCCL(0, "no XML element found")
		}
		return doc, err
	}
	doc.Root = root.Name
	switch root.Name {
	case "system":
		doc.System = systemFrom(root)
	case "graphs":
		doc.Graphs = graphsFrom(root)
	case "graph": // a single graph without the <graphs> wrapper
		doc.Graphs = &Graphs{Graphs: []Graph{graphFrom(root)}}
	default:
		return doc, errors.Join(err, notNCCL(root.Line, "root element <"+root.Name+">"))
	}
	return doc, err
}

// notNCCL is the error for a document that is not NCCL's: it wraps
// parse.ErrFormat.
func notNCCL(line int, what string) error {
	return &parse.Error{Format: "ncclxml", Line: line, Msg: "not an NCCL topology or graph file: " + what, Err: parse.ErrFormat}
}

// wrongRoot is err or, when parsing went well, the error for a document
// whose root element is not the one wanted.
func wrongRoot(err error, doc *Document, want string) error {
	if err != nil {
		return err
	}
	return notNCCL(0, "root element <"+doc.Root+">, want <"+want+">")
}

// ParseTopology reads an NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE.
func ParseTopology(r io.Reader) (*System, error) {
	doc, err := Parse(r)
	if doc.System == nil {
		return &System{}, wrongRoot(err, doc, "system")
	}
	return doc.System, err
}

// ParseGraphs reads an NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE.
func ParseGraphs(r io.Reader) (*Graphs, error) {
	doc, err := Parse(r)
	if doc.Graphs == nil {
		return &Graphs{}, wrongRoot(err, doc, "graphs")
	}
	return doc.Graphs, err
}

// readTree builds the element tree. A truncated or broken document keeps
// the elements read so far (open ones marked not Closed).
func readTree(r io.Reader) (*Node, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("ncclxml: read: %w", err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var root *Node
	var stack []*Node
	for {
		tok, err := dec.Token()
		line, _ := dec.InputPos()
		if err == io.EOF {
			if len(stack) > 0 {
				return root, &parse.Error{Format: "ncclxml", Line: line, Err: fmt.Errorf("%w: <%s> opened on line %d is not closed", ErrTruncated, stack[len(stack)-1].Name, stack[len(stack)-1].Line)}
			}
			return root, nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				line = se.Line
				if len(stack) > 0 && strings.Contains(se.Msg, "unexpected EOF") {
					open := stack[len(stack)-1]
					return root, &parse.Error{Format: "ncclxml", Line: line, Err: fmt.Errorf("%w: input ends inside <%s> opened on line %d", ErrTruncated, open.Name, open.Line)}
				}
				return root, &parse.Error{Format: "ncclxml", Line: line, Err: fmt.Errorf("%w: %s", ErrMalformed, se.Msg)}
			}
			return root, &parse.Error{Format: "ncclxml", Line: line, Err: fmt.Errorf("%w: %w", ErrMalformed, err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: t.Name.Local, Line: line}
			if len(t.Attr) > 0 {
				n.Attrs = make(map[string]string, len(t.Attr))
				for _, a := range t.Attr {
					n.Attrs[a.Name.Local] = a.Value
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return root, &parse.Error{Format: "ncclxml", Line: line, Err: fmt.Errorf("%w: second root element <%s>", ErrMalformed, n.Name)}
				}
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			stack[len(stack)-1].Closed = true
			stack = stack[:len(stack)-1]
		}
	}
}

// System is the <system> element of a topology file.
type System struct {
	Version string `json:"version,omitempty"`
	CPUs    []CPU  `json:"cpus"`
}

// CPU is a <cpu> element: a NUMA node and what hangs from it.
type CPU struct {
	NumaID   int    `json:"numa_id"`
	Affinity string `json:"affinity,omitempty"`
	Arch     string `json:"arch,omitempty"`
	Vendor   string `json:"vendor,omitempty"`
	FamilyID string `json:"family_id,omitempty"`
	ModelID  string `json:"model_id,omitempty"`
	HostHash string `json:"host_hash,omitempty"`
	PCIs     []PCI  `json:"pcis,omitempty"`
	// NICs directly under the CPU (NICs NCCL could not place on the PCI
	// tree, e.g. virtio network devices).
	NICs []NIC `json:"nics,omitempty"`
}

// PCI is a <pci> element: a bridge or switch (with nested PCIs) or an
// endpoint holding a GPU or NIC.
type PCI struct {
	BusID           string `json:"bus_id"`
	Class           string `json:"class,omitempty"`
	Vendor          string `json:"vendor,omitempty"`
	Device          string `json:"device,omitempty"`
	SubsystemVendor string `json:"subsystem_vendor,omitempty"`
	SubsystemDevice string `json:"subsystem_device,omitempty"`
	LinkSpeed       string `json:"link_speed,omitempty"`
	LinkWidth       int    `json:"link_width,omitempty"`
	Children        []PCI  `json:"children,omitempty"`
	GPU             *GPU   `json:"gpu,omitempty"`
	NIC             *NIC   `json:"nic,omitempty"`
	Line            int    `json:"line"`
}

// Kind names what the PCI class says the device is: "gpu" (0x0300xx,
// 0x0302xx), "nic" (0x0200xx Ethernet, 0x0207xx InfiniBand), "bridge"
// (0x0604xx), "nvswitch" (0x0680xx) or "other".
func (p *PCI) Kind() string {
	c := strings.TrimPrefix(strings.ToLower(p.Class), "0x")
	switch {
	case p.GPU != nil || strings.HasPrefix(c, "0300") || strings.HasPrefix(c, "0302"):
		return "gpu"
	case p.NIC != nil || strings.HasPrefix(c, "0200") || strings.HasPrefix(c, "0207"):
		return "nic"
	case strings.HasPrefix(c, "0604"):
		return "bridge"
	case strings.HasPrefix(c, "0680"):
		return "nvswitch"
	}
	return "other"
}

// GPU is a <gpu> element.
type GPU struct {
	Dev     int      `json:"dev"`
	SM      int      `json:"sm"`
	Rank    int      `json:"rank"`
	GDR     int      `json:"gdr"`
	NVLinks []NVLink `json:"nvlinks,omitempty"`
}

// NVLink is an <nvlink> element: Count links to Target (a GPU bus id, or
// an NVSwitch whose class TClass is 0x068000).
type NVLink struct {
	Target string `json:"target"`
	Count  int    `json:"count"`
	TClass string `json:"tclass,omitempty"`
}

// NIC is a <nic> element with its <net> ports.
type NIC struct {
	Nets []Net `json:"nets"`
}

// Net is a <net> element. Speed is in Mb/s as NCCL records it (400000
// for NDR 400 Gb/s).
type Net struct {
	Name    string  `json:"name"`
	Dev     int     `json:"dev"`
	Speed   int     `json:"speed_mbps"`
	Port    int     `json:"port"`
	Latency float64 `json:"latency,omitempty"`
	GUID    string  `json:"guid,omitempty"`
	MaxConn int     `json:"maxconn,omitempty"`
	GDR     int     `json:"gdr"`
}

func systemFrom(n *Node) *System {
	s := &System{Version: n.Attr("version")}
	for _, c := range n.Children {
		if c.Name != "cpu" {
			continue
		}
		cpu := CPU{NumaID: atoiDefault(c.Attr("numaid"), -1), Affinity: c.Attr("affinity"), Arch: c.Attr("arch"),
			Vendor: c.Attr("vendor"), FamilyID: c.Attr("familyid"), ModelID: c.Attr("modelid"), HostHash: c.Attr("host_hash")}
		for _, cc := range c.Children {
			switch cc.Name {
			case "pci":
				cpu.PCIs = append(cpu.PCIs, pciFrom(cc))
			case "nic":
				cpu.NICs = append(cpu.NICs, nicFrom(cc))
			}
		}
		s.CPUs = append(s.CPUs, cpu)
	}
	return s
}

func pciFrom(n *Node) PCI {
	p := PCI{BusID: n.Attr("busid"), Class: n.Attr("class"), Vendor: n.Attr("vendor"), Device: n.Attr("device"),
		SubsystemVendor: n.Attr("subsystem_vendor"), SubsystemDevice: n.Attr("subsystem_device"),
		LinkSpeed: n.Attr("link_speed"), LinkWidth: atoiDefault(n.Attr("link_width"), 0), Line: n.Line}
	for _, c := range n.Children {
		switch c.Name {
		case "pci":
			p.Children = append(p.Children, pciFrom(c))
		case "gpu":
			g := &GPU{Dev: atoiDefault(c.Attr("dev"), -1), SM: atoiDefault(c.Attr("sm"), 0), Rank: atoiDefault(c.Attr("rank"), -1), GDR: atoiDefault(c.Attr("gdr"), 0)}
			for _, l := range c.Children {
				if l.Name == "nvlink" {
					g.NVLinks = append(g.NVLinks, NVLink{Target: l.Attr("target"), Count: atoiDefault(l.Attr("count"), 0), TClass: l.Attr("tclass")})
				}
			}
			p.GPU = g
		case "nic":
			nic := nicFrom(c)
			p.NIC = &nic
		}
	}
	return p
}

func nicFrom(n *Node) NIC {
	var nic NIC
	for _, c := range n.Children {
		if c.Name != "net" {
			continue
		}
		lat, _ := strconv.ParseFloat(c.Attr("latency"), 64)
		nic.Nets = append(nic.Nets, Net{Name: c.Attr("name"), Dev: atoiDefault(c.Attr("dev"), -1), Speed: atoiDefault(c.Attr("speed"), 0),
			Port: atoiDefault(c.Attr("port"), 0), Latency: lat, GUID: c.Attr("guid"), MaxConn: atoiDefault(c.Attr("maxconn"), 0),
			GDR: atoiDefault(c.Attr("gdr"), 0)})
	}
	return nic
}

// PCIDevice is one <pci> element with where it sits.
type PCIDevice struct {
	PCI  PCI `json:"pci"`
	NUMA int `json:"numa"`
	// Path lists the bus ids of the bridges above it, root first.
	Path []string `json:"path"`
	Kind string   `json:"kind"`
}

// PCIDevices walks every <pci> element, depth first.
func (s *System) PCIDevices() []PCIDevice {
	var out []PCIDevice
	var walk func(p PCI, numa int, path []string)
	walk = func(p PCI, numa int, path []string) {
		leaf := p
		leaf.Children = nil
		out = append(out, PCIDevice{PCI: leaf, NUMA: numa, Path: append([]string(nil), path...), Kind: p.Kind()})
		for _, c := range p.Children {
			walk(c, numa, append(path, p.BusID))
		}
	}
	for _, cpu := range s.CPUs {
		for _, p := range cpu.PCIs {
			walk(p, cpu.NumaID, nil)
		}
	}
	return out
}

// GPUInfo is a GPU with its place in the tree. Dev, Rank and SM are -1 / 0
// when the file has a GPU-class <pci> without a <gpu> (hand-written
// NCCL_TOPO_FILEs).
type GPUInfo struct {
	BusID     string   `json:"bus_id"`
	Dev       int      `json:"dev"`
	Rank      int      `json:"rank"`
	SM        int      `json:"sm"`
	GDR       int      `json:"gdr"`
	NUMA      int      `json:"numa"`
	LinkSpeed string   `json:"link_speed,omitempty"`
	LinkWidth int      `json:"link_width,omitempty"`
	NVLinks   []NVLink `json:"nvlinks,omitempty"`
	Path      []string `json:"path"`
}

// GPUs lists the GPUs, ordered by device index then bus id.
func (s *System) GPUs() []GPUInfo {
	var out []GPUInfo
	for _, d := range s.PCIDevices() {
		if d.Kind != "gpu" {
			continue
		}
		g := GPUInfo{BusID: d.PCI.BusID, Dev: -1, Rank: -1, NUMA: d.NUMA, LinkSpeed: d.PCI.LinkSpeed, LinkWidth: d.PCI.LinkWidth, Path: d.Path}
		if d.PCI.GPU != nil {
			g.Dev, g.Rank, g.SM, g.GDR, g.NVLinks = d.PCI.GPU.Dev, d.PCI.GPU.Rank, d.PCI.GPU.SM, d.PCI.GPU.GDR, d.PCI.GPU.NVLinks
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Dev != out[j].Dev {
			return out[i].Dev < out[j].Dev
		}
		return out[i].BusID < out[j].BusID
	})
	return out
}

// NICInfo is a network port with its place in the tree. BusID is empty
// for a NIC hanging directly from a CPU.
type NICInfo struct {
	Net   Net      `json:"net"`
	BusID string   `json:"bus_id,omitempty"`
	NUMA  int      `json:"numa"`
	Path  []string `json:"path,omitempty"`
}

// NICs lists every <net> port, and NIC-class <pci> devices without one.
func (s *System) NICs() []NICInfo {
	var out []NICInfo
	for _, cpu := range s.CPUs {
		for _, nic := range cpu.NICs {
			for _, n := range nic.Nets {
				out = append(out, NICInfo{Net: n, NUMA: cpu.NumaID})
			}
		}
	}
	for _, d := range s.PCIDevices() {
		if d.Kind != "nic" {
			continue
		}
		if d.PCI.NIC == nil || len(d.PCI.NIC.Nets) == 0 {
			out = append(out, NICInfo{Net: Net{Dev: -1}, BusID: d.PCI.BusID, NUMA: d.NUMA, Path: d.Path})
			continue
		}
		for _, n := range d.PCI.NIC.Nets {
			out = append(out, NICInfo{Net: n, BusID: d.PCI.BusID, NUMA: d.NUMA, Path: d.Path})
		}
	}
	return out
}

// Graphs is the <graphs> element of a graph dump.
type Graphs struct {
	Version string  `json:"version,omitempty"`
	Graphs  []Graph `json:"graphs"`
}

// Graph is one <graph>: a search result NCCL built its channels from.
type Graph struct {
	ID           int       `json:"id"`
	Pattern      int       `json:"pattern"`
	PatternName  string    `json:"pattern_name"`
	CrossNic     int       `json:"cross_nic"`
	NChannels    int       `json:"nchannels"`
	SpeedIntra   float64   `json:"speed_intra"`
	SpeedInter   float64   `json:"speed_inter"`
	LatencyInter float64   `json:"latency_inter"`
	TypeIntra    string    `json:"type_intra"`
	TypeInter    string    `json:"type_inter"`
	SameChannels int       `json:"same_channels"`
	Channels     []Channel `json:"channels,omitempty"`
	Line         int       `json:"line"`
}

// Channel is one <channel>: the devices it visits in order.
type Channel struct {
	Steps []Step `json:"steps"`
}

// Step is a <net dev=N/> or <gpu dev=N/> in a channel.
type Step struct {
	Kind string `json:"kind"`
	Dev  int    `json:"dev"`
}

// GPUOrder returns the GPU devices of a channel in order.
func (c Channel) GPUOrder() []int {
	var out []int
	for _, s := range c.Steps {
		if s.Kind == "gpu" {
			out = append(out, s.Dev)
		}
	}
	return out
}

// Pattern names from NCCL src/graph/topo.h (NCCL_TOPO_PATTERN_*).
var patternNames = map[int]string{1: "BALANCED_TREE", 2: "SPLIT_TREE", 3: "TREE", 4: "RING", 5: "NVLS", 6: "COLLNET_DIRECT"}

func graphsFrom(n *Node) *Graphs {
	g := &Graphs{Version: n.Attr("version")}
	for _, c := range n.Children {
		if c.Name == "graph" {
			g.Graphs = append(g.Graphs, graphFrom(c))
		}
	}
	return g
}

func graphFrom(n *Node) Graph {
	pat := atoiDefault(n.Attr("pattern"), 0)
	g := Graph{ID: atoiDefault(n.Attr("id"), -1), Pattern: pat, PatternName: patternNames[pat],
		CrossNic: atoiDefault(n.Attr("crossnic"), 0), NChannels: atoiDefault(n.Attr("nchannels"), 0),
		SpeedIntra: atofFirst(n, "speedintra", "bwintra"), SpeedInter: atofFirst(n, "speedinter", "bwinter"),
		LatencyInter: atofFirst(n, "latencyinter"), TypeIntra: n.Attr("typeintra"), TypeInter: n.Attr("typeinter"),
		SameChannels: atoiDefault(n.Attr("samechannels"), 0), Line: n.Line}
	for _, c := range n.Children {
		if c.Name != "channel" {
			continue
		}
		var ch Channel
		for _, s := range c.Children {
			ch.Steps = append(ch.Steps, Step{Kind: s.Name, Dev: atoiDefault(s.Attr("dev"), -1)})
		}
		g.Channels = append(g.Channels, ch)
	}
	return g
}

func atofFirst(n *Node, names ...string) float64 {
	for _, name := range names {
		if v, ok := n.Attrs[name]; ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

func atoiDefault(s string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n
	}
	return def
}

// Edge is one connection of the topology tree, for drawing it: CPU to
// PCI, PCI to PCI, PCI to GPU or NIC port, and NVLink from a GPU to its
// target. Node names are "CPU/<numa>", PCI bus ids, "GPU/<dev>" (the bus id
// when dev is unknown) and "NET/<name>".
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Type is "PCI", "NVL" or "NET".
	Type string `json:"type"`
	// Count is the number of NVLinks; 1 otherwise.
	Count int `json:"count"`
	// Width and Speed describe the PCI link of the lower end.
	Width int    `json:"width,omitempty"`
	Speed string `json:"speed,omitempty"`
}

// Edges lists the topology as edges, depth first from each CPU.
func (s *System) Edges() []Edge {
	var out []Edge
	gpuName := func(p PCI) string {
		if p.GPU != nil && p.GPU.Dev >= 0 {
			return fmt.Sprintf("GPU/%d", p.GPU.Dev)
		}
		return p.BusID
	}
	var walk func(parent string, p PCI)
	walk = func(parent string, p PCI) {
		name := p.BusID
		if p.Kind() == "gpu" {
			name = gpuName(p)
		}
		out = append(out, Edge{From: parent, To: name, Type: "PCI", Count: 1, Width: p.LinkWidth, Speed: p.LinkSpeed})
		if p.GPU != nil {
			for _, l := range p.GPU.NVLinks {
				out = append(out, Edge{From: name, To: l.Target, Type: "NVL", Count: l.Count})
			}
		}
		if p.NIC != nil {
			for _, n := range p.NIC.Nets {
				out = append(out, Edge{From: name, To: "NET/" + n.Name, Type: "NET", Count: 1})
			}
		}
		for _, c := range p.Children {
			walk(name, c)
		}
	}
	for _, cpu := range s.CPUs {
		root := fmt.Sprintf("CPU/%d", cpu.NumaID)
		for _, p := range cpu.PCIs {
			walk(root, p)
		}
		for _, nic := range cpu.NICs {
			for _, n := range nic.Nets {
				out = append(out, Edge{From: root, To: "NET/" + n.Name, Type: "NET", Count: 1})
			}
		}
	}
	return out
}

// WriteSummary writes what a person reads first about an NCCL topology or
// graph file, starting with a line naming the input (file): for a topology
// its GPUs and NICs, for graphs each graph and its first channels.
func (doc *Document) WriteSummary(w io.Writer, file string) error {
	return parse.WriteBuffered(w, func(w io.Writer) {
		switch {
		case doc.System != nil:
			sys := doc.System
			fmt.Fprintf(w, "%s: NCCL topology, %d CPU (NUMA) node(s)\n", file, len(sys.CPUs))
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  GPU\tbusId\tsm\tnuma\tlink\tnvlinks\tpath\t")
			for _, g := range sys.GPUs() {
				links := 0
				for _, l := range g.NVLinks {
					links += l.Count
				}
				dev := "?"
				if g.Dev >= 0 {
					dev = fmt.Sprint(g.Dev)
				}
				link := strings.TrimSpace(g.LinkSpeed)
				if g.LinkWidth > 0 {
					link += fmt.Sprintf(" x%d", g.LinkWidth)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%d\t%s\t\n", dev, g.BusID, g.SM, g.NUMA, link, links, strings.Join(g.Path, " > "))
			}
			tw.Flush()
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  NIC\tbusId\tnuma\tspeed\tport\tgdr\t")
			for _, n := range sys.NICs() {
				name := n.Net.Name
				if name == "" {
					name = "(pci)"
				}
				speed := "-"
				if n.Net.Speed > 0 {
					speed = fmt.Sprintf("%g Gb/s", float64(n.Net.Speed)/1000)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%d\t\n", name, n.BusID, n.NUMA, speed, n.Net.Port, n.Net.GDR)
			}
			tw.Flush()
		case doc.Graphs != nil:
			fmt.Fprintf(w, "%s: NCCL graphs, %d graph(s)\n", file, len(doc.Graphs.Graphs))
			for _, g := range doc.Graphs.Graphs {
				fmt.Fprintf(w, "  graph %d: pattern %d %s, %d channels, speed %g/%g GB/s, type %s/%s, crossNic %d\n",
					g.ID, g.Pattern, g.PatternName, g.NChannels, g.SpeedIntra, g.SpeedInter, g.TypeIntra, g.TypeInter, g.CrossNic)
				for i, ch := range g.Channels {
					if i == 4 {
						fmt.Fprintf(w, "    ... %d more channels\n", len(g.Channels)-4)
						break
					}
					var steps []string
					for _, s := range ch.Steps {
						steps = append(steps, fmt.Sprintf("%s/%d", strings.ToUpper(s.Kind), s.Dev))
					}
					fmt.Fprintf(w, "    channel %d: %s\n", i, strings.Join(steps, " "))
				}
			}
		default:
			fmt.Fprintf(w, "%s: not an NCCL topology or graph file (root <%s>)\n", file, doc.Root)
		}
	})
}
