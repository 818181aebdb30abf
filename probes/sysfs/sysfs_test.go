package sysfs

import (
	"context"
	"errors"
	"github.com/commlab/commlab/probes/topograph"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/probes"
)

// hgxLike is a synthetic sysfs tree in the layout of an HGX node (two
// sockets; on socket 0 a root port, a PCIe switch and under it a GPU and a
// ConnectX NIC; on socket 1 a GPU on its own root port). Names and file
// contents follow the kernel's sysfs ABI (Documentation/ABI/testing/
// sysfs-bus-pci, sysfs-class-infiniband); the numbers are made up.
func hgxLike() fstest.MapFS {
	m := fstest.MapFS{}
	dev := func(dir, class, vendor, numa, speed, width string) {
		m[dir+"/class"] = &fstest.MapFile{Data: []byte(class + "\n")}
		m[dir+"/vendor"] = &fstest.MapFile{Data: []byte(vendor + "\n")}
		m[dir+"/device"] = &fstest.MapFile{Data: []byte("0x2335\n")}
		m[dir+"/numa_node"] = &fstest.MapFile{Data: []byte(numa + "\n")}
		m[dir+"/current_link_speed"] = &fstest.MapFile{Data: []byte(speed + "\n")}
		m[dir+"/max_link_speed"] = &fstest.MapFile{Data: []byte("32.0 GT/s PCIe\n")}
		m[dir+"/current_link_width"] = &fstest.MapFile{Data: []byte(width + "\n")}
		m[dir+"/max_link_width"] = &fstest.MapFile{Data: []byte("16\n")}
	}
	rp := "sys/devices/pci0000:15/0000:15:01.0"
	usp := rp + "/0000:16:00.0"
	dspA, dspB := usp+"/0000:17:00.0", usp+"/0000:17:01.0"
	dev(rp, "0x060400", "0x8086", "0", "32.0 GT/s PCIe", "16")
	dev(usp, "0x060400", "0x1000", "0", "32.0 GT/s PCIe", "16")
	dev(dspA, "0x060400", "0x1000", "0", "32.0 GT/s PCIe", "16")
	dev(dspB, "0x060400", "0x1000", "0", "32.0 GT/s PCIe", "16")
	dev(dspA+"/0000:18:00.0", "0x030200", "0x10de", "0", "32.0 GT/s PCIe", "16")
	dev(dspB+"/0000:19:00.0", "0x020700", "0x15b3", "0", "16.0 GT/s PCIe", "16")
	rp1 := "sys/devices/pci0000:97/0000:97:01.0"
	dev(rp1, "0x060400", "0x8086", "1", "32.0 GT/s PCIe", "16")
	dev(rp1+"/0000:98:00.0", "0x030200", "0x10de", "1", "16.0 GT/s PCIe", "8")
	// Something that is not a PCI device directory must be skipped.
	m["sys/devices/pci0000:15/power/control"] = &fstest.MapFile{Data: []byte("auto\n")}
	m["sys/devices/system/node/node0/cpulist"] = &fstest.MapFile{Data: []byte("0-47,96-143\n")}
	m["sys/devices/system/node/node1/cpulist"] = &fstest.MapFile{Data: []byte("48-95,144-191\n")}
	m["sys/devices/system/node/possible"] = &fstest.MapFile{Data: []byte("0-1\n")}
	ib := "sys/class/infiniband/mlx5_0"
	m[ib+"/device/uevent"] = &fstest.MapFile{Data: []byte("DRIVER=mlx5_core\nPCI_CLASS=20700\nPCI_SLOT_NAME=0000:19:00.0\n")}
	m[ib+"/ports/1/state"] = &fstest.MapFile{Data: []byte("4: ACTIVE\n")}
	m[ib+"/ports/1/phys_state"] = &fstest.MapFile{Data: []byte("5: LinkUp\n")}
	m[ib+"/ports/1/rate"] = &fstest.MapFile{Data: []byte("400 Gb/sec (4X NDR)\n")}
	m[ib+"/ports/1/link_layer"] = &fstest.MapFile{Data: []byte("InfiniBand\n")}
	m[ib+"/ports/1/gids/0"] = &fstest.MapFile{Data: []byte("fe80:0000:0000:0000:a088:c203:0042:1234\n")}
	m[ib+"/ports/1/gids/1"] = &fstest.MapFile{Data: []byte("0000:0000:0000:0000:0000:0000:0000:0000\n")}
	m["sys/module/nvidia_peermem/version"] = &fstest.MapFile{Data: []byte("550.54.15\n")}
	m["sys/module/nvidia/version"] = &fstest.MapFile{Data: []byte("550.54.15\n")}
	m["proc/sys/kernel/osrelease"] = &fstest.MapFile{Data: []byte("5.15.0-105-generic\n")}
	m["proc/driver/nvidia/version"] = &fstest.MapFile{Data: []byte("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n")}
	return m
}

func TestSysfsTopology(t *testing.T) {
	topo, err := New(hgxLike()).Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) != 2 || len(topo.NICs) != 1 || len(topo.NUMANodes) != 2 || len(topo.Switches) != 1 {
		t.Fatalf("gpus %d nics %d numa %d switches %d", len(topo.GPUs), len(topo.NICs), len(topo.NUMANodes), len(topo.Switches))
	}
	g0, g1 := topo.GPUs[0], topo.GPUs[1]
	if g0.BusID != "0000:18:00.0" || g0.NUMANode != 0 || g0.CPUAffinity != "0-47,96-143" || g0.PCIe.GenCurrent != 5 {
		t.Errorf("GPU0 %+v", g0)
	}
	if g1.PCIe.String() != "Gen4 x8 (max Gen5 x16)" {
		t.Errorf("GPU1 link %s", g1.PCIe)
	}
	paths := []struct {
		a, b string
		want probes.Level
	}{
		{"GPU0", "NIC0", probes.LevelPIX},
		{"GPU0", "GPU1", probes.LevelSYS},
		{"GPU1", "NIC0", probes.LevelSYS},
	}
	for _, p := range paths {
		if got, _ := topo.PathBetween(p.a, p.b); got.Level != p.want {
			t.Errorf("%s-%s = %v, want %v", p.a, p.b, got, p.want)
		}
	}
	nic := topo.NICs[0]
	if nic.Name != "mlx5_0" || nic.NUMANode != 0 || len(nic.Ports) != 1 {
		t.Fatalf("NIC %+v", nic)
	}
	port := nic.Ports[0]
	if port.State != "ACTIVE" || port.PhysState != "LinkUp" || port.RateGbps != 400 || port.LinkLayer != "InfiniBand" || len(port.GIDs) != 1 {
		t.Errorf("port %+v", port)
	}
	if !topo.GPUDirect.PeerMem || topo.GPUDirect.PeerMemVersion != "550.54.15" || !strings.HasPrefix(topo.GPUDirect.DMABuf, "no:") {
		t.Errorf("gpudirect %+v", topo.GPUDirect)
	}
	sw := topo.Switches[0]
	if sw.BusID != "0000:16:00.0" || len(sw.Members) != 2 {
		t.Errorf("switch %+v", sw)
	}
	dot := topograph.DOT(topo)
	for _, want := range []string{`"PCISW0" -- "GPU0" [label="Gen5 x16"]`, `"NUMA0" -- "PCISW0" [label="Gen5 x16"]`, `"NUMA1" -- "GPU1" [label="Gen4 x8"]`, `"NUMA0" -- "NUMA1"`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %s:\n%s", want, dot)
		}
	}
}

func TestSysfsUnavailable(t *testing.T) {
	_, err := New(fstest.MapFS{}).Topology(context.Background())
	if !errors.Is(err, probes.ErrUnavailable) {
		t.Errorf("empty fs: %v, want ErrUnavailable", err)
	}
}

func TestSysfsNoGPU(t *testing.T) {
	m := fstest.MapFS{
		"sys/devices/pci0000:00/0000:00:1f.0/class":  {Data: []byte("0x060100\n")},
		"sys/devices/pci0000:00/0000:00:1f.0/vendor": {Data: []byte("0x8086\n")},
	}
	topo, err := New(m).Topology(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) != 0 || !strings.Contains(strings.Join(topo.Notes, ";"), "no NVIDIA GPU") {
		t.Errorf("topo %+v", topo)
	}
	if !strings.HasPrefix(topo.GPUDirect.DMABuf, "unknown") {
		t.Errorf("dmabuf %q", topo.GPUDirect.DMABuf)
	}
}

func TestKernelAtLeast(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{"5.12.0", true}, {"5.11.9", false}, {"6.1.0-18-amd64", true}, {"4.19.0", false}, {"x", false}, {"10.0", true},
	}
	for _, tc := range tests {
		if got := kernelAtLeast(tc.rel, 5, 12); got != tc.want {
			t.Errorf("kernelAtLeast(%q) = %v", tc.rel, got)
		}
	}
}

func TestIsPCIAddress(t *testing.T) {
	for s, want := range map[string]bool{"0000:18:00.0": true, "0000:1g:00.0": false, "pci0000:00": false, "0000:18:00.": false, "0000:AB:00.0": false} {
		if isPCIAddress(s) != want {
			t.Errorf("isPCIAddress(%q) != %v", s, want)
		}
	}
}
