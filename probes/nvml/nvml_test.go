package nvml

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/commlab/commlab/probes"

	"github.com/commlab/commlab/probes/hwtest"
)

// mockH200 is go-nvml's DGX H200 mock (8 GPUs) with the calls it leaves
// out filled in as an NVSwitch node answers them: 18 NVLink 4 links per
// GPU to NVSwitches, PCIe Gen5 x16, P2P OK. CPU affinity stays unset, so
// its panic must turn into a note.
func mockH200(t *testing.T) *server.Server {
	t.Helper()
	s := dgxh200.New()
	for _, d := range s.Devices {
		dev := d.(*server.Device)
		bus := dev.PciBusID
		dev.GetPciInfoFunc = func() (gonvml.PciInfo, gonvml.Return) {
			var p gonvml.PciInfo
			id := "0000" + strings.ToUpper(bus)
			for i := 0; i < len(id); i++ {
				p.BusId[i] = int8(id[i])
			}
			return p, gonvml.SUCCESS
		}
		dev.GetCurrPcieLinkGenerationFunc = func() (int, gonvml.Return) { return 5, gonvml.SUCCESS }
		dev.GetMaxPcieLinkGenerationFunc = func() (int, gonvml.Return) { return 5, gonvml.SUCCESS }
		dev.GetCurrPcieLinkWidthFunc = func() (int, gonvml.Return) { return 16, gonvml.SUCCESS }
		dev.GetMaxPcieLinkWidthFunc = func() (int, gonvml.Return) { return 16, gonvml.SUCCESS }
		dev.GetNvLinkStateFunc = func(l int) (gonvml.EnableState, gonvml.Return) {
			if l >= 18 {
				return 0, gonvml.ERROR_INVALID_ARGUMENT
			}
			return gonvml.FEATURE_ENABLED, gonvml.SUCCESS
		}
		dev.GetNvLinkVersionFunc = func(int) (uint32, gonvml.Return) { return 4, gonvml.SUCCESS }
		dev.GetNvLinkRemotePciInfoFunc = func(int) (gonvml.PciInfo, gonvml.Return) { return gonvml.PciInfo{}, gonvml.SUCCESS }
		dev.GetNvLinkRemoteDeviceTypeFunc = func(int) (gonvml.IntNvLinkDeviceType, gonvml.Return) {
			return gonvml.NVLINK_DEVICE_TYPE_SWITCH, gonvml.SUCCESS
		}
		dev.GetP2PStatusFunc = func(gonvml.Device, gonvml.GpuP2PCapsIndex) (gonvml.GpuP2PStatus, gonvml.Return) {
			return gonvml.P2P_STATUS_OK, gonvml.SUCCESS
		}
		dev.GetPcieThroughputFunc = func(gonvml.PcieUtilCounter) (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED }
	}
	return s
}

func TestNVMLMockH200(t *testing.T) {
	topo, err := NewWithLibrary(mockH200(t), nil).Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) != 8 || topo.Driver != "550.54.15" {
		t.Fatalf("gpus %d driver %q", len(topo.GPUs), topo.Driver)
	}
	g := topo.GPUs[3]
	if g.Name != "NVIDIA H200 141GB HBM3e" || g.ComputeCapability != "9.0" || g.Architecture != "Hopper" ||
		g.BusID != "0000:03:00.0" || g.PCIe.String() != "Gen5 x16" || len(g.NVLinks) != 18 || g.MemoryBytes == 0 {
		t.Errorf("GPU3 %+v", g)
	}
	p, _ := topo.PathBetween("GPU0", "GPU7")
	if p.String() != "NV18" {
		t.Errorf("GPU0-GPU7 %v, want NV18", p)
	}
	var nv int
	for _, l := range topo.Links {
		if l.Kind == probes.LinkNVLink && l.B == probes.NVSwitchID && l.Count == 18 && l.GBps == 450 {
			nv++
		}
	}
	if nv != 8 {
		t.Errorf("%d GPU-to-NVSwitch links of 18 x 25 GB/s, want 8", nv)
	}
	if len(topo.P2P) != 28 || topo.P2P[0].Read != "OK" || topo.P2P[0].Atomics != "OK" {
		t.Errorf("P2P %d pairs, first %+v", len(topo.P2P), topo.P2P[0])
	}
	notes := strings.Join(topo.Notes, "\n")
	if !strings.Contains(notes, "CPU affinity: not available") {
		t.Errorf("a missing mock function should become a note, notes:\n%s", notes)
	}
	if strings.Contains(notes, "PCIe TX throughput") {
		t.Errorf("not-supported calls should stay quiet:\n%s", notes)
	}
	if !strings.Contains(topo.Matrix(), "GPU0\t X \tNV18") {
		t.Errorf("matrix:\n%s", topo.Matrix())
	}
}

func TestNVMLInitFailures(t *testing.T) {
	tests := []struct {
		name string
		init func() gonvml.Return
		want string
	}{
		{"no library", func() gonvml.Return { return gonvml.ERROR_LIBRARY_NOT_FOUND }, "libnvidia-ml.so.1 not found"},
		{"driver not loaded", func() gonvml.Return { return gonvml.ERROR_DRIVER_NOT_LOADED }, "ERROR_DRIVER_NOT_LOADED"},
		{"panic", func() gonvml.Return { panic("boom") }, "init failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := dgxh200.New()
			s.InitFunc = tc.init
			topo, err := NewWithLibrary(s, nil).Topology(context.Background())
			if !errors.Is(err, probes.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrUnavailable mentioning %q", err, tc.want)
			}
			if topo == nil {
				t.Error("want a (possibly empty) topology with the error")
			}
		})
	}
}

// On a machine without the driver the live source fails cleanly; with one,
// it finds GPUs.
func TestNVMLLive(t *testing.T) {
	topo, err := New(nil).Topology(context.Background())
	if errors.Is(err, probes.ErrUnavailable) {
		hwtest.Skipf(t, hwtest.GPU, "no NVIDIA driver here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) == 0 {
		t.Error("NVML initialised but found no GPU")
	}
	for _, g := range topo.GPUs {
		if g.Name == "" || g.BusID == "" || g.MemoryBytes == 0 {
			t.Errorf("GPU %+v lacks basics", g)
		}
	}
}

// `commlab probe topo --json` as recorded on the H200 machine (h200-topo by
// this package's author, h200 by the GPU measurements).
func TestNVMLRecordedH200(t *testing.T) {
	for _, path := range []string{"../testdata/h200-topo/probe-topo.json", "../testdata/h200/probe-topo.json"} {
		t.Run(path, func(t *testing.T) { checkRecordedH200(t, path) })
	}
}

func checkRecordedH200(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no recording from the H200 machine: %v", err)
	}
	var topo probes.Topology
	if err := json.Unmarshal(data, &topo); err != nil {
		t.Fatalf("recorded topology does not load: %v", err)
	}
	if len(topo.GPUs) == 0 || !strings.Contains(topo.GPUs[0].Name, "H200") {
		t.Fatalf("recorded GPUs %+v", topo.GPUs)
	}
	g := topo.GPUs[0]
	if g.ComputeCapability != "9.0" || g.MemoryBytes < 140e9 || g.BusID == "" {
		t.Errorf("recorded H200 %+v", g)
	}
	if !strings.Contains(topo.Matrix(), "GPU0\t X ") {
		t.Errorf("recorded matrix:\n%s", topo.Matrix())
	}
}

func TestCPUList(t *testing.T) {
	tests := []struct {
		words []uint
		want  string
	}{
		{[]uint{0xff}, "0-7"},
		{[]uint{0x5}, "0,2"},
		{[]uint{0, 1}, "64"},
		{[]uint{1 << 63, 1}, "63-64"},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := cpulist(tc.words); got != tc.want {
			t.Errorf("cpulist(%x) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

func TestBusID(t *testing.T) {
	var p gonvml.PciInfo
	for i, c := range "00000000:AB:00.0" {
		p.BusId[i] = int8(c)
	}
	if got := busID(p); got != "0000:ab:00.0" {
		t.Errorf("busID = %q", got)
	}
	if got := busID(gonvml.PciInfo{Domain: 0, Bus: 0x18}); got != "0000:18:00.0" {
		t.Errorf("busID from numbers = %q", got)
	}
}

// baseSource hands out a fixed topology, as probes/sysfs does on a machine.
type baseSource struct{ topo *probes.Topology }

func (b baseSource) Topology(context.Context) (*probes.Topology, error) { return b.topo, nil }

// NVML's GPU facts merge into what the base read: its NICs, switches and
// PCIe paths stay; NVLink replaces the PCIe level between GPUs.
func TestNVMLMergesBase(t *testing.T) {
	base := &probes.Topology{Source: "sysfs", NUMANodes: []probes.NUMANode{{ID: 0, CPUs: "0-63"}}}
	for i := 0; i < 8; i++ {
		base.GPUs = append(base.GPUs, probes.GPU{Index: i, BusID: fmt.Sprintf("0000:%02x:00.0", i), NUMANode: 0, MemoryNUMANode: -1, CPUAffinity: "0-63"})
	}
	base.NICs = []probes.NIC{{Index: 0, Name: "mlx5_0", NUMANode: 0}}
	for i := 0; i < 8; i++ {
		base.SetPath(base.GPUs[i].ID(), "NIC0", probes.Path{Level: probes.LevelNODE})
		for j := i + 1; j < 8; j++ {
			base.SetPath(base.GPUs[i].ID(), base.GPUs[j].ID(), probes.Path{Level: probes.LevelSYS})
		}
	}
	topo, err := NewWithLibrary(mockH200(t), baseSource{base}).Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if topo.Source != "nvml+sysfs" || len(topo.NICs) != 1 || len(topo.GPUs) != 8 {
		t.Fatalf("merged %q: %d GPUs %d NICs", topo.Source, len(topo.GPUs), len(topo.NICs))
	}
	g := topo.GPUs[2]
	if g.Name != "NVIDIA H200 141GB HBM3e" || g.CPUAffinity != "0-63" || g.NUMANode != 0 {
		t.Errorf("merged GPU2 %+v", g)
	}
	if p, _ := topo.PathBetween("GPU1", "GPU6"); p.String() != "NV18" {
		t.Errorf("GPU1-GPU6 %v, want NV18 over the base's SYS", p)
	}
	if p, _ := topo.PathBetween("GPU1", "NIC0"); p.Level != probes.LevelNODE {
		t.Errorf("GPU1-NIC0 %v, want the base's NODE", p)
	}
}
