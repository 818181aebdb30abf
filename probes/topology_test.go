package probes

import (
	"encoding/json"
	"maps"
	"math"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want Path
		err  bool
	}{
		{" X ", Path{Level: LevelSelf}, false},
		{"NV18", Path{Level: LevelNVLink, NVLinks: 18}, false},
		{"NV1", Path{Level: LevelNVLink, NVLinks: 1}, false},
		{"PIX", Path{Level: LevelPIX}, false},
		{"PXB", Path{Level: LevelPXB}, false},
		{"PHB", Path{Level: LevelPHB}, false},
		{"NODE", Path{Level: LevelNODE}, false},
		{"SYS", Path{Level: LevelSYS}, false},
		{"SOC", Path{Level: LevelSYS}, false},
		{"NV", Path{}, true},
		{"NV0", Path{}, true},
		{"NVx", Path{}, true},
		{"", Path{}, true},
		{"FOO", Path{}, true},
	}
	for _, tc := range tests {
		got, err := ParsePath(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParsePath(%q) = %v, %v; want %v, err %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && tc.in != "SOC" && strings.TrimSpace(tc.in) != got.String() {
			t.Errorf("%q renders back as %q", tc.in, got.String())
		}
	}
}

func TestPathJSON(t *testing.T) {
	in := [][]Path{{{Level: LevelSelf}, {Level: LevelNVLink, NVLinks: 12}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[["X","NV12"]]` {
		t.Errorf("JSON %s", b)
	}
	var out [][]Path
	if err := json.Unmarshal(b, &out); err != nil || out[0][1] != in[0][1] {
		t.Errorf("round trip %v %v", out, err)
	}
	if err := json.Unmarshal([]byte(`["BAD"]`), new([]Path)); err == nil {
		t.Error("bad cell: want an error")
	}
}

func TestPCIeGBps(t *testing.T) {
	tests := []struct {
		gen, width int
		want       float64
	}{
		{3, 16, 15.754},
		{4, 16, 31.508},
		{5, 16, 63.015},
		{6, 16, 121.0},
		{1, 1, 0.25},
		{0, 16, 0},
		{9, 16, 0},
	}
	for _, tc := range tests {
		if got := PCIeGBps(tc.gen, tc.width); math.Abs(got-tc.want) > 0.01 {
			t.Errorf("PCIeGBps(%d, %d) = %.3f, want %.3f", tc.gen, tc.width, got, tc.want)
		}
	}
	l := PCIeLink{GenCurrent: 4, GenMax: 5, WidthCurrent: 16, WidthMax: 16}
	if l.String() != "Gen4 x16 (max Gen5 x16)" || l.MaxGBps() <= l.GBps() {
		t.Errorf("degraded link %s %.1f %.1f", l, l.GBps(), l.MaxGBps())
	}
}

func TestPCIeGenFromSpeed(t *testing.T) {
	tests := map[string]int{
		"32.0 GT/s PCIe": 5, "16.0 GT/s PCIe": 4, "8.0 GT/s PCIe": 3, "5.0 GT/s PCIe": 2,
		"2.5 GT/s PCIe": 1, "64.0 GT/s PCIe": 6, "Unknown": 0, "": 0, "0.0": 0,
	}
	for in, want := range tests {
		if got := PCIeGenFromSpeed(in); got != want {
			t.Errorf("PCIeGenFromSpeed(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestPCIeLevel(t *testing.T) {
	rp := "0000:15:01.0"
	usp, dspA, dspB := "0000:16:00.0", "0000:17:00.0", "0000:17:01.0"
	tests := []struct {
		name           string
		hostA, hostB   string
		chainA, chainB []string
		numaA, numaB   int
		want           Level
	}{
		{"one switch", "pci0000:15", "pci0000:15", []string{rp, usp, dspA}, []string{rp, usp, dspB}, 0, 0, LevelPIX},
		{"nested switch", "pci0000:15", "pci0000:15", []string{rp, usp, dspA, "0000:18:00.0", "0000:19:00.0"}, []string{rp, usp, dspB}, 0, 0, LevelPXB},
		{"root ports", "pci0000:15", "pci0000:15", []string{rp}, []string{"0000:15:02.0"}, 0, 0, LevelPHB},
		{"host bridges", "pci0000:15", "pci0000:37", []string{rp}, []string{"0000:37:01.0"}, 0, 0, LevelNODE},
		{"sockets", "pci0000:15", "pci0000:97", []string{rp}, []string{"0000:97:01.0"}, 0, 1, LevelSYS},
		{"numa unknown", "pci0000:15", "pci0000:97", nil, nil, -1, -1, LevelSYS},
	}
	for _, tc := range tests {
		if got := PCIeLevel(tc.hostA, tc.chainA, tc.numaA, tc.hostB, tc.chainB, tc.numaB); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func sample() *Topology {
	t := &Topology{Source: "test"}
	t.GPUs = []GPU{
		{Index: 0, Name: "G", NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7", PCIe: PCIeLink{GenCurrent: 4, WidthCurrent: 16}},
		{Index: 1, Name: "G", NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-7"},
		{Index: 2, Name: "G", NUMANode: 1, MemoryNUMANode: -1, CPUAffinity: "8-15"},
	}
	t.NICs = []NIC{{Index: 0, Name: "mlx5_0", NUMANode: -1}}
	t.SetPath("GPU0", "GPU1", Path{Level: LevelNVLink, NVLinks: 4})
	t.SetPath("GPU0", "GPU2", Path{Level: LevelSYS})
	t.SetPath("GPU1", "GPU2", Path{Level: LevelSYS})
	t.SetPath("GPU0", "NIC0", Path{Level: LevelPIX})
	t.SetPath("GPU1", "NIC0", Path{Level: LevelPHB})
	t.SetPath("GPU2", "NIC0", Path{Level: LevelSYS})
	return t
}

func TestSetPathAndMatrix(t *testing.T) {
	topo := sample()
	if len(topo.Devices) != 4 || topo.Paths[3][3].Level != LevelSelf {
		t.Fatalf("devices %v", topo.Devices)
	}
	if p, ok := topo.PathBetween("NIC0", "GPU0"); !ok || p.Level != LevelPIX {
		t.Errorf("symmetric path missing: %v", p)
	}
	if _, ok := topo.PathBetween("GPU9", "GPU0"); ok {
		t.Error("unknown device found")
	}
	m := topo.Matrix()
	for _, want := range []string{
		"\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n",
		"GPU0\t X \tNV4\tSYS\tPIX\t0-7\t0\t\tN/A\n",
		"NIC0\tPIX\tPHB\tSYS\t X \t\t\t\t\n",
		"  NV#  = Connection traversing a bonded set of # NVLinks\n",
		"NIC Legend:\n\n  NIC0: mlx5_0\n",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("matrix lacks %q:\n%s", want, m)
		}
	}
	nics, level := topo.NearestNICs("GPU0")
	if len(nics) != 1 || level != LevelPIX {
		t.Errorf("nearest %v %v", nics, level)
	}
	if got, want := topo.PairsByPath(), map[string]int{"NV4": 1, "SYS": 2}; !maps.Equal(got, want) {
		t.Errorf("PairsByPath() = %v, want %v", got, want)
	}
	if s := topo.Summary(); !strings.Contains(s, "GPUs: 3 (3 x G)") || !strings.Contains(s, "NV4=1 SYS=2") {
		t.Errorf("summary:\n%s", s)
	}
}

// DOT's drawing of sample is tested in probes/topograph.
func TestInferGraph(t *testing.T) {
	topo := sample()
	topo.InferGraph()
	if topo.NICs[0].NUMANode != 0 {
		t.Errorf("NIC0 NUMA %d, want 0 from GPU0", topo.NICs[0].NUMANode)
	}
	n := len(topo.Links)
	topo.InferGraph()
	if len(topo.Links) != n {
		t.Error("InferGraph ran twice")
	}
}

// Bonded NVLink counts beyond one GPU's 18 links mean an NVSwitch.
func TestInferNVSwitch(t *testing.T) {
	topo := &Topology{}
	for i := 0; i < 4; i++ {
		topo.GPUs = append(topo.GPUs, GPU{Index: i, NUMANode: -1, MemoryNUMANode: -1})
	}
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			topo.SetPath(topo.GPUs[i].ID(), topo.GPUs[j].ID(), Path{Level: LevelNVLink, NVLinks: 18})
		}
	}
	topo.InferGraph()
	nv := 0
	for _, l := range topo.Links {
		if l.Kind == LinkNVLink {
			nv++
			if l.B != NVSwitchID || l.Count != 18 {
				t.Errorf("link %+v", l)
			}
		}
	}
	if nv != 4 {
		t.Errorf("%d NVLink links, want 4 (one per GPU to the switch)", nv)
	}
	socket := false
	for _, l := range topo.Links {
		socket = socket || strings.HasPrefix(l.A, SocketPrefix) || strings.HasPrefix(l.B, SocketPrefix)
	}
	if !socket {
		t.Error("unknown NUMA: want an inferred socket in the graph")
	}
}

func TestLevelStrings(t *testing.T) {
	for l := LevelUnknown; l <= LevelSYS+1; l++ {
		if l.String() == "" || l.Describe() == "" {
			t.Errorf("level %d has no name", l)
		}
	}
	if Level(-1).String() != "?" {
		t.Error("negative level")
	}
}
