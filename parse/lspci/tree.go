package lspci

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
	"github.com/commlab/commlab/probes"
)

// TreeDevice is one PCI function of an `lspci -t` tree.
type TreeDevice struct {
	Address string `json:"address"` // "0000:41:00.0"
	// Name is what `lspci -tv` prints after the address; empty under -t.
	Name string `json:"name,omitempty"`
	// Host names the root bus the device hangs from ("0000:40"): devices
	// under different roots meet only inside the CPU, across host bridges.
	Host string `json:"host"`
	// Chain lists the bridges from the root port down to the device, the
	// device itself left out (the convention of probes.PCIeLevel).
	Chain []string `json:"chain,omitempty"`
	// Bridge is set for PCI-to-PCI bridges (root ports, switch ports):
	// lspci prints their secondary bus range, [SS] or [SS-EE], after them.
	Bridge bool `json:"bridge,omitempty"`
	// Secondary is the first bus below a bridge, -1 for other functions.
	Secondary int `json:"secondary"`
}

// Tree is a parsed `lspci -t` or `lspci -tv`: every function with its
// place in the PCI hierarchy.
type Tree struct {
	Devices []TreeDevice `json:"devices"`
	// Roots are the root buses in the order lspci printed them.
	Roots []string `json:"roots"`
	// Verbose is true when lspci printed device names (-tv).
	Verbose bool `json:"verbose,omitempty"`
}

var (
	// rootRE matches a root bus: "[0000:40]" or, from old pciutils, "[40]".
	rootRE = regexp.MustCompile(`^\[(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2})\]`)
	// devRE matches a function and what follows it: "01.1", then a bridge's
	// "-[41]--" or "-[05-10]--", or a name after two spaces.
	devRE   = regexp.MustCompile(`^([0-9a-fA-F]{2})\.([0-7])`)
	rangeRE = regexp.MustCompile(`^-\[([0-9a-fA-F]{2})(?:-([0-9a-fA-F]{2}))?\]--`)
)

// busContext is what the children printed from one column hang from.
type busContext struct {
	domain string
	bus    int
	host   string
	chain  []string
}

// ParseTree reads the tree `lspci -t` prints (`lspci -tv` adds names). The
// tree is drawn in columns: every line continues the lines above it from
// the column where its first connector ("+-", "\-" or "--") stands, so a
// device's bus and its chain of bridges come from the column it starts in.
// Text before the first root (a prompt, the command) and after the tree is
// skipped; a line that continues no bus is an error naming the line, and
// the devices read before it are returned with it. Input with no root bus
// at all is not a tree (parse.ErrFormat).
func ParseTree(r io.Reader) (*Tree, error) {
	lines, err := textinput.Read(r)
	if err != nil {
		return nil, fmt.Errorf("lspci: %w", err)
	}
	t := &Tree{}
	cols := map[int]busContext{} // column of a children connector -> its bus
	started := false
	var errs []error
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r \t")
		lineNo := i + 1
		start := strings.IndexFunc(line, func(c rune) bool { return c != ' ' && c != '|' })
		if start < 0 {
			if started && strings.TrimSpace(line) == "" {
				// A blank line ends the tree.
				break
			}
			continue
		}
		rest := line[start:]
		if !started {
			// The tree starts with "-[", "-+-[" (several roots) or "[".
			if !rootRE.MatchString(strings.TrimLeft(rest, "-+")) {
				continue
			}
			started = true
		}
		if !treeLine(rest) {
			break // text after the tree
		}
		if err := t.parseLine(line, start, cols); err != nil {
			errs = append(errs, &parse.Error{Format: "lspci", Line: lineNo, Msg: err.Error(), Err: parse.ErrFormat})
			break
		}
	}
	if len(t.Roots) == 0 {
		return nil, &parse.Error{Format: "lspci", Msg: "no root bus such as -[0000:00]- (want lspci -t or lspci -tv output)", Err: parse.ErrFormat}
	}
	sort.SliceStable(t.Devices, func(i, j int) bool { return t.Devices[i].Address < t.Devices[j].Address })
	if len(errs) > 0 {
		return t, errs[0]
	}
	return t, nil
}

// treeLine says whether text from a line's first drawn column belongs to
// a tree: a root or a connector.
func treeLine(rest string) bool {
	for _, p := range []string{"+-", "\\-", "--", "-[", "-+-[", "["} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// parseLine reads one line from column start: a root bus (possibly after
// its "+-"/"\-" connector) or a device under the bus whose children start
// at that column, then, for a bridge, its first child on the same line.
func (t *Tree) parseLine(line string, start int, cols map[int]busContext) error {
	pos := start
	rest := line[pos:]
	// A root: "-[0000:00]-", "-+-[0000:00]-", " +-[0000:20]-", " \-[0000:e0]-".
	if r := strings.TrimLeft(rest, "-+\\"); rootRE.MatchString(r) {
		m := rootRE.FindStringSubmatch(r)
		domain := strings.ToLower(m[1])
		if domain == "" {
			domain = "0000"
		}
		bus, _ := strconv.ParseInt(m[2], 16, 32)
		host := fmt.Sprintf("%s:%02x", domain, bus)
		t.Roots = append(t.Roots, host)
		pos += len(rest) - len(r) + len(m[0])
		if pos >= len(line) {
			return nil // a root bus with nothing printed under it
		}
		if line[pos] != '-' {
			return fmt.Errorf("want '-' after root %s, found %q", host, line[pos:])
		}
		pos++
		ctx := busContext{domain: domain, bus: int(bus), host: host}
		cols[pos] = ctx
		return t.parseChildren(line, pos, ctx, cols)
	}
	ctx, ok := cols[pos]
	if !ok {
		return fmt.Errorf("%q at column %d continues no bus printed above it", strings.TrimSpace(rest), pos+1)
	}
	return t.parseChildren(line, pos, ctx, cols)
}

// parseChildren reads a connector and the device after it, recursing into
// a bridge's first child.
func (t *Tree) parseChildren(line string, pos int, ctx busContext, cols map[int]busContext) error {
	if pos >= len(line) {
		return nil
	}
	conn := line[pos:min(pos+2, len(line))]
	if conn != "+-" && conn != "\\-" && conn != "--" {
		return fmt.Errorf("want a connector +-, \\- or -- at column %d, found %q", pos+1, line[pos:])
	}
	pos += 2
	m := devRE.FindStringSubmatch(line[pos:])
	if m == nil {
		return fmt.Errorf("want a device dd.f at column %d, found %q", pos+1, line[pos:])
	}
	dev, _ := strconv.ParseInt(m[1], 16, 32)
	d := TreeDevice{
		Address:   fmt.Sprintf("%s:%02x:%02x.%s", ctx.domain, ctx.bus, dev, m[2]),
		Host:      ctx.host,
		Chain:     append([]string(nil), ctx.chain...),
		Secondary: -1,
	}
	pos += len(m[0])
	if r := rangeRE.FindStringSubmatch(line[pos:]); r != nil {
		sec, _ := strconv.ParseInt(r[1], 16, 32)
		if int(sec) <= ctx.bus {
			// Buses are numbered downwards from the root: a bridge's own bus
			// below it is a damaged tree, and would make it its own parent.
			return fmt.Errorf("bridge %s: secondary bus %02x is not below bus %02x", d.Address, sec, ctx.bus)
		}
		d.Bridge, d.Secondary = true, int(sec)
		t.Devices = append(t.Devices, d)
		pos += len(r[0])
		child := busContext{domain: ctx.domain, bus: int(sec), host: ctx.host, chain: append(append([]string(nil), ctx.chain...), d.Address)}
		cols[pos] = child
		return t.parseChildren(line, pos, child, cols)
	}
	name := strings.TrimSpace(line[pos:])
	if name != "" && !strings.HasPrefix(line[pos:], " ") {
		return fmt.Errorf("unexpected %q after device %s", line[pos:], d.Address)
	}
	if name != "" {
		d.Name = name
		t.Verbose = true
	}
	t.Devices = append(t.Devices, d)
	return nil
}

// Device returns the function at an address ("0000:41:00.0", or "41:00.0"
// for domain 0).
func (t *Tree) Device(addr string) (TreeDevice, bool) {
	addr = normalize(addr)
	for _, d := range t.Devices {
		if d.Address == addr {
			return d, true
		}
	}
	return TreeDevice{}, false
}

// Level is the path type nvidia-smi's topology matrix prints between two
// functions of the tree (probes.PCIeLevel): PIX, PXB, PHB, or, across root
// buses, NODE when numa puts both on one NUMA node and SYS otherwise.
// numa maps addresses to NUMA nodes (ParseNUMA); nil or a missing address
// counts as unknown, which makes devices under different roots SYS.
func (t *Tree) Level(a, b string, numa map[string]int) (probes.Level, error) {
	da, ok1 := t.Device(a)
	db, ok2 := t.Device(b)
	if !ok1 || !ok2 {
		return probes.LevelUnknown, fmt.Errorf("lspci: %s or %s is not in the tree", a, b)
	}
	na, nb := numaOf(numa, da.Address), numaOf(numa, db.Address)
	return probes.PCIeLevel(da.Host, da.Chain, na, db.Host, db.Chain, nb), nil
}

// numaOf is addr's NUMA node, or that of another function of the same
// device (all functions of a device share its link, so its node), or -1.
func numaOf(numa map[string]int, addr string) int {
	if n, ok := numa[addr]; ok {
		return n
	}
	slot, _, _ := strings.Cut(addr, ".")
	for a, n := range numa {
		if s, _, _ := strings.Cut(a, "."); s == slot {
			return n
		}
	}
	return -1
}

// TreeOptions says which functions of a tree are the GPUs and NICs of a
// topology, and where they sit. Under `lspci -t` (no names) GPUs and NICs
// must be listed; under -tv they are recognised by name when left empty.
type TreeOptions struct {
	// GPUs and NICs are addresses ("41:00.0" or "0000:41:00.0").
	GPUs, NICs []string
	// NUMA maps addresses to NUMA nodes (ParseNUMA); unknown: -1.
	NUMA map[string]int
}

// IsGPUName says whether a `lspci -tv` name is an NVIDIA GPU: NVIDIA's
// functions other than the audio, USB and bridge functions consumer
// boards carry and NVSwitches.
func IsGPUName(name string) bool {
	n := strings.ToLower(name)
	if !strings.Contains(n, "nvidia") {
		return false
	}
	for _, not := range []string{"audio", "usb", "ucsi", "bridge", "nvswitch", "connectx", "bluefield", "mellanox"} {
		if strings.Contains(n, not) {
			return false
		}
	}
	return true
}

// IsRDMANICName says whether a `lspci -tv` name is an RDMA-capable NIC of
// the kinds nvidia-smi's matrix lists as NICs: NVIDIA (Mellanox) ConnectX
// and BlueField network functions, Broadcom NetXtreme-E, AWS EFA. The
// bridges inside a ConnectX card and management functions are not NICs.
func IsRDMANICName(name string) bool {
	n := strings.ToLower(name)
	for _, not := range []string{"bridge", "management", "dma engine"} {
		if strings.Contains(n, not) {
			return false
		}
	}
	for _, is := range []string{"mellanox", "connectx", "bluefield", "netxtreme-e", "elastic fabric adapter"} {
		if strings.Contains(n, is) {
			return true
		}
	}
	return false
}

// marketingName is the name lspci gives in its last brackets, the one a
// product is sold under ("NVIDIA Corporation AD102GL [RTX 6000 Ada
// Generation]" is "RTX 6000 Ada Generation", "Mellanox Technologies MT2910
// Family [ConnectX-7]" is "ConnectX-7"); the whole name when it has none.
func marketingName(name string) string {
	end := strings.LastIndex(name, "]")
	start := strings.LastIndex(name[:max(end, 0)], "[")
	if end < 0 || start < 0 || end-start < 2 {
		return name
	}
	return name[start+1 : end]
}

// Topology turns the tree into a probes.Topology with the path matrix
// nvidia-smi topo -m would print between the GPUs and NICs: GPUs and NICs
// numbered in bus order (nvidia-smi's GPU order; NIC names there come from
// the RDMA driver and may be numbered otherwise) and named as sold (the
// text in lspci's last brackets), their NUMA nodes, and
// the graph inferred from the matrix for drawing.
func (t *Tree) Topology(o TreeOptions) (*probes.Topology, error) {
	gpus, nics := o.GPUs, o.NICs
	if len(gpus) == 0 && len(nics) == 0 {
		if !t.Verbose {
			return nil, fmt.Errorf("lspci: the tree has no device names (lspci -t): list the GPUs and NICs in TreeOptions")
		}
		for _, d := range t.Devices {
			switch {
			case d.Bridge:
			case IsGPUName(d.Name):
				gpus = append(gpus, d.Address)
			case IsRDMANICName(d.Name):
				nics = append(nics, d.Address)
			}
		}
	}
	var gpuDevs, nicDevs []TreeDevice
	for _, list := range []struct {
		addrs []string
		into  *[]TreeDevice
	}{{gpus, &gpuDevs}, {nics, &nicDevs}} {
		for _, a := range list.addrs {
			d, ok := t.Device(a)
			if !ok {
				return nil, fmt.Errorf("lspci: %s is not in the tree", a)
			}
			*list.into = append(*list.into, d)
		}
		sort.Slice(*list.into, func(i, j int) bool { return (*list.into)[i].Address < (*list.into)[j].Address })
	}
	if len(gpuDevs) == 0 {
		return nil, fmt.Errorf("lspci: no GPU in the tree")
	}
	topo := &probes.Topology{Source: "lspci -t"}
	if t.Verbose {
		topo.Source = "lspci -tv"
	}
	ids := map[string]string{}
	var order []TreeDevice
	for i, d := range gpuDevs {
		g := probes.GPU{Index: i, Name: marketingName(d.Name), BusID: d.Address, NUMANode: numaOf(o.NUMA, d.Address), MemoryNUMANode: -1}
		topo.GPUs = append(topo.GPUs, g)
		ids[d.Address] = g.ID()
		order = append(order, d)
	}
	for i, d := range nicDevs {
		n := probes.NIC{Index: i, Name: marketingName(d.Name), BusID: d.Address, NUMANode: numaOf(o.NUMA, d.Address)}
		topo.NICs = append(topo.NICs, n)
		ids[d.Address] = n.ID()
		order = append(order, d)
	}
	for _, d := range order {
		topo.AddDevice(ids[d.Address])
	}
	for i, a := range order {
		for _, b := range order[i+1:] {
			l := probes.PCIeLevel(a.Host, a.Chain, numaOf(o.NUMA, a.Address), b.Host, b.Chain, numaOf(o.NUMA, b.Address))
			topo.SetPath(ids[a.Address], ids[b.Address], probes.Path{Level: l})
		}
	}
	if o.NUMA == nil {
		topo.Notes = append(topo.Notes, "lspci: no NUMA nodes given, so devices under different root buses read SYS")
	}
	topo.InferGraph()
	return topo, nil
}
