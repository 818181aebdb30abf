package sysfs

import (
	"encoding/binary"
	"io/fs"
	"strings"

	"github.com/commlab/commlab/probes"
)

const (
	extCapStart = 0x100  // PCIe extended capabilities start here in config space
	extCapACS   = 0x000d // ACS extended capability ID
	maxExtCaps  = 64     // a loop guard: a damaged list could point back on itself
)

// ACSFromConfig finds the ACS extended capability in a PCI function's
// configuration space (the bytes of /sys/bus/pci/devices/*/config) and
// returns its capability and control registers. found is false when the
// space is only the 256-byte legacy part (sysfs shows the rest to root
// only) or has no ACS capability.
func ACSFromConfig(config []byte) (cap, ctl probes.ACSFlags, found bool) {
	off := extCapStart
	for i := 0; i < maxExtCaps && off >= extCapStart && off+8 <= len(config); i++ {
		hdr := binary.LittleEndian.Uint32(config[off:])
		if hdr == 0 || hdr == 0xffffffff {
			return 0, 0, false
		}
		if hdr&0xffff == extCapACS {
			return probes.ACSFlags(binary.LittleEndian.Uint16(config[off+4:])),
				probes.ACSFlags(binary.LittleEndian.Uint16(config[off+6:])), true
		}
		off = int(hdr >> 20)
	}
	return 0, 0, false
}

// PCIFacts reads what the doctor checks beyond the topology: each PCI
// function's ACS registers from its config space, the bridges above each
// device, and the IOMMU mode from /sys/kernel/iommu_groups and
// /proc/cmdline. ACSRead is false when no function's extended config space
// was readable (not root).
func (s *Source) PCIFacts() (*probes.PCIFacts, error) {
	devs, err := s.PCIDevices()
	if err != nil {
		return nil, err
	}
	f := &probes.PCIFacts{Source: "sysfs", Chains: map[string][]string{}}
	for _, d := range devs {
		f.Chains[d.Address] = d.Chain
		cfg, err := fs.ReadFile(s.FS, "sys/bus/pci/devices/"+d.Address+"/config")
		if err != nil {
			cfg, err = fs.ReadFile(s.FS, deviceDir(d)+"/config")
		}
		if err != nil {
			continue
		}
		if len(cfg) > extCapStart {
			f.ACSRead = true
		}
		if c, ctl, ok := ACSFromConfig(cfg); ok {
			f.ACS = append(f.ACS, probes.ACS{Address: d.Address, Bridge: d.IsBridge(), Cap: c, Ctl: ctl})
		}
	}
	f.IOMMU = s.IOMMU()
	return f, nil
}

// deviceDir is a device's directory under sys/devices.
func deviceDir(d Device) string {
	return "sys/devices/" + strings.Join(append(append([]string{d.Host}, d.Chain...), d.Address), "/")
}

// IOMMU reads the IOMMU groups and their default domain types, and the
// kernel command line's IOMMU words.
func (s *Source) IOMMU() probes.IOMMUState {
	groups, _ := fs.ReadDir(s.FS, "sys/kernel/iommu_groups")
	types := map[string]int{}
	n := 0
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		n++
		if t := s.read("sys/kernel/iommu_groups/" + g.Name() + "/type"); t != "" {
			types[t]++
		}
	}
	if len(types) == 0 {
		types = nil
	}
	return probes.IOMMUFromGroups(n, types, probes.IOMMUWords(s.read("proc/cmdline")))
}
