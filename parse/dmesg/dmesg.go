// Package dmesg reads what the kernel log says about a job's GPUs and
// NICs: the NVIDIA driver's Xid events (`NVRM: Xid (PCI:0000:44:00): 79,
// pid=1234, name=python3, GPU has fallen off the bus.`), a GPU that fell
// off the bus (with an Xid, or in the driver's own words over several
// lines), and mlx5 ports changing link state (`mlx5_core 0000:ab:00.0
// mlx5_5: Port: 1 Link DOWN`). It reads `dmesg` (with or without -T),
// `journalctl -k` and syslog text alike: the event is found wherever it
// sits in the line, the timestamp and host are kept as printed.
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
	// Device, Port and State are a NIC's: "mlx5_5", 1, "DOWN".
	Device string `json:"device,omitempty"`
	Port   int    `json:"port,omitempty"`
	State  string `json:"state,omitempty"`
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
	// timestamps: "[ 1843.308145]", "[Mon Jun  2 13:13:04 2025]", and
	// journal/syslog "Feb 14 05:03:41 host kernel:"
	reBracket = regexp.MustCompile(`^\s*\[([^\]]+)\]\s*`)
	reJournal = regexp.MustCompile(`^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT[0-9:.+\-Z]+) (\S+) kernel: `)
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
			l.Events = append(l.Events, e)
		case reFallenOld.MatchString(line):
			m := reFallenOld.FindStringSubmatch(line)
			l.Events = append(l.Events, Event{Kind: KindFallenOffBus, Line: l.Lines, Time: when, Host: host, PCI: m[1],
				Text: strings.TrimSpace(line[strings.Index(line, "NVRM:")+len("NVRM:"):])})
		case reGPUNamed.MatchString(line):
			m := reGPUNamed.FindStringSubmatch(line)
			pending = &Event{Kind: KindFallenOffBus, Line: l.Lines, Time: when, Host: host, PCI: m[1]}
			pendingText = strings.TrimSpace(line[strings.Index(line, "NVRM:")+len("NVRM:"):])
			if strings.Contains(pendingText, "fallen off the bus") {
				pending.Text = pendingText
				l.Events = append(l.Events, *pending)
				pending = nil
			}
		case reMlx5.MatchString(line):
			m := reMlx5.FindStringSubmatch(line)
			e := Event{Kind: KindNICLink, Line: l.Lines, Time: when, Host: host, PCI: m[1], Device: m[2], State: strings.ToUpper(m[4])}
			e.Port, _ = strconv.Atoi(m[3])
			e.Text = strings.TrimSpace(line[strings.Index(line, "mlx5_core"):])
			l.Events = append(l.Events, e)
		}
	}
	if err := sc.Err(); err != nil {
		return l, &parse.Error{Format: "dmesg", Line: l.Lines + 1, Msg: err.Error(), Err: parse.ErrFormat}
	}
	return l, nil
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

// LinksDown are the NIC ports whose last state change in the log left
// them not ACTIVE.
func (l *Log) LinksDown() []Event {
	last := map[string]Event{}
	var keys []string
	for _, e := range l.Events {
		if e.Kind != KindNICLink {
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
		if e := last[k]; e.State != "ACTIVE" {
			out = append(out, e)
		}
	}
	return out
}

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
