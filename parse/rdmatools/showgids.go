package rdmatools

import (
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// isShowGIDsHeader reports whether line is show_gids' column header,
// "DEV PORT INDEX GID IPv4 VER DEV" in any spacing.
func isShowGIDsHeader(line string) bool {
	return strings.Join(strings.Fields(line), " ") == "DEV PORT INDEX GID IPv4 VER DEV"
}

// ParseShowGIDs reads the output of show_gids (MLNX_OFED).
func ParseShowGIDs(r io.Reader) (*Report, error) {
	p := &showGIDsParser{lineParser: newLineParser(ToolShowGIDs)}
	return p.run(r, p)
}

type showGIDsParser struct {
	lineParser
	header bool
	footer bool
	cut    heldLine // a short row, an error unless it is the last
}

func (p *showGIDsParser) feed(line string) error {
	if err := p.cut.report(&p.Scanner, ErrMalformed, "row has too few columns"); err != nil {
		return err
	}
	if isShowGIDsHeader(line) {
		p.header = true
		return nil
	}
	if n, ok := strings.CutPrefix(line, "n_gids_found="); ok {
		v, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			return p.ErrorAt(p.Line, ErrMalformed, "n_gids_found is not a number: %q", n)
		}
		p.rep.GIDsFound, p.footer = v, true
		return nil
	}
	if !p.header {
		p.skip("header", line)
		return nil
	}
	if strings.Trim(strings.Join(strings.Fields(line), ""), "-") == "" {
		return nil // the dashes under the header
	}
	return p.row(line)
}

// reGIDRow is the start of a show_gids row, cut or whole: device, port,
// index.
var reGIDRow = regexp.MustCompile(`^\S+\s+\d+\s+\d+(?:\s|$)`)

func (p *showGIDsParser) ownLine(line string) bool {
	return isShowGIDsHeader(line) || strings.HasPrefix(line, "n_gids_found=") || reGIDRow.MatchString(line) ||
		(p.header && strings.Trim(strings.Join(strings.Fields(line), ""), "-") == "")
}

// row reads "DEV PORT INDEX GID [IPv4] VER [DEV]": the IPv4 column is
// blank for GIDs without one, the netdev blank when none is bound.
func (p *showGIDsParser) row(line string) error {
	f := strings.Fields(line)
	if len(f) < 5 {
		p.cut.hold(p.Line, line)
		return nil
	}
	port, err1 := strconv.Atoi(f[1])
	index, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || !strings.Contains(f[3], ":") {
		return p.ErrorAt(p.Line, ErrMalformed, "not a show_gids row: %q", parse.Clip(line, 80))
	}
	g := GID{Device: f[0], Port: port, Index: index, GID: f[3], Line: p.Line}
	rest := f[4:]
	if a, err := netip.ParseAddr(rest[0]); err == nil && a.Is4() {
		g.IPv4, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		p.cut.hold(p.Line, line)
		return nil
	}
	g.TypeText = rest[0]
	switch rest[0] {
	case "v1":
		g.Type = GIDTypeRoCEv1
	case "v2":
		g.Type = GIDTypeRoCEv2
	default:
		return p.ErrorAt(p.Line, ErrMalformed, "GID version %q is not v1 or v2", rest[0])
	}
	if len(rest) > 1 {
		g.Netdev = rest[1]
	}
	if len(rest) > 2 {
		return p.ErrorAt(p.Line, ErrMalformed, "row has too many columns: %q", parse.Clip(line, 80))
	}
	if g.IPv4 == "" {
		g.IPv4 = GIDIPv4(g.GID)
	}
	p.rep.GIDs = append(p.rep.GIDs, g)
	return nil
}

func (p *showGIDsParser) finish() error {
	if !p.header && !p.footer {
		return p.ErrorAt(p.first, parse.ErrFormat, "not show_gids output (no DEV PORT INDEX GID header)")
	}
	if err := p.cut.report(&p.Scanner, ErrTruncated, "last row is cut"); err != nil {
		return err
	}
	if !p.footer {
		p.rep.Warnings = append(p.rep.Warnings, "no n_gids_found footer: the paste may end early")
	} else if p.rep.GIDsFound != len(p.rep.GIDs) {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("n_gids_found=%d but %d rows", p.rep.GIDsFound, len(p.rep.GIDs)))
	}
	return nil
}
