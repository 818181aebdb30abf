package rdmatools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/launcher"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrTruncated means the output stops inside a device, port or row.
	ErrTruncated = errors.New("rdmatools: truncated output")
	// ErrMalformed means a line the tool prints could not be read.
	ErrMalformed = errors.New("rdmatools: malformed line")
)

// The tools, as Report.Tool names them.
const (
	ToolIBStat     = "ibstat"
	ToolIBVDevinfo = "ibv_devinfo"
	ToolShowGIDs   = "show_gids"
	ToolRDMALink   = "rdma link"
)

// Link layers as the tools print them.
const (
	InfiniBand = "InfiniBand"
	Ethernet   = "Ethernet"
)

// GID types.
const (
	GIDTypeIB     = "IB"
	GIDTypeRoCEv1 = "RoCE v1"
	GIDTypeRoCEv2 = "RoCE v2"
)

// GID is one entry of a port's GID table.
type GID struct {
	Device string `json:"device,omitempty"`
	Port   int    `json:"port"`
	Index  int    `json:"index"`
	// GID is the address as printed (full hex, or rdma-core's compressed
	// IPv6 form for RoCE v2).
	GID string `json:"gid"`
	// IPv4 is the address show_gids printed, else the IPv4 mapped into
	// the GID; "" when there is none.
	IPv4 string `json:"ipv4,omitempty"`
	// Type is GIDTypeIB, GIDTypeRoCEv1, GIDTypeRoCEv2, or "" when the
	// tool did not say (ibv_devinfo before rdma-core 28).
	Type string `json:"type,omitempty"`
	// TypeText is the type as printed ("v2", "RoCE v2", "IB/RoCE v1").
	TypeText string `json:"type_text,omitempty"`
	// Netdev is show_gids' last column, the network interface.
	Netdev string `json:"netdev,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// String is one line: "mlx5_0 port 1 GID[3] RoCE v2 172.19.0.60 (ens1f0)".
func (g GID) String() string {
	var b strings.Builder
	if g.Device != "" {
		fmt.Fprintf(&b, "%s port %d ", g.Device, g.Port)
	}
	fmt.Fprintf(&b, "GID[%d]", g.Index)
	if g.Type != "" {
		b.WriteString(" " + g.Type)
	}
	if g.IPv4 != "" {
		b.WriteString(" " + g.IPv4)
	} else {
		b.WriteString(" " + g.GID)
	}
	if g.Netdev != "" {
		b.WriteString(" (" + g.Netdev + ")")
	}
	return b.String()
}

// Port is one port of a device.
type Port struct {
	Device string `json:"device,omitempty"`
	Number int    `json:"number"`
	// State is ACTIVE, DOWN, INIT or ARMED (as ibv_devinfo and rdma link
	// name them); StateText as printed ("Active", "PORT_ACTIVE (4)").
	State     string `json:"state,omitempty"`
	StateText string `json:"state_text,omitempty"`
	// PhysState is LINK_UP, DISABLED, POLLING, SLEEP, ...; PhysStateText
	// as printed ("LinkUp", "LINK_UP (5)").
	PhysState     string `json:"phys_state,omitempty"`
	PhysStateText string `json:"phys_state_text,omitempty"`
	// Rate is ibstat's "Rate:" as printed, in Gb/s; RateGbps the number,
	// or for ibv_devinfo -v active_width x active_speed; 0 when unknown.
	Rate     string  `json:"rate,omitempty"`
	RateGbps float64 `json:"rate_gbps,omitempty" unit:"Gb/s"`
	// LinkLayer is InfiniBand or Ethernet; "" when not printed.
	LinkLayer      string `json:"link_layer,omitempty"`
	LID            string `json:"lid,omitempty"`
	SMLID          string `json:"sm_lid,omitempty"`
	LMC            string `json:"lmc,omitempty"`
	PortGUID       string `json:"port_guid,omitempty"`
	CapabilityMask string `json:"capability_mask,omitempty"`
	MaxMTU         int    `json:"max_mtu,omitempty"`
	ActiveMTU      int    `json:"active_mtu,omitempty"`
	ActiveWidth    string `json:"active_width,omitempty"`
	ActiveSpeed    string `json:"active_speed,omitempty"`
	Netdev         string `json:"netdev,omitempty"`
	SubnetPrefix   string `json:"subnet_prefix,omitempty"`
	GIDs           []GID  `json:"gids,omitempty"`
	// Fields keeps every "key: value" line of the port as printed.
	Fields map[string]string `json:"fields,omitempty"`
	Line   int               `json:"line,omitempty"`
}

// Active reports whether the port's logical state is ACTIVE.
func (p Port) Active() bool { return p.State == "ACTIVE" }

// String is one line: "mlx5_0/1 ACTIVE LINK_UP Ethernet 100 Gb/s".
func (p Port) String() string {
	var b strings.Builder
	if p.Device != "" {
		b.WriteString(p.Device + "/")
	} else {
		b.WriteString("port ")
	}
	b.WriteString(strconv.Itoa(p.Number))
	for _, s := range []string{p.State, p.PhysState, p.LinkLayer} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	if p.RateGbps > 0 {
		b.WriteString(" " + formatGbps(p.RateGbps) + " Gb/s")
	}
	if p.Netdev != "" {
		b.WriteString(" netdev " + p.Netdev)
	}
	return b.String()
}

// Device is one RDMA device (HCA, CA).
type Device struct {
	Name string `json:"name"`
	// Host is the pdsh label of its lines ("node1: CA 'mlx5_0'"), "" when
	// the output had none.
	Host string `json:"host,omitempty"`
	// CAType is ibstat's "CA type" (MT4129); VendorPartID ibv_devinfo's
	// decimal part id (4129) of the same chip.
	CAType          string `json:"ca_type,omitempty"`
	NumPorts        int    `json:"num_ports,omitempty"`
	Firmware        string `json:"firmware,omitempty"`
	Hardware        string `json:"hardware,omitempty"`
	NodeGUID        string `json:"node_guid,omitempty"`
	SystemImageGUID string `json:"system_image_guid,omitempty"`
	Transport       string `json:"transport,omitempty"`
	VendorID        string `json:"vendor_id,omitempty"`
	VendorPartID    string `json:"vendor_part_id,omitempty"`
	BoardID         string `json:"board_id,omitempty"`
	// Fields keeps every device-level "key: value" line as printed
	// (the max_* lines of ibv_devinfo -v among them).
	Fields map[string]string `json:"fields,omitempty"`
	Ports  []Port            `json:"ports,omitempty"`
	Line   int               `json:"line,omitempty"`
}

// String is one line: "mlx5_0 MT4125 fw 22.32.2004, 1 port".
func (d Device) String() string {
	var b strings.Builder
	name := d.Name
	if name == "" {
		name = "(unnamed device)"
	}
	b.WriteString(name)
	if d.CAType != "" {
		b.WriteString(" " + d.CAType)
	} else if d.VendorPartID != "" {
		b.WriteString(" part " + d.VendorPartID)
	}
	if d.Firmware != "" {
		b.WriteString(" fw " + d.Firmware)
	}
	fmt.Fprintf(&b, ", %d port%s", len(d.Ports), plural(len(d.Ports)))
	return b.String()
}

// Report is one pasted output of one tool.
type Report struct {
	// Tool is ToolIBStat, ToolIBVDevinfo, ToolShowGIDs or ToolRDMALink.
	Tool    string   `json:"tool"`
	Devices []Device `json:"devices,omitempty"`
	// GIDs are show_gids' rows; the other tools keep GIDs on their ports
	// (AllGIDs gathers both).
	GIDs []GID `json:"gids,omitempty"`
	// GIDsFound is show_gids' n_gids_found footer, -1 when absent.
	GIDsFound int      `json:"gids_found"`
	Warnings  []string `json:"warnings,omitempty"`
}

func newReport(tool string) *Report { return &Report{Tool: tool, GIDsFound: -1} }

// Ports returns every port of every device, in order.
func (r *Report) Ports() []Port {
	if r == nil {
		return nil
	}
	var out []Port
	for _, d := range r.Devices {
		out = append(out, d.Ports...)
	}
	return out
}

// ActivePorts returns the ports whose state is ACTIVE.
func (r *Report) ActivePorts() []Port {
	var out []Port
	for _, p := range r.Ports() {
		if p.Active() {
			out = append(out, p)
		}
	}
	return out
}

// AllGIDs returns show_gids' rows, or every GID of every port.
func (r *Report) AllGIDs() []GID {
	if r == nil {
		return nil
	}
	out := append([]GID(nil), r.GIDs...)
	for _, p := range r.Ports() {
		out = append(out, p.GIDs...)
	}
	return out
}

// RoCEv2IPv4 returns, for each device and port in order, the first GID
// of type RoCE v2 that carries an IPv4 address: the entries NCCL picks
// by default and NCCL_IB_GID_INDEX names.
func (r *Report) RoCEv2IPv4() []GID {
	var out []GID
	seen := map[string]bool{}
	for _, g := range r.AllGIDs() {
		key := g.Device + "/" + strconv.Itoa(g.Port)
		if g.Type != GIDTypeRoCEv2 || g.IPv4 == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, g)
	}
	return out
}

// NCCLGIDIndex returns the GID index that is RoCE v2 with an IPv4
// address on every port that has one: the value for NCCL_IB_GID_INDEX,
// which names one index for all NICs. ok is false when no port has such
// a GID or the ports disagree; then msg says which.
func (r *Report) NCCLGIDIndex() (index int, ok bool, msg string) {
	gids := r.RoCEv2IPv4()
	if len(gids) == 0 {
		return -1, false, "no RoCE v2 GID with an IPv4 address"
	}
	byIndex := map[int][]string{}
	for _, g := range gids {
		byIndex[g.Index] = append(byIndex[g.Index], portName(g.Device, g.Port))
	}
	if len(byIndex) == 1 {
		return gids[0].Index, true, fmt.Sprintf("GID index %d is RoCE v2 with IPv4 on %d port%s", gids[0].Index, len(gids), plural(len(gids)))
	}
	idx := slices.Sorted(maps.Keys(byIndex))
	var parts []string
	for _, i := range idx {
		parts = append(parts, fmt.Sprintf("%d on %s", i, strings.Join(byIndex[i], ", ")))
	}
	return -1, false, "ports disagree on the RoCE v2 IPv4 GID index: " + strings.Join(parts, "; ")
}

func portName(dev string, port int) string {
	if dev == "" {
		return "port " + strconv.Itoa(port)
	}
	return dev + "/" + strconv.Itoa(port)
}

// Detect names the tool whose output data holds (ToolIBStat, ...), from
// the first line one of them prints; "" when none.
func Detect(data []byte) string {
	lines := strings.Split(string(data), "\n")
	strip := launcher.Detect(lines)
	for _, raw := range lines {
		rest, _ := strip.Strip(strings.TrimRight(raw, "\r"))
		line := strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(line, "CA '"):
			return ToolIBStat
		case strings.HasPrefix(line, "hca_id:"), reGIDLine.MatchString(line):
			return ToolIBVDevinfo
		case isShowGIDsHeader(line), strings.HasPrefix(line, "n_gids_found="):
			return ToolShowGIDs
		case reLinkLine.MatchString(line):
			return ToolRDMALink
		}
	}
	return ""
}

// Parse reads the output of any of the four tools (Detect says which).
// Input that is none of them returns an empty Report and an error
// wrapping parse.ErrFormat.
func Parse(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return newReport(""), fmt.Errorf("rdmatools: read: %w", err)
	}
	switch Detect(data) {
	case ToolIBStat:
		return ParseIBStat(bytes.NewReader(data))
	case ToolIBVDevinfo:
		return ParseIBVDevinfo(bytes.NewReader(data))
	case ToolShowGIDs:
		return ParseShowGIDs(bytes.NewReader(data))
	case ToolRDMALink:
		return ParseRDMALink(bytes.NewReader(data))
	}
	line, _ := firstText(data)
	return newReport(""), &parse.Error{Format: "rdmatools", Line: line,
		Msg: "not the output of ibstat, ibv_devinfo, show_gids or rdma link", Err: parse.ErrFormat}
}

// firstText returns the 1-based number and text of the first non-blank
// line, or 0 for empty input.
func firstText(data []byte) (int, string) {
	for i, raw := range strings.Split(string(data), "\n") {
		if s := strings.TrimSpace(raw); s != "" {
			return i + 1, s
		}
	}
	return 0, ""
}

// GIDIPv4 returns the IPv4 address mapped into gid (::ffff:a.b.c.d in any
// spelling), or "": GID.IPv4 of a GID read from elsewhere (sysfs).
func GIDIPv4(gid string) string {
	a, err := netip.ParseAddr(gid)
	if err != nil || !a.Is4In6() {
		return ""
	}
	return a.Unmap().String()
}

// setState keeps the port's logical state as printed and in normState's
// words; every tool prints it in its own spelling.
func (pt *Port) setState(text string) { pt.StateText, pt.State = text, normState(text) }

// setPhysState keeps the port's physical state as printed and in
// normPhys's words.
func (pt *Port) setPhysState(text string) {
	pt.PhysStateText, pt.PhysState = text, normPhys(text)
}

// normState turns a printed logical port state into ACTIVE, DOWN, INIT
// or ARMED.
func normState(s string) string {
	s = strings.ToUpper(stripCode(s))
	s = strings.TrimPrefix(s, "PORT_")
	switch s {
	case "INITIALIZE", "INITIALIZING", "INITIALIZED":
		return "INIT"
	}
	return s
}

// normPhys turns a printed physical state into ibv_devinfo's words:
// "LinkUp" -> LINK_UP.
func normPhys(s string) string {
	s = stripCode(s)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && c >= 'A' && c <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			b.WriteByte('_')
		}
		b.WriteRune(c)
	}
	out := strings.ToUpper(strings.ReplaceAll(b.String(), " ", "_"))
	if out == "LINKUP" {
		return "LINK_UP"
	}
	return out
}

// stripCode removes a trailing " (4)" and a leading "4: ".
func stripCode(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	if i := strings.Index(s, ": "); i > 0 && isDigits(s[:i]) {
		s = s[i+2:]
	}
	return strings.TrimSpace(s)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func formatGbps(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// lineParser is what the four tools' parsers share: the report they fill,
// the tool's name errors carry and the line being read (Scanner), and the
// first line that was not the tool's (where "not this format" points).
type lineParser struct {
	textinput.Scanner
	rep   *Report
	first int
	// host is the pdsh label of the line being read, "" without one.
	host string
}

// newLineParser starts the parser of one tool (ToolIBStat, ...); the
// tool's name is its report's Tool and the format its errors name.
func newLineParser(tool string) lineParser {
	return lineParser{Scanner: textinput.Scanner{Format: tool, Malformed: ErrMalformed}, rep: newReport(tool)}
}

// portCursor is the device and port a per-device tool's parser (ibstat,
// ibv_devinfo) is filling in.
type portCursor struct {
	dev  *Device
	port *Port
}

// closePort files the port being read under its device.
func (c *portCursor) closePort() {
	if c.port != nil && c.dev != nil {
		c.dev.Ports = append(c.dev.Ports, *c.port)
	}
	c.port = nil
}

// heldLine is a damaged line that is an error only if more lines follow:
// as the output's last line it is a paste cut short (truncated), inside
// the output it is malformed. The parser holds it until it knows which.
type heldLine struct {
	line int // 0 when no line is held
	text string
}

func (h *heldLine) hold(line int, text string) { h.line, h.text = line, text }

// report is the held line as an error of kind, what it lacks first, and
// lets it go; nil when no line is held.
func (h *heldLine) report(s *textinput.Scanner, kind error, what string) error {
	if h.line == 0 {
		return nil
	}
	line, text := h.line, h.text
	h.line, h.text = 0, ""
	return s.ErrorAt(line, kind, "%s: %q", what, parse.Clip(text, 80))
}

// toolParser is one tool's parser: feed gets each non-blank line, trimmed;
// finish checks what a complete output must have; ownLine says whether a
// line is one the tool prints (a record's start or one of its keys),
// which tells trailing output of another command from a damaged line
// inside the tool's.
type toolParser interface {
	feed(line string) error
	finish() error
	ownLine(line string) bool
}

// run feeds r to tp and returns the report filled so far, with every
// error found. A damaged line is reported and reading goes on; lines
// after the tool's last own line (another command's output pasted after
// it, a prompt) are skipped with a warning; a pdsh host label before
// each line is removed and names the devices' Host.
func (p *lineParser) run(r io.Reader, tp toolParser) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return p.rep, p.ErrorAt(1, ErrMalformed, "read: %s", err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the newline that ends the last line
	}
	strip := launcher.Detect(lines)
	last := -1
	for i, raw := range lines {
		rest, _ := strip.Strip(strings.TrimRight(raw, "\r"))
		if l := strings.TrimSpace(rest); l != "" && tp.ownLine(l) {
			last = i
		}
	}
	var errs []error
	for i, raw := range lines {
		p.Line = i + 1
		rest, prefix := strip.Strip(strings.TrimRight(raw, "\r"))
		line := strings.TrimSpace(rest)
		if line == "" {
			continue
		}
		p.host = hostLabel(prefix)
		if last >= 0 && i > last {
			span := fmt.Sprintf("lines %d-%d", i+1, lastNonBlank(lines))
			if end := lastNonBlank(lines); end == i+1 {
				span = fmt.Sprintf("line %d", end)
			}
			p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("%s after the %s output are not %s's (from %q): skipped",
				span, p.Format, p.Format, parse.Clip(line, 60)))
			break
		}
		if err := tp.feed(line); err != nil {
			errs = append(errs, err)
			if !errors.Is(err, ErrMalformed) {
				break
			}
		}
	}
	if err := tp.finish(); err != nil {
		errs = append(errs, err)
	}
	if hosts := strip.Hosts(); len(hosts) > 0 {
		p.rep.Warnings = append(p.rep.Warnings, "lines carry host labels (pdsh): "+strings.Join(hosts, ", ")+"; each device's Host says whose it is")
	}
	return p.rep, errors.Join(errs...)
}

// hostLabel is the pdsh host in a stripped prefix ("node1: "), or "".
func hostLabel(prefix string) string {
	for _, f := range strings.Fields(prefix) {
		if h, ok := strings.CutSuffix(f, ":"); ok && h != "" && !isDigits(h) {
			return h
		}
	}
	return ""
}

func lastNonBlank(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return i + 1
		}
	}
	return 0
}

// skip keeps a line met before the tool's first record (a shell prompt,
// an ibwarn line) as a warning.
func (p *lineParser) skip(before, line string) {
	if p.first == 0 {
		p.first = p.Line
	}
	p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("line %d before the %s skipped: %s", p.Line, before, parse.Clip(line, 80)))
}
