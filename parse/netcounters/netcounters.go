// Package netcounters reads a NIC port's error and congestion counters
// in the forms the tools print them:
//
//   - perfquery (infiniband-diags), with or without -x: "# Port counters:
//     Lid 1 port 1 (CapMask: 0x5A00)" then "SymbolErrorCounter:......0";
//   - the kernel's sysfs counters as `grep -H . .../counters/* .../hw_counters/*`
//     prints them: "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error:0";
//   - `ethtool -S DEV`: "NIC statistics:" then "     rx_prio3_pause: 0"
//     (the device named by a preceding "ethtool -S DEV" line or a
//     "# DEV" header, else unnamed).
//
// Several outputs may follow one another in one input (a node's ports, or
// the same port read twice to make a rate). Each counter is kept under
// the name the tool printed and, where it is one of the counters the
// doctor reads, under a common name as well (Names: symbol_errors,
// link_downed, pfc_pause_rx_prio3, cnp_sent, ...), so an InfiniBand port
// and an Ethernet one are read alike. Delta subtracts one snapshot from
// another port by port.
//
// The package owns reading those outputs; what a count means for a job
// (thresholds, sources) is the doctor's.
package netcounters

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// Tools a port's counters come from.
const (
	ToolPerfquery = "perfquery"
	ToolSysfs     = "sysfs"
	ToolEthtool   = "ethtool"
)

// ErrMalformed is wrapped for input that is none of the three forms.
var ErrMalformed = fmt.Errorf("netcounters: malformed: %w", parse.ErrFormat)

// Common counter names (Port.Counters keys).
const (
	SymbolErrors        = "symbol_errors"
	LinkErrorRecovery   = "link_error_recovery"
	LinkDowned          = "link_downed"
	RcvErrors           = "rcv_errors"
	RcvRemotePhysErrors = "rcv_remote_physical_errors"
	XmitDiscards        = "xmit_discards"
	LocalLinkIntegrity  = "local_link_integrity_errors"
	BufferOverrun       = "excessive_buffer_overrun_errors"
	XmitWait            = "xmit_wait"
	RcvDiscards         = "rcv_discards"
	CRCErrors           = "crc_errors"
	ECNMarked           = "ecn_marked"
	CNPSent             = "cnp_sent"
	CNPHandled          = "cnp_handled"
	OutOfSequence       = "out_of_sequence"
	AckTimeouts         = "local_ack_timeout_err"
	// PFC pause frames per priority: "pfc_pause_rx_prio3",
	// "pfc_pause_tx_prio3"; global (802.3x) pause: "pause_rx", "pause_tx".
	PausePrefix = "pfc_pause_"
)

// common maps the names each tool prints to the common names: perfquery's
// field names (InfiniBand spec PortCounters), the kernel's
// /sys/class/infiniband/*/ports/*/counters and hw_counters files
// (Documentation/ABI/stable/sysfs-class-infiniband), and the Ethernet
// drivers' ethtool names (mlx5 en_stats.c: *_phy, rx_prioN_pause,
// rx_ecn_mark; other drivers' plain forms).
var common = map[string]string{
	"SymbolErrorCounter": SymbolErrors, "symbol_error": SymbolErrors, "rx_symbol_err_phy": SymbolErrors, "rx_symbol_errors": SymbolErrors,
	"LinkErrorRecoveryCounter": LinkErrorRecovery, "link_error_recovery": LinkErrorRecovery,
	"LinkDownedCounter": LinkDowned, "link_downed": LinkDowned, "link_down_events_phy": LinkDowned,
	"PortRcvErrors": RcvErrors, "port_rcv_errors": RcvErrors, "rx_errors": RcvErrors,
	"PortRcvRemotePhysicalErrors": RcvRemotePhysErrors, "port_rcv_remote_physical_errors": RcvRemotePhysErrors,
	"PortXmitDiscards": XmitDiscards, "port_xmit_discards": XmitDiscards, "tx_discards_phy": XmitDiscards,
	"LocalLinkIntegrityErrors": LocalLinkIntegrity, "local_link_integrity_errors": LocalLinkIntegrity,
	"ExcessiveBufferOverrunErrors": BufferOverrun, "excessive_buffer_overrun_errors": BufferOverrun,
	"PortXmitWait": XmitWait, "port_xmit_wait": XmitWait,
	"rx_discards_phy": RcvDiscards, "rx_out_of_buffer": RcvDiscards, "out_of_buffer": RcvDiscards, "rx_discards": RcvDiscards,
	"rx_crc_errors_phy": CRCErrors, "rx_crc_errors": CRCErrors,
	"rx_ecn_mark": ECNMarked, "np_ecn_marked_roce_packets": ECNMarked,
	"np_cnp_sent": CNPSent, "rp_cnp_handled": CNPHandled,
	"out_of_sequence": OutOfSequence, "local_ack_timeout_err": AckTimeouts,
	"rx_pause_ctrl_phy": "pause_rx", "tx_pause_ctrl_phy": "pause_tx", "rx_pause_frames": "pause_rx", "tx_pause_frames": "pause_tx",
}

var (
	rePrioPause  = regexp.MustCompile(`^(rx|tx)_prio(\d)_pause$`)
	rePerfHead   = regexp.MustCompile(`^# Port (?:extended )?counters: Lid (\d+) port (\d+)`)
	rePerfField  = regexp.MustCompile(`^(\w+):\.*\s*(\S+)\s*$`)
	reSysfs      = regexp.MustCompile(`^(?:(\S+?):\s*)?/sys/class/infiniband/([^/]+)/ports/(\d+)/(?:hw_)?counters/([^:/]+):\s*(\d+)\s*$`)
	reEthtool    = regexp.MustCompile(`^\s+([\w\[\]\-. ]+?):\s*(-?\d+)\s*$`)
	reEthtoolCmd = regexp.MustCompile(`ethtool -S\s+(\S+)`)
)

// Port is one port's counters as one output printed them.
type Port struct {
	Tool string `json:"tool"`
	// Device and Port name the port ("mlx5_0", 1; an ethtool device and
	// port 0); Lid is perfquery's; Host a pdsh-style "host:" prefix of
	// sysfs lines.
	Device string `json:"device,omitempty"`
	Port   int    `json:"port,omitempty"`
	Lid    int    `json:"lid,omitempty"`
	Host   string `json:"host,omitempty"`
	// Counters are the common names' values; Raw every counter as printed.
	Counters map[string]uint64 `json:"counters"`
	Raw      map[string]uint64 `json:"raw"`
	Line     int               `json:"line"`
}

// Key names the port across snapshots: "host/mlx5_0/1".
func (p Port) Key() string { return fmt.Sprintf("%s/%s/%d", p.Host, p.Device, p.Port) }

func (p Port) String() string {
	s := p.Device
	if s == "" {
		s = "(unnamed)"
	}
	if p.Port > 0 {
		s += fmt.Sprintf(" port %d", p.Port)
	}
	if p.Host != "" {
		s = p.Host + " " + s
	}
	return s
}

// Snapshot is what Parse read: the ports in input order (a port read
// twice appears twice).
type Snapshot struct {
	Ports    []Port   `json:"ports"`
	Warnings []string `json:"warnings,omitempty"`
}

func (p *Port) set(name string, v uint64) {
	p.Raw[name] = v
	if c, ok := common[name]; ok {
		p.Counters[c] += v
	}
	if m := rePrioPause.FindStringSubmatch(name); m != nil {
		p.Counters[PausePrefix+m[1]+"_prio"+m[2]] = v
	}
}

func newPort(tool string, line int) *Port {
	return &Port{Tool: tool, Counters: map[string]uint64{}, Raw: map[string]uint64{}, Line: line}
}

// Parse reads perfquery, sysfs counter and ethtool -S output, in any
// mix. Input with none of them returns an error wrapping parse.ErrFormat.
func Parse(r io.Reader) (*Snapshot, error) {
	s := &Snapshot{}
	sc := textinput.Scanner{Format: "netcounters", Malformed: ErrMalformed}
	var cur *Port
	ethDev := ""
	flush := func() {
		if cur != nil && len(cur.Raw) > 0 {
			s.Ports = append(s.Ports, *cur)
		}
		cur = nil
	}
	sysfsPort := map[string]int{} // key -> index in s.Ports of the port being filled
	err := sc.Scan(r, func(line string) error {
		trimmed := strings.TrimSpace(line)
		switch {
		case reSysfs.MatchString(trimmed):
			flush()
			m := reSysfs.FindStringSubmatch(trimmed)
			port, _ := strconv.Atoi(m[3])
			v, _ := strconv.ParseUint(m[5], 10, 64)
			key := m[1] + "/" + m[2] + "/" + m[3]
			i, ok := sysfsPort[key]
			if !ok || hasRaw(s.Ports[i], m[4]) {
				// a new port, or the same port read again: a new snapshot
				p := newPort(ToolSysfs, sc.Line)
				p.Host, p.Device, p.Port = m[1], m[2], port
				s.Ports = append(s.Ports, *p)
				i = len(s.Ports) - 1
				sysfsPort[key] = i
			}
			s.Ports[i].set(m[4], v)
		case rePerfHead.MatchString(trimmed):
			flush()
			m := rePerfHead.FindStringSubmatch(trimmed)
			cur = newPort(ToolPerfquery, sc.Line)
			cur.Lid, _ = strconv.Atoi(m[1])
			cur.Port, _ = strconv.Atoi(m[2])
		case cur != nil && cur.Tool == ToolPerfquery && rePerfField.MatchString(trimmed):
			m := rePerfField.FindStringSubmatch(trimmed)
			if m[1] == "PortSelect" {
				if n, err := strconv.Atoi(m[2]); err == nil && cur.Port == 0 {
					cur.Port = n
				}
				return nil
			}
			if strings.HasPrefix(m[1], "CounterSelect") || strings.HasPrefix(m[2], "0x") {
				return nil
			}
			if v, err := strconv.ParseUint(m[2], 10, 64); err == nil {
				cur.set(m[1], v)
			}
		case rePerfField.MatchString(trimmed) && strings.HasPrefix(trimmed, "PortSelect:"):
			// perfquery without its "# Port counters" header
			flush()
			cur = newPort(ToolPerfquery, sc.Line)
			cur.Port, _ = strconv.Atoi(rePerfField.FindStringSubmatch(trimmed)[2])
		case trimmed == "NIC statistics:":
			flush()
			cur = newPort(ToolEthtool, sc.Line)
			cur.Device = ethDev
			ethDev = ""
		case cur != nil && cur.Tool == ToolEthtool && reEthtool.MatchString(line):
			m := reEthtool.FindStringSubmatch(line)
			if v, err := strconv.ParseUint(m[2], 10, 64); err == nil {
				cur.set(strings.TrimSpace(m[1]), v)
			}
		case reEthtoolCmd.MatchString(trimmed):
			flush()
			ethDev = reEthtoolCmd.FindStringSubmatch(trimmed)[1]
		case strings.HasPrefix(trimmed, "# ") && !strings.Contains(trimmed, ":") && len(strings.Fields(trimmed)) == 2:
			flush()
			ethDev = strings.Fields(trimmed)[1]
		case trimmed == "":
		default:
			if cur != nil && cur.Tool == ToolEthtool {
				return nil // a driver's odd line inside the statistics
			}
			if len(s.Warnings) < 20 {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: not a counter: %s", sc.Line, parse.Clip(trimmed, 80)))
			}
		}
		return nil
	})
	flush()
	if err != nil {
		return s, err
	}
	if len(s.Ports) == 0 {
		return s, &parse.Error{Format: "netcounters", Line: 1, Msg: "no perfquery, sysfs counter or ethtool -S output", Err: parse.ErrFormat}
	}
	return s, nil
}

func hasRaw(p Port, name string) bool { _, ok := p.Raw[name]; return ok }

// Delta is one port's change between two snapshots.
type Delta struct {
	Port Port `json:"port"`
	// Counters are after minus before, per common name; a counter that
	// went down (cleared, or wrapped) is left out and named in Reset.
	Counters map[string]uint64 `json:"counters"`
	Reset    []string          `json:"reset,omitempty"`
}

// Deltas pairs each port of after with the same port (Key) in before and
// subtracts; ports only in one are left out. For one input holding the
// same port twice, Deltas(s.First(), s.Last()) does it.
func Deltas(before, after []Port) []Delta {
	prev := map[string]Port{}
	for _, p := range before {
		prev[p.Key()] = p
	}
	var out []Delta
	for _, p := range after {
		b, ok := prev[p.Key()]
		if !ok {
			continue
		}
		d := Delta{Port: p, Counters: map[string]uint64{}}
		for _, k := range slices.Sorted(maps.Keys(p.Counters)) {
			v, was := p.Counters[k], b.Counters[k]
			if v < was {
				d.Reset = append(d.Reset, k)
				continue
			}
			d.Counters[k] = v - was
		}
		out = append(out, d)
	}
	return out
}

// First and Last are each port's first and last reading in the input
// (the same when a port was read once).
func (s *Snapshot) First() []Port { return s.pick(true) }
func (s *Snapshot) Last() []Port  { return s.pick(false) }

func (s *Snapshot) pick(first bool) []Port {
	idx := map[string]int{}
	var keys []string
	for i, p := range s.Ports {
		k := p.Key()
		if _, ok := idx[k]; !ok {
			keys = append(keys, k)
			idx[k] = i
		} else if !first {
			idx[k] = i
		}
	}
	out := make([]Port, 0, len(keys))
	for _, k := range keys {
		out = append(out, s.Ports[idx[k]])
	}
	return out
}

// Repeated says whether some port was read more than once (a rate can be
// made from the one input).
func (s *Snapshot) Repeated() bool { return len(s.First()) < len(s.Ports) }
