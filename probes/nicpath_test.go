package probes

import (
	"math"
	"strings"
	"testing"
)

var (
	gen5x16 = PCIeLink{GenCurrent: 5, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
	gen4x16 = PCIeLink{GenCurrent: 4, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
)

// machine builds a topology from a compact matrix: gpus GPUs with the
// given PCIe links (nil: unknown), nics NICs with port rates in Gb/s (0:
// unknown), and the cells of the upper triangle by device pair.
func machine(gpuLinks []PCIeLink, nicGbps []float64, cells map[[2]string]string) *Topology {
	t := &Topology{Source: "test"}
	for i, l := range gpuLinks {
		t.GPUs = append(t.GPUs, GPU{Index: i, PCIe: l, NUMANode: -1, MemoryNUMANode: -1})
		t.AddDevice(t.GPUs[i].ID())
	}
	for i, g := range nicGbps {
		n := NIC{Index: i, Name: "mlx5_" + string(rune('0'+i)), NUMANode: -1}
		if g > 0 {
			n.PCIe = gen5x16
			n.Ports = []RDMAPort{{Port: 1, State: "ACTIVE", RateGbps: g}}
		}
		t.NICs = append(t.NICs, n)
		t.AddDevice(n.ID())
	}
	for pair, cell := range cells {
		p, err := ParsePath(cell)
		if err != nil {
			panic(err)
		}
		t.SetPath(pair[0], pair[1], p)
	}
	return t
}

// all joins every pair of the devices at cell.
func all(cells map[[2]string]string, cell string, devices ...string) map[[2]string]string {
	for i, a := range devices {
		for _, b := range devices[i+1:] {
			cells[[2]string{a, b}] = cell
		}
	}
	return cells
}

func TestNICPathsSynthetic(t *testing.T) {
	type want struct{ nic, path, gdr, pxn string }
	tests := []struct {
		name string
		topo *Topology
		gdr  Level
		want []want // one per GPU; gdr "yes"/"no"
	}{
		{
			name: "SYS-only NIC: no GPUDirect, no relay closer",
			topo: machine([]PCIeLink{gen5x16, gen5x16}, []float64{400},
				all(map[[2]string]string{{"GPU0", "NIC0"}: "SYS", {"GPU1", "NIC0"}: "SYS"}, "NV18", "GPU0", "GPU1")),
			want: []want{{"NIC0", "SYS", "no", ""}, {"NIC0", "SYS", "no", ""}},
		},
		{
			name: "PXN: GPU1 sends through GPU0, whose NIC is PIX",
			topo: machine([]PCIeLink{gen5x16, gen5x16}, []float64{400},
				map[[2]string]string{{"GPU0", "GPU1"}: "NV4", {"GPU0", "NIC0"}: "PIX", {"GPU1", "NIC0"}: "SYS"}),
			want: []want{{"NIC0", "PIX", "yes", ""}, {"NIC0", "SYS", "no", "GPU0"}},
		},
		{
			name: "no PXN without NVLink",
			topo: machine([]PCIeLink{gen5x16, gen5x16}, []float64{400},
				map[[2]string]string{{"GPU0", "GPU1"}: "SYS", {"GPU0", "NIC0"}: "PIX", {"GPU1", "NIC0"}: "SYS"}),
			want: []want{{"NIC0", "PIX", "yes", ""}, {"NIC0", "SYS", "no", ""}},
		},
		{
			name: "PXN for speed: GPU1's link trained at Gen4",
			topo: machine([]PCIeLink{gen5x16, gen4x16}, []float64{400},
				map[[2]string]string{{"GPU0", "GPU1"}: "NV18", {"GPU0", "NIC0"}: "PXB", {"GPU1", "NIC0"}: "PXB"}),
			want: []want{{"NIC0", "PXB", "yes", ""}, {"NIC0", "PXB", "yes", "GPU0"}},
		},
		{
			name: "four GPUs share four NICs: device bits mirrored",
			topo: machine([]PCIeLink{{}, {}, {}, {}}, []float64{0, 0, 0, 0},
				all(map[[2]string]string{}, "PXB", "GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1", "NIC2", "NIC3")),
			want: []want{{"NIC0", "PXB", "yes", ""}, {"NIC2", "PXB", "yes", ""}, {"NIC1", "PXB", "yes", ""}, {"NIC3", "PXB", "yes", ""}},
		},
		{
			name: "three GPUs share three NICs: device index modulo",
			topo: machine([]PCIeLink{{}, {}, {}}, []float64{0, 0, 0},
				all(map[[2]string]string{}, "NODE", "GPU0", "GPU1", "GPU2", "NIC0", "NIC1", "NIC2")),
			want: []want{{"NIC0", "NODE", "no", ""}, {"NIC1", "NODE", "no", ""}, {"NIC2", "NODE", "no", ""}},
		},
		{
			name: "PHB and NODE tie as NCCL's PHB",
			topo: machine([]PCIeLink{{}, {}}, []float64{0, 0},
				map[[2]string]string{{"GPU0", "GPU1"}: "PHB", {"GPU0", "NIC0"}: "NODE", {"GPU0", "NIC1"}: "PHB",
					{"GPU1", "NIC0"}: "NODE", {"GPU1", "NIC1"}: "PHB", {"NIC0", "NIC1"}: "NODE"}),
			want: []want{{"NIC0", "NODE", "no", ""}, {"NIC1", "PHB", "no", ""}},
		},
		{
			name: "NCCL_NET_GDR_LEVEL=PHB allows NODE, not SYS",
			topo: machine([]PCIeLink{{}, {}}, []float64{0, 0},
				map[[2]string]string{{"GPU0", "GPU1"}: "SYS", {"GPU0", "NIC0"}: "NODE", {"GPU0", "NIC1"}: "SYS",
					{"GPU1", "NIC0"}: "SYS", {"GPU1", "NIC1"}: "SYS", {"NIC0", "NIC1"}: "SYS"}),
			gdr:  LevelPHB,
			want: []want{{"NIC0", "NODE", "yes", ""}, {"NIC1", "SYS", "no", ""}},
		},
		{
			name: "the faster of two equally close NICs",
			topo: machine([]PCIeLink{gen5x16}, []float64{200, 400},
				map[[2]string]string{{"GPU0", "NIC0"}: "PXB", {"GPU0", "NIC1"}: "PXB"}),
			want: []want{{"NIC1", "PXB", "yes", ""}},
		},
		{
			name: "speeds unknown for one NIC: closeness alone",
			topo: machine([]PCIeLink{gen5x16}, []float64{0, 400},
				map[[2]string]string{{"GPU0", "NIC0"}: "PXB", {"GPU0", "NIC1"}: "PXB"}),
			want: []want{{"NIC0", "PXB", "yes", ""}},
		},
		{
			name: "NCCL_NET_GDR_LEVEL=PIX refuses PXB",
			topo: machine([]PCIeLink{{}}, []float64{0}, map[[2]string]string{{"GPU0", "NIC0"}: "PXB"}),
			gdr:  LevelPIX,
			want: []want{{"NIC0", "PXB", "no", ""}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.topo.NICPaths(tc.gdr)
			if len(got) != len(tc.want) {
				t.Fatalf("%d rows, want %d:\n%s", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				gdr := map[bool]string{true: "yes", false: "no"}[g.GDR]
				if g.NIC != w.nic || g.Path.String() != w.path || gdr != w.gdr || g.PXN != w.pxn {
					t.Errorf("%s: %s %s gdr %s pxn %q; want %s %s gdr %s pxn %q (%s)", g.GPU, g.NIC, g.Path, gdr, g.PXN, w.nic, w.path, w.gdr, w.pxn, g.Why)
				}
				if !strings.HasSuffix(g.Why, ".") || strings.Count(g.Why, ". ") > 0 {
					t.Errorf("%s: why is not one sentence: %q", g.GPU, g.Why)
				}
			}
		})
	}
}

func TestNICPathCeiling(t *testing.T) {
	down := machine([]PCIeLink{gen5x16}, []float64{400}, map[[2]string]string{{"GPU0", "NIC0"}: "PIX"})
	down.NICs[0].Ports[0].State = "DOWN"
	tests := []struct {
		name string
		topo *Topology
		want float64
	}{
		{"port slower than PCIe", machine([]PCIeLink{gen5x16}, []float64{400}, map[[2]string]string{{"GPU0", "NIC0"}: "PIX"}), 50},
		{"GPU trained at Gen4", machine([]PCIeLink{gen4x16}, []float64{400}, map[[2]string]string{{"GPU0", "NIC0"}: "PIX"}), PCIeGBps(4, 16)},
		{"down port not counted", down, PCIeGBps(5, 16)},
		{"nothing known", machine([]PCIeLink{{}}, []float64{0}, map[[2]string]string{{"GPU0", "NIC0"}: "PIX"}), 0},
	}
	for _, tc := range tests {
		if got := tc.topo.NICPaths(0)[0].CeilingGBps; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: ceiling %.3f GB/s, want %.3f", tc.name, got, tc.want)
		}
	}
}

func TestNICPathsWithoutNICs(t *testing.T) {
	none := machine([]PCIeLink{{}, {}}, nil, map[[2]string]string{{"GPU0", "GPU1"}: "PIX"})
	tab := none.NICPaths(0)
	if len(tab) != 2 || tab[0].NIC != "" || tab[0].Why != whyNoNIC {
		t.Errorf("no NIC: %+v", tab)
	}
	if s := tab.String(); s != "no NIC in the topology: no GPU has a network path to other nodes" {
		t.Errorf("String: %q", s)
	}
	unknown := machine([]PCIeLink{{}}, []float64{0}, nil)
	if tab := unknown.NICPaths(0); tab[0].Why != whyNoPath || !strings.Contains(tab.String(), "no GPU has a path") {
		t.Errorf("no path: %+v %q", tab, tab.String())
	}
	if s := (&Topology{}).NICPaths(0).String(); s != "no GPU in the topology" {
		t.Errorf("empty: %q", s)
	}
}

func TestNICPathTableRenders(t *testing.T) {
	tab := machine([]PCIeLink{gen5x16, gen5x16}, []float64{400},
		map[[2]string]string{{"GPU0", "GPU1"}: "NV4", {"GPU0", "NIC0"}: "PIX", {"GPU1", "NIC0"}: "SYS"}).NICPaths(0)
	want := "GPU   NIC          path  ceiling  GPUDirect RDMA  PXN\n" +
		"GPU0  NIC0 mlx5_0  PIX   50 GB/s  yes             -\n" +
		"GPU1  NIC0 mlx5_0  SYS   50 GB/s  no              via GPU0"
	if got := tab.String(); got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
	h := tab.HTML()
	for _, s := range []string{"<th>GPUDirect RDMA</th>", "<td>via GPU0</td>", "GPU0 over NVLink", "<th>why</th>"} {
		if !strings.Contains(h, s) {
			t.Errorf("HTML lacks %q: %s", s, h)
		}
	}
	if strings.Contains(h, "GPU's") {
		t.Errorf("HTML not escaped: %s", h)
	}
}

func TestMirrorBits(t *testing.T) {
	for _, tc := range []struct{ v, n, want int }{{0, 4, 0}, {1, 4, 2}, {2, 4, 1}, {3, 4, 3}, {5, 4, 2}, {1, 2, 1}, {6, 8, 3}, {7, 1, 0}} {
		if got := mirrorBits(tc.v, tc.n); got != tc.want {
			t.Errorf("mirrorBits(%d, %d) = %d, want %d", tc.v, tc.n, got, tc.want)
		}
	}
}
