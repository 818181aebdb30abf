package perftest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrTruncated means the report stops before or inside its results.
	ErrTruncated = errors.New("perftest: truncated report")
	// ErrMalformed means a results line could not be read.
	ErrMalformed = errors.New("perftest: malformed line")
)

// Bytes per second in one printed unit, from perftest_parameters.c
// (print_report_bw: format_factor = MBS ? 0x100000 : 125000000).
const (
	BytesPerMB = 1 << 20   // "MB/sec" and "MiB/sec": perftest divides by 2^20
	BytesPerGb = 125000000 // "Gb/sec": 10^9 bits / 8
)

// Address is one "local address:" or "remote address:" line and the GID
// line that follows it.
type Address struct {
	Side  string `json:"side"` // "local" or "remote"
	LID   string `json:"lid,omitempty"`
	QPN   string `json:"qpn,omitempty"`
	PSN   string `json:"psn,omitempty"`
	RKey  string `json:"rkey,omitempty"`
	VAddr string `json:"vaddr,omitempty"`
	GID   string `json:"gid,omitempty"`
}

// Bandwidth is one row of a bandwidth table.
type Bandwidth struct {
	Bytes      int64 `json:"bytes" unit:"B"`
	Iterations int64 `json:"iterations"`
	// Peak and Average are in Report.Unit as printed.
	Peak    float64 `json:"peak"`
	Average float64 `json:"average"`
	// PeakBytesPerSecond and AverageBytesPerSecond are 0 when the unit is
	// unknown.
	PeakBytesPerSecond    float64 `json:"peak_bytes_per_second" unit:"B/s"`
	AverageBytesPerSecond float64 `json:"average_bytes_per_second" unit:"B/s"`
	MsgRateMpps           float64 `json:"msg_rate_mpps"`
	// ServiceLevel is set for --qos reports (the #sl column), else -1.
	ServiceLevel int `json:"service_level"`
	// CPUUtil is the CPU_Util[%] column printed with --cpu_util, else 0.
	CPUUtil float64 `json:"cpu_util,omitempty"`
	// Side is "", or "local"/"remote" for the JSON results_local and
	// results_remote sections.
	Side string `json:"side,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Latency is one row of a latency table, in Report.LatencyUnit ("usec",
// or "cycles" with -C).
type Latency struct {
	Bytes      int64   `json:"bytes" unit:"B"`
	Iterations int64   `json:"iterations"`
	Min        float64 `json:"min"`
	Max        float64 `json:"max"`
	Typical    float64 `json:"typical"`
	Average    float64 `json:"average"`
	Stdev      float64 `json:"stdev"`
	P99        float64 `json:"p99"`
	P999       float64 `json:"p99_9"`
	// Duration is true for -D runs, which print only t_avg and
	// transactions per second.
	Duration   bool    `json:"duration,omitempty"`
	TPSAverage float64 `json:"tps_average,omitempty"`
	Line       int     `json:"line,omitempty"`
}

// Report is one perftest run as one side printed it.
type Report struct {
	Format string `json:"format"` // "text" or "json"
	// Title is the test title, e.g. "RDMA_Write BW Test".
	Title string `json:"title,omitempty"`
	// Verb is "write", "read", "send" or "atomic"; Kind is "bandwidth" or
	// "latency".
	Verb          string `json:"verb,omitempty"`
	Kind          string `json:"kind,omitempty"`
	Bidirectional bool   `json:"bidirectional,omitempty"`

	Device         string `json:"device,omitempty"`
	LinkType       string `json:"link_type,omitempty"`
	TransportType  string `json:"transport_type,omitempty"`
	ConnectionType string `json:"connection_type,omitempty"`
	QPs            int    `json:"qps,omitempty"`
	MTU            int    `json:"mtu,omitempty"`
	GIDIndex       int    `json:"gid_index"` // -1 when not printed
	// Settings keeps every "key : value" pair of the header block as
	// printed.
	Settings  map[string]string `json:"settings,omitempty"`
	Addresses []Address         `json:"addresses,omitempty"`

	// UseCUDA is true when the report shows --use_cuda buffers.
	UseCUDA        bool     `json:"use_cuda,omitempty"`
	CUDADevice     int      `json:"cuda_device"` // -1 when unknown
	CUDADeviceName string   `json:"cuda_device_name,omitempty"`
	CUDABusIDs     []string `json:"cuda_bus_ids,omitempty"`

	// Unit is the bandwidth unit as printed ("MB/sec", "MiB/sec",
	// "Gb/sec"); UnitInferred is true when a JSON report did not name it.
	Unit         string  `json:"unit,omitempty"`
	UnitInferred bool    `json:"unit_inferred,omitempty"`
	BytesPerUnit float64 `json:"bytes_per_unit,omitempty"`
	LatencyUnit  string  `json:"latency_unit,omitempty"`

	Bandwidth []Bandwidth `json:"bandwidth,omitempty"`
	Latency   []Latency   `json:"latency,omitempty"`
	Warnings  []string    `json:"warnings,omitempty"`
}

// PeakBandwidth returns the row with the highest average bandwidth; ok is
// false when there is none.
func (r *Report) PeakBandwidth() (Bandwidth, bool) {
	best, ok := Bandwidth{}, false
	for _, b := range r.Bandwidth {
		if !ok || b.Average > best.Average {
			best, ok = b, true
		}
	}
	return best, ok
}

// UnitBytesPerSecond returns how many bytes per second one printed unit
// is, or 0 for an unknown unit.
func UnitBytesPerSecond(unit string) float64 {
	switch strings.TrimSpace(unit) {
	case "MB/sec", "MiB/sec":
		return BytesPerMB
	case "Gb/sec":
		return BytesPerGb
	}
	return 0
}

// Parse reads a perftest text report or --out_json file, whichever r holds.
// On error the returned Report holds what was parsed before the failure.
func Parse(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return newReport("text"), fmt.Errorf("perftest: read: %w", err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return ParseJSON(bytes.NewReader(data))
	}
	return ParseText(bytes.NewReader(data))
}

func newReport(format string) *Report {
	return &Report{Format: format, GIDIndex: -1, CUDADevice: -1}
}

var (
	reTitle    = regexp.MustCompile(`^(.*?)\s+(?:(Bidirectional)\s+)?(?:Post List\s+)?(BW|Latency)\s+(?:forwarding\s+)?(?:Multicast\s+)?Test$`)
	reAddress  = regexp.MustCompile(`^(local|remote) address:\s*(.*)$`)
	reAddrKV   = regexp.MustCompile(`(LID|QPN|PSN|RKey|VAddr|OUT)\s+(\S+)`)
	reUnitCol  = regexp.MustCompile(`BW average\[([^\]]+)\]`)
	reLatUnit  = regexp.MustCompile(`t_(?:min|avg)\[([^\]]+)\]`)
	reCUDAName = regexp.MustCompile(`^\[pid = \d+, dev = (\d+)\] device name = \[(.*)\]$`)
	reCUDABus  = regexp.MustCompile(`^CUDA device \d+: PCIe address is (\S+)$`)
	rePicking  = regexp.MustCompile(`^Picking device No\. (\d+)$`)
	reGap      = regexp.MustCompile(`\s{3,}`)
)

// table kinds
const (
	tableNone = iota
	tableBW
	tableLat
	tableLatDuration
)

// ParseText reads perftest's text report.
func ParseText(r io.Reader) (*Report, error) {
	rep := newReport("text")
	p := &textParser{Scanner: textinput.Scanner{Format: "perftest", Malformed: ErrMalformed}, rep: rep}
	if err := p.Scan(r, p.feed); err != nil {
		return rep, err
	}
	return rep, p.finish()
}

type textParser struct {
	textinput.Scanner
	rep        *Report
	recognised bool
	// preamble holds lines seen before anything perftest-like (a shell
	// prompt, a pasted command); firstUnknown is the first such line.
	preamble     []string
	firstUnknown int
	// badHeader is the line of a results header that could not be read;
	// it is an error unless it is the last line (then the report was cut).
	badHeader     int
	badHeaderText string
	table         int
	tableLine     int
	bwCols        bwColumns
}

// bwColumns says where the optional columns of a bandwidth table are.
type bwColumns struct {
	qos     bool // "#sl" column after #bytes
	perPort bool // four per-port columns after MsgRate
	cpu     bool // CPU_Util[%] at the end
}

func (p *textParser) feed(raw string) error {
	line := strings.TrimSpace(raw)
	if line == "" || strings.Trim(line, "-*") == "" {
		return nil
	}
	if p.badHeader > 0 {
		return p.ErrorAt(p.badHeader, ErrMalformed, "unknown results table header %q", parse.Clip(p.badHeaderText, 80))
	}
	if strings.HasPrefix(line, "#bytes") || strings.HasPrefix(line, "# bytes") {
		return p.tableHeader(line)
	}
	if p.table != tableNone && isDigit(line[0]) {
		return p.row(line)
	}
	if m := reTitle.FindStringSubmatch(line); m != nil && p.rep.Title == "" {
		p.recognise()
		p.rep.Title = line
		p.rep.Verb = verbOf(m[1])
		p.rep.Bidirectional = m[2] != ""
		if m[3] == "BW" {
			p.rep.Kind = "bandwidth"
		} else {
			p.rep.Kind = "latency"
		}
		return nil
	}
	if m := reAddress.FindStringSubmatch(line); m != nil {
		p.recognise()
		a := Address{Side: m[1]}
		for _, kv := range reAddrKV.FindAllStringSubmatch(m[2], -1) {
			switch kv[1] {
			case "LID":
				a.LID = kv[2]
			case "QPN":
				a.QPN = kv[2]
			case "PSN":
				a.PSN = kv[2]
			case "RKey":
				a.RKey = kv[2]
			case "VAddr":
				a.VAddr = kv[2]
			}
		}
		p.rep.Addresses = append(p.rep.Addresses, a)
		return nil
	}
	if strings.HasPrefix(line, "GID:") && len(p.rep.Addresses) > 0 {
		p.rep.Addresses[len(p.rep.Addresses)-1].GID = strings.TrimSpace(strings.TrimPrefix(line, "GID:"))
		return nil
	}
	if p.cudaLine(line) {
		return nil
	}
	if p.rep.Title != "" && p.table == tableNone && strings.Contains(line, ":") {
		p.settings(raw)
		return nil
	}
	if !p.recognised {
		if p.firstUnknown == 0 {
			p.firstUnknown = p.Line
		}
		p.preamble = append(p.preamble, line)
		return nil
	}
	// Anything else (CPU frequency warnings, deallocation notes) is kept.
	p.rep.Warnings = append(p.rep.Warnings, line)
	return nil
}

func (p *textParser) cudaLine(line string) bool {
	switch {
	case line == "initializing CUDA" || strings.HasPrefix(line, "creating CUDA Ctx") ||
		strings.HasPrefix(line, "making it the current CUDA Ctx") || strings.HasPrefix(line, "cuMemAlloc()") ||
		strings.HasPrefix(line, "allocated GPU buffer") || strings.HasPrefix(line, "Listing all CUDA devices") ||
		strings.HasPrefix(line, "There are ") && strings.Contains(line, "supporting CUDA") ||
		strings.HasPrefix(line, "Perftest doesn't supports CUDA") || strings.HasPrefix(line, "deallocating GPU buffer") ||
		strings.HasPrefix(line, "destroying current CUDA Ctx"):
		p.rep.UseCUDA = true
	case reCUDAName.MatchString(line):
		m := reCUDAName.FindStringSubmatch(line)
		p.rep.UseCUDA = true
		p.rep.CUDADevice = atoi(m[1])
		p.rep.CUDADeviceName = m[2]
	case reCUDABus.MatchString(line):
		p.rep.UseCUDA = true
		p.rep.CUDABusIDs = append(p.rep.CUDABusIDs, reCUDABus.FindStringSubmatch(line)[1])
	case rePicking.MatchString(line):
		p.rep.UseCUDA = true
		p.rep.CUDADevice = atoi(rePicking.FindStringSubmatch(line)[1])
	default:
		return false
	}
	p.recognise()
	return true
}

// recognise marks the input as perftest's and keeps what came before the
// first perftest line as warnings.
func (p *textParser) recognise() {
	if !p.recognised {
		p.rep.Warnings = append(p.rep.Warnings, p.preamble...)
		p.preamble = nil
	}
	p.recognised = true
}

// settings reads " Dual-port       : OFF\t\tDevice         : mlx5_0".
func (p *textParser) settings(raw string) {
	for _, part := range strings.Split(raw, "\t") {
		part = strings.TrimSpace(part)
		i := strings.Index(part, ":")
		if i <= 0 {
			continue
		}
		key := strings.TrimSpace(part[:i])
		val := strings.TrimSpace(part[i+1:])
		if key == "" {
			continue
		}
		// "rdma_cm QPs\t : OFF" puts the colon after the tab.
		if val == "" {
			continue
		}
		// Tabs turned into spaces (pasted reports) leave the second pair
		// inside the value: "OFF          Device         : ibp5".
		if j := strings.Index(val, ":"); j > 0 {
			head := strings.TrimRight(val[:j], " ")
			if gaps := reGap.FindAllStringIndex(head, -1); len(gaps) > 0 {
				first := gaps[0]
				p.setting(key, strings.TrimSpace(val[:first[0]]))
				rest := val[first[1]:]
				k := strings.Index(rest, ":")
				p.setting(strings.TrimSpace(rest[:k]), strings.TrimSpace(rest[k+1:]))
				continue
			}
		}
		p.setting(key, val)
	}
	// A tab inside "rdma_cm QPs\t : OFF" splits key from value.
	if strings.Contains(raw, "\t :") || strings.Contains(raw, "\t:") {
		fields := strings.SplitN(strings.ReplaceAll(raw, "\t", " "), ":", 2)
		p.setting(strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1]))
	}
}

func (p *textParser) setting(key, val string) {
	p.recognise()
	if p.rep.Settings == nil {
		p.rep.Settings = map[string]string{}
	}
	p.rep.Settings[key] = val
	applySetting(p.rep, key, val)
}

// applySetting copies the settings commlab uses into typed fields. Text
// keys ("Link type") and JSON keys ("Link_type") both arrive here.
func applySetting(rep *Report, key, val string) {
	switch strings.ToLower(strings.ReplaceAll(key, "_", " ")) {
	case "device":
		rep.Device = strings.Trim(val, `"`)
	case "link type":
		rep.LinkType = val
	case "transport type":
		rep.TransportType = val
	case "connection type":
		rep.ConnectionType = val
	case "number of qps":
		rep.QPs = atoi(val)
	case "mtu":
		rep.MTU = atoi(strings.TrimSuffix(val, "[B]"))
	case "gid index":
		rep.GIDIndex = atoi(val)
	case "use cuda memory", "use cuda":
		if strings.EqualFold(val, "ON") {
			rep.UseCUDA = true
		}
	}
}

func (p *textParser) tableHeader(line string) error {
	p.recognise()
	p.tableLine = p.Line
	switch {
	case strings.Contains(line, "BW peak[") || strings.Contains(line, "BW average["):
		if p.table == tableBW {
			return nil // perftest prints the header twice for some multi-QP runs
		}
		p.table = tableBW
		unit := ""
		if m := reUnitCol.FindStringSubmatch(line); m != nil {
			unit = m[1]
		}
		p.rep.Unit = unit
		p.rep.BytesPerUnit = UnitBytesPerSecond(unit)
		p.bwCols = bwColumns{
			qos:     strings.Contains(line, "#sl"),
			perPort: strings.Contains(line, "Port1"),
			cpu:     strings.Contains(line, "CPU_Util"),
		}
		if p.rep.Kind == "" {
			p.rep.Kind = "bandwidth"
		}
	case strings.Contains(line, "t_min["):
		p.table = tableLat
		if m := reLatUnit.FindStringSubmatch(line); m != nil {
			p.rep.LatencyUnit = m[1]
		}
		if p.rep.Kind == "" {
			p.rep.Kind = "latency"
		}
	case strings.Contains(line, "t_avg[") && strings.Contains(line, "tps"):
		p.table = tableLatDuration
		if m := reLatUnit.FindStringSubmatch(line); m != nil {
			p.rep.LatencyUnit = m[1]
		}
		if p.rep.Kind == "" {
			p.rep.Kind = "latency"
		}
	default:
		p.badHeader, p.badHeaderText = p.Line, line
	}
	return nil
}

func (p *textParser) row(line string) error {
	f := strings.Fields(line)
	nums := make([]float64, len(f))
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			// perftest prints warnings between header and rows; a line
			// that starts with a digit but is not numbers is a broken row.
			return p.Errorf(ErrMalformed, "results row field %d: %q is not a number", i+1, s)
		}
		nums[i] = v
	}
	switch p.table {
	case tableBW:
		want := 5
		if p.bwCols.qos {
			want++
		}
		if p.bwCols.perPort {
			want += 4
		}
		if len(nums) < want {
			return p.Errorf(ErrTruncated, "bandwidth row has %d fields, the header wants %d", len(nums), want)
		}
		b := Bandwidth{ServiceLevel: -1, Line: p.Line, Bytes: int64(nums[0])}
		i := 1
		if p.bwCols.qos {
			b.ServiceLevel = int(nums[1])
			i++
		}
		b.Iterations = int64(nums[i])
		b.Peak, b.Average, b.MsgRateMpps = nums[i+1], nums[i+2], nums[i+3]
		if p.bwCols.cpu && len(nums) > want {
			b.CPUUtil = nums[len(nums)-1]
		}
		b.PeakBytesPerSecond = b.Peak * p.rep.BytesPerUnit
		b.AverageBytesPerSecond = b.Average * p.rep.BytesPerUnit
		p.rep.Bandwidth = append(p.rep.Bandwidth, b)
	case tableLat:
		if len(nums) < 7 {
			return p.Errorf(ErrTruncated, "latency row has %d fields, want 9", len(nums))
		}
		l := Latency{Line: p.Line, Bytes: int64(nums[0]), Iterations: int64(nums[1]),
			Min: nums[2], Max: nums[3], Typical: nums[4], Average: nums[5], Stdev: nums[6]}
		// Older releases print only min, max and typical.
		if len(nums) >= 9 {
			l.P99, l.P999 = nums[7], nums[8]
		} else if len(nums) == 8 {
			return p.Errorf(ErrTruncated, "latency row has 8 fields, want 9")
		}
		p.rep.Latency = append(p.rep.Latency, l)
	case tableLatDuration:
		if len(nums) < 4 {
			return p.Errorf(ErrTruncated, "latency row has %d fields, want 4", len(nums))
		}
		p.rep.Latency = append(p.rep.Latency, Latency{Line: p.Line, Duration: true,
			Bytes: int64(nums[0]), Iterations: int64(nums[1]), Average: nums[2], TPSAverage: nums[3]})
	}
	return nil
}

func (p *textParser) finish() error {
	if !p.recognised {
		line := p.firstUnknown
		if line == 0 {
			line = p.Line
		}
		msg := "no perftest title, settings or results table found"
		if len(p.preamble) > 0 {
			msg = fmt.Sprintf("not a perftest report: %q", parse.Clip(p.preamble[0], 80))
		}
		return &parse.Error{Format: "perftest", Line: line, Msg: msg, Err: parse.ErrFormat}
	}
	if p.badHeader > 0 {
		return p.ErrorAt(p.badHeader, ErrTruncated, "report ends inside the results table header %q", parse.Clip(p.badHeaderText, 80))
	}
	if p.table == tableNone {
		return p.Errorf(ErrTruncated, "report ends before its results table")
	}
	if len(p.rep.Bandwidth) == 0 && len(p.rep.Latency) == 0 {
		return p.Errorf(ErrTruncated, "results table (header line %d) has no rows", p.tableLine)
	}
	return nil
}

func verbOf(title string) string {
	t := strings.ToLower(title)
	switch {
	case strings.Contains(t, "write"):
		return "write"
	case strings.Contains(t, "read"):
		return "read"
	case strings.Contains(t, "send"):
		return "send"
	case strings.Contains(t, "atomic"):
		return "atomic"
	}
	return ""
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

// WriteSummary writes what a person reads first about a perftest report: a
// line naming the input (file) and the test, the device and link facts, then
// the bandwidth or latency rows. A nil Report writes "nothing parsed".
func (rep *Report) WriteSummary(w io.Writer, file string) error {
	if rep == nil {
		return parse.WriteNothingParsed(w, file)
	}
	return parse.WriteBuffered(w, func(w io.Writer) {
		title := rep.Title
		if title == "" {
			title = "perftest " + rep.Kind
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", file, title, rep.Format)
		var facts []string
		if rep.Device != "" {
			facts = append(facts, "device "+rep.Device)
		}
		if rep.LinkType != "" {
			facts = append(facts, "link "+rep.LinkType)
		}
		if rep.GIDIndex >= 0 {
			facts = append(facts, fmt.Sprintf("GID index %d", rep.GIDIndex))
		}
		if rep.MTU > 0 {
			facts = append(facts, fmt.Sprintf("MTU %d", rep.MTU))
		}
		if rep.QPs > 0 {
			facts = append(facts, fmt.Sprintf("%d QP(s)", rep.QPs))
		}
		if rep.UseCUDA {
			cuda := "CUDA buffers"
			if rep.CUDADevice >= 0 {
				cuda += fmt.Sprintf(" on device %d", rep.CUDADevice)
			}
			if rep.CUDADeviceName != "" {
				cuda += " (" + rep.CUDADeviceName + ")"
			}
			facts = append(facts, cuda)
		}
		if len(facts) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(facts, ", "))
		}
		if len(rep.Bandwidth) > 0 {
			unit := rep.Unit
			if rep.UnitInferred {
				unit += ", inferred"
			}
			fmt.Fprintf(w, "  %10s %12s %12s %12s %12s %10s   (%s)\n", "bytes", "iterations", "peak", "average", "avg GB/s", "Mpps", unit)
			for _, b := range rep.Bandwidth {
				gbs := "?"
				if rep.BytesPerUnit > 0 {
					gbs = fmt.Sprintf("%.3f", b.AverageBytesPerSecond/1e9)
				}
				side := ""
				if b.Side != "" {
					side = "  " + b.Side
				}
				fmt.Fprintf(w, "  %10d %12d %12.2f %12.2f %12s %10.6f%s\n", b.Bytes, b.Iterations, b.Peak, b.Average, gbs, b.MsgRateMpps, side)
			}
		}
		if len(rep.Latency) > 0 {
			unit := rep.LatencyUnit
			if unit == "" {
				unit = "usec"
			}
			fmt.Fprintf(w, "  %10s %12s %9s %9s %9s %9s %9s %9s %9s   (%s)\n", "bytes", "iterations", "min", "max", "typical", "avg", "stdev", "p99", "p99.9", unit)
			for _, l := range rep.Latency {
				fmt.Fprintf(w, "  %10d %12d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", l.Bytes, l.Iterations, l.Min, l.Max, l.Typical, l.Average, l.Stdev, l.P99, l.P999)
			}
		}
		if len(rep.Bandwidth) == 0 && len(rep.Latency) == 0 {
			fmt.Fprintln(w, "  no results rows")
		}
	})
}
