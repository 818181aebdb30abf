package ncclxml

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ErrEdit: an edit that names no known change or does not apply to the file.
var ErrEdit = errors.New("ncclxml: edit")

// Edits lists the topology edits ApplyEdit knows, with what each does; the
// seed's exercise (edit the dumped topology, run again with NCCL_TOPO_FILE).
var Edits = []struct{ Name, Does string }{
	{"nvlink-count=N", "set every GPU-to-GPU and GPU-to-NVSwitch <nvlink count> to N (0 removes the links; expected from NCCL's source: P2P falls back to PCIe or SHM, and LL128 is no longer enabled by default)"},
	{"nic-speed=MBPS", "set every <net speed> (Mb/s) to MBPS"},
	{"nic-remote-cpu", "move every <nic> under a new <cpu> with another NUMA id, as if the NICs sat on the other socket"},
	{"no-nic", "remove every <nic>"},
}

// ReadTree reads a topology or graph file as a plain element tree, for
// editing and writing back with WriteXML.
func ReadTree(r io.Reader) (*Node, error) {
	root, err := readTree(r)
	if err == nil && root == nil {
		err = notNCCL(0, "no XML element found")
	}
	return root, err
}

// WriteXML writes the tree in the layout NCCL's own dump uses (two spaces
// per level, attributes in name order, empty elements closed with "/>").
func (n *Node) WriteXML(w io.Writer) error {
	var b strings.Builder
	n.writeXML(&b, 0)
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("ncclxml: write: %w", err)
	}
	return nil
}

func (n *Node) writeXML(b *strings.Builder, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString("<" + n.Name)
	keys := slices.Sorted(maps.Keys(n.Attrs))
	for _, k := range keys {
		fmt.Fprintf(b, " %s=%q", k, xmlEscape(n.Attrs[k]))
	}
	if len(n.Children) == 0 {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">\n")
	for _, c := range n.Children {
		c.writeXML(b, depth+1)
	}
	b.WriteString(strings.Repeat("  ", depth) + "</" + n.Name + ">\n")
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// CheckEdit says whether edit names a known edit with a well-formed value,
// before any file is at hand.
func CheckEdit(edit string) error {
	name, value, hasValue := strings.Cut(strings.TrimSpace(edit), "=")
	for _, e := range Edits {
		known, _, takesValue := strings.Cut(e.Name, "=")
		if known != name {
			continue
		}
		if takesValue {
			if v, err := strconv.Atoi(value); !hasValue || err != nil || v < 0 {
				return fmt.Errorf("%w: %s needs a count, as in %s=2", ErrEdit, name, name)
			}
		} else if hasValue {
			return fmt.Errorf("%w: %s takes no value", ErrEdit, name)
		}
		return nil
	}
	var names []string
	for _, e := range Edits {
		names = append(names, e.Name)
	}
	return fmt.Errorf("%w: unknown edit %q (want %s)", ErrEdit, edit, strings.Join(names, ", "))
}

// ApplyEdit changes a topology tree (root <system>) as edit says (see
// Edits) and returns, in one line, what it changed. An edit that changes
// nothing is an error that says why (no <nvlink> on a one-GPU dump).
func ApplyEdit(root *Node, edit string) (string, error) {
	if root == nil || root.Name != "system" {
		return "", fmt.Errorf("%w: not a topology (<system>) file", ErrEdit)
	}
	if err := CheckEdit(edit); err != nil {
		return "", err
	}
	name, value, _ := strings.Cut(strings.TrimSpace(edit), "=")
	number, _ := strconv.Atoi(value) // CheckEdit read it: >= 0 where the edit takes a value
	switch name {
	case "nvlink-count":
		n := 0
		if number == 0 {
			n = removeAll(root, "nvlink")
		} else {
			n = setAll(root, "nvlink", "count", number)
		}
		switch {
		case n == 0:
			return "", fmt.Errorf("%w: no <nvlink> in this topology (one GPU, or GPUs without NVLink): nothing to lower", ErrEdit)
		case number == 0:
			return fmt.Sprintf("removed %s", elements(n, "nvlink")), nil
		}
		return fmt.Sprintf("set count=%d on %s", number, elements(n, "nvlink")), nil
	case "nic-speed":
		n := setAll(root, "net", "speed", number)
		if n == 0 {
			return "", fmt.Errorf("%w: no <net> in this topology", ErrEdit)
		}
		return fmt.Sprintf("set speed=%d Mb/s on %s", number, elements(n, "net")), nil
	case "no-nic":
		n := removeAll(root, "nic")
		if n == 0 {
			return "", fmt.Errorf("%w: no <nic> in this topology", ErrEdit)
		}
		return fmt.Sprintf("removed %s", elements(n, "nic")), nil
	}
	return moveNICsToNewCPU(root) // nic-remote-cpu, the one edit left
}

// elements counts elements by name: "1 <nic> element", "2 <nic> elements".
func elements(n int, name string) string {
	if n == 1 {
		return "1 <" + name + "> element"
	}
	return fmt.Sprintf("%d <%s> elements", n, name)
}

func walk(n, parent *Node, f func(n, parent *Node)) {
	f(n, parent)
	for _, c := range n.Children {
		walk(c, n, f)
	}
}

// setAll sets attr to value on every element called name below root and
// returns how many.
func setAll(root *Node, name, attr string, value int) int {
	set := 0
	walk(root, nil, func(n, _ *Node) {
		if n.Name == name {
			n.SetAttr(attr, strconv.Itoa(value))
			set++
		}
	})
	return set
}

// removeAll removes every element called name below root and returns how many.
func removeAll(root *Node, name string) int {
	removed := 0
	walk(root, nil, func(n, _ *Node) {
		kept := n.Children[:0]
		for _, c := range n.Children {
			if c.Name == name {
				removed++
				continue
			}
			kept = append(kept, c)
		}
		n.Children = kept
	})
	return removed
}

// moveNICsToNewCPU takes every <nic> out of where it is and puts them under
// a new <cpu> like the first one but with the next free NUMA id. A CPU with
// numaid -1 (a VM that reports no NUMA node) becomes 0, the new one 1.
func moveNICsToNewCPU(root *Node) (string, error) {
	var first *Node
	maxNUMA := -1
	for _, c := range root.Children {
		if c.Name != "cpu" {
			continue
		}
		if first == nil {
			first = c
		}
		if id, err := strconv.Atoi(c.Attr("numaid")); err == nil && id > maxNUMA {
			maxNUMA = id
		}
	}
	if first == nil {
		return "", fmt.Errorf("%w: no <cpu> in this topology", ErrEdit)
	}
	var nics []*Node
	walk(root, nil, func(n, _ *Node) {
		for _, c := range n.Children {
			if c.Name == "nic" {
				nics = append(nics, c)
			}
		}
	})
	if len(nics) == 0 {
		return "", fmt.Errorf("%w: no <nic> in this topology", ErrEdit)
	}
	removeAll(root, "nic")
	note := ""
	if first.Attr("numaid") == "-1" {
		first.SetAttr("numaid", "0")
		maxNUMA = 0
		note = " (numaid -1 of the existing CPU set to 0)"
	}
	cpu := &Node{Name: "cpu", Attrs: map[string]string{}, Closed: true}
	for k, v := range first.Attrs {
		cpu.Attrs[k] = v
	}
	cpu.Attrs["numaid"] = strconv.Itoa(maxNUMA + 1)
	cpu.Children = nics
	root.Children = append(root.Children, cpu)
	return fmt.Sprintf("moved %s under a new <cpu numaid=%q>%s", elements(len(nics), "nic"), cpu.Attrs["numaid"], note), nil
}
