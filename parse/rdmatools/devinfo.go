package rdmatools

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

var (
	reGIDLine  = regexp.MustCompile(`^GID\[\s*(\d+)\]:\s*(.*)$`)
	reHCA      = regexp.MustCompile(`^hca_id:\s*(\S+)$`)
	rePortLine = regexp.MustCompile(`^port:\s*(\d+)$`)
	reWidth    = regexp.MustCompile(`^(\d+)X\b`)
	reSpeed    = regexp.MustCompile(`^([\d.]+) Gbps`)
	reLeadNum  = regexp.MustCompile(`^(\d+)`)
)

// devinfoPortKeys are the lines every ibv_devinfo port block prints.
var devinfoPortKeys = []string{"state", "max_mtu", "active_mtu", "sm_lid", "port_lid", "port_lmc"}

// ParseIBVDevinfo reads the output of ibv_devinfo, with or without -v,
// or only its GID lines (`ibv_devinfo -v | grep GID`): those go to an
// unnamed device's port 0, with a warning.
func ParseIBVDevinfo(r io.Reader) (*Report, error) {
	p := &devinfoParser{lineParser: newLineParser(ToolIBVDevinfo)}
	return p.run(r, p)
}

type devinfoParser struct {
	lineParser
	portCursor
	// pending holds lines before any hca_id, kept in case a port's lines
	// follow without one (a grep).
	pending []string
}

func (p *devinfoParser) feed(line string) error {
	if m := reHCA.FindStringSubmatch(line); m != nil {
		p.closePort()
		p.rep.Devices = append(p.rep.Devices, Device{Name: m[1], Host: p.host, Fields: map[string]string{}, Line: p.Line})
		p.dev = &p.rep.Devices[len(p.rep.Devices)-1]
		return nil
	}
	if p.dev == nil {
		key, _, _ := strings.Cut(line, ":")
		if !reGIDLine.MatchString(line) && !isPortKey(key) {
			p.skip("first hca_id", line)
			return nil
		}
		// A paste that starts inside a port (a grep of -v).
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("line %d: no hca_id line: the paste starts inside a port; device and port unknown", p.Line))
		p.rep.Devices = append(p.rep.Devices, Device{Fields: map[string]string{}, Line: p.Line})
		p.dev = &p.rep.Devices[len(p.rep.Devices)-1]
		p.port = &Port{Fields: map[string]string{}, Line: p.Line}
	}
	if m := rePortLine.FindStringSubmatch(line); m != nil {
		p.closePort()
		n, _ := strconv.Atoi(m[1])
		p.port = &Port{Device: p.dev.Name, Number: n, Fields: map[string]string{}, Line: p.Line}
		return nil
	}
	if m := reGIDLine.FindStringSubmatch(line); m != nil {
		if p.port == nil {
			return p.ErrorAt(p.Line, ErrMalformed, "GID line outside a port")
		}
		return p.gid(m)
	}
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return nil // -v's flag lists and free text ("Multi-Packet RQ is not supported")
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if p.port != nil {
		p.port.Fields[key] = value
		return p.setPort(key, value)
	}
	p.dev.Fields[key] = value
	if field, ok := devinfoDeviceText[key]; ok {
		*field(p.dev) = value
	}
	switch key {
	case "transport":
		p.dev.Transport = stripCode(value)
	case "phys_port_cnt":
		p.dev.NumPorts, _ = strconv.Atoi(value)
	}
	return nil
}

// devinfoDeviceText maps the device keys ibv_devinfo prints as they are
// to the Device field that keeps them.
var devinfoDeviceText = map[string]func(*Device) *string{
	"fw_ver":         func(d *Device) *string { return &d.Firmware },
	"node_guid":      func(d *Device) *string { return &d.NodeGUID },
	"sys_image_guid": func(d *Device) *string { return &d.SystemImageGUID },
	"vendor_id":      func(d *Device) *string { return &d.VendorID },
	"vendor_part_id": func(d *Device) *string { return &d.VendorPartID },
	"hw_ver":         func(d *Device) *string { return &d.Hardware },
	"board_id":       func(d *Device) *string { return &d.BoardID },
}

// reDevinfoKey is a "key: value" line of ibv_devinfo: rdma-core's keys
// are lower case words joined by "_" (fw_ver, max_qp_wr, GID[ 0] aside).
var reDevinfoKey = regexp.MustCompile(`^[a-z][a-z0-9_]*:`)

func (p *devinfoParser) ownLine(line string) bool {
	return reHCA.MatchString(line) || rePortLine.MatchString(line) || reGIDLine.MatchString(line) || reDevinfoKey.MatchString(line)
}

func isPortKey(key string) bool {
	switch strings.TrimSpace(key) {
	case "state", "phys_state", "link_layer", "active_mtu", "max_mtu", "port_lid", "sm_lid", "active_width", "active_speed":
		return true
	}
	return false
}

func (p *devinfoParser) gid(m []string) error {
	text := strings.TrimSpace(m[2])
	idx, _ := strconv.Atoi(m[1])
	addr, typ, _ := strings.Cut(text, ",")
	addr, typ = strings.TrimSpace(addr), strings.TrimSpace(typ)
	if !strings.Contains(addr, ":") {
		return p.ErrorAt(p.Line, ErrMalformed, "GID[%d] is not an address: %q", idx, parse.Clip(text, 80))
	}
	g := GID{Device: p.port.Device, Port: p.port.Number, Index: idx, GID: addr, IPv4: GIDIPv4(addr), TypeText: typ, Line: p.Line}
	switch typ {
	case "RoCE v2":
		g.Type = GIDTypeRoCEv2
	case "RoCE v1":
		g.Type = GIDTypeRoCEv1
	case "IB":
		g.Type = GIDTypeIB
	case "IB/RoCE v1":
		g.Type = GIDTypeRoCEv1
		if p.port.LinkLayer == InfiniBand {
			g.Type = GIDTypeIB
		}
	case "":
		if p.port.LinkLayer == InfiniBand {
			g.Type = GIDTypeIB
		}
	}
	p.port.GIDs = append(p.port.GIDs, g)
	return nil
}

func (p *devinfoParser) setPort(key, value string) error {
	pt := p.port
	switch key {
	case "state":
		pt.setState(value)
	case "phys_state":
		pt.setPhysState(value)
	case "max_mtu":
		pt.MaxMTU = leadInt(value)
	case "active_mtu":
		pt.ActiveMTU = leadInt(value)
	case "sm_lid":
		pt.SMLID = value
	case "port_lid":
		pt.LID = value
	case "port_lmc":
		pt.LMC = value
	case "link_layer":
		pt.LinkLayer = value
	case "active_width":
		pt.ActiveWidth = value
		pt.RateGbps = widthTimesSpeed(pt.ActiveWidth, pt.ActiveSpeed)
	case "active_speed":
		pt.ActiveSpeed = value
		pt.RateGbps = widthTimesSpeed(pt.ActiveWidth, pt.ActiveSpeed)
	}
	return nil
}

func leadInt(s string) int {
	if m := reLeadNum.FindString(s); m != "" {
		return parse.Int(m)
	}
	return 0
}

// widthTimesSpeed is the port rate in Gb/s from "4X (2)" and
// "25.0 Gbps (32)", or 0 when either is missing.
func widthTimesSpeed(width, speed string) float64 {
	w, s := reWidth.FindStringSubmatch(width), reSpeed.FindStringSubmatch(speed)
	if w == nil || s == nil {
		return 0
	}
	lanes, _ := strconv.ParseFloat(w[1], 64)
	per, _ := strconv.ParseFloat(s[1], 64)
	return lanes * per
}

func (p *devinfoParser) finish() error {
	last := p.port
	p.closePort()
	if len(p.rep.Devices) == 0 {
		return p.ErrorAt(p.first, parse.ErrFormat, "not ibv_devinfo output (no hca_id line)")
	}
	d := p.rep.Devices[len(p.rep.Devices)-1]
	if d.Name == "" {
		return nil // a grep: nothing to hold it against
	}
	if len(d.Ports) == 0 {
		return p.ErrorAt(p.Line, ErrTruncated, "%s ends before its ports", d.Name)
	}
	if last != nil {
		for _, k := range devinfoPortKeys {
			if _, ok := last.Fields[k]; !ok {
				return p.ErrorAt(p.Line, ErrTruncated, "%s port %d ends before %q", last.Device, last.Number, k)
			}
		}
	}
	return nil
}
