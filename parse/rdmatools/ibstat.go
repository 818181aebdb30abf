package rdmatools

import (
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

var (
	reCA     = regexp.MustCompile(`^CA '([^']*)'$`)
	reIBPort = regexp.MustCompile(`^Port (\d+):$`)
)

// ibstatPortKeys are the lines every ibstat port block prints before
// "Link layer" (which ibstat before 2010 did not print).
var ibstatPortKeys = []string{"State", "Physical state", "Rate", "Base lid", "LMC", "SM lid", "Capability mask", "Port GUID"}

// ParseIBStat reads the output of ibstat (infiniband-diags).
func ParseIBStat(r io.Reader) (*Report, error) {
	p := &ibstatParser{lineParser: newLineParser(ToolIBStat)}
	return p.run(r, p)
}

type ibstatParser struct {
	lineParser
	portCursor
	lastText string
}

func (p *ibstatParser) feed(line string) error {
	p.lastText = line
	if m := reCA.FindStringSubmatch(line); m != nil {
		p.closePort()
		p.rep.Devices = append(p.rep.Devices, Device{Name: m[1], Host: p.host, Fields: map[string]string{}, Line: p.Line})
		p.dev = &p.rep.Devices[len(p.rep.Devices)-1]
		return nil
	}
	if p.dev == nil {
		p.skip("first CA", line)
		return nil
	}
	if m := reIBPort.FindStringSubmatch(line); m != nil {
		p.closePort()
		n, _ := strconv.Atoi(m[1])
		p.port = &Port{Device: p.dev.Name, Number: n, Fields: map[string]string{}, Line: p.Line}
		return nil
	}
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return p.ErrorAt(p.Line, ErrMalformed, "not a \"key: value\" line: %q", parse.Clip(line, 80))
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if p.port != nil {
		p.port.Fields[key] = value
		p.setPort(key, value)
		return nil
	}
	p.dev.Fields[key] = value
	switch key {
	case "CA type":
		p.dev.CAType = value
	case "Number of ports":
		p.dev.NumPorts, _ = strconv.Atoi(value)
	case "Firmware version":
		p.dev.Firmware = value
	case "Hardware version":
		p.dev.Hardware = value
	case "Node GUID":
		p.dev.NodeGUID = value
	case "System image GUID":
		p.dev.SystemImageGUID = value
	}
	return nil
}

// ibstatKeys are the "key: value" lines ibstat prints.
var ibstatKeys = map[string]bool{"CA type": true, "Number of ports": true, "Firmware version": true, "Hardware version": true,
	"Node GUID": true, "System image GUID": true, "State": true, "Physical state": true, "Rate": true, "Base lid": true,
	"LMC": true, "SM lid": true, "Capability mask": true, "Port GUID": true, "Link layer": true}

func (p *ibstatParser) ownLine(line string) bool {
	if reCA.MatchString(line) || reIBPort.MatchString(line) {
		return true
	}
	key, _, ok := strings.Cut(line, ":")
	return ok && ibstatKeys[strings.TrimSpace(key)]
}

func (p *ibstatParser) setPort(key, value string) {
	pt := p.port
	switch key {
	case "State":
		pt.setState(value)
	case "Physical state":
		pt.setPhysState(value)
	case "Rate":
		pt.Rate = value
		pt.RateGbps, _ = strconv.ParseFloat(value, 64)
	case "Base lid":
		pt.LID = value
	case "LMC":
		pt.LMC = value
	case "SM lid":
		pt.SMLID = value
	case "Capability mask":
		pt.CapabilityMask = value
	case "Port GUID":
		pt.PortGUID = value
	case "Link layer":
		pt.LinkLayer = value
	}
}

func (p *ibstatParser) finish() error {
	last := p.port
	p.closePort()
	if len(p.rep.Devices) == 0 {
		return p.ErrorAt(p.first, parse.ErrFormat, "not ibstat output (no \"CA '...'\" line)")
	}
	if last != nil {
		for _, k := range ibstatPortKeys {
			if v, ok := last.Fields[k]; !ok || v == "" {
				return p.ErrorAt(p.Line, ErrTruncated, "%s port %d ends before %q", last.Device, last.Number, k)
			}
		}
	}
	d := p.rep.Devices[len(p.rep.Devices)-1]
	if d.NumPorts > 0 && len(d.Ports) < d.NumPorts {
		return p.ErrorAt(p.Line, ErrTruncated, "%s has %d of its %d ports", d.Name, len(d.Ports), d.NumPorts)
	}
	if len(d.Ports) == 0 {
		return p.ErrorAt(p.Line, ErrTruncated, "%s ends before its ports", d.Name)
	}
	return nil
}
