package nvidiasmi

import (
	"strings"

	"github.com/commlab/commlab/probes"
)

// Topology turns the matrix into the probes.Topology it describes: the
// path matrix, the GPUs with their affinity columns, the NICs with their
// legend names, and a graph inferred from the matrix (see
// probes.Topology.InferGraph) so it can be drawn. In a notebook cell,
// m.Topology() as the last expression shows the drawing.
func (m *TopoMatrix) Topology() *probes.Topology {
	t := &probes.Topology{Source: "nvidia-smi topo -m"}
	for _, d := range m.Devices {
		t.AddDevice(d)
	}
	for i, row := range m.Cells {
		for j, c := range row {
			if p, err := probes.ParsePath(c); err == nil && c != "" && i < len(t.Paths) && j < len(t.Paths[i]) {
				t.Paths[i][j] = p
			}
		}
	}
	for _, g := range m.GPUs {
		t.GPUs = append(t.GPUs, probes.GPU{Index: g.Index, CPUAffinity: g.CPUAffinity, NUMANode: g.NUMAAffinity, MemoryNUMANode: g.GPUNUMAID})
	}
	for _, n := range m.NICs {
		t.NICs = append(t.NICs, probes.NIC{Index: n.Index, Name: n.Name, NUMANode: -1})
	}
	t.Notes = append(append([]string(nil), m.Notes...), "PCIe switches and NVLink fabric inferred from the matrix")
	t.InferGraph()
	return t
}

// String prints the path matrix as nvidia-smi does: a header of devices,
// then one row per device, tab-separated, with X on the diagonal.
func (m *TopoMatrix) String() string {
	var b strings.Builder
	b.WriteString("\t" + strings.Join(m.Devices, "\t"))
	for i, d := range m.Devices {
		b.WriteString("\n" + d)
		for j := range m.Devices {
			c := ""
			if i < len(m.Cells) && j < len(m.Cells[i]) {
				c = m.Cells[i][j]
			}
			b.WriteString("\t" + c)
		}
	}
	return b.String()
}

// String is the query's Summary, as fmt.Println and a notebook's
// text/plain show it.
func (r *Query) String() string { return strings.TrimRight(r.Summary(), "\n") }
