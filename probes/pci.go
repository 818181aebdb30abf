package probes

import (
	"slices"
	"strings"
)

// ACSFlags are the bits of a PCIe Access Control Services capability or
// control register (PCIe base specification, ACS Extended Capability,
// capability ID 0x000d; the capability register sits at +4, the control
// register at +6). lspci -vvv prints them as "ACSCtl: SrcValid+ TransBlk-
// ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
type ACSFlags uint16

const (
	ACSSrcValid    ACSFlags = 1 << iota // source validation
	ACSTransBlk                         // translation blocking
	ACSReqRedir                         // P2P request redirect
	ACSCmpltRedir                       // P2P completion redirect
	ACSUpstreamFwd                      // upstream forwarding
	ACSEgressCtrl                       // P2P egress control
	ACSDirectTrans                      // direct translated P2P
)

// acsNames are the flags in lspci's order and spelling.
var acsNames = []struct {
	f    ACSFlags
	name string
}{
	{ACSSrcValid, "SrcValid"}, {ACSTransBlk, "TransBlk"}, {ACSReqRedir, "ReqRedir"},
	{ACSCmpltRedir, "CmpltRedir"}, {ACSUpstreamFwd, "UpstreamFwd"}, {ACSEgressCtrl, "EgressCtrl"},
	{ACSDirectTrans, "DirectTrans"},
}

// ACSFlagByName returns the flag lspci names name ("ReqRedir").
func ACSFlagByName(name string) (ACSFlags, bool) {
	for _, n := range acsNames {
		if n.name == name {
			return n.f, true
		}
	}
	return 0, false
}

// String prints the flags as lspci does: every flag with + or -.
func (f ACSFlags) String() string {
	parts := make([]string, len(acsNames))
	for i, n := range acsNames {
		sign := "-"
		if f&n.f != 0 {
			sign = "+"
		}
		parts[i] = n.name + sign
	}
	return strings.Join(parts, " ")
}

// Redirects reports whether the flags send peer-to-peer traffic up to the
// root complex instead of across the switch: request or completion
// redirect, or egress control. Enabled on a bridge between two GPUs, or
// between a GPU and its NIC, they make P2P and GPUDirect RDMA slow or
// fail (NCCL troubleshooting guide, "PCI Access Control Services (ACS)",
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html).
func (f ACSFlags) Redirects() bool {
	return f&(ACSReqRedir|ACSCmpltRedir|ACSEgressCtrl) != 0
}

// ACS is one PCI function's ACS capability and what is enabled of it.
type ACS struct {
	Address string `json:"address"` // "0000:17:01.0"
	// Bridge is true for PCI bridges (switch ports, root ports), where
	// ACS decides whether peer traffic turns at the switch.
	Bridge bool     `json:"bridge,omitempty"`
	Cap    ACSFlags `json:"cap"`
	Ctl    ACSFlags `json:"ctl"`
}

// IOMMU modes, as IOMMUState.Mode names them.
const (
	IOMMUOff         = "off"         // no IOMMU groups: the kernel does not translate device DMA
	IOMMUPassthrough = "passthrough" // groups of type identity (iommu=pt): DMA is not translated
	IOMMUTranslated  = "translated"  // groups of type DMA or DMA-FQ: every DMA goes through the IOMMU
	IOMMUUnknown     = "unknown"
)

// IOMMUState is what the kernel says about DMA remapping: the groups under
// /sys/kernel/iommu_groups and their default domain types, and the
// IOMMU-related words of the kernel command line.
type IOMMUState struct {
	Mode string `json:"mode"`
	// Groups is the number of IOMMU groups; Types counts them by default
	// domain type ("identity", "DMA", "DMA-FQ").
	Groups int            `json:"groups"`
	Types  map[string]int `json:"types,omitempty"`
	// Cmdline holds the command line's IOMMU words: intel_iommu=,
	// amd_iommu=, iommu=, iommu.passthrough=, pcie_acs_override=.
	Cmdline []string `json:"cmdline,omitempty"`
	// Why says how Mode was decided.
	Why string `json:"why,omitempty"`
}

// PCIFacts are the PCIe facts beyond the topology that the doctor's checks
// read: ACS per function, the IOMMU, and each device's chain of bridges.
type PCIFacts struct {
	Source string `json:"source"` // "sysfs", "lspci -vvv", ...
	ACS    []ACS  `json:"acs,omitempty"`
	// ACSRead is false when nothing could read ACS (config space beyond
	// 256 bytes needs root; lspci absent): no ACS entry then means
	// "not known", not "off".
	ACSRead bool       `json:"acs_read"`
	IOMMU   IOMMUState `json:"iommu"`
	// Chains maps a device's PCI address to the bridges above it, root
	// port first; absent when the source gives no hierarchy.
	Chains map[string][]string `json:"chains,omitempty"`
}

// ACSOf returns the ACS entry of a PCI address.
func (p *PCIFacts) ACSOf(addr string) (ACS, bool) {
	if p == nil {
		return ACS{}, false
	}
	for _, a := range p.ACS {
		if strings.EqualFold(a.Address, addr) {
			return a, true
		}
	}
	return ACS{}, false
}

// BridgesBetween returns the bridges on the PCIe path between two devices:
// those above either one that are not above both, plus the lowest bridge
// they share, where traffic between them turns (a switch's downstream
// ports and the shared upstream port, or the root ports). ok is false when
// either chain is unknown.
func (p *PCIFacts) BridgesBetween(a, b string) (bridges []string, ok bool) {
	if p == nil || p.Chains == nil {
		return nil, false
	}
	ca, okA := p.Chains[strings.ToLower(a)]
	cb, okB := p.Chains[strings.ToLower(b)]
	if !okA || !okB {
		return nil, false
	}
	common := 0
	for common < len(ca) && common < len(cb) && ca[common] == cb[common] {
		common++
	}
	if common > 0 {
		bridges = append(bridges, ca[common-1])
	}
	bridges = append(bridges, ca[common:]...)
	bridges = append(bridges, cb[common:]...)
	slices.Sort(bridges)
	return slices.Compact(bridges), true
}

// IOMMUFromGroups decides the IOMMU mode from the group count and default
// domain types (the `type` file of each /sys/kernel/iommu_groups/N) and the
// command line's IOMMU words.
func IOMMUFromGroups(groups int, types map[string]int, cmdline []string) IOMMUState {
	s := IOMMUState{Groups: groups, Types: types, Cmdline: cmdline}
	translated := types["DMA"] + types["DMA-FQ"]
	switch {
	case groups == 0:
		s.Mode, s.Why = IOMMUOff, "no IOMMU groups under /sys/kernel/iommu_groups: DMA remapping is off"
	case translated > 0:
		s.Mode, s.Why = IOMMUTranslated, "IOMMU groups of type DMA or DMA-FQ: device DMA, peer-to-peer included, is translated by the IOMMU"
	case types["identity"] > 0:
		s.Mode, s.Why = IOMMUPassthrough, "IOMMU groups of type identity: the IOMMU is on but passes DMA through (iommu=pt)"
	default:
		s.Mode, s.Why = IOMMUUnknown, "IOMMU groups present but their domain type is not readable"
		for _, w := range cmdline {
			switch w {
			case "iommu=pt", "iommu.passthrough=1":
				s.Mode, s.Why = IOMMUPassthrough, "IOMMU groups present; the command line asks for passthrough ("+w+")"
			}
		}
	}
	return s
}

// IOMMUWords returns the IOMMU-related words of a kernel command line.
func IOMMUWords(cmdline string) []string {
	var out []string
	for _, w := range strings.Fields(cmdline) {
		for _, p := range []string{"intel_iommu=", "amd_iommu=", "iommu=", "iommu.passthrough=", "iommu.strict=", "pcie_acs_override="} {
			if strings.HasPrefix(w, p) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
