package rdmatools

import (
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

var reLinkLine = regexp.MustCompile(`^link (\S+)/(\d+)(?:\s+(.*))?$`)

// ParseRDMALink reads the output of `rdma link` / `rdma link show`
// (iproute2). Each line is one port; its "key value" pairs are kept in
// Port.Fields and the known ones typed.
func ParseRDMALink(r io.Reader) (*Report, error) {
	p := &rdmaLinkParser{lineParser: newLineParser(ToolRDMALink), index: map[string]int{}}
	return p.run(r, p)
}

type rdmaLinkParser struct {
	lineParser
	index map[string]int // device name -> index in rep.Devices
	odd   heldLine       // a line whose last key had no value
}

func (p *rdmaLinkParser) feed(line string) error {
	if err := p.odd.report(&p.Scanner, ErrMalformed, "a key without a value"); err != nil {
		return err
	}
	m := reLinkLine.FindStringSubmatch(line)
	if m == nil {
		if len(p.rep.Devices) == 0 {
			p.skip("first link", line)
			return nil
		}
		return p.ErrorAt(p.Line, ErrMalformed, "not a \"link DEV/PORT ...\" line: %q", parse.Clip(line, 80))
	}
	n, _ := strconv.Atoi(m[2])
	pt := Port{Device: m[1], Number: n, Fields: map[string]string{}, Line: p.Line}
	f := strings.Fields(m[3])
	if len(f)%2 == 1 {
		p.odd.hold(p.Line, line)
		f = f[:len(f)-1]
	}
	for i := 0; i+1 < len(f); i += 2 {
		k, v := f[i], f[i+1]
		pt.Fields[k] = v
		switch k {
		case "state":
			pt.setState(v)
		case "physical_state":
			pt.setPhysState(v)
		case "netdev":
			pt.Netdev = v
		case "subnet_prefix":
			pt.SubnetPrefix = v
		case "lid":
			pt.LID = v
		case "sm_lid":
			pt.SMLID = v
		case "lmc":
			pt.LMC = v
		}
	}
	// rdma link prints subnet_prefix and lids only on InfiniBand ports and
	// netdev on RoCE ones; it names no link layer, so none is guessed.
	i, ok := p.index[pt.Device]
	if !ok {
		i = len(p.rep.Devices)
		p.index[pt.Device] = i
		p.rep.Devices = append(p.rep.Devices, Device{Name: pt.Device, Line: p.Line})
	}
	p.rep.Devices[i].Ports = append(p.rep.Devices[i].Ports, pt)
	return nil
}

func (p *rdmaLinkParser) ownLine(line string) bool { return reLinkLine.MatchString(line) }

func (p *rdmaLinkParser) finish() error {
	if len(p.rep.Devices) == 0 {
		return p.ErrorAt(p.first, parse.ErrFormat, "not rdma link output (no \"link DEV/PORT\" line)")
	}
	return p.odd.report(&p.Scanner, ErrTruncated, "the last line ends with a key and no value")
}
