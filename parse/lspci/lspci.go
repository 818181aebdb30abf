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

// Device is one PCI function as lspci -vvv prints it.
type Device struct {
	Address string `json:"address"` // "0000:17:00.0" (domain added when lspci left it out)
	Class   string `json:"class"`   // "PCI bridge", "3D controller", "Infiniband controller"
	Name    string `json:"name"`
	// Bridge is set for PCI bridges; Secondary is the bus below them
	// ("Bus: primary=16, secondary=17, subordinate=17"), -1 when not printed.
	Bridge    bool `json:"bridge,omitempty"`
	Secondary int  `json:"secondary"`
	// LinkCap and LinkSta are the PCIe link's maximum and current speed
	// and width (LnkCap:, LnkSta:); Downgraded is lspci's "(downgraded)".
	LinkCap    probes.PCIeLink `json:"link_cap"`
	LinkSta    probes.PCIeLink `json:"link_sta"`
	Downgraded bool            `json:"downgraded,omitempty"`
	// ACSCap and ACSCtl are nil when the device printed no ACS capability.
	ACSCap *probes.ACSFlags `json:"acs_cap,omitempty"`
	ACSCtl *probes.ACSFlags `json:"acs_ctl,omitempty"`
	// IOMMUGroup is -1 when lspci printed none.
	IOMMUGroup int `json:"iommu_group"`
	// NUMA is the "NUMA node:" lspci -v prints on machines with more than
	// one node; -1 when absent.
	NUMA         int    `json:"numa_node"`
	Driver       string `json:"driver,omitempty"`
	AccessDenied bool   `json:"access_denied,omitempty"`

	// brief: printed by lspci -v (a "Flags:" line); indented: any line
	// under the header.
	brief, indented bool
}

// Report is a parsed lspci -vvv output.
type Report struct {
	Devices []Device `json:"devices"`
	// AccessDenied counts devices whose capabilities lspci could not read
	// (not root).
	AccessDenied int `json:"access_denied,omitempty"`
	// Brief counts devices printed as plain lspci (no indented lines) or
	// lspci -v (a "Flags:" line, where -vv prints "Control:"), which leave
	// ACS and link state out: their absence then means nothing.
	Brief int `json:"brief,omitempty"`
}

var (
	headerRE = regexp.MustCompile(`^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.+?):\s+(.*)$`)
	busRE    = regexp.MustCompile(`secondary=([0-9a-fA-F]+)`)
	speedRE  = regexp.MustCompile(`Speed ([0-9.]+)\s*GT/s`)
	widthRE  = regexp.MustCompile(`Width x([0-9]+)`)
)

// Parse reads lspci -vvv output. Input with no device header at all is not
// lspci output (parse.ErrFormat).
func Parse(r io.Reader) (*Report, error) {
	lines, err := textinput.Read(r)
	if err != nil {
		return nil, fmt.Errorf("lspci: %w", err)
	}
	rep := &Report{}
	var cur *Device
	for i, line := range lines {
		if line == "" {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			m := headerRE.FindStringSubmatch(line)
			if m == nil {
				if len(rep.Devices) == 0 && i < 5 {
					continue // a shell prompt or command echo before the output
				}
				cur = nil
				continue
			}
			rep.Devices = append(rep.Devices, Device{
				Address: normalize(m[1]), Class: m[2], Name: m[3],
				Bridge: strings.Contains(strings.ToLower(m[2]), "bridge") && !strings.HasPrefix(m[2], "Host"), Secondary: -1, IOMMUGroup: -1, NUMA: -1,
			})
			cur = &rep.Devices[len(rep.Devices)-1]
			continue
		}
		if cur == nil {
			continue
		}
		cur.indented = true
		key, val, _ := strings.Cut(strings.TrimSpace(line), ":")
		val = strings.TrimSpace(val)
		switch key {
		case "Flags":
			cur.brief = true
		case "Bus":
			if m := busRE.FindStringSubmatch(val); m != nil {
				if n, err := strconv.ParseInt(m[1], 16, 32); err == nil {
					cur.Secondary = int(n)
				}
			}
		case "LnkCap":
			cur.LinkCap = link(val)
		case "LnkSta":
			cur.LinkSta = link(val)
			cur.Downgraded = strings.Contains(val, "downgraded")
		case "ACSCap":
			f := flags(val)
			cur.ACSCap = &f
		case "ACSCtl":
			f := flags(val)
			cur.ACSCtl = &f
		case "IOMMU group":
			if n, err := strconv.Atoi(val); err == nil {
				cur.IOMMUGroup = n
			}
		case "NUMA node":
			if n, err := strconv.Atoi(val); err == nil {
				cur.NUMA = n
			}
		case "Kernel driver in use":
			cur.Driver = val
		case "Capabilities":
			if strings.Contains(val, "<access denied>") {
				cur.AccessDenied = true
				rep.AccessDenied++
			}
		}
	}
	if len(rep.Devices) == 0 {
		return nil, &parse.Error{Format: "lspci", Msg: "no PCI device header (want lspci -vvv output)", Err: parse.ErrFormat}
	}
	for _, d := range rep.Devices {
		if d.brief || !d.indented {
			rep.Brief++
		}
	}
	return rep, nil
}

// normalize adds the domain lspci leaves out without -D and lower-cases.
func normalize(addr string) string {
	addr = strings.ToLower(addr)
	if strings.Count(addr, ":") == 1 {
		addr = "0000:" + addr
	}
	return addr
}

func link(val string) probes.PCIeLink {
	var l probes.PCIeLink
	if m := speedRE.FindStringSubmatch(val); m != nil {
		l.GenCurrent = probes.PCIeGenFromSpeed(m[1])
	}
	if m := widthRE.FindStringSubmatch(val); m != nil {
		l.WidthCurrent, _ = strconv.Atoi(m[1])
	}
	return l
}

func flags(val string) probes.ACSFlags {
	var f probes.ACSFlags
	for _, w := range strings.Fields(val) {
		if !strings.HasSuffix(w, "+") {
			continue
		}
		if b, ok := probes.ACSFlagByName(strings.TrimSuffix(w, "+")); ok {
			f |= b
		}
	}
	return f
}

// Facts returns the report as the doctor reads it: ACS per function, the
// chain of bridges above every device (rebuilt from bridges' secondary
// buses), and what lspci shows of the IOMMU (its groups; their domain
// types are sysfs's to tell).
func (r *Report) Facts() *probes.PCIFacts {
	// ACS is read when lspci printed the capabilities in full (-vv and
	// more, as root) for at least one device.
	f := &probes.PCIFacts{Source: "lspci -vvv", ACSRead: r.AccessDenied == 0 && r.Brief < len(r.Devices), Chains: map[string][]string{}}
	// parent[domain:bus] is the bridge whose secondary bus it is.
	parent := map[string]string{}
	for _, d := range r.Devices {
		if d.Bridge && d.Secondary >= 0 {
			parent[fmt.Sprintf("%s:%02x", domain(d.Address), d.Secondary)] = d.Address
		}
	}
	groups := map[int]bool{}
	for _, d := range r.Devices {
		if d.ACSCtl != nil {
			a := probes.ACS{Address: d.Address, Bridge: d.Bridge, Ctl: *d.ACSCtl}
			if d.ACSCap != nil {
				a.Cap = *d.ACSCap
			}
			f.ACS = append(f.ACS, a)
		}
		if d.IOMMUGroup >= 0 {
			groups[d.IOMMUGroup] = true
		}
		var chain []string
		seen := map[string]bool{}
		for p, ok := parent[busOf(d.Address)]; ok && !seen[p]; p, ok = parent[busOf(p)] {
			seen[p] = true
			chain = append([]string{p}, chain...)
		}
		f.Chains[d.Address] = chain
	}
	sort.Slice(f.ACS, func(i, j int) bool { return f.ACS[i].Address < f.ACS[j].Address })
	f.IOMMU = probes.IOMMUState{Mode: probes.IOMMUUnknown, Groups: len(groups),
		Why: "lspci shows IOMMU groups but not their domain type; read /sys/kernel/iommu_groups/*/type or the kernel command line"}
	if len(groups) == 0 {
		f.IOMMU.Why = "lspci printed no IOMMU group (older pciutils, or the IOMMU is off)"
	}
	return f
}

func domain(addr string) string { d, _, _ := strings.Cut(addr, ":"); return d }

// busOf is "domain:bus" of an address "dddd:bb:dd.f".
func busOf(addr string) string {
	if len(addr) < 7 {
		return addr
	}
	return addr[:7]
}
