// Package dmesg reads what the kernel log says about a job's GPUs and
// NICs: the NVIDIA driver's Xid events (`NVRM: Xid (PCI:0000:44:00): 79,
// pid=1234, name=python3, GPU has fallen off the bus.`), a GPU that fell
// off the bus (with an Xid, or in the driver's own words over several
// lines), NVSwitch SXid events (`nvidia-nvswitch3: SXid
// (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 ...`), RDMA ports changing
// state (`mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN`), network
// interfaces going down and up in the drivers' forms (mlx5's
// `mlx5_core 0000:98:00.1 enp152s0f1np1: Link down`, igc/i40e/ice's `NIC
// Link is Down`), transceiver module events (`Port module event: module
// 0, Cable unplugged`), a NIC's slot short of power, mlx5 firmware health
// events, and PCIe AER errors (`pcieport 0000:00:02.0: AER: Uncorrected
// (Fatal) error received`). It reads `dmesg` (with or without -T, or
// --time-format iso), `journalctl -k`, syslog and OpenWrt logread text
// alike: the event is found wherever it sits in the line, the timestamp
// and host are kept as printed, and the seconds since boot of a
// "[ 1843.308145]" stamp as a number, so that events can be put in order
// beside a stalled collective.
//
// The package owns reading those lines. What an Xid means for a job is
// the doctor's to say (doctor); the driver's own text after the code is
// kept as it was printed rather than looked up in a table.
package dmesg

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// ErrBinary is wrapped when the input is not text.
var ErrBinary = fmt.Errorf("dmesg: binary input: %w", parse.ErrFormat)

// Event kinds.
const (
	KindXid          = "xid"
	KindFallenOffBus = "fallen-off-bus"
	KindNICLink      = "nic-link"
	// KindNetdevLink is a network interface's carrier going down or up
	// (State "DOWN" or "UP"; Device the interface, Driver the driver).
	KindNetdevLink = "netdev-link"
	// KindModule is a transceiver module event (State "plugged",
	// "unplugged" or "error"; Port the module number).
	KindModule = "nic-module"
	// KindPCIePower is a NIC saying its slot gives it too little power.
	KindPCIePower = "pcie-power"
	// KindNICFirmware is an mlx5 firmware health event (a fatal error,
	// a reset, a recovery).
	KindNICFirmware = "nic-firmware"
	// KindAER is a PCIe Advanced Error Reporting message (State
	// "corrected", "non-fatal" or "fatal"; PCI the port that reported it,
	// Device the device it names as the source when it names one).
	KindAER = "pcie-aer"
	// KindSXid is an NVSwitch SXid (Xid the code, State "fatal" or
	// "non-fatal" when the driver says which, Device the switch).
	KindSXid = "sxid"
)

// Event is one thing the kernel said about a GPU or a NIC.
type Event struct {
	Kind string `json:"kind"`
	Line int    `json:"line"`
	// Time is the line's timestamp as printed ("[ 1843.308145]", "Feb 14
	// 05:03:41"); Host the journal's or syslog's host field.
	Time string `json:"time,omitempty"`
	Host string `json:"host,omitempty"`
	// Xid is the code (0 for a fallen-off-bus message without one), PCI the
	// device's bus address as printed ("0000:44:00"), PID and Process the
	// process the driver names (0 and "" when it names none).
	Xid     int    `json:"xid,omitempty"`
	PCI     string `json:"pci,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	// CausedBy is the earlier Xid the driver says this one follows from
	// ("caused by previous Xid 149").
	CausedBy int `json:"caused_by,omitempty"`
	// Seconds is a "[ 1843.308145]" stamp's seconds since boot (0 when
	// the line has none).
	Seconds float64 `json:"seconds,omitempty"`
	// Device, Port and State are a NIC's: "mlx5_5", 1, "DOWN".
	Device string `json:"device,omitempty"`
	Port   int    `json:"port,omitempty"`
	State  string `json:"state,omitempty"`
	// Driver is the kernel driver that printed a NIC or PCIe line
	// ("mlx5_core", "igc", "pcieport").
	Driver string `json:"driver,omitempty"`
	// Text is the driver's message after the code, as printed.
	Text string `json:"text"`
}

func (e Event) String() string {
	where := e.PCI
	if e.Host != "" {
		where = e.Host + " " + where
	}
	switch e.Kind {
	case KindXid:
		s := fmt.Sprintf("Xid %d on %s: %s", e.Xid, where, e.Text)
		if e.Process != "" {
			s += fmt.Sprintf(" (process %s, pid %d)", e.Process, e.PID)
		}
		return s
	case KindFallenOffBus:
		return fmt.Sprintf("GPU %s fell off the bus: %s", where, e.Text)
	case KindNetdevLink:
		return fmt.Sprintf("%s link %s (%s %s)", e.Device, e.State, e.Driver, where)
	case KindModule:
		return fmt.Sprintf("module %d %s on %s: %s", e.Port, e.State, where, e.Text)
	case KindPCIePower, KindNICFirmware:
		return fmt.Sprintf("%s %s: %s", e.Driver, where, e.Text)
	case KindAER:
		s := fmt.Sprintf("PCIe AER %s error at %s", e.State, where)
		if e.Device != "" {
			s += " from " + e.Device
		}
		return s
	case KindSXid:
		return fmt.Sprintf("SXid %d on %s %s: %s", e.Xid, e.Device, where, e.Text)
	default:
		return fmt.Sprintf("%s port %d link %s (%s)", e.Device, e.Port, e.State, where)
	}
}

// Log is what Parse read.
type Log struct {
	Events []Event `json:"events"`
	Lines  int     `json:"lines"`
}

var (
	reXid = regexp.MustCompile(`NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\): (\d+),\s*(.*)$`)
	rePID = regexp.MustCompile(`^pid=('?[^,']*'?),\s*`)
	reNam = regexp.MustCompile(`^name=([^,]*),\s*`)
	// "caused by previous Xid 149"
	reCause = regexp.MustCompile(`caused by previous Xid (\d+)`)
	// old drivers: "NVRM: GPU at 0000:01:00.0 has fallen off the bus."
	reFallenOld = regexp.MustCompile(`NVRM: GPU at (?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]) has fallen off the bus`)
	// newer drivers, over several NVRM lines: "NVRM: The NVIDIA GPU
	// 0000:b3:00.0 / NVRM: (PCI ID: ...) installed in this system has /
	// NVRM: fallen off the bus and is not responding to commands."
	reGPUNamed = regexp.MustCompile(`NVRM: The NVIDIA GPU ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])`)
	reMlx5     = regexp.MustCompile(`mlx5_core ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]) (\S+): Port: (\d+) Link (\w+)`)
	// a network interface's carrier: mlx5 "Link down"/"Link up", igc,
	// i40e, ice, bnxt "NIC Link is Down"/"NIC Link is Up 100 Gbps ..."
	reNetdev = regexp.MustCompile(`(\S+) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]) (\S+): (?:NIC )?Link (?:is )?([Dd]own|[Uu]p)\b`)
	// mlx5 events.c: "Port module event: module 0, Cable unplugged",
	// "Port module event[error]: module 0, Cable error, High Temperature"
	reModule = regexp.MustCompile(`(\S+) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): Port module event(\[error\])?: module (\d+), (.*)$`)
	// mlx5 "mlx5_pcie_event:326: Detected insufficient power on the
	// PCIe slot (27W)." (the "advertised sufficient power" line is not an event)
	rePower = regexp.MustCompile(`(\S+) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): .*?(Detected insufficient power on the PCIe slot.*)$`)
	// mlx5 health.c: "poll_health:...: Fatal error 1 detected", "device's
	// health compromised", resets and recovery
	reFirmware = regexp.MustCompile(`(mlx5_core) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): .*?((?:Fatal error \d+ detected|device's health compromised|[Ss]tarting health recovery|health recovery flow|[Ss]ync [Rr]eset|[Ff]irmware reset|FW reset).*)$`)
	// AER: "pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error
	// received: id=0010", "... AER: Corrected error message received from
	// 0000:01:00.0", "AER: Multiple Uncorrected (Non-Fatal) error received: 0000:00:03.0"
	reAER = regexp.MustCompile(`(\S+) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]): AER: (?:Multiple )?(Corrected|Correctable|Uncorrected \(Non-Fatal\)|Uncorrected \(Fatal\)|Uncorrectable \(Non-Fatal\)|Uncorrectable \(Fatal\)) error (?:message )?received(?:(?: from|:) ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]))?`)
	// NVSwitch: "nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Non-fatal, Link 44 ..."
	reSXid = regexp.MustCompile(`(nvidia-nvswitch\d*): SXid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\): (\d+), (.*)$`)
	// timestamps: "[ 1843.308145]", "[Mon Jun  2 13:13:04 2025]", and
	// journal/syslog "Feb 14 05:03:41 host kernel:", OpenWrt logread
	// "Sun Jun 11 23:02:41 2023 kern.info kernel: [39210.778735]",
	// dmesg --time-format iso (-x: "kern  :err   : ") "2025-01-25T10:34:54,859532+00:00"
	reBracket = regexp.MustCompile(`^\s*\[([^\]]+)\]\s*`)
	reJournal = regexp.MustCompile(`^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT[0-9:.+\-Z]+) (\S+) kernel: `)
	reLogread = regexp.MustCompile(`^([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}) \S+ kernel: `)
	reISO     = regexp.MustCompile(`^(?:\w+\s*:\s*\w+\s*: )?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]?\d*[+-]\d\d:?\d\d) `)
	reUptime  = regexp.MustCompile(`\[\s*(\d+\.\d+)\]`)
)

// Parse reads kernel log text. Lines that say nothing about a GPU or a NIC
// are counted and skipped; the error is for input that is not text.
func Parse(r io.Reader) (*Log, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("dmesg: %w", err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return &Log{}, &parse.Error{Format: "dmesg", Binary: true, Offset: bytes.IndexByte(data, 0), Msg: "a NUL byte: not a kernel log", Err: ErrBinary}
	}
	l := &Log{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var pending *Event // a multi-line "The NVIDIA GPU ..." message
	pendingText := ""
	for sc.Scan() {
		l.Lines++
		line := strings.TrimRight(sc.Text(), "\r")
		when, host := stamp(line)
		if pending != nil {
			if i := strings.Index(line, "NVRM:"); i >= 0 && continues(line[i+len("NVRM:"):]) {
				pendingText += " " + strings.TrimSpace(line[i+len("NVRM:"):])
				if strings.Contains(pendingText, "fallen off the bus") {
					pending.Text = strings.TrimSpace(pendingText)
					l.Events = append(l.Events, *pending)
					pending = nil
				}
				continue
			}
			pending = nil
		}
		switch {
		case reXid.MatchString(line):
			m := reXid.FindStringSubmatch(line)
			e := Event{Kind: KindXid, Line: l.Lines, Time: when, Host: host, PCI: m[1]}
			e.Xid, _ = strconv.Atoi(m[2])
			rest := m[3]
			if pm := rePID.FindStringSubmatch(rest); pm != nil {
				e.PID, _ = strconv.Atoi(strings.Trim(pm[1], "'"))
				rest = rest[len(pm[0]):]
			}
			if nm := reNam.FindStringSubmatch(rest); nm != nil {
				if n := strings.TrimSpace(nm[1]); n != "<unknown>" {
					e.Process = n
				}
				rest = rest[len(nm[0]):]
			}
			if cm := reCause.FindStringSubmatch(rest); cm != nil {
				e.CausedBy, _ = strconv.Atoi(cm[1])
			}
			e.Text = strings.TrimSpace(rest)
			l.add(e, line)
		case reFallenOld.MatchString(line):
			m := reFallenOld.FindStringSubmatch(line)
			l.add(Event{Kind: KindFallenOffBus, Line: l.Lines, Time: when, Host: host, PCI: m[1],
				Text: strings.TrimSpace(line[strings.Index(line, "NVRM:")+len("NVRM:"):])}, line)
		case reGPUNamed.MatchString(line):
			m := reGPUNamed.FindStringSubmatch(line)
			pending = &Event{Kind: KindFallenOffBus, Line: l.Lines, Time: when, Host: host, PCI: m[1], Seconds: uptime(line)}
			pendingText = strings.TrimSpace(line[strings.Index(line, "NVRM:")+len("NVRM:"):])
			if strings.Contains(pendingText, "fallen off the bus") {
				pending.Text = pendingText
				l.Events = append(l.Events, *pending)
				pending = nil
			}
		case reMlx5.MatchString(line):
			m := reMlx5.FindStringSubmatch(line)
			e := Event{Kind: KindNICLink, Line: l.Lines, Time: when, Host: host, PCI: m[1], Device: m[2], State: strings.ToUpper(m[4]), Driver: "mlx5_core"}
			e.Port, _ = strconv.Atoi(m[3])
			e.Text = strings.TrimSpace(line[strings.Index(line, "mlx5_core"):])
			l.add(e, line)
		case reNetdev.MatchString(line):
			m := reNetdev.FindStringSubmatchIndex(line)
			g := func(i int) string { return line[m[2*i]:m[2*i+1]] }
			l.add(Event{Kind: KindNetdevLink, Line: l.Lines, Time: when, Host: host, Driver: g(1), PCI: g(2), Device: g(3),
				State: strings.ToUpper(g(4)), Text: strings.TrimSpace(line[m[0]:])}, line)
		case reModule.MatchString(line):
			m := reModule.FindStringSubmatch(line)
			e := Event{Kind: KindModule, Line: l.Lines, Time: when, Host: host, Driver: m[1], PCI: m[2], Text: strings.TrimSpace(m[5])}
			e.Port, _ = strconv.Atoi(m[4])
			low := strings.ToLower(m[5])
			switch {
			case m[3] != "" || strings.Contains(low, "error"):
				e.State = "error"
			case strings.Contains(low, "unplugged"):
				e.State = "unplugged"
			case strings.Contains(low, "plugged"):
				e.State = "plugged"
			}
			l.add(e, line)
		case rePower.MatchString(line):
			m := rePower.FindStringSubmatch(line)
			l.add(Event{Kind: KindPCIePower, Line: l.Lines, Time: when, Host: host, Driver: m[1], PCI: m[2], Text: strings.TrimSpace(m[3])}, line)
		case reFirmware.MatchString(line):
			m := reFirmware.FindStringSubmatch(line)
			l.add(Event{Kind: KindNICFirmware, Line: l.Lines, Time: when, Host: host, Driver: m[1], PCI: m[2], Text: strings.TrimSpace(m[3])}, line)
		case reAER.MatchString(line):
			m := reAER.FindStringSubmatch(line)
			sev := "corrected"
			switch {
			case strings.Contains(m[3], "Non-Fatal"):
				sev = "non-fatal"
			case strings.Contains(m[3], "Fatal"):
				sev = "fatal"
			}
			l.add(Event{Kind: KindAER, Line: l.Lines, Time: when, Host: host, Driver: m[1], PCI: m[2], State: sev, Device: m[4],
				Text: strings.TrimSpace(line[strings.Index(line, "AER:"):])}, line)
		case reSXid.MatchString(line):
			m := reSXid.FindStringSubmatch(line)
			code, _ := strconv.Atoi(m[3])
			rest := strings.TrimSpace(m[4])
			sev := ""
			switch {
			case strings.HasPrefix(rest, "Non-fatal"):
				sev = "non-fatal"
			case strings.HasPrefix(rest, "Fatal"):
				sev = "fatal"
			}
			// an SXid prints a Data line, a severity line and a detail
			// line: one event, its text the severity line's when there is one
			if n := len(l.Events); n > 0 {
				prev := &l.Events[n-1]
				if prev.Kind == KindSXid && prev.Xid == code && prev.PCI == m[2] && prev.Device == m[1] && (prev.State == "" || sev == "") {
					if sev != "" {
						prev.State, prev.Text = sev, rest
					}
					continue
				}
			}
			l.add(Event{Kind: KindSXid, Line: l.Lines, Time: when, Host: host, Device: m[1], PCI: m[2], Xid: code, State: sev, Text: rest}, line)
		}
	}
	if err := sc.Err(); err != nil {
		return l, &parse.Error{Format: "dmesg", Line: l.Lines + 1, Msg: err.Error(), Err: parse.ErrFormat}
	}
	return l, nil
}

// add appends an event with the seconds since boot its line shows.
func (l *Log) add(e Event, line string) {
	e.Seconds = uptime(line)
	l.Events = append(l.Events, e)
}

// uptime is the seconds of a "[ 1843.308145]" stamp anywhere before the
// message (dmesg, or a syslog line that carries one); 0 when none.
func uptime(line string) float64 {
	if m := reUptime.FindStringSubmatch(line); m != nil && strings.Index(line, m[0]) < 80 {
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	return 0
}

// continues says whether an NVRM message continues the one before it
// rather than starting another.
func continues(msg string) bool {
	msg = strings.TrimSpace(msg)
	return !strings.HasPrefix(msg, "Xid") && !strings.HasPrefix(msg, "The NVIDIA GPU") && !strings.HasPrefix(msg, "GPU at")
}

// stamp reads a line's timestamp and host, when it has them.
func stamp(line string) (when, host string) {
	if m := reJournal.FindStringSubmatch(line); m != nil {
		return m[1], m[2]
	}
	if m := reLogread.FindStringSubmatch(line); m != nil {
		return m[1], ""
	}
	if m := reISO.FindStringSubmatch(line); m != nil {
		return m[1], ""
	}
	if m := reBracket.FindStringSubmatch(line); m != nil {
		return strings.TrimSpace(m[1]), ""
	}
	return "", ""
}

// Xids are the Xid events, in log order.
func (l *Log) Xids() []Event { return l.kind(KindXid) }

// GPUsLost are the GPUs that fell off the bus, by an Xid 79 or the
// driver's message, one event per device (the first).
func (l *Log) GPUsLost() []Event {
	seen := map[string]bool{}
	var out []Event
	for _, e := range l.Events {
		if e.Kind == KindFallenOffBus || e.Kind == KindXid && e.Xid == 79 {
			key := e.Host + "/" + BusKey(e.PCI)
			if !seen[key] {
				seen[key] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// LinksDown are the RDMA ports and network interfaces whose last state
// change in the log left them not ACTIVE (UP, for an interface).
func (l *Log) LinksDown() []Event {
	last := map[string]Event{}
	var keys []string
	for _, e := range l.Events {
		if e.Kind != KindNICLink && e.Kind != KindNetdevLink {
			continue
		}
		k := fmt.Sprintf("%s/%s/%d", e.Host, e.Device, e.Port)
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = e
	}
	var out []Event
	for _, k := range keys {
		if e := last[k]; e.State != "ACTIVE" && e.State != "UP" {
			out = append(out, e)
		}
	}
	return out
}

// Flaps are the ports and interfaces that went down in the log and came
// back: each one's down events, in order, whatever its last state.
func (l *Log) Flaps() []Event {
	var out []Event
	downs := map[string][]Event{}
	var keys []string
	for _, e := range l.Events {
		if e.Kind != KindNICLink && e.Kind != KindNetdevLink {
			continue
		}
		k := fmt.Sprintf("%s/%s/%d", e.Host, e.Device, e.Port)
		if e.State == "ACTIVE" || e.State == "UP" {
			if len(downs[k]) > 0 && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
			continue
		}
		downs[k] = append(downs[k], e)
	}
	for _, k := range keys {
		out = append(out, downs[k]...)
	}
	return out
}

// Of returns the events of one kind (KindAER, KindModule, ...), in log order.
func (l *Log) Of(kind string) []Event { return l.kind(kind) }

// RootXids are the Xid events no other Xid in the log explains: an Xid 45
// "caused by previous Xid 149" is the consequence, not the fault, when
// an Xid 149 is there (or only the consequence was logged).
func (l *Log) RootXids() []Event {
	var out []Event
	for _, e := range l.Xids() {
		if e.CausedBy == 0 {
			out = append(out, e)
		}
	}
	return out
}

func (l *Log) kind(k string) []Event {
	var out []Event
	for _, e := range l.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// BusKey normalizes a PCI address for comparison across tools: lower
// case, a four-digit domain, no function ("00000000:44:00.0", "44:00.0"
// and "0000:44:00" are all "0000:44:00").
func BusKey(pci string) string {
	s := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(pci), "PCI:"))
	if i := strings.LastIndexByte(s, '.'); i > 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ":")
	if len(parts) == 2 {
		parts = append([]string{"0000"}, parts...)
	}
	if len(parts) == 3 && len(parts[0]) > 4 {
		parts[0] = parts[0][len(parts[0])-4:]
	}
	return strings.Join(parts, ":")
}

// Codes lists the distinct Xid codes, ascending.
func (l *Log) Codes() []int {
	seen := map[int]bool{}
	var out []int
	for _, e := range l.Xids() {
		if !seen[e.Xid] {
			seen[e.Xid] = true
			out = append(out, e.Xid)
		}
	}
	sort.Ints(out)
	return out
}
