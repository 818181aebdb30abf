package sysfs

import (
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/commlab/commlab/probes"
)

// configWithACS builds a 4096-byte config space whose extended capability
// list holds AER (0x0001) at 0x100, then ACS (0x000d) at 0x148 with the
// given registers, as a switch downstream port carries them.
func configWithACS(cap, ctl probes.ACSFlags) []byte {
	b := make([]byte, 4096)
	binary.LittleEndian.PutUint32(b[0x100:], 0x0001|1<<16|0x148<<20)
	binary.LittleEndian.PutUint32(b[0x148:], 0x000d|1<<16)
	binary.LittleEndian.PutUint16(b[0x14c:], uint16(cap))
	binary.LittleEndian.PutUint16(b[0x14e:], uint16(ctl))
	return b
}

func TestACSFromConfig(t *testing.T) {
	all := probes.ACSSrcValid | probes.ACSReqRedir | probes.ACSCmpltRedir | probes.ACSUpstreamFwd | probes.ACSEgressCtrl | probes.ACSDirectTrans | probes.ACSTransBlk
	on := probes.ACSSrcValid | probes.ACSReqRedir | probes.ACSCmpltRedir | probes.ACSUpstreamFwd
	cap, ctl, ok := ACSFromConfig(configWithACS(all, on))
	if !ok || cap != all || ctl != on {
		t.Fatalf("ACSFromConfig = %v, %v, %v", cap, ctl, ok)
	}
	if got := ctl.String(); got != "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" {
		t.Errorf("String = %q", got)
	}
	if _, _, ok := ACSFromConfig(make([]byte, 256)); ok {
		t.Error("ACS found in a 256-byte (non-root) config space")
	}
	loop := make([]byte, 4096)
	binary.LittleEndian.PutUint32(loop[0x100:], 0x0001|1<<16|0x100<<20) // points at itself
	if _, _, ok := ACSFromConfig(loop); ok {
		t.Error("ACS found in a self-referencing capability list")
	}
}

func TestPCIFacts(t *testing.T) {
	m := hgxLike()
	dspA := "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0"
	m[dspA+"/config"] = &fstest.MapFile{Data: configWithACS(0x7f, probes.ACSSrcValid|probes.ACSReqRedir|probes.ACSCmpltRedir)}
	m["sys/devices/pci0000:15/0000:15:01.0/config"] = &fstest.MapFile{Data: configWithACS(0x7f, 0)}
	for _, g := range []string{"0", "1", "2"} {
		m["sys/kernel/iommu_groups/"+g+"/type"] = &fstest.MapFile{Data: []byte("DMA-FQ\n")}
	}
	m["proc/cmdline"] = &fstest.MapFile{Data: []byte("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on quiet\n")}
	f, err := New(m).PCIFacts()
	if err != nil {
		t.Fatal(err)
	}
	if !f.ACSRead || len(f.ACS) != 2 {
		t.Fatalf("ACS = %+v (read %v)", f.ACS, f.ACSRead)
	}
	a, ok := f.ACSOf("0000:17:00.0")
	if !ok || !a.Bridge || !a.Ctl.Redirects() {
		t.Errorf("downstream port ACS = %+v, %v", a, ok)
	}
	if r, _ := f.ACSOf("0000:15:01.0"); r.Ctl.Redirects() {
		t.Errorf("root port ACS = %+v: nothing enabled", r)
	}
	// GPU 18:00.0 and NIC 19:00.0 meet at the switch: its two downstream
	// ports and its upstream port lie between them.
	got, ok := f.BridgesBetween("0000:18:00.0", "0000:19:00.0")
	want := []string{"0000:16:00.0", "0000:17:00.0", "0000:17:01.0"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("BridgesBetween = %v, %v; want %v", got, ok, want)
	}
	if f.IOMMU.Mode != probes.IOMMUTranslated || f.IOMMU.Groups != 3 || !slices.Equal(f.IOMMU.Cmdline, []string{"intel_iommu=on"}) {
		t.Errorf("IOMMU = %+v", f.IOMMU)
	}
}

func TestIOMMUModes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups int
		types  map[string]int
		cmd    []string
		want   string
	}{
		{"none", 0, nil, nil, probes.IOMMUOff},
		{"identity", 4, map[string]int{"identity": 4}, []string{"iommu=pt"}, probes.IOMMUPassthrough},
		{"dma", 4, map[string]int{"DMA": 4}, nil, probes.IOMMUTranslated},
		{"types unreadable, pt asked", 4, nil, []string{"iommu=pt"}, probes.IOMMUPassthrough},
		{"types unreadable", 4, nil, nil, probes.IOMMUUnknown},
	} {
		if got := probes.IOMMUFromGroups(tc.groups, tc.types, tc.cmd); got.Mode != tc.want {
			t.Errorf("%s: mode %q, want %q", tc.name, got.Mode, tc.want)
		}
	}
	if got := probes.IOMMUWords("ro quiet intel_iommu=on iommu=pt pcie_acs_override=downstream"); !slices.Equal(got, []string{"intel_iommu=on", "iommu=pt", "pcie_acs_override=downstream"}) {
		t.Errorf("IOMMUWords = %v", got)
	}
}

// TestPCIFactsH200VM reads the config spaces recorded on the lab's H200 VM
// (probes/testdata/h200/doctor/pci-config.txt, `od -An -v -tx1` of every
// /sys/bus/pci/devices/*/config as root): the GPU sits on the root bus with
// no bridge above it, its extended capabilities (which start with a null
// capability, ID 0) hold no ACS, and the virtio functions show only the
// 256-byte legacy space.
func TestPCIFactsH200VM(t *testing.T) {
	data, err := os.ReadFile("../testdata/h200/doctor/pci-config.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	var addr string
	var cfg []byte
	flush := func() {
		if addr != "" {
			m["sys/bus/pci/devices/"+addr+"/config"] = &fstest.MapFile{Data: cfg}
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "== "); ok {
			flush()
			f := strings.Fields(rest)
			addr, cfg = f[0], nil
			dir := "sys/devices/pci0000:00/" + addr
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				m[dir+"/"+k] = &fstest.MapFile{Data: []byte(v + "\n")}
			}
			continue
		}
		for _, h := range strings.Fields(line) {
			b, err := strconv.ParseUint(h, 16, 8)
			if err != nil {
				t.Fatalf("%s: %v", addr, err)
			}
			cfg = append(cfg, byte(b))
		}
	}
	flush()
	f, err := New(m).PCIFacts()
	if err != nil {
		t.Fatal(err)
	}
	if !f.ACSRead || len(f.ACS) != 0 {
		t.Errorf("ACS read %v, entries %v: want readable and none", f.ACSRead, f.ACS)
	}
	if c := f.Chains["0000:00:06.0"]; len(c) != 0 {
		t.Errorf("GPU chain %v, want none (root bus)", c)
	}
	if f.IOMMU.Mode != probes.IOMMUOff {
		t.Errorf("IOMMU %+v, want off", f.IOMMU)
	}
}
